"""Fold and Unfold (col2im and im2col), as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import _size_any_t
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums sliding-window columns (N, C*prod(kernel), L) back into an image of output_size."""

    def __init__(self, output_size: _size_any_t, kernel_size: _size_any_t,
                 dilation: _size_any_t = 1, padding: _size_any_t = 0,
                 stride: _size_any_t = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extracts sliding windows of an image as columns (N, C*prod(kernel), L)."""

    def __init__(self, kernel_size: _size_any_t, dilation: _size_any_t = 1,
                 padding: _size_any_t = 0, stride: _size_any_t = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
