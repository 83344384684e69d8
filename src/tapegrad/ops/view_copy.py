"""The view ops' copying twins (torch's *_copy functions: the view's values in new memory, under
the view's node name with `_copy` appended), and the scatters that write into what a view
would see (select_scatter, slice_scatter)."""
import functools

from .. import _dtype
from .._tensor import Tensor
from . import joining, shape
from ._checks import wrap_dim
from ._define import defop
from .shape import select_view, slice_view


def _copying(forward):
    """A view's forward that returns copies of the views."""
    @functools.wraps(forward)  # keeps the parameters that defop reads
    def copied(xp, *args):
        result = forward(xp, *args)
        return tuple(part.copy() for part in result) if type(result) is tuple else result.copy()
    return copied


def _copy_of(view_op, node_name=None, forward=None):
    """view_op declared again as a copy, under torch's node name for its *_copy op."""
    name = view_op.node_class.__name__ + "_copy"
    return shape.redeclare(view_op, node_name or name, view_op.__name__ + "_copy", view=False,
                           forward=_copying(forward or view_op.forward))


_COPIES = {op: _copy_of(op) for op in (
    shape.alias_view, shape._expand, shape._permute, shape._squeeze_all, shape._squeeze_dim,
    shape._squeeze_dims, shape._t, shape._transpose, shape.unsqueeze_view,
    select_view, slice_view, joining._split, joining._split_with_sizes, joining._unbind)}
# torch's view_copy copies strides that no view could reshape (a transposed input) too
_COPIES[shape._view] = _copy_of(shape._view, forward=shape.unsafe_view.forward)
_narrow_copy = _copy_of(slice_view, "NarrowCopyBackward0")


def alias_copy(input):
    return _COPIES[shape.alias_view](input)


def expand_copy(input, size, *, implicit=False):
    return _COPIES[shape._expand](input, shape.expanded_shape(input, shape.varargs(size)))


def permute_copy(input, dims):
    return _COPIES[shape._permute](input, shape.permutation(input, tuple(dims)))


def squeeze_copy(input, dim=None):
    op, args = shape.squeezing(input, dim)
    return _COPIES[op](input, *args)


def t_copy(input):
    shape.check_t("t", input)
    return _COPIES[shape._t](input)


def transpose_copy(input, dim0, dim1):
    dims = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    return _COPIES[shape._transpose](input, *dims)


def unsqueeze_copy(input, dim):
    return _COPIES[shape.unsqueeze_view](input, wrap_dim(dim, input.ndim + 1))


def view_copy(input, size=None, dtype=None):
    """A copy of input.view(size), or of input.view(dtype)."""
    if dtype is not None or isinstance(size, _dtype.dtype):
        return shape.view(input, dtype or size).clone()
    return _COPIES[shape._view](input, shape.infer_shape(size, input.numel()))


def narrow_copy(input, dim, start, length):
    return _narrow_copy(input, *joining.narrow_bounds(input, dim, start, length))


def select_copy(input, dim, index):
    dim, index = _selected(input, dim, index, "select")
    return _COPIES[select_view](input, dim, index)


def slice_copy(input, dim=0, start=None, end=None, step=1):
    return _COPIES[slice_view](input, *_sliced(input, dim, start, end, step))


def split_copy(tensor, split_size, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    arguments = joining.split_size_arguments(tensor, split_size, dim)
    return _COPIES[joining._split](tensor, *arguments)


def split_with_sizes_copy(input, split_sizes, dim=0):
    arguments = joining.split_sizes_arguments(input, split_sizes, dim, "split_with_sizes_copy")
    return _COPIES[joining._split_with_sizes](input, *arguments)


def unbind_copy(input, dim=0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    return _COPIES[joining._unbind](input, dim) if input.shape[dim] else ()


# ---- scatters: input with src written where a view of it would be --------------------------

@defop("SelectScatterBackward0", save=("dim", "index"))
def _select_scatter(xp, input: Tensor, src: Tensor, dim, index):
    result = input.copy()
    result[(slice(None),) * dim + (index,)] = src
    return result


_select_scatter.derivatives(
    input=lambda ctx: _select_scatter(ctx.grad, 0.0, ctx.dim, ctx.index),
    src=lambda ctx: select_view(ctx.grad, ctx.dim, ctx.index))


@defop("SliceScatterBackward0", save=("dim", "start", "end", "step"))
def _slice_scatter(xp, input: Tensor, src: Tensor, dim, start, end, step):
    result = input.copy()
    result[(slice(None),) * dim + (slice(start, end, step),)] = src
    return result


_slice_scatter.derivatives(
    input=lambda ctx: _slice_scatter(ctx.grad, 0.0, ctx.dim, ctx.start, ctx.end, ctx.step),
    src=lambda ctx: slice_view(ctx.grad, ctx.dim, ctx.start, ctx.end, ctx.step))


def _selected(input, dim, index, name):
    """(dim, index) of a select, wrapped and checked as torch's select does."""
    if input.ndim == 0:
        raise IndexError(f"{name}() cannot be applied to a 0-dim tensor.")
    dim, index = wrap_dim(dim, input.ndim), int(index)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return dim, index % size


def _sliced(input, dim, start, end, step):
    """(dim, start, end, step) of a slice, clamped to the dim as torch's slice does."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = wrap_dim(dim, input.ndim)
    start, end, step = slice(start, end, step).indices(input.shape[dim])
    return dim, start, max(start, end), step


def _check_slice_shape(src, view):
    if src.shape != view.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


def select_scatter(input, src, dim, index):
    """input with src written into the slice at index along dim (a copy)."""
    dim, index = _selected(input, dim, index, "select")
    _check_slice_shape(src, input._data[(slice(None),) * dim + (index,)])
    return _select_scatter(input, src, dim, index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with src written into input[start:end:step] along dim (a copy)."""
    dim, start, end, step = _sliced(input, dim, start, end, step)
    _check_slice_shape(src, input._data[(slice(None),) * dim + (slice(start, end, step),)])
    return _slice_scatter(input, src, dim, start, end, step)


FUNCTIONS = ("alias_copy expand_copy narrow_copy permute_copy select_copy select_scatter "
             "slice_copy slice_scatter split_copy split_with_sizes_copy squeeze_copy t_copy "
             "transpose_copy unbind_copy unsqueeze_copy view_copy").split()
METHODS = "narrow_copy select_scatter slice_scatter".split()
