"""Joining and splitting: cat, stack and their variants, block_diag and constant_pad_nd; split,
chunk and unbind (several views of the input), their unsafe_ twins, tensor_split and
hsplit/vsplit/dsplit, and narrow."""
import inspect
import itertools

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from . import activation
from ._checks import as_int, int_list, wrap_dim
from ._define import defop
from .shape import at_least_dims, redeclare, reshape, select_view, slice_view, zeros_of

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
    return slice_view(ctx.grad, ctx.dim, *ctx.bounds[i], 1)


_cat = _TensorListOp("CatBackward0", _cat_forward, save=("dim", "bounds"))
_cat.derivatives(each=_cat_part)


def tensor_list(name, tensors):
    """tensors (a list or tuple of Tensors, checked with torch's errors) as a tuple."""
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
    tensors = tensor_list("cat", tensors)
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
    tensors = tensor_list(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return [at_least_dims(ndim, tensor) for tensor in tensors]


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
_stack.derivatives(each=lambda ctx, i: select_view(ctx.grad, ctx.dim, i))


def stack(tensors, dim=0, *, axis=None):
    """Join equally shaped tensors along a new dim."""
    tensors = tensor_list("stack", tensors)
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
    return _split(tensor, *split_size_arguments(tensor, split_size_or_sections, dim))


def split_size_arguments(tensor, split_size, dim):
    """(split_size, dim), checked as torch's split does."""
    split_size, dim = int(split_size), wrap_dim(dim, tensor.ndim)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and tensor.shape[dim]:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {tensor.shape[dim]}")
    return split_size, dim


def split_with_sizes(input, split_sizes, dim=0):
    return _split_with_sizes(input, *split_sizes_arguments(input, split_sizes, dim))


def split_sizes_arguments(input, split_sizes, dim, name="split_with_sizes"):
    """(split_sizes, dim), checked as torch's split_with_sizes does."""
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"{name}(): argument 'split_sizes' (position 1) must be tuple "
                        f"of ints, not {type(split_sizes).__name__}")
    dim, split_sizes = wrap_dim(dim, input.ndim), tuple(int(s) for s in split_sizes)
    if any(size < 0 for size in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(split_sizes)}")
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input.shape[dim]} (input tensor's size at dimension {dim}), but "
                           f"got split_sizes={list(split_sizes)}")
    return split_sizes, dim


def chunk(input, chunks, dim=0):
    """`chunks` views of equal size (fewer when the size does not allow it)."""
    with_sizes, arguments = _chunking(input, chunks, dim)
    return (_split_with_sizes if with_sizes else _split)(input, *arguments)


def _chunking(input, chunks, dim):
    """How chunk splits: (True, (sizes, dim)) or (False, (split_size, dim))."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if size == 0:  # as torch: keep the number of chunks, all empty
        return True, ((0,) * chunks, dim)
    return False, (-(-size // chunks), dim)


# torch's unsafe_ variants: the same pieces, sharing the input's memory but not its version
# counter (torch leaves it to the caller not to write to them).
_unsafe_split = redeclare(_split, "UnsafeSplitBackward0", "_unsafe_split", view=False)
_unsafe_split_with_sizes = redeclare(_split_with_sizes, "UnsafeSplitWithSizesBackward0",
                                     "_unsafe_split_with_sizes", view=False)


def unsafe_split(tensor, split_size, dim=0):
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return _unsafe_split(tensor, *split_size_arguments(tensor, split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    arguments = split_sizes_arguments(input, split_sizes, dim, "unsafe_split_with_sizes")
    return _unsafe_split_with_sizes(input, *arguments)


def unsafe_chunk(input, chunks, dim=0):
    with_sizes, arguments = _chunking(input, chunks, dim)
    return (_unsafe_split_with_sizes if with_sizes else _unsafe_split)(input, *arguments)


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
    return slice_view(input, *narrow_bounds(input, dim, start, length))


def narrow_bounds(input, dim, start, length):
    """(dim, start, end, step) of narrow's slice, checked as torch does."""
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
    return dim, start, start + length, 1


# ---- tensor_split and hsplit/vsplit/dsplit: one slice (SliceBackward0) per piece ------------

_TENSOR_SPLIT_SIGNATURES = (
    " * (Tensor input, tuple of ints indices, int dim = 0)\n"
    " * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n"
    " * (Tensor input, int sections, int dim = 0)\n")


def tensor_split(input, indices_or_sections, dim=0):
    """Pieces along dim: `sections` nearly equal ones (the first ones one larger), or cut at
    the given indices (clamped, as slices are)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        cuts = _split_points(cuts)
    elif isinstance(cuts, (list, tuple)) and cuts and as_int(cuts[0]) is None:
        cuts = None  # torch reads them as sections or a tensor, neither of which fits
    elif isinstance(cuts, (list, tuple)):
        cuts = int_list(cuts, "tensor_split", "indices", varargs=False)
    if not isinstance(cuts, (int, list, tuple)):
        raise TypeError(f"tensor_split() received an invalid combination of arguments - got "
                        f"(Tensor, {type(indices_or_sections).__name__}), but expected one of:\n"
                        + _TENSOR_SPLIT_SIGNATURES)
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(cuts, int):
        if cuts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cuts}")
        small, larger = divmod(size, cuts)
        cuts = list(itertools.accumulate([small + 1] * larger + [small] * (cuts - larger - 1)))
    bounds = [0] + [int(i) for i in cuts] + [size]
    pieces = []
    for start, end in zip(bounds, bounds[1:]):
        start, end, _ = slice(start, end).indices(size)
        pieces.append(slice_view(input, dim, start, max(start, end), 1))
    return tuple(pieces)


def _split_points(tensor):
    """A tensor of tensor_split: a number of sections (0-d) or indices (1-D)."""
    if tensor.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {tensor.dtype.legacy_name}")
    if tensor.ndim > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{tensor.ndim} dims")
    return int(tensor.item()) if tensor.ndim == 0 else tensor.tolist()


def _split_along(name, input, indices_or_sections, min_ndim, dim):
    """hsplit/vsplit/dsplit: tensor_split along dim, into sections that must be equal."""
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {indices_or_sections}!")
    elif not isinstance(indices_or_sections, (list, tuple)):
        kind = type(indices_or_sections).__name__
        mismatch = f"      didn't match because some of the arguments have invalid types: " \
                   f"(Tensor, !{kind}!)\n"
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{kind}), but expected one of:\n * (Tensor input, int sections)\n"
                        f"{mismatch} * (Tensor input, tuple of ints indices)\n{mismatch}")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """Split along the columns (dim 1; dim 0 of a vector)."""
    dim = 0 if input.ndim == 1 else 1
    return _split_along("hsplit", input, indices_or_sections, 1, dim)


def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 3, 2)


# ---- block_diag and constant_pad_nd --------------------------------------------------------

def _block_diag_forward(xp, tensors, corners, shape):
    result = xp.zeros(shape, tensors[0].dtype if tensors else xp.float32)
    for array, (row, column) in zip(tensors, corners):
        rows, columns = _as_block(array.shape)
        result[row:row + rows, column:column + columns] = array.reshape(rows, columns)
    return result


def _as_block(shape):
    """A 0-d, 1-D or 2-D shape as the (rows, columns) of its block."""
    return (1,) * (2 - len(shape)) + tuple(shape)


def _block_part(ctx, i):
    (row, column), shape = ctx.corners[i], getattr(ctx, f"tensor{i}_shape")
    rows, columns = _as_block(shape)
    block = ctx.grad[row:row + rows, column:column + columns]
    return reshape(block, shape)


_block_diag = _TensorListOp("BlockDiagBackward0", _block_diag_forward, save=("corners",))
_block_diag.derivatives(each=_block_part)


def block_diag(*tensors):
    """The tensors (0-d, 1-D as rows, 2-D) as blocks along the diagonal of a matrix."""
    corners, row, column = [], 0, 0
    for i, tensor in enumerate(tensors):
        if tensor.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {tensor.ndim} dimensions")
        corners.append((row, column))
        rows, columns = _as_block(tensor.shape)
        row, column = row + rows, column + columns
    if not tensors:  # torch gives a 1 x 0 matrix
        return Tensor._make(np.zeros((1, 0), _dtype.get_default_dtype().numpy))
    return _block_diag(tensors, tuple(corners), (row, column))


def constant_pad_nd(input, pad, value=0):
    """Pad (or crop, with negative sizes) the last len(pad) // 2 dims with value."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.ndim}dimensions.")
    return activation.pad(input, tuple(pad), "constant", value)


_BOTH = ("chunk dsplit hsplit narrow split split_with_sizes tensor_split unbind unsafe_chunk "
         "unsafe_split unsafe_split_with_sizes vsplit").split()
FUNCTIONS = _BOTH + ("block_diag cat column_stack concat concatenate constant_pad_nd dstack "
                     "hstack row_stack stack vstack").split()
METHODS = _BOTH
