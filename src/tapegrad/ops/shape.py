"""Shape ops that are views (they share storage and version counter with their input):
reshaping, in-place reshaping, and the select/slice/alias views that indexing builds on."""
import numpy as np

from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from ._checks import numel, wrap_dim, wrap_dims
from ._define import defop

# ---- reshaping views -----------------------------------------------------------------------

def varargs(sizes):
    """Sizes given one by one or as one sequence: x.view(2, 3) and x.view((2, 3)) alike."""
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes


def _infer_shape(shape, numel):
    """Resolve one -1 entry and check the element count, as torch's view/reshape."""
    shape = tuple(int(s) for s in varargs(shape))
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
def unsafe_view(xp, input: Tensor, shape):
    return input.reshape(shape)


unsafe_view.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


def view(input, *shape):
    return _view(input, _infer_shape(shape, input.numel()))


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a copy (CloneBackward0 + UnsafeView)."""
    shape = _infer_shape(shape, input.numel())
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        from .pointwise import clone
        return unsafe_view(clone(input), shape)
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
    dims = varargs(dims)
    if len(dims) != input.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, wrapped)


@defop("UnsqueezeBackward0", save=("dim",), view=True)
def unsqueeze_view(xp, input: Tensor, dim):
    return xp.expand_dims(input, dim)


unsqueeze_view.derivatives(input=lambda ctx: _squeeze_dims(ctx.grad, (ctx.dim,)))


def unsqueeze(input, dim):
    return unsqueeze_view(input, wrap_dim(dim, input.ndim + 1))


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


def _squeezing(input, dim):
    """The squeeze op for dim (None, one dim or several) and its arguments."""
    if dim is None:
        return _squeeze_all, ()
    if isinstance(dim, int):
        return _squeeze_dim, (wrap_dim(dim, input.ndim),)
    return _squeeze_dims, (wrap_dims(dim, input.ndim),)


def squeeze(input, dim=None):
    op, args = _squeezing(input, dim)
    return op(input, *args)


# ---- in-place reshaping: x.unsqueeze_(0), x.squeeze_() --------------------------------------

def _in_place_twin(node_name, op, save=()):
    """op declared again under the node name torch gives its in-place variant."""
    twin = defop(node_name, save=save, view=True, name=op.__name__ + "_")(op.forward)
    twin.derivatives(**dict(zip(op.input_names, op.formulas)))
    return twin


_IN_PLACE_TWINS = {
    unsqueeze_view: _in_place_twin("UnsqueezeBackward1", unsqueeze_view, save=("dim",)),
    _squeeze_all: _in_place_twin("SqueezeBackward3", _squeeze_all),
    _squeeze_dim: _in_place_twin("SqueezeBackward4", _squeeze_dim),
    _squeeze_dims: _in_place_twin("SqueezeBackward5", _squeeze_dims),
}


def _reshape_in_place(op, input, *args):
    """input takes the shape of op's view of it (and, when tracked, its node); the data stays,
    and the version counts a change, as torch's in-place view ops do."""
    from ._inplace import _check_leaf  # _inplace builds on this module
    tracked = grad_mode.is_recording() and input._requires_grad
    if tracked:
        _check_leaf(input)
    result = _IN_PLACE_TWINS[op](input, *args)
    input._data = result._data
    if input._base is not None:  # still a view of its base, one step further
        input._view_fn = result._view_fn
    if tracked:
        input.grad_fn, input._output_nr = result.grad_fn, result._output_nr
    forward_ad.copy_tangent(result, input)  # a dual tensor's tangent takes the shape too
    input._bump_version()
    return input


def unsqueeze_(input, dim):
    return _reshape_in_place(unsqueeze_view, input, wrap_dim(dim, input.ndim + 1))


def squeeze_(input, dim=None):
    op, args = _squeezing(input, dim)
    return _reshape_in_place(op, input, *args)


@defop("ExpandBackward0", view=True)
def _expand(xp, input: Tensor, size):
    return xp.broadcast_to(input, size)


_expand.derivatives(input=lambda ctx: reduction.sum_to_size(ctx.grad, ctx.input_shape))


def expand(input, *size):
    size = varargs(size)
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


select_view.derivatives(input=lambda ctx: indexing._index_put(
    zeros_of(ctx.grad, ctx.input_shape),
    (slice(None),) * ctx.dim + (ctx.index,), ctx.grad))


@defop("SliceBackward0", save=("dim", "start", "end", "step"), view=True)
def slice_view(xp, input: Tensor, dim, start, end, step):
    return input[(slice(None),) * dim + (slice(start, end, step),)]


slice_view.derivatives(input=lambda ctx: indexing._index_put(
    zeros_of(ctx.grad, ctx.input_shape),
    (slice(None),) * ctx.dim + (slice(ctx.start, ctx.end, ctx.step),), ctx.grad))


@defop("AliasBackward0", view=True)
def alias_view(xp, input: Tensor):
    return input[...]


alias_view.derivatives(input=lambda ctx: ctx.grad)


def zeros_of(like, shape=None):
    """A zero tensor with like's dtype (and shape, unless given): a gradient that is 0."""
    return Tensor._make(np.zeros(like.shape if shape is None else shape, like.dtype.numpy))


from . import indexing, reduction  # noqa: E402  (they build on this module: import them last)


_BOTH = ("broadcast_to flatten moveaxis movedim permute ravel reshape squeeze swapaxes swapdims t "
         "transpose unflatten unsqueeze").split()
FUNCTIONS = _BOTH + "atleast_1d atleast_2d atleast_3d".split()
METHODS = _BOTH + "expand expand_as reshape_as view view_as".split()
TENSOR_ONLY = {
    "T": property(lambda self: permute(self, tuple(reversed(range(self.ndim))))),
    "mT": property(lambda self: transpose(self, -2, -1)),
    "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_,
}
