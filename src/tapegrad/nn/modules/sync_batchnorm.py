"""SyncBatchNorm: batch normalisation whose statistics are those of the global batch, across
the ranks of a process group (torch.nn.SyncBatchNorm, on MPI)."""
import tapegrad

from ...autograd.function import Function
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


class _AllReduceSum(Function):
    """A differentiable all-reduce: every rank's output depends on every rank's input, so the
    gradient of each input is the sum of the gradients of all outputs, another all-reduce."""

    @staticmethod
    def forward(ctx, tensor, group):
        from ... import distributed as dist
        ctx.group = group
        total = tensor.clone()
        dist.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx, grad):
        from ... import distributed as dist
        total = grad.clone()
        dist.all_reduce(total, group=ctx.group)
        return total, None


class SyncBatchNorm(_BatchNorm):
    """In training on more than one rank, mean and variance are of all ranks' batches together;
    otherwise (eval, or one rank) it is BatchNorm."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
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
        if self.track_running_stats:
            with tapegrad.no_grad():
                self.num_batches_tracked.add_(1)
                factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None \
                    else self.momentum
                unbiased = var * size / (size - 1)
                self.running_mean.mul_(1 - factor).add_(factor * mean)
                self.running_var.mul_(1 - factor).add_(factor * unbiased)
        return output

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
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
