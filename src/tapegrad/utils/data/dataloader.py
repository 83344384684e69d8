"""DataLoader: batches of a dataset, read in the order its sampler gives, in the main process
or in worker processes (num_workers > 0)."""
import itertools
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sized
from multiprocessing.context import BaseContext
from typing import Any, Generic, TypeVar, cast

from ..._creation import empty
from ..._dtype import int64
from ..._random import Generator
from ..._warnings import warn
from . import _worker
from ._worker import WorkerInfo
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, TensorDataset, _length
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

T_co = TypeVar("T_co", covariant=True)

# Setting these after construction would leave the samplers out of step, so torch forbids it.
_FROZEN_ATTRIBUTES = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                      "persistent_workers")


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, its WorkerInfo (id, num_workers, seed, dataset);
    None in the main process."""
    return _worker.current


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


class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches, torch's way: with num_workers > 0, batches are
    fetched and collated in worker processes (multiprocessing; worker_init_fn, prefetch_factor,
    persistent_workers, timeout and in_order as torch's). pin_memory has no effect: there is
    no accelerator to pin memory for."""

    _is_initialized = False
    dataset: Dataset[T_co]
    batch_size: int | None
    sampler: Sampler[Any] | Iterable[Any] | None
    batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None
    collate_fn: Callable[[list[Any]], Any]

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler[Any] | Iterable[Any] | None = None,
                 batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: str | BaseContext | None = None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        is_iterable = isinstance(dataset, IterableDataset)
        if is_iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        _check_batching_options(batch_size, shuffle, sampler, batch_sampler, drop_last)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if not is_iterable:
            if sampler is None:  # a map-style dataset read in full has a length
                sized = cast(Sized, dataset)
                sampler = (RandomSampler(sized, generator=generator) if shuffle
                           else SequentialSampler(sized))
            if batch_size is not None and batch_sampler is None:
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

    def __setattr__(self, name: str, value: Any) -> None:
        if self._is_initialized and name in _FROZEN_ATTRIBUTES:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        """Whether samples are grouped into batches (batch_size or batch_sampler was given)."""
        return self.batch_sampler is not None or (self.batch_size is not None
                                                  and isinstance(self.dataset, IterableDataset))

    def __iter__(self) -> Iterator[Any]:
        # torch draws a base seed for the workers from the generator at every new iterator,
        # even with no workers, so the sampler's draws come after it
        base_seed = int(empty((), dtype=int64).random_(generator=self.generator))
        if self.pin_memory:
            warn("'pin_memory' argument is set as true but no accelerator is found, then "
                 "device pinned memory won't be used.")
        fetcher = _Fetcher(self.dataset, self._auto_collation, self.collate_fn, self.drop_last,
                           self.batch_size)
        if self.num_workers == 0:
            return self._single_process(fetcher)
        pool = getattr(self, "_pool", None)
        if pool is None:
            context = self.multiprocessing_context
            if context is None or isinstance(context, str):
                context = multiprocessing.get_context(context)
            pool = _worker.WorkerPool(context, self.num_workers, fetcher, base_seed,
                                      self.worker_init_fn, self.dataset)
            if self.persistent_workers:
                self._pool = pool
        else:
            pool.resume()
        prefetch = 2 if self.prefetch_factor is None else self.prefetch_factor
        return _worker.MultiProcessIterator(
            pool, self._tasks(), self.num_workers, prefetch, self.timeout, self.in_order,
            on_end=(lambda: None) if self.persistent_workers else pool.shutdown)

    def _tasks(self):
        """What each fetch is given: a batch's indices, one index, or nothing (a stream)."""
        if isinstance(self.dataset, IterableDataset):
            return itertools.repeat(None)
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def _single_process(self, fetcher):
        fetch, whole = fetcher(), self._whole_tensor_batches()
        for task in self._tasks():
            if whole is not None:
                yield [tensor[task].contiguous() for tensor in whole]
                continue
            try:
                yield fetch(task)
            except StopIteration:
                return

    def _whole_tensor_batches(self):
        """A plain TensorDataset's tensors, when the default collate would stack their rows:
        indexing each tensor by the batch's indices at once gives the same batch (torch
        fetches and stacks row by row, which costs a Python round trip per sample here)."""
        dataset = self.dataset
        if (type(dataset) is TensorDataset and self.collate_fn is default_collate
                and self.batch_sampler is not None
                and not any(tensor.requires_grad for tensor in dataset.tensors)):
            return dataset.tensors
        return None

    def __len__(self) -> int:
        if not isinstance(self.dataset, IterableDataset):
            return _length(self.batch_sampler if self.batch_sampler is not None else self.sampler)
        length = _length(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return -(-length // self.batch_size)


class _Fetcher:
    """Makes the function that turns a task into a batch, for one epoch (a worker calls it in
    its own process, so it is picklable for spawned workers)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last, batch_size):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.drop_last, self.batch_size = drop_last, batch_size

    def __call__(self):
        dataset, collate = self.dataset, self.collate_fn
        if isinstance(dataset, IterableDataset):
            samples = iter(dataset)

            def fetch(_):
                if not self.auto_collation:
                    return collate(next(samples))
                batch = list(itertools.islice(samples, self.batch_size))
                if not batch or (self.drop_last and len(batch) < self.batch_size):
                    raise StopIteration
                return collate(batch)
            return fetch

        def fetch(task):
            if not self.auto_collation:
                return collate(dataset[task])
            fetch_many = getattr(dataset, "__getitems__", None)
            return collate(fetch_many(task) if fetch_many else [dataset[i] for i in task])
        return fetch
