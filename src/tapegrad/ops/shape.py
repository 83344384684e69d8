"""Shape ops: views (share storage and version counter with their input), indexing, gather."""
import numpy as np

from .._tensor import Tensor
from ._checks import wrap_dim, wrap_dims
from ._define import defop

# ---- reshaping views -----------------------------------------------------------------------


def _infer_shape(shape, numel):
    """Resolve one -1 entry and check the element count, as torch's view/reshape."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for size in shape:
        if size != -1:
            known *= size
    if -1 in shape and known == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because "
                           "the unspecified dimension size -1 can be any value and is ambiguous")
    if -1 in shape and numel % known == 0:
        return tuple(numel // known if s == -1 else s for s in shape)
    if -1 in shape or known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@defop("ViewBackward0", view=True)
def _view(xp, input: Tensor, shape):
    try:
        return xp.reshape(input, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None


_view.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


@defop("UnsafeViewBackward0")
def _unsafe_view(xp, input: Tensor, shape):
    return input.reshape(shape)


_unsafe_view.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


def view(input, *shape):
    return _view(input, _infer_shape(shape, input.numel()))


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a copy (CloneBackward0 + UnsafeView)."""
    shape = _infer_shape(shape, input.numel())
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        from .pointwise import clone
        return _unsafe_view(clone(input), shape)
    return _view(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, 1)
    start, end = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


@defop("TBackward0", view=True)
def _t(xp, input: Tensor):
    return input.T


_t.derivatives(input=lambda ctx: t(ctx.grad))


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    return _t(input)


@defop("TransposeBackward0", save=("dim0", "dim1"), view=True)
def _transpose(xp, input: Tensor, dim0, dim1):
    return xp.swapaxes(input, dim0, dim1) if input.ndim else input[...]


_transpose.derivatives(input=lambda ctx: _transpose(ctx.grad, ctx.dim0, ctx.dim1))


def transpose(input, dim0, dim1):
    return _transpose(input, wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim))


swapaxes = swapdims = transpose


@defop("PermuteBackward0", save=("dims",), view=True)
def _permute(xp, input: Tensor, dims):
    return xp.transpose(input, dims)


_permute.derivatives(input=lambda ctx: _permute(ctx.grad, tuple(np.argsort(ctx.dims))))


def permute(input, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    if len(dims) != input.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, wrapped)


@defop("UnsqueezeBackward0", save=("dim",), view=True)
def _unsqueeze(xp, input: Tensor, dim):
    return xp.expand_dims(input, dim)


_unsqueeze.derivatives(input=lambda ctx: _squeeze_dims(ctx.grad, (ctx.dim,)))


def unsqueeze(input, dim):
    return _unsqueeze(input, wrap_dim(dim, input.ndim + 1))


@defop("SqueezeBackward0", view=True)
def _squeeze_all(xp, input: Tensor):
    return xp.squeeze(input)


_squeeze_all.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


@defop("SqueezeBackward1", view=True)
def _squeeze_dim(xp, input: Tensor, dim):
    return xp.squeeze(input, dim) if input.ndim and input.shape[dim] == 1 else input[...]


_squeeze_dim.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


@defop("SqueezeBackward2", view=True)
def _squeeze_dims(xp, input: Tensor, dims):
    return xp.squeeze(input, tuple(d for d in dims if input.ndim and input.shape[d] == 1))


_squeeze_dims.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


def squeeze(input, dim=None):
    if dim is None:
        return _squeeze_all(input)
    if isinstance(dim, int):
        return _squeeze_dim(input, wrap_dim(dim, input.ndim))
    return _squeeze_dims(input, wrap_dims(dim, input.ndim))


@defop("ExpandBackward0", view=True)
def _expand(xp, input: Tensor, size):
    return xp.broadcast_to(input, size)


_expand.derivatives(input=lambda ctx: reduction.sum_to_size(ctx.grad, ctx.input_shape))


def expand(input, *size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    lead = len(size) - input.ndim
    if lead < 0:
        raise RuntimeError(f"expand(torch.{input.dtype.legacy_name}Tensor{{{list(input.shape)}}}, "
                           f"size={list(size)}): the number of sizes provided ({len(size)}) "
                           "must be greater or equal to the number of dimensions in the tensor "
                           f"({input.ndim})")
    for i, new in enumerate(size[:lead]):
        if new == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    shape = list(size)
    for i, old in enumerate(input.shape):
        new = size[lead + i]
        if new == -1:
            shape[lead + i] = old
        elif old != 1 and new != old:
            raise RuntimeError(f"The expanded size of the tensor ({new}) must match the existing "
                               f"size ({old}) at non-singleton dimension {lead + i}.  Target "
                               f"sizes: {list(size)}.  Tensor sizes: {list(input.shape)}")
    return _expand(input, tuple(shape))


def expand_as(input, other):
    return expand(input, other.shape)


# ---- indexing ------------------------------------------------------------------------------

@defop("SelectBackward0", save=("dim", "index"), view=True)
def _select(xp, input: Tensor, dim, index):
    return input[(slice(None),) * dim + (index, Ellipsis)]  # Ellipsis: a 0-d view, not a copy


_select.derivatives(input=lambda ctx: _index_put(
    zeros_of(ctx.grad, ctx.input_shape),
    (slice(None),) * ctx.dim + (ctx.index,), ctx.grad))


@defop("SliceBackward0", save=("dim", "start", "end", "step"), view=True)
def _slice(xp, input: Tensor, dim, start, end, step):
    return input[(slice(None),) * dim + (slice(start, end, step),)]


_slice.derivatives(input=lambda ctx: _index_put(
    zeros_of(ctx.grad, ctx.input_shape),
    (slice(None),) * ctx.dim + (slice(ctx.start, ctx.end, ctx.step),), ctx.grad))


@defop("AliasBackward0", view=True)
def _alias(xp, input: Tensor):
    return input[...]


_alias.derivatives(input=lambda ctx: ctx.grad)


@defop("IndexBackward0", save=("key",))
def _index(xp, input: Tensor, key):
    return input[key]


_index.derivatives(input=lambda ctx: _index_put(
    zeros_of(ctx.grad, ctx.input_shape), ctx.key, ctx.grad, accumulate=True))


@defop("IndexPutBackward0", save=("key", "accumulate"))
def _index_put(xp, input: Tensor, key, values: Tensor, accumulate=False):
    result = input.copy()
    values = xp.asarray(values, dtype=input.dtype)
    if accumulate:
        xp.add.at(result, key, values)
    else:
        result[key] = values
    return result


_index_put.derivatives(
    input=lambda ctx: ctx.grad if ctx.accumulate else _index_put(ctx.grad, ctx.key, 0.0),
    values=lambda ctx: _index(ctx.grad, ctx.key))


def zeros_of(like, shape=None):
    """A zero tensor with like's dtype (and shape, unless given): a gradient that is 0."""
    return Tensor._make(np.zeros(like.shape if shape is None else shape, like.dtype.numpy))


def _is_basic(item):
    return (item is None or item is Ellipsis
            or (isinstance(item, (int, slice, np.integer)) and not isinstance(item, bool)))


def _as_key_item(item):
    """Tensors in an index become arrays; 0-d integer tensors act as ints, as in torch."""
    if isinstance(item, Tensor):
        if item.ndim == 0 and not item.dtype.is_floating_point and item.dtype.name != "bool":
            return int(item.item())
        if item.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return item._data
    if isinstance(item, (list, tuple)):
        return np.asarray([_as_key_item(i) for i in item])
    if isinstance(item, bool):  # x[True] is x[None] with a mask of one True
        return np.asarray(item)
    return item


def _consumed_dims(item):
    """How many dims of the indexed tensor one key item uses."""
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, np.ndarray) and item.dtype == bool:
        return item.ndim
    return 1


def getitem(input, key):
    """input[key] as torch applies it: ints, slices and None become select/slice/unsqueeze
    views first (a full slice is skipped unless it is the whole key), then any integer arrays
    and masks index the result in one IndexBackward0 copy."""
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
            result, applied = _unsqueeze(result, dim), True
            advanced.append(slice(None))
            dim += 1
        elif isinstance(item, slice):
            if item != slice(None) or whole_slice:
                result, applied = _slice_dim(result, dim, item), True
            advanced.append(slice(None))
            dim, source_dim = dim + 1, source_dim + 1
        elif isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype == bool:
            # x[True] adds a dim (like None) and keeps it: a one-element mask over it
            result, applied = _unsqueeze(result, dim), True
            advanced.append(item.reshape(1))
            dim += 1
        elif isinstance(item, np.ndarray):
            _check_index_array(item, input.shape, source_dim)
            advanced.append(item)
            width = _consumed_dims(item)
            dim, source_dim = dim + width, source_dim + width
        else:
            result, applied = _select_dim(result, dim, int(item), source_dim), True
            source_dim += 1
    if any(isinstance(item, np.ndarray) for item in advanced):
        return _index(result, tuple(advanced))
    return result if applied else _alias(input)


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
    outside = (item < -size) | (item >= size)
    if outside.any():
        raise IndexError(f"index {item[outside].flat[0]} is out of bounds for dimension {dim} "
                         f"with size {size}")


def _select_dim(input, dim, index, source_dim):
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {source_dim} with size "
                         f"{size}")
    return _select(input, dim, index % size)


def _slice_dim(input, dim, item):
    if item.step == 0:
        raise ValueError("slice step cannot be zero")
    if item.step is not None and item.step < 0:
        raise ValueError("step must be greater than zero")
    start, end, step = item.indices(input.shape[dim])
    return _slice(input, dim, start, end, step)


# ---- gather and scatter along a dim --------------------------------------------------------

def _along(index, dim):
    """An index tuple selecting index[i...] along dim and position i... elsewhere."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _at_least_1d(array):
    return array.reshape(array.shape or (1,))  # torch treats a 0-d gather/scatter as 1-d


@defop("GatherBackward0", save=("dim", "index"))
def _gather(xp, input: Tensor, dim, index):
    return _at_least_1d(input)[_along(_at_least_1d(index), dim)].reshape(index.shape)


_gather.derivatives(input=lambda ctx: scatter_add_into_zeros(ctx.grad, ctx.input_shape,
                                                             ctx.dim, ctx.index))


def gather(input, dim, index, *, sparse_grad=False):
    dim = wrap_dim(dim, input.ndim)
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


@defop("ScatterAddBackward0", save=("dim", "index"))
def _scatter_add_zeros(xp, src: Tensor, shape, dim, index):
    result = xp.zeros(shape or (1,), dtype=src.dtype)
    xp.add.at(result, _along(_at_least_1d(index), dim), _at_least_1d(src))
    return result.reshape(shape)


_scatter_add_zeros.derivatives(src=lambda ctx: _gather(ctx.grad, ctx.dim, ctx.index))


def scatter_add_into_zeros(src, shape, dim, index):
    """zeros(shape).scatter_add(dim, index, src), with index an int array."""
    return _scatter_add_zeros(src, shape, dim, index)


from . import reduction  # noqa: E402  (reduction builds on this module: import it last)


FUNCTIONS = ("flatten gather permute reshape squeeze swapaxes swapdims t transpose "
             "unsqueeze").split()
METHODS = FUNCTIONS + "expand expand_as view".split()
TENSOR_ONLY = {
    "T": property(lambda self: permute(self, tuple(reversed(range(self.ndim))))),
    "mT": property(lambda self: transpose(self, -2, -1)),
}
