"""Datasets: map-style and iterable base classes, tensor/concat/subset wrappers, random_split."""
import bisect
import itertools
import math
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar, cast

import tapegrad
from ..._random import Generator
from ..._tensor import Tensor
from ..._warnings import warn

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


def _length(dataset: object) -> int:
    """len(dataset), for a dataset or sampler typed without __len__ (Dataset and Sampler
    declare none, as torch's): one that has none raises len()'s TypeError."""
    return len(cast(Sized, dataset))


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses give __getitem__ (and usually __len__)."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset[T_co]") -> "ConcatDataset[T_co]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset read as a stream: subclasses give __iter__."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    # a stream chains (torch's): not the ConcatDataset that Dataset.__add__ promises
    def __add__(self, other: Dataset[T_co]) -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are tuples of the tensors' rows at one index along their first dimension."""

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset[Any]):
    """Several datasets of one length side by side: sample i is the tuple (positional) or
    dict (keywords) of their samples i."""

    datasets: tuple[Dataset[Any], ...] | dict[str, Dataset[Any]]

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        parts = list(args or kwargs.values())
        self._length = _length(parts[0])
        if any(_length(dataset) != self._length for dataset in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index: Any) -> tuple[Any, ...] | dict[str, Any]:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        """A batch of samples, each part fetched in one call where its dataset can."""
        named = isinstance(self.datasets, dict)
        keys: Sequence[Any] = list(self.datasets) if named else range(len(self.datasets))
        columns = []
        for key in keys:
            dataset = self.datasets[key]
            fetch_many = getattr(dataset, "__getitems__", None)
            items = fetch_many(indices) if callable(fetch_many) else [dataset[i] for i in indices]
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected "
                                 f"{len(indices)}, got {len(items)}")
            columns.append(items)
        rows = zip(*columns)
        return [dict(zip(keys, row)) for row in rows] if named else [tuple(row) for row in rows]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets read one after another as a single dataset."""

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(dataset, IterableDataset) for dataset in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(_length(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> T_co:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset[Any]):
    """Several iterable datasets streamed one after another."""

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
        return sum(_length(dataset) for dataset in self.datasets)


class Subset(Dataset[T_co]):
    """The samples of dataset at the given indices, in that order."""

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> T_co:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        # Batch fetch: lets a wrapped dataset that reads many rows at once keep doing so.
        fetch_many = getattr(self.dataset, "__getitems__", None)
        if callable(fetch_many):
            return fetch_many([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """Split total by fractions: floors first, then the remainder one by one, round robin."""
    lengths = []
    for i, fraction in enumerate(fractions):
        if not 0 <= fraction <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warn(f"Length of split at index {i} is 0. This might result in an empty "
                 "dataset.", UserWarning)
    return lengths


def random_split(dataset: Dataset[T], lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset[T]]:
    """Split dataset into disjoint random Subsets of the given lengths or fractions.

    Without a generator the permutation is drawn from tapegrad's global generator.
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, _length(dataset))
    if sum(lengths) != _length(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    sizes = cast(Sequence[int], lengths)  # whole numbers: given so, or from the fractions
    order = tapegrad.randperm(sum(sizes), generator=generator).tolist()
    ends = itertools.accumulate(sizes)
    return [Subset(dataset, order[end - length:end]) for end, length in zip(ends, sizes)]
