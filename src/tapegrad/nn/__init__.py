"""tapegrad.nn: neural-network building blocks, as torch.nn."""
from . import functional
