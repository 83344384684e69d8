"""In-place ops: any declared op applied to a tensor's own storage, with torch's history rules.

x.op_(...) runs the out-of-place op on a snapshot of x, writes the result into x's storage,
bumps the version counter shared with x's views, and moves x onto the new node. When x is a
view of a base that is part of a graph, the base's history is rebased through a CopySlices
node (as torch does), so gradients flow correctly to everything that shares the storage.
"""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node
from ._define import _edge, defop
from .shape import zeros_of


def inplace(op, target, *args, **kwargs):
    """Apply `op(target, *args, **kwargs)` in place on target; returns target."""
    tracked = grad_mode.is_grad_enabled() and (
        target._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args))
    if not tracked:
        with grad_mode.no_grad():
            result = op(target, *args, **kwargs)
        _write(target, result)
        return target
    _check_leaf(target)
    snapshot = Tensor._make(target._data.copy(), target.dtype)
    snapshot._requires_grad = target._requires_grad
    snapshot.grad_fn, snapshot._output_nr = target.grad_fn, target._output_nr
    snapshot._accumulator = target._accumulator
    result = op(snapshot, *args, **kwargs)
    _write(target, result)
    if target._base is not None:
        _rebase_view(target, result.grad_fn)
    else:
        target.grad_fn, target._output_nr = result.grad_fn, result._output_nr
        target._requires_grad = result._requires_grad
    return target


def _write(target, result):
    if not _can_cast(result.dtype, target.dtype):
        raise RuntimeError(f"result type {result.dtype.legacy_name} can't be cast to the "
                           f"desired output type {target.dtype.legacy_name}")
    if not target._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    np.copyto(target._data, result._data, casting="unsafe")
    target._bump_version()


def _can_cast(source, destination):
    # torch allows any cast within or down a category (float64 -> float32) but not from a
    # higher category to a lower one (float -> int, int -> bool).
    rank = {"bool": 0, "int": 1, "float": 2, "complex": 3}
    def category(d):
        return ("complex" if d.is_complex else "float" if d.is_floating_point
                else "bool" if d is _dtype.bool else "int")
    return rank[category(source)] <= rank[category(destination)]


def _check_leaf(target):
    root = target if target._base is None else target._base
    if root.grad_fn is None and root._requires_grad:
        which = "a leaf Variable" if root is target else "a view of a leaf Variable"
        raise RuntimeError(f"{which} that requires grad is being used in an in-place operation.")


# ---- views written in place ----------------------------------------------------------------

@defop("AsStridedBackward0", save=("view_fn",), view=True)
def _view_of_base(xp, input: Tensor, view_fn):
    return view_fn(input)


_view_of_base.derivatives(input=lambda ctx: _view_put(
    zeros_of(ctx.grad, ctx.input_shape), ctx.view_fn, ctx.grad))


@defop("AsStridedScatterBackward0", save=("view_fn",))
def _view_put(xp, input: Tensor, view_fn, value: Tensor):
    result = input.copy()
    view_fn(result)[...] = value
    return result


_view_put.derivatives(input=lambda ctx: _view_put(ctx.grad, ctx.view_fn, 0.0),
                      value=lambda ctx: _view_of_base(ctx.grad, ctx.view_fn))


class CopySlices(Node):
    """The base's new grad_fn after an in-place op on one of its views.

    Backward: the view's region of the base gradient goes through the in-place op's own node
    (`fn`); the rest of the base gradient passes straight to the base's old history.
    """

    __slots__ = ("view_fn", "fn")

    def __init__(self, base_edge, base_metadata, view_fn, fn):
        super().__init__((base_edge,) + fn.next_functions[1:],
                         (base_metadata,) + fn._input_metadata[1:])
        self.view_fn, self.fn = view_fn, fn

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grad_outputs):
        grad = grad_outputs[0]
        fn_grads = self.fn.apply([_view_of_base(grad, self.view_fn)])
        view_grad = 0.0 if fn_grads[0] is None else fn_grads[0]
        return (_view_put(grad, self.view_fn, view_grad),) + tuple(fn_grads[1:])

    def release_saved(self):
        self.fn.release_saved()


def _rebase_view(view, fn):
    base = view._base
    base.grad_fn = CopySlices(_edge(base), (base._data.shape, base.dtype), view._view_fn, fn)
    base._requires_grad, base._output_nr = True, 0
    regenerated = _view_of_base(base, view._view_fn)
    view.grad_fn, view._output_nr, view._requires_grad = regenerated.grad_fn, 0, True


# ---- copy_, fill_, setitem -----------------------------------------------------------------

@defop("CopyBackwards")
def _copy(xp, input: Tensor, src: Tensor):
    return xp.broadcast_to(xp.asarray(src, dtype=input.dtype), input.shape)


_copy.derivatives(input=lambda ctx: None, src=lambda ctx: ctx.grad)


@defop("FillBackward0")
def _fill(xp, input: Tensor, value):
    return xp.full_like(input, value)


_fill.derivatives(input=lambda ctx: None)


def copy_(target, src):
    if isinstance(src, Tensor):
        from ._checks import broadcast_shapes
        if broadcast_shapes(target.shape, src.shape) != target.shape:
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                               f"broadcast shape {list(broadcast_shapes(target.shape, src.shape))}")
    return inplace(_copy, target, src)


def fill_(target, value):
    if isinstance(value, Tensor):
        value = value.item()
    return inplace(_fill, target, value)


def setitem(target, key, value):
    """target[key] = value: a copy into the view target[key] (CopySlices), or index_put_."""
    from .shape import _as_key_item, _index_put, _is_basic, getitem
    items = key if isinstance(key, tuple) else (key,)
    arrays = tuple(_as_key_item(item) for item in items)
    tracked = grad_mode.is_grad_enabled() and (
        target._requires_grad or isinstance(value, Tensor) and value._requires_grad)
    if not tracked:
        target._data[arrays] = value._data if isinstance(value, Tensor) else value
        target._bump_version()
    elif all(_is_basic(item) for item in arrays):
        copy_(getitem(target, key), value)
    else:
        inplace(_index_put, target, arrays, value)
