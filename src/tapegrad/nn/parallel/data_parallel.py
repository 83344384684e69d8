"""DataParallel: one process, the batch split across the cuda devices.

Each forward copies the module's parameters and buffers to every device (differentiable
copies, so the replicas' gradients sum back into the module's own), runs one chunk of the
batch per device and concatenates the outputs on the output device. Without a cuda device it
calls the module, as torch does. The replicas run one after the other: they share the
module object (func.functional_call swaps their tensors in and out), and on a GPU each
device's kernels are queued asynchronously anyway.
"""
import warnings
from collections.abc import Sequence
from typing import Any

from ... import cuda, func
from ..._device import device as _device
from ..._tensor import Tensor
from ...ops.joining import cat
from ..modules.module import Module


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def scatter(inputs: Any, target_gpus: Sequence[int], dim: int = 0) -> list[Any]:
    """inputs split into one piece per device: tensors in chunks along dim (fewer pieces
    when a tensor has fewer slices than devices), containers piecewise, anything else
    repeated."""
    def pieces(value):
        if isinstance(value, Tensor):
            return [chunk.to(f"cuda:{index}")
                    for chunk, index in zip(value.chunk(len(target_gpus), dim), target_gpus)]
        if _is_namedtuple(value):
            return [type(value)(*parts) for parts in zip(*map(pieces, value))]
        if isinstance(value, tuple) and value:
            return list(zip(*map(pieces, value)))
        if isinstance(value, list) and value:
            return [list(parts) for parts in zip(*map(pieces, value))]
        if isinstance(value, dict) and value:
            return [type(value)(parts) for parts in zip(*map(pieces, value.items()))]
        return [value for _ in target_gpus]
    return pieces(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """(per-device inputs, per-device kwargs), padded to the same number of devices."""
    inputs = scatter(inputs, target_gpus, dim) if inputs else []
    kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    inputs += [() for _ in range(len(kwargs) - len(inputs))]
    kwargs += [{} for _ in range(len(inputs) - len(kwargs))]
    return tuple(inputs), tuple(kwargs)


def gather(outputs: Sequence[Any], target_device: int | _device | str, dim: int = 0) -> Any:
    """The per-device outputs as one: tensors concatenated along dim on target_device
    (an int is a cuda index, -1 or "cpu" the cpu), containers element by element."""
    target = "cpu" if target_device in (-1, "cpu") else (
        f"cuda:{target_device}" if isinstance(target_device, int) else target_device)
    first = outputs[0]
    if isinstance(first, Tensor):
        if all(out.dim() == 0 for out in outputs):
            warnings.warn(f"Was asked to gather along dimension {dim}, but all input tensors "
                          "were scalars; will instead unsqueeze and return a vector.")
            outputs = [out.view(1) for out in outputs]
        return cat([out.to(target) for out in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        if not all(len(first) == len(out) for out in outputs):
            raise ValueError("All dicts must have the same number of keys")
        return type(first)((key, gather([out[key] for out in outputs], target_device, dim))
                           for key in first)
    parts = [gather(list(same), target_device, dim) for same in zip(*outputs)]
    return type(first)._make(parts) if _is_namedtuple(first) else type(first)(parts)


def _parallel_forward(module, inputs, kwargs, device_ids, output_device, dim):
    """module over inputs and kwargs split along dim across the cuda devices device_ids."""
    source = _device("cuda", device_ids[0])
    tensors = dict(module.named_parameters())
    tensors.update(module.named_buffers())
    for tensor in tensors.values():
        if tensor.device != source:
            raise RuntimeError(
                f"module must have its parameters and buffers on device {source} "
                f"(device_ids[0]) but found one of them on device: {tensor.device}")
    inputs, kwargs = scatter_kwargs(inputs, kwargs, device_ids, dim)
    if not inputs:
        inputs, kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **kwargs[0])
    # on device_ids[0] the copies are the module's own tensors (to() returns them), so its
    # buffers' in-place updates (BatchNorm's running statistics) are kept, as torch's are
    outputs = [func.functional_call(
        module, {name: tensor.to(f"cuda:{index}") for name, tensor in tensors.items()},
        args, kwargs_of_device)
        for index, args, kwargs_of_device in zip(device_ids, inputs, kwargs)]
    return gather(outputs, output_device, dim)


def _devices(device_ids, output_device):
    ids = list(range(cuda.device_count())) if device_ids is None else device_ids
    return ([cuda._index_or_current(index) for index in ids],
            cuda._index_or_current(ids[0] if output_device is None else output_device))


class DataParallel(Module):
    def __init__(self, module: Module, device_ids: Sequence[int | _device] | None = None,
                 output_device: int | _device | None = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        if not cuda.is_available():
            self.device_ids: list[int] = []
            return
        self.dim = dim
        self.device_ids, self.output_device = _devices(device_ids, output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        return _parallel_forward(self.module, inputs, kwargs, self.device_ids,
                                 self.output_device, self.dim)


def data_parallel(module: Module, inputs: Any, device_ids: Sequence[int | _device] | None = None,
                  output_device: int | _device | None = None, dim: int = 0,
                  module_kwargs: dict[str, Any] | None = None) -> Any:
    """DataParallel's forward as a function: module over inputs split across devices."""
    if not isinstance(inputs, tuple):
        inputs = () if inputs is None else (inputs,)
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    device_ids, output_device = _devices(device_ids, output_device)
    return _parallel_forward(module, inputs, module_kwargs, device_ids, output_device, dim)
