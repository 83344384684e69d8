"""tapegrad.fft: as torch.fft. Declared with the ops in tapegrad/ops (each family's
FFT_FUNCTIONS)."""
from typing import TYPE_CHECKING

from .ops import FFT_FUNCTIONS

globals().update(FFT_FUNCTIONS)

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._fft_functions import *  # noqa: F403
