"""DistributedSampler: each rank reads its own share of the dataset, in torch's order."""
import math
from collections.abc import Iterator
from typing import Any, TypeVar

import tapegrad

from .dataset import Dataset, _length
from .sampler import Sampler

T_co = TypeVar("T_co", covariant=True)

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[T_co]):
    """Rank r takes every num_replicas-th index, from r, of one permutation that all ranks
    draw alike (seeded with seed + epoch); the list is padded by wrapping round so every rank
    gets as many, or cut to a multiple of num_replicas with drop_last."""

    def __init__(self, dataset: Dataset[Any], num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        size = _length(dataset)
        if drop_last and size % num_replicas:
            self.num_samples = math.ceil((size - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        size = _length(self.dataset)
        if self.shuffle:
            generator = tapegrad.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = tapegrad.randperm(size, generator=generator).tolist()
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            missing = self.total_size - len(indices)
            indices += (indices * math.ceil(missing / len(indices)))[:missing] if missing else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Reshuffle differently next time (all ranks must set the same epoch)."""
        self.epoch = epoch
