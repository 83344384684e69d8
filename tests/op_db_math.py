"""op_db rows of the pointwise math family: binary math (copysign, hypot, logaddexp, fmax,
ldexp, frexp, float_power, xlogy's overloads, floor/true division), the gamma family, erfinv,
i0, sinc and the angle conversions, the complex-number accessors of real tensors, and the
non-differentiable tests and integer ops (as parts of differentiable rows, so that torch's
bool and integer results are compared too)."""
import numpy as np

from op_db import BINARY, DISTINCT, NONZERO, POSITIVE, SCALAR_SIDE, UNARY, K, OpRow, S, each

_INTEGERS_A = np.array([[12, -18, 0, 7], [5, 100, -4, 9], [0, 3, 8, -15]], dtype=np.int64)
_INTEGERS_B = np.array([8, 27, 6, 0], dtype=np.int64)
_SHIFTS = np.array([[0, 1, 3, 62], [63, 64, -1, 2], [5, 70, 7, 1]], dtype=np.int64)
_NAN, _INF = float("nan"), float("inf")
_SPECIAL = [_NAN, _INF, -_INF, 0.0, -0.0, -1.5, 2.0]

# torch records a node named NotImplemented for these, whose backward raises (RuntimeError):
# only the forward and its graph can be compared, in torch as in tapegrad
_BACKWARD_RAISES = {check: "torch's node for this op is NotImplemented: backward raises, in "
                           "torch as in tapegrad" for check in
                    ("gradcheck", "gradgrad", "torch", "forward_ad")}
# igamma and igammac have no derivative for their first input: backward raises
# NotImplementedError, in torch as in tapegrad
_NO_INPUT_DERIVATIVE = {check: "torch has no derivative for igamma's input either: backward "
                               "raises" for check in ("gradcheck", "gradgrad", "torch")}


def _uniform(low, high):
    return each(lambda rng, shape: rng.uniform(low, high, shape))


def _non_integers(low, high):
    """Values in [low, high] at least 0.2 away from the integers (the poles of digamma...)."""
    def draw(rng, shape):
        return rng.integers(low, high, shape) + rng.uniform(0.2, 0.8, shape)
    return each(draw)


def _away_from_zero_and_powers_of_two(rng, shapes):
    """Values whose magnitude sits in the middle of [2^k, 2^(k+1)): frexp is linear there."""
    def draw(shape):
        return (rng.choice([-1.0, 1.0], shape) * rng.uniform(1.2, 1.8, shape)
                * 2.0 ** rng.integers(-3, 4, shape))
    return [draw(shape) for shape in shapes]


def _apart(rng, shapes):
    """Two inputs at least 0.1 apart and away from zero."""
    first = 0.4 * rng.integers(-5, 5, shapes[0]) + 0.2 + rng.uniform(-0.05, 0.05, shapes[0])
    second = 0.4 * rng.integers(-5, 5, shapes[1]) + rng.uniform(-0.05, 0.05, shapes[1])
    return [first, second]


def _shape_and_point(rng, shapes):
    """(a, x) of the incomplete gamma functions: a in [0.5, 5], x in [0.2, 8]."""
    return [rng.uniform(0.5, 5.0, shapes[0]), rng.uniform(0.2, 8.0, shapes[1])][:len(shapes)]


_ALPHAS = np.array([0.7, 1.5, 3.0, 6.5])

ROWS = (
    # ---- binary math ---------------------------------------------------------------------
    OpRow("copysign", lambda lib, a, b: lib.copysign(a, b), BINARY + (
        K([1.0, -2.0, 3.0, 0.5], [-0.0, 0.0, -1.0, _NAN], label="signed-zeros"),
        K([0.0, -0.0, 2.0], [-1.0, 1.0, 1.0], label="zero-input")), NONZERO, smooth=False,
        ops=("copysign",)),
    OpRow("copysign_number", lambda lib, x: x.copysign(-2.0) + lib.copysign(x, 1),
          SCALAR_SIDE, NONZERO, smooth=False, ops=("copysign",)),
    OpRow("hypot", lambda lib, a, b: lib.hypot(a, b) + a.hypot(b), BINARY, NONZERO,
          ops=("hypot",)),
    OpRow("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), BINARY + (
        K([0.0, 800.0, -800.0, 2.0], [0.0, -800.0, -801.0, 2.0], label="far-apart"),),
        ops=("logaddexp",)),
    OpRow("logaddexp2", lambda lib, a, b: a.logaddexp2(b), BINARY, ops=("logaddexp2",)),
    OpRow("fmax", lambda lib, a, b: lib.fmax(a, b), BINARY + (
        K([1.0, _NAN, 2.0, _NAN, 1.0], [1.0, 2.0, _NAN, _NAN, 3.0], label="ties-and-nan"),),
        _apart, smooth=False, ops=("fmax",)),
    OpRow("fmin", lambda lib, a, b: a.fmin(b), BINARY + (
        K([1.0, _NAN, 2.0, _NAN, 1.0], [1.0, 2.0, _NAN, _NAN, 3.0], label="ties-and-nan"),),
        _apart, smooth=False, ops=("fmin",)),
    OpRow("nextafter", lambda lib, a, b: lib.nextafter(a, b) + a.nextafter(b), BINARY[:8],
          _apart, ops=("nextafter",)),
    OpRow("ldexp", lambda lib, a, b: lib.ldexp(a, b), BINARY, ops=("ldexp",)),
    OpRow("ldexp_int_exponent", lambda lib, x, exponent: x.ldexp(exponent),
          # torch's gradient is 0 for negative integer exponents (2 ** -2 in integers)
          (S((3, 4), constants={"exponent": np.array([1, 0, 3, 10])}),), ops=("ldexp",)),
    OpRow("frexp", lambda lib, x: (lib.frexp(x)[0] + x.frexp().mantissa, lib.frexp(x)[1],
                                   x.frexp().exponent),
          UNARY + (K([0.0, 1.0, -3.0, 0.75, 1e-310, _INF, _NAN], label="special"),),
          _away_from_zero_and_powers_of_two, smooth=False, ops=("frexp",)),
    OpRow("float_power", lambda lib, a, b: lib.float_power(a, b), BINARY,
          each(lambda rng, s: rng.uniform(0.5, 2.0, s), lambda rng, s: rng.uniform(-2, 2, s)),
          ops=("float_power",)),
    OpRow("float_power_numbers", lambda lib, x: x.float_power(2) + lib.float_power(1.5, x)
          + lib.float_power(x, -1.5), SCALAR_SIDE, POSITIVE, ops=("float_power",)),
    OpRow("xlogy", lambda lib, a, b: lib.xlogy(a, b) + a.xlogy(b), BINARY + (
        K([0.0, 0.0, 2.0, 0.0], [0.0, _NAN, 0.5, 2.0], label="zero-input"),),
        each(lambda rng, s: rng.uniform(-2, 2, s), lambda rng, s: rng.uniform(0.5, 2, s)),
        ops=("xlogy",)),
    OpRow("xlogy_numbers", lambda lib, x: lib.xlogy(2.5, x) + lib.xlogy(x, 3.0)
          + lib.xlogy(x, 2), SCALAR_SIDE, POSITIVE, ops=("xlogy",)),
    OpRow("true_divide", lambda lib, a, b: lib.true_divide(a, b) + a.true_divide(b)
          + lib.true_divide(2.0, b), BINARY,
          each(lambda rng, s: rng.uniform(-2, 2, s), lambda rng, s: rng.uniform(0.5, 2, s)),
          ops=("true_divide",)),
    OpRow("floor_divide", lambda lib, a, b: (lib.floor_divide(a, b), a // b, 7 // b,
                                            a.floor_divide(2.0), a // 2),
          tuple(S(*s.shapes, bugs=_BACKWARD_RAISES) for s in BINARY[:4]), NONZERO,
          smooth=False, ops=("floor_divide",)),
    OpRow("heaviside", lambda lib, a, b: (lib.heaviside(a, b), a.heaviside(b), a * 2),
          (S((3, 4), (4,), bugs=_BACKWARD_RAISES),
           K([-1.0, 0.0, 2.0, _NAN, -0.0], [0.5, 0.25, 3.0, 1.0, 7.0], label="zeros",
             bugs=_BACKWARD_RAISES)), ops=("heaviside",)),

    # ---- integer ops, comparisons under their second names ----------------------------------
    OpRow("integer_ops", lambda lib, x, a, b, shifts: (
        x * 2, lib.gcd(a, b), a.lcm(b), lib.lcm(a, b), a.gcd(b), a << shifts, a >> shifts,
        lib.bitwise_left_shift(a, shifts), a.bitwise_right_shift(shifts), 3 << shifts,
        a >> 1, 5 & a, 6 | a, 3 ^ a),
        (S((2,), constants={"a": _INTEGERS_A, "b": _INTEGERS_B, "shifts": _SHIFTS}),),
        ops=("gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift")),
    OpRow("comparison_aliases", lambda lib, a, b: (
        a * b, lib.greater(a, b), a.greater_equal(b), lib.less(a, b), a.less_equal(b),
        lib.not_equal(a, b), a.greater(0.5), lib.less_equal(a, 0.5)), BINARY[:4], DISTINCT,
        ops=("greater", "greater_equal", "less", "less_equal", "not_equal")),

    # ---- unary math ----------------------------------------------------------------------
    OpRow("sinc", lambda lib, x: lib.sinc(x) + x.sinc(), UNARY + (
        K([0.0, 1.0, -2.0, 0.5, 1e-200], label="zeros-and-integers"),), _uniform(-3.0, 3.0),
        ops=("sinc",)),
    OpRow("angle_conversions", lambda lib, x: lib.deg2rad(x) + x.rad2deg() + x.deg2rad()
          + lib.rad2deg(x), UNARY, ops=("deg2rad", "rad2deg")),
    OpRow("sgn", lambda lib, x: lib.sgn(x) + x.sgn() + x, UNARY + (
        K([-1.0, 0.0, 2.0], label="at-0"),), DISTINCT, smooth=False, ops=("sgn",)),
    OpRow("erfinv", lambda lib, x: lib.erfinv(x) + x.erfinv(), UNARY + (
        K([-1.0, 1.0, 0.0, -0.0, 1.5, 0.999999, -0.9999999999], label="ends"),),
        _uniform(-0.9, 0.9), ops=("erfinv",)),
    # finite differences of i0 lose their digits at large |x|: the wide samples go to torch only
    OpRow("i0", lambda lib, x: lib.i0(x) + x.i0(), UNARY + (
        K(np.linspace(-30.0, 30.0, 61), label="wide"),
        K([0.0, -19.9, 20.1, 50.0, -700.0], label="series-and-asymptotic")),
        _uniform(-6.0, 6.0), ops=("i0",)),

    # ---- the gamma family ------------------------------------------------------------------
    OpRow("lgamma", lambda lib, x: lib.lgamma(x) + x.lgamma(), UNARY + (
        S((40,), label="wide"),
        K([1.0, 2.0, 0.5, 1e-8, 1.0 + 1e-9, 2.5, 10.0, 1e6, -0.5, -2.5], label="pieces"),
        K([0.0, -1.0, -3.0, _INF, -_INF, _NAN], label="poles")), _non_integers(-8, 12),
        ops=("lgamma",)),
    OpRow("digamma", lambda lib, x: lib.digamma(x) + x.digamma(), UNARY + (
        S((40,), label="wide"), K([1.0, 1.4616321449683622, 10.0, 1e8, -0.5], label="points"),
        # not -2.0: there torch's gradient (trigamma) is a rounding artifact (~1e32, not inf)
        K([0.0, -0.0, _INF, -_INF, _NAN], label="poles")), _non_integers(-8, 12),
        ops=("digamma",)),
    OpRow("polygamma", lambda lib, x, n: lib.polygamma(n, x) + x.polygamma(n), tuple(
        S((3, 4), constants={"n": n}, label=f"n={n}") for n in (0, 1, 2, 3, 4, 7)) + (
        S((), constants={"n": 1}, label="0d"),
        K([0.5, 2.0, -0.5, -3.25, 15.0, 1e-3, 1e5], constants={"n": 2}, label="points")),
        _uniform(0.5, 6.0), ops=("polygamma",)),
    # by reflection; the values grow fast towards the poles, so only the low orders here
    OpRow("polygamma_negative", lambda lib, x, n: lib.polygamma(n, x), tuple(
        S((3, 4), constants={"n": n}, label=f"n={n}") for n in (1, 2, 3)),
        _non_integers(-4, 0), ops=("polygamma",)),
    OpRow("mvlgamma", lambda lib, x, p: lib.mvlgamma(x, p) + x.mvlgamma(p),
          tuple(S((3, 4), constants={"p": p}, label=f"p={p}") for p in (1, 2, 3, 5)) + (
              S((), constants={"p": 3}, label="0d"),), _uniform(2.6, 6.0), ops=("mvlgamma",)),
    OpRow("igamma", lambda lib, x, a: lib.igamma(a, x) + a.igammac(x) + lib.igammac(a, x),
          tuple(S(shape, constants={"a": _ALPHAS}) for shape in ((3, 4), (4,), (2, 1))),
          _uniform(0.2, 8.0), ops=("igamma", "igammac")),
    OpRow("igamma_both", lambda lib, a, x: lib.igamma(a, x) + a.igammac(x), (
        S((3, 4), (3, 4), requires_grad=(False, True)),
        S((3, 4), (4,), requires_grad=(False, True)),
        S((2, 3), (2, 3), label="input-requires-grad", bugs=_NO_INPUT_DERIVATIVE),
        K([0.0, 0.0, 1.0, 1.0, 2.0, 1e-10, 500.0], [0.0, 1.0, 0.0, 3.0, _INF, 0.3, 480.0],
          requires_grad=(False, True), label="boundaries")),
        _shape_and_point, ops=("igamma", "igammac")),

    # ---- complex-number accessors and tests of values ------------------------------------
    OpRow("complex_parts", lambda lib, x: lib.positive(x) + +x + lib.real(x) + x.real
          + lib.conj(x) + x.conj() + lib.conj_physical(x) + x.conj_physical()
          + lib.resolve_conj(x) + x.resolve_neg() + lib.angle(x) + x.angle()
          + x * (1.0 + lib.is_conj(x) + x.is_neg()), UNARY + (
              K([1.0, -2.0, 0.0, -0.0, _NAN], label="signs"),), DISTINCT,
          ops=("positive", "real", "conj", "conj_physical", "resolve_conj", "resolve_neg",
               "angle", "is_conj", "is_neg")),
    OpRow("value_tests", lambda lib, x: (
        lib.where(lib.isfinite(x), x, 0.0) * 2, lib.signbit(x), x.signbit(), lib.isposinf(x),
        x.isneginf(), lib.isreal(x), x.isreal(), lib.isneginf(x), x.isposinf()),
        UNARY + (K(_SPECIAL, label="special"),), ops=("signbit", "isposinf", "isneginf",
                                                    "isreal")),
    OpRow("closeness", lambda lib, a, b: (
        a - b + a * float(lib.allclose(a, b, atol=3.0)) + b * float(a.allclose(a))
        + a * float(lib.equal(a, b)) + b * float(b.equal(b)), lib.isclose(a, b),
        a.isclose(b, rtol=0.5, atol=0.1), lib.isclose(a, a + 1e-9, equal_nan=True)),
        BINARY[:8] + (K([1.0, _NAN, _INF, -_INF, 1.0], [1.0, _NAN, _INF, _INF, 1.0 + 1e-6],
                        label="special"),), ops=("isclose", "allclose", "equal")),
)
