"""SyncBatchNorm: batch normalisation whose statistics are those of the global batch, across
the ranks of a process group (torch.nn.SyncBatchNorm, on MPI)."""
from __future__ import annotations

from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from ...autograd.function import Function
from ..common_types import DeviceLikeType
from .batchnorm import _BatchNorm
from .module import Module

__all__ = ["SyncBatchNorm"]


class _AllReduceSum(Function):
    """A differentiable all-reduce: every rank's output depends on every rank's input, so the
    gradient of each input is the sum of the gradients of all outputs, another all-reduce."""

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, group: Any) -> Tensor:
        from ... import distributed as dist
        ctx.group = group
        total = tensor.clone()
        dist.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        from ... import distributed as dist
        total = grad.clone()
        dist.all_reduce(total, group=ctx.group)
        return total, None


class SyncBatchNorm(_BatchNorm):
    """In training on more than one rank, mean and variance are of all ranks' batches together;
    otherwise (eval, or one rank) it is BatchNorm."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any | None = None, device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        from ... import distributed as dist
        synced = self.training and dist.is_initialized() and \
            dist.get_world_size(self.process_group) > 1
        if not synced:
            return super().forward(input)
        self._check_input_dim(input)
        dims = [0] + list(range(2, input.dim()))
        shape = [1, -1] + [1] * (input.dim() - 2)
        count = tapegrad.tensor(float(input.numel() // input.shape[1]), dtype=input.dtype)
        # two passes (mean, then centred squares) keep float32 variances accurate
        totals = _AllReduceSum.apply(tapegrad.cat([input.sum(dims), count.reshape(1)]),
                                     self.process_group)
        size = totals[-1]
        mean = totals[:-1] / size
        centred = input - mean.reshape(shape)
        var = _AllReduceSum.apply((centred * centred).sum(dims), self.process_group) / size
        output = centred * (var + self.eps).rsqrt().reshape(shape)
        if self.weight is not None:
            output = output * self.weight.reshape(shape)
        if self.bias is not None:
            output = output + self.bias.reshape(shape)
        if self.track_running_stats:  # then the buffers exist
            with tapegrad.no_grad():
                self.num_batches_tracked.add_(1)  # type: ignore[union-attr]
                factor = (1.0 / float(self.num_batches_tracked)  # type: ignore[arg-type]
                          if self.momentum is None else self.momentum)
                unbiased = var * size / (size - 1)
                for buffer, value in ((self.running_mean, mean), (self.running_var, unbiased)):
                    buffer.mul_(1 - factor).add_(factor * value)  # type: ignore[union-attr]
        return output

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any | None = None) -> Module:
        """module with every BatchNorm*d replaced by a SyncBatchNorm holding its state."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, cls):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)
            with tapegrad.no_grad():
                if module.affine:
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
