"""tapegrad.nn.parallel: data parallelism across processes, as torch.nn.parallel."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
