"""Statistics: NaN-ignoring sums and means, aminmax, hash_tensor, std_mean and var_mean,
quantiles, covariance and correlation."""

import numpy as np

from .._creation import full_like
from .._tensor import Tensor
from ._checks import is_floating_kind, numel, wrap_dim
from ._define import defop
from .complex_parts import conj_of, real, view_as_complex, view_as_real
from .pointwise import clamp, lerp, where
from .reduction import (added, check_grad_dtype, mean_backward, numpy_keywords, reduced_dims,
                        restore_dims, return_type, sum, sum_dtype, unreduce, var_backward,
                        variance_arguments, variance_of)
from .shape import constant_beside, reshape, transpose, unsqueeze
from .sorting import sort
from .unary import sqrt
from .._warnings import warn

# ---- nansum, nanmean, aminmax, hash_tensor ------------------------------------------------

@defop("NansumBackward0", save=("input", "dim", "keepdim"))
def _nansum(xp, input: Tensor, dim, keepdim=False, dtype=None):
    if input.dtype.kind == "V":  # NumPy's nansum keeps the NaNs of ml_dtypes' bfloat16
        without_nan = xp.where(xp.isnan(input), input.dtype.type(0), input)
        return added(xp, without_nan, dim, keepdim, sum_dtype(input, dtype))
    return xp.nansum(input, axis=dim, keepdims=keepdim, dtype=sum_dtype(input, dtype))


_nansum.derivatives(input=lambda ctx: unreduce(ctx.grad, ctx.input_shape, ctx.dim,
                                               ctx.keepdim) * (ctx.input == ctx.input))


@numpy_keywords
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum, with NaN counting as zero."""
    check_grad_dtype(input, dtype)
    return _nansum(input, reduced_dims(dim, input.ndim), keepdim, dtype)


@numpy_keywords
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """mean over the elements that are not NaN (NaN where there is none)."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.legacy_name}")
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be "
                           f"either a floating point or complex dtype. Got: {dtype.legacy_name}")
    count = sum(input == input, dim, keepdim) if dim is not None else sum(input == input)
    return nansum(input, dim, keepdim, dtype=dtype) / count


aminmax_return = return_type("aminmax", ("min", "max"))


@defop("AminmaxBackward0", save=("input", "result0", "result1", "dim", "keepdim"))
def _aminmax(xp, input: Tensor, dim, keepdim):
    return (xp.amin(input, axis=dim, keepdims=keepdim),
            xp.amax(input, axis=dim, keepdims=keepdim))


def _aminmax_backward(ctx):
    """Each of the two results splits its gradient among its ties, as amin and amax do."""
    shape, keepdim = ctx.input_shape, ctx.keepdim
    dims = tuple(range(len(shape))) if ctx.dim is None else ctx.dim
    total = None
    for grad, result in zip(ctx.grads, (ctx.result0, ctx.result1)):
        if grad is None:
            continue
        is_extremum = ctx.input == restore_dims(result, shape, dims, keepdim)
        count = sum(is_extremum, dims, keepdim=True)
        part = restore_dims(grad, shape, dims, keepdim) / count * is_extremum
        total = part if total is None else total + part
    return total


_aminmax.derivatives(input=_aminmax_backward)


@numpy_keywords
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over dim, or over every element."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        dims = None
    else:
        dims = (wrap_dim(dim, input.ndim),)
        if input.ndim and input.shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
        dims = dims if input.ndim else ()
    return aminmax_return(*_aminmax(input, dims, keepdim))


@defop(None)
def _hash_tensor(xp, input: Tensor, dim, keepdim):
    # each element as its 64-bit float or integer, whose bits are xor-ed together
    inexact = input.dtype.kind == "c" or is_floating_kind(input.dtype)
    wide = input.astype(xp.float64 if inexact else xp.int64)
    return xp.bitwise_xor.reduce(wide.view(xp.uint64), axis=dim, keepdims=keepdim)


@numpy_keywords
def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """xor of the bits of every element (along dim), as a uint64 tensor."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    dims = reduced_dims(dim, input.ndim)
    if input.numel() == 0 and (dim is None or dim == () or dim == []):
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    return _hash_tensor(input.reshape(input.shape or (1,)) if dims else input, dims, keepdim)


# ---- std_mean, var_mean -------------------------------------------------------------------

def _in_double(xp, input):
    return input.astype(xp.complex128 if input.dtype.kind == "c" else xp.float64, copy=False)


def _mean_of_moments(xp, input, dim, keepdim):
    # in double, rounded once, as torch's Welford kernel: a float32 mean of 3e38s is finite
    return xp.mean(_in_double(xp, input), axis=dim, keepdims=keepdim).astype(input.dtype)


@defop("StdMeanBackward0", save=("input", "dim", "correction", "keepdim", "result0"))
def _std_mean(xp, input: Tensor, dim, correction, keepdim):
    variance = variance_of(xp, _in_double(xp, input), dim, correction, keepdim)
    return (xp.sqrt(variance).astype(input.real.dtype), _mean_of_moments(xp, input, dim, keepdim))


@defop("VarMeanBackward0", save=("input", "dim", "correction", "keepdim"))
def _var_mean(xp, input: Tensor, dim, correction, keepdim):
    return (variance_of(xp, input, dim, correction, keepdim),
            _mean_of_moments(xp, input, dim, keepdim))


def _mean_part(ctx):
    """The mean result's share of the gradient: spread evenly over what it averaged."""
    grad, shape = ctx.grads[1], ctx.input_shape
    if grad is None:
        return None
    dims = tuple(range(len(shape))) if ctx.dim is None else ctx.dim
    return mean_backward(restore_dims(grad, shape, dims, ctx.keepdim), shape,
                         numel([shape[d] for d in dims]))


def _with_mean_part(spread_part):
    def formula(ctx):
        parts = [part for part in (spread_part(ctx), _mean_part(ctx)) if part is not None]
        return parts[0] + parts[1] if len(parts) == 2 else parts[0]
    return formula


def _std_part(ctx):
    grad = ctx.grads[0]
    if grad is None:
        return None
    zero = ctx.result0 == 0  # as std: 0 there, with 0/0 kept out of the double backward
    grad = where(zero, 0.0, grad / where(zero, 1.0, ctx.result0 * 2))
    return var_backward(grad, ctx.input, ctx.dim, ctx.correction, ctx.keepdim)


def _var_part(ctx):
    grad = ctx.grads[0]
    if grad is None:
        return None
    return var_backward(grad, ctx.input, ctx.dim, ctx.correction, ctx.keepdim)


_std_mean.derivatives(input=_with_mean_part(_std_part))
_var_mean.derivatives(input=_with_mean_part(_var_part))


def _moments(name, op, input, dim, unbiased, keepdim, correction):
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims, correction = variance_arguments(name, input, dim, unbiased, correction)
    return op(input, dims, correction, keepdim)


@numpy_keywords
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) in one pass."""
    return _moments("std_mean", _std_mean, input, dim, unbiased, keepdim, correction)


@numpy_keywords
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) in one pass."""
    return _moments("var_mean", _var_mean, input, dim, unbiased, keepdim, correction)


# ---- quantile and nanquantile --------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(name, input, q, interpolation):
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        return
    if q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if q.dtype is not input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")


def _sorted_slices(input, dim, keepdim):
    """The values sorted along the reduced dim, moved last, laid out as the result will be
    (kept dims of size 1 stay), and the result's shape without the quantile dim."""
    if dim is None:
        ordered = sort(reshape(input, (-1,))).values
        kept = [1] * input.ndim if keepdim else []
    else:
        dim = wrap_dim(dim, input.ndim)
        if dim == input.ndim - 1 or input.ndim == 0:
            ordered = sort(input).values
        else:
            ordered = sort(transpose(unsqueeze(input, -1), dim, -1)).values
        kept = list(input.shape)
        if keepdim:
            kept[dim:dim + 1] = [1] if input.ndim else []
        else:
            del kept[dim:dim + 1]
    return reshape(ordered, kept + [ordered.shape[-1] if ordered.ndim else 1])


def _ranks(ordered, q, interpolation, ignore_nan):
    """The position of each quantile in the sorted slices, shape (..., len(q)): fractional
    for linear and midpoint, differentiable in q."""
    is_nan = ordered != ordered
    if ignore_nan:  # NaNs sort last: a slice's valid part is its first `count` values
        ranks = q * (sum(~is_nan, -1, keepdim=True) - 1)
        ranks = where(ranks < 0, 0.0, ranks)  # only NaN: the first, a NaN
    else:
        last = ordered.shape[-1] - 1
        ranks = where(is_nan.any(-1, keepdim=True), float(last), q * last)  # NaN sits last
    if interpolation == "lower":
        return ranks.floor()
    if interpolation == "higher":
        return ranks.ceil()
    if interpolation == "nearest":
        return ranks.round()  # half to even, as torch
    return ranks


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """torch's quantile: gather the neighbours of each rank in the sorted slices, and lerp."""
    _check_quantile("quantile", input, q, interpolation)  # torch's text for nanquantile too
    scalar_q = not isinstance(q, Tensor)
    q = (constant_beside(input, np.full(1, q, input.dtype.numpy)) if scalar_q
         else reshape(q, (-1,)))
    ordered = _sorted_slices(input, dim, keepdim)
    ranks = _ranks(ordered, q, interpolation, ignore_nan)
    below = ranks.long()
    result = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        result = lerp(result, ordered.gather(-1, ranks.ceil().long()), weights)
    if scalar_q:
        return result.squeeze_(-1)
    return result.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)  # the quantiles move first


@numpy_keywords
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles along dim (of all elements by default); NaN if a slice has NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


@numpy_keywords
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile over the values that are not NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


# ---- covariance and correlation ------------------------------------------------------------

def _check_weights(name, weights, observations, integral):
    if weights.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {weights.ndim} dimensions")
    if integral and weights.dtype.is_floating_point or weights.dtype.is_complex:
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{weights.dtype.legacy_name} dtype")
    if not integral and not weights.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} "
                           f"with {weights.dtype.legacy_name} dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != "
                           f"{observations}")
    if weights.numel() and not bool((weights >= 0).all()):  # a NaN weight too, as torch
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _observation_weights(observations, fweights, aweights):
    """The product of the frequency and the importance weights (None: every weight 1)."""
    weights = None
    for name, given, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if given is not None:
            _check_weights(name, given, observations, integral)
            weights = given if weights is None else weights * given
    return weights


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the variables in the rows of input, observations in its columns."""
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if input.dtype.name == "bool":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = input if input.ndim == 2 else reshape(input, (1, -1))
    weights = _observation_weights(rows.shape[1], fweights, aweights)
    total = rows.shape[1] if weights is None else sum(weights)
    if weights is not None and not bool(total != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    weighted = rows if weights is None else rows * weights
    centred = rows - unsqueeze(sum(weighted, 1) / total, 1)
    if weights is not None and correction != 0:
        scale = 1 if aweights is None else sum(weights * aweights) / total
        freedom = total - correction * scale
    else:
        freedom = total - correction
    if bool(freedom <= 0):
        warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
             "than the number of observations.", UserWarning)
        freedom = freedom * 0
    products = centred.mm(conj_of((centred if weights is None else centred * weights).t()))
    return (products / freedom).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of input."""
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    covariance = cov(input)
    if covariance.ndim == 0:
        return covariance / covariance
    variances = covariance.diagonal()
    spread = sqrt(real(variances) if variances.dtype.is_complex else variances)
    normalised = covariance / reshape(spread, (-1, 1)) / reshape(spread, (1, -1))
    if normalised.dtype.is_complex:
        # torch clips the real and imaginary parts apart: |result| may still exceed 1
        return view_as_complex(clamp(view_as_real(normalised), -1, 1))
    return clamp(normalised, -1, 1)


FUNCTIONS = ("aminmax corrcoef cov hash_tensor nanmean nanquantile nansum quantile std_mean "
             "var_mean").split()
METHODS = "aminmax corrcoef cov hash_tensor nanmean nanquantile nansum quantile".split()
