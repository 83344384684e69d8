"""Custom autograd Functions, as torch.autograd.Function.

A subclass gives a static forward (plain tensors in, run with grad off) and a static backward
written in tapegrad ops, so create_graph=True differentiates it again. Each subclass gets its
own node class, <Name>Backward, whose instances are both the grad_fn and the `ctx` that forward
and backward see (torch's BackwardCFunction).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np

from . import grad_mode
from .graph import FREED_GRAPH, Node, SavedTensor
from .._warnings import warn

if TYPE_CHECKING:
    from .graph import Grads, InputMetadata
    from .._tensor import Tensor

F = TypeVar("F", bound=Callable[..., Any])

LEGACY_FORWARD = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


class FunctionCtx:
    """What forward/setup_context use to hand state to backward."""

    needs_input_grad: tuple[bool, ...]  # per forward argument: whether it needs a gradient
    materialize_grads: bool  # backward gets zeros, not None, for outputs without a gradient
    _to_save: tuple[Tensor | None, ...] | None
    _dirty: tuple[Tensor, ...]
    _non_differentiable: tuple[Tensor, ...]

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor, ...]:
        saved = self.__dict__.get("_saved", ())
        if saved is None:
            raise RuntimeError(FREED_GRAPH)
        owner = self if grad_mode.is_recording() else None
        from .._tensor import Tensor
        # a None saved is given back as None; torch types the tuple as tensors all the same
        return tuple(None if s is None else s.unpack(owner, Tensor)  # type: ignore[misc]
                     for s in saved)

    def mark_dirty(self, *args: Tensor) -> None:
        self._dirty = args

    def mark_non_differentiable(self, *args: Tensor) -> None:
        self._non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs; subclassed once per Function."""

    _forward_cls: type[Function]
    _output_metadata: list[InputMetadata]
    _tensor_positions: frozenset[int]

    def apply(self, grad_outputs: Grads) -> Grads:
        from .._tensor import Tensor
        grads = list(grad_outputs) + [None] * (len(self._output_metadata) - len(grad_outputs))
        if self.materialize_grads:
            grads = [Tensor._make(np.zeros(shape, dtype.numpy), dtype)
                     if g is None and dtype is not None else g
                     for g, (shape, dtype) in zip(grads, self._output_metadata)]
        function = self._forward_cls
        # torch accepts either name for the backward formula
        backward = function.vjp if function.backward is Function.backward else function.backward
        results = backward(self, *grads)
        results = results if isinstance(results, tuple) else (results,)
        expected = len(self.needs_input_grad)
        if len(results) > expected and all(r is None for r in results[expected:]):
            results = results[:expected]  # torch lets extra trailing Nones through
        if len(results) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {expected}, got {len(results)})")
        edge_grads: list[Tensor | None] = []
        for position, grad in enumerate(results):
            if position not in self._tensor_positions:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was "
                        "not a Variable")
                continue
            index = len(edge_grads)
            if grad is not None and self.next_functions[index][0] is not None:
                shape = self._input_metadata[index][0]
                if grad.shape != shape and not _expandable(shape, grad.shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {index} "
                        f"- got [{', '.join(map(str, grad.shape))}] but expected shape "
                        f"compatible with [{', '.join(map(str, shape))}]")
            else:
                grad = None
            edge_grads.append(grad)
        return edge_grads

    def release_saved(self) -> None:
        if self.__dict__.get("_saved") is not None:
            self._saved = None

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"


def _edge(tensor):
    """The (node, output_nr) a gradient for this input flows into (it requires grad)."""
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    return (tensor._grad_accumulator(), 0)


NOT_AN_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().")
DIRTY_VIEW_WITH_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not returned "
                      "as output. The inputs that are modified inplace must all be outputs of "
                      "the Function.")


def _check_dirty(tensor, is_input, n_outputs):
    """torch's checks, in its order, on a differentiable output marked dirty; returns whether
    it is a view (its base's history is then rebased through CopySlices)."""
    is_view = tensor._base is not None
    if not is_view and tensor.grad_fn is None and tensor._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if not is_input:
        if is_view:
            raise RuntimeError(NOT_AN_INPUT)
        warn(NOT_AN_INPUT, UserWarning)
    if is_view and n_outputs > 1:
        raise RuntimeError(DIRTY_VIEW_WITH_OUTPUTS)
    if is_view and tensor._base.grad_fn is None and tensor._base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    return is_view


class _ViewInputFirst(Node):
    """A Function's node seen with the dirty view's input first, where CopySlices sends the
    view's gradient. torch's CopySlices assumes input 0 is the view and misroutes the gradient
    of any other input; this keeps every input's gradient where backward put it."""

    __slots__ = ("fn", "order")

    def __init__(self, fn: BackwardCFunction, view_index: int) -> None:
        order = [view_index] + [i for i in range(len(fn.next_functions)) if i != view_index]
        super().__init__(tuple(fn.next_functions[i] for i in order),
                         tuple(fn._input_metadata[i] for i in order))
        self.fn, self.order = fn, order

    def apply(self, grad_outputs: Grads) -> Grads:
        grads = self.fn.apply(grad_outputs)
        return [grads[i] for i in self.order]

    def release_saved(self) -> None:
        self.fn.release_saved()


def _rebase_dirty_view(node, view, args):
    """The view's base now gets its history through a CopySlices around this Function."""
    from .._tensor import Tensor
    from ..ops._inplace import _rebase_view
    tensors = [a for a in args if isinstance(a, Tensor)]
    view_index = next(i for i, t in enumerate(tensors) if t is view)
    _rebase_view(view, node if view_index == 0 else _ViewInputFirst(node, view_index))


def _alias(tensor):
    """A new tensor on the input's storage and version counter, with no history (torch hands
    back a view or a detached alias of an input returned as is)."""
    from .._tensor import Tensor
    alias = Tensor._make(tensor._data, tensor.dtype)
    alias._version_counter = tensor._version_counter
    return alias


def _wrap_outputs(node, args, outputs, executable):
    """Give each output its history as torch's _wrap_outputs does; returns the dirty views."""
    from .._tensor import Tensor
    dirty = {id(t) for t in node._dirty}
    non_differentiable = {id(t) for t in node._non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    returned = {id(out) for out in outputs}
    node._output_metadata, views = [], []
    for output_nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            node._output_metadata.append(((), None))
            continue
        is_input, is_dirty = id(out) in inputs, id(out) in dirty
        differentiable = (executable and out.dtype.is_differentiable
                          and id(out) not in non_differentiable)
        if differentiable and is_dirty:
            if _check_dirty(out, is_input, len(outputs)):
                views.append(out)
        elif is_input and (not is_dirty or out._requires_grad):
            # an input returned as is keeps its own history; the output is a new tensor
            out = outputs[output_nr] = _alias(out)
        node._output_metadata.append((out._data.shape, out.dtype))
        if differentiable:
            out._requires_grad = True
            out.grad_fn, out._output_nr = node, output_nr
    if any(id(t) not in returned for t in node._dirty):
        raise RuntimeError(DIRTY_NOT_RETURNED)
    return views


def _expandable(shape, target):
    """Whether `shape` broadcasts to `target` (the engine then sums the gradient back)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


class Function:
    """Base class of custom autograd operations: subclass, then call `apply`."""

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": "torch.autograd.function"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warn(f"{self.__class__} should not be instantiated. Methods on autograd "
             "functions are all static, so you should invoke them on the class "
             "itself. Instantiating an autograd function will raise an error in a "
             "future version of PyTorch.", DeprecationWarning)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(LEGACY_FORWARD)

    # forward(ctx, *args) (or forward(*args) with setup_context), backward(ctx, *grads): a
    # subclass gives them its own signature, which these leave free
    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from .._tensor import Tensor
        if cls is Function:
            raise RuntimeError("Function.apply must be called on a subclass")
        node = cls._backward_cls()
        node._to_save, node._dirty, node._non_differentiable = (), (), ()
        node.materialize_grads = True
        grad_on = grad_mode.is_recording()
        node.needs_input_grad = tuple(grad_on and isinstance(a, Tensor) and a._requires_grad
                                      for a in args)
        executable = any(node.needs_input_grad)
        with grad_mode.no_grad():
            if cls.setup_context is not Function.setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, output)
            else:
                output = cls.forward(node, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outputs = list(output) if is_tuple else [output]
        tensor: Tensor  # mypy would narrow node._dirty to the () assigned above
        for tensor in node._dirty:
            tensor._bump_version()  # once per mention, returned or not, as torch
        if executable:
            _connect_inputs(node, args)
        views = _wrap_outputs(node, args, outputs, executable)
        _save(node, outputs, executable)
        for view in views:  # at most one: a dirty view allows a single output
            _rebase_dirty_view(node, view, args)
        # the marked tensors are outputs: keeping them would make an output <-> node cycle
        node._to_save, node._dirty, node._non_differentiable = None, (), ()
        return tuple(outputs) if is_tuple else outputs[0]


def _connect_inputs(node, args):
    """One edge per tensor argument; (None, 0) where it needs no gradient."""
    from .._tensor import Tensor
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    node._tensor_positions = frozenset(positions)
    node.next_functions = tuple(_edge(args[i]) if node.needs_input_grad[i] else (None, 0)
                                for i in positions)
    node._input_metadata = tuple((args[i]._data.shape, args[i].dtype) for i in positions)


def _save(node, outputs, executable):
    """Pack what save_for_backward received, each with its version."""
    from .._tensor import Tensor
    if not executable:
        node._saved = tuple(None if t is None else SavedTensor(t) for t in node._to_save)
        return
    for i, t in enumerate(node._to_save):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError("save_for_backward can only save variables, but argument "
                            f"{i} is of type {type(t).__name__}")
    produced = {id(o) for o in outputs}
    node._saved = tuple(
        None if t is None else
        # an output (dirty inputs included) is kept as its array: no node cycle
        SavedTensor(t, node) if id(t) in produced and t.grad_fn is node
        else SavedTensor(t)
        for t in node._to_save)


class DelayedError(Node):
    """The grad_fn once_differentiable puts on its results: differentiating it fails."""

    def name(self) -> str:
        return "torch::autograd::Error"  # as torch names its C++ node

    def apply(self, grad_outputs: Grads) -> Grads:
        raise RuntimeError(ONCE_DIFFERENTIABLE)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # torch's node name


def once_differentiable(fn: F) -> F:
    """Run backward with grad off; its results refuse to be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        from .._tensor import Tensor
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_recording() or not any(
                isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        error = DelayedError()
        wrapped = []
        for output_nr, out in enumerate(outputs if is_tuple else (outputs,)):
            if isinstance(out, Tensor) and out.dtype.is_differentiable:
                out = out.detach()
                out._requires_grad = True
                out.grad_fn, out._output_nr = error, output_nr
            wrapped.append(out)
        return tuple(wrapped) if is_tuple else wrapped[0]
    return wrapper  # type: ignore[return-value]  # wraps keeps fn's signature
