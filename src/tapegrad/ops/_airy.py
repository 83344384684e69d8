"""The Airy function Ai in array ops, for a device whose SciPy twin has no airy (CuPy's
cupyx.scipy.special). Float64 in, float64 out; every call is one of xp's elementwise ops.

|x| <= 9: the Maclaurin series Ai = Ai(0) f(x) + Ai'(0) g(x), summed in double-double
arithmetic, because for x > 0 f and g grow like exp(zeta) while Ai falls like exp(-zeta)
(zeta = 2/3 |x|^{3/2}): at x = 9 the two terms cancel to 1 part in 1e15, which float64 alone
would lose. |x| > 9: the asymptotic expansions in 1/zeta (DLMF 9.7.5, 9.7.9), whose smallest
term there is below exp(-2 zeta) < 1e-15."""
import math

_SPLIT = 134217729.0  # 2^27 + 1: Dekker's split of a float64 into two 26-bit halves
# Ai(0) = 3^(-2/3) / Gamma(2/3) and -Ai'(0) = 3^(-1/3) / Gamma(1/3), each as float64 hi + lo
_AI0 = (0.3550280538878172, 2.05233632436212e-17)
_MINUS_AI0_PRIME = (0.2588194037928068, -2.522243111610832e-17)
_MACLAURIN_TERMS = 48   # at |x| = 9 the 46th term is below 1e-26 of the first
_ASYMPTOTIC_TERMS = 20
_MACLAURIN_LIMIT = 9.0


def _u_coefficients(count):
    """u_k of the expansions: u_0 = 1, u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_{k-1}."""
    u = [1.0]
    for k in range(1, count):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    return u


_U = _u_coefficients(2 * _ASYMPTOTIC_TERMS)


def _two_sum(a, b):
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _two_product(a, b):
    product = a * b
    a_big = _SPLIT * a
    a_high = a_big - (a_big - a)
    b_big = _SPLIT * b
    b_high = b_big - (b_big - b)
    a_low, b_low = a - a_high, b - b_high
    return product, ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


def _normalised(high, low):
    total = high + low
    return total, low - (total - high)


def _dd_add(a, b):
    total, error = _two_sum(a[0], b[0])
    return _normalised(total, error + a[1] + b[1])


def _dd_multiply(a, b):
    product, error = _two_product(a[0], b[0])
    return _normalised(product, error + a[0] * b[1] + a[1] * b[0])


def _dd_divide_by_integer(a, divisor):
    """a / divisor for an integer divisor below 2^53 (exact in float64)."""
    quotient = a[0] / divisor
    product, error = _two_product(quotient, divisor)
    return _normalised(quotient, ((a[0] - product) - error + a[1]) / divisor)


def _maclaurin(xp, x):
    """Ai(0) f(x) - (-Ai'(0)) g(x) with f = sum 3^k (1/3)_k x^3k / (3k)! and
    g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!, each term from the last by x^3 / (two integers)."""
    zero = xp.zeros_like(x)
    cube = _dd_multiply(_two_product(x, x), (x, zero))
    f_term = f_sum = (xp.ones_like(x), zero)
    g_term = g_sum = (x, zero)
    for k in range(_MACLAURIN_TERMS):
        f_term = _dd_divide_by_integer(_dd_multiply(f_term, cube), (3 * k + 2) * (3 * k + 3))
        g_term = _dd_divide_by_integer(_dd_multiply(g_term, cube), (3 * k + 3) * (3 * k + 4))
        f_sum, g_sum = _dd_add(f_sum, f_term), _dd_add(g_sum, g_term)
    ai0_f = _dd_multiply(f_sum, tuple(xp.full_like(x, c) for c in _AI0))
    slope_g = _dd_multiply(g_sum, tuple(xp.full_like(x, -c) for c in _MINUS_AI0_PRIME))
    return _dd_add(ai0_f, slope_g)[0]


def _series(reciprocal, coefficients):
    """sum coefficients[k] reciprocal^k by Horner's rule."""
    total = coefficients[-1]
    for coefficient in reversed(coefficients[:-1]):
        total = total * reciprocal + coefficient
    return total


def _asymptotic(xp, x):
    """DLMF 9.7.5 for x > 9 and 9.7.9 for x < -9 (with cos(zeta - pi/4) = sin(zeta + pi/4))."""
    root = xp.sqrt(xp.abs(x))
    zeta = 2 * xp.abs(x) * root / 3
    reciprocal = 1 / zeta
    decaying = xp.exp(-zeta) * _series(-reciprocal, _U[:_ASYMPTOTIC_TERMS])
    decaying = decaying / (2 * math.sqrt(math.pi) * xp.sqrt(root))
    square = -reciprocal * reciprocal
    even = _series(square, _U[0::2][:_ASYMPTOTIC_TERMS])
    odd = reciprocal * _series(square, _U[1::2][:_ASYMPTOTIC_TERMS])
    phase = zeta + math.pi / 4
    oscillating = (xp.sin(phase) * even - xp.cos(phase) * odd) / (math.sqrt(math.pi)
                                                                   * xp.sqrt(root))
    return xp.where(x > 0, decaying, oscillating)


def airy_ai(xp, x):
    """Ai(x) of a float64 array; nan at nan and at the infinities, as SciPy and torch give."""
    is_small = xp.abs(x) <= _MACLAURIN_LIMIT
    small = _maclaurin(xp, xp.where(is_small, x, 0.0))
    large = _asymptotic(xp, xp.where(is_small, 2 * _MACLAURIN_LIMIT, x))
    return xp.where(xp.isinf(x), math.nan, xp.where(is_small, small, large))
