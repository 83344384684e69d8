"""tapegrad.linalg: linear algebra, as torch.linalg. Declared with the ops in tapegrad/ops
(each family's LINALG_FUNCTIONS)."""
from .ops import LINALG_FUNCTIONS

globals().update(LINALG_FUNCTIONS)
