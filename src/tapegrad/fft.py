"""tapegrad.fft: as torch.fft. Declared with the ops in tapegrad/ops (each family's
FFT_FUNCTIONS)."""
from .ops import FFT_FUNCTIONS

globals().update(FFT_FUNCTIONS)
