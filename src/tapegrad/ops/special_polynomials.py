"""torch.special's orthogonal polynomials p_n(x): Chebyshev's T, U, V, W (and shifted to [0, 1]),
Hermite's H and He, Laguerre's L and Legendre's P. None has a derivative in torch.

As torch computes them: x and n in their promoted dtype (integers give the default float
dtype), n truncated to an integer degree (NaN, inf and what int64 cannot hold count as
negative), 0 for a negative degree, and the three-term recurrence run in the result's dtype
(float32 rounding included), with torch's closed forms for the Chebyshev polynomials inside
(-1, 1) above a degree and their exact values at +-1. Unlike torch, whose recurrence then
returns an uninitialised value, a NaN x gives NaN."""
from .._tensor import Tensor
from ._checks import is_number, overload_error
from ._define import defop
from .special_unary import refuse_unsupported

_OVERLOADS = ("Tensor x, Tensor n, *, Tensor out = None",
              "Number x, Tensor n, *, Tensor out = None",
              "Tensor x, Number n, *, Tensor out = None")


def _degrees(xp, n):
    """torch's static_cast<int64_t>(n): truncation, and -1 where the cast is undefined."""
    fits = xp.isfinite(n) & (xp.absolute(n) < 2.0 ** 63)
    return xp.where(fits, xp.trunc(xp.where(fits, n, 0)), -1).astype(xp.int64)


def _recurrence(xp, step, x, previous, current, steps):
    """current after steps[i] updates (previous, current) <- (current, step(j, x, current,
    previous)), j = 1, 2, ..., elementwise on flat arrays; an element stops early at NaN (all
    later values are NaN too), and finished elements drop out as they finish."""
    result = current.copy()
    index = xp.flatnonzero(steps > 0)
    x, previous, current, steps = x[index], previous[index], current[index], steps[index]
    j = 1
    while index.size:
        previous, current = current, step(j, x, current, previous)
        done = (steps == j) | xp.isnan(current)
        if done.any():
            result[index[done]] = current[done]
            going = ~done
            index, x, steps = index[going], x[going], steps[going]
            previous, current = previous[going], current[going]
        j += 1
    return result


def _evaluate(xp, x, n, first, step, special=None):
    """p_n(x) on flat arrays: 0 for n < 0, 1 for n = 0, first(x) for n = 1, else the
    recurrence from (1, first(x)) for n - 1 steps. special(x, n) -> (where, values): the
    degrees n >= 0 for which torch takes values by other means."""
    taken, values = special(x, n) if special else (xp.zeros(x.shape, bool), x)
    taken = taken & (n >= 0)
    steps = xp.where((n >= 2) & ~taken, n - 1, 0)
    result = _recurrence(xp, step, x, xp.ones_like(x), first(x), steps)
    result = xp.select([taken, n < 0, n == 0, n == 1], [values, 0, 1, first(x)], result)
    return xp.where(xp.isnan(x), xp.nan, result).astype(x.dtype, copy=False)


# ---- Chebyshev: T, U, V, W; shifted, the same of y = 2x - 1 -------------------------------------

def _chebyshev_step(j, y, current, previous):
    return (y + y) * current - previous


def _libm(xp, function):
    """function (a ufunc) computed in float64 and rounded to the argument's dtype: in float32
    what the C library's correctly rounded acosf, sinf, cosf give torch, which NumPy's own
    float32 loops miss by a few ulps (ill-conditioned near y = -1 at high degrees)."""
    return lambda x: function(x.astype(xp.float64)).astype(x.dtype, copy=False)


def _chebyshev_closed_form(xp, kind, y, n):
    """torch's trigonometric forms inside (-1, 1), with theta = acos(y)."""
    sin, cos = _libm(xp, xp.sin), _libm(xp, xp.cos)
    theta = _libm(xp, xp.arccos)(y)
    degree = n.astype(y.dtype)
    odd_sign = xp.where(n % 2 == 0, 1, -1).astype(y.dtype)
    if kind == "t":
        return cos(degree * theta)
    if kind == "u":
        sine = sin(theta)
        return xp.where(sine != 0, sin((degree + 1) * theta) / sine,
                        (degree + 1) * cos((degree + 1) * theta) / y)
    if kind == "v":
        return xp.where(sin(theta / 2) != 1, cos((degree + 0.5) * theta) / cos(theta / 2),
                        odd_sign * (degree + degree + 1))
    return xp.where(cos(theta / 2) != 1, sin((degree + 0.5) * theta) / sin(theta / 2),
                    xp.where(y > 0, degree + degree + 1, odd_sign))


def _chebyshev_at_ends(xp, kind, y, n):
    """p_n(1) and p_n(-1), exactly."""
    degree = n.astype(y.dtype)
    odd_sign = xp.where(n % 2 == 0, 1, -1).astype(y.dtype)
    at_one, at_minus_one = {"t": (1, odd_sign), "u": (degree + 1, odd_sign * (degree + 1)),
                            "v": (1, odd_sign * (degree + degree + 1)),
                            "w": (degree + degree + 1, odd_sign)}[kind]
    return xp.where(y > 0, at_one, at_minus_one)


_CHEBYSHEV_FIRST = {"t": lambda y: y, "u": lambda y: y + y, "v": lambda y: y + y - 1,
                    "w": lambda y: y + y + 1}


def _chebyshev(xp, kind, above, y, n):
    """The Chebyshev polynomial of the given kind; the closed form for |y| < 1 and n > above."""
    def special(y, n):
        ends = xp.absolute(y) == 1
        inside = (n > above) & (xp.absolute(y) < 1)
        values = xp.where(ends, _chebyshev_at_ends(xp, kind, y, n),
                          _chebyshev_closed_form(xp, kind, xp.where(inside, y, 0), n))
        return ends | inside, values
    return _evaluate(xp, y, n, _CHEBYSHEV_FIRST[kind], _chebyshev_step, special)


# ---- Hermite, Laguerre, Legendre -----------------------------------------------------------------

def _hermite(first, step):
    """Hermite's H or He; as torch, NaN above degree 128 in float32 and 512 in float64."""
    def evaluate(xp, x, n):
        limit = 128 if x.dtype == xp.float32 else 512
        return _evaluate(xp, x, n, first, step, lambda x, n: (n > limit, xp.nan))
    return evaluate


_hermite_h = _hermite(lambda x: x + x,
                      lambda j, x, current, previous: (x + x) * current - (2 * j) * previous)
_hermite_he = _hermite(lambda x: x, lambda j, x, current, previous: x * current - j * previous)


def _laguerre_l(xp, x, n):
    def step(j, x, current, previous):
        return (((j + j) + (1 - x)) * current - j * previous) / (j + 1)
    return _evaluate(xp, x, n, lambda x: 1 - x, step,
                     lambda x, n: (x == 0, 1))


def _legendre_p(xp, x, n):
    def step(j, x, current, previous):
        return ((j + j + 1) * x * current - j * previous) / (j + 1)
    return _evaluate(xp, x, n, lambda x: x, step,
                     lambda x, n: (xp.absolute(x) == 1,
                                   xp.where((x > 0) | (n % 2 == 0), 1.0, -1.0)))


def _polynomial(name, evaluate, shifted=False):
    """torch.special.<name>(x, n): tensors, or a number on one side."""
    @defop(None, promote="float", name=f"special_{name}")
    def op(xp, x: Tensor, n: Tensor):
        refuse_unsupported(xp, f"{name}_cpu", x, n, half=False)
        dtype = (x if isinstance(x, xp.ndarray) else n).dtype
        x, n = xp.broadcast_arrays(xp.asarray(x, dtype=dtype), xp.asarray(n, dtype=dtype))
        y = x + x - 1 if shifted else x
        result = evaluate(xp, y.ravel(), _degrees(xp, n.ravel()))
        return result.reshape(x.shape)

    def function(x, n):
        if not (isinstance(x, Tensor) and (isinstance(n, Tensor) or is_number(n))
                or isinstance(n, Tensor) and is_number(x)):
            raise overload_error(f"special_{name}", _OVERLOADS, (x, n))
        return op(x, n)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}: the polynomial of degree n at x."
    return function


def _chebyshev_of(kind, above):
    return lambda xp, y, n: _chebyshev(xp, kind, above, y, n)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _chebyshev_of("t", 6))
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _chebyshev_of("u", 8))
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", _chebyshev_of("v", 8))
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", _chebyshev_of("w", 8))
# torch's closed forms of the shifted polynomials start at lower degrees
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                             _chebyshev_of("t", 6), shifted=True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                             _chebyshev_of("u", 6), shifted=True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                             _chebyshev_of("v", 6), shifted=True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                             _chebyshev_of("w", 4), shifted=True)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _hermite_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _hermite_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _laguerre_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _legendre_p)

SPECIAL_FUNCTIONS = """chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v
    chebyshev_polynomial_w shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u
    shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w hermite_polynomial_h
    hermite_polynomial_he laguerre_polynomial_l legendre_polynomial_p""".split()
