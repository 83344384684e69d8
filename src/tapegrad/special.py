"""tapegrad.special: as torch.special. Declared with the ops in tapegrad/ops (each family's
SPECIAL_FUNCTIONS)."""
from .ops import SPECIAL_FUNCTIONS

globals().update(SPECIAL_FUNCTIONS)
