"""Folding an eval-mode batch norm into the convolution or linear layer before it, as
torch.nn.utils.fusion: the layer's weight scaled by gamma / sqrt(var + eps) per output
channel, its bias shifted to match."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, TypeVar

import tapegrad

from ..parameter import Parameter

if TYPE_CHECKING:
    from ..._tensor import Tensor
    from ..modules.batchnorm import _BatchNorm
    from ..modules.conv import _ConvNd
    from ..modules.linear import Linear
    from ..modules.module import Module

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]

_ConvT = TypeVar("_ConvT", bound="_ConvNd")
_LinearT = TypeVar("_LinearT", bound="Linear")


def _eval_statistics(layer: Module, bn: _BatchNorm) -> tuple[Tensor, Tensor]:
    """bn's running mean and variance, once layer and bn are checked as torch checks them."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    return bn.running_mean, bn.running_var


def fuse_conv_bn_eval(conv: _ConvT, bn: _BatchNorm, transpose: bool = False) -> _ConvT:
    """A copy of conv that computes bn(conv(x)) for an eval-mode bn."""
    running_mean, running_var = _eval_statistics(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, running_mean, running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """(weight, bias) Parameters of the fused convolution."""
    bias_dtype = conv_w.dtype if conv_b is None else conv_b.dtype
    conv_b = tapegrad.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = tapegrad.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = tapegrad.zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = tapegrad.rsqrt(bn_rv + bn_eps)
    # the output channels are dim 1 of a transposed convolution's weight, else dim 0
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    weight = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=conv_w.dtype)
    bias = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: _LinearT, bn: _BatchNorm) -> _LinearT:
    """A copy of linear that computes bn(linear(x)) for an eval-mode bn."""
    running_mean, running_var = _eval_statistics(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             f"bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    # an affine bn's weight and bias: torch too fails on a non-affine one's None
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, running_mean, running_var, bn.eps,
        bn.weight, bn.bias)  # type: ignore[arg-type]
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor,
                           bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """(weight, bias) Parameters of the fused linear layer."""
    bias_dtype = linear_w.dtype if linear_b is None else linear_b.dtype
    linear_b = tapegrad.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * tapegrad.rsqrt(bn_rv + bn_eps)
    weight = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
