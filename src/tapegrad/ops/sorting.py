"""Sorting and selection: sort, argsort, topk, kthvalue, median, unique.

Selected values are differentiable: their gradient goes back to the positions they came from.
Among equal values torch's CPU sort without stable=True, topk, kthvalue and mode return the
indices their unstable introsort, introselect and quickselect leave; tapegrad sorts stably
and, for the slices where a tie changes the answer, replays torch's algorithm
(ops/_cpu_order.py) to return the same indices (median breaks ties by position, as stable).
"""
import math

from .._tensor import Tensor
from . import _cpu_order
from ._checks import is_number, numel, overload_error, wrap_dim
from ._define import defop
from .reduction import (check_reduced_sizes, evenly_distributed, numpy_keywords, pick_along,
                        return_type, value_selecting_backward)

sort_return = return_type("sort", ("values", "indices"))
topk_return = return_type("topk", ("values", "indices"))
kthvalue_return = return_type("kthvalue", ("values", "indices"))
median_return = return_type("median", ("values", "indices"))
nanmedian_return = return_type("nanmedian", ("values", "indices"))
mode_return = return_type("mode", ("values", "indices"))


def _order(xp, input, dim, descending=False):
    """Stable argsort along dim, NaN counting as the largest value. Descending sorts the
    reversed slices ascending and reverses the result back, which keeps ties in order."""
    if input.ndim == 0:
        return xp.zeros((), xp.int64)
    if not descending:
        return xp.argsort(input, axis=dim, kind="stable")
    last = input.shape[dim] - 1
    return last - xp.flip(xp.argsort(xp.flip(input, dim), axis=dim, kind="stable"), dim)


def _ranks(xp, row, descending):
    """Integer keys that order one slice as torch's comparators do: NaN above every number,
    all NaNs equal, -0 equal to 0."""
    ranks = xp.unique(row, return_inverse=True)[1].reshape(-1)
    return (-ranks if descending else ranks).tolist()


def _torch_tie_order(xp, input, dim, descending, width, relevant, replay):
    """The first `width` positions of the stable order along dim, where relevant(tied) picks
    the slices whose answer a tie changes (tied[r, j]: sorted positions j and j + 1 of slice
    r hold equal values) and replay(keys) gives torch's positions for each of them."""
    if input.ndim == 0:
        return _order(xp, input, dim, descending)
    moved = xp.moveaxis(input, dim, -1)
    rows = moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
    order = _order(xp, rows, 1, descending)
    positions = order[:, :width].copy()
    ordered = xp.take_along_axis(rows, order, 1)
    after, before = ordered[:, 1:], ordered[:, :-1]
    tied = (after == before) | ((after != after) & (before != before))
    for r in xp.flatnonzero(relevant(tied)):
        positions[r] = replay(_ranks(xp, rows[r], descending))
    return xp.moveaxis(positions.reshape(moved.shape[:-1] + (width,)), -1, dim)


def _no_slice(tied):
    return tied[:, :0].any(1)


def select_view(xp, input, order, dim, keepdim, positions=None):
    """(values, int64 indices) at the given positions (all by default) of the order along
    dim; a 0-d input is its own selection."""
    if input.ndim == 0:
        return input.copy(), order
    indices = order if positions is None else xp.take(order, positions, axis=dim)
    return pick_along(xp, input, indices, dim, keepdim)


# the indices are distinct along dim (a permutation, or one per slice): torch scatters them
# into zeros (ScatterBackward0 under create_graph), as for max(dim)
def _sorted_backward(ctx):
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim, True,
                                    distinct=True)


def _selected_backward(ctx):
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim,
                                    ctx.keepdim, distinct=True)


# ---- sort, argsort, topk -------------------------------------------------------------------

def _unstable_order(xp, input, dim, descending):
    """torch's std::sort order: stable up to 16 elements (insertion sort), and for a 1-D
    integer tensor of 32768 or more sorted ascending (radix sort)."""
    size = input.shape[dim] if input.ndim else 1
    if input.ndim and input.strides[dim] == 0:  # torch keeps the order of an expanded dim
        places = xp.arange(size).reshape([size if d == dim else 1 for d in range(input.ndim)])
        return xp.broadcast_to(places, input.shape).copy()
    radix = (input.ndim == 1 and size >= 32768 and not descending
             and input.dtype.kind in "iu")

    def replay(key):
        positions = list(range(size))
        _cpu_order.sort(positions, key, 0, size)
        return positions
    relevant = _no_slice if size <= 16 or radix else lambda tied: tied.any(1)
    return _torch_tie_order(xp, input, dim, descending, size, relevant, replay)


@defop("SortBackward0", save=("dim", "result1"))
def _sort(xp, input: Tensor, dim, descending):
    return select_view(xp, input, _unstable_order(xp, input, dim, descending), dim, True)


@defop("TopkBackward0", save=("dim", "result1"))
def _topk(xp, input: Tensor, k, dim, largest, sorted_values=True):
    size = input.shape[dim] if input.ndim else 1
    # sorted (std::partial_sort sorts too): only ties can differ; else every slice keeps the
    # order std::nth_element leaves
    everywhere = not (sorted_values or k * 64 <= size or k < 2)
    order = _torch_tie_order(xp, input, dim, largest, k,
                             lambda tied: tied[:, :k].any(1) | everywhere,
                             lambda key: _cpu_order.topk(key, k, sorted_values))
    return select_view(xp, input, order, dim, True)


@defop("SortBackward1", save=("dim", "result1"))
def _sort_stable(xp, input: Tensor, dim, descending):
    return select_view(xp, input, _order(xp, input, dim, descending), dim, True)


_sort.derivatives(input=_sorted_backward)
_sort_stable.derivatives(input=_sorted_backward)
_topk.derivatives(input=_sorted_backward)

_UNSET = object()


@numpy_keywords
def sort(input, dim=-1, descending=False, *, stable=_UNSET):
    """(values, indices) along dim; always stable (see the module docstring)."""
    # torch records its sort.stable overload whenever stable= is passed, even as None
    op = _sort if stable is _UNSET else _sort_stable
    return sort_return(*op(input, wrap_dim(dim, input.ndim), descending))


@defop(None)
def _argsort(xp, input: Tensor, dim, descending, stable):
    if stable:
        return _order(xp, input, dim, descending)
    return _unstable_order(xp, input, dim, descending)


@numpy_keywords
def argsort(input, dim=-1, descending=False, *, stable=False):
    return _argsort(input, wrap_dim(dim, input.ndim), descending, bool(stable))


@numpy_keywords
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) values along dim with their indices; with sorted=False in
    the order torch's std::nth_element leaves them (replayed in Python: slow on big slices)."""
    dim = wrap_dim(dim, input.ndim)
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if not 0 <= k <= (input.shape[dim] if input.ndim else 1):
        raise RuntimeError("selected index k out of range")
    return topk_return(*_topk(input, k, dim, largest, sorted))


# ---- kthvalue and median -------------------------------------------------------------------

def _kth_replay(k):
    def replay(key):
        positions = list(range(len(key)))
        _cpu_order.quick_select(positions, key, k - 1)
        return positions[:k]
    return replay


@defop("KthvalueBackward0", save=("dim", "keepdim", "result1"))
def _kthvalue(xp, input: Tensor, k, dim, keepdim):
    # a tie at the k-th sorted position, with the one before or after it
    order = _torch_tie_order(xp, input, dim, False, k,
                             lambda tied: tied[:, max(k - 2, 0):k].any(1), _kth_replay(k))
    return select_view(xp, input, order, dim, keepdim, [k - 1])


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


@numpy_keywords
def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest value along dim (NaN counting as the largest) and its index."""
    dim = wrap_dim(dim, input.ndim)
    _check_sortable("kthvalue_cpu", input)
    check_reduced_sizes("kthvalue", input, (dim,))
    if not 1 <= k <= (input.shape[dim] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return kthvalue_return(*_kthvalue(input, k, dim, keepdim))


@numpy_keywords
def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (of all elements, or along dim with its index);
    NaN if there is one."""
    _check_sortable("median_cpu" if dim is None else "median_out", input)
    if dim is None:
        return _median_all(input)
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes("median", input, (dim,))
    return median_return(*_median_dim(input, dim, keepdim))


def _nanmedian_along(xp, input, dim, keepdim):
    """The lower median of the values that are not NaN (NaN, at index 0, if all are)."""
    if input.ndim == 0:
        return input.copy(), xp.zeros((), xp.int64)
    order = _order(xp, input, dim)  # NaNs sort last
    valid = xp.sum(input == input, axis=dim, keepdims=True)
    positions = xp.maximum((valid - 1) // 2, 0)
    return pick_along(xp, input, xp.take_along_axis(order, positions, axis=dim), dim, keepdim)


@defop("NanmedianBackward1", save=("dim", "keepdim", "result1"))
def _nanmedian_dim(xp, input: Tensor, dim, keepdim):
    return _nanmedian_along(xp, input, dim, keepdim)


@defop("NanmedianBackward0", save=("input", "result"))
def _nanmedian_all(xp, input: Tensor):
    if input.size == 0:
        return xp.asarray(xp.nan).astype(input.dtype)
    return _nanmedian_along(xp, input.ravel(), 0, False)[0]


_nanmedian_dim.derivatives(input=_selected_backward)
_nanmedian_all.derivatives(input=evenly_distributed)


@numpy_keywords
def nanmedian(input, dim=None, keepdim=False):
    """median of the values that are not NaN."""
    _check_sortable("median_cpu" if dim is None else "median_out", input)
    if dim is None:
        return _nanmedian_all(input)
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes("median", input, (dim,))  # torch's text for nanmedian too
    return nanmedian_return(*_nanmedian_dim(input, dim, keepdim))


def _mode_of_rows(xp, rows):
    """(value, index) per row, as torch's: the row put in order by std::sort with a plain <,
    then the first of the longest runs of equal values (NaN equal to nothing), at the position
    of the run's last element. Stably sorted, the same unless NaNs or ties on more than 16
    elements are involved."""
    values, indices = xp.empty(rows.shape[0], rows.dtype), xp.empty(rows.shape[0], xp.int64)
    for r, row in enumerate(rows):
        order = xp.argsort(row, kind="stable")
        starts, lengths = _runs(xp, row[order])
        if (row != row).any() or len(row) > 16 and lengths.max() > 1:
            positions = list(range(len(row)))
            _cpu_order.sort(positions, row.tolist(), 0, len(row))
            order = xp.asarray(positions, dtype=xp.int64)
            starts, lengths = _runs(xp, row[order])
        best = xp.argmax(lengths)
        last = starts[best] + lengths[best] - 1
        values[r], indices[r] = row[order[last]], order[last]
    return values, indices


def _runs(xp, ordered):
    """Starts and lengths of the runs of equal neighbours (NaN equal to nothing)."""
    starts = xp.flatnonzero(xp.concatenate([[True], ordered[1:] != ordered[:-1]]))
    return starts, xp.diff(xp.append(starts, len(ordered)))


@defop("ModeBackward0", save=("dim", "keepdim", "result1"))
def _mode(xp, input: Tensor, dim, keepdim):
    if input.ndim == 0:
        return input.copy(), xp.zeros((), xp.int64)
    moved = xp.moveaxis(input, dim, -1)
    values, indices = _mode_of_rows(xp, moved.reshape(-1, moved.shape[-1]))
    shape = moved.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim:
        values, indices = xp.expand_dims(values, dim), xp.expand_dims(indices, dim)
    return values, indices


_mode.derivatives(input=_selected_backward)


@numpy_keywords
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones), and the last
    index it appears at."""
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes("mode", input, (dim,))
    return mode_return(*_mode(input, dim, keepdim))


def msort(input):
    """input sorted along its first dim."""
    return sort(input, 0).values


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


def _consecutive_runs(xp, input, dim):
    """(values, inverse, counts) of the runs of equal neighbours along dim (None: flattened)."""
    flat = input.ravel() if dim is None else xp.moveaxis(input, dim, 0)
    if flat.shape[0] == 0:
        return input.ravel() if dim is None else input, xp.zeros(
            input.shape if dim is None else 0, xp.int64), xp.zeros(0, xp.int64)
    differs = flat[1:] != flat[:-1]
    if flat.ndim > 1:  # slices differ where any of their elements does
        differs = differs.any(axis=tuple(range(1, flat.ndim)))
    starts = xp.concatenate([[True], differs])
    inverse = xp.cumsum(starts) - 1
    counts = xp.diff(xp.append(xp.flatnonzero(starts), flat.shape[0]))
    values = flat[starts]
    if dim is None:
        return values, inverse.reshape(input.shape), counts
    return xp.moveaxis(values, 0, dim), inverse, counts


@defop("UniqueConsecutiveBackward0")
def _unique_consecutive(xp, input: Tensor, dim):
    values, inverse, counts = _consecutive_runs(xp, input, dim)
    return values, inverse.astype(xp.int64), counts.astype(xp.int64)


_unique_consecutive.derivatives(input=_not_differentiable("unique_consecutive"))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal consecutive values (or slices along dim), with
    optionally the run of each element and each run's length."""
    if dim is not None:
        dim = _unique_dim_check(input, dim)
    values, inverse, counts = _unique_consecutive(input, dim)
    outputs = [values] + [inverse] * return_inverse + [counts] * return_counts
    return tuple(outputs) if len(outputs) > 1 else values


# ---- searching sorted sequences ------------------------------------------------------------

def _side(right, side):
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    return side


def _check_sequence(sorted_sequence, values, sorter):
    if sorted_sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if sorted_sequence.ndim > 1 and (not isinstance(values, Tensor) or values.shape[:-1]
                                     != sorted_sequence.shape[:-1]):
        shown = list(values.shape) if isinstance(values, Tensor) else []
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor {shown}")
    if sorter is not None and sorter.shape != sorted_sequence.shape:
        raise RuntimeError(
            "torch.searchsorted(): boundary and sorter must have the same size, but got "
            f"boundary tensor {list(sorted_sequence.shape)}and got sorter tensor "
            f"{list(sorter.shape)}")


@defop(None)
def _searchsorted(xp, sorted_sequence: Tensor, values: Tensor, side, out_int32, sorter):
    if sorter is not None:
        sorted_sequence = xp.take_along_axis(sorted_sequence, sorter, axis=-1)
    dtype = xp.int32 if out_int32 else xp.int64
    if sorted_sequence.ndim == 1:
        return xp.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    count = numel(sorted_sequence.shape[:-1])  # rows, also when some size is 0
    rows = sorted_sequence.reshape(count, sorted_sequence.shape[-1])
    wanted = values.reshape(count, values.shape[-1])
    found = xp.zeros(wanted.shape, dtype)
    for r, (row, want) in enumerate(zip(rows, wanted)):
        found[r] = xp.searchsorted(row, want, side=side)
    return found.reshape(values.shape)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value would be inserted into the sorted innermost dim to keep it sorted."""
    side = _side(right, side)
    _check_sequence(sorted_sequence, input, sorter)
    return _searchsorted(sorted_sequence, input, side, out_int32,
                         None if sorter is None else sorter._data)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value among the sorted 1-D boundaries."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _searchsorted(boundaries, input, "right" if right else "left", out_int32, None)


@defop(None)
def _isin(xp, elements: Tensor, test_elements: Tensor, assume_unique, invert):
    return xp.isin(elements, test_elements, assume_unique=assume_unique, invert=invert)


_ISIN_OVERLOADS = tuple(f"{kind}, *, bool assume_unique = False, bool invert = False, Tensor out = "
                        "None" for kind in ("Tensor elements, Tensor test_elements",
                                            "Number element, Tensor test_elements",
                                            "Tensor elements, Number test_element"))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element occurs among test_elements (either may be a number)."""
    if not (isinstance(elements, Tensor) and (isinstance(test_elements, Tensor)
                                              or is_number(test_elements))
            or is_number(elements) and isinstance(test_elements, Tensor)):
        raise overload_error("isin", _ISIN_OVERLOADS, (elements, test_elements))
    return _isin(elements, test_elements, assume_unique, invert)


FUNCTIONS = ("argsort bucketize isin kthvalue median mode msort nanmedian searchsorted sort topk "
             "unique unique_consecutive").split()
METHODS = [name for name in FUNCTIONS if name not in ("bucketize", "isin", "searchsorted")]
