"""tapegrad.masked: as torch.masked. Declared with the ops in tapegrad/ops (each family's
MASKED_FUNCTIONS)."""
from typing import TYPE_CHECKING

from .ops import MASKED_FUNCTIONS

globals().update(MASKED_FUNCTIONS)

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._masked_functions import *  # noqa: F403
