"""Flatten and Unflatten, as torch.nn."""
from __future__ import annotations

from typing import Any

from tapegrad._tensor import Tensor

from ..common_types import _size_any_t as _size

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merges dims start_dim..end_dim into one (the batch dim is kept by default)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _check_int_sizes(sizes: Any) -> None:
    """torch's TypeError unless `sizes` is a tuple or list of ints."""
    if not isinstance(sizes, (tuple, list)):
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(sizes).__name__}")
    for position, size in enumerate(sizes):
        if not isinstance(size, int):
            raise TypeError("unflattened_size must be tuple of ints, but found element of "
                            f"type {type(size).__name__} at pos {position}")


class Unflatten(Module):
    """Splits dim `dim` into the shape `unflattened_size`."""

    def __init__(self, dim: int, unflattened_size: _size | list[int]) -> None:
        super().__init__()
        _check_int_sizes(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
