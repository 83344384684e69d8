"""tapegrad.utils: data loading and activation checkpointing, as torch.utils."""
from . import checkpoint, data
