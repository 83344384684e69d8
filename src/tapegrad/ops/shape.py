"""Shape ops that are views (they share storage and version counter with their input):
reshaping, transposes (t, mT, mH, H, adjoint), in-place metadata views (t_, transpose_,
squeeze_, unsqueeze_), resize_, and the select/slice/alias views that indexing builds on."""

import numpy as np

from .. import _backend, _dtype, _layout
from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from ._checks import int_list, numel, type_name, wrap_dim, wrap_dims
from ._define import defop, is_array
from .._warnings import warn

# ---- reshaping views -----------------------------------------------------------------------

def varargs(sizes):
    """Sizes given one by one or as one sequence: x.view(2, 3) and x.view((2, 3)) alike."""
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes


def infer_shape(shape, numel, name="view", arg="size"):
    """Resolve one -1 entry and check the element count, as torch's view/reshape."""
    shape = int_list(shape, name, arg)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, size in enumerate(shape):
        if size < -1:
            raise RuntimeError(f"invalid shape dimension {size} at index {i} of shape "
                               f"{list(shape)}")
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


VIEW_INCOMPATIBLE = ("view size is not compatible with input tensor's size and stride (at least "
                     "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                     "instead.")


@defop("ViewBackward0", view=True)
def _view(xp, input: Tensor, shape):
    result = input.reshape(shape)  # the method: NumPy's np.reshape wrapper costs 0.5 us
    if result.size and not xp.may_share_memory(result, input):  # NumPy copied: no view
        raise RuntimeError(VIEW_INCOMPATIBLE)
    return result


_view.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


@defop("UnsafeViewBackward0")
def unsafe_view(xp, input: Tensor, shape):
    return input.reshape(shape)


unsafe_view.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


def view(input, *shape, size=None, dtype=None):
    """A view with another shape, or (view(dtype)) the same bytes read as another dtype."""
    if (not shape or size is not None or dtype is not None or isinstance(shape[0], _dtype.dtype)):
        return _view_by_keyword_or_dtype(input, shape + tuple(
            value for value in (size, dtype) if value is not None))
    try:
        shape = infer_shape(shape, input.numel())
    except TypeError as error:
        _check_view_overloads(shape, error)
        raise
    return _view(input, shape)


def _check_view_overloads(shape, error):
    """torch's text when view's first argument fits neither view(dtype) nor view(size)."""
    first = shape[0]
    if "failed to unpack" in str(error):
        return
    head = "view() received an invalid combination of arguments - got ("
    if len(shape) > 1:
        raise TypeError(head + ", ".join(map(type_name, shape)) + "), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n") from None
    if isinstance(first, (tuple, list)):
        kinds = ", ".join(map(type_name, first)) + ("," if len(first) == 1 else "")
        got = f"{type_name(first)} of " + (f"({kinds})" if isinstance(first, tuple)
                                           else f"[{kinds.rstrip(',')}]")
    else:
        got = type_name(first)
    reason = f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
    raise TypeError(f"{head}{type_name(first)}), but expected one of:\n * (torch.dtype dtype)\n"
                    f"{reason} * (tuple of ints size)\n{reason}") from None


def _view_by_keyword_or_dtype(input, given):
    if len(given) == 1 and isinstance(given[0], _dtype.dtype):
        return strided.view_dtype(input, given[0])
    if not given or any(isinstance(value, (_dtype.dtype, float)) for value in given):
        kinds = ", ".join("torch.dtype" if isinstance(value, _dtype.dtype)
                          else type(value).__name__ for value in given)
        raise TypeError(f"view() received an invalid combination of arguments - got ({kinds}), "
                        "but expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")
    return _view(input, infer_shape(given, input.numel()))


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a copy (CloneBackward0 + UnsafeView)."""
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    if is_array(input):  # a formula's value running on arrays: NumPy's reshape is torch's
        return input.reshape(*shape)  # (a view where it can be, else a copy)
    shape = infer_shape(shape, input.numel(), "reshape", "shape")
    try:
        if not _backend.on_device(input._data):
            np.reshape(input._data, shape, copy=False)
        else:  # CuPy's reshape has no copy=; setting a view's shape fails as it would copy
            input._data.view().shape = shape
    except (ValueError, AttributeError):
        from .pointwise import clone
        return unsafe_view(clone(input, memory_format=_layout.contiguous_format), shape)
    return (_view if input._data.flags.c_contiguous else _reshape_alias)(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    start, end = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if input.ndim == 0:
        return reshape(input, 1)
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


def check_t(name, input):
    if input.ndim > 2:
        raise RuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")


def t(input):
    check_t("t", input)
    return _t(input)


@defop("TransposeBackward0", save=("dim0", "dim1"), view=True)
def _transpose(xp, input: Tensor, dim0, dim1):
    return input.swapaxes(dim0, dim1) if input.ndim else input[...]


_transpose.derivatives(input=lambda ctx: _transpose(ctx.grad, ctx.dim0, ctx.dim1))


def transpose(input, dim0, dim1):
    return _transpose(input, wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim))


_ZERO_D_HINTS = {"mT": "This function is the identity in these cases.",
                 "mH": "Consider using x.conj().", "adjoint()": "Consider using x.conj()."}


def _matrix_transpose(name, input):
    """mT, mH and adjoint(): the last two dims swapped (torch's warnings and errors)."""
    if input.ndim == 0:
        owner = "" if name == "adjoint()" else "Tensor."
        warn(f"{owner}{name} is deprecated on 0-D tensors. {_ZERO_D_HINTS[name]}",
             UserWarning)
        return input  # torch returns the tensor itself
    if input.ndim == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           "matrices. Got 1-D tensor.")
    swapped = _transpose(input, input.ndim - 2, input.ndim - 1)
    return swapped if name == "mT" else _conjugated(swapped)


def _conjugated(input):
    """mH, adjoint() and H conjugate complex tensors (the identity on real ones)."""
    from .complex_parts import conj_of  # it builds on this module
    return conj_of(input)


def adjoint(input):
    return _matrix_transpose("adjoint()", input)


_WARNED_ONCE = set()  # the deprecations torch warns about once per process


def _warn_once(message):
    if message not in _WARNED_ONCE:
        _WARNED_ONCE.add(message)
        warn(message, UserWarning)


def _reversed_dims(input):
    """Tensor.T: the dims in reverse order (torch deprecates it for other than matrices)."""
    if input.ndim == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
    elif input.ndim != 2:
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                   "is deprecated and it will throw an error in a future release. Consider "
                   "`x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim "
                   "- 1, -1, -1))` to reverse the dimensions of a tensor.")
    return _permute(input, tuple(reversed(range(input.ndim))))


def _hermitian_transpose(input):
    """Tensor.H: the conjugate transpose of a matrix."""
    if input.ndim == 0:
        warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
             UserWarning)
        return input
    if input.ndim != 2:
        hint = ". For batches of matrices, consider using tensor.mH" if input.ndim > 2 else "."
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{input.ndim}-D tensor{hint}")
    return _conjugated(_transpose(input, 0, 1))


swapaxes = swapdims = transpose


@defop("PermuteBackward0", save=("dims",), view=True)
def _permute(xp, input: Tensor, dims):
    return input.transpose(dims)


_permute.derivatives(input=lambda ctx: _permute(ctx.grad, tuple(np.argsort(ctx.dims))))


def permute(input, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return _permute(input, permutation(input, int_list(dims, "permute", "dims")))


def permutation(input, dims):
    """dims, checked as an ordering of input's dims, each wrapped."""
    if len(dims) != input.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return wrapped


@defop("UnsqueezeBackward0", save=("dim",), view=True)
def unsqueeze_view(xp, input: Tensor, dim):
    return input[(slice(None),) * dim + (None,)]  # np.expand_dims costs 1.5 us


unsqueeze_view.derivatives(input=lambda ctx: _squeeze_dim(ctx.grad, ctx.dim))


def unsqueeze(input, dim):
    return unsqueeze_view(input, wrap_dim(dim, input.ndim + 1))


@defop("SqueezeBackward0", view=True)
def _squeeze_all(xp, input: Tensor):
    return input.squeeze()


def _unsqueeze_to(grad, shape, dims):
    """The squeezed dims (those of dims of size 1) back, one unsqueeze each in increasing
    order: torch's unsqueeze_to."""
    for dim in sorted(d for d in dims if d < len(shape) and shape[d] == 1):
        grad = unsqueeze_view(grad, dim)
    return grad


_squeeze_all.derivatives(input=lambda ctx: _unsqueeze_to(ctx.grad, ctx.input_shape,
                                                         range(len(ctx.input_shape))))


@defop("SqueezeBackward1", save=("dim",), view=True)
def _squeeze_dim(xp, input: Tensor, dim):
    return input.squeeze(dim) if input.ndim and input.shape[dim] == 1 else input[...]


_squeeze_dim.derivatives(input=lambda ctx: _unsqueeze_to(ctx.grad, ctx.input_shape,
                                                         (ctx.dim,)))


@defop("SqueezeBackward2", save=("dims",), view=True)
def _squeeze_dims(xp, input: Tensor, dims):
    return input.squeeze(tuple(d for d in dims if input.ndim and input.shape[d] == 1))


_squeeze_dims.derivatives(input=lambda ctx: _unsqueeze_to(ctx.grad, ctx.input_shape,
                                                          ctx.dims))


def squeezing(input, dim):
    """The squeeze op for dim (None, one dim or several) and its arguments."""
    if dim is None:
        return _squeeze_all, ()
    if isinstance(dim, int):
        return _squeeze_dim, (wrap_dim(dim, input.ndim),)
    return _squeeze_dims, (wrap_dims(dim, input.ndim),)


def squeeze(input, dim=None):
    op, args = squeezing(input, dim)
    return op(input, *args)


# ---- in-place reshaping: x.unsqueeze_(0), x.squeeze_() --------------------------------------

def redeclare(op, node_name, name, view=True, forward=None):
    """op declared again, under another node name (its in-place or copying variant), with the
    same derivatives; `forward` replaces its forward (same parameters)."""
    twin = defop(node_name, save=tuple(plan[0] for plan in op.save_plan), view=view,
                 name=name)(forward or op.forward)
    twin.derivatives(**dict(zip(op.input_names, op.formulas)))
    return twin


def in_place_twin(node_name, op):
    """op declared again under the node name torch gives its in-place variant."""
    return redeclare(op, node_name, op.__name__ + "_")


# reshape of a tensor that is not contiguous where a view can express it: torch's node then
_reshape_alias = redeclare(_view, "ReshapeAliasBackward0", "_reshape_alias")


_IN_PLACE_TWINS = {
    unsqueeze_view: in_place_twin("UnsqueezeBackward1", unsqueeze_view),
    _squeeze_all: in_place_twin("SqueezeBackward3", _squeeze_all),
    _squeeze_dim: in_place_twin("SqueezeBackward4", _squeeze_dim),
    _squeeze_dims: in_place_twin("SqueezeBackward5", _squeeze_dims),
    _t: in_place_twin("TBackward1", _t),
    _transpose: in_place_twin("TransposeBackward1", _transpose),
}


def reshape_in_place(twin, input, *args):
    """input takes the shape of twin's view of it (and, when tracked, its node); the data
    stays, and the version counts a change, as torch's in-place view ops do."""
    from ._inplace import _check_leaf  # _inplace builds on this module
    tracked = grad_mode.is_recording() and input._requires_grad
    if tracked:
        _check_leaf(input)
    result = twin(input, *args)
    input._data = result._data
    if input._base is not None:  # still a view of its base, one step further
        input._view_fn = result._view_fn
    if tracked:
        input.grad_fn, input._output_nr = result.grad_fn, result._output_nr
    forward_ad.copy_tangent(result, input)  # a dual tensor's tangent takes the shape too
    input._bump_version()
    if input._base is not None:  # its new node is up to date (Note [View regeneration])
        input._view_version = input._version
    return input


def unsqueeze_(input, dim):
    return reshape_in_place(_IN_PLACE_TWINS[unsqueeze_view], input, wrap_dim(dim, input.ndim + 1))


def squeeze_(input, dim=None):
    op, args = squeezing(input, dim)
    return reshape_in_place(_IN_PLACE_TWINS[op], input, *args)


def t_(input):
    check_t("t_", input)
    return reshape_in_place(_IN_PLACE_TWINS[_t], input)


def transpose_(input, dim0, dim1):
    dims = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    return reshape_in_place(_IN_PLACE_TWINS[_transpose], input, *dims)


def resize_(input, *sizes, memory_format=None):
    """input becomes contiguous with the given sizes over its storage from where it starts;
    a storage too small for them is replaced by a larger one that begins with the old."""
    sizes = tuple(int(n) for n in varargs(sizes))
    if input._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in sizes):
        raise RuntimeError("numel: integer multiplication overflow")  # torch's words
    if sizes == input._data.shape and memory_format is None:
        return input  # torch restrides only to a new size or a memory format given
    offset = strided.offset_in_storage(input)
    needed = offset + numel(sizes)
    storage = strided.storage_of(input)
    if needed > storage.size:
        larger = _backend.array_module(storage).zeros(needed, input.dtype.numpy)
        larger[:storage.size] = storage
        storage = larger
    if sizes != input._data.shape:  # torch counts a change of shape as a write
        input._bump_version()
    input._data = storage[offset:needed].reshape(sizes)
    return input


def resize_as_(input, the_template, memory_format=None):
    return resize_(input, the_template.shape, memory_format=memory_format)


@defop("ExpandBackward0", view=True)
def _expand(xp, input: Tensor, size):
    result = xp.broadcast_to(input, size)
    strides = _expanded_strides(input, size)
    if strides == result.strides:
        return result
    if xp is not np:  # CuPy's as_strided takes no writeable, and would forget the storage
        return strided.strided_array(xp, input, size, strides, 0)
    return xp.lib.stride_tricks.as_strided(input, size, strides, writeable=False)


def _expanded_strides(array, size):
    """torch's strides (in bytes) of array expanded to size: 0 on a dim that grows (NumPy's
    broadcast_to also zeroes a size-1 dim that stays), the old stride on a kept dim, and a
    new leading dim of size 1 spans what follows it; all 0 for a 0-d array."""
    if not array.ndim:
        return (0,) * len(size)
    lead = len(size) - array.ndim
    strides = [0] * lead + [stride if old == new else 0 for old, new, stride
                            in zip(array.shape, size[lead:], array.strides)]
    for i in reversed(range(lead)):
        if size[i] == 1:
            strides[i] = size[i + 1] * strides[i + 1]
    return tuple(strides)


_expand.derivatives(input=lambda ctx: reduction.sum_to_size(ctx.grad, ctx.input_shape))


def expand(input, *size):
    if is_array(input):  # a formula's value running on arrays
        return np.broadcast_to(input, size[0] if len(size) == 1 else size)
    return _expand(input, expanded_shape(input, int_list(size, "expand", "size")))


def expanded_shape(input, size):
    """The shape input expands to: size, checked, with -1 keeping a dim's size."""
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
    return tuple(shape)


def expand_as(input, other):
    return expand(input, other.shape)


def view_as(input, other):
    return view(input, other.shape)


def reshape_as(input, other):
    return reshape(input, other.shape)


def unflatten(input, dim, sizes):
    if input.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    dim, sizes = wrap_dim(dim, input.ndim), tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size, known = input.shape[dim], numel(s for s in sizes if s != -1)
    if -1 in sizes:
        fits = size % known == 0 if known else size == 0
    else:
        fits = known == size
    if not fits:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({size}) in the input tensor")
    return view(input, input.shape[:dim] + sizes + input.shape[dim + 1:])


def movedim(input, source, destination):
    """Move the source dims to the destination positions; the other dims keep their order."""
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) "
                           f"should contain the same number of dims as destination "
                           f"({destination} dims)")
    wrapped = {}
    for name, dims in (("source", source), ("destination", destination)):
        wrapped[name] = [wrap_dim(d, input.ndim) for d in dims]
        if len(set(wrapped[name])) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    if input.ndim == 0:
        return alias_view(input)
    order = [d for d in range(input.ndim) if d not in wrapped["source"]]
    for target, moved in sorted(zip(wrapped["destination"], wrapped["source"])):
        order.insert(target, moved)
    return _permute(input, tuple(order))


moveaxis = movedim


def ravel(input):
    """The elements as a 1-D tensor: a view of a contiguous input, else of a contiguous copy."""
    return view(input.contiguous(), -1)


def broadcast_to(input, size):
    return expand(input, size)


def at_least_dims(ndim, input):
    if input.ndim >= ndim:
        return input
    if input.ndim == 0:
        return reshape(input, (1,) * ndim)
    if ndim == 3 and input.ndim == 1:  # a vector becomes the middle dim
        input = unsqueeze(input, 0)
    return unsqueeze(input, 0 if ndim == 2 else -1)


def _each_at_least(ndim, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return at_least_dims(ndim, tensors[0])
    return tuple(at_least_dims(ndim, tensor) for tensor in varargs(tensors))


def atleast_1d(*tensors):
    return _each_at_least(1, tensors)


def atleast_2d(*tensors):
    """Tensors with fewer dims get leading (a vector: one leading) dims of size 1."""
    return _each_at_least(2, tensors)


def atleast_3d(*tensors):
    """0-d -> 1x1x1, a vector (n) -> 1xnx1, a matrix (m, n) -> mxnx1."""
    return _each_at_least(3, tensors)


# ---- views of one part: select, slice, alias -----------------------------------------------

@defop("SelectBackward0", save=("dim", "index"), view=True)
def select_view(xp, input: Tensor, dim, index):
    return input[(slice(None),) * dim + (index, Ellipsis)]  # Ellipsis: a 0-d view, not a copy


@defop("SliceBackward0", save=("dim", "start", "end", "step"), view=True)
def slice_view(xp, input: Tensor, dim, start, end, step):
    return input[(slice(None),) * dim + (slice(start, end, step),)]


def _placed(xp, grad_output, input_sizes, key):
    """grad_output written into zeros of input_sizes at key."""
    result = xp.zeros(input_sizes, grad_output.dtype)
    result[key] = grad_output
    return result


# torch's select_backward and slice_backward: the part's gradient in zeros of the whole; the
# derivative of each is the view again
@defop("SelectBackwardBackward0", save=("dim", "index"))
def _select_backward(xp, grad_output: Tensor, input_sizes, dim, index):
    return _placed(xp, grad_output, input_sizes, (slice(None),) * dim + (index,))


@defop("SliceBackwardBackward0", save=("dim", "start", "end", "step"))
def _slice_backward(xp, grad_output: Tensor, input_sizes, dim, start, end, step):
    return _placed(xp, grad_output, input_sizes, (slice(None),) * dim + (slice(start, end, step),))


_select_backward.derivatives(grad_output=lambda ctx: select_view(ctx.grad, ctx.dim, ctx.index))
_slice_backward.derivatives(grad_output=lambda ctx: slice_view(ctx.grad, ctx.dim, ctx.start,
                                                               ctx.end, ctx.step))
select_view.derivatives(input=lambda ctx: _select_backward(ctx.grad, ctx.input_shape, ctx.dim,
                                                           ctx.index))
slice_view.derivatives(input=lambda ctx: _slice_backward(ctx.grad, ctx.input_shape, ctx.dim,
                                                         ctx.start, ctx.end, ctx.step))


@defop("AliasBackward0", view=True)
def alias_view(xp, input: Tensor):
    return input[...]


alias_view.derivatives(input=lambda ctx: ctx.grad)


def constant_beside(like, array):
    """A host-made constant (a mask, an identity, weights) beside like: on like's device, an
    array for an array (a formula's value running on arrays), else a Tensor."""
    if is_array(like):
        return _backend.beside(like, array)
    return Tensor._make(_backend.beside(like._data, array))


def zeros_of(like, shape=None):
    """A zero tensor with like's dtype (and shape, unless given): a gradient that is 0; a zero
    array for an array (a formula's value running on arrays)."""
    shape = like.shape if shape is None else shape
    if is_array(like):
        return _backend.array_module(like).zeros(shape, like.dtype)
    return Tensor._make(_backend.array_module(like._data).zeros(shape, like.dtype.numpy))


# They build on this module: import them last.
from . import reduction, strided  # noqa: E402


_BOTH = ("adjoint broadcast_to flatten moveaxis movedim permute ravel reshape squeeze swapaxes "
         "swapdims t transpose unflatten unsqueeze").split()
FUNCTIONS = _BOTH + "atleast_1d atleast_2d atleast_3d resize_as_".split()
METHODS = _BOTH + "expand expand_as reshape_as resize_ resize_as_ view view_as".split()
TENSOR_ONLY = {
    "T": property(_reversed_dims),
    "mT": property(lambda self: _matrix_transpose("mT", self)),
    "mH": property(lambda self: _matrix_transpose("mH", self)),
    "H": property(_hermitian_transpose),
    "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_,
    "t_": t_,
    "transpose_": transpose_,
    "swapaxes_": transpose_,
    "swapdims_": transpose_,
}
