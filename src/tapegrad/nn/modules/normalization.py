"""Per-sample normalisation layers: LayerNorm, RMSNorm, GroupNorm, InstanceNorm1d/2d/3d, as
torch.nn."""
from __future__ import annotations

import numbers

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from .. import init
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .batchnorm import _NormBase, register_affine
from .module import Module
from ..._warnings import warn

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm",
           "RMSNorm"]


def _reset_affine(module: LayerNorm | GroupNorm) -> None:
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalise over the trailing `normalized_shape` dims of each sample."""

    normalized_shape: tuple[int, ...]
    weight: Parameter | None
    bias: Parameter | None

    def __init__(self, normalized_shape: int | list[int] | tuple[int, ...], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)  # type: ignore[arg-type]  # not an int
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        register_affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide by the root mean square over the trailing `normalized_shape` dims, then scale;
    eps=None takes the input dtype's machine epsilon."""

    normalized_shape: tuple[int, ...]
    weight: Parameter | None

    def __init__(self, normalized_shape: int | list[int] | tuple[int, ...],
                 eps: float | None = None, elementwise_affine: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)  # type: ignore[arg-type]  # not an int
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        weight = None
        if elementwise_affine:  # a weight only: torch's RMSNorm has no bias at all
            weight = Parameter(tapegrad.empty(self.normalized_shape, device=device, dtype=dtype))
        self.register_parameter("weight", weight)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)  # type: ignore[arg-type]  # affine: the weight exists

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Normalise each of `num_groups` channel groups of each sample."""

    weight: Parameter | None
    bias: Parameter | None

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        register_affine(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_NormBase):
    """Normalise each channel of each sample; no affine and no running stats by default."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    no_batch_dims: int  # each subclass's: the dims of an input without its batch dim

    def _get_no_batch_dim(self) -> int:
        return self.no_batch_dims

    def _check_input_dim(self, input: Tensor) -> None:
        low = self.no_batch_dims
        if input.dim() not in (low, low + 1):
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warn(f"input's size at dim={feature_dim} does not match num_features. "
                 "You can silence this warning by not passing in num_features, "
                 "which is not used because affine=False")
        if input.dim() == self._get_no_batch_dim():
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) input."""

    no_batch_dims = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) input."""

    no_batch_dims = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) input."""

    no_batch_dims = 4
