"""tapegrad.nn.parallel: data parallelism across devices and processes, as torch.nn.parallel."""
from .data_parallel import DataParallel, data_parallel, gather, scatter, scatter_kwargs
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "scatter",
           "scatter_kwargs"]
