"""Reductions: sum, mean, prod, var/std, logsumexp, max/min and their relatives, logical
reductions and counts, running sums and products, norms, and the engine's broadcast reduction
sum_to_size."""
import builtins
import collections
import functools
import inspect
import math

import numpy as np

from .. import _backend
from .._tensor import Tensor
from ..autograd.engine import summed_dims
from ..autograd.grad_mode import is_recording
from ._checks import (as_int, is_floating_kind, is_reduced, numel, type_name, wrap_dim,
                      wrap_dims)
from ._define import defop
from ._summation import full_sum
from .indexing import getitem, masked_fill, scatter_add_into_zeros, scatter_into_zeros
from .pointwise import div_scalar, maximum, minimum, mul_scalar, where
from .shape import constant_beside, expand, reshape, unsqueeze, zeros_of
from .unary import abs, exp, magnitude_of, sgn
from .._warnings import warn


def numpy_keywords(function):
    """Also accept NumPy's axis= for dim= and keepdims= for keepdim=, as torch does."""
    parameters = list(inspect.signature(function).parameters)
    # NumPy name -> (torch name, its position), for the parameters this function has
    aliases = {numpy: (torch, parameters.index(torch)) for numpy, torch in
               (("axis", "dim"), ("keepdims", "keepdim")) if torch in parameters}

    @functools.wraps(function)
    def accepting(*args, **kwargs):
        if "axis" in kwargs or "keepdims" in kwargs:
            kwargs = _torch_keywords(function.__name__, aliases, len(args), kwargs)
        return function(*args, **kwargs)
    return accepting


def _torch_keywords(name, aliases, n_positional, kwargs):
    renamed = dict(kwargs)
    for key in ("axis", "keepdims"):
        if key not in kwargs:
            continue
        torch_key, position = aliases.get(key, (None, None))
        if torch_key is None or torch_key in kwargs or n_positional > position:
            # torch names the first NumPy spelling given, whichever one failed
            first = next(k for k in kwargs if k in ("axis", "keepdims"))
            raise TypeError(f"{name}() got an unexpected keyword argument '{first}'")
        renamed[torch_key] = renamed.pop(key)
    return renamed


def reduced_dims(dim, ndim):
    """dim=None means all dims; () too, as torch's sum(dim=[]). A 0-d tensor accepts dim 0 or
    -1 and has nothing to reduce."""
    if type(dim) is int:  # the common case first
        dim = wrap_dim(dim, ndim)
        return (dim,) if ndim else ()
    if dim is None or dim == () or dim == []:
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()


def restore_dims(reduced, shape, dims, keepdim):
    """A reduced tensor with its reduced dims back as size 1, so it broadcasts over `shape`:
    one unsqueeze per dim, in increasing order (torch's unsqueeze_multiple)."""
    if keepdim:
        return reduced
    for dim in sorted(d % len(shape) for d in dims):
        reduced = unsqueeze(reduced, dim)
    return reduced


def restore_reduced_dims(reduced, shape, dims, keepdim):
    """restore_dims by one reshape (a view), as torch's restore_reduced_dims (amax, amin)."""
    if keepdim:
        return reduced
    return reshape(reduced, [1 if d in dims else size for d, size in enumerate(shape)])


def unreduce(grad, shape, dims, keepdim):
    """Broadcast a reduced gradient back over the input shape (dims: the reduced ones)."""
    return expand(restore_dims(grad, shape, dims, keepdim), shape)


RETURN_TYPES = {}  # name -> class, published as tapegrad.return_types


def return_type(name, fields):
    """torch.return_types.<name>: a namedtuple that prints field by field, one per line."""
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"
    RETURN_TYPES[name] = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    return RETURN_TYPES[name]


max_return, min_return = return_type("max", ("values", "indices")), return_type(
    "min", ("values", "indices"))


def check_grad_dtype(input, dtype):
    # torch refuses to record an op whose requested result dtype cannot carry a gradient
    if (dtype is not None and not dtype.is_differentiable and input.requires_grad
            and is_recording()):
        raise RuntimeError(f"Autograd not support dtype: {dtype.legacy_name}")


def take_along(input, index, dim):
    """input[..., index, ...] with the integer array `index` along dim (differentiable)."""
    return getitem(input, (slice(None),) * dim + (index,))


def _along(mask, dim, like):
    """A 1-D host array laid out along dim of like (size 1 elsewhere), as a Tensor beside it."""
    return constant_beside(like, mask.reshape((-1,) + (1,) * (like.ndim - dim - 1)))


# ---- sum, mean and prod --------------------------------------------------------------------

@defop("SumBackward0")
def _sum_all(xp, input: Tensor, dtype=None):
    if dtype is None and input.dtype.kind == "f":
        return full_sum(input)
    return added(xp, input, None, False, sum_dtype(input, dtype))


_sum_all.derivatives(input=lambda ctx: expand(ctx.grad, ctx.input_shape))


@defop("SumBackward1", save=("dim", "keepdim"))
def _sum_dim(xp, input: Tensor, dim, keepdim=False, dtype=None):
    return added(xp, input, dim, keepdim, sum_dtype(input, dtype))


_sum_dim.derivatives(input=lambda ctx: unreduce(ctx.grad, ctx.input_shape, ctx.dim,
                                                 ctx.keepdim))


def added(xp, input, dim, keepdim, dtype, count=None):
    """input summed over dim into dtype (None: its own), divided by count if given (a mean).
    bfloat16 and float16 are summed and divided in float32 and rounded once, as torch's CPU
    sums and means do (NumPy adds them in their own precision along an axis). xp.add.reduce
    is xp.sum without its Python wrapper."""
    target = input.dtype if dtype is None else xp.dtype(dtype)
    if is_reduced(target):
        total = xp.add.reduce(input, axis=dim, keepdims=keepdim, dtype=xp.float32)
        return (total if count is None else total / count).astype(target)
    total = xp.add.reduce(input, axis=dim, keepdims=keepdim, dtype=dtype)
    return total if count is None else total / count


def sum_dtype(array, dtype):
    # torch sums and multiplies bool and every integer type into int64
    if dtype is not None:
        return dtype.numpy
    return "int64" if array.dtype.kind in "biu" else None


# sum(x) and mean(x) record SumBackward0/MeanBackward0; with dim, even dim=None, torch records
# SumBackward1/MeanBackward1
_NO_DIM = object()


@numpy_keywords
def sum(input, dim=_NO_DIM, keepdim=False, *, dtype=None):
    check_grad_dtype(input, dtype)
    if dim is _NO_DIM:
        return _sum_all(input, dtype)
    return _sum_dim(input, reduced_dims(dim, input.ndim), keepdim, dtype)


@defop("TraceBackward0")
def _trace(xp, input: Tensor):
    return xp.trace(input, dtype=sum_dtype(input, None))


def _trace_backward(ctx):
    rows, columns = ctx.input_shape
    return where(constant_beside(ctx.grad, np.eye(rows, columns, dtype=bool)), ctx.grad, 0.0)


_trace.derivatives(input=_trace_backward)


def trace(input):
    """The sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype.name == "bool":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return _trace(input)


def sum_to_size(input, *size):
    """Sum over the dims that broadcasting expanded, so the result has shape `size`.

    Note [Broadcast reduction]: the engine applies this to every gradient whose shape differs
    from its input's, so no derivative formula undoes broadcasting itself.
    """
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if not size:  # torch sums everything for an empty size, even a 0-d input
        return _sum_all(input)
    if size == input.shape:
        return input
    dims = summed_dims(input.shape, size)
    if dims is None:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(input.shape)}}}.")
    result = _sum_dim(input, dims, True) if dims else input
    return reshape(result, size) if input.ndim > len(size) else result


def _check_mean_dtype(input, dtype):
    if dtype is not None and not dtype.is_differentiable:
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           f"a floating point or complex dtype. Got: {dtype.legacy_name}")
    if dtype is None and not input.dtype.is_differentiable:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {input.dtype.legacy_name}")


@defop("MeanBackward0")
def _mean_all(xp, input: Tensor, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.numpy)
    # torch: sum, then divide in the same dtype (NaN for an empty tensor, without a warning)
    if not input.size:
        return xp.array(xp.nan, dtype=input.dtype)
    if input.dtype.itemsize == 2:  # half precision: in float32, as torch's mean
        return added(xp, input, None, False, None, input.size)
    return full_sum(input) / input.dtype.type(input.size)


def mean_backward(grad, shape, count):
    """grad / count over shape: torch divides the expanded gradient (DivBackward1 after
    ExpandBackward0); without recording the division of the reduced one gives the same
    numbers at a fraction of the cost."""
    if is_recording():
        return div_scalar(expand(grad, shape), count)
    return expand(grad / count, shape)


def _mean_all_backward(ctx):
    shape = ctx.input_shape  # looked up once: ctx computes it on each access
    return mean_backward(ctx.grad, shape, numel(shape))


_mean_all.derivatives(input=_mean_all_backward)


@defop("MeanBackward1", save=("dim", "keepdim"))
def _mean_dim(xp, input: Tensor, dim, keepdim=False, dtype=None):
    count = numel([input.shape[d] for d in dim])  # 0/0 is nan for empty dims
    return added(xp, input, dim, keepdim, dtype and dtype.numpy, count)


def _mean_dim_backward(ctx):
    shape, dims = ctx.input_shape, ctx.dim
    return mean_backward(restore_dims(ctx.grad, shape, dims, ctx.keepdim), shape,
                         numel([shape[d] for d in dims]))


_mean_dim.derivatives(input=_mean_dim_backward)


@numpy_keywords
def mean(input, dim=_NO_DIM, keepdim=False, *, dtype=None):
    _check_mean_dtype(input, dtype)
    if dim is _NO_DIM:
        return _mean_all(input, dtype)
    return _mean_dim(input, reduced_dims(dim, input.ndim), keepdim, dtype)


@defop("ProdBackward0", save=("input", "result"))
def _prod_all(xp, input: Tensor, dtype=None):
    return xp.prod(input, dtype=sum_dtype(input, dtype))


_prod_all.derivatives(input=lambda ctx: _prod_backward(ctx.grad, ctx.input, ctx.result, None,
                                                       False))


@defop("ProdBackward1", save=("input", "result", "dim", "keepdim"))
def _prod_dim(xp, input: Tensor, dim, keepdim=False, dtype=None):
    return xp.prod(input, axis=dim, keepdims=keepdim, dtype=sum_dtype(input, dtype))


_prod_dim.derivatives(input=lambda ctx: _prod_backward(ctx.grad, ctx.input, ctx.result,
                                                       ctx.dim, ctx.keepdim))


def _prod_backward(grad, input, result, dim, keepdim):
    """d prod / dx_i is the product of the other elements, as torch's prod_backward: result /
    x_i when the tensor has no zero (torch looks at the whole tensor), else a product that
    never divides; a full product with two zeros or more has gradient 0 unless recording."""
    if input.ndim == 0:
        return grad
    # a product is holomorphic: the conjugate Wirtinger gradient is the real formula on the
    # conjugated values
    input, result = conj_of(input), conj_of(result)
    dims = tuple(range(input.ndim)) if dim is None else dim
    grad = restore_dims(grad, input.shape, dims, keepdim)
    zeros = (input == 0)._data.sum()
    if not zeros:
        return grad * (restore_dims(result, input.shape, dims, keepdim) / input)
    if dim is not None:
        return grad * _product_of_others(input, dim[0])
    if zeros > 1 and not is_recording():
        return zeros_of(input)
    return reshape(grad * _product_of_others(reshape(input, (-1,)), 0), input.shape)


def _product_of_others(input, dim):
    """The product of all other elements along dim: the running product of the elements before
    each position times that of the ones after it, each over a shifted copy that starts with 1
    (torch's prod_safe_zeros_backward, whose grouping decides the NaNs of second order)."""
    size = input.shape[dim]
    if size == 1:
        return constant_beside(input, np.ones(input.shape, input._data.dtype))
    positions = np.arange(size)
    first = _along(positions == 0, dim, input)
    before = cumprod(where(first, 1.0, take_along(input, np.maximum(positions - 1, 0), dim)), dim)
    after = cumprod(where(first, 1.0, take_along(input, np.minimum(size - positions, size - 1),
                                                 dim)), dim)
    return before * take_along(after, positions[::-1], dim)


@numpy_keywords
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along one dim."""
    check_grad_dtype(input, dtype)
    if dim is None:
        return _prod_all(input, dtype)
    return _prod_dim(input, reduced_dims(wrap_dim(dim, input.ndim), input.ndim), keepdim, dtype)


# ---- variance and standard deviation -------------------------------------------------------

DEGREES_OF_FREEDOM_WARNING = (
    "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
    "factor (input numel divided by output numel).")


def variance_of(xp, input, dim, correction, keepdim):
    """Squared deviations summed in double, over max(0, n - correction), as torch's CPU
    kernels; dim None reduces everything."""
    work = input.astype(xp.complex128 if input.dtype.kind == "c" else xp.float64)
    count = work.size if dim is None else numel([input.shape[d] for d in dim])
    deviation = xp.abs(work - xp.sum(work, axis=dim, keepdims=True) / count)
    squares = xp.sum(deviation * deviation, axis=dim, keepdims=keepdim)
    return (squares / builtins.max(0, count - correction)).astype(input.real.dtype)


@defop("VarBackward0", save=("input", "dim", "correction", "keepdim"))
def _var(xp, input: Tensor, dim, correction, keepdim):
    return variance_of(xp, input, dim, correction, keepdim)


@defop("StdBackward0", save=("input", "dim", "correction", "keepdim", "result"))
def _std(xp, input: Tensor, dim, correction, keepdim):
    # the root taken in double, as torch: a float32 variance can overflow where its root does not
    wide = input.astype(xp.complex128 if input.dtype.kind == "c" else xp.float64, copy=False)
    return xp.sqrt(variance_of(xp, wide, dim, correction, keepdim)).astype(input.real.dtype)


def var_backward(grad, input, dim, correction, keepdim):
    """2 (x - mean) / (n - correction). Reducing everything (dim None) with no degrees of
    freedom left, torch gives inf, or NaN where x equals the mean."""
    if dim is None or input.ndim == 0:
        freedom = input.numel() - correction
        if freedom <= 0:
            return grad * where(input == mean(input), math.nan, math.inf)
        return mul_scalar(grad, 2.0 / freedom) * (input - mean(input))
    freedom = numel([input.shape[d] for d in dim]) - correction
    scale = 2.0 / freedom if freedom else math.inf
    return mul_scalar(restore_dims(grad, input.shape, dim, keepdim), scale) * (
        input - mean(input, dim, True))


def _std_backward(ctx):
    zero = ctx.result == 0  # torch gives 0 there; the safe divisor keeps 0/0 out of the
    grad = where(zero, 0.0, ctx.grad / where(zero, 1.0, ctx.result * 2))  # double backward
    return var_backward(grad, ctx.input, ctx.dim, ctx.correction, ctx.keepdim)


_var.derivatives(input=lambda ctx: var_backward(ctx.grad, ctx.input, ctx.dim, ctx.correction,
                                                 ctx.keepdim))
_std.derivatives(input=_std_backward)


def variance_arguments(name, input, dim, unbiased, correction):
    """(dims or None, correction) from torch's var/std overloads: (dim, unbiased, keepdim),
    (dim, *, correction, keepdim) and (unbiased); warns as torch with no degrees of freedom."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() takes unbiased or correction, not both")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = None if dim is None or dim == () or dim == [] else reduced_dims(dim, input.ndim)
    kept = 1 if dims is None else numel([n for d, n in enumerate(input.shape) if d not in dims])
    count = input.numel() // kept if kept else 0
    if count - correction <= 0:
        warn(DEGREES_OF_FREEDOM_WARNING.format(name), UserWarning)
    return dims, correction


@numpy_keywords
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance; torch's default correction is 1 (Bessel's)."""
    dims, correction = variance_arguments("var", input, dim, unbiased, correction)
    return _var(input, dims, correction, keepdim)


@numpy_keywords
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, correction = variance_arguments("std", input, dim, unbiased, correction)
    return _std(input, dims, correction, keepdim)


# ---- logsumexp -----------------------------------------------------------------------------

@defop("LogsumexpBackward0", save=("input", "result", "dim", "keepdim"), promote="float")
def _logsumexp(xp, input: Tensor, dim, keepdim=False):
    # complex values shift by their real parts' peak (as torch does): a complex peak's
    # imaginary part would move log's result off the principal branch
    peak = xp.max(input.real, axis=dim, keepdims=True, initial=-xp.inf)
    # Shifting by an infinite peak would give inf - inf: such slices stay unshifted.
    peak = xp.where(xp.isinf(peak), 0, peak)
    total = xp.sum(xp.exp(input - peak), axis=dim, keepdims=keepdim)
    return xp.log(total) + (peak if keepdim else peak.squeeze(dim))


def _logsumexp_backward(ctx):
    shape, dim, keepdim = ctx.input_shape, ctx.dim, ctx.keepdim
    result = restore_dims(ctx.result, shape, dim, keepdim)
    # holomorphic: the conjugate Wirtinger gradient conjugates the real formula's factor
    return restore_dims(ctx.grad, shape, dim, keepdim) * conj_of(exp(ctx.input - result))


_logsumexp.derivatives(input=_logsumexp_backward)


@numpy_keywords
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) along dim, shifted by the maximum so it neither overflows nor
    underflows."""
    if dim in ((), []) and input.numel() and input.ndim and not keepdim:
        # torch reduces everything for dim=(), then fails to add the unsqueezed maximum back
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * input.ndim}")
    return _logsumexp(input, reduced_dims(dim, input.ndim), keepdim)


# ---- max, min, amax, amin, argmax, argmin --------------------------------------------------

def _check_nonempty(name, input):
    if input.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")


def check_reduced_sizes(name, input, dims):
    """torch's error for reducing a dim of size 0 with an op that has no identity."""
    for dim in dims:
        if input.ndim and input.shape[dim] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def evenly_distributed(ctx):
    """Ties share the gradient equally (torch's evenly_distribute_backward, a masked fill of
    zeros); a NaN result is shared among the NaNs."""
    input, result = ctx.input, ctx.result
    is_extremum = input != input if result._data != result._data else input == result
    return masked_fill(zeros_of(ctx.grad, ctx.input_shape), is_extremum,
                       ctx.grad / sum(is_extremum))


@defop("MaxBackward1", save=("input", "result"))
def _max_all(xp, input: Tensor):
    return xp.max(input)


@defop("MinBackward1", save=("input", "result"))
def _min_all(xp, input: Tensor):
    return xp.min(input)


_max_all.derivatives(input=evenly_distributed)
_min_all.derivatives(input=evenly_distributed)


def _select_along(xp, input, arg_reduce, dim, keepdim):
    """(values, int64 indices) of the extremum along dim."""
    if input.ndim == 0:
        return input.copy(), xp.zeros((), dtype=xp.int64)
    indices = arg_reduce(input, axis=dim).astype(xp.int64, copy=False)
    values = _at_indices(xp, input, indices, dim)
    if keepdim:
        kept = input.shape[:dim] + (1,) + input.shape[dim + 1:]
        values, indices = values.reshape(kept), indices.reshape(kept)
    return values, indices


def _at_indices(xp, input, indices, dim):
    """input's elements at `indices` along dim (indices shaped as input without dim): one
    fancy index into input seen as (before dim, dim, after dim), cheaper than
    take_along_axis's index grid."""
    outer, size, inner = numel(input.shape[:dim]), input.shape[dim], numel(input.shape[dim + 1:])
    if inner == 1:  # along the last dim: one flat index
        flat = xp.arange(0, outer * size, size) + indices.reshape(-1)
        return input.reshape(-1)[flat].reshape(indices.shape)
    blocks = input.reshape(outer, size, inner)
    values = blocks[xp.arange(outer)[:, None], indices.reshape(outer, inner), xp.arange(inner)]
    return values.reshape(indices.shape)


def pick_along(xp, input, indices, dim, keepdim):
    """(values, int64 indices) of input at `indices` (size 1 along dim)."""
    values = xp.take_along_axis(input, indices, axis=dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices.astype(xp.int64)


def value_selecting_backward(grad, indices, shape, dim, keepdim, distinct=False):
    """The gradient goes to the selected element of each slice along dim; indices that are
    distinct along dim (one per slice) scatter into zeros as torch's max(dim) does, others
    add up."""
    if not shape:
        return grad
    # the indices only say where: an array, also in a formula on arrays
    index = indices._data if isinstance(indices, Tensor) else indices
    if not keepdim:
        grad = unsqueeze(grad, dim)
        index = _backend.array_module(index).expand_dims(index, dim)
    if distinct:
        return scatter_into_zeros(grad, shape, dim, index)
    return scatter_add_into_zeros(grad, shape, dim, index)


def _value_selecting_backward(ctx):
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim,
                                    ctx.keepdim, distinct=True)


@defop("MaxBackward0", save=("dim", "keepdim", "result1"))
def _max_dim(xp, input: Tensor, dim, keepdim=False):
    return _select_along(xp, input, xp.argmax, dim, keepdim)


@defop("MinBackward0", save=("dim", "keepdim", "result1"))
def _min_dim(xp, input: Tensor, dim, keepdim=False):
    return _select_along(xp, input, xp.argmin, dim, keepdim)


_max_dim.derivatives(input=_value_selecting_backward)
_min_dim.derivatives(input=_value_selecting_backward)


def _extremum(name, input, dim, keepdim, other, reduce_all, reduce_dim, elementwise):
    if type(dim) is int and other is None:  # the common case first
        _refuse_complex(input, name, by_dim=True)
        dim = wrap_dim(dim, input.ndim)
        check_reduced_sizes(name, input, (dim,))
        return reduce_dim(input, dim, keepdim)
    if isinstance(dim, Tensor) or other is not None:
        return elementwise(input, dim if other is None else other)
    if dim is _ALL:
        _refuse_complex(input, f"{name}_all")
        _check_nonempty(name, input)
        return reduce_all(input)
    if as_int(dim) is None:  # torch names its three overloads
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type_name(dim)}), but expected one of:\n * (Tensor input, *, Tensor "
                        "out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors "
                        "out = None)\n")
    _refuse_complex(input, name, by_dim=True)
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes(name, input, (dim,))
    return reduce_dim(input, dim, keepdim)


def _refuse_complex(input, kernel, by_dim=False):
    """Complex numbers have no order: torch's errors for the reductions that need one."""
    if input.dtype.is_complex:
        if by_dim:
            raise RuntimeError(f"{kernel}(): does not support complex input")
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")


_ALL = object()  # max(x): no dim given (torch refuses an explicit None)


@numpy_keywords
def max(input, dim=_ALL, keepdim=False, *, other=None):
    """max of all elements; with dim, (values, indices); with a tensor, elementwise maximum."""
    result = _extremum("max", input, dim, keepdim, other, _max_all, _max_dim, maximum)
    return max_return(*result) if type(result) is tuple else result


@numpy_keywords
def min(input, dim=_ALL, keepdim=False, *, other=None):
    result = _extremum("min", input, dim, keepdim, other, _min_all, _min_dim, minimum)
    return min_return(*result) if type(result) is tuple else result


def _split_among_ties(ctx):
    """Ties share the gradient equally (torch's scale_grad_by_count)."""
    shape, dim, keepdim = ctx.input_shape, ctx.dim, ctx.keepdim
    is_extremum = ctx.input == restore_reduced_dims(ctx.result, shape, dim, keepdim)
    count = sum(is_extremum, dim, keepdim=True)
    return restore_reduced_dims(ctx.grad, shape, dim, keepdim) / count * is_extremum


@defop("AmaxBackward0", save=("input", "result", "dim", "keepdim"))
def _amax(xp, input: Tensor, dim, keepdim=False):
    return xp.amax(input, axis=dim, keepdims=keepdim)


@defop("AminBackward0", save=("input", "result", "dim", "keepdim"))
def _amin(xp, input: Tensor, dim, keepdim=False):
    return xp.amin(input, axis=dim, keepdims=keepdim)


_amax.derivatives(input=_split_among_ties)
_amin.derivatives(input=_split_among_ties)


def _extremum_dims(name, input, dim):
    if dim is None or dim == () or dim == []:
        _check_nonempty(name, input)
    elif input.ndim:
        # torch names the first empty dim in the order given
        check_reduced_sizes(name, input, [wrap_dim(d, input.ndim) for d in
                                           ((dim,) if isinstance(dim, int) else dim)])
    return reduced_dims(dim, input.ndim)


@numpy_keywords
def amax(input, dim=(), keepdim=False):
    """Maximum over dims (all by default); ties share the gradient, unlike max(dim)."""
    _refuse_complex(input, "max_values_cpu")
    return _amax(input, _extremum_dims("amax", input, dim), keepdim)


@numpy_keywords
def amin(input, dim=(), keepdim=False):
    _refuse_complex(input, "min_values_cpu")
    return _amin(input, _extremum_dims("amin", input, dim), keepdim)


def _arg_extremum(xp, arg_reduce, input, dim, keepdim):
    if dim is None:
        index = xp.asarray(arg_reduce(input.ravel()))
        return index.reshape((1,) * input.ndim if keepdim else ()).astype(xp.int64)
    index = arg_reduce(input.reshape(input.shape or (1,)), axis=dim, keepdims=keepdim)
    return index.reshape(index.shape if input.ndim else ()).astype(xp.int64)


def _without_gradient(name, reduce_with):
    """An op with integer or bool results, and so no node: `reduce_with(xp, xp.<name>, ...)`."""
    @defop(None, name="_" + name)
    def reduction(xp, input: Tensor, dim, keepdim):
        return reduce_with(xp, getattr(xp, name), input, dim, keepdim)
    return reduction


_argmax = _without_gradient("argmax", _arg_extremum)
_argmin = _without_gradient("argmin", _arg_extremum)


def _arg_dim(name, input, dim):
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    if input.dtype.name == "bool":
        raise RuntimeError(f"{name}(): does not support bool input")
    _refuse_complex(input, name, by_dim=True)
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        return None
    dim = wrap_dim(dim, input.ndim)
    check_reduced_sizes(name, input, (dim,))
    return dim


@numpy_keywords
def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (the first one on ties, NaN counting as largest)."""
    return _argmax(input, _arg_dim("argmax", input, dim), keepdim)


@numpy_keywords
def argmin(input, dim=None, keepdim=False):
    return _argmin(input, _arg_dim("argmin", input, dim), keepdim)


# ---- logical reductions and counts ---------------------------------------------------------

def _logical_dims(dim, ndim):
    # unlike sum, all(dim=()) reduces nothing
    if dim is None:
        return None
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()


def _logical(xp, reduce, input, dim, keepdim):
    result = reduce(input, axis=dim, keepdims=keepdim)
    return xp.asarray(result, dtype=xp.uint8 if input.dtype == xp.uint8 else bool)


_all = _without_gradient("all", _logical)
_any = _without_gradient("any", _logical)


@numpy_keywords
def all(input, dim=None, keepdim=False):
    """Whether every element is nonzero; bool, or uint8 for a uint8 input (as torch)."""
    return _all(input, _logical_dims(dim, input.ndim), keepdim)


@numpy_keywords
def any(input, dim=None, keepdim=False):
    return _any(input, _logical_dims(dim, input.ndim), keepdim)


@defop(None)
def _count_nonzero(xp, input: Tensor, dim):
    return xp.asarray(xp.count_nonzero(input, axis=dim), dtype=xp.int64)


@numpy_keywords
def count_nonzero(input, dim=None):
    return _count_nonzero(input, reduced_dims(dim, input.ndim))


# ---- running sums and products -------------------------------------------------------------

def _running(xp, accumulate, input, dim, dtype):
    """cumsum/cumprod as torch's CPU kernel: bools and integers into int64, floats accumulated
    in double and rounded once per element."""
    if dtype is not None:
        target = dtype.numpy
    else:
        target = xp.dtype(xp.int64) if input.dtype.kind in "biu" else input.dtype
    work = input.reshape(input.shape or (1,)).astype(target, copy=False)
    accumulator = xp.float64 if is_floating_kind(target) else target
    return accumulate(work, axis=dim, dtype=accumulator).astype(target).reshape(input.shape)


@defop("CumsumBackward0", save=("dim",))
def _cumsum(xp, input: Tensor, dim, dtype=None):
    return _running(xp, xp.cumsum, input, dim, dtype)


def reversed_cumsum(grad, dim):
    """Sums from each position to the end of dim: flip, cumsum, flip."""
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    backwards = np.arange(grad.shape[dim] - 1, -1, -1)
    return take_along(cumsum(take_along(grad, backwards, dim), dim), backwards, dim)


_cumsum.derivatives(input=lambda ctx: reversed_cumsum(ctx.grad, ctx.dim))


@defop("CumprodBackward0", save=("input", "dim", "result"))
def _cumprod(xp, input: Tensor, dim, dtype=None):
    if input.dtype.kind == "c" and input.ndim and input.size:
        # torch's kernel multiplies the first element by 1 too: (1+0j)(inf+0j) is inf+nanj
        input = input.copy()
        first = (slice(None),) * dim + (0,)
        input[first] = input[first] * 1
    return _running(xp, xp.cumprod, input, dim, dtype)


def _cumprod_backward(ctx):
    """grad_k = sum over j >= k of grad_j * prod over m <= j, m != k of x_m, grouped as torch's
    cumprod_backward (its NaNs and infinities at the edges follow from that grouping)."""
    grad, dim = ctx.grad, ctx.dim
    input, result = conj_of(ctx.input), conj_of(ctx.result)  # holomorphic, as prod's
    if input.numel() <= 1 or input.shape[dim] == 1:
        return grad
    is_zero = input == 0
    if not is_zero.any():
        return reversed_cumsum(result * grad, dim) / input
    if is_recording():  # create_graph: a formula that is itself differentiable
        return _cumprod_backward_exact(grad, input, dim)
    zeros_so_far = cumsum(is_zero, dim)
    before_zero = zeros_so_far == 0
    # before the first zero every product holding x_k is nonzero up to it: divide by x_k
    before = reversed_cumsum(where(before_zero, result * grad, 0.0), dim) / input
    # at the first zero z1: the running product up to z1 - 1 times the sum, up to the second
    # zero, of grad_j times the product of the elements after z1
    upto_second = zeros_so_far == 1
    first_zero = is_zero & upto_second
    between = cumprod(where(upto_second & ~first_zero, input, 1.0), dim)
    terms = sum(between * where(upto_second, grad, 0.0), dim, True)
    count = sum(before_zero, dim, True)
    last_before = before_zero & (cumsum(before_zero, dim) == count)
    prefix = where(count == 0, 1.0, sum(where(last_before, result, 0.0), dim, True))
    return where(before_zero, before, where(first_zero, terms * prefix, 0.0))


def _cumprod_backward_exact(grad, input, dim):
    """The same sum without division, O(n^2) in the size of dim, as torch's loop: for each k
    the product of the elements before k times the running product of those after it."""
    from .joining import cat, stack
    size = input.shape[dim]

    def part(tensor, start, stop=None):
        return getitem(tensor, (slice(None),) * dim + (slice(start, stop),))
    ones = constant_beside(input, np.ones(part(input, 0, 1).shape, input._data.dtype))
    columns = []
    for k in range(size):
        if k == 0:
            omitted = cat([ones, cumprod(part(input, 1), dim)], dim)
        else:
            until = prod(part(input, 0, k), dim, True)
            omitted = until if k == size - 1 else cat(
                [until, until * cumprod(part(input, k + 1), dim)], dim)
        columns.append(sum(part(grad, k) * omitted, dim))
    return stack(columns, dim)


_cumprod.derivatives(input=_cumprod_backward)


def _check_running_dtype(kernel, dtype):
    if dtype is not None and dtype.name == "bool":  # torch has no bool accumulation kernel
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@numpy_keywords
def cumsum(input, dim, *, dtype=None):
    check_grad_dtype(input, dtype)
    _check_running_dtype("cumsum_out_cpu", dtype)
    return _cumsum(input, wrap_dim(dim, input.ndim), dtype)


@numpy_keywords
def cumprod(input, dim, *, dtype=None):
    check_grad_dtype(input, dtype)
    _check_running_dtype("cumprod_out_cpu", dtype)
    return _cumprod(input, wrap_dim(dim, input.ndim), dtype)


# ---- norms ---------------------------------------------------------------------------------

@defop("LinalgVectorNormBackward0", save=("input", "ord", "dim", "keepdim", "result"))
def _vector_norm(xp, input: Tensor, ord=2, dim=None, keepdim=False):
    return norm_of(xp, input, ord, dim, keepdim)


def norm_of(xp, input, ord, dim, keepdim):
    """The ord-norm of an array over dim (None: every dim). Half-precision inputs are summed in
    float32 and the norm rounded once, as torch's opmath does: summing in bfloat16 rounds at
    every partial sum."""
    if input.dtype.name in ("float16", "bfloat16"):
        return norm_of(xp, input.astype(xp.float32), ord, dim, keepdim).astype(input.dtype)
    magnitude = magnitude_of(xp, input)
    if ord == float("inf"):
        return xp.max(magnitude, axis=dim, keepdims=keepdim)
    if ord == float("-inf"):
        return xp.min(magnitude, axis=dim, keepdims=keepdim)
    if ord == 0:
        # a count, in the magnitude's real dtype as torch's norm of complex is real
        return xp.sum(magnitude != 0, axis=dim, keepdims=keepdim).astype(magnitude.dtype)
    if ord == 2:
        return xp.sqrt(xp.sum(magnitude * magnitude, axis=dim, keepdims=keepdim))
    return xp.sum(magnitude ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_backward(ctx):
    # a norm over every dim keeps its 0-d gradient as it is (torch passes no dims)
    dims = () if ctx.dim is None else ctx.dim
    return norm_backward(ctx.grad, ctx.input, ctx.ord, ctx.result, dims, ctx.keepdim)


def norm_backward(grad, x, p, norm, dims, keepdim):
    """The gradient of the p-norm of x over dims, torch's norm_backward case by case in p."""
    grad = restore_dims(grad, x.shape, dims, keepdim)
    norm = restore_dims(norm, x.shape, dims, keepdim)
    if p == 0:
        return None
    if p == 1:
        return sgn(x) * grad
    if p == 2:
        return grad * masked_fill(x / norm, norm == 0, 0.0)
    if math.isinf(p):
        magnitude = abs(x)
        is_extremum = (magnitude == norm) | (magnitude != magnitude)
        return sgn(x) * (grad / sum(is_extremum, dims or None, keepdim=True) * is_extremum)
    if p < 1:
        scaled = sgn(x) * masked_fill(abs(x) ** (p - 1), x == 0, 0.0)
        return scaled * grad * norm ** (1 - p)
    scaled = sgn(x) * abs(x) ** (p - 1) if p < 2 else x * abs(x) ** (p - 2)
    return scaled * masked_fill(grad / norm ** (p - 1), norm == 0, 0.0)


_vector_norm.derivatives(input=_vector_norm_backward)


def _check_identity(x, ord, dims):
    """inf and negative orders have no value for an empty reduction."""
    if ord >= 0 and ord != math.inf or x.numel():
        return
    if dims is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty "
                           "tensor because the operation does not have an identity")
    for dim in dims:
        if x.shape[dim] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on the "
                               f"dimension {dim}because this dimension is empty and the "
                               "operation does not have an identity")


# at::norm(input, p, dim): the same norm as linalg.vector_norm, under its own node name
@defop("NormBackward1", save=("input", "ord", "dim", "keepdim", "result"))
def aten_norm(xp, input: Tensor, ord, dim, keepdim=False):
    return norm_of(xp, input, ord, dim, keepdim)


aten_norm.derivatives(input=_vector_norm_backward)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype.legacy_name}")
    if dtype is not None:
        x = x.to(dtype)
    dims = None if dim is None else reduced_dims(dim, x.ndim)
    _check_identity(x, float(ord), dims)
    return _vector_norm(x, float(ord), dims, keepdim)


def _check_matrix_norm(input, ord, dim):
    """torch's checks, in its order, for a matrix norm reached through torch.norm."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = range(input.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dims))


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm / torch.norm: vector norms over dim (all by default); p='fro' over at most
    two dims is the 2-norm, p='nuc' the nuclear norm of the matrices over two dims."""
    if p is None or p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
        p = 2
    if isinstance(p, str):
        _check_matrix_norm(input, p, dim)
        from .decomposition import matrix_norm  # decomposition builds on this module
        return matrix_norm(input, p, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


FUNCTIONS = ("all amax amin any argmax argmin count_nonzero cumprod cumsum logsumexp max mean min "
             "norm prod std sum trace var").split()
METHODS = FUNCTIONS + ["sum_to_size"]
LINALG_FUNCTIONS = ["vector_norm"]


from .complex_parts import conj_of  # noqa: E402  (it builds on this module)
