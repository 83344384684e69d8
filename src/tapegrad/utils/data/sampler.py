"""Samplers: the order in which a DataLoader reads indices, and how it groups them."""
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import numpy as np

import tapegrad
from ..._random import Generator
from ..._tensor import Tensor
from .dataset import _length

T_co = TypeVar("T_co", covariant=True)


def _check_positive_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class Sampler(Generic[T_co]):
    """Base class: subclasses give __iter__ over indices (and usually __len__)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Random indices: permutations without replacement, uniform draws with it.

    The draws come from `generator`, or tapegrad's global generator when it is None.
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # Read at each epoch: the data source may grow or shrink between epochs.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        size, count = len(self.data_source), self.num_samples
        generator = self.generator
        if generator is None:  # as torch: a generator seeded by one draw from the global one
            generator = tapegrad.Generator()
            generator.manual_seed(int(tapegrad.empty((), dtype=tapegrad.int64).random_()))
        if self.replacement:
            # torch draws in chunks of 32 indices
            for start in range(0, count, 32):
                yield from tapegrad.randint(0, size, (min(32, count - start),),
                                            generator=generator).tolist()
            return
        # More samples than items: whole permutations, then the head of one more.
        for _ in range(count // size):
            yield from tapegrad.randperm(size, generator=generator).tolist()
        yield from tapegrad.randperm(size, generator=generator)[:count % size].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for position in tapegrad.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Indices 0..len(weights)-1 drawn with probabilities proportional to weights."""

    def __init__(self, weights: Sequence[float] | Tensor, num_samples: int,
                 replacement: bool = True, generator: Generator | None = None) -> None:
        _check_positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        self.weights = tapegrad.as_tensor(weights, dtype=tapegrad.float64)
        if self.weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(self.weights.shape)}")
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        weights = self.weights.numpy()
        if not np.all(np.isfinite(weights) & (weights >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if not weights.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(weights):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        uniform = tapegrad.rand(self.num_samples if self.replacement else len(weights),
                                generator=self.generator, dtype=tapegrad.float64).numpy()
        if self.replacement:
            # Inverse CDF: the first index whose running total passes the draw.
            cumulative = np.cumsum(weights)
            return iter(np.searchsorted(cumulative, uniform * cumulative[-1], "right").tolist())
        # Efraimidis-Spirakis: the largest u ** (1 / w) form a weighted sample without
        # replacement. Zero weights come last, in random order, as torch's do.
        with np.errstate(divide="ignore"):
            keys = np.where(weights > 0, uniform ** (1 / weights), uniform - 1)
        return iter(np.argsort(-keys)[:self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of another sampler into lists of batch_size."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        _check_positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while True:
            batch = [index for _, index in zip(range(self.batch_size), indices)]
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        size = _length(self.sampler)
        if self.drop_last:
            return size // self.batch_size
        return -(-size // self.batch_size)
