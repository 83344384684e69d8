"""Padding layers: constant, zero, reflection, replication and circular padding, as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import _size_any_t
from .conv import expand_size
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


class _PadNd(Module):
    """Pads the last `padding_dims` dims by `padding` (an int means the same on every side)."""

    mode = "constant"
    padding_dims = 1

    def __init__(self, padding: _size_any_t) -> None:
        super().__init__()
        self.padding = expand_size(padding, 2 * self.padding_dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Pads with a constant `value`."""

    def __init__(self, padding: _size_any_t, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Constant padding of the last dim."""


class ConstantPad2d(_ConstantPadNd):
    """Constant padding of the last 2 dims."""

    padding_dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Constant padding of the last 3 dims."""

    padding_dims = 3


class _ZeroPad:
    """Constant padding with the value fixed at 0, shown without it in the repr."""

    padding: tuple[int, ...]

    def __init__(self, padding: _size_any_t) -> None:
        super().__init__(padding, 0.0)  # type: ignore[call-arg]  # the next class's __init__

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Zero padding of the last dim."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Zero padding of the last 2 dims."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Zero padding of the last 3 dims."""


class ReflectionPad1d(_PadNd):
    """Mirror padding of the last dim (the edge value is not repeated)."""

    mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Mirror padding of the last 2 dims."""

    mode = "reflect"
    padding_dims = 2


class ReflectionPad3d(_PadNd):
    """Mirror padding of the last 3 dims."""

    mode = "reflect"
    padding_dims = 3


class ReplicationPad1d(_PadNd):
    """Edge-value padding of the last dim."""

    mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Edge-value padding of the last 2 dims."""

    mode = "replicate"
    padding_dims = 2


class ReplicationPad3d(_PadNd):
    """Edge-value padding of the last 3 dims."""

    mode = "replicate"
    padding_dims = 3


class _CircularPadNd(_PadNd):
    """Wrap-around padding; the input must have padding_dims + 1 or + 2 dims (torch's
    ValueError otherwise)."""

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        low = self.padding_dims + 1
        if input.dim() not in (low, low + 1):
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Circular padding of the last dim."""


class CircularPad2d(_CircularPadNd):
    """Circular padding of the last 2 dims."""

    padding_dims = 2


class CircularPad3d(_CircularPadNd):
    """Circular padding of the last 3 dims."""

    padding_dims = 3
