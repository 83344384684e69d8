"""Reductions: sum, mean, max/min, norms, and the engine's broadcast reduction sum_to_size."""
import collections

from .._tensor import Tensor
from ._checks import numel, wrap_dim, wrap_dims
from ._define import defop
from ._summation import full_sum
from .pointwise import abs, maximum, minimum, sign, where
from .shape import expand, reshape, scatter_add_into_zeros, unsqueeze


def _dims(dim, ndim):
    """dim=None means all dims; () too, as torch's sum(dim=[]). A 0-d tensor accepts dim 0 or
    -1 and has nothing to reduce."""
    if dim is None or dim == () or dim == []:
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()


def _unreduce(grad, shape, dims, keepdim):
    """Broadcast a reduced gradient back over the input shape (dims: the reduced ones)."""
    if not keepdim:
        kept = [1 if d in dims else size for d, size in enumerate(shape)]
        grad = reshape(grad, kept)
    return expand(grad, shape)


def _return_type(name, fields):
    """torch.return_types.<name>: a namedtuple that prints field by field, one per line."""
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


max_return, min_return = _return_type("max", ("values", "indices")), _return_type(
    "min", ("values", "indices"))


# ---- sum and mean --------------------------------------------------------------------------

@defop("SumBackward0")
def _sum_all(xp, input: Tensor, dtype=None):
    if dtype is None and input.dtype.kind == "f":
        return full_sum(input)
    return xp.sum(input, dtype=_sum_dtype(input, dtype))


_sum_all.derivatives(input=lambda ctx: expand(ctx.grad, ctx.input_shape))


@defop("SumBackward1", save=("dim", "keepdim"))
def _sum_dim(xp, input: Tensor, dim, keepdim=False, dtype=None):
    return xp.sum(input, axis=dim, keepdims=keepdim, dtype=_sum_dtype(input, dtype))


_sum_dim.derivatives(input=lambda ctx: _unreduce(ctx.grad, ctx.input_shape, ctx.dim,
                                                 ctx.keepdim))


def _sum_dtype(array, dtype):
    # torch sums bool and every integer type into int64
    if dtype is not None:
        return dtype.numpy
    return "int64" if array.dtype.kind in "biu" else None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _sum_all(input, dtype)
    return _sum_dim(input, _dims(dim, input.ndim), keepdim, dtype)


def sum_to_size(input, *size):
    """Sum over the dims that broadcasting expanded, so the result has shape `size`.

    Note [Broadcast reduction]: the engine applies this to every gradient whose shape differs
    from its input's, so no derivative formula undoes broadcasting itself.
    """
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if size == input.shape:
        return input
    lead = input.ndim - len(size)
    if lead < 0 or any(n not in (1, old) for n, old in zip(size, input.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(input.shape)}}}.")
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(size)
                                      if n == 1 and input.shape[i + lead] != 1)
    result = _sum_dim(input, dims, True) if dims else input
    return reshape(result, size) if lead else result


def _check_mean_dtype(input, dtype):
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           f"a floating point or complex dtype. Got: {dtype.legacy_name}")
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {input.dtype.legacy_name}")


@defop("MeanBackward0")
def _mean_all(xp, input: Tensor, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.numpy)
    # torch: sum, then divide in the same dtype (NaN for an empty tensor, without a warning)
    if not input.size:
        return xp.array(xp.nan, dtype=input.dtype)
    return full_sum(input) / input.dtype.type(input.size)


_mean_all.derivatives(input=lambda ctx: expand(ctx.grad / numel(ctx.input_shape),
                                               ctx.input_shape))


@defop("MeanBackward1", save=("dim", "keepdim"))
def _mean_dim(xp, input: Tensor, dim, keepdim=False, dtype=None):
    total = xp.sum(input, axis=dim, keepdims=keepdim, dtype=dtype and dtype.numpy)
    return total / numel([input.shape[d] for d in dim])  # 0/0 is nan for empty dims


_mean_dim.derivatives(input=lambda ctx: _unreduce(
    ctx.grad / numel([ctx.input_shape[d] for d in ctx.dim]), ctx.input_shape, ctx.dim,
    ctx.keepdim))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    _check_mean_dtype(input, dtype)
    if dim is None:
        return _mean_all(input, dtype)
    return _mean_dim(input, _dims(dim, input.ndim), keepdim, dtype)


# ---- max and min ---------------------------------------------------------------------------

def _check_nonempty(name, input):
    if input.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")


def _evenly_distributed(ctx):
    # Ties share the gradient equally, as torch's evenly_distribute_backward.
    is_extremum = ctx.input == ctx.result
    return where(is_extremum, ctx.grad / sum(is_extremum), 0.0)


@defop("MaxBackward1", save=("input", "result"))
def _max_all(xp, input: Tensor):
    _check_nonempty("max", input)
    return xp.max(input)


@defop("MinBackward1", save=("input", "result"))
def _min_all(xp, input: Tensor):
    _check_nonempty("min", input)
    return xp.min(input)


_max_all.derivatives(input=_evenly_distributed)
_min_all.derivatives(input=_evenly_distributed)


def _select_along(xp, input, arg_reduce, dim, keepdim):
    """(values, int64 indices) of the extremum along dim."""
    if input.ndim == 0:
        return input.copy(), xp.zeros((), dtype=xp.int64)
    if input.shape[dim] == 0:
        name = arg_reduce.__name__[3:]  # argmax -> max
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    indices = xp.expand_dims(arg_reduce(input, axis=dim), dim)
    values = xp.take_along_axis(input, indices, axis=dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices.astype(xp.int64)


def _value_selecting_backward(ctx):
    """The gradient goes to the selected element of each slice along dim."""
    if not ctx.input_shape:
        return ctx.grad
    grad, indices = ctx.grad, ctx.result1
    if not ctx.keepdim:
        grad, indices = unsqueeze(grad, ctx.dim), unsqueeze(indices, ctx.dim)
    return scatter_add_into_zeros(grad, ctx.input_shape, ctx.dim, indices._data)


@defop("MaxBackward0", save=("dim", "keepdim", "result1"))
def _max_dim(xp, input: Tensor, dim, keepdim=False):
    return _select_along(xp, input, xp.argmax, dim, keepdim)


@defop("MinBackward0", save=("dim", "keepdim", "result1"))
def _min_dim(xp, input: Tensor, dim, keepdim=False):
    return _select_along(xp, input, xp.argmin, dim, keepdim)


_max_dim.derivatives(input=_value_selecting_backward)
_min_dim.derivatives(input=_value_selecting_backward)


def max(input, dim=None, keepdim=False):
    """max of all elements; with dim, (values, indices); with a tensor, elementwise maximum."""
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        return _max_all(input)
    return max_return(*_max_dim(input, wrap_dim(dim, input.ndim), keepdim))


def min(input, dim=None, keepdim=False):
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    if dim is None:
        return _min_all(input)
    return min_return(*_min_dim(input, wrap_dim(dim, input.ndim), keepdim))


# ---- norms ---------------------------------------------------------------------------------

@defop("LinalgVectorNormBackward0", save=("input", "ord", "dim", "keepdim", "result"))
def _vector_norm(xp, input: Tensor, ord=2, dim=None, keepdim=False):
    magnitude = xp.abs(input)
    if ord == float("inf"):
        return xp.max(magnitude, axis=dim, keepdims=keepdim)
    if ord == float("-inf"):
        return xp.min(magnitude, axis=dim, keepdims=keepdim)
    if ord == 0:
        return xp.sum(magnitude != 0, axis=dim, keepdims=keepdim).astype(input.dtype)
    if ord == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=dim, keepdims=keepdim))
    return xp.sum(magnitude ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_backward(ctx):
    dims = tuple(range(len(ctx.input_shape))) if ctx.dim is None else ctx.dim
    grad = _unreduce(ctx.grad, ctx.input_shape, dims, ctx.keepdim)
    norm = _unreduce(ctx.result, ctx.input_shape, dims, ctx.keepdim)
    x, p = ctx.input, ctx.ord
    if p == 0:
        return None
    if p == 1:
        return grad * sign(x)
    if p in (float("inf"), float("-inf")):
        is_extremum = abs(x) == norm
        count = _unreduce(sum(is_extremum, dims, keepdim=True), ctx.input_shape, dims, True)
        return grad * sign(x) * is_extremum / count
    # d||x||_p/dx = sign(x) |x|^(p-1) / ||x||^(p-1); 0 where the norm is 0 (torch's choice)
    scale = where(norm == 0, 0.0, grad / (norm if p == 2 else norm ** (p - 1)))
    return scale * (x if p == 2 else sign(x) * abs(x) ** (p - 1))


_vector_norm.derivatives(input=_vector_norm_backward)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype.legacy_name}")
    if dtype is not None:
        x = x.to(dtype)
    return _vector_norm(x, float(ord), None if dim is None else _dims(dim, x.ndim), keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm / torch.norm: vector norms (p='fro' is the 2-norm over the given dims)."""
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm with p={p!r} needs tapegrad.linalg.matrix_norm")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


FUNCTIONS = "max mean min norm sum".split()
METHODS = FUNCTIONS + ["sum_to_size"]
LINALG_FUNCTIONS = ["vector_norm"]
