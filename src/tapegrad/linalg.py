"""tapegrad.linalg: linear algebra, as torch.linalg. Declared with the ops in tapegrad/ops
(each family's LINALG_FUNCTIONS)."""
from typing import TYPE_CHECKING

from .ops import LINALG_FUNCTIONS

globals().update(LINALG_FUNCTIONS)

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._linalg_functions import *  # noqa: F403
