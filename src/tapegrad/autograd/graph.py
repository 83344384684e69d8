"""The backward graph: Node, AccumulateGrad and version-checked saved tensors.

A node never holds its output tensor (see SavedTensor), so tensor -> node -> input tensor
references always point into the past and a dropped graph is freed by reference counting.
"""
from __future__ import annotations

import itertools
import re
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeAlias

from . import anomaly_mode

if TYPE_CHECKING:
    from typing_extensions import Self

    from .._dtype import dtype
    from .._tensor import Tensor

# (node, output_nr): where the gradient of one input goes; (None, 0) when it needs none
Edge: TypeAlias = "tuple[Node | None, int]"
# (shape, dtype) of each input, to which its gradient is summed and cast
InputMetadata: TypeAlias = "tuple[tuple[int, ...], dtype | None]"
Grads: TypeAlias = "Sequence[Tensor | None]"  # None is a zero gradient
# hook(grad) on a tensor's gradient; a tensor it returns replaces it
TensorHook: TypeAlias = "Callable[[Tensor], Tensor | None]"
# node hooks: fn(grad_outputs) before it runs, fn(grad_inputs, grad_outputs) after; a tuple
# they return replaces the gradients they were given first
NodePreHook: TypeAlias = "Callable[[tuple[Tensor | None, ...]], tuple[Any, ...] | None]"
NodeHook: TypeAlias = ("Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], "
                       "tuple[Any, ...] | None]")

sequence_numbers = itertools.count()  # shared by every node: orders the backward pass

FREED_GRAPH = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class Node:
    """A grad_fn: maps gradients of its outputs to gradients of its inputs.

    next_functions[i] is the (node, output_nr) edge of input i, or (None, 0) when that input
    needs no gradient.
    """

    # Hooks are rare: class-level None until a node's own __dict__ gets some.
    __slots__ = ("next_functions", "_sequence_nr", "_input_metadata", "__weakref__", "__dict__")
    next_functions: tuple[Edge, ...]
    _sequence_nr: float  # an int, or inf for AccumulateGrad
    _input_metadata: tuple[InputMetadata, ...]
    _pre_hooks: dict[int, dict[int, TensorHook]] | None = None
    _retained: dict[int, weakref.ref[Tensor]] | None = None
    _node_hooks: tuple[dict[int, NodePreHook], dict[int, NodeHook]] | None = None

    def __init__(self, next_functions: tuple[Edge, ...] = (),
                 input_metadata: tuple[InputMetadata, ...] = ()) -> None:
        self.next_functions = next_functions
        self._input_metadata = input_metadata
        self._sequence_nr = next(sequence_numbers)
        if anomaly_mode._enabled:
            anomaly_mode.record_forward_trace(self)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grad_outputs: Grads) -> Grads:
        """Gradients for each input from gradients of each output (a list; None is zero)."""
        raise NotImplementedError

    def release_saved(self) -> None:
        """Drop saved tensors after a backward pass without retain_graph."""

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict for the user's own notes about this node."""
        metadata: dict[Any, Any] = self.__dict__.setdefault("_metadata", {})
        return metadata

    def register_prehook(self, fn: NodePreHook) -> RemovableHandle:
        """Call fn(grad_outputs) before this node runs; it may return new grad_outputs."""
        return RemovableHandle(self._hook_dicts()[0], fn)

    def register_hook(self, fn: NodeHook) -> RemovableHandle:
        """Call fn(grad_inputs, grad_outputs) after this node runs; it may return new
        grad_inputs."""
        return RemovableHandle(self._hook_dicts()[1], fn)

    def _hook_dicts(self) -> tuple[dict[int, NodePreHook], dict[int, NodeHook]]:
        if self._node_hooks is None:
            self._node_hooks = ({}, {})  # (pre-hooks, post-hooks)
        return self._node_hooks

    def add_tensor_pre_hook(self, output_nr: int, hook: TensorHook) -> RemovableHandle:
        """Run hook(grad) on output output_nr's gradient before this node uses it."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return RemovableHandle(self._pre_hooks.setdefault(output_nr, {}), hook)

    def retain_output_grad(self, output_nr: int, tensor: Tensor) -> None:
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


class RemovableHandle:
    """Returned by register_hook: .remove() unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Any], hook: Callable[..., Any]) -> None:
        self.id = next(self._ids)
        self._hooks = hooks
        hooks[self.id] = hook

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def register_tensor_hook(tensor: Tensor, hook: TensorHook) -> RemovableHandle:
    """Tensor.register_hook: on the grad_fn for a non-leaf, on the tensor for a leaf."""
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        return tensor.grad_fn.add_tensor_pre_hook(tensor._output_nr, hook)
    hooks = tensor.__dict__.get("_leaf_hooks")
    if hooks is None:
        # Kept on the leaf, which outlives its AccumulateGrad; every accumulator shares it.
        hooks = tensor.__dict__["_leaf_hooks"] = {}
        accumulator = None if tensor._accumulator is None else tensor._accumulator()
        if accumulator is not None:
            accumulator._pre_hooks = {0: hooks}
    return RemovableHandle(hooks, hook)


def register_post_accumulate_grad_hook(tensor: Tensor,
                                       hook: Callable[[Tensor], None]) -> RemovableHandle:
    """Call hook(tensor) after a leaf's .grad has been accumulated."""
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return RemovableHandle(tensor.__dict__.setdefault("_post_accumulate_hooks", {}), hook)


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into leaf.grad."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable
        # Leaves run as soon as they are ready, like torch's maximal sequence number.
        self._sequence_nr = float("inf")
        leaf_hooks = variable.__dict__.get("_leaf_hooks")
        if leaf_hooks is not None:
            self._pre_hooks = {0: leaf_hooks}

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # as torch names its C++ node

    def apply(self, grad_outputs: Grads) -> Grads:
        # the engine runs a node only with a gradient for it
        self.variable._accumulate_grad(grad_outputs[0])  # type: ignore[arg-type]
        for hook in list(self.variable.__dict__.get("_post_accumulate_hooks", {}).values()):
            hook(self.variable)
        return ()


class SavedTensor:
    """A tensor saved for backward with the version it had, so in-place changes are caught.

    An op's own output is kept as its array only and rebuilt on unpack with the node as its
    grad_fn; holding the output Tensor itself would make a tensor <-> node cycle.
    """

    __slots__ = ("tensor", "array", "dtype", "version_counter", "version", "producer",
                 "output_nr", "unpack_hook", "packed")

    tensor: Tensor | None
    array: Any  # the data of a saved output (tensor is None then)
    dtype: dtype
    version_counter: list[int]
    version: int
    producer: str | None
    output_nr: int | None
    unpack_hook: Callable[[Any], Any] | None
    packed: Any

    def __init__(self, tensor: Tensor, output_of: Node | None = None) -> None:
        """output_of: the node that made `tensor`, when saving an op's own output."""
        if tensor._is_inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.unpack_hook = None
        if saved_tensors_hooks.entered and _hooks_state.stack:
            # the user's pack hook keeps whatever it likes; no version check then, as in torch
            pack_hook, self.unpack_hook = _hooks_state.stack[-1]
            self.packed = pack_hook(tensor)
            self.output_nr = tensor._output_nr if output_of is not None else None
            return
        self._keep(tensor, output_of)

    def _keep(self, tensor: Tensor, output_of: Node | None) -> None:
        """Keep tensor (or only its array, an op's own output) and the version it is at."""
        self.unpack_hook = None
        self.version_counter = counter = tensor._version_counter
        self.version = counter[0]
        if output_of is None:
            self.tensor, self.producer = tensor, None
        else:
            self.tensor, self.array, self.dtype = None, tensor._data, tensor.dtype
            self.output_nr = tensor._output_nr
            # only the name, for error messages: a reference would be a node -> node cycle
            self.producer = type(output_of).__name__

    def unpack(self, node: Node | None, tensor_type: type[Tensor]) -> Tensor:
        """The saved tensor; an output comes back with `node` as grad_fn if it is given."""
        if self.unpack_hook is not None:
            return self._unpack_with_hook(node, tensor_type)
        if self.version_counter[0] != self.version:
            raise RuntimeError(self._modified_message())
        if self.tensor is not None:
            return self.tensor
        result = tensor_type._make(self.array, self.dtype)
        result._version_counter = self.version_counter
        return self._as_output_of(node, result)

    def unpack_array(self) -> Any:
        """The saved array, for a formula running on arrays; None when a hook must run."""
        if self.unpack_hook is not None:
            return None
        if self.version_counter[0] != self.version:
            raise RuntimeError(self._modified_message())
        return self.array if self.tensor is None else self.tensor._data

    def _unpack_with_hook(self, node: Node | None, tensor_type: type[Tensor]) -> Tensor:
        result = self.unpack_hook(self.packed)  # type: ignore[misc]  # only called with one
        if not isinstance(result, tensor_type):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(result).__name__}")
        if self.output_nr is None:  # a saved input comes back as the hook gives it
            return result
        return self._as_output_of(node, result.detach())

    def _as_output_of(self, node: Node | None, result: Tensor) -> Tensor:
        """An unpacked output rejoins the graph as node's output, so create_graph works."""
        if node is not None and result.dtype.is_differentiable:
            result._requires_grad = True
            # an output's output_nr is set: only outputs rejoin the graph
            result.grad_fn, result._output_nr = node, self.output_nr  # type: ignore[assignment]
        return result

    def _modified_message(self) -> str:
        if self.tensor is not None:  # torch names the tensor's current node
            shape, dtype = self.tensor._data.shape, self.tensor.dtype
            grad_fn = self.tensor.grad_fn
            producer = None if grad_fn is None else type(grad_fn).__name__
        else:
            shape, dtype, producer = self.array.shape, self.dtype, self.producer
        where = ""
        if producer is not None:
            where = ", which is output 0 of " + re.sub(r"Backward\d*$", "", producer) + ","
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{dtype.legacy_name}Tensor [{', '.join(map(str, shape))}]]"
            f"{where} is at version {self.version_counter[0]}; expected version "
            f"{self.version} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def save(tensor: Tensor, output_of: Node | None = None) -> SavedTensor:
    """SavedTensor(tensor, output_of), with the common case (no hooks, not an inference
    tensor) built without __init__'s branches: every op that records saves through here."""
    if tensor._is_inference or saved_tensors_hooks.entered:
        return SavedTensor(tensor, output_of)
    saved = object.__new__(SavedTensor)
    saved._keep(tensor, output_of)
    return saved


class _HooksState(threading.local):
    # (pack_hook, unpack_hook) pairs, innermost last
    stack: tuple[tuple[Callable[[Tensor], Any], Callable[[Any], Tensor]], ...] = ()
    disabled_message: str | None = None


_hooks_state = _HooksState()


class saved_tensors_hooks:
    """Inside this context, a tensor saved for backward is stored as pack_hook(tensor) and
    given back to backward as unpack_hook(packed)."""

    entered = 0  # contexts entered in any thread: saving skips the thread-local look-up at 0

    def __init__(self, pack_hook: Callable[[Tensor], Any],
                 unpack_hook: Callable[[Any], Tensor]) -> None:
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self) -> Self:
        if _hooks_state.disabled_message is not None:
            raise RuntimeError(_hooks_state.disabled_message)
        _hooks_state.stack = (*_hooks_state.stack, self.hooks)
        saved_tensors_hooks.entered += 1
        return self

    def __exit__(self, *exc_info: object) -> None:
        _hooks_state.stack = _hooks_state.stack[:-1]
        saved_tensors_hooks.entered -= 1


class save_on_cpu(saved_tensors_hooks):
    """Keeps saved tensors on the CPU: with tapegrad's CPU-only tensors that is where they are,
    so the hooks pass them through."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda tensor: tensor, lambda tensor: tensor)


class disable_saved_tensors_hooks:
    """Inside this context, entering saved_tensors_hooks raises error_message."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self.prev = _hooks_state.disabled_message
        _hooks_state.disabled_message = self.error_message

    def __exit__(self, *exc_info: object) -> None:
        _hooks_state.disabled_message = self.prev
