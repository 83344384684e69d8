"""DistributedDataParallel: one model replica per rank, gradients averaged during backward.

Parameters are split into buckets (reverse registration order, the order backward produces
their gradients; the first bucket small so communication starts early). Each parameter's
post-accumulate-grad hook marks it ready; when a bucket is complete its gradients are packed
into one flat array and a nonblocking all-reduce (MPI Iallreduce) is started, so it runs
while backward computes the remaining gradients. Buckets start in index order on every rank,
as MPI requires of collectives. When the last one has started, all are waited for and the
averages are written back into each .grad: backward returns with synchronised gradients.
"""
from contextlib import contextmanager

import numpy as np

from ... import distributed as dist
from ...autograd.graph import AccumulateGrad
from ..modules.module import Module

_FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES
_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
    "making sure all `forward` function outputs participate in calculating loss.")


class _Bucket:
    def __init__(self, params):
        self.params = params
        self.pending = len(params)
        self.flat = None   # the tensor being all-reduced
        self.work = None


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None):
        super().__init__()
        self.module = module
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        # a small first bucket starts communication early, unless the user chose the size
        self._first_bucket_cap = _FIRST_BUCKET_BYTES if bucket_cap_mb is None else \
            self.bucket_bytes_cap
        self._params = [p for p in module.parameters() if p.requires_grad]
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        for tensor in list(module.parameters()) + list(module.buffers()):
            dist.broadcast(tensor.detach(), 0, group=process_group)
        self._buckets = self._make_buckets()
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._next_bucket = len(self._buckets)  # nothing in flight until a forward prepares it
        self._used = None
        for param in self._params:
            param.register_post_accumulate_grad_hook(self._grad_ready)

    def _make_buckets(self):
        """Reverse parameter order, one dtype per bucket, each up to its byte cap."""
        buckets, current, size = [], [], 0
        for param in reversed(self._params):
            cap = self._first_bucket_cap if not buckets else self.bucket_bytes_cap
            nbytes = param.numel() * param.element_size()
            if current and (size + nbytes > cap or param.dtype != current[0].dtype):
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(param)
            size += nbytes
        buckets.append(_Bucket(current))
        return buckets

    def forward(self, *inputs, **kwargs):
        from ... import is_grad_enabled
        if self._next_bucket < len(self._buckets) and any(
                b.pending < len(b.params) for b in self._buckets):
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers:
            for buffer in self.module.buffers():
                dist.broadcast(buffer.detach(), 0, group=self.process_group)
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_backward(output)
        return output

    def _prepare_backward(self, output):
        for bucket in self._buckets:
            bucket.pending, bucket.flat, bucket.work = len(bucket.params), None, None
        self._next_bucket = 0
        self._used = None
        if self.find_unused_parameters:
            reached = _leaves_reached(output)
            self._used = np.array([id(p) in reached for p in self._params], np.int32)
            for param, used in zip(self._params, self._used):
                if not used:
                    self._grad_ready(param)

    def _grad_ready(self, param):
        if not self.require_backward_grad_sync or self._next_bucket >= len(self._buckets):
            return
        self._bucket_of[id(param)].pending -= 1
        while self._next_bucket < len(self._buckets) and \
                self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finish()

    def _launch(self, bucket):
        parts = [np.zeros(p.shape, bucket.params[0]._data.dtype).ravel() if p.grad is None
                 else p.grad._data.ravel() for p in bucket.params]
        # dividing first, as torch, keeps the sum of world_size terms in range
        bucket.flat = _as_tensor(np.concatenate(parts) / self.world_size)
        bucket.work = dist.all_reduce(bucket.flat, group=self.process_group, async_op=True)

    def _finish(self):
        from ... import zeros_like
        used = np.ones(len(self._params), np.int32) if self._used is None else self._used
        if self._used is not None:  # parameters unused on every rank keep their .grad
            dist.all_reduce(_as_tensor(used), op=dist.ReduceOp.MAX, group=self.process_group)
        used_by_id = {id(p): u for p, u in zip(self._params, used)}
        for bucket in self._buckets:
            bucket.work.wait()
            start = 0
            for param in bucket.params:
                count = param.numel()
                if used_by_id[id(param)]:
                    if param.grad is None:
                        param.grad = zeros_like(param)
                    param.grad._data[...] = bucket.flat._data[start:start + count].reshape(
                        param.shape)
                start += count
            bucket.flat = bucket.work = None

    @contextmanager
    def no_sync(self):
        """Backward passes inside only accumulate local gradients; the first outside syncs."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _as_tensor(array):
    from ..._tensor import Tensor
    return Tensor._make(array)


def _leaves_reached(output):
    """ids of the leaves whose AccumulateGrad the graph of output's tensors reaches."""
    from ..._tensor import Tensor
    stack = []

    def collect(value):
        if isinstance(value, Tensor):
            if value.grad_fn is not None:
                stack.append(value.grad_fn)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)
    collect(output)
    seen, leaves = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves.add(id(node.variable))
        stack.extend(edge[0] for edge in node.next_functions)
    return leaves
