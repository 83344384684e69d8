"""Batch normalisation layers with running statistics: BatchNorm1d, 2d and 3d, as torch.nn."""
from __future__ import annotations

from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from .. import init
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


def register_affine(module: Module, shape: int | tuple[int, ...], has_weight: bool,
                    has_bias: bool, device: DeviceLikeType | None,
                    dtype: _dtype | None) -> None:
    """Register `weight` and `bias` Parameters of `shape`, or None for those left out."""
    for name, present in (("weight", has_weight), ("bias", has_weight and has_bias)):
        parameter = None
        if present:
            parameter = Parameter(tapegrad.empty(shape, device=device, dtype=dtype))
        module.register_parameter(name, parameter)


class _NormBase(Module):
    """Per-channel affine parameters and running-statistics buffers, with torch's names."""

    _version = 2  # version 2 added num_batches_tracked
    weight: Parameter | None
    bias: Parameter | None
    running_mean: Tensor | None
    running_var: Tensor | None
    num_batches_tracked: Tensor | None

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        register_affine(self, num_features, affine, bias, device, dtype)
        tracked = track_running_stats
        self.register_buffer("running_mean", tapegrad.zeros(num_features, **factory)
                             if tracked else None)
        self.register_buffer("running_var", tapegrad.ones(num_features, **factory)
                             if tracked else None)
        # the batch count is a long whatever the layer's dtype
        self.register_buffer("num_batches_tracked", tapegrad.tensor(0, dtype=tapegrad.long,
                                                                   device=device)
                             if tracked else None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:  # then the buffers exist
            self.running_mean.zero_()  # type: ignore[union-attr]
            self.running_var.fill_(1)  # type: ignore[union-attr]
            self.num_batches_tracked.zero_()  # type: ignore[union-attr]

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)  # type: ignore[arg-type]  # affine: the weight exists
            if self.bias is not None:
                init.zeros_(self.bias)

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str,
                              local_metadata: dict[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        # a state dict from before version 2 (or without metadata) may lack the batch count:
        # keep the current one rather than report it missing, as torch does
        key = prefix + "num_batches_tracked"
        is_old = local_metadata.get("version") is None or local_metadata["version"] < 2
        if is_old and self.track_running_stats and key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tapegrad.tensor(0, dtype=tapegrad.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """Normalise with batch statistics in training, running statistics in eval (if tracked)."""

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        # momentum=None means a cumulative average: factor 1/n for the n-th batch
        average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                average_factor = 1.0 / float(self.num_batches_tracked)
        uses_batch_stats = self.training or (self.running_mean is None
                                             and self.running_var is None)
        # the buffers are passed when they are updated (training) or used (eval)
        passes_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if passes_buffers else None,
                            self.running_var if passes_buffers else None, self.weight,
                            self.bias, uses_batch_stats, average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) input."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
