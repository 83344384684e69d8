"""Custom autograd Functions, as torch.autograd.Function.

A subclass gives a static forward (plain tensors in, run with grad off) and a static backward
written in tapegrad ops, so create_graph=True differentiates it again. Each subclass gets its
own node class, <Name>Backward, whose instances are both the grad_fn and the `ctx` that forward
and backward see (torch's BackwardCFunction).
"""
import functools
import warnings

import numpy as np

from . import grad_mode
from .graph import FREED_GRAPH, Node, SavedTensor

LEGACY_FORWARD = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


class FunctionCtx:
    """What forward/setup_context use to hand state to backward."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    @property
    def saved_tensors(self):
        saved = self.__dict__.get("_saved", ())
        if saved is None:
            raise RuntimeError(FREED_GRAPH)
        owner = self if grad_mode.is_recording() else None
        from .._tensor import Tensor
        return tuple(None if s is None else s.unpack(owner, Tensor) for s in saved)

    def mark_dirty(self, *args):
        self._dirty = args

    def mark_non_differentiable(self, *args):
        self._non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs; subclassed once per Function."""

    _forward_cls = None

    def apply(self, grad_outputs):
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
        edge_grads = []
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

    def release_saved(self):
        if self.__dict__.get("_saved") is not None:
            self._saved = None

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"


def _edge(tensor):
    """The (node, output_nr) a gradient for this input flows into (it requires grad)."""
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    return (tensor._grad_accumulator(), 0)


def _check_dirty(tensor, args, output_nr):
    root = tensor if tensor._base is None else tensor._base
    if root.grad_fn is None and root._requires_grad:
        if root is tensor:
            raise RuntimeError("a leaf Variable that requires grad has been used in an "
                               "in-place operation.")
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if tensor._base is not None:
        first = next(a for a in args if hasattr(a, "_base"))
        if first is not tensor or output_nr != 0:
            # CopySlices routes the view's gradient through input 0 and output 0 only
            raise NotImplementedError("mark_dirty on a view is supported only for the first "
                                      "tensor input returned as the first output")


def _expandable(shape, target):
    """Whether `shape` broadcasts to `target` (the engine then sums the gradient back)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


class Function:
    """Base class of custom autograd operations: subclass, then call `apply`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": "torch.autograd.function"})

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class "
                      "itself. Instantiating an autograd function will raise an error in a "
                      "future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(LEGACY_FORWARD)

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
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
        dirty = {id(t) for t in node._dirty}
        non_differentiable = {id(t) for t in node._non_differentiable}
        inputs = {id(a) for a in args if isinstance(a, Tensor)}
        if executable:
            positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
            node._tensor_positions = frozenset(positions)
            node.next_functions = tuple(_edge(args[i]) if node.needs_input_grad[i] else (None, 0)
                                        for i in positions)
            node._input_metadata = tuple((args[i]._data.shape, args[i].dtype) for i in positions)
        node._output_metadata, rebased = [], []
        for output_nr, out in enumerate(outputs):
            if not isinstance(out, Tensor):
                node._output_metadata.append(((), None))
                continue
            if id(out) in dirty:
                if executable:
                    _check_dirty(out, args, output_nr)
                    if out._base is not None:
                        rebased.append(out)
                out._bump_version()
            elif id(out) in inputs and executable:
                # an input returned as is becomes a new tensor on the same storage (torch
                # returns a view), so the input keeps its own history
                alias = Tensor._make(out._data, out.dtype)
                alias._version_counter = out._version_counter
                out = outputs[output_nr] = alias
            node._output_metadata.append((out._data.shape, out.dtype))
            if executable and out.dtype.is_differentiable and id(out) not in non_differentiable:
                out._requires_grad = True
                out.grad_fn, out._output_nr = node, output_nr
        if executable:
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
        else:
            node._saved = tuple(None if t is None else SavedTensor(t) for t in node._to_save)
        if rebased:  # in-place on a view: its base's history goes through CopySlices
            from ..ops._inplace import _rebase_view
            _rebase_view(rebased[0], node)
        # the marked tensors are outputs: keeping them would make an output <-> node cycle
        node._to_save, node._dirty, node._non_differentiable = None, (), ()
        return tuple(outputs) if is_tuple else outputs[0]


class DelayedError(Node):
    """The grad_fn once_differentiable puts on its results: differentiating it fails."""

    def name(self):
        return "torch::autograd::Error"  # as torch names its C++ node

    def apply(self, grad_outputs):
        raise RuntimeError(ONCE_DIFFERENTIABLE)


DelayedError.__name__ = DelayedError.__qualname__ = "Error"  # torch's node name


def once_differentiable(fn):
    """Run backward with grad off; its results refuse to be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
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
    return wrapper
