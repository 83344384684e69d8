"""The gamma function family: lgamma, digamma, polygamma, mvlgamma, and the regularized
incomplete gamma functions igamma (P) and igammac (Q).

NumPy has none of them. Each is computed in float64 (a float32 input gets the float64 result
rounded) from series that converge fast on a core interval, recurrences and reflection that
bring every other argument there, and Stirling's asymptotic series for large arguments:
    lgamma(2 + z) = (1 - euler) z + sum_k (-1)^k (zeta(k) - 1) / k z^k,   |z| <= 1/2
    polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)                        (Hurwitz zeta)
The Hurwitz zeta function is summed directly up to a point w where the Euler-Maclaurin
tail with twelve Bernoulli terms is below float64 rounding.
"""
import math
from fractions import Fraction

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ._checks import is_floating_kind
from ._define import defop
from . import reduction
from .pointwise import add, binary_of_tensors, not_implemented_for, sub_scalar
from .shape import constant_beside, unsqueeze
from .special_unary import refuse_unsupported
from .unary import erf_and_erfc, exp, log

# the Bernoulli numbers B_2j, j = 1..12, exactly: Euler-Maclaurin and Stirling coefficients
_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730))
_EULER_MACLAURIN = tuple(float(b / math.factorial(2 * j + 2)) for j, b in enumerate(_BERNOULLI))
# lgamma(x) ~ (x - 1/2) log x - x + log(2 pi) / 2 + sum_j B_2j / (2j (2j - 1) x^(2j - 1))
_STIRLING = tuple(float(b / ((2 * j + 2) * (2 * j + 1))) for j, b in enumerate(_BERNOULLI[:9]))
# digamma(x) ~ log x - 1 / (2x) - sum_j B_2j / (2j x^2j)
_DIGAMMA_TAIL = tuple(float(b / (2 * j + 2)) for j, b in enumerate(_BERNOULLI[:9]))
_HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.57721566490153286061


# ---- building blocks on float64 arrays -----------------------------------------------------------

def _hurwitz_zeta(xp, s, q):
    """zeta(s, q) = sum_k>=0 (q + k)^-s for a number s > 1 and an array q > 0."""
    start = max(10.0, s + 10.0)  # where the tail's error is below 1e-17 relative
    steps = xp.ceil(xp.maximum(start - q, 0.0))
    total = xp.zeros_like(q)
    for k in range(_most(steps)):
        total += xp.where(k < steps, (q + k) ** -s, 0.0)
    w = q + steps
    power = w ** -s
    tail = w * power / (s - 1) + power / 2
    # Euler-Maclaurin: sum_j B_2j / (2j)! * s (s + 1) ... (s + 2j - 2) * w^(-s - 2j + 1)
    rising, inverse_square, term = s, 1 / (w * w), power / w
    for j, coefficient in enumerate(_EULER_MACLAURIN):
        tail += coefficient * rising * term
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2)
        term = term * inverse_square
    return xp.where(xp.isinf(q), 0.0, total + tail)


def _most(steps):
    """The largest number of steps an element needs (0 for none)."""
    return int(steps.max()) if steps.size else 0


def _series(coefficients, z):
    """sum_k coefficients[k] z^(k + 1), by Horner's rule."""
    result = 0.0
    for coefficient in reversed(coefficients):
        result = (result + coefficient) * z
    return result


# lgamma(2 + z) = sum_k>=1 _LGAMMA_AT_TWO[k - 1] z^k: (1 - euler), then (-1)^k (zeta(k) - 1)/k
_LGAMMA_AT_TWO = (1 - _EULER,) + tuple(
    (-1) ** k * float(_hurwitz_zeta(np, k, np.array([2.0]))[0]) / k for k in range(2, 32))


def _lgamma_near_two(z):
    """lgamma(2 + z) for |z| <= 1/2, to full relative precision (also near z = 0)."""
    return _series(_LGAMMA_AT_TWO, z)


def _odd_series(coefficients, u):
    """sum_j coefficients[j] u^(2j + 1)."""
    return _series(coefficients, u * u) / u


def _sin_pi_magnitude(xp, x):
    """|sin(pi x)|, with x reduced exactly first so that it stays accurate near integers."""
    distance = xp.absolute(x - xp.rint(x))  # to the nearest integer, in [0, 1/2]
    return xp.sin(math.pi * distance)


def _cot_pi(xp, x):
    """cot(pi x), from the distance to the nearest integer so that it is exact (0) at the
    half-integers and accurate near the integers."""
    offset = x - xp.rint(x)  # exact, in [-1/2, 1/2]
    distance = xp.absolute(offset)
    return xp.sign(offset) * xp.sin(math.pi * (0.5 - distance)) / xp.sin(math.pi * distance)


def _lgamma_positive(xp, x):
    """lgamma(x) for x > 0 (inf included)."""
    result = xp.empty_like(x)
    pieces = ((x < 0.5, lambda v: _lgamma_near_two(v) - xp.log(v) - xp.log1p(v)),
              ((x >= 0.5) & (x < 1.5), lambda v: _lgamma_near_two(v - 1) - xp.log1p(v - 1)),
              ((x >= 1.5) & (x < 2.5), lambda v: _lgamma_near_two(v - 2)),
              ((x >= 2.5) & (x < 10), lambda v: _lgamma_by_recurrence(xp, v)),
              (x >= 10, lambda v: _lgamma_stirling(xp, v)))
    for where, piece in pieces:
        result[where] = piece(x[where])
    return result


def _lgamma_by_recurrence(xp, x):
    """lgamma(x) for 2.5 <= x < 10: down to [1.5, 2.5) by lgamma(x) = lgamma(x - 1) + log(x - 1)."""
    steps = xp.floor(x - 1.5)
    reduced = x - steps  # exact
    product = xp.ones_like(x)
    for k in range(_most(steps)):
        product *= xp.where(k < steps, reduced + k, 1.0)
    return _lgamma_near_two(reduced - 2) + xp.log(product)


def _lgamma_stirling(xp, x):
    finite = xp.where(xp.isinf(x), 10.0, x)
    value = (finite - 0.5) * xp.log(finite) - finite + _HALF_LOG_TWO_PI
    return xp.where(xp.isinf(x), xp.inf, value + _odd_series(_STIRLING, 1 / finite))


def lgamma_array(xp, x):
    """lgamma of a float64 array: log |Gamma(x)|, inf at the poles 0, -1, -2, ..."""
    result = xp.full_like(x, xp.nan)
    positive = x > 0
    result[positive] = _lgamma_positive(xp, x[positive])
    negative = x <= 0
    v = x[negative]
    # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    reflected = (math.log(math.pi) - xp.log(_sin_pi_magnitude(xp, v))
                 - _lgamma_positive(xp, 1 - v))
    result[negative] = xp.where(xp.isinf(v), xp.inf, reflected)
    # near 0 sin(pi x) would round among the subnormals: lgamma(x) = -log|x| - euler x + O(x^2)
    near_zero = (x < 0) & (x > -1e-8)
    result[near_zero] = -xp.log(-x[near_zero]) - _EULER * x[near_zero]
    return result


def _digamma_positive(xp, x):
    """digamma(x) for x > 0: up to x >= 10 by digamma(x) = digamma(x + 1) - 1 / x, then
    the asymptotic series."""
    steps = xp.ceil(xp.maximum(10 - x, 0.0))
    shifts = xp.zeros_like(x)
    for k in range(_most(steps)):
        shifts += xp.where(k < steps, 1 / (x + k), 0.0)
    w = x + steps
    large = xp.where(xp.isinf(w), 1.0, w)
    tail = _series(_DIGAMMA_TAIL, 1 / (large * large))
    return xp.log(w) - 0.5 / w - tail - shifts


# digamma's positive root, as a sum of two floats, and its Taylor coefficients there:
# digamma(root + h) = sum_k>=1 (-1)^(k+1) zeta(k + 1, root) h^k (converges for |h| < root)
_ROOT, _ROOT_REST = 1.4616321449683622, 9.549995429965697e-17
_DIGAMMA_AT_ROOT = tuple((-1) ** (k + 1) * float(_hurwitz_zeta(np, k + 1, np.array([_ROOT]))[0])
                         for k in range(1, 26))


def digamma_array(xp, x):
    """digamma of a float64 array; as torch: -inf at +0, inf at -0, nan at -1, -2, ...
    Near its root, by its Taylor series there: the recurrence would cancel to a small value
    and lose its relative accuracy (torch's does)."""
    result = xp.full_like(x, xp.nan)
    positive = x > 0
    result[positive] = _digamma_positive(xp, x[positive])
    near_root = xp.absolute(x - _ROOT) < 0.25
    result[near_root] = _series(_DIGAMMA_AT_ROOT, (x[near_root] - _ROOT) - _ROOT_REST)
    negative = (x < 0) & (x != xp.floor(x))
    v = x[negative]
    # reflection: digamma(1 - x) - digamma(x) = pi cot(pi x); cot has period 1
    result[negative] = _digamma_positive(xp, 1 - v) - math.pi * _cot_pi(xp, v)
    zero = x == 0
    result[zero] = xp.where(xp.signbit(x[zero]), xp.inf, -xp.inf)
    return result


def _cot_derivative(n):
    """The polynomial P_n with d^n/dy^n cot(y) = P_n(cot y), as integer coefficients of
    increasing powers: P_0(c) = c, P_k+1(c) = -(1 + c^2) P_k'(c)."""
    poly = [0, 1]
    for _ in range(n):
        derivative = [k * poly[k] for k in range(1, len(poly))] + [0, 0]
        poly = [-(derivative[k] + (derivative[k - 2] if k >= 2 else 0))
                for k in range(len(derivative))]
    return poly


def _evaluate_cot_derivative(xp, n, cot):
    """P_n(cot) with only the powers of P_n's parity (so that cot = +-inf gives +-inf)."""
    poly = _cot_derivative(n)[(n + 1) % 2::2]
    square, value = cot * cot, 0.0
    for coefficient in reversed(poly):
        value = value * square + float(coefficient)
    return value * cot if n % 2 == 0 else value


def polygamma_array(xp, n, x):
    """The n-th derivative of digamma (n >= 1) of a float64 array; +-inf at the poles."""
    factor = (-1) ** (n + 1) * (float(math.factorial(n)) if n <= 170 else math.inf)
    result = xp.full_like(x, xp.nan)
    positive = x > 0
    result[positive] = factor * _hurwitz_zeta(xp, n + 1, x[positive])
    negative = x <= 0
    v = x[negative]
    # reflection: polygamma(n, x) = (-1)^n polygamma(n, 1 - x) - pi^(n+1) P_n(cot(pi x))
    cot = _cot_pi(xp, v)
    reflected = ((-1) ** n * factor * _hurwitz_zeta(xp, n + 1, 1 - v)
                 - math.pi ** (n + 1) * _evaluate_cot_derivative(xp, n, cot))
    # the poles; as torch's, -inf is one for n >= 2 (its zeta is inf at every q <= 0 equal to
    # its floor) and NaN for n = 1 (its trigamma takes sin(pi x))
    pole = (v == xp.floor(v)) & (xp.isfinite(v) | (n > 1))
    result[negative] = xp.where(pole, (-1) ** (n + 1) * xp.inf, reflected)
    result[x == xp.inf] = xp.nan if n > 1 else 0.0  # torch's zeta sums 0 * inf there
    # near 0 the pole's term (-1)^(n+1) n! / x^(n+1) is all (the reflection gives NaN there)
    near_zero = (xp.absolute(x) < 1e-10) & (x != 0)
    result[near_zero] = factor / x[near_zero] ** (n + 1)
    return result


def _trigamma_at_poles(xp, input, result):
    """torch's trigamma at the negative integers (and at -0.): its reflection
    pi^2 / sin(pi x)^2 - trigamma(1 - x), with sin(pi x) rounded in the input's dtype, is a
    huge finite number there (9.4e31 at -1 in float64), or NaN where pi x overflows."""
    poles = (input < 0) & (input == xp.floor(input)) & xp.isfinite(input)
    if poles.any():
        v = input[poles]
        pi = v.dtype.type(math.pi)
        sine = xp.sin(pi * v)
        rest = polygamma_array(xp, 1, 1 - v.astype(xp.float64)).astype(v.dtype)
        result[poles] = pi * pi / (sine * sine) - rest
    return result


def _in_float64(xp, input, function, kernel):
    """function of input computed on float64, returned in input's (floating) dtype; torch's
    error naming kernel for a complex input."""
    refuse_unsupported(xp, kernel, input)
    return function(input.astype(xp.float64)).astype(input.dtype, copy=False)


# ---- the ops -------------------------------------------------------------------------------------

@defop("LgammaBackward0", save=("input",), promote="float")
def lgamma(xp, input: Tensor):
    """log |Gamma(input)|."""
    return _in_float64(xp, input, lambda x: lgamma_array(xp, x), "lgamma_vml_cpu")


lgamma.derivatives(input=lambda ctx: ctx.grad * digamma(ctx.input))


@defop("DigammaBackward0", save=("input",), promote="float")
def digamma(xp, input: Tensor):
    """The logarithmic derivative of Gamma."""
    return _in_float64(xp, input, lambda x: digamma_array(xp, x), "digamma")


digamma.derivatives(input=lambda ctx: ctx.grad * polygamma(1, ctx.input))


@defop("PolygammaBackward0", save=("n", "input"), promote="float")
def _polygamma(xp, n, input: Tensor):
    if n == 0:
        return _in_float64(xp, input, lambda x: digamma_array(xp, x), "digamma")
    result = _in_float64(xp, input, lambda x: polygamma_array(xp, n, x),
                         "trigamma" if n == 1 else "polygamma")
    return _trigamma_at_poles(xp, input, result) if n == 1 else result


_polygamma.derivatives(input=lambda ctx: ctx.grad * polygamma(ctx.n + 1, ctx.input))


def polygamma(n, input):
    """The n-th derivative of digamma. Accurate to float64 rounding (torch's trigamma series
    to ~5e-10), with torch's answers at the edges: at the negative integers a huge finite
    number for n = 1 and +-inf for n >= 2, and at +inf 0 for n = 1 and NaN for n >= 2."""
    return checked_polygamma("polygamma", n, input)


def checked_polygamma(function, n, input):
    """polygamma after torch's argument checks, in the words of torch's `function`
    (polygamma, special_polygamma)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{function}(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    return _polygamma(n, input)


@defop("MvlgammaBackward0", save=("input", "p"), promote="float")
def _mvlgamma(xp, input: Tensor, p):
    def value(x):
        total = sum(lgamma_array(xp, x - i / 2) for i in range(p))
        return total + p * (p - 1) / 4 * math.log(math.pi)
    return _in_float64(xp, input, value, "arange_cpu")  # torch fails in its arange


def _mvlgamma_grad(ctx):
    # as torch: digamma at input - i / 2 (i < p) along a new last dim, summed over it
    offsets = constant_beside(ctx.grad, np.arange(-ctx.p / 2 + 0.5, 0.5, 0.5,
                                                  dtype=ctx.grad.dtype.numpy))
    return ctx.grad * reduction.sum(digamma(add(offsets, unsqueeze(ctx.input, -1))), -1)


_mvlgamma.derivatives(input=_mvlgamma_grad)


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p."""
    return checked_mvlgamma("mvlgamma", input, p)


def checked_mvlgamma(function, input, p):
    """mvlgamma after torch's argument checks, in the words of torch's `function` (mvlgamma,
    special_multigammaln)."""
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"{function}(): argument 'p' (position 2) must be int, not "
                        f"{type(p).__name__}")
    if isinstance(input, Tensor) and input.dtype is _dtype.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return _mvlgamma(input, p)


# ---- the regularized incomplete gamma functions --------------------------------------------------

def _log1p_minus(xp, t):
    """log(1 + t) - t for |t| < 1/2, accurate also for small t: with u = t / (2 + t),
    log(1 + t) = 2 atanh(u) and t - 2u = t u, so it is -t u + 2 (u^3/3 + u^5/5 + ...)."""
    u = t / (2 + t)
    square = u * u
    odd_terms = xp.zeros_like(t)
    for k in range(20, 0, -1):  # |u| <= 1/3 here: 3^-40 is below rounding
        odd_terms = (odd_terms + 1 / (2 * k + 1)) * square
    return -t * u + 2 * u * odd_terms


def _power_over_gamma(xp, a, x):
    """x^a e^-x / Gamma(a). For a >= 10 by Stirling's series, where a log x, x and lgamma(a)
    would cancel: sqrt(a / 2 pi) exp(a (log(x/a) - (x/a - 1)) - stirling_correction(a))."""
    direct = xp.exp(a * xp.log(x) - x - lgamma_array(xp, a))
    large = xp.where(a >= 10, a, 10.0)
    t = (x - large) / large
    # far from a, 1 + t would round where x/a is small: take log(x/a) itself there
    exponent = xp.where(xp.absolute(t) < 0.5, large * _log1p_minus(xp, t),
                        large * xp.log(x / large) - (x - large))
    exponent = exponent - _odd_series(_STIRLING, 1 / large)
    stirling = xp.sqrt(large / (2 * math.pi)) * xp.exp(exponent)
    return xp.where(a >= 10, stirling, direct)


_MAX_TERMS = 100_000  # the series need ~9 sqrt(a) terms where x is near a


def _iterate(xp, state, step):
    """Run step(state, n) -> (state, not_converged) for n = 1, 2, ... until every element has
    converged; the last array of the final state. The state shrinks to the elements still
    running once a tenth of them are done; until then the converged ones keep stepping,
    which leaves their value as it is."""
    result = xp.empty_like(state[-1])
    index = xp.arange(result.size)
    n = 1
    while index.size:
        state, going = step(state, n)
        n += 1
        if n >= _MAX_TERMS:
            going = xp.zeros_like(going)
        done = going.size - xp.count_nonzero(going)
        if done * 10 >= going.size or (done and not going.any()):
            result[index[~going]] = state[-1][~going]
            index = index[going]
            state = tuple(value[going] for value in state)
    return result


def _lower_series(xp, a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)), for x < a + 1."""
    def step(state, n):
        a_, x_, term, total = state
        term = term * x_ / (a_ + n)
        total = total + term
        return (a_, x_, term, total), term > total * 1e-17
    ones = xp.ones_like(x)
    # below 1, x^a e^-x / Gamma(a + 1) directly: Gamma(a) / a would pass through the
    # subnormals for a tiny a
    small = xp.where(a < 1, a, 0.5)
    prefactor = xp.where(a < 1, xp.exp(small * xp.log(x) - x - lgamma_array(xp, small + 1)),
                         _power_over_gamma(xp, a, x) / a)
    return prefactor * _iterate(xp, (a, x, ones, ones), step)


def _upper_fraction(xp, a, x):
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
    Legendre's continued fraction by the modified Lentz method, for x >= a + 1."""
    tiny = 1e-300

    def step(state, n):
        a_, x_, c, d, value = state
        numerator, denominator = -n * (n - a_), x_ + 2 * n + 1 - a_
        d = denominator + numerator * d
        d = 1 / xp.where(d == 0, tiny, d)
        c = denominator + numerator / c
        c = xp.where(c == 0, tiny, c)
        value = value * c * d
        return (a_, x_, c, d, value), xp.absolute(c * d - 1) > 1e-16
    first = x + 1 - a
    state = (a, x, xp.full_like(x, 1e300), 1 / first, 1 / first)
    return _power_over_gamma(xp, a, x) * _iterate(xp, state, step)


def _upper_small_a(xp, a, x):
    """Q(a, x) for a < 1, x < a + 1, where 1 - P would lose the digits of a small Q:
    Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) * sum_n>=1 (-x)^n / (n! (a + n))."""
    # lgamma(1 + a) = lgamma(2 + a) - log1p(a), with the series at 2 where it converges fast
    near = xp.where(a < 0.5, a, 0.0)
    lgamma_one_plus = xp.where(a < 0.5, _lgamma_near_two(near) - xp.log1p(near),
                               lgamma_array(xp, 1 + a))
    total, term = xp.zeros_like(x), xp.ones_like(x)
    for n in range(1, 60):  # x < 2: the terms fall below 2^60 / 60! ~ 1e-64
        term = term * -x / n
        total = total + term / (a + n)
    scale = xp.exp(a * xp.log(x) - lgamma_one_plus) * a  # x^a / Gamma(a)
    return -xp.expm1(a * xp.log(x) - lgamma_one_plus) - scale * total


def _temme(xp, a, x, upper):
    """P(a, x) (upper: Q) for a > 1e7, where the series would need ~9 sqrt(a) terms: Temme's
    uniform asymptotic expansion to its first term, 0.5 erfc(-+eta sqrt(a/2)) -+ R with
    R = e^(-a eta^2/2) / sqrt(2 pi a) (1 / (x/a - 1) - 1 / eta); the next term is O(1/a)."""
    d = (x - a) / a
    half_eta_squared = xp.where(xp.absolute(d) < 0.5, -_log1p_minus(xp, xp.clip(d, -0.5, 0.5)),
                                d - xp.log1p(d))
    eta = xp.sign(d) * xp.sqrt(2 * half_eta_squared)
    # 1/d - 1/eta cancels near x = a, where it tends to -1/3 + eta/12
    near = xp.absolute(eta) < 1e-4
    safe_d, safe_eta = xp.where(near, 1.0, d), xp.where(near, 1.0, eta)
    c0 = xp.where(near, -1 / 3 + eta / 12, 1 / safe_d - 1 / safe_eta)
    rest = xp.exp(-a * half_eta_squared) / xp.sqrt(2 * math.pi * a) * c0
    y = eta * xp.sqrt(a / 2)
    if upper:
        return 0.5 * erf_and_erfc(xp, y)[1] + rest
    return 0.5 * erf_and_erfc(xp, -y)[1] - rest


def _incomplete_gamma(xp, a, x, upper):
    """P(a, x) (upper: Q = 1 - P) on float64 arrays, with torch's values at the boundaries."""
    a, x = xp.broadcast_arrays(a, x)
    result = xp.full(a.shape, xp.nan)
    regular = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    av, xv = a[regular], x[regular]
    asymptotic = av > 1e7
    by_series = (xv < av + 1) & ~asymptotic
    by_fraction = ~by_series & ~asymptotic
    values = xp.empty_like(av)
    values[asymptotic] = _temme(xp, av[asymptotic], xv[asymptotic], upper)
    if upper:
        small = by_series & (av < 1)
        values[small] = _upper_small_a(xp, av[small], xv[small])
        rest = by_series & ~small
        values[rest] = 1 - _lower_series(xp, av[rest], xv[rest])
        values[by_fraction] = _upper_fraction(xp, av[by_fraction], xv[by_fraction])
    else:
        values[by_series] = _lower_series(xp, av[by_series], xv[by_series])
        values[by_fraction] = 1 - _upper_fraction(xp, av[by_fraction], xv[by_fraction])
    result[regular] = values
    # boundaries, as torch (and SciPy): P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x) = 0,
    # P(a, inf) = 1; nan for negative arguments and for (0, 0) and (inf, inf)
    boundary_p = xp.select([(a == 0) & (x > 0), (x == 0) & (a > 0),
                            xp.isposinf(a) & xp.isfinite(x) & (x >= 0),
                            xp.isposinf(x) & xp.isfinite(a) & (a >= 0)],
                           [1.0, 0.0, 0.0, 1.0], xp.nan)
    boundary = ~regular
    result[boundary] = (1 - boundary_p[boundary]) if upper else boundary_p[boundary]
    return result


def _igamma_input_grad(ctx):
    raise NotImplementedError(f"the derivative for '{ctx.name}: input' is not implemented.")


def _regularized_density(ctx):
    """d/dx P(a, x) = x^(a - 1) e^-x / Gamma(a)."""
    return exp(sub_scalar(ctx.input, 1) * log(ctx.other) - ctx.other - lgamma(ctx.input))


def _incomplete_gamma_op(name, node_name, upper):
    @defop(node_name, save=("input", "other", "name"), promote="common", name="_" + name)
    def op(xp, input: Tensor, other: Tensor, name=name):
        if not is_floating_kind(xp.result_type(input, other)):
            raise NotImplementedError(not_implemented_for(f"{name}_cpu",
                                                          xp.result_type(input, other)))
        a, x = (xp.asarray(v, dtype=xp.float64) for v in (input, other))
        dtype = xp.result_type(input, other)
        return _incomplete_gamma(xp, a, x, upper).astype(dtype, copy=False)

    op.derivatives(input=_igamma_input_grad,
                   other=lambda ctx: (-ctx.grad if upper else ctx.grad) * _regularized_density(ctx))

    summary = (f"The regularized {'upper' if upper else 'lower'} incomplete gamma function of "
               "(input, other).")
    return op, binary_of_tensors(name, op, summary)


_igamma, igamma = _incomplete_gamma_op("igamma", "IgammaBackward0", upper=False)
_igammac, igammac = _incomplete_gamma_op("igammac", "IgammacBackward0", upper=True)


def _tensor_polygamma(input, n):
    """Tensor.polygamma(n): the tensor comes first."""
    return polygamma(n, input)


# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = "digamma igamma igammac lgamma mvlgamma polygamma".split()
METHODS = "digamma igamma igammac lgamma mvlgamma".split()
TENSOR_ONLY = {"polygamma": _tensor_polygamma}
