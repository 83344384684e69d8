"""Sorting and selection: sort, argsort, topk, kthvalue, median, unique.

Selected values are differentiable: their gradient goes back to the positions they came from.
Differences from torch: among equal values, torch's CPU sort without stable=True (on more than
16 elements), topk and kthvalue pick indices in the order their introsort and quickselect
leave them; tapegrad always takes equal values in order of position (stable, as torch's
median does). topk(sorted=False) returns the values sorted.
"""
from .._tensor import Tensor
from ._checks import wrap_dim
from ._define import defop
from .reduction import (check_reduced_sizes, evenly_distributed, pick_along, return_type,
                        value_selecting_backward)

sort_return = return_type("sort", ("values", "indices"))
topk_return = return_type("topk", ("values", "indices"))
kthvalue_return = return_type("kthvalue", ("values", "indices"))
median_return = return_type("median", ("values", "indices"))


def _order(xp, input, dim, descending=False):
    """Stable argsort along dim, NaN counting as the largest value. Descending sorts the
    reversed slices ascending and reverses the result back, which keeps ties in order."""
    if input.ndim == 0:
        return xp.zeros((), xp.int64)
    if not descending:
        return xp.argsort(input, axis=dim, kind="stable")
    last = input.shape[dim] - 1
    return last - xp.flip(xp.argsort(xp.flip(input, dim), axis=dim, kind="stable"), dim)


def select_view(xp, input, order, dim, keepdim, positions=None):
    """(values, int64 indices) at the given positions (all by default) of the order along
    dim; a 0-d input is its own selection."""
    if input.ndim == 0:
        return input.copy(), order
    indices = order if positions is None else xp.take(order, positions, axis=dim)
    return pick_along(xp, input, indices, dim, keepdim)


def _sorted_backward(ctx):
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim, True)


def _selected_backward(ctx):
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim,
                                    ctx.keepdim)


# ---- sort, argsort, topk -------------------------------------------------------------------

@defop("SortBackward0", save=("dim", "result1"))
def _sort(xp, input: Tensor, dim, descending):
    return select_view(xp, input, _order(xp, input, dim, descending), dim, True)


@defop("TopkBackward0", save=("dim", "result1"))
def _topk(xp, input: Tensor, k, dim, largest):
    return select_view(xp, input, _order(xp, input, dim, largest), dim, True, range(k))


@defop("SortBackward1", save=("dim", "result1"))
def _sort_stable(xp, input: Tensor, dim, descending):
    return _sort.forward(xp, input, dim, descending)


_sort.derivatives(input=_sorted_backward)
_sort_stable.derivatives(input=_sorted_backward)
_topk.derivatives(input=_sorted_backward)

_UNSET = object()


def sort(input, dim=-1, descending=False, *, stable=_UNSET):
    """(values, indices) along dim; always stable (see the module docstring)."""
    # torch records its sort.stable overload whenever stable= is passed, even as None
    op = _sort if stable is _UNSET else _sort_stable
    return sort_return(*op(input, wrap_dim(dim, input.ndim), descending))


@defop(None)
def _argsort(xp, input: Tensor, dim, descending):
    return _order(xp, input, dim, descending)


def argsort(input, dim=-1, descending=False, *, stable=False):
    return _argsort(input, wrap_dim(dim, input.ndim), descending)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) values along dim with their indices, always sorted."""
    dim = wrap_dim(dim, input.ndim)
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if not 0 <= k <= (input.shape[dim] if input.ndim else 1):
        raise RuntimeError("selected index k out of range")
    return topk_return(*_topk(input, k, dim, largest))


# ---- kthvalue and median -------------------------------------------------------------------

@defop("KthvalueBackward0", save=("dim", "keepdim", "result1"))
def _kthvalue(xp, input: Tensor, k, dim, keepdim):
    return select_view(xp, input, _order(xp, input, dim), dim, keepdim, [k - 1])


def _median_along(xp, input, dim, keepdim):
    if input.ndim == 0:
        return input.copy(), xp.zeros((), xp.int64)
    lower_median = xp.take(_order(xp, input, dim), [(input.shape[dim] - 1) // 2], axis=dim)
    # unlike kthvalue, median gives NaN for a slice holding one: the first NaN
    is_nan = input != input
    first_nan = xp.argmax(is_nan, axis=dim, keepdims=True)
    indices = xp.where(xp.any(is_nan, axis=dim, keepdims=True), first_nan, lower_median)
    return pick_along(xp, input, indices, dim, keepdim)


@defop("MedianBackward1", save=("dim", "keepdim", "result1"))
def _median_dim(xp, input: Tensor, dim, keepdim):
    return _median_along(xp, input, dim, keepdim)


@defop("MedianBackward0", save=("input", "result"))
def _median_all(xp, input: Tensor):
    if input.size == 0:  # no error, unlike max(): NaN (its integer cast for integers)
        return xp.asarray(xp.nan).astype(input.dtype)
    return _median_along(xp, input.ravel(), 0, False)[0]


_kthvalue.derivatives(input=_selected_backward)
_median_dim.derivatives(input=_selected_backward)
_median_all.derivatives(input=evenly_distributed)


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest value along dim (NaN counting as the largest) and its index."""
    dim = wrap_dim(dim, input.ndim)
    _check_sortable("kthvalue_cpu", input)
    check_reduced_sizes("kthvalue", input, (dim,))
    if not 1 <= k <= (input.shape[dim] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return kthvalue_return(*_kthvalue(input, k, dim, keepdim))


def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (of all elements, or along dim with its index);
    NaN if there is one."""
    _check_sortable("median_cpu" if dim is None else "median_out", input)
    if dim is None:
        return _median_all(input)
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes("median", input, (dim,))
    return median_return(*_median_dim(input, dim, keepdim))


def _check_sortable(name, input):
    if input.dtype.name == "bool":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


# ---- unique --------------------------------------------------------------------------------

def _not_differentiable(name):
    def formula(ctx):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


@defop("Unique2Backward0")
def _unique(xp, input: Tensor):
    values, inverse, counts = xp.unique(input.ravel(), return_inverse=True,
                                        return_counts=True, equal_nan=False)
    return values, inverse.reshape(input.shape).astype(xp.int64), counts.astype(xp.int64)


@defop("UniqueDimBackward0")
def _unique_dim(xp, input: Tensor, dim):
    values, inverse, counts = xp.unique(input, return_inverse=True, return_counts=True,
                                        axis=dim, equal_nan=False)
    return values, inverse.reshape(-1).astype(xp.int64), counts.astype(xp.int64)


# torch records these nodes, and their backward raises
_unique.derivatives(input=_not_differentiable("_unique2"))
_unique_dim.derivatives(input=_not_differentiable("unique_dim"))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values, sorted (also for sorted=False, as torch's CPU kernel does), with
    optionally the index of each element's value and each value's count."""
    if dim is None:
        values, inverse, counts = _unique(input)
    else:
        values, inverse, counts = _unique_dim(input, _unique_dim_check(input, dim))
    outputs = [values]
    if return_inverse:
        outputs.append(inverse)
    if return_counts:
        outputs.append(counts)
    return tuple(outputs) if len(outputs) > 1 else values


def _unique_dim_check(input, dim):
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    if input.numel() == 0 and input.shape[dim] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return dim


FUNCTIONS = "argsort kthvalue median sort topk unique".split()
METHODS = FUNCTIONS
