"""DataLoader: batches of a dataset, read in the order its sampler gives."""
import itertools

from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

# Setting these after construction would leave the samplers out of step, so torch forbids it.
_FROZEN_ATTRIBUTES = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                      "persistent_workers")


def get_worker_info():
    """Always None: tapegrad reads every batch in the main process."""
    return None


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                          multiprocessing_context):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                         "num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")


def _check_iterable_options(shuffle, sampler, batch_sampler):
    # An iterable dataset decides its own order: any sampler would be ignored, so refuse it.
    if shuffle not in (False, None):
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                         f"but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                         f"but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")


def _check_batching_options(batch_size, shuffle, sampler, batch_sampler, drop_last):
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                      or drop_last):
        raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                         "sampler, and drop_last")
    if batch_sampler is None and batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")


class DataLoader:
    """Iterate over a dataset in batches, torch's way.

    Differs from torch: every batch is read in the main process whatever num_workers says
    (worker_init_fn is never called), and pin_memory has no effect (there is only the cpu).
    """

    _is_initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        is_iterable = isinstance(dataset, IterableDataset)
        if is_iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        _check_batching_options(batch_size, shuffle, sampler, batch_sampler, drop_last)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None and not is_iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.timeout, self.worker_init_fn = timeout, worker_init_fn
        self.multiprocessing_context, self.in_order = multiprocessing_context, in_order
        self.persistent_workers = persistent_workers
        self.collate_fn = collate_fn or (default_collate if self._auto_collation
                                         else default_convert)
        self._is_initialized = True

    def __setattr__(self, name, value):
        if self._is_initialized and name in _FROZEN_ATTRIBUTES:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        """Whether samples are grouped into batches (batch_size or batch_sampler was given)."""
        return self.batch_sampler is not None or (self.batch_size is not None
                                                  and isinstance(self.dataset, IterableDataset))

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            return self._iterate_stream()
        return self._iterate_indices()

    def _fetch(self, indices):
        fetch_many = getattr(self.dataset, "__getitems__", None)
        if fetch_many:
            return fetch_many(indices)
        return [self.dataset[index] for index in indices]

    def _iterate_indices(self):
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        whole = self._whole_tensor_batches()
        for indices in self.batch_sampler:
            yield [tensor[indices].contiguous() for tensor in whole] if whole else (
                self.collate_fn(self._fetch(indices)))

    def _whole_tensor_batches(self):
        """A plain TensorDataset's tensors, when the default collate would stack their rows:
        indexing each tensor by the batch's indices at once gives the same batch (torch
        fetches and stacks row by row, which costs a Python round trip per sample here)."""
        dataset = self.dataset
        if (type(dataset) is TensorDataset and self.collate_fn is default_collate
                and not any(tensor.requires_grad for tensor in dataset.tensors)):
            return dataset.tensors
        return None

    def _iterate_stream(self):
        samples = iter(self.dataset)
        if self.batch_size is None:
            yield from map(self.collate_fn, samples)
            return
        while True:
            batch = list(itertools.islice(samples, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)

    def __len__(self):
        if not isinstance(self.dataset, IterableDataset):
            return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return -(-length // self.batch_size)
