"""Writing into a copy of a tensor at indexed places: index_add, index_copy, index_fill,
index_reduce and scatter_reduce along a dim, index_put, put and masked_scatter."""

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ._checks import broadcast_shapes, fill_value, is_floating_kind, numel, wrap_dim
from ._define import defop
from .indexing import (_along, _at_least_1d, _check_index_array, _check_scatter, _gather,
                       _index_put, _masked_fill, _region, _scatter_add,
                       _scatter_value, _take, fits, index_select, index_select_op,
                       indexed_shape, method_of, value_mismatch, written_key)
from .pointwise import mul_scalar, where
from .reduction import check_grad_dtype
from .shape import expand, reshape, zeros_of
from .._warnings import warn

# ---- where a source along dim lands --------------------------------------------------------

def _into(xp, shape, dim, index):
    """The places that source[i...] takes in the result: index[i_dim] along dim, i elsewhere
    (a 0-d source counts as 1-d, like a 0-d result)."""
    grid = list(xp.indices(shape or (1,), sparse=True))
    grid[dim] = index.reshape((-1,) + (1,) * (len(grid) - dim - 1))
    return tuple(grid)


def _is_inexact(dtype):
    return dtype.kind == "c" or is_floating_kind(dtype)


def _scaled(source, alpha, dtype):
    if alpha == 1:
        return source
    # an integer tensor takes alpha as an integer, as torch converts it to the tensor's type
    return source * (alpha if _is_inexact(dtype) else int(alpha))


@defop("IndexAddBackward0", save=("dim", "index", "alpha"))
def _index_add(xp, input: Tensor, dim, index, source: Tensor, alpha=1):
    result = input.copy()
    xp.add.at(_at_least_1d(result), _into(xp, source.shape, dim, index),
              _at_least_1d(_scaled(source, alpha, input.dtype)))
    return result


def _picked_source(ctx):
    """grad at the places the source went to, in the source's shape (torch expands it as the
    source, a 0-d one aside)."""
    picked = index_select_op(ctx.grad, ctx.dim, ctx.index)
    if not ctx.source_shape:
        return reshape(picked, ())
    return expand(picked, ctx.source_shape)


_index_add.derivatives(input=lambda ctx: ctx.grad,
                       source=lambda ctx: mul_scalar(_picked_source(ctx), ctx.alpha)
                       if ctx.alpha != 1 else _picked_source(ctx))


@defop("IndexCopyBackward0", save=("dim", "index"))
def _index_copy(xp, input: Tensor, dim, index, source: Tensor):
    result = input.copy()
    _at_least_1d(result)[_into(xp, source.shape, dim, index)] = _at_least_1d(source)
    return result


_index_copy.derivatives(input=lambda ctx: _index_fill(ctx.grad, ctx.dim, ctx.index, 0),
                        source=_picked_source)


def _fill_along(xp, input, dim, index, value):
    result = input.copy()
    _at_least_1d(result)[(slice(None),) * dim + (index.reshape(-1),)] = value
    return result


@defop("IndexFillBackward0", save=("dim", "index"))
def _index_fill(xp, input: Tensor, dim, index, value):
    return _fill_along(xp, input, dim, index, value)


@defop("IndexFillBackward1", save=("dim", "index"))
def _index_fill_tensor(xp, input: Tensor, dim, index, value: Tensor):
    return _fill_along(xp, input, dim, index, value)


def _filled_value(ctx):
    # torch sums the grad over the distinct index values (a negative index is one of them)
    distinct = Tensor._make(_backend.array_module(ctx.index).unique(ctx.index.reshape(-1)))
    return index_select(ctx.grad, ctx.dim, distinct).sum()


_index_fill.derivatives(input=lambda ctx: _index_fill(ctx.grad, ctx.dim, ctx.index, 0))
_index_fill_tensor.derivatives(input=lambda ctx: _index_fill(ctx.grad, ctx.dim, ctx.index, 0),
                               value=_filled_value)


# ---- reductions into indexed places --------------------------------------------------------

_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum",
           "amin": "minimum"}


def _identity(reduce, dtype):
    """The value a place starts from when include_self=False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if _is_inexact(dtype):
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    return np.iinfo(dtype).min if reduce == "amax" else np.iinfo(dtype).max


def _reduce_into(xp, input, places, values, reduce, include_self):
    """input with values reduced into places; mean divides by the count at each place
    (rounding down for integers, as torch)."""
    result = input.copy()
    target = _at_least_1d(result)
    if not include_self:
        target[places] = _identity(reduce, input.dtype)
    getattr(xp, _UFUNCS[reduce]).at(target, places, values)
    if reduce == "mean":
        count = xp.full(target.shape, int(include_self), dtype=input.dtype)
        xp.add.at(count, places, 1)
        count[count == 0] = 1
        divide = xp.true_divide if _is_inexact(input.dtype) else xp.floor_divide
        divide(target, count, out=target)
    return result


@defop("ScatterReduceBackward0", save=("input", "dim", "index", "src", "reduce",
                                        "include_self", "result"))
def _scatter_reduce(xp, input: Tensor, dim, index, src: Tensor, reduce, include_self=True):
    index = _at_least_1d(index)
    return _reduce_into(xp, input, _along(index, dim), _at_least_1d(src)[_region(index.shape)],
                        reduce, include_self)


@defop("IndexReduceBackward0", save=("input", "dim", "index", "source", "reduce",
                                      "include_self", "result"))
def _index_reduce(xp, input: Tensor, dim, index, source: Tensor, reduce, include_self=True):
    return _reduce_into(xp, input, _into(xp, source.shape, dim, index), _at_least_1d(source),
                        reduce, include_self)


class _ScatterPlaces:
    """scatter_reduce's vocabulary for the shared backward: gather picks, scatter_add adds."""
    name, source = "scatter_reduce", "src"

    def __init__(self, ctx):
        self.ctx = ctx

    def pick(self, tensor):
        return _gather(tensor, self.ctx.dim, self.ctx.index)

    def add(self, tensor, values):
        return _scatter_add(tensor, self.ctx.dim, self.ctx.index, values)

    def clear(self, tensor):
        return _scatter_value(tensor, self.ctx.dim, self.ctx.index, 0)

    def again(self, input, source):
        ctx = self.ctx
        return _scatter_reduce(input, ctx.dim, ctx.index, source, ctx.reduce, ctx.include_self)


class _IndexPlaces(_ScatterPlaces):
    """index_reduce's: index_select picks, index_add adds."""
    name, source = "index_reduce", "source"

    def pick(self, tensor):
        return index_select_op(tensor, self.ctx.dim, self.ctx.index)

    def add(self, tensor, values):
        return _index_add(tensor, self.ctx.dim, self.ctx.index, values)

    def clear(self, tensor):
        return _index_fill(tensor, self.ctx.dim, self.ctx.index, 0)

    def again(self, input, source):
        ctx = self.ctx
        return _index_reduce(input, ctx.dim, ctx.index, source, ctx.reduce, ctx.include_self)


def _count(places, like):
    """How many values each place of the result combines (at least 1)."""
    ctx = places.ctx
    counted = places.add(_filled(like, float(ctx.include_self)),
                         _filled(getattr(ctx, places.source), 1))
    return counted.masked_fill(counted == 0, 1)


def _filled(like, value):
    return Tensor._make(_backend.array_module(like._data).full(like.shape, value,
                                                               like.dtype.numpy))


def _ties(places):
    """(places equal to the result in input, the same in source, their count per place)."""
    ctx, source = places.ctx, getattr(places.ctx, places.source)
    input_ties = (ctx.input == ctx.result).to(ctx.input.dtype)
    source_ties = (source == places.pick(ctx.result)).to(ctx.input.dtype)
    return input_ties, source_ties, places.add(input_ties, source_ties)


def _reduced_input_grad(ctx, places):
    grad, input, reduce = ctx.grad, ctx.input, ctx.reduce
    if reduce == "sum":
        result = grad
    elif reduce == "prod":
        # input's zeros become ones: the product of the others is left at those places
        nonzero_input = input.masked_fill(input == 0, 1)
        result = grad * places.again(nonzero_input, getattr(ctx, places.source)) / nonzero_input
    elif reduce == "mean":
        result = grad / _count(places, grad)
    else:
        input_ties, _, ties = _ties(places)
        result = input_ties * grad / ties
    return result if ctx.include_self else places.clear(result)


def _reduced_source_grad(ctx, places):
    grad, reduce, source = ctx.grad, ctx.reduce, getattr(ctx, places.source)
    if reduce == "sum":
        return _source_sized(places.pick(grad), ctx, places)
    if reduce == "prod":
        return _prod_source_grad(ctx, places, source)
    if reduce == "mean":
        return _source_sized(places.pick(grad) / places.pick(_count(places, grad)), ctx, places)
    _, source_ties, ties = _ties(places)
    return source_ties * places.pick(grad / ties)


def _source_sized(grad, ctx, places):
    """torch refuses a source gradient smaller than the source (a src larger than index)."""
    shape = getattr(ctx, places.source + "_shape")
    if grad.shape != shape:
        raise RuntimeError(f"Function ScatterReduceBackward0 returned an invalid gradient at "
                           f"index 1 - got {list(grad.shape)} but expected shape compatible "
                           f"with {list(shape)}")
    return grad


def _prod_source_grad(ctx, places, source):
    """The product of the other values at each place; a zero alone at its place gets the
    product of the rest, found by a second reduction with that zero replaced by one."""
    source_zero = source == 0
    zeros_here = places.pick(places.add(zeros_of(ctx.input), source_zero.to(source.dtype)))
    single_zero = source_zero & (zeros_here == 1)
    without_single_zero = places.again(ctx.input, source.masked_fill(single_zero, 1))
    others = places.pick(ctx.grad * ctx.result) / source.masked_fill(source_zero, 1)
    grad = where(single_zero, places.pick(ctx.grad * without_single_zero), others)
    if (zeros_here > 1).any():
        return _first_order_only(grad, f"{places.name}(): Double backward is unsupported for "
                                       f"{places.source} when >1 zeros in {places.source} "
                                       "are scattered to the same position in self")
    return grad


# torch's node for a derivative that exists only to first order (its DelayedError)
@defop("Error", save=("message",))
def _first_order_only(xp, input: Tensor, message):
    return input.copy()


def _raise_message(ctx):
    raise RuntimeError(ctx.message)


_first_order_only.derivatives(input=_raise_message)

_scatter_reduce.derivatives(input=lambda ctx: _reduced_input_grad(ctx, _ScatterPlaces(ctx)),
                            src=lambda ctx: _reduced_source_grad(ctx, _ScatterPlaces(ctx)))
_index_reduce.derivatives(input=lambda ctx: _reduced_input_grad(ctx, _IndexPlaces(ctx)),
                          source=lambda ctx: _reduced_source_grad(ctx, _IndexPlaces(ctx)))


# ---- the public functions: torch's checks, in torch's order --------------------------------

def _check_index_func(name, input, dim, index, source):
    """index_add's and index_reduce's checks; returns the wrapped dim."""
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {index.dtype.legacy_name} and size: "
                         f"{list(index.shape)}")
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{name}_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype.legacy_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{name}_(): self ({input.dtype.legacy_name}) and source "
                           f"({source.dtype.legacy_name}) must have the same scalar type")
    if source.ndim and index.numel() != source.shape[wrap_dim(dim, source.ndim)]:
        raise RuntimeError(f"{name}_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source.shape[dim]}), for dim: {dim}")
    if _without_dim(input.shape, dim, source.ndim) != _without_dim(source.shape, dim,
                                                                   input.ndim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    return dim


def _without_dim(shape, dim, other_ndim):
    """shape less dim, when both tensors have dims (torch compares 0-d shapes whole)."""
    if shape and other_ndim:
        return shape[:dim] + shape[dim + 1:]
    return shape


def _outside(index, size, wraps=False):
    """The first entry of index outside [0, size) (or [-size, size) if it wraps), or None."""
    outside = (index < (-size if wraps else 0)) | (index >= size)
    return int(index[outside].flat[0]) if outside.any() else None


def _check_tensor(name, argument, position, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def index_add(input, dim, index, source, *, alpha=1):
    """input with source's slices (times alpha) added at index along dim."""
    _check_tensor("index_add", "source", 4, source)
    dim = _check_index_func("index_add", input, dim, index, source)
    size = input.shape[dim] if input.ndim else 1
    outside = _outside(index._data, size)
    if outside is not None:
        if input.ndim > 1 and dim in (0, input.ndim - 1):  # torch's scatter_add kernel
            raise RuntimeError(f"index {outside} is out of bounds for dimension {dim} with size "
                               f"{size}")
        raise IndexError("index out of range in self")
    return _index_add(input, dim, index._data.reshape(-1), source, alpha)


def index_copy(input, dim, index, source):
    """input with its slices at index along dim replaced by source's slices."""
    _check_tensor("index_copy", "source", 4, source)
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and index.numel() != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {index.numel()})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({input.ndim})")
    if index.dtype.name != "int64":
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{index.dtype.legacy_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {input.dtype.legacy_name} and (source) "
                           f"{source.dtype.legacy_name}")
    _check_copied_slices(input.shape, source.shape, dim)
    if source.ndim and index.numel() != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    size = input.shape[dim] if input.ndim else 1
    outside = _outside(index._data, size)
    if outside is not None:
        raise IndexError(f"index_copy_(): index {outside} is out of bounds for dimension {dim} "
                         f"with size {size}")
    return _index_copy(input, dim, index._data.reshape(-1), source)


def _check_copied_slices(shape, source_shape, dim):
    """index_copy's slice shapes (the shapes less dim) must agree; torch prints them bare."""
    sliced, source_sliced = (tuple(s[:dim]) + tuple(s[dim + 1:]) for s in (shape, source_shape))
    if sliced != source_sliced:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, sliced))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, source_sliced))} at dimension 0.")


def index_fill(input, dim, index, value):
    """input with its slices at index along dim set to value (a number or a 0-d tensor)."""
    fill_value("index_fill", "Tensor input, int dim, Tensor index, ", (input, dim, index, value))
    if index.dtype.name != "int64":
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input.shape[dim] if input.ndim else 1
    outside = _outside(index._data, size, wraps=True)
    if outside is not None:
        raise IndexError(f"index {outside} is out of bounds for dimension {dim} with size {size}")
    if isinstance(value, Tensor):
        check_grad_dtype(value, input.dtype)  # an integer result cannot carry value's gradient
        return _index_fill_tensor(input, dim, index._data, value)
    from .._creation import check_fill_number
    value = check_fill_number(value, input.dtype)
    return _index_fill(input, dim, index._data, value)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices reduced (prod, mean, amax, amin) into the slices at index."""
    warn("index_reduce() is in beta and the API may change at any time.", UserWarning)
    _check_tensor("index_reduce", "source", 4, source)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    dim = _check_index_func("index_reduce", input, dim, index, source)
    if input.dtype is _dtype.bool:
        raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
    if _outside(index._data, input.shape[dim] if input.ndim else 1) is not None:
        raise IndexError("index out of range in self")
    return _index_reduce(input, dim, index._data.reshape(-1), source, reduce, include_self)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with src's values reduced (sum, prod, mean, amax, amin) into the places that index
    names along dim."""
    _check_tensor("scatter_reduce", "src", 4, src)
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    dim = _check_scatter(input, dim, index, src)
    if reduce == "mean" and input.dtype is _dtype.bool:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for "
                                  "'Bool'")
    return _scatter_reduce(input, dim, index._data, src, reduce, include_self)


@defop("MaskedScatterBackward0", save=("mask",))
def _masked_scatter(xp, input: Tensor, mask, source: Tensor):
    result = xp.array(xp.broadcast_to(input, mask.shape))
    result[mask] = source.reshape(-1)[:xp.count_nonzero(mask)]
    return result


@defop("MaskedScatterBackwardBackward0", save=("mask",))
def _masked_scatter_backward(xp, grad_output: Tensor, mask, sizes):
    """torch's masked_scatter_backward: grad_output at the masked places, in order, then zeros
    for the source values left unused, in the source's shape."""
    picked = grad_output[mask]
    result = xp.zeros(numel(sizes), grad_output.dtype)
    result[:picked.size] = picked
    return result.reshape(sizes)


_masked_scatter_backward.derivatives(grad_output=lambda ctx: _masked_scatter(
    zeros_of(ctx.grad, ctx.mask.shape), ctx.mask, ctx.grad))
_masked_scatter.derivatives(input=lambda ctx: _masked_fill(ctx.grad, ctx.mask, 0),
                            source=lambda ctx: _masked_scatter_backward(ctx.grad, ctx.mask,
                                                                        ctx.source_shape))


def masked_scatter(input, mask, source):
    """input (broadcast with mask) with source's leading values written where mask is True."""
    _check_tensor("masked_scatter", "source", 3, source)
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.legacy_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{input.dtype.legacy_name} and {source.dtype.legacy_name}")
    shape = broadcast_shapes(mask.shape, input.shape)
    xp = _backend.array_module(mask._data)
    mask = xp.broadcast_to(mask._data, shape)
    if xp.count_nonzero(mask) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _masked_scatter(input, mask, source)


def _masked_scatter_(self, mask, source):
    """Tensor.masked_scatter_: the mask is expanded to the tensor's shape, never the reverse."""
    from ._inplace import inplace  # _inplace builds on the op modules
    if isinstance(mask, Tensor) and mask.ndim > self.ndim:
        raise RuntimeError(f"expand(CPU{mask.dtype.legacy_name}Type{{{list(mask.shape)}}}, "
                           f"size={list(self.shape)}): the number of sizes provided "
                           f"({self.ndim}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({mask.ndim})")
    if isinstance(mask, Tensor):
        expand(mask, self.shape)  # raises expand's error for a mask that does not fit
    return inplace(masked_scatter, self, mask, source)


@defop("PutBackward0", save=("index", "accumulate"))
def _put(xp, input: Tensor, index, source: Tensor, accumulate=False):
    result = input.copy()
    flat, index, source = result.reshape(-1), index.reshape(-1), source.reshape(-1)
    if accumulate:
        xp.add.at(flat, index, source)
    else:
        flat[index] = source
    return result


_put.derivatives(
    input=lambda ctx: ctx.grad if ctx.accumulate else _put(
        ctx.grad, ctx.index, zeros_of(ctx.grad, ctx.source_shape)),
    source=lambda ctx: reshape(_take(ctx.grad, ctx.index), ctx.source_shape))


def put(input, index, source, accumulate=False):
    """input with source's values written (or added) at index into the flattened tensor."""
    _check_tensor("put", "source", 3, source)
    if index.dtype.name != "int64":
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{index.dtype.legacy_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input.dtype.legacy_name} and source.dtype = "
                           f"{source.dtype.legacy_name}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    size = input.numel()
    if size == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    outside = _outside(index._data, size, wraps=True)
    if outside is not None:
        raise IndexError(f"out of range: tried to access index {outside} on a tensor of {size} "
                         f"elements.")
    return _put(input, index._data, source, accumulate)


def index_put(input, indices, values, accumulate=False):
    """input with values written (or added) at input[indices], indices a tuple of tensors."""
    return _index_put_checked(input, indices, values, accumulate, first=1)


def _index_put_method(self, indices, values, accumulate=False):
    return _index_put_checked(self, indices, values, accumulate, first=0)


def _index_put_checked(input, indices, values, accumulate, first):
    """torch's checks; `first` is the position torch counts the indices argument from."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position {first + 1}) must be tuple "
                        f"of Tensors, not {type(indices).__name__}")
    for i, item in enumerate(indices):
        if not isinstance(item, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {first}, but got "
                            f"{type(item).__name__}")
    _check_tensor("index_put", "values", first + 2, values)
    key = tuple(_backend.array_module(item).asarray(item)  # (an int: a 0-d host array)
                for item in written_key(indices, values))
    used = sum(item.ndim if item.dtype == bool else 1 for item in key)
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {used})")
    dim = 0
    for item in key:
        _check_index_array(item, input.shape, dim)
        dim += item.ndim if item.dtype == bool else 1
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input.dtype.legacy_name} for the destination and "
                           f"{values.dtype.legacy_name} for the source.")
    if not fits(values.shape, indexed_shape(input.shape, key)):
        raise value_mismatch(input.shape, key, values)
    return _index_put(input, key, values, accumulate)


FUNCTIONS = ("index_add index_copy index_fill index_put index_reduce masked_scatter put "
             "scatter_reduce").split()
METHODS = {name: method_of(globals()[name]) for name in FUNCTIONS if name != "index_put"}
TENSOR_ONLY = {"index_put": _index_put_method, "masked_scatter_": _masked_scatter_}
