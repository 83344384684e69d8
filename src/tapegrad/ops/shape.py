"""Shape ops: views (share storage and version counter with their input), joining and
splitting, reordering copies, diagonals, indexing, gather and scatter."""
import inspect
import itertools

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ._checks import broadcast_shapes, numel, wrap_dim, wrap_dims
from ._define import defop

# ---- reshaping views -----------------------------------------------------------------------

def _varargs(sizes):
    """Sizes given one by one or as one sequence: x.view(2, 3) and x.view((2, 3)) alike."""
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes



def _infer_shape(shape, numel):
    """Resolve one -1 entry and check the element count, as torch's view/reshape."""
    shape = tuple(int(s) for s in _varargs(shape))
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
    dims = _varargs(dims)
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
    _unsqueeze: _in_place_twin("UnsqueezeBackward1", _unsqueeze, save=("dim",)),
    _squeeze_all: _in_place_twin("SqueezeBackward3", _squeeze_all),
    _squeeze_dim: _in_place_twin("SqueezeBackward4", _squeeze_dim),
    _squeeze_dims: _in_place_twin("SqueezeBackward5", _squeeze_dims),
}


def _reshape_in_place(op, input, *args):
    """input takes the shape of op's view of it (and, when tracked, its node); the data stays,
    and the version counts a change, as torch's in-place view ops do."""
    from ._inplace import _check_leaf  # _inplace builds on this module
    tracked = grad_mode.is_grad_enabled() and input._requires_grad
    if tracked:
        _check_leaf(input)
    result = _IN_PLACE_TWINS[op](input, *args)
    input._data = result._data
    if input._base is not None:  # still a view of its base, one step further
        input._view_fn = result._view_fn
    if tracked:
        input.grad_fn, input._output_nr = result.grad_fn, result._output_nr
    input._bump_version()
    return input


def unsqueeze_(input, dim):
    return _reshape_in_place(_unsqueeze, input, wrap_dim(dim, input.ndim + 1))


def squeeze_(input, dim=None):
    op, args = _squeezing(input, dim)
    return _reshape_in_place(op, input, *args)


@defop("ExpandBackward0", view=True)
def _expand(xp, input: Tensor, size):
    return xp.broadcast_to(input, size)


_expand.derivatives(input=lambda ctx: reduction.sum_to_size(ctx.grad, ctx.input_shape))


def expand(input, *size):
    size = _varargs(size)
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
        return _alias(input)
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


def _at_least(ndim, input):
    if input.ndim >= ndim:
        return input
    if input.ndim == 0:
        return reshape(input, (1,) * ndim)
    if ndim == 3 and input.ndim == 1:  # a vector becomes the middle dim
        input = unsqueeze(input, 0)
    return unsqueeze(input, 0 if ndim == 2 else -1)


def _each_at_least(ndim, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return _at_least(ndim, tensors[0])
    return tuple(_at_least(ndim, tensor) for tensor in _varargs(tensors))


def atleast_1d(*tensors):
    return _each_at_least(1, tensors)


def atleast_2d(*tensors):
    """Tensors with fewer dims get leading (a vector: one leading) dims of size 1."""
    return _each_at_least(2, tensors)


def atleast_3d(*tensors):
    """0-d -> 1x1x1, a vector (n) -> 1xnx1, a matrix (m, n) -> mxnx1."""
    return _each_at_least(3, tensors)


# ---- joining: cat and stack ----------------------------------------------------------------

class _TensorListOp:
    """An op over a list of tensors (cat, stack). A declared op has a fixed list of tensor
    inputs, so this declares one per list length, with inputs tensor0, tensor1, ..., on first
    use. Its forward gets the list of arrays, then the attributes."""

    def __init__(self, node_name, forward, save):
        self.node_name, self.forward, self.save = node_name, forward, save
        self.attributes = list(inspect.signature(forward).parameters.values())[2:]
        self.ops = {}
        self.each = None

    def derivatives(self, each):
        """each(ctx, i): the gradient of tensor i."""
        self.each = each

    def __call__(self, tensors, *attributes):
        op = self.ops.get(len(tensors)) or self._declare(len(tensors))
        return op(*tensors, *attributes)

    def _declare(self, count):
        forward = self.forward

        def over_arrays(xp, *args):
            return forward(xp, args[:count], *args[count:])
        names = [f"tensor{i}" for i in range(count)]
        parameter = inspect.Parameter
        over_arrays.__signature__ = inspect.Signature(
            [parameter("xp", parameter.POSITIONAL_ONLY)]
            + [parameter(name, parameter.POSITIONAL_OR_KEYWORD, annotation=Tensor)
               for name in names] + self.attributes)
        op = defop(self.node_name, save=self.save, promote="common",
                   name=forward.__name__)(over_arrays)
        op.derivatives(**{name: _nth_gradient(self.each, i) for i, name in enumerate(names)})
        self.ops[count] = op
        return op


def _nth_gradient(each, i):
    return lambda ctx: each(ctx, i)


def _cat_forward(xp, tensors, dim, bounds):
    kept = [array for array, bound in zip(tensors, bounds) if bound is not None]
    return xp.concatenate(kept or tensors, axis=dim)


def _cat_part(ctx, i):
    if ctx.bounds[i] is None:  # a skipped 1-D empty tensor
        return zeros_of(ctx.grad, (0,))
    return _slice(ctx.grad, ctx.dim, *ctx.bounds[i], 1)


_cat = _TensorListOp("CatBackward0", _cat_forward, save=("dim", "bounds"))
_cat.derivatives(each=_cat_part)


def _tensor_list(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(tensor).__name__}")
    return tuple(tensors)


def cat(tensors, dim=0, *, axis=None):
    """Join tensors along an existing dim. As torch, 1-D empty tensors are skipped (legacy)."""
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, tensor in enumerate(tensors):
        if tensor.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [i for i, t in enumerate(tensors) if t.shape != (0,)]
    if not kept:
        return _cat(tensors, 0, (None,) * len(tensors))
    first = tensors[kept[0]]
    dim = wrap_dim(dim if axis is None else axis, first.ndim)
    bounds, start = [None] * len(tensors), 0
    for i in kept:
        _check_cat_shape(first, tensors[i], dim, i)
        bounds[i] = (start, start + tensors[i].shape[dim])
        start = bounds[i][1]
    return _cat(tensors, dim, tuple(bounds))


def _check_cat_shape(first, tensor, dim, position):
    if tensor.ndim != first.ndim:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and "
                           f"{tensor.ndim}")
    for d, (expected, size) in enumerate(zip(first.shape, tensor.shape)):
        if d != dim and size != expected:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected "
                               f"size {expected} but got size {size} for tensor number "
                               f"{position} in the list.")


concat = concatenate = cat


def _stack_of(name, tensors, ndim):
    """The tensors, checked, each given at least ndim dims."""
    tensors = _tensor_list(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return [_at_least(ndim, tensor) for tensor in tensors]


def hstack(tensors):
    """cat along the columns (dim 1), or along dim 0 for vectors."""
    tensors = _stack_of("hstack", tensors, 1)
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return cat(_stack_of("vstack", tensors, 2), 0)


row_stack = vstack


def dstack(tensors):
    return cat(_stack_of("dstack", tensors, 3), 2)


def column_stack(tensors):
    """cat along dim 1, with 0-d and 1-D tensors as columns."""
    tensors = _stack_of("column_stack", tensors, 0)
    return cat([reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors], 1)


def _stack_forward(xp, tensors, dim):
    return xp.stack(tensors, axis=dim)


_stack = _TensorListOp("StackBackward0", _stack_forward, save=("dim",))
_stack.derivatives(each=lambda ctx, i: _select(ctx.grad, ctx.dim, i))


def stack(tensors, dim=0, *, axis=None):
    """Join equally shaped tensors along a new dim."""
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = wrap_dim(dim if axis is None else axis, tensors[0].ndim + 1)
    for i, tensor in enumerate(tensors):
        if tensor.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(tensor.shape)} at "
                               f"entry {i}")
    return _stack(tensors, dim)


# ---- splitting: split, chunk, unbind (several views of the input), narrow -------------------

def _pieces(input, sizes, dim):
    """Views of input along dim, one per size."""
    ends = itertools.accumulate(sizes)
    return tuple(input[(slice(None),) * dim + (slice(end - size, end),)]
                 for size, end in zip(sizes, ends))


def _sizes_of_split(size, split_size):
    """Equal pieces, the last one smaller; an empty dim gives one empty piece."""
    if size == 0:
        return (0,)
    full, rest = divmod(size, split_size)
    return (split_size,) * full + ((rest,) if rest else ())


@defop("SplitBackward0", save=("split_size", "dim"), view=True)
def _split(xp, input: Tensor, split_size, dim):
    return _pieces(input, _sizes_of_split(input.shape[dim], split_size), dim)


_split.derivatives(input=lambda ctx: _joined_grads(
    ctx, _sizes_of_split(ctx.input_shape[ctx.dim], ctx.split_size)))


@defop("SplitWithSizesBackward0", save=("split_sizes", "dim"), view=True)
def _split_with_sizes(xp, input: Tensor, split_sizes, dim):
    return _pieces(input, split_sizes, dim)


_split_with_sizes.derivatives(input=lambda ctx: _joined_grads(ctx, ctx.split_sizes))


def _every_grad(ctx, shapes):
    """One gradient per output of a multi-output node, zeros for those none reached."""
    like = next(grad for grad in ctx.grads if grad is not None)
    grads = list(ctx.grads) + [None] * (len(shapes) - len(ctx.grads))
    return [zeros_of(like, shape) if grad is None else grad
            for grad, shape in zip(grads, shapes)]


def _joined_grads(ctx, sizes):
    """The input's gradient from its pieces' gradients."""
    before, after = ctx.input_shape[:ctx.dim], ctx.input_shape[ctx.dim + 1:]
    return cat(_every_grad(ctx, [before + (size,) + after for size in sizes]), ctx.dim)


def split(tensor, split_size_or_sections, dim=0):
    """Views of equal size (the last may be smaller), or of the given sizes."""
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    split_size = int(split_size_or_sections)
    dim = wrap_dim(dim, tensor.ndim)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and tensor.shape[dim]:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {tensor.shape[dim]}")
    return _split(tensor, split_size, dim)


def split_with_sizes(input, split_sizes, dim=0):
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 1) must be tuple "
                        f"of ints, not {type(split_sizes).__name__}")
    dim, split_sizes = wrap_dim(dim, input.ndim), tuple(int(s) for s in split_sizes)
    if any(size < 0 for size in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(split_sizes)}")
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input.shape[dim]} (input tensor's size at dimension {dim}), but "
                           f"got split_sizes={list(split_sizes)}")
    return _split_with_sizes(input, split_sizes, dim)


def chunk(input, chunks, dim=0):
    """`chunks` views of equal size (fewer when the size does not allow it)."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if size == 0:  # as torch: keep the number of chunks, all empty
        return _split_with_sizes(input, (0,) * chunks, dim)
    return _split(input, -(-size // chunks), dim)


@defop("UnbindBackward0", save=("dim",), view=True)
def _unbind(xp, input: Tensor, dim):
    # Ellipsis: each slice a 0-d view, not a copy
    return tuple(input[(slice(None),) * dim + (i, Ellipsis)] for i in range(input.shape[dim]))


def _stacked_grads(ctx):
    """The input's gradient from its slices' gradients."""
    shape = ctx.input_shape[:ctx.dim] + ctx.input_shape[ctx.dim + 1:]
    return stack(_every_grad(ctx, [shape] * ctx.input_shape[ctx.dim]), ctx.dim)


_unbind.derivatives(input=_stacked_grads)


def unbind(input, dim=0):
    """The slices along dim, as views without that dim."""
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    return _unbind(input, dim) if input.shape[dim] else ()


def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim, start = wrap_dim(dim, input.ndim), int(start)
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return _slice(input, dim, start, start + length, 1)


# ---- reordering copies: flip, roll, repeat, tril/triu ---------------------------------------

@defop("FlipBackward0", save=("dims",))
def _flip(xp, input: Tensor, dims):
    return xp.flip(input, dims).copy()  # NumPy flips by a view; torch copies


_flip.derivatives(input=lambda ctx: _flip(ctx.grad, ctx.dims))


def flip(input, dims):
    if isinstance(dims, int):
        raise TypeError("flip(): argument 'dims' (position 2) must be tuple of ints, not int")
    dims = wrap_dims(dims, input.ndim)
    return _flip(input, dims if input.ndim else ())


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


@defop("RollBackward0", save=("shifts", "dims"))
def _roll(xp, input: Tensor, shifts, dims):
    return xp.roll(input, shifts, dims) if dims else xp.roll(input, shifts[0])


_roll.derivatives(input=lambda ctx: _roll(ctx.grad, tuple(-s for s in ctx.shifts), ctx.dims))


def roll(input, shifts, dims=None):
    """Shift elements cyclically along dims (over the flattened tensor without dims)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and (dims or len(shifts) != 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    dims = tuple(wrap_dim(d, input.ndim) for d in dims) if input.ndim else ()
    return _roll(input, shifts[:len(dims) or 1], dims)


@defop("RepeatBackward0", save=("repeats",))
def _repeat(xp, input: Tensor, repeats):
    return xp.tile(input, repeats)


def _repeat_backward(ctx):
    """Sum the gradient over the copies: view it as (copies, size) pairs, sum the copies."""
    repeats = ctx.repeats
    if not repeats:
        return ctx.grad
    sizes = (1,) * (len(repeats) - len(ctx.input_shape)) + tuple(ctx.input_shape)
    pairs = reshape(ctx.grad, [n for pair in zip(repeats, sizes) for n in pair])
    summed = reduction.sum(pairs, tuple(range(0, 2 * len(repeats), 2)))
    return reshape(summed, ctx.input_shape)


_repeat.derivatives(input=_repeat_backward)


def repeat(input, *repeats):
    """Tile the tensor `repeats` times along each dim (new leading dims for extra repeats)."""
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = tuple(int(r) for r in _varargs(repeats))
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    sizes = (1,) * (len(repeats) - input.ndim) + input.shape
    if any(r < 0 for r in repeats):
        shape = [r * n for r, n in zip(repeats, sizes)]
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(n for n in shape if n < 0)}: {shape}")
    return _repeat(input, repeats)


def tile(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (each slice along dim) `repeats` times; with a tensor of repeats,
    element i repeats[i] times. repeat_interleave(repeats) gives the indices 0, 1, ... each
    repeated that often."""
    if repeats is None:
        return Tensor._make(_repeated_indices(input, output_size))
    flat = input if dim is not None else flatten(input)
    dim = wrap_dim(0 if dim is None else dim, input.ndim)
    if isinstance(repeats, Tensor):
        counts = _counts_along(repeats, flat.shape[dim])
        return _index_select(flat, dim, _repeated_indices(counts, output_size))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(flat.shape)
    if output_size is not None and output_size != shape[dim] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{shape[dim] * repeats} but got {output_size}")
    expanded = expand(unsqueeze(flat, dim + 1), shape[:dim + 1] + [repeats] + shape[dim + 1:])
    shape[dim] *= repeats
    return view(pointwise.clone(expanded), shape)


def _counts_along(repeats, size):
    """A tensor of repeats as one count per slice (one count applies to every slice)."""
    if repeats.ndim == 0 or repeats.shape == (1,):
        return Tensor._make(np.broadcast_to(repeats._data.reshape(1), (size,)))
    if repeats.ndim != 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.shape[0] != size:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {repeats.shape[0]} and input.size(0) = {size}")
    return repeats


def _repeated_indices(repeats, output_size=None):
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype.name not in ("int64", "int32"):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{repeats.dtype.legacy_name}'")
    counts = repeats._data
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != counts.sum():
        raise RuntimeError("allocated size does not match required size")
    return np.repeat(np.arange(len(counts), dtype=counts.dtype), counts)


@defop("TrilBackward0", save=("diagonal",))
def _tril(xp, input: Tensor, diagonal=0):
    return xp.tril(input, diagonal)


@defop("TriuBackward0", save=("diagonal",))
def _triu(xp, input: Tensor, diagonal=0):
    return xp.triu(input, diagonal)


_tril.derivatives(input=lambda ctx: _tril(ctx.grad, ctx.diagonal))
_triu.derivatives(input=lambda ctx: _triu(ctx.grad, ctx.diagonal))


def tril(input, diagonal=0):
    """The lower triangle of the last two dims (from `diagonal` down); zeros elsewhere."""
    _check_matrices("tril", input)
    return _tril(input, diagonal)


def triu(input, diagonal=0):
    _check_matrices("triu", input)
    return _triu(input, diagonal)


def _check_matrices(name, input):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


# ---- diagonals -----------------------------------------------------------------------------

def _diagonal_view(xp, array, offset, dim1, dim2):
    """NumPy's diagonal, but writable, so in-place ops can write through it (torch's is)."""
    start = [slice(None)] * array.ndim
    start[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    shifted = array[tuple(start)]
    diagonal = xp.diagonal(shifted, 0, dim1, dim2)
    return xp.lib.stride_tricks.as_strided(shifted, diagonal.shape, diagonal.strides)


@defop("DiagonalBackward0", save=("offset", "dim1", "dim2"), view=True)
def _diagonal(xp, input: Tensor, offset, dim1, dim2):
    return _diagonal_view(xp, input, offset, dim1, dim2)


@defop("DiagonalBackward0_copy", save=("offset", "dim1", "dim2"))
def _diagonal_copy(xp, input: Tensor, offset, dim1, dim2):
    return _diagonal_view(xp, input, offset, dim1, dim2).copy()


def _diagonal_backward(ctx):
    return _diagonal_scatter(zeros_of(ctx.grad, ctx.input_shape), ctx.grad, ctx.offset,
                             ctx.dim1, ctx.dim2)


_diagonal.derivatives(input=_diagonal_backward)
_diagonal_copy.derivatives(input=_diagonal_backward)


@defop("DiagonalScatterBackward0", save=("offset", "dim1", "dim2"))
def _diagonal_scatter(xp, input: Tensor, src: Tensor, offset, dim1, dim2):
    result = input.copy()
    _diagonal_view(xp, result, offset, dim1, dim2)[...] = src
    return result


_diagonal_scatter.derivatives(
    input=lambda ctx: _diagonal_scatter(ctx.grad, 0.0, ctx.offset, ctx.dim1, ctx.dim2),
    src=lambda ctx: _diagonal(ctx.grad, ctx.offset, ctx.dim1, ctx.dim2))


@defop("DiagEmbedBackward0", save=("offset", "dim1", "dim2"))
def _diag_embed(xp, input: Tensor, offset, dim1, dim2):
    shape = list(input.shape[:-1])
    for dim in sorted((dim1, dim2)):
        shape.insert(dim, input.shape[-1] + abs(offset))
    result = xp.zeros(shape, input.dtype)
    _diagonal_view(xp, result, offset, dim1, dim2)[...] = input
    return result


_diag_embed.derivatives(input=lambda ctx: _diagonal(ctx.grad, ctx.offset, ctx.dim1, ctx.dim2))


def _diagonal_dims(dim1, dim2, ndim):
    wrapped = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return wrapped


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes as a view, moved to the last dim."""
    return _diagonal(input, offset, *_diagonal_dims(dim1, dim2, input.ndim))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    dim1, dim2 = _diagonal_dims(dim1, dim2, input.ndim)
    slice_shape = _diagonal_view(np, input._data, offset, dim1, dim2).shape
    if src.shape != slice_shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(slice_shape)}")
    return _diagonal_scatter(input, src, offset, dim1, dim2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices with the last dim of input on their (offset) diagonal, in dims dim1, dim2."""
    return _diag_embed(input, offset, *_diagonal_dims(dim1, dim2, input.ndim + 1))


def diag(input, diagonal=0):
    """A 1-D tensor as a diagonal matrix; a matrix's diagonal as a 1-D tensor (a copy)."""
    if input.ndim == 1:
        return _diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        return _diagonal_copy(input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


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


def select(input, dim, index):
    """The slice at `index` along dim, as a view without that dim."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim, index = wrap_dim(dim, input.ndim), int(index)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return _select(input, dim, index % size)


@defop("IndexSelectBackward0", save=("dim", "index"))
def _index_select(xp, input: Tensor, dim, index):
    return xp.take(input, index, axis=dim) if input.ndim else input.copy()


def _index_select_backward(ctx):
    if not ctx.input_shape:  # a 0-d input, selected once
        return ctx.grad
    return _index_put(zeros_of(ctx.grad, ctx.input_shape),
                      (slice(None),) * ctx.dim + (ctx.index,), ctx.grad, accumulate=True)


_index_select.derivatives(input=_index_select_backward)


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
    return _index_select(input, dim, index)


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
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_TYPE_NAMES[mask.dtype.name]}")
    broadcast_shapes(mask.shape, input.shape)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        return _masked_fill_tensor(input, mask._data, value)
    return _masked_fill(input, mask._data, value)


@defop("MaskedSelectBackward0", save=("mask",))
def _masked_select(xp, input: Tensor, mask):
    return xp.broadcast_to(input, mask.shape)[mask]


_masked_select.derivatives(input=lambda ctx: _index_put(
    zeros_of(ctx.grad, ctx.mask.shape), ctx.mask, ctx.grad))


def masked_select(input, mask):
    """The elements where mask (broadcast with input) is True, as a 1-D tensor."""
    if mask.dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask.shape, input.shape)
    return _masked_select(input, np.broadcast_to(mask._data, shape))


@defop("TakeBackward0", save=("index",))
def _take(xp, input: Tensor, index):
    return xp.take(input, index)


_take.derivatives(input=lambda ctx: reshape(_index_put(
    zeros_of(ctx.grad, (numel(ctx.input_shape),)), ctx.index, ctx.grad, accumulate=True),
    ctx.input_shape))


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


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """input with src's values (or value) written at index along dim."""
    if reduce is not None:
        raise NotImplementedError("scatter(reduce=...) is not supported; use scatter_add")
    if not isinstance(src, Tensor):
        src, value = None, src if src is not None else value
    dim = _check_scatter(input, dim, index, src)
    if src is None:
        value = value.item() if isinstance(value, Tensor) else value
        return _scatter_value(input, dim, index._data, value)
    return _scatter(input, dim, index._data, src)


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


def _in_place_method(op):
    """Tensor.<op>_: op applied to the tensor's own storage."""
    def method(self, *args, **kwargs):
        from ._inplace import inplace  # _inplace builds on this module
        return inplace(op, self, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    return method


from . import pointwise, reduction  # noqa: E402  (they build on this module: import them last)


_BOTH = ("broadcast_to chunk diag diag_embed diagonal diagonal_scatter flatten fliplr flipud "
         "gather index_select masked_fill masked_select moveaxis movedim narrow permute ravel "
         "repeat_interleave reshape roll scatter scatter_add select split split_with_sizes "
         "squeeze swapaxes swapdims t take transpose tril triu unbind unflatten "
         "unsqueeze").split()
FUNCTIONS = _BOTH + ("atleast_1d atleast_2d atleast_3d cat column_stack concat concatenate "
                     "dstack flip hstack row_stack stack tile vstack").split()
METHODS = _BOTH + "expand expand_as repeat reshape_as view view_as".split()
TENSOR_ONLY = {
    "T": property(lambda self: permute(self, tuple(reversed(range(self.ndim))))),
    "mT": property(lambda self: transpose(self, -2, -1)),
    "flip": lambda self, *dims: flip(self, _varargs(dims)),
    "tile": lambda self, *dims: tile(self, _varargs(dims)),
    "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_,
    "masked_fill_": _in_place_method(masked_fill),
    "scatter_": _in_place_method(scatter),
    "scatter_add_": _in_place_method(scatter_add),
}
