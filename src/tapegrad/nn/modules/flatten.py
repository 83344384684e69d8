"""Flatten and Unflatten, as torch.nn."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merges dims start_dim..end_dim into one (the batch dim is kept by default)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _check_int_sizes(sizes):
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

    def __init__(self, dim, unflattened_size):
        super().__init__()
        _check_int_sizes(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
