"""op_db rows of torch.special (tapegrad/ops/special_functions.py, special_polynomials.py,
special_unary.py, gamma.py), each function called as lib.special.X.

The functions torch keeps only there (i0e, i1, i1e, ndtri, log_ndtr, erfcx, entr, ndtr,
xlog1py and zeta with their three overloads) get their own rows; torch.special's names for
other families' ops (expit, gammaln, psi, softmax, ...) share rows by domain.

The Bessel and Airy functions and the orthogonal polynomials have no derivative in torch (their
results never require grad): their rows take the function of constant points (cast to the
input's dtype, so float32 is compared too) times a differentiable input, so that torch's values
show in the output and in the input's gradient."""
import numpy as np

from op_db import BINARY, SCALAR_SIDE, UNARY, K, OpRow, S, bug, each

_NAN, _INF = float("nan"), float("inf")
_constants_rng = np.random.default_rng(20261201)


def _uniform(low, high):
    return each(lambda rng, shape: rng.uniform(low, high, shape))


def _magnitudes(low, high):
    """Either sign, magnitudes in [low, high]: away from the kink of i0e and i1e at 0."""
    return each(lambda rng, shape: rng.choice([-1.0, 1.0], shape) * rng.uniform(low, high, shape))


def _off_the_tenths(rng, shape):
    """Whole tenths +-0.03: away from the jumps of round(x) (halves) and round(x, 1)."""
    return rng.integers(-20, 20, shape) / 10.0 + rng.uniform(-0.03, 0.03, shape)


def _shape_and_point(rng, shapes):
    """(a, x) of the incomplete gamma functions: a in [0.5, 5], x in [0.2, 8]."""
    return [rng.uniform(0.5, 5.0, shapes[0]), rng.uniform(0.2, 8.0, shapes[1])]


def _exponent_and_shift(rng, shapes):
    """(x, q) of zeta: the exponent in [1.5, 5] (the series converges), q in [0.5, 3]."""
    return [rng.uniform(1.5, 5.0, shapes[0]), rng.uniform(0.5, 3.0, shapes[1])]


def _xlog1py_domain(rng, shapes):
    """(x, y) of xlog1py: y > -1, where log1p is finite."""
    return [rng.uniform(-2.0, 2.0, shapes[0]), rng.uniform(-0.8, 2.0, shapes[1])]


# zeta has no derivative for its exponent (torch's formula is not_implemented): backward
# raises NotImplementedError, in torch as in tapegrad; the float32 check compares the forward
_NO_EXPONENT_DERIVATIVE = {check: "torch has no derivative for zeta's exponent either: "
                                  "backward raises NotImplementedError" for check in
                           ("gradcheck", "gradgrad", "torch")}
_NO_GRADIENT_FOR_A = {check: "torch has no derivative for gammainc's input either: backward "
                             "raises" for check in ("gradcheck", "gradgrad", "torch")}


# ---- functions without derivatives: values through a differentiable factor ---------------------

def _times(name):
    """x * special.<name>(points): the points are a constant, cast to x's dtype."""
    def fn(lib, x, points):
        return x * getattr(lib.special, name)(points.to(x.dtype))
    return fn


def _points(low, high, shape):
    return _constants_rng.uniform(low, high, shape)


def _value_samples(low, high, edges):
    """Samples of a function without derivative: random points in [low, high], broadcast
    against a 0-d factor, empty, and the edge values."""
    return (S((3, 4), constants={"points": _points(low, high, (3, 4))}),
            S((), constants={"points": _points(low, high, (6,))}, label="0d-factor"),
            S((0, 3), constants={"points": np.zeros((0, 3))}),
            # infinities and NaN: compared with torch only
            S((len(edges),), constants={"points": np.array(edges)}, at_kink=True,
              label="edges"))


# torch's own values are off in places, not tapegrad's (which are SciPy's, right to float64
# rounding; see special_functions.py): its bessel_j0, j1, y1 beyond |x| = 5 (Cephes's asymptotic
# branch, whose leading coefficients torch drops) by ~1e-6 of the functions' scale, bessel_y0 by
# ~1e-8 next to its zeros beyond 3.9, airy_ai by up to 2e-6 in [-2.56, -2.09] (in float32 too,
# in [-2.125, -2.09]). The random points keep out of these ranges.
_BESSEL = (
    # name, the random points' range, edge values
    ("airy_ai", -2.0, 5.0, [0.0, -0.0, -10.0, 10.0, 100.0, -_INF, _INF, _NAN]),
    ("bessel_j0", -5.0, 5.0, [0.0, -0.0, 1e-10, 2.404825557695773, _INF, -_INF, _NAN]),
    ("bessel_j1", -5.0, 5.0, [0.0, -0.0, 1e-10, -1e-10, _INF, -_INF, _NAN]),
    ("bessel_y0", 0.1, 3.9, [0.0, -1.0, 1e-10, _INF, _NAN]),
    ("bessel_y1", 0.1, 5.0, [0.0, -1.0, 1e-10, _INF, _NAN]),
    ("modified_bessel_i0", -8.0, 8.0, [0.0, -0.0, 30.0, -30.0, 700.0, _INF, _NAN]),
    ("modified_bessel_i1", -8.0, 8.0, [0.0, -0.0, 30.0, -30.0, 700.0, _INF, -_INF, _NAN]),
    ("modified_bessel_k0", 0.1, 8.0, [0.0, -1.0, 1e-10, 2.0, 30.0, 700.0, _INF, _NAN]),
    ("modified_bessel_k1", 0.1, 8.0, [0.0, -1.0, 1e-10, 2.0, 30.0, 700.0, _INF, _NAN]),
    ("scaled_modified_bessel_k0", 0.1, 8.0, [0.0, -1.0, 2.0, 30.0, 1e10, _INF, _NAN]),
    ("scaled_modified_bessel_k1", 0.1, 8.0, [0.0, -1.0, 2.0, 30.0, 1e10, _INF, _NAN]),
    ("spherical_bessel_j0", -10.0, 10.0, [0.0, -0.0, 1e-10, 3.141592653589793, 1e10, _INF,
                                          _NAN]),
)
_BESSEL_ROWS = tuple(OpRow(f"special_{name}", _times(name), _value_samples(low, high, edges),
                           ops=(f"special.{name}",))
                     for name, low, high, edges in _BESSEL)


def _polynomial(name):
    """x * special.<name>(point, n): point a constant tensor (cast to x's dtype) or a number,
    n an int64 tensor or a number (torch's three overloads)."""
    def fn(lib, x, point, n):
        if hasattr(point, "dtype"):
            point = point.to(x.dtype)
        return x * getattr(lib.special, name)(point, n)
    return fn


def _degrees(shape, high=12):
    """Degrees -1 .. high: 0 below degree 0, the closed forms of the Chebyshev polynomials
    inside (-1, 1) above degree 4 to 8."""
    return _constants_rng.integers(-1, high + 1, shape)


# A tapegrad bug: in float32, torch's closed forms of the Chebyshev polynomials (Math.h) call
# the C library's acosf, which glibc does not round correctly everywhere (acosf(-0.79686336f)
# is 2.4928818f, the float32 nearest acos is 2.492882f); tapegrad rounds float64's acos
# (special_polynomials._libm), and at degree 11-12 the one ulp of theta shows as ~1.5e-5
# relative in the polynomial: W_12(-0.79686336f) is -0.26602432f in torch, -0.26602045f here.
_ACOSF_BUG = bug("float32 Chebyshev closed forms round float64's acos where torch calls "
                 "glibc's acosf, 1 ulp off at some points (W_12(-0.79686336f): torch "
                 "-0.26602432f, tapegrad -0.26602045f)", ("float32",))


def _polynomial_samples(low, high, ends, bugs=None):
    return (
        S((3, 4), constants={"point": _points(low, high, (3, 4)), "n": _degrees((3, 4))},
          label="tensor-n", bugs=bugs or {}),
        S((3, 4), constants={"point": _points(low, high, (3, 1)), "n": _degrees((4,))},
          label="broadcast"),
        S((3, 4), constants={"point": _points(low, high, (3, 4)), "n": 7}, label="number-n"),
        S((3, 4), constants={"point": _points(low, high, (3, 4)), "n": 0}, label="degree-0"),
        S((4,), constants={"point": (low + high) / 2 + 0.1, "n": _degrees((4,))},
          label="number-x"),
        S((len(ends), 3), constants={"point": np.array(ends)[:, None],
                                     "n": np.array([1, 6, 11])}, at_kink=True, label="ends"),
        S((0, 3), constants={"point": np.zeros((0, 3)), "n": 3}, label="empty"),
    )


_POLYNOMIALS = (
    ("chebyshev_polynomial_t", -1.0, 1.0, [-1.0, 1.0, 0.0, 1.5, -2.0, _NAN]),
    ("chebyshev_polynomial_u", -1.0, 1.0, [-1.0, 1.0, 0.0, 1.5, -2.0, _NAN]),
    ("chebyshev_polynomial_v", -1.0, 1.0, [-1.0, 1.0, 0.0, 1.5, -2.0, _NAN]),
    ("chebyshev_polynomial_w", -1.0, 1.0, [-1.0, 1.0, 0.0, 1.5, -2.0, _NAN], _ACOSF_BUG),
    ("shifted_chebyshev_polynomial_t", 0.0, 1.0, [0.0, 1.0, 0.5, 1.25, -0.5, _NAN]),
    ("shifted_chebyshev_polynomial_u", 0.0, 1.0, [0.0, 1.0, 0.5, 1.25, -0.5, _NAN], _ACOSF_BUG),
    ("shifted_chebyshev_polynomial_v", 0.0, 1.0, [0.0, 1.0, 0.5, 1.25, -0.5, _NAN]),
    ("shifted_chebyshev_polynomial_w", 0.0, 1.0, [0.0, 1.0, 0.5, 1.25, -0.5, _NAN]),
    ("hermite_polynomial_h", -2.0, 2.0, [0.0, 1.0, -1.0, 3.0, -5.0, _NAN]),
    ("hermite_polynomial_he", -2.0, 2.0, [0.0, 1.0, -1.0, 3.0, -5.0, _NAN]),
    ("laguerre_polynomial_l", 0.0, 5.0, [0.0, 1.0, -1.0, 10.0, 20.0, _NAN]),
    ("legendre_polynomial_p", -1.0, 1.0, [-1.0, 1.0, 0.0, 1.5, -2.0, _NAN]),
)
_POLYNOMIAL_ROWS = tuple(OpRow(f"special_{name}", _polynomial(name),
                               _polynomial_samples(low, high, *rest), ops=(f"special.{name}",))
                         for name, low, high, *rest in _POLYNOMIALS)


# ---- the functions with derivatives ------------------------------------------------------------

def _special(name, **options):
    return lambda lib, *inputs: getattr(lib.special, name)(*inputs, **options)


ROWS = (
    OpRow("special_i0e", _special("i0e"), UNARY + (
        K(np.linspace(-30.0, 30.0, 61), label="wide"),
        K([0.0, -0.0, 1e-10, 700.0, -800.0, _INF, -_INF, _NAN], label="edges")),
        _magnitudes(0.2, 8.0), ops=("special.i0e",)),
    OpRow("special_i1", _special("i1"), UNARY + (
        S((30,), label="wide"),
        K([0.0, -0.0, 1e-10, -1e-10, 50.0, -700.0, _NAN], label="edges")),
        _uniform(-6.0, 6.0), ops=("special.i1",)),
    OpRow("special_i1e", _special("i1e"), UNARY + (
        K(np.linspace(-30.0, 30.0, 61), label="wide"),
        K([0.0, -0.0, 1e-10, -1e-10, 700.0, -800.0, _INF, -_INF, _NAN], label="edges")),
        _magnitudes(0.2, 8.0), ops=("special.i1e",)),
    OpRow("special_ndtri", _special("ndtri"), UNARY + (
        K([0.0, 1.0, 0.5, 1e-300, 1.0 - 1e-16, -0.5, 1.5, _NAN], label="edges"),),
        _uniform(0.05, 0.95), ops=("special.ndtri",)),
    OpRow("special_log_ndtr", _special("log_ndtr"), UNARY + (
        S((30,), label="wide"),
        K([0.0, -10.0, -40.0, 8.0, 40.0, -_INF, _INF, _NAN], label="tails")),
        _uniform(-6.0, 5.0), ops=("special.log_ndtr",)),
    OpRow("special_erfcx", _special("erfcx"), UNARY + (
        K([0.0, -5.0, 30.0, 1e10, -30.0, _INF, -_INF, _NAN], label="tails"),),
        _uniform(-2.0, 6.0), ops=("special.erfcx",)),
    OpRow("special_entr", _special("entr"), UNARY + (
        K([0.0, -1.0, 1e-300, 1.0, _INF, _NAN], label="edges"),),
        _uniform(0.1, 3.0), ops=("special.entr",)),
    OpRow("special_ndtr", _special("ndtr"), UNARY + (
        K([0.0, -10.0, 10.0, -40.0, _INF, -_INF, _NAN], label="tails"),),
        _uniform(-4.0, 4.0), ops=("special.ndtr",)),

    OpRow("special_xlog1py", _special("xlog1py"), BINARY + (
        K([0.0, 0.0, 0.0, 2.0, 0.0], [-1.0, _NAN, 0.5, -1.0, -2.0], label="zero-input"),),
        _xlog1py_domain, ops=("special.xlog1py",)),
    OpRow("special_xlog1py_number_tensor", lambda lib, y: lib.special.xlog1py(2.5, y),
          SCALAR_SIDE + (K([-1.0, 0.0, _NAN], label="at--1"),), _uniform(-0.8, 2.0),
          ops=("special.xlog1py",)),
    OpRow("special_xlog1py_zero_number_tensor", lambda lib, y: lib.special.xlog1py(0, y),
          (S((3, 4)), K([-1.0, -2.0, _NAN], label="at--1")), _uniform(-0.8, 2.0),
          ops=("special.xlog1py",)),
    OpRow("special_xlog1py_tensor_number",
          lambda lib, x, other=0.5: lib.special.xlog1py(x, other) + lib.special.xlog1py(x, 2),
          SCALAR_SIDE + (
              # at other = -1 torch's gradient is 0 where x is 0 (log1p(-1) is -inf)
              K([0.0, 1.0, -2.0], constants={"other": -1.0}, label="zero-input-at--1"),
              K([0.0, 1.0, _NAN], constants={"other": _NAN}, label="nan-other")),
          ops=("special.xlog1py",)),

    OpRow("special_zeta", _special("zeta"), tuple(
        S(*shapes, requires_grad=(False, True)) for shapes in (
            ((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((), (2, 3)), ((0, 3), (3,))))
        + (S((4, 3), (4, 3), layouts=(None, "t"), requires_grad=(False, True), label="t"),
           S((3, 4), (3, 4), label="exponent-requires-grad", bugs=_NO_EXPONENT_DERIVATIVE),
           K([1.0, 2.0, 2.0, 0.5, 3.0, 2.0], [1.0, 0.0, -1.5, 2.0, _INF, _NAN],
             requires_grad=(False, True), label="edges")),
        _exponent_and_shift, ops=("special.zeta",)),
    OpRow("special_zeta_number_tensor", lambda lib, q: lib.special.zeta(2.5, q)
          + lib.special.zeta(4, q), SCALAR_SIDE, _uniform(0.5, 3.0), ops=("special.zeta",)),
    OpRow("special_zeta_tensor_number", lambda lib, x: lib.special.zeta(x, 1.5),
          tuple(S(*s.shapes, label=s.label, bugs=_NO_EXPONENT_DERIVATIVE) for s in SCALAR_SIDE),
          _uniform(1.5, 5.0), ops=("special.zeta",)),

    # ---- torch.special's names for other families' ops ---------------------------------------
    OpRow("special_unary_aliases", lambda lib, x: lib.special.expit(x) + lib.special.erf(x)
          + lib.special.erfc(x) + lib.special.erfinv(x) + lib.special.exp2(x)
          + lib.special.expm1(x) + lib.special.i0(x) + lib.special.log1p(x)
          + lib.special.sinc(x), UNARY, _uniform(-0.9, 0.9),
          ops=("special.expit", "special.erf", "special.erfc", "special.erfinv",
               "special.exp2", "special.expm1", "special.i0", "special.log1p", "special.sinc")),
    OpRow("special_gamma_aliases", lambda lib, x: lib.special.gammaln(x) + lib.special.psi(x)
          + lib.special.digamma(x) + lib.special.polygamma(2, x)
          + lib.special.multigammaln(x, 2), UNARY, _uniform(1.1, 5.0),
          ops=("special.gammaln", "special.psi", "special.digamma", "special.polygamma",
               "special.multigammaln")),
    OpRow("special_logit", lambda lib, x: lib.special.logit(x) + lib.special.logit(x, eps=0.2)
          + lib.special.logit(x, 0.1), UNARY, _uniform(0.25, 0.75), ops=("special.logit",)),
    OpRow("special_round", lambda lib, x: x + lib.special.round(x)
          + lib.special.round(x, decimals=1), UNARY + (
              K([0.5, 1.5, -2.5, 0.25, 0.05], label="at-steps"),),
          each(_off_the_tenths), smooth=False, ops=("special.round",)),
    OpRow("special_xlogy", lambda lib, a, b: lib.special.xlogy(a, b)
          + lib.special.xlogy(2.0, b) + lib.special.xlogy(a, 3.0), BINARY + (
              K([0.0, 0.0, 2.0], [0.0, _NAN, 0.5], label="zero-input"),),
          each(lambda rng, s: rng.uniform(-2, 2, s), lambda rng, s: rng.uniform(0.5, 2, s)),
          ops=("special.xlogy",)),
    OpRow("special_softmax", lambda lib, x, dim: lib.special.softmax(x, dim)
          + lib.special.log_softmax(x, dim) + lib.special.softmax(x, dim, dtype=lib.float64),
          (S((3, 4), constants={"dim": 1}), S((2, 3, 2), constants={"dim": -2}),
           S((), constants={"dim": 0}), S((0, 3), constants={"dim": 1}),
           S((4, 3), constants={"dim": 0}, layouts=("t",), label="t")),
          ops=("special.softmax", "special.log_softmax")),
    OpRow("special_logsumexp", lambda lib, x, dim, keepdim: lib.special.logsumexp(
        x, dim, keepdim), (S((3, 4), constants={"dim": 1, "keepdim": False}),
                           S((2, 3, 2), constants={"dim": (0, 2), "keepdim": True}),
                           S((), constants={"dim": 0, "keepdim": False}),
                           S((4, 3), constants={"dim": -1, "keepdim": False}, layouts=("t",),
                             label="t")), ops=("special.logsumexp",)),
    OpRow("special_gammainc", lambda lib, a, x: lib.special.gammainc(a, x)
          + lib.special.gammaincc(a, x), (
              S((3, 4), (3, 4), requires_grad=(False, True)),
              S((3, 4), (4,), requires_grad=(False, True)),
              S((2, 3), (2, 3), label="input-requires-grad", bugs=_NO_GRADIENT_FOR_A)),
          _shape_and_point, ops=("special.gammainc", "special.gammaincc")),
) + _BESSEL_ROWS + _POLYNOMIAL_ROWS
