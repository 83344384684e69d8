"""op_db rows of the pointwise family beyond the basic arithmetic in op_db.py: unary math,
rounding, atan2, fmod, lerp, addcmul/addcdiv, logit, nan_to_num, clamp with tensor bounds,
clamp_min/clamp_max, where with number branches, and the logical and is* tests (as parts of
differentiable rows, so that torch's bool results are compared too)."""
import numpy as np

from op_db import (BINARY, DISTINCT, NONZERO, POSITIVE, REAL, SCALAR_SIDE, STEP, UNARY, K,
                   OpRow, S, T, dividend_divisor, divisible_by, each)


# ---- input domains -------------------------------------------------------------------------

def _uniform(low, high):
    return each(lambda rng, shape: rng.uniform(low, high, shape))


def _off_the_steps(scale=1.0):
    """Quarters and three-quarters (+-0.1) of whole numbers, times scale: away from the jumps
    of floor, ceil, trunc and round (integers and halves), so finite differences see 0."""
    def draw(rng, shape):
        whole = rng.integers(-3, 3, shape)
        return scale * (whole + rng.choice([0.25, 0.75], shape) + rng.uniform(-0.1, 0.1, shape))
    return each(draw)


def _last_nonzero(rng, shapes):
    """Any values, except the last input (a divisor) away from zero."""
    return REAL(rng, shapes[:-1]) + NONZERO(rng, shapes[-1:])


def _inside_and_outside(low, high):
    """Values below, between and above two bounds, a fifth of their distance from either."""
    width = high - low

    def draw(rng, shape):
        centres = rng.choice([low - width / 2, (low + high) / 2, high + width / 2], shape)
        return centres + rng.uniform(-0.3, 0.3, shape) * width
    return each(draw)


def _value_low_high(rng, shapes):
    """(x, low[, high]) with low near -1, high near 1 and x at least 0.2 away from both."""
    x = rng.choice([-1.5, -0.5, 0.0, 0.5, 1.5], shapes[0]) + rng.uniform(-0.1, 0.1, shapes[0])
    bounds = [rng.uniform(-1.2, -0.8, shapes[1])]
    if len(shapes) > 2:
        bounds.append(rng.uniform(0.8, 1.2, shapes[2]))
    return [x, *bounds]


def _value_bound(centre):
    """(x, bound) with the bound near centre and x at least 0.2 away from it."""
    def domain(rng, shapes):
        x = centre + rng.choice([-0.5, 0.5], shapes[0]) + rng.uniform(-0.1, 0.1, shapes[0])
        return [x, centre + rng.uniform(-0.2, 0.2, shapes[1])]
    return domain


# ---- samples -------------------------------------------------------------------------------

TERNARY = (
    S((3, 4), (3, 4), (3, 4)), S((3, 4), (4,), (3, 1)), S((), (), ()), S((2, 3), (), (3,)),
    S((), (2, 1), (3,)), S((0, 3), (3,), (0, 1)),
    S((4, 3), (4, 3), (4, 3), layouts=("t", None, "t"), label="t-x-t"),
    STEP((3, 2), (3, 2), (3, 2)),
)
ROUNDING_KINKS = K([-1.5, -0.5, 0.0, 0.5, 1.0, 2.5, -2.0], label="at-steps")
_SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -1.5, 2.0]
# where min > max torch returns max and gives max the gradient; ties go to the input
CROSSED_BOUNDS = K([0.0, 1.0, 2.0, 3.0, 1.0, 0.5, 2.0, 5.0],
                   [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0],
                   [2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 2.0, 1.0], label="crossed-and-tied-bounds")


def _unary(name, fn, op, domain=REAL, samples=UNARY):
    return OpRow(name, fn, samples, domain, ops=(op,))


ROWS = (
    # ---- unary math: every op as a method, then the function forms together ---------------
    _unary("exp2", lambda lib, x: x.exp2(), "exp2"),
    _unary("expm1", lambda lib, x: x.expm1(), "expm1"),
    _unary("log2", lambda lib, x: x.log2(), "log2", POSITIVE),
    _unary("log10", lambda lib, x: x.log10(), "log10", POSITIVE),
    _unary("log1p", lambda lib, x: x.log1p(), "log1p", _uniform(-0.6, 2.0)),
    _unary("rsqrt", lambda lib, x: x.rsqrt(), "rsqrt", POSITIVE),
    _unary("tan", lambda lib, x: x.tan(), "tan", _uniform(-1.2, 1.2)),
    _unary("asin", lambda lib, x: x.asin(), "asin", _uniform(-0.9, 0.9)),
    _unary("acos", lambda lib, x: x.acos(), "acos", _uniform(-0.9, 0.9)),
    _unary("atan", lambda lib, x: x.atan(), "atan"),
    _unary("sinh", lambda lib, x: x.sinh(), "sinh"),
    _unary("cosh", lambda lib, x: x.cosh(), "cosh"),
    _unary("asinh", lambda lib, x: x.asinh(), "asinh"),
    _unary("acosh", lambda lib, x: x.acosh(), "acosh", _uniform(1.2, 3.0)),
    _unary("atanh", lambda lib, x: x.atanh(), "atanh", _uniform(-0.9, 0.9)),
    _unary("erf", lambda lib, x: x.erf(), "erf"),
    _unary("erfc", lambda lib, x: x.erfc(), "erfc"),
    # Both are computed in three pieces, split at |x| = 0.46875 and 4: sample them all, and
    # the tails, where erfc keeps its relative accuracy down to 1e-300.
    _unary("erf_wide", lambda lib, x: lib.erf(x), "erf", _uniform(-6.0, 6.0),
           samples=(S((40,)), K(np.linspace(-30, 30, 61), label="tails"))),
    _unary("erfc_wide", lambda lib, x: lib.erfc(x), "erfc", _uniform(-6.0, 6.0),
           samples=(S((40,)), K(np.linspace(-30, 30, 61), label="tails"),
                    K([-0.46875, 0.46875, 4.0, -4.0, 26.5, 27.0, -0.0], label="break-points"))),
    _unary("logit", lambda lib, x: x.logit(), "logit", _uniform(0.1, 0.9),
           samples=UNARY + (K([-0.5, 0.0, 0.3, 1.0, 1.5], label="outside-0-1"),)),
    OpRow("logit_eps", lambda lib, x, eps: lib.logit(x, eps=eps), (
        S((3, 4), constants={"eps": 0.2}, label="eps"),
        S((), constants={"eps": 0.2}, label="0d"),
        K([-0.5, 0.0, 0.2, 0.5, 0.8, 1.0, 1.5], constants={"eps": 0.2}, label="at-bounds"),
        K([-0.5, 0.0, 0.5, 1.0, 1.5], constants={"eps": -0.1}, label="negative-eps"),
        K([0.0, 0.5, 0.9], constants={"eps": 0.7}, label="eps-above-half"),
    ), _inside_and_outside(0.2, 0.8), ops=("logit",)),
    OpRow("unary_math_fns", lambda lib, x: lib.exp2(x) + lib.expm1(x) + lib.log2(x)
          + lib.log10(x) + lib.log1p(x) + lib.rsqrt(x) + lib.tan(x) + lib.asin(x) + lib.acos(x)
          + lib.atan(x) + lib.sinh(x) + lib.cosh(x) + lib.asinh(x) + lib.acosh(x + 1)
          + lib.atanh(x) + lib.erf(x) + lib.erfc(x) + lib.logit(x, 0.01),
          UNARY[:2], _uniform(0.2, 0.8),
          ops=("exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "tan", "asin", "acos", "atan",
               "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "logit")),
    OpRow("arc_aliases", lambda lib, x: lib.arcsin(x) + x.arccos() + lib.arctan(x)
          + x.arcsinh() + lib.arccosh(x + 2) + lib.arctanh(x) + x.arcsin(),
          UNARY[:2], _uniform(-0.9, 0.9),
          ops=("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")),

    # ---- rounding: zero gradients (frac passes it through) ---------------------------------
    OpRow("floor", lambda lib, x: x.floor(), UNARY + (ROUNDING_KINKS,), _off_the_steps(),
          smooth=False, ops=("floor",)),
    OpRow("ceil", lambda lib, x: x.ceil(), UNARY + (ROUNDING_KINKS,), _off_the_steps(),
          smooth=False, ops=("ceil",)),
    OpRow("trunc", lambda lib, x: x.trunc(), UNARY + (ROUNDING_KINKS,), _off_the_steps(),
          smooth=False, ops=("trunc",)),
    OpRow("round", lambda lib, x: x.round(), UNARY + (ROUNDING_KINKS,), _off_the_steps(),
          smooth=False, ops=("round",)),
    OpRow("frac", lambda lib, x: x.frac(), UNARY + (ROUNDING_KINKS,), _off_the_steps(),
          smooth=False, ops=("frac",)),
    OpRow("rounding_fns", lambda lib, x: lib.floor(x) + lib.ceil(x) + lib.trunc(x)
          + lib.round(x) + lib.fix(x) + x.fix() + lib.frac(x) * 3, UNARY[:2], _off_the_steps(),
          smooth=False, ops=("floor", "ceil", "trunc", "round", "fix", "frac")),
    OpRow("round_decimals", lambda lib, x: lib.round(x, decimals=2) + x.round(decimals=1),
          UNARY + (K([0.05, 0.15, 0.125, -0.25, 1.005], label="at-steps"),),
          _off_the_steps(0.01), smooth=False, ops=("round",)),
    OpRow("round_decimals_0", lambda lib, x: x.round(decimals=0), UNARY[:2], _off_the_steps(),
          smooth=False, ops=("round",)),
    OpRow("round_decimals_negative", lambda lib, x: lib.round(x, decimals=-1),
          UNARY[:3] + (K([15.0, 25.0, -35.0, 1234.5], label="at-steps"),),
          _off_the_steps(10.0), smooth=False, ops=("round",)),

    # ---- binary and ternary math ----------------------------------------------------------
    OpRow("atan2", lambda lib, a, b: lib.atan2(a, b), BINARY + (
        K([0.0, 0.0, 1.0, -1.0, -0.0], [0.0, -1.0, 0.0, 0.0, -1.0], label="axes"),),
        NONZERO, ops=("atan2",)),
    OpRow("atan2_methods", lambda lib, a, b: a.atan2(b) + a.arctan2(b) + lib.arctan2(b, a),
          BINARY[:3], NONZERO, ops=("atan2", "arctan2")),
    OpRow("fmod", lambda lib, a, b: lib.fmod(a, b), (
        S((3, 4), (3, 4)), S((3, 4), (4,)), S((4,), (3, 4)), S((2, 3), ()), S((), ()),
        S((0, 3), (3,)), S((3, 4), (4,), requires_grad=(False, True), label="divisor-only"),
    ), dividend_divisor, smooth=False, ops=("fmod",)),
    OpRow("fmod_scalar", lambda lib, x: x.fmod(1.5) + lib.fmod(x, -1.5), SCALAR_SIDE,
          divisible_by(1.5), smooth=False, ops=("fmod",)),
    OpRow("lerp_scalar_weight", lambda lib, a, b, weight: lib.lerp(a, b, weight), tuple(
        S(*sample.shapes, constants={"weight": weight}, layouts=sample.layouts,
          label=f"{sample.label}-w{weight}")
        for sample in BINARY for weight in (0.3, 0.8)) + (
        S((3,), (3,), constants={"weight": -0.6}, label="negative-weight"),
        S((3,), (3,), constants={"weight": 2}, label="int-weight")), ops=("lerp",)),
    # a weight in [-2, 2] takes both of torch's formulas (|weight| < 0.5 and not)
    OpRow("lerp_tensor_weight", lambda lib, a, b, w: a.lerp(b, w), TERNARY + (
        S((3, 4), (3, 4), (3, 4), requires_grad=(True, True, False), label="weight-no-grad"),
        S((3, 4), (3, 4), (3, 4), requires_grad=(False, False, True), label="weight-only"),
        K([1.0, 2.0, -1.0], [3.0, -1.0, -1.0], [0.0, 1.0, 0.5], label="weight-0-1-half"),
    ), ops=("lerp",)),
    OpRow("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c), TERNARY, ops=("addcmul",)),
    OpRow("addcmul_value", lambda lib, a, b, c: a.addcmul(b, c, value=-2.5),
          TERNARY[:3] + (S((3,), (3,), (3,), requires_grad=(False, True, False),
                           label="tensor1-only"),), ops=("addcmul",)),
    OpRow("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c), TERNARY, _last_nonzero,
          ops=("addcdiv",)),
    OpRow("addcdiv_value", lambda lib, a, b, c: a.addcdiv(b, c, value=0.5),
          TERNARY[:3] + (S((3,), (3,), (3,), requires_grad=(False, False, True),
                           label="tensor2-only"),), _last_nonzero, ops=("addcdiv",)),

    # ---- clamping ----------------------------------------------------------------------------
    OpRow("clamp_tensor_both", lambda lib, x, low, high: lib.clamp(x, low, high),
          # not (), (2, 1), (3,): torch's backward fails there (its in-place masks can't grow)
          TERNARY[:4] + TERNARY[5:] + (CROSSED_BOUNDS,), _value_low_high, smooth=False,
          ops=("clamp",)),
    OpRow("clamp_tensor_max", lambda lib, x, high: x.clamp(max=high),
          BINARY[:8] + (K([0.0, 1.0, 2.0], [1.0, 1.0, 1.0], label="tie"),),
          _value_bound(1.0), smooth=False, ops=("clamp",)),
    OpRow("clip_tensor_both", lambda lib, x, low, high: x.clip(low, high) + lib.clip(x, low),
          TERNARY[:2], _value_low_high, smooth=False, ops=("clip",)),
    OpRow("clamp_min_number", lambda lib, x: lib.clamp_min(x, -1.0) + x.clamp_min(0.1),
          UNARY + (K([-1.0, 0.1, 0.0, 2.0], label="at-bounds"),),
          _inside_and_outside(-1.0, 0.1), smooth=False, ops=("clamp_min",)),
    OpRow("clamp_min_tensor", lambda lib, x, low: x.clamp_min(low),
          BINARY[:8] + (K([0.0, -1.0, -2.0], [-1.0, -1.0, -1.0], label="tie"),),
          _value_bound(-1.0), smooth=False, ops=("clamp_min",)),
    OpRow("clamp_max_number", lambda lib, x: lib.clamp_max(x, 1.0) + x.clamp_max(-0.1),
          UNARY + (K([1.0, -0.1, 0.0, -2.0], label="at-bounds"),),
          _inside_and_outside(-0.1, 1.0), smooth=False, ops=("clamp_max",)),
    OpRow("clamp_max_tensor", lambda lib, x, high: lib.clamp_max(x, high),
          BINARY[:8] + (K([0.0, 1.0, 2.0], [1.0, 1.0, 1.0], label="tie"),),
          _value_bound(1.0), smooth=False, ops=("clamp_max",)),

    # ---- selection, replacement and the tests that feed them ------------------------------
    OpRow("where_number_branches", lambda lib, x, condition: lib.where(condition, 2.5, x)
          + lib.where(condition, x, 1) * lib.where(condition, 1.0, 0.0),
          (S((3, 4), constants={"condition": np.eye(3, 4, dtype=bool)}),
           S((), constants={"condition": np.array([True, False])}, label="0d-broadcast")),
          ops=("where",)),
    OpRow("nan_to_num", lambda lib, x: x.nan_to_num(), UNARY + (
        K(_SPECIAL, label="special"),), ops=("nan_to_num",)),
    OpRow("nan_to_num_values", lambda lib, x: lib.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0),
          (S((3, 4)), K(_SPECIAL, label="special")), ops=("nan_to_num",)),
    OpRow("nan_to_num_positional", lambda lib, x: x.nan_to_num(2.0, 3.0),
          (S((2,)), K(_SPECIAL, label="special")), ops=("nan_to_num",)),
    OpRow("is_tests", lambda lib, x: (lib.where(lib.isfinite(x), x, 0.0) * 2, lib.isnan(x),
                                      x.isinf(), x.isfinite(), x.isnan(), lib.isinf(x)),
          UNARY + (K(_SPECIAL, label="special"),), ops=("isnan", "isinf", "isfinite")),
    OpRow("logical_ops", lambda lib, a, b: (
        lib.where(lib.logical_and(a > 0, b) | lib.logical_xor(a, b < 0), a, b),
        lib.logical_or(a, b > 0), a.logical_and(b), b.logical_xor(a), lib.logical_not(a),
        a.logical_not(), (a > 0).logical_or(b)),
        BINARY[:8] + (K([0.0, 1.0, 0.0, -2.0], [0.0, 0.0, 3.0, 0.5], label="zeros"),),
        DISTINCT, ops=("logical_and", "logical_or", "logical_xor", "logical_not")),
    OpRow("sign_square_reciprocal_fns", lambda lib, x: lib.sign(x) + lib.square(x)
          + lib.reciprocal(x), UNARY[:2] + (T((2, 3)),), DISTINCT,
          ops=("sign", "square", "reciprocal")),
)
