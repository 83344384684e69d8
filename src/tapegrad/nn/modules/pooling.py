"""Pooling layers: max, average, adaptive and power-average pooling in 1-d, 2-d and 3-d, max
unpooling and fractional max pooling, as torch.nn."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import _ratio_any_t, _size_1_t, _size_any_opt_t, _size_any_t
from .conv import expand_size
from .module import Module

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
           "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxPoolNd(Module):
    """Arguments are kept as given (an int stays an int), so the repr matches torch's."""

    def __init__(self, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0, dilation: _size_any_t = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    def _pool(self, pool: Callable[..., Any], input: Tensor) -> Any:
        return pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, L) or (C, L) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return self._pool(F.max_pool1d, input)


class MaxPool2d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return self._pool(F.max_pool2d, input)


class MaxPool3d(_MaxPoolNd):
    """Maximum over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return self._pool(F.max_pool3d, input)


class _AvgPoolNd(Module):
    """Shared repr of the average-pooling layers."""

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of (N, C, L) or (C, L) input; sizes stored as 1-tuples."""

    def __init__(self, kernel_size: _size_1_t, stride: _size_1_t | None = None,
                 padding: _size_1_t = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = expand_size(kernel_size, 1)
        self.stride = expand_size(stride if stride is not None else kernel_size, 1)
        self.padding = expand_size(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    """Average pooling in 2-d and 3-d: arguments kept as given, an optional divisor."""

    def __init__(self, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def _pool(self, pool: Callable[..., Tensor], input: Tensor) -> Tensor:
        return pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                    self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolWithDivisor):
    """Mean over sliding windows of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(F.avg_pool2d, input)


class AvgPool3d(_AvgPoolWithDivisor):
    """Mean over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(F.avg_pool3d, input)


class _AdaptiveAvgPoolNd(Module):
    """Average pooling whose windows are chosen to give `output_size` (None keeps a dim)."""

    def __init__(self, output_size: _size_any_opt_t) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of (N, C, L) or (C, L) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    """Max pooling whose windows are chosen to give `output_size` (None keeps a dim)."""

    def __init__(self, output_size: _size_any_opt_t, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of (N, C, L) or (C, L) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    """Power-average pooling: (sum of x^p over each window)^(1/p)."""

    def __init__(self, norm_type: float, kernel_size: _size_any_t,
                 stride: _size_any_t | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling of (N, C, L) or (C, L) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling of (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class _MaxUnpoolNd(Module):
    """Max unpooling: sizes kept as n-tuples, the stride the kernel size when omitted."""

    def __init__(self, n: int, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0) -> None:
        super().__init__()
        self.kernel_size = expand_size(kernel_size, n)
        self.stride = expand_size(stride if stride is not None else kernel_size, n)
        self.padding = expand_size(padding, n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def _unpool(self, unpool: Callable[..., Tensor], input: Tensor, indices: Tensor,
                output_size: list[int] | None) -> Tensor:
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: values back at their indices, zeros elsewhere."""

    def __init__(self, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0) -> None:
        super().__init__(1, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor,
                output_size: list[int] | None = None) -> Tensor:
        return self._unpool(F.max_unpool1d, input, indices, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: values back at their indices, zeros elsewhere."""

    def __init__(self, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0) -> None:
        super().__init__(2, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor,
                output_size: list[int] | None = None) -> Tensor:
        return self._unpool(F.max_unpool2d, input, indices, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: values back at their indices, zeros elsewhere."""

    def __init__(self, kernel_size: _size_any_t, stride: _size_any_t | None = None,
                 padding: _size_any_t = 0) -> None:
        super().__init__(3, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor,
                output_size: list[int] | None = None) -> Tensor:
        return self._unpool(F.max_unpool3d, input, indices, output_size)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: sizes as n-tuples, fixed samples (if given) as a buffer."""

    def __init__(self, n: int, kernel_size: _size_any_t, output_size: _size_any_t | None,
                 output_ratio: _ratio_any_t | None, return_indices: bool,
                 _random_samples: Tensor | None) -> None:
        super().__init__()
        name = type(self).__name__
        if n == 3 and min(expand_size(kernel_size, n)) <= 0:
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = expand_size(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else expand_size(output_size, n)
        self.output_ratio = None if output_ratio is None else expand_size(output_ratio, n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def _pool(self, pool: Callable[..., Any], input: Tensor) -> Any:
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling of (N, C, H, W) or (C, H, W) input over windows at pseudo-random starts."""

    def __init__(self, kernel_size: _size_any_t, output_size: _size_any_t | None = None,
                 output_ratio: _ratio_any_t | None = None, return_indices: bool = False,
                 _random_samples: Tensor | None = None) -> None:
        super().__init__(2, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return self._pool(F.fractional_max_pool2d, input)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) input over windows at pseudo-random
    starts."""

    def __init__(self, kernel_size: _size_any_t, output_size: _size_any_t | None = None,
                 output_ratio: _ratio_any_t | None = None, return_indices: bool = False,
                 _random_samples: Tensor | None = None) -> None:
        super().__init__(3, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input: Tensor) -> Any:  # (output, indices) with return_indices
        return self._pool(F.fractional_max_pool3d, input)
