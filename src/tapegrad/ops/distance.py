"""Distances: dist (the p-norm of a difference), cdist (every pairwise distance between two
sets of row vectors), pdist (the distances between the rows of one set) and renorm (rescaling
slices to a maximum norm)."""
import math


from .. import _backend, _dtype
from .._tensor import Tensor
from ._checks import broadcast_shapes, refuse_half, wrap_dim
from ._define import defop
from .complex_parts import conj_of, real
from .indexing import index_select_op
from .pointwise import where
from .reduction import norm_backward, norm_of, sum, vector_norm
from .scatter import _index_add
from .shape import unsqueeze, zeros_of
from . import unary

# ---- dist ----------------------------------------------------------------------------------


@defop("DistBackward0", save=("input", "other", "p", "result"), promote="common")
def _dist(xp, input: Tensor, other: Tensor, p):
    return norm_of(xp, input - other, p, None, False)


def _dist_backward(ctx):
    difference = ctx.input - ctx.other
    dims = tuple(range(difference.ndim))
    return norm_backward(ctx.grad, difference, ctx.p, ctx.result, dims, False)


# The engine sums each gradient back to its input's shape (Note [Broadcast reduction]).
_dist.derivatives(input=_dist_backward,
                  other=lambda ctx: None if ctx.p == 0 else -_dist_backward(ctx))


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    # torch checks the dtype of input - other: int32 with float64 is fine
    dtype = _dtype.promote_types(input.dtype, other.dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {dtype.legacy_name} instead.")
    return _dist(input, other, float(p))


# ---- cdist ---------------------------------------------------------------------------------

def _pairwise_differences(x1, x2):
    """(..., P, R, M): every row of x1 minus every row of x2, batch dims broadcast."""
    return unsqueeze(x1, -2) - unsqueeze(x2, -3)


@defop("CdistBackward0", save=("x1", "x2", "p", "result"))
def _cdist(xp, x1: Tensor, x2: Tensor, p):
    return norm_of(xp, xp.expand_dims(x1, -2) - xp.expand_dims(x2, -3), p, -1, False)


def _cdist_differences_grad(ctx):
    difference = _pairwise_differences(ctx.x1, ctx.x2)
    return norm_backward(ctx.grad, difference, ctx.p, ctx.result, (difference.ndim - 1,), False)


def _summed_over(dim, negated):
    def formula(ctx):
        if ctx.p == 0:  # counting nonzeros: a zero gradient (torch's is a zero tensor)
            return zeros_of(ctx.x2 if negated else ctx.x1)
        grad = sum(_cdist_differences_grad(ctx), dim)
        return -grad if negated else grad
    return formula


_cdist.derivatives(x1=_summed_over(-2, False), x2=_summed_over(-3, True))

_COMPUTE_MODES = (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2, over broadcast batch
    dims. Differs from torch: always computed from the differences under CdistBackward0;
    for p=2 with more than 25 rows (or compute_mode='use_mm_for_euclid_dist') torch goes
    through a matrix product instead, which rounds less precisely and records a composite
    graph (ending in ViewBackward0)."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{x.dtype.legacy_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.legacy_name} but found "
                           f"{x2.dtype.legacy_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    broadcast_shapes(x1.shape[:-2], x2.shape[:-2])  # torch's error names the batch dims only
    if not _takes_matrix_product(x1, x2, p, compute_mode):
        refuse_half("cdist", x1)  # torch's product path has half-precision loops, this not
    return _cdist(x1, x2, float(p))


def _takes_matrix_product(x1, x2, p, compute_mode):
    """Whether torch computes this cdist through a matrix product (euclidean only)."""
    if p != 2 or compute_mode == "donot_use_mm_for_euclid_dist":
        return False
    return compute_mode == "use_mm_for_euclid_dist" or x1.shape[-2] > 25 or x2.shape[-2] > 25


# ---- pdist ---------------------------------------------------------------------------------

@defop("PdistBackward0", save=("input", "p", "result", "rows", "columns"))
def _pdist(xp, input: Tensor, p, rows, columns):
    return norm_of(xp, input[rows] - input[columns], p, -1, False)


def _pdist_backward(ctx):
    """Each pair's norm gradient, added to its first row and taken from its second. At p = inf
    torch gives every coordinate that ties for the maximum the whole gradient (a norm's
    gradient shares it among them)."""
    rows, columns = ctx.rows, ctx.columns
    difference = index_select_op(ctx.input, 0, rows) - index_select_op(ctx.input, 0, columns)
    # torch's kernel keeps NaN in the sign, and tests a tie through |difference| - norm, which
    # is NaN where both are infinite: those gradients are NaN
    sign = where(difference != difference, difference, unary.sgn(difference))
    if math.isinf(ctx.p):
        gap = unary.abs(difference) - unsqueeze(ctx.result, 1)
        tie = where(gap != gap, gap, where(gap == 0, 1.0, 0.0))
        grad = sign * unsqueeze(ctx.grad, 1) * tie
    elif ctx.p == 1:
        grad = sign * unsqueeze(ctx.grad, 1)
    elif ctx.p == 2:  # multiplied before divided, as torch's kernel: grad * difference may be inf
        norm = unsqueeze(ctx.result, 1)
        grad = where(norm == 0, 0.0, unsqueeze(ctx.grad, 1) * difference / norm)
    else:
        grad = norm_backward(ctx.grad, difference, ctx.p, ctx.result, (1,), False)
    if grad is None:  # p = 0 counts nonzeros: torch's gradient is zero
        return zeros_of(ctx.input)
    return _index_add(_index_add(zeros_of(ctx.input), 0, rows, grad), 0, columns, -grad)


_pdist.derivatives(input=_pdist_backward)


def pdist(input, p=2):
    """The p-norm distance between every two rows of an (N, M) input, rows i < j in order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    refuse_half("pdist", input)
    rows, columns = _backend.array_module(input._data).triu_indices(input.shape[0], 1)
    return _pdist(input.contiguous(), float(p), rows, columns)  # torch's graph copies too


# ---- renorm --------------------------------------------------------------------------------

_EPSILON = 1e-7  # torch divides by norm + 1e-7


@defop("RenormBackward0", save=("input", "p", "dim", "maxnorm"))
def _renorm(xp, input: Tensor, p, dim, maxnorm):
    others = tuple(d for d in range(input.ndim) if d != dim)
    # summed in double, then rounded as torch's norm (float32 at least, real of complex): inf
    # where it overflows
    wide = xp.complex128 if xp.iscomplexobj(input) else xp.float64
    norms = norm_of(xp, input.astype(wide), p, others, True).astype(
        xp.promote_types(input.real.dtype, xp.float32))
    factor = xp.where(norms > maxnorm, maxnorm / (norms + _EPSILON), 1.0)
    return (input * factor).astype(input.dtype)


def _renorm_backward(ctx):
    """Where a slice was rescaled, its factor maxnorm / (norm + eps) depends on the input too."""
    input, grad, p, maxnorm = ctx.input, ctx.grad, ctx.p, ctx.maxnorm
    others = tuple(d for d in range(input.ndim) if d != ctx.dim)
    # torch takes this norm of complex64 in double: at p = inf float32 magnitudes then never
    # tie with it, and every rescaled slice's gradient is 0/0 = NaN, as torch's
    norms = vector_norm(input, p, others, True,
                        dtype=_dtype.complex128 if input.dtype is _dtype.complex64 else None)
    inverse = 1 / (norms + _EPSILON)
    factor = inverse * maxnorm
    # the norm's gradient is real: of complex values, the real part of conj(input) * grad
    along_input = conj_of(input) * grad
    if along_input.dtype.is_complex:
        along_input = real(along_input)
    through_norm = norm_backward(sum(along_input, others, keepdim=True), input, p, norms,
                                 others, True)
    return where(norms > maxnorm, factor * grad - factor * inverse * through_norm, grad)


_renorm.derivatives(input=_renorm_backward)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm, scaled down to norm maxnorm."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype.legacy_name}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    dim = wrap_dim(dim, input.ndim)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    return _renorm(input, float(p), dim, float(maxnorm))


FUNCTIONS = ["cdist", "dist", "pdist", "renorm"]
NN_FUNCTIONS = ["pdist"]
METHODS = ["dist", "renorm"]
