"""tapegrad.special: as torch.special. Declared with the ops in tapegrad/ops (each family's
SPECIAL_FUNCTIONS)."""
from typing import TYPE_CHECKING

from .ops import SPECIAL_FUNCTIONS

globals().update(SPECIAL_FUNCTIONS)

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._special_functions import *  # noqa: F403
