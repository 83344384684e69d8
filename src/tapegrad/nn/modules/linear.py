"""Affine layers: Identity, Linear and Bilinear, as torch.nn."""
from __future__ import annotations

import math
from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from .. import init
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .module import Module

__all__ = ["Bilinear", "Identity", "Linear"]


def weight_fan_in(weight: Tensor) -> int:
    """Inputs feeding one output unit: dim 1 times the receptive field (torch's fan_in)."""
    return weight.shape[1] * math.prod(weight.shape[2:])


def reset_weight_and_bias(weight: Tensor, bias: Tensor | None) -> None:
    """torch's Linear/Conv default: kaiming_uniform_(a=sqrt(5)), bias U(±1/sqrt(fan_in))."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = weight_fan_in(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


def optional_bias(module: Module, has_bias: bool, size: int, device: DeviceLikeType | None,
                  dtype: _dtype | None) -> None:
    """Register `bias` as a fresh Parameter of `size`, or as None when there is no bias."""
    if has_bias:
        module.bias = Parameter(tapegrad.empty(size, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features)."""

    in_features: int
    out_features: int
    weight: Parameter
    bias: Parameter | None

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(tapegrad.empty((out_features, in_features), device=device,
                                               dtype=dtype))
        optional_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, with A of shape (out_features, in1_features, in2_features)."""

    in1_features: int
    in2_features: int
    out_features: int
    weight: Parameter
    bias: Parameter | None

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(tapegrad.empty((out_features, in1_features, in2_features),
                                               device=device, dtype=dtype))
        optional_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        # torch bounds both tensors by 1/sqrt(in1_features) only, not by the full fan-in
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
