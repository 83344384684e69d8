"""tapegrad.signal.windows: as torch.signal.windows. Declared with torch's window factories in
tapegrad/ops/windows.py."""
from ..ops.windows import (SIGNAL_WINDOWS as __all__, bartlett, blackman, cosine,  # noqa: F401
                           exponential, gaussian, general_cosine, general_hamming, hamming, hann,
                           kaiser, nuttall)
