"""Views by explicit geometry: as_strided (sizes, element strides and a storage offset, on the
storage the input shares with its base), unfold (sliding windows) and view(dtype) (the same
bytes read as another dtype); their copy and scatter twins, and as_strided_.

A tensor's storage is the memory of the ndarray that owns its data (numpy's chain of `.base`),
so `storage_offset()` and the strides count elements from the start of that memory, as torch's
do from the start of its storage. A device array built over a memory pointer (CuPy's only way
to a view of any geometry) has no base: tapegrad remembers the owner of those it builds.
"""
import weakref

import numpy as np

from .. import _backend
from .._tensor import Tensor
from ._checks import wrap_dim
from ._define import defop
from .indexing import _index, _index_put
from .shape import constant_beside, in_place_twin, reshape, reshape_in_place, zeros_of

# ---- storage: the memory an array's owner spans ---------------------------------------------

def _owner(array):
    """The array owning array's memory (numpy's stride tricks put a holder in between; a
    device array's views keep their base as NumPy's do, up to one built over a memory
    pointer, whose owner _DEVICE_OWNERS keeps)."""
    kind = np.ndarray if isinstance(array, np.ndarray) else type(array)
    while True:
        base = array.base
        if isinstance(base, kind):
            array = base
        elif isinstance(getattr(base, "base", None), kind):
            array = base.base
        elif kind is np.ndarray or id(array) not in _DEVICE_OWNERS:
            return array
        else:
            array = _DEVICE_OWNERS[id(array)][1]


# id(device array built over a memory pointer) -> (a weak reference that drops the entry
# when the array goes, the array owning its memory)
_DEVICE_OWNERS = {}


def _device_view(xp, array, size, dtype, byte_strides, byte_offset, owner):
    """CuPy's only way to a view of any geometry: an array over array's memory pointer. It
    has no base, so tapegrad remembers its owner (storage_offset() and the storage of the view
    and of its views depend on it)."""
    result = xp.ndarray(size, dtype, memptr=array.data + byte_offset, strides=byte_strides)
    key = id(result)
    _DEVICE_OWNERS[key] = (weakref.ref(result, lambda _: _DEVICE_OWNERS.pop(key, None)), owner)
    return result


def _address(array):
    if type(array) is np.ndarray:
        return array.__array_interface__["data"][0]
    return array.data.ptr  # a device's pointer (CuPy's array interface gives 0 when empty)


def _lowest_address(array):
    return _address(array) + sum((n - 1) * s for n, s in zip(array.shape, array.strides)
                                 if s < 0 and n)


def _storage_nbytes(owner):
    return owner.nbytes


def offset_in_storage(input):
    """Where the tensor starts in its storage, in elements (Tensor.storage_offset())."""
    return _array_offset(input._data)


def storage_of(input):
    """input's whole storage as a 1-D array of its dtype (sharing the memory)."""
    itemsize = input._data.itemsize
    count = _storage_nbytes(_owner(input._data)) // itemsize
    return strided_array(_backend.array_module(input._data), input._data, (count,),
                         (itemsize,), -offset_in_storage(input) * itemsize)


def strided_array(xp, array, size, byte_strides, byte_offset, dtype=None):
    """A view of array's storage: `byte_offset` bytes from array's first element (possibly
    before it), with the given shape and byte strides, read as dtype."""
    dtype = array.dtype if dtype is None else dtype
    if 0 in size:
        return xp.empty(size, dtype)  # torch allows any offset for an empty view
    owner = _owner(array)
    if xp is not np:  # no read-only arrays there: tapegrad's own checks refuse shared writes
        return _device_view(xp, array, size, dtype, byte_strides, byte_offset, owner)
    start = _address(array) - _lowest_address(owner) + byte_offset
    result = np.ndarray(size, dtype, buffer=owner, offset=start, strides=byte_strides)
    if any(n > 1 and s == 0 for n, s in zip(size, byte_strides)):
        result.flags.writeable = False  # elements that share memory: torch refuses writes
    return result


def _element_strides(array):
    return tuple(s // array.itemsize for s in array.strides)


# ---- where elements lie: regenerated views, CopySlices, overlapping writes -------------------

def _array_offset(array):
    return (_address(array) - _lowest_address(_owner(array))) // array.itemsize


def element_positions(array):
    """Each element's position in array's storage, in elements, in array's shape."""
    return _storage_indices(array.shape, _element_strides(array), _array_offset(array))


def positions_in(view, base):
    """For each element of view, the flat (C order) index of the element of base sharing its
    memory: torch relates a view to its base by storage geometry, so a base that changed its
    shape in place (t_, transpose_, as_strided_) still finds its old views."""
    if base.flags.c_contiguous:
        return element_positions(view) - _array_offset(base)
    lookup = np.zeros(_storage_nbytes(_owner(base)) // base.itemsize, np.int64)
    lookup[element_positions(base).reshape(-1)] = np.arange(base.size)
    return lookup[element_positions(view)]


def is_non_overlapping_and_dense(array):
    """torch's test: the elements fill a block of memory, each once (any order of dims)."""
    dims = sorted((s, n) for n, s in zip(array.shape, _element_strides(array)) if n > 1)
    expected = 1
    for stride, n in dims:
        if stride != expected:
            return False
        expected *= n
    return True


def shared_positions(array):
    """The elements' storage positions when two of them share memory (expand, unfold with step
    < size, as_strided), else None."""
    if array.size <= 1 or array.flags.c_contiguous or is_non_overlapping_and_dense(array):
        return None
    reach = 0  # beyond the memory the inner dims span, an outer step cannot land on it
    for stride, n in sorted((abs(s), n) for n, s in zip(array.shape, array.strides) if n > 1):
        if stride <= reach:
            positions = element_positions(array)
            return positions if np.unique(positions).size < positions.size else None
        reach += stride * (n - 1)
    return None


def iteration_order(shape, operand_strides):
    """The C-order indices of a shape's elements in the order torch's TensorIterator visits
    them: its dims sorted by the operands' strides (output first), the smallest innermost,
    ties to the smaller size, broadcast (0) strides skipped. Where elements share memory,
    this order decides which write lands last."""
    order = list(range(len(shape)))[::-1]  # order[0] is the fastest dim

    def should_swap(dim0, dim1):
        for strides in operand_strides:
            first, second = strides[dim0], strides[dim1]
            if first == 0 or second == 0:
                continue
            if first != second:
                return 1 if first > second else -1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0
    for i in range(1, len(shape)):  # torch's insertion sort, ambiguous comparisons kept
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(order[dim0], order[dim1])
            if comparison > 0:
                order[dim0], order[dim1] = order[dim1], order[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    count = int(np.prod(shape))
    return np.arange(count).reshape(shape).transpose(order[::-1]).reshape(-1)


def like_layout(values, array):
    """values (zeros when None) laid out as array: its strides and offset, in a new storage
    of the same size (torch keeps a tangent so); values itself when already so laid out."""
    owner = _owner(array)
    if values is not None and values.strides == array.strides and values.flags.writeable and (
            _array_offset(values) == _array_offset(array)
            and _owner(values).nbytes == owner.nbytes):
        return values
    if shared_positions(array) is not None:  # elements sharing memory: a plain copy
        return np.zeros(array.shape, array.dtype) if values is None else values.copy()
    storage = np.zeros(owner.nbytes // array.itemsize, array.dtype)
    result = strided_array(np, storage, array.shape, array.strides,
                           _array_offset(array) * array.itemsize)
    if values is not None:
        result[...] = values
    return result


def same_geometry(array, storage_like):
    """array's sizes, strides and offset over the storage of storage_like (an array laid out
    as array's base: like_layout)."""
    offset = _array_offset(array) - _array_offset(storage_like)
    return strided_array(np, storage_like, array.shape, array.strides, offset * array.itemsize)


def may_share_elements(array):
    """Whether two of array's elements may share memory, so that a write needs torch's overlap
    checks: NumPy's read-only flag marks such arrays (expand's, unfold's, as_strided's), and
    CuPy's arrays have no such flag, so a device array's geometry tells."""
    if type(array) is np.ndarray:
        return not array.flags.writeable
    return shared_positions(array) is not None


def writable(array):
    """array, or the same elements over its storage made writable (expand's and unfold's
    arrays are read-only, as NumPy makes them; torch writes through them where it allows).
    A device array is always writable."""
    if type(array) is not np.ndarray or array.flags.writeable:
        return array
    if not array.size:
        return np.empty(array.shape, array.dtype)  # nothing to write
    result = same_geometry(array, _owner(array))
    result.flags.writeable = True  # where elements share memory, the last write wins
    return result


def storage_bytes(array):
    """(first byte, end byte) of the memory array's elements span, and its storage owner."""
    low = _lowest_address(array)
    high = low + sum((n - 1) * abs(s) for n, s in zip(array.shape, array.strides)) + array.itemsize
    return low, high, _owner(array)


# ---- as_strided ------------------------------------------------------------------------------

@defop("AsStridedBackward0", save=("size", "stride", "storage_offset", "geometry"), view=True)
def _as_strided(xp, input: Tensor, size, stride, storage_offset, geometry):
    # geometry: the input's (sizes, strides, storage offset) when the view was taken. Offsets
    # count from the input, so a view replayed on a copy of the base lands where it should.
    itemsize = input.itemsize
    return strided_array(xp, input, size, tuple(s * itemsize for s in stride),
                         (storage_offset - geometry[2]) * itemsize)


def _storage_indices(size, stride, offset):
    """For each element of a strided view, its position in the storage."""
    index = np.full(size, offset, np.int64)
    for dim, (n, s) in enumerate(zip(size, stride)):
        index += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(size) - dim - 1))
    return index


def strided_backward(grad, input_geometry, output_geometry):
    """The gradient of a strided view (torch's as_strided_backward): grad added into a zero
    storage at the output's positions, read back at the input's; a storage element that
    several input elements share gives each of them an equal part."""
    inputs, outputs = _storage_indices(*input_geometry), _storage_indices(*output_geometry)
    if not inputs.size or not outputs.size:
        return zeros_of(grad, input_geometry[0])
    length = int(max(inputs.max(), outputs.max())) + 1
    storage = _index_put(zeros_of(grad, (length,)), (outputs.reshape(-1),), reshape(grad, -1),
                         accumulate=True)
    result = _index(storage, (inputs,))
    counts = np.bincount(inputs.reshape(-1), minlength=length)[inputs]
    if (counts > 1).any():
        result = result / constant_beside(grad, counts.astype(grad.dtype.numpy))
    return result


def _as_strided_backward(ctx):
    return strided_backward(ctx.grad, ctx.geometry, (ctx.size, ctx.stride, ctx.storage_offset))


_as_strided.derivatives(input=_as_strided_backward)


@defop("AsStridedBackward0_copy", save=("size", "stride", "storage_offset", "geometry"))
def _as_strided_copy(xp, input: Tensor, size, stride, storage_offset, geometry):
    return _as_strided.forward(xp, input, size, stride, storage_offset, geometry).copy()


_as_strided_copy.derivatives(input=_as_strided_backward)


def _ints(name, argument, position, values):
    """A size or stride argument as a tuple of ints, with torch's parser errors."""
    if isinstance(values, int):
        return (values,)
    for i, value in enumerate(values):
        if not isinstance(value, int) and not (isinstance(value, Tensor) and value.ndim == 0):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"tuple of ints, but found element of type {type(value).__name__} "
                            f"at pos {i}")
    return tuple(int(value) for value in values)


def _geometry(name, input, size, stride, storage_offset):
    """The checked (size, stride, storage offset) of a strided view of input's storage."""
    size, stride = _ints(name, "size", 1, size), _ints(name, "stride", 2, stride)
    offset = offset_in_storage(input) if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = input.dtype.itemsize
    needed = 0 if 0 in size else (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1)
    available = _storage_nbytes(_owner(input._data))
    if needed * itemsize > available:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {needed * itemsize} are out of bounds for storage of size "
                           f"{available}")
    return size, stride, offset


def _own_geometry(input):
    return (input.shape, _element_strides(input._data), offset_in_storage(input))


def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with the given sizes, strides and storage offset."""
    geometry = _geometry("as_strided", input, size, stride, storage_offset)
    return _as_strided(input, *geometry, _own_geometry(input))


def as_strided_copy(input, size, stride, storage_offset=None):
    geometry = _geometry("as_strided_copy", input, size, stride, storage_offset)
    return _as_strided_copy(input, *geometry, _own_geometry(input))


_AS_STRIDED_IN_PLACE = in_place_twin("AsStridedBackward1", _as_strided)


def as_strided_(input, size, stride, storage_offset=None):
    """input itself becomes the strided view of its storage."""
    geometry = _geometry("as_strided_", input, size, stride, storage_offset)
    return reshape_in_place(_AS_STRIDED_IN_PLACE, input, *geometry, _own_geometry(input))


@defop("AsStridedScatterBackward0", save=("size", "stride", "storage_offset"))
def _as_strided_scatter(xp, input: Tensor, src: Tensor, size, stride, storage_offset, geometry):
    """A copy of input's whole storage (torch's clone_preserve_strides), src written into its
    (size, stride, storage_offset) view (None: input's offset), seen as input is."""
    itemsize, (shape, strides, offset) = input.itemsize, geometry
    count = _storage_nbytes(_owner(input)) // itemsize
    storage = strided_array(xp, input, (count,), (itemsize,), -offset * itemsize).copy()
    start = offset if storage_offset is None else storage_offset
    view = strided_array(xp, storage, size, tuple(s * itemsize for s in stride),
                         start * itemsize)
    if view.size:
        if xp is np:
            view.flags.writeable = True  # where elements share memory, the last write wins
        view[...] = src
    return strided_array(xp, storage, shape, tuple(s * itemsize for s in strides),
                         offset * itemsize)


def gather_strided(tensor, size, stride, storage_offset):
    """The elements a strided view of a contiguous copy of tensor would see (a copy)."""
    return _index(reshape(tensor, -1), (_storage_indices(size, stride, storage_offset),))


def _slice_of_grad(ctx):
    # torch reads the slice from a contiguous copy of the gradient, at the offset as given
    # (None: that copy's own offset, 0)
    offset = 0 if ctx.storage_offset is None else ctx.storage_offset
    return gather_strided(ctx.grad, ctx.size, ctx.stride, offset)


def _as_strided_scatter_backward(ctx):
    # The input's gradient is grad outside the overwritten slice. (torch 2.13 gives it the
    # slice's gradient instead; its own gradcheck of as_strided_scatter is an expected failure.
    # We keep the derivative that gradcheck confirms.)
    grad = ctx.grad
    geometry = (grad.shape, contiguous_strides(grad.shape), 0)
    return _as_strided_scatter(grad, 0.0, ctx.size, ctx.stride, ctx.storage_offset, geometry)


_as_strided_scatter.derivatives(input=_as_strided_scatter_backward, src=_slice_of_grad)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with src written into the given strided view of (a copy of) its storage."""
    size, stride, _ = _geometry("as_strided_scatter", input, size, stride, storage_offset)
    if src.shape != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    return _as_strided_scatter(input, src, size, stride, storage_offset, _own_geometry(input))


# ---- unfold: sliding windows along a dim -----------------------------------------------------

def _unfolded(size, stride, dim, window, step):
    """The geometry of unfold's windows on a (size, stride) layout."""
    if not size:
        return (window,), (1,)
    count = (size[dim] - window) // step + 1
    return (size[:dim] + (count,) + size[dim + 1:] + (window,),
            stride[:dim] + (stride[dim] * step,) + stride[dim + 1:] + (stride[dim],))


@defop("UnfoldBackward0", save=("dimension", "size", "step"), view=True)
def _unfold_view(xp, input: Tensor, dimension, size, step):
    if not input.ndim:  # one window of at most one element
        shape, strides = (size,), (input.itemsize,)
    else:
        shape, strides = _unfolded(input.shape, input.strides, dimension, size, step)
    if xp is not np:  # CuPy's as_strided would forget the storage
        return strided_array(xp, input, shape, strides, 0)
    return np.lib.stride_tricks.as_strided(input, shape, strides)


def contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _unfold_backward(ctx):
    shape = tuple(ctx.input_shape)
    strides = contiguous_strides(shape)
    windows = _unfolded(shape, strides, ctx.dimension, ctx.size, ctx.step)
    return strided_backward(ctx.grad, (shape, strides, 0), (*windows, 0))


_unfold_view.derivatives(input=_unfold_backward)


@defop("UnfoldBackward0_copy", save=("dimension", "size", "step"))
def _unfold_copy(xp, input: Tensor, dimension, size, step):
    return _unfold_view.forward(xp, input, dimension, size, step).copy()


_unfold_copy.derivatives(input=_unfold_backward)


def _unfold_arguments(input, dimension, size, step):
    dim = wrap_dim(dimension, input.ndim)
    length = input.shape[dim] if input.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return dim, size, step


def unfold(input, dimension, size, step):
    """Windows of `size` elements, `step` apart, along dimension (a new last dim; a view)."""
    return _unfold_view(input, *_unfold_arguments(input, dimension, size, step))


def unfold_copy(input, dimension, size, step):
    return _unfold_copy(input, *_unfold_arguments(input, dimension, size, step))


# ---- view(dtype): the same bytes as another dtype --------------------------------------------

@defop(None, view=True, name="view_dtype")
def _view_dtype(xp, input: Tensor, size, byte_strides, dtype):
    return strided_array(xp, input, size, byte_strides, 0, dtype)


def view_dtype(input, dtype):
    """input's bytes read as dtype; the last dim shrinks or grows by the ratio of the sizes."""
    old, new = input.dtype.itemsize, dtype.itemsize
    size, strides = list(input.shape), list(_element_strides(input._data))
    if old != new:
        _check_dtype_view(input, dtype, strides)
        if new > old:
            size[-1] //= new // old
            strides = [s // (new // old) for s in strides[:-1]] + [1]
        else:
            size[-1] *= old // new
            strides = [s * (old // new) for s in strides[:-1]] + [1]
    result = _view_dtype(input, tuple(size), tuple(s * new for s in strides), dtype.numpy)
    # torch: reinterpreting bytes is not differentiable, and not a view to autograd (no
    # _base, no node regenerated after in-place writes); only the version is shared
    result._requires_grad = False
    result._base = result._view_fn = None
    return result


def _check_dtype_view(input, dtype, strides):
    what = f"to view {input.dtype.legacy_name} as {dtype.legacy_name} (different element sizes)"
    if input.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    ratio = dtype.itemsize // input.dtype.itemsize
    if ratio > 1:
        if input.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                               f"{input.shape[-1]}")
        offset = offset_in_storage(input)
        if offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but "
                               f"got {offset}")
        for dim, stride in enumerate(strides[:-1]):
            if stride % ratio:
                raise RuntimeError(f"self.stride({dim}) must be divisible by {ratio} {what}, "
                                   f"but got {stride}")


FUNCTIONS = "as_strided as_strided_ as_strided_copy as_strided_scatter unfold_copy".split()
METHODS = "as_strided as_strided_ as_strided_scatter unfold".split()
TENSOR_ONLY = {"storage_offset": offset_in_storage}
