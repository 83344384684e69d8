"""tapegrad.masked: as torch.masked. Declared with the ops in tapegrad/ops (each family's
MASKED_FUNCTIONS)."""
from .ops import MASKED_FUNCTIONS

globals().update(MASKED_FUNCTIONS)
