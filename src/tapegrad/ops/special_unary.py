"""erfinv, and the modified Bessel function i0 (with i1, its derivative), computed in float64
(a float32 input gets the float64 result rounded): NumPy has neither."""
import math

import numpy as np

from .._tensor import Tensor
from ._define import defop
from .pointwise import mul_scalar, not_implemented_for, reciprocal, where
from .unary import abs, erf_and_erfc, exp

_SQRT_PI = math.sqrt(math.pi)


def refuse_unsupported(xp, kernel, *values, half=True):
    """torch's NotImplementedError naming its kernel for a complex array among values (the
    special functions take none) and, unless half, for float16 and bfloat16."""
    for value in values:
        if isinstance(value, xp.ndarray) and (value.dtype.kind == "c" or not half
                                              and value.dtype.itemsize < 4):
            raise NotImplementedError(not_implemented_for(kernel, value.dtype))


def _erfinv_magnitude(xp, w):
    """x >= 0 with erf(x) = w, for 0 <= w < 1: Winitzki's closed form (relative error below
    2e-3), then Halley steps, each of which cubes the error. Beyond 1/2 the residual is taken
    as (1 - w) - erfc(x), which keeps its digits when erf(x) is close to 1 (1 - w is exact)."""
    spread = 0.147
    log_gap = xp.log1p(-w) + xp.log1p(w)  # log(1 - w^2)
    centre = 2 / (math.pi * spread) + log_gap / 2
    x = xp.sqrt(xp.sqrt(centre * centre - log_gap / spread) - centre)
    near_one = w > 0.5
    for _ in range(3):
        erf_x, erfc_x = erf_and_erfc(xp, x)
        residual = xp.where(near_one, (1 - w) - erfc_x, erf_x - w)
        slope = 2 / _SQRT_PI * xp.exp(-x * x)
        x = x - residual / (slope + x * residual)
    return x


def erfinv_array(xp, y):
    """erfinv of a float64 array: +-inf at +-1, nan outside [-1, 1]."""
    magnitude = xp.absolute(y)
    result = xp.where(magnitude == 1, xp.inf, xp.nan)
    inside = magnitude < 1
    result[inside] = _erfinv_magnitude(xp, magnitude[inside])
    return xp.copysign(result, y)


@defop("ErfinvBackward0", save=("result",), promote="float")
def erfinv(xp, input: Tensor):
    """The inverse of erf on (-1, 1)."""
    refuse_unsupported(xp, "erfinv_vml_cpu", input)
    return erfinv_array(xp, input.astype(xp.float64)).astype(input.dtype, copy=False)


erfinv.derivatives(input=lambda ctx: mul_scalar(exp(ctx.result ** 2), _SQRT_PI / 2) * ctx.grad)


# ---- modified Bessel functions of the first kind -------------------------------------------------

def _bessel_series(xp, order, magnitude):
    """I_order(x) = (x/2)^order sum_k (x^2/4)^k / (k! (k + order)!), for |x| <= 20."""
    quarter_square = magnitude * magnitude / 4
    term = (magnitude / 2) ** order / math.factorial(order)
    total = term
    for k in range(1, 64):  # at |x| = 20 the terms fall below 1e-17 of the sum by k = 60
        term = term * quarter_square / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic(xp, order, magnitude):
    """I_order(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k prod_j (4 order^2 - (2j - 1)^2) / (8 j x)^k,
    for |x| > 20 where the terms fall below 1e-17 before they start to grow."""
    term = xp.ones_like(magnitude)
    total = term
    for j in range(1, 32):
        term = term * -(4 * order * order - (2 * j - 1) ** 2) / (8 * j * magnitude)
        total = total + term
    return xp.exp(magnitude) / xp.sqrt(2 * math.pi * magnitude) * total


def bessel_i_array(xp, order, x):
    """I_0 or I_1 of a float64 array (I_1 is odd); inf beyond |x| ~ 710, as torch."""
    magnitude = xp.absolute(x)
    result = xp.empty_like(x)
    small = magnitude <= 20
    result[small] = _bessel_series(xp, order, magnitude[small])
    result[~small] = _bessel_asymptotic(xp, order, magnitude[~small])
    result = xp.where(xp.isinf(x), xp.inf, result)  # torch: nan at +-inf
    return xp.copysign(result, x) if order else result


@defop("I0Backward0", save=("input",), promote="float")
def i0(xp, input: Tensor):
    """The modified Bessel function of the first kind of order 0. Unlike torch (nan), i0(+-inf)
    is inf."""
    refuse_unsupported(xp, "i0_vml_cpu", input)
    return bessel_i_array(xp, 0, input.astype(xp.float64)).astype(input.dtype, copy=False)


i0.derivatives(input=lambda ctx: ctx.grad * i1(ctx.input))


@defop("SpecialI1Backward0", save=("input", "result"), promote="float", name="special_i1")
def i1(xp, input: Tensor):
    """torch.special.i1: the modified Bessel function of the first kind of order 1. As i0,
    +-inf at +-inf, where torch gives NaN."""
    refuse_unsupported(xp, "i1_cpu", input)
    return bessel_i_array(xp, 1, input.astype(xp.float64)).astype(input.dtype, copy=False)


def bessel_i1_grad(ctx, derivative):
    """ctx.grad * derivative(x) for i1 and i1e, whose derivatives divide by x: as torch, their
    limit 1/2 where |x| is below machine eps, and derivative() sees only the other elements."""
    tiny = float(np.finfo(ctx.input.dtype.numpy).eps)
    away = abs(ctx.input) > tiny
    safe = where(away, ctx.input, tiny)
    return ctx.grad * where(away, derivative(safe), 0.5)


# I1'(x) = I0(x) - I1(x) / x
i1.derivatives(input=lambda ctx: bessel_i1_grad(
    ctx, lambda safe: i0(safe) - ctx.result * reciprocal(safe)))


FUNCTIONS = "erfinv i0".split()
METHODS = FUNCTIONS
