"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d, as torch.nn."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import DeviceLikeType, _size_1_t, _size_2_t, _size_3_t
from ..parameter import Parameter
from .linear import optional_bias, reset_weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def expand_size(value: Any, n: int) -> tuple[Any, ...]:
    """A sequence as a tuple, anything else repeated n times (torch's _single, _pair)."""
    if isinstance(value, Iterable):
        return tuple(value)
    return (value,) * n


def _check_conv_arguments(in_channels: int, out_channels: int, stride: tuple[int, ...],
                          padding: str | tuple[int, ...], groups: int,
                          padding_mode: str) -> None:
    """torch's ValueErrors for bad groups, padding strings and padding modes."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    padding_strings = {"same", "valid"}
    if isinstance(padding, str):
        if padding not in padding_strings:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             f"{padding_strings}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    padding_modes = {"zeros", "reflect", "replicate", "circular"}
    if padding_mode not in padding_modes:
        raise ValueError(f"padding_mode must be one of {padding_modes}, but got "
                         f"padding_mode='{padding_mode}'")


def _explicit_padding(padding: str | tuple[int, ...], kernel_size: tuple[int, ...],
                      dilation: tuple[int, ...]) -> list[int]:
    """F.pad's (last-dim-first, left/right) amounts for the non-'zeros' padding modes."""
    if isinstance(padding, str):
        amounts = [0, 0] * len(kernel_size)
        if padding == "same":
            # the odd pixel of an even total goes on the right, as in torch
            for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size))):
                total = d * (k - 1)
                amounts[2 * i:2 * i + 2] = [total // 2, total - total // 2]
        return amounts
    return [amount for amount in reversed(padding) for _ in range(2)]


class _ConvNd(Module):
    """Shared state of the convolution layers, with torch's attribute names."""

    in_channels: int
    out_channels: int
    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: str | tuple[int, ...]
    dilation: tuple[int, ...]
    transposed: bool
    output_padding: tuple[int, ...]
    groups: int
    padding_mode: str
    weight: Parameter
    bias: Parameter | None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple[int, ...],
                 stride: tuple[int, ...], padding: str | tuple[int, ...],
                 dilation: tuple[int, ...], transposed: bool, output_padding: tuple[int, ...],
                 groups: int, bias: bool, padding_mode: str,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        _check_conv_arguments(in_channels, out_channels, stride, padding, groups, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _explicit_padding(padding, kernel_size,
                                                                  dilation)
        channels = ((in_channels, out_channels // groups) if transposed
                    else (out_channels, in_channels // groups))
        self.weight = Parameter(tapegrad.empty((*channels, *kernel_size), device=device,
                                               dtype=dtype))
        optional_bias(self, bias, out_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def _padded_conv(self, conv: Callable[..., Tensor], input: Tensor, weight: Tensor,
                     bias: Tensor | None) -> Tensor:
        """Run `conv`, padding first with F.pad unless the mode is 'zeros'."""
        if self.padding_mode == "zeros":
            return conv(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)


def _conv_sizes(n: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any
                ) -> tuple[tuple[int, ...], tuple[int, ...], str | tuple[int, ...],
                           tuple[int, ...]]:
    """kernel_size, stride, padding (strings kept) and dilation as n-tuples."""
    padding = padding if isinstance(padding, str) else expand_size(padding, n)
    return (expand_size(kernel_size, n), expand_size(stride, n), padding,
            expand_size(dilation, n))


class Conv1d(_ConvNd):
    """1-d cross-correlation over (N, C_in, L) or (C_in, L) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_1_t,
                 stride: _size_1_t = 1, padding: str | _size_1_t = 0, dilation: _size_1_t = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(in_channels, out_channels,
                         *_conv_sizes(1, kernel_size, stride, padding, dilation), False, (0,),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        return self._padded_conv(F.conv1d, input, weight, bias)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-d cross-correlation over (N, C_in, H, W) or (C_in, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_2_t,
                 stride: _size_2_t = 1, padding: str | _size_2_t = 0, dilation: _size_2_t = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(in_channels, out_channels,
                         *_conv_sizes(2, kernel_size, stride, padding, dilation), False, (0, 0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        return self._padded_conv(F.conv2d, input, weight, bias)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """3-d cross-correlation over (N, C_in, D, H, W) or (C_in, D, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_3_t,
                 stride: _size_3_t = 1, padding: str | _size_3_t = 0, dilation: _size_3_t = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(in_channels, out_channels,
                         *_conv_sizes(3, kernel_size, stride, padding, dilation), False, (0, 0, 0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        return self._padded_conv(F.conv3d, input, weight, bias)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolutions: only 'zeros' padding, optional requested output size."""

    padding: tuple[int, ...]

    def __init__(self, n: int, in_channels: int, out_channels: int, kernel_size: Any,
                 stride: Any, padding: Any, output_padding: Any, groups: int, bias: bool,
                 dilation: Any, padding_mode: str, device: DeviceLikeType | None,
                 dtype: _dtype | None) -> None:
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        super().__init__(in_channels, out_channels, expand_size(kernel_size, n),
                         expand_size(stride, n), expand_size(padding, n),
                         expand_size(dilation, n), True, expand_size(output_padding, n), groups,
                         bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None,
                        stride: Sequence[int], padding: Sequence[int],
                        kernel_size: Sequence[int], num_spatial_dims: int,
                        dilation: Sequence[int] | None = None) -> Sequence[int]:
        """The output_padding that makes the output `output_size` long (torch's check)."""
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{non_spatial + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        dilation = dilation or (1,) * num_spatial_dims
        min_sizes = [(input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                     + dilation[d] * (kernel_size[d] - 1) + 1 for d in range(num_spatial_dims)]
        max_sizes = [size + step - 1 for size, step in zip(min_sizes, stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{tapegrad.Size(input.shape[2:])})")
        return [size - low for size, low in zip(output_size, min_sizes)]

    def _transposed_forward(self, conv: Callable[..., Tensor], input: Tensor,
                            output_size: Sequence[int] | None) -> Tensor:
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, len(self.kernel_size),
                                              self.dilation)
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The gradient of Conv1d with respect to its input, as a layer."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_1_t,
                 stride: _size_1_t = 1, padding: _size_1_t = 0, output_padding: _size_1_t = 0,
                 groups: int = 1, bias: bool = True, dilation: _size_1_t = 1,
                 padding_mode: str = "zeros", device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose1d, input, output_size)


class ConvTranspose2d(_ConvTransposeNd):
    """The gradient of Conv2d with respect to its input, as a layer."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_2_t,
                 stride: _size_2_t = 1, padding: _size_2_t = 0, output_padding: _size_2_t = 0,
                 groups: int = 1, bias: bool = True, dilation: _size_2_t = 1,
                 padding_mode: str = "zeros", device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose2d, input, output_size)


class ConvTranspose3d(_ConvTransposeNd):
    """The gradient of Conv3d with respect to its input, as a layer."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _size_3_t,
                 stride: _size_3_t = 1, padding: _size_3_t = 0, output_padding: _size_3_t = 0,
                 groups: int = 1, bias: bool = True, dilation: _size_3_t = 1,
                 padding_mode: str = "zeros", device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        return self._transposed_forward(F.conv_transpose3d, input, output_size)
