"""Reordering copies (flip, rot90, roll, repeat, repeat_interleave, tril/triu) and diagonals
(diagonal, diagonal_copy, diagonal_scatter, diag_embed, diag, diagflat)."""
import numpy as np

from .. import _backend
from .._tensor import Tensor
from . import pointwise, reduction
from ._checks import int_list, wrap_dim, wrap_dims
from ._define import defop
from .indexing import index_select_op
from .shape import expand, flatten, reshape, unsqueeze, view, zeros_of
from .strided import strided_array

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


@defop("Rot90Backward0", save=("k", "dims"))
def _rot90(xp, input: Tensor, k, dims):
    # torch's steps, whose strides it shows: an odd turn flips a copy along one dim, then
    # swaps the two dims of that copy
    k %= 4
    if k % 2 == 0:
        return xp.flip(input, dims if k else ()).copy()
    flipped = xp.flip(input, dims[1] if k == 1 else dims[0]).copy()
    return xp.swapaxes(flipped, *dims)


_rot90.derivatives(input=lambda ctx: _rot90(ctx.grad, -ctx.k, ctx.dims))


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by k quarter turns in the plane of dims, from the first dim towards the second."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return _rot90(input, k, wrapped)


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
    if dims and not input.ndim:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(wrap_dim(d, input.ndim) for d in dims)
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
    repeats = int_list(repeats, "repeat", "repeats")
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
    dims = int_list((dims,), "tile", "dims")
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
        return index_select_op(flat, dim, _repeated_indices(counts, output_size))
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
        counts = repeats._data.reshape(1)
        return Tensor._make(_backend.array_module(counts).broadcast_to(counts, (size,)))
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
    xp = _backend.array_module(counts)
    return xp.repeat(xp.arange(len(counts), dtype=counts.dtype), counts)


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
    if xp is not np:  # CuPy's as_strided forgets the storage (strided.py keeps it)
        return strided_array(xp, shifted, diagonal.shape, diagonal.strides, 0)
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


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return _diagonal_copy(input, offset, *_diagonal_dims(dim1, dim2, input.ndim))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    dim1, dim2 = _diagonal_dims(dim1, dim2, input.ndim)
    slice_shape = _diagonal_view(_backend.array_module(input._data), input._data, offset,
                                 dim1, dim2).shape
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


def diagflat(input, offset=0):
    """The flattened input on the (offset) diagonal of a square matrix."""
    return _diag_embed(view(input.contiguous(), -1), offset, 0, 1)


def _flip_method(self, *dims, **keywords):
    """Tensor.flip: dims one by one, as one sequence, or as the keyword dims."""
    if dims:
        return flip(self, int_list(dims, "flip", "dims"))
    if "dims" not in keywords:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    return flip(self, **keywords)


_BOTH = ("diag diag_embed diagflat diagonal diagonal_scatter fliplr flipud repeat_interleave "
         "roll rot90 tril triu").split()
FUNCTIONS = _BOTH + "diagonal_copy flip tile".split()
METHODS = _BOTH + ["repeat"]
TENSOR_ONLY = {
    "flip": _flip_method,
    "tile": lambda self, *dims: tile(self, int_list(dims, "tile", "dims")),
}
