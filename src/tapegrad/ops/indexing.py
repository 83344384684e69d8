"""Indexing: x[key] (getitem), select, index_select, masked_fill, masked_select and take;
gather and scatter along a dim."""
import re

import numpy as np

from .. import _backend
from .._tensor import Tensor
from ._checks import (broadcast_shapes, fill_value, is_number, overload_error, type_name,
                      wrap_dim)
from ._define import defop
from .shape import (alias_view, expand, redeclare, select_view, slice_view, unsqueeze_view,
                    zeros_of)
from .._warnings import warn

# ---- indexing ------------------------------------------------------------------------------

def key_beside(array, key):
    """A key (a tuple) with its host-made index arrays (lists, NumPy's arrays that formulas
    build) moved to array's device, as torch moves a cpu index to the indexed tensor."""
    return tuple(_backend.beside(array, item) if type(item) is np.ndarray else item
                 for item in key)


@defop("IndexBackward0", save=("key",))
def _index(xp, input: Tensor, key):
    if xp is not np and type(key) is tuple:
        key = key_beside(input, key)
    return input[key]


_index.derivatives(input=lambda ctx: _index_put_impl(
    zeros_of(ctx.grad, ctx.input_shape), ctx.key, ctx.grad, accumulate=True))


@defop("IndexPutBackward0", save=("key", "accumulate"))
def _index_put(xp, input: Tensor, key, values: Tensor, accumulate=False):
    result = input.copy()
    values = xp.asarray(values, dtype=input.dtype)
    if xp is not np and type(key) is tuple:
        key = key_beside(input, key)
    try:
        if accumulate:
            xp.add.at(result, key, values)
        else:
            result[key] = values
    except ValueError:
        raise value_mismatch(input.shape, key, values) from None
    return result


_index_put.derivatives(
    input=lambda ctx: ctx.grad if ctx.accumulate else _index_put(ctx.grad, ctx.key, 0.0),
    values=lambda ctx: _index(ctx.grad, ctx.key))
# what torch's index backward records (_index_put_impl_ into zeros)
_index_put_impl = redeclare(_index_put, "IndexPutImplBackward0", "_index_put_impl", view=False)


def _is_basic(item):
    return (item is None or item is Ellipsis
            or (isinstance(item, (int, slice, np.integer)) and not isinstance(item, bool)))


def _as_key_item(item):
    """Tensors in an index become arrays; 0-d integer tensors act as ints, as in torch."""
    if isinstance(item, Tensor):
        if item.dtype.name == "uint8":  # torch's old masks
            warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                 "torch.bool instead.", UserWarning)
            return item._data.astype(bool)
        if item.ndim == 0 and not item.dtype.is_floating_point and item.dtype.name != "bool":
            return int(item.item())
        if item.dtype.name not in ("int64", "int32", "bool"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return item._data
    if isinstance(item, (list, tuple)):
        return np.asarray([_as_key_item(i) for i in item])
    if isinstance(item, bool):  # x[True] is x[None] with a mask of one True
        return np.asarray(item)
    if isinstance(item, (float, complex, np.bool_, np.inexact)):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type_name(item)})")
    return item


def written_key(items, value):
    """A setitem key's items as arrays; torch fills with a number through masked_fill_, which
    refuses a uint8 mask."""
    if not isinstance(value, Tensor) and any(
            isinstance(item, Tensor) and item.dtype.name == "uint8" for item in items):
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    return tuple(_as_key_item(item) for item in items)


def fits(value_shape, shape):
    """Whether a value of value_shape broadcasts to shape."""
    extra = len(value_shape) - len(shape)
    return extra <= 0 and all(size in (1, target) for size, target in
                              zip(value_shape, shape[-len(value_shape):] if value_shape else ()))


def indexed_shape(shape, key):
    """The shape of x[key] for an x of that shape, found by indexing a stand-in without data
    (on the device of key's arrays)."""
    xp = _backend.array_module(next((item for item in key if _is_index_array(item)), None))
    return xp.broadcast_to(xp.zeros((), bool), shape)[key].shape


def value_mismatch(shape, key, value):
    """torch's error for values that do not broadcast to the shape of input[key]."""
    indexed = indexed_shape(shape, key)
    value_shape = value.shape if hasattr(value, "shape") else np.shape(value)
    if all(_is_basic(item) for item in key):
        # torch copies into a view, its leading 1-sized dims dropped: expand's error
        kept = next((i for i, size in enumerate(value_shape) if size != 1), len(value_shape))
        try:
            expand(zeros_of(Tensor._make(np.zeros(())), value_shape[kept:]), indexed)
        except RuntimeError as error:
            return error
    return RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be "
                        f"broadcast to indexing result of shape {list(indexed)}")


def _consumed_dims(item):
    """How many dims of the indexed tensor one key item uses."""
    if item is None or item is Ellipsis:
        return 0
    if _is_index_array(item) and item.dtype == bool:
        return item.ndim
    return 1


def getitem(input, key):
    """input[key] as torch applies it: ints, slices and None become select/slice/unsqueeze
    views first (a slice over a whole dim is skipped unless it is the whole key), then any integer arrays
    and masks index the result in one IndexBackward0 copy."""
    arrays = _index_arrays(key)
    if arrays is not None and len(arrays) <= input._data.ndim:
        # Only integer arrays: NumPy's bounds check is torch's; an IndexError from it is
        # put in torch's words
        try:
            return _index(input, arrays)
        except IndexError:
            for dim, array in enumerate(arrays):
                _check_index_array(array, input.shape, dim)
            raise
    whole_slice = isinstance(key, slice)
    items = [_as_key_item(item) for item in (key if isinstance(key, tuple) else (key,))]
    consumed = sum(_consumed_dims(item) for item in items)
    if consumed > input.ndim:
        if input.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    result, dim, source_dim, applied, advanced = input, 0, 0, False, []
    for item in items:
        if item is Ellipsis:
            skipped = input.ndim - consumed
            advanced += [slice(None)] * skipped
            dim, source_dim = dim + skipped, source_dim + skipped
        elif item is None:
            result, applied = unsqueeze_view(result, dim), True
            advanced.append(slice(None))
            dim += 1
        elif isinstance(item, slice):
            if whole_slice or not _spans_dim(item, result.shape[dim]):
                result, applied = _slice_dim(result, dim, item), True
            advanced.append(slice(None))
            dim, source_dim = dim + 1, source_dim + 1
        elif _is_index_array(item) and item.ndim == 0 and item.dtype == bool:
            # x[True] adds a dim (like None) and keeps it: a one-element mask over it
            result, applied = unsqueeze_view(result, dim), True
            advanced.append(item.reshape(1))
            dim += 1
        elif _is_index_array(item):
            _check_index_array(item, input.shape, source_dim)
            advanced.append(item)
            width = _consumed_dims(item)
            dim, source_dim = dim + width, source_dim + width
        else:
            result, applied = _select_dim(result, dim, int(item), source_dim), True
            source_dim += 1
    if any(_is_index_array(item) for item in advanced):
        return _index(result, tuple(advanced))
    return result if applied else alias_view(input)


def _index_arrays(key):
    """The arrays of a key made only of int64/int32 tensors with at least one dim (x[i] or
    x[i, j]: each indexes one dim, as arrays); None for any other key."""
    items = key if type(key) is tuple else (key,)
    if not items:
        return None
    for item in items:
        if (type(item) is not Tensor or not item._data.ndim
                or item._data.dtype.name not in ("int64", "int32")):
            return None
    return tuple(item._data for item in items)


def _spans_dim(item, size):
    """Whether torch skips this slice of a tuple key: start 0 as written, step 1, and an end at
    or past the dim's size."""
    return (item.start in (None, 0) and item.step in (None, 1)
            and (item.stop is None or item.stop >= size))


def _is_index_array(item):
    """An index (or mask) array of a key: NumPy's, or a device's (a cuda index tensor's)."""
    return isinstance(item, np.ndarray) or (_backend.active
                                            and type(item) in _backend.ARRAY_TYPES)


def _check_index_array(item, shape, dim):
    """torch's errors for an out-of-range integer index or a mask of the wrong shape."""
    if item.dtype == bool:
        for i, size in enumerate(item.shape):
            if size != shape[dim + i]:
                raise IndexError(f"The shape of the mask {list(item.shape)} at index {i} does not "
                                 f"match the shape of the indexed tensor {list(shape)} at index "
                                 f"{dim + i}")
        return
    size = shape[dim]
    if item.size and (item.min() < -size or item.max() >= size):
        outside = (item < -size) | (item >= size)
        raise IndexError(f"index {item[outside].flat[0]} is out of bounds for dimension {dim} "
                         f"with size {size}")


def _select_dim(input, dim, index, source_dim):
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {source_dim} with size "
                         f"{size}")
    return select_view(input, dim, index % size)


def _slice_dim(input, dim, item):
    if item.step == 0:
        raise ValueError("slice step cannot be zero")
    if item.step is not None and item.step < 0:
        raise ValueError("step must be greater than zero")
    start, end, step = item.indices(input.shape[dim])
    return slice_view(input, dim, start, end, step)


def select(input, dim, index):
    """The slice at `index` along dim, as a view without that dim."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim, index = wrap_dim(dim, input.ndim), int(index)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return select_view(input, dim, index % size)


@defop("IndexSelectBackward0", save=("dim", "index"))
def index_select_op(xp, input: Tensor, dim, index):
    return xp.take(input, index, axis=dim) if input.ndim else input.copy()


def _index_select_backward(ctx):
    """torch's index_select_backward: grad index_add-ed into zeros."""
    from .scatter import _index_add  # scatter builds on this module: import it late
    if not ctx.input_shape:  # a 0-d input, selected once
        return ctx.grad
    return _index_add(zeros_of(ctx.grad, ctx.input_shape), ctx.dim, ctx.index, ctx.grad)


index_select_op.derivatives(input=_index_select_backward)


def index_select(input, dim, index):
    """The slices at `index` (a vector) along dim, in index order (a copy)."""
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    index = index._data.reshape(-1)
    if input.ndim == 0 and index.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{index.size} value(s)")
    size = input.shape[dim] if input.ndim else 1
    outside = (index < 0) | (index >= size)
    if outside.any():
        # torch's kernels word this differently by case
        if input.ndim > 1 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if input.ndim < 2 or dim == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={index[outside][0]} "
                           f"axis_dim={size}")
    return index_select_op(input, dim, index)


@defop("MaskedFillBackward0", save=("mask",))
def _masked_fill(xp, input: Tensor, mask, value):
    return xp.where(mask, value, input).astype(input.dtype, copy=False)


@defop("MaskedFillBackward1", save=("mask",))
def _masked_fill_tensor(xp, input: Tensor, mask, value: Tensor):
    return xp.where(mask, value, input).astype(input.dtype, copy=False)


_masked_fill.derivatives(input=lambda ctx: _masked_fill(ctx.grad, ctx.mask, 0))
_masked_fill_tensor.derivatives(
    input=lambda ctx: _masked_fill(ctx.grad, ctx.mask, 0),
    value=lambda ctx: reduction.sum(_masked_fill(ctx.grad, ~ctx.mask, 0)))


# torch names dtypes by their C++ types in mask errors
_CPP_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
                   "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                   "int32": "int", "int64": "long int", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def masked_fill(input, mask, value):
    """input with value where mask (broadcast with input) is True."""
    fill_value("masked_fill", "Tensor input, Tensor mask, ", (input, mask, value))
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_TYPE_NAMES[mask.dtype.name]}")
    broadcast_shapes(mask.shape, input.shape)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        return _masked_fill_tensor(input, mask._data, value)
    from .._creation import check_fill_number
    value = check_fill_number(value, input.dtype)
    return _masked_fill(input, mask._data, value)


@defop("MaskedSelectBackward0", save=("mask",))
def _masked_select(xp, input: Tensor, mask):
    return xp.broadcast_to(input, mask.shape)[mask]


def _masked_select_backward(ctx):
    """torch's masked_select_backward: grad masked_scatter-ed into zeros."""
    from .scatter import _masked_scatter  # scatter builds on this module: import it late
    return _masked_scatter(zeros_of(ctx.grad, ctx.mask.shape), ctx.mask, ctx.grad)


_masked_select.derivatives(input=_masked_select_backward)


def masked_select(input, mask):
    """The elements where mask (broadcast with input) is True, as a 1-D tensor."""
    if mask.dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask.shape, input.shape)
    return _masked_select(input, _backend.array_module(mask._data).broadcast_to(mask._data,
                                                                               shape))


@defop("TakeBackward0", save=("index",))
def _take(xp, input: Tensor, index):
    return xp.take(input, index)


def _take_backward(ctx):
    """torch's take_backward: grad put into zeros, accumulating."""
    from .scatter import _put  # scatter builds on this module: import it late
    return _put(zeros_of(ctx.grad, ctx.input_shape), ctx.index, ctx.grad, True)


_take.derivatives(input=_take_backward)


def take(input, index):
    """Elements of the flattened input at index, shaped like index."""
    if index.dtype.name != "int64":
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{index.dtype.legacy_name}")
    size = input.numel()
    if size == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    outside = (index._data < -size) | (index._data >= size)
    if outside.any():
        raise IndexError(f"out of range: tried to access index {index._data[outside][0]} on a "
                         f"tensor of {size} elements.")
    return _take(input, index._data)


def nonzero(input, *, as_tuple=False):
    """The indices of input's nonzero elements: one row each, or one tensor per dim."""
    xp = _backend.array_module(input._data)
    if as_tuple:  # a 0-d input counts as 1-d here
        return tuple(Tensor._make(where.astype(np.int64))
                     for where in xp.nonzero(xp.atleast_1d(input._data)))
    return Tensor._make(xp.argwhere(input._data).astype(np.int64))


def argwhere(input):
    return nonzero(input)


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's rows, cut or padded with fill_value to exactly `size` rows."""
    if not isinstance(size, int):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not "
                        f"{type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    xp = _backend.array_module(input._data)
    found = xp.argwhere(input._data)[:size]
    result = xp.full((size, input.ndim), fill_value, dtype=np.int64)
    result[:len(found)] = found
    return Tensor._make(result)


# ---- gather and scatter along a dim --------------------------------------------------------

def _along(index, dim):
    """An index tuple selecting index[i...] along dim and position i... elsewhere."""
    xp, ndim = _backend.array_module(index), index.ndim
    # np.indices(index.shape, sparse=True), in words that CuPy has too
    grid = [xp.arange(n).reshape((1,) * d + (n,) + (1,) * (ndim - d - 1))
            for d, n in enumerate(index.shape)]
    grid[dim] = index
    return tuple(grid)


def _at_least_1d(array):
    return array.reshape(array.shape or (1,))  # torch treats a 0-d gather/scatter as 1-d


@defop("GatherBackward0", save=("dim", "index"))
def _gather(xp, input: Tensor, dim, index):
    if index.size == 0:
        return xp.zeros(index.shape, input.dtype)
    return _at_least_1d(input)[_along(_at_least_1d(index), dim)].reshape(index.shape)


_gather.derivatives(input=lambda ctx: scatter_add_into_zeros(ctx.grad, ctx.input_shape,
                                                             ctx.dim, ctx.index))


def gather(input, dim, index, *, sparse_grad=False):
    """input's values at index along dim (position i... elsewhere), shaped like index."""
    dim = wrap_dim(dim, input.ndim)
    if index.numel() == 0:  # torch checks nothing more for an empty index
        return _gather(input, dim, index._data)
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, size in enumerate(index.shape):
        if d != dim and size > input.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {dim}")
    size = input.shape[dim] if input.ndim else 1
    outside = (index._data < 0) | (index._data >= size)
    if outside.any():
        raise RuntimeError(f"index {index._data[outside].flat[0]} is out of bounds for dimension "
                           f"{dim} with size {size}")
    return _gather(input, dim, index._data)


def take_along_dim(input, indices, dim=None):
    """input's values at indices along dim, the two broadcast against each other apart from
    dim (indices wrap around, as in torch); dim=None: at indices into the flattened input."""
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    if indices.dtype.name != "int64":
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.legacy_name}")
    dim = wrap_dim(dim, input.ndim)
    index_shape = broadcast_shapes(_with_size(input.shape, dim, indices), indices.shape)
    input_shape = broadcast_shapes(_with_size(indices.shape, dim, input), input.shape)
    index = _backend.array_module(indices._data).broadcast_to(indices._data, index_shape)
    size = input.shape[dim]
    if size == 0 and index.size:  # torch wraps the indices with a remainder by the size
        raise RuntimeError("ZeroDivisionError")
    return _gather(input.expand(input_shape), dim, index % size if size else index)


def _with_size(shape, dim, other):
    """shape with other's size at dim."""
    return shape[:dim] + (_size_at(other, dim),) + shape[dim + 1:]


def _region(shape):
    """The leading block of a tensor that an index of this shape addresses."""
    return tuple(slice(0, n) for n in shape)


@defop("ScatterBackward0", save=("dim", "index"))
def _scatter(xp, input: Tensor, dim, index, src: Tensor):
    result = input.copy()
    index = _at_least_1d(index)
    _at_least_1d(result)[_along(index, dim)] = _at_least_1d(src)[_region(index.shape)]
    return result


@defop("ScatterBackward1", save=("dim", "index"))
def _scatter_value(xp, input: Tensor, dim, index, value):
    result = input.copy()
    _at_least_1d(result)[_along(_at_least_1d(index), dim)] = value
    return result


@defop("ScatterAddBackward0", save=("dim", "index"))
def _scatter_add(xp, input: Tensor, dim, index, src: Tensor):
    result = input.copy()
    if index.size == 0:
        return result
    index = _at_least_1d(index)
    xp.add.at(_at_least_1d(result), _along(index, dim), _at_least_1d(src)[_region(index.shape)])
    return result


def _gathered_src(ctx):
    """src's gradient: the gradient at the scattered-to places, zero where src was unused.
    (torch raises in backward when src is larger than index; this pads with zeros.)"""
    grad = _gather(ctx.grad, ctx.dim, ctx.index)
    if grad.shape == ctx.src_shape:
        return grad
    return _index_put(zeros_of(grad, ctx.src_shape), _region(grad.shape), grad)


_scatter.derivatives(input=lambda ctx: _scatter_value(ctx.grad, ctx.dim, ctx.index, 0),
                     src=_gathered_src)
_scatter_value.derivatives(input=lambda ctx: _scatter_value(ctx.grad, ctx.dim, ctx.index, 0))
_scatter_add.derivatives(input=lambda ctx: ctx.grad, src=_gathered_src)


def scatter_add_into_zeros(src, shape, dim, index):
    """zeros(shape).scatter_add(dim, index, src), with index an int array."""
    return _scatter_add(zeros_of(src, shape), dim, index, src)


def scatter_into_zeros(src, shape, dim, index):
    """zeros(shape).scatter(dim, index, src), with index an int array."""
    return _scatter(zeros_of(src, shape), dim, index, src)


@defop("NotImplemented")
def _scatter_reducing(xp, input: Tensor, dim, index, src: Tensor, reduce):
    result = input.copy()
    index = _at_least_1d(index)
    if isinstance(src, xp.ndarray):
        src = _at_least_1d(src)[_region(index.shape)]
    ufunc = xp.add if reduce == "add" else xp.multiply
    ufunc.at(_at_least_1d(result), _along(index, dim), xp.asarray(src).astype(input.dtype))
    return result


def _scatter_not_differentiable(ctx):
    raise RuntimeError("derivative for aten::scatter is not implemented")


# torch records a NotImplemented node for scatter(reduce=...): its backward raises
_scatter_reducing.derivatives(input=_scatter_not_differentiable, src=_scatter_not_differentiable)


_UNSET = object()  # src or value not given (None given is refused, as torch)


def scatter(input, dim, index, src=_UNSET, value=_UNSET, *, reduce=None):
    """input with src's values (or value) written at index along dim; reduce="add" or
    "multiply" combines them with what is there instead."""
    if not isinstance(src, Tensor):
        _check_scatter_value(input, dim, index, src, value, reduce)
        src, value = None, src if src is not _UNSET else value
    if reduce is not None and src is not None:
        warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
             "will be removed in a future PyTorch release. Use torch.scatter_reduce "
             "instead for more reduction options.", UserWarning)
    dim = _check_scatter(input, dim, index, src)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        value = value.item() if isinstance(value, Tensor) else value
        return _scatter_reducing(input, dim, index._data, value if src is None else src, reduce)
    if src is None:
        value = value.item() if isinstance(value, Tensor) else value
        return _scatter_value(input, dim, index._data, value)
    return _scatter(input, dim, index._data, src)


_SCATTER_OVERLOADS = tuple(f"Tensor input, int dim, Tensor index, {last}, *, {reduce}Tensor out "
                           "= None" for last in ("Tensor src", "Number value")
                           for reduce in ("", "str reduce, "))


def _check_scatter_value(input, dim, index, src, value, reduce):
    """torch's TypeError where scatter is given neither a tensor nor a number to write."""
    given = value if src is _UNSET else src
    if is_number(given) or isinstance(given, Tensor):
        return
    args = (input, dim, index) + (() if src is _UNSET else (src,))
    keywords = [("value", value)] if value is not _UNSET else []
    keywords += [("reduce", reduce)] if reduce is not None else []
    raise overload_error("scatter", _SCATTER_OVERLOADS, args, keywords)


def scatter_add(input, dim, index, src):
    """input with src's values added at index along dim (repeated indices add up)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 4) must be Tensor, not "
                        f"{type(src).__name__}")
    return _scatter_add(input, _check_scatter(input, dim, index, src), index._data, src)


def _check_scatter(input, dim, index, src):
    """torch's checks of scatter's and scatter_add's arguments, in torch's order (both name
    scatter in their errors); returns the wrapped dim."""
    dim = wrap_dim(dim, input.ndim)
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    dims = range(max(input.ndim, 1))
    too_large = any(d != dim and _size_at(index, d) > _size_at(input, d) for d in dims)
    if src is not None:
        too_large = too_large or any(_size_at(index, d) > _size_at(src, d) for d in dims)
        if max(src.ndim, 1) != max(index.ndim, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
    if too_large:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                           f"{list(input.shape)} apart from dimension {dim}"
                           + (f" and to be no larger size than src {list(src.shape)}"
                              if src is not None else ""))
    size = _size_at(input, dim)
    outside = (index._data < 0) | (index._data >= size)
    if outside.any():
        raise RuntimeError(f"index {index._data[outside].flat[0]} is out of bounds for "
                           f"dimension {dim} with size {size}")
    return dim


def _size_at(tensor, dim):
    """A 0-d tensor counts as size 1 along dim 0; a missing dim raises torch's IndexError."""
    return tensor.shape[wrap_dim(dim, tensor.ndim)] if tensor.ndim else 1


def method_of(function):
    """Tensor.X for torch.X: torch's method counts argument positions from after self in
    its "must be Tensor" errors."""
    def method(self, *args, **kwargs):
        try:
            return function(self, *args, **kwargs)
        except TypeError as error:
            if "must be Tensor" not in str(error):
                raise
            raise TypeError(re.sub(r"\(position (\d+)\)",
                                   lambda match: f"(position {int(match[1]) - 1})",
                                   str(error))) from None
    method.__name__ = method.__qualname__ = function.__name__
    return method


def _in_place_method(op):
    """Tensor.<op>_: op applied to the tensor's own storage."""
    def method(self, *args, **kwargs):
        from ._inplace import inplace  # _inplace builds on this module
        return inplace(op, self, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    return method


from . import reduction  # noqa: E402  (it builds on this module: import it last)


FUNCTIONS = ("argwhere gather index_select masked_fill masked_select nonzero nonzero_static "
             "scatter scatter_add select take take_along_dim").split()
METHODS = {name: method_of(scatter_add) if name == "scatter_add" else globals()[name]
           for name in FUNCTIONS}
TENSOR_ONLY = {
    "masked_fill_": _in_place_method(masked_fill),
    "scatter_": _in_place_method(scatter),
    "scatter_add_": _in_place_method(scatter_add),
}
