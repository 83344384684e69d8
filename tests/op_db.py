"""The op database: one row per differentiable public op, with its samples and input domain.

A row's `fn(lib, *inputs, **constants)` runs the op through `lib`, which is either tapegrad or
torch, so the same row drives the numerical checks and the comparison with torch. `inputs` are
the floating-point tensors that get gradients; `constants` are everything else (dims, index
tensors, masks), and NumPy arrays among them become `lib` tensors.

A Sample gives the input shapes (or explicit values), the constants, and optionally a layout
per input: "t" passes a transposed view of a leaf, "step" passes leaf[::2]; both make the op
see a non-contiguous tensor. The row's domain draws the values: positive for log and sqrt,
away from the kinks for abs, relu, clamp and max, so that central differences are valid.
Samples marked `at_kink` sit on purpose where the op is not differentiable: they are only
compared with torch (which defines a subgradient there), never with finite differences.

`bugs` (on a row or a sample) maps a check ("gradcheck", "gradgrad", "torch", "float32")
to the reason it is expected to fail: known tapegrad bugs, kept visible as strict xfails.
"""
import dataclasses
import importlib
import math
import pathlib
from typing import Callable

import numpy as np

# Constants (index tensors, masks) are drawn once, from a fixed seed, when this module loads.
_constants_rng = np.random.default_rng(20240613)


# ---- input domains: domain(rng, shapes) -> one float64 array per shape ---------------------

def _real(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def _positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def _nonzero(rng, shape):
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def _distinct(rng, shape):
    """Random signs, magnitudes >= 0.2 and all at least 0.09 apart: no ties, no zeros."""
    count = math.prod(shape)
    magnitude = 0.2 + 0.15 * rng.permutation(count) + rng.uniform(-0.03, 0.03, count)
    return (rng.choice([-1.0, 1.0], count) * magnitude).reshape(shape)


def _dyadic(rng, shape):
    """Multiples of 1/8 in [-2, 2]: x +- 2**-20 is exact in float32 (see the casting rows)."""
    return rng.integers(-16, 17, shape) / 8.0


def _away_from(*kinks, margin=0.1):
    def draw(rng, shape):
        values = _real(rng, shape)
        for _ in range(100):
            near = np.zeros(np.shape(values), bool)
            for kink in kinks:
                near |= np.abs(values - kink) < margin
            if not near.any():
                return values
            values = np.where(near, _real(rng, shape), values)
        raise AssertionError("could not draw values away from the kinks")
    return draw


def each(*draws):
    """A domain drawing input i from draws[i] (the last one repeats)."""
    def domain(rng, shapes):
        return [draws[min(i, len(draws) - 1)](rng, shape) for i, shape in enumerate(shapes)]
    return domain


REAL, POSITIVE, NONZERO, DISTINCT = each(_real), each(_positive), each(_nonzero), each(_distinct)
DYADIC = each(_dyadic)


def _apart(rng, shapes):
    """Two inputs that differ by >= 0.06 everywhere (maximum/minimum away from ties)."""
    first = 0.2 * rng.integers(-10, 10, shapes[0]) + 0.1 + rng.uniform(-0.02, 0.02, shapes[0])
    second = 0.2 * rng.integers(-10, 10, shapes[1]) + rng.uniform(-0.02, 0.02, shapes[1])
    return [first, second]


def _fractional_quotients(rng, shape):
    """Quotients whose fractional part stays in [0.15, 0.85]: floor() is locally constant."""
    return rng.choice([-1.0, 1.0], shape) * (rng.integers(0, 3, shape)
                                             + rng.uniform(0.15, 0.85, shape))


def dividend_divisor(rng, shapes):
    """(a, b) with a / b away from integers, so remainder and floor division are smooth."""
    full = np.broadcast_shapes(*shapes)
    quotients = _fractional_quotients(rng, full)
    if tuple(shapes[0]) == full:
        divisor = _nonzero(rng, shapes[1])
        return [quotients * divisor, divisor]
    assert tuple(shapes[1]) == full, "one of the two inputs must have the broadcast shape"
    dividend = _nonzero(rng, shapes[0])
    return [dividend, dividend / quotients]


def divisible_by(divisor):
    def domain(rng, shapes):
        return [_fractional_quotients(rng, shapes[0]) * divisor]
    return domain


def _index(*values):
    return np.array(values, dtype=np.int64)


def _random_index(high, shape):
    return _constants_rng.integers(0, high, shape)


def _mask(shape):
    mask = _constants_rng.random(shape) < 0.5
    mask.flat[0], mask.flat[-1] = True, False  # never all True or all False
    return mask


# ---- rows ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Sample:
    shapes: tuple = ()            # one shape per tensor input
    constants: dict = dataclasses.field(default_factory=dict)
    layouts: tuple = ()           # per input: None, "t" or "step"
    requires_grad: tuple = ()     # per input; all True by default
    values: tuple = None          # explicit float64 values instead of drawing from the domain
    at_kink: bool = False         # compare with torch only (see the module docstring)
    label: str = ""
    bugs: dict = dataclasses.field(default_factory=dict)

    @property
    def n_inputs(self):
        return len(self.values) if self.values is not None else len(self.shapes)


@dataclasses.dataclass(frozen=True)
class OpRow:
    name: str
    fn: Callable
    samples: tuple
    domain: Callable = REAL
    smooth: bool = True    # C-infinity on the domain; False: piecewise linear (abs, max, ...)
    ops: tuple = ()        # the public tapegrad.ops functions this row exercises
    eps: float = 1e-6      # torch's gradcheck default; only the float32-casting rows differ
    bugs: dict = dataclasses.field(default_factory=dict)

    def expected_failure(self, sample, check):
        """The reason `check` is expected to fail on this sample, or None."""
        if check in sample.bugs:
            return sample.bugs[check]
        return self.bugs.get(check)


# ---- known tapegrad bugs, shared by several samples ------------------------------------------

# The checks a bug breaks: a crash in the forward breaks all of them, a wrong graph those that
# compare it with torch (float64 and float32).
EVERY_CHECK = ("gradcheck", "gradgrad", "torch", "float32")
GRAPH_CHECKS = ("torch", "float32")


def bug(reason, checks):
    return {check: "bug: " + reason for check in checks}


MATMUL_FOLD_BUG = bug("(1, 2, 3) @ (2, 3, 4) records UnsafeViewBackward0 (an expanded bmm); "
                      "torch drops the left side's batch of 1 and folds the right side into one "
                      "mm: CloneBackward0 -> TransposeBackward0 -> UnsafeViewBackward0",
                      GRAPH_CHECKS)


def S(*shapes, label="", **options):
    """A sample from shapes; label defaults to the shapes themselves."""
    return Sample(shapes=tuple(tuple(s) for s in shapes),
                  label=label or ",".join(map(shape_label, shapes)), **options)


def shape_label(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def K(*values, label, **options):
    """A sample at explicit values sitting on a kink: checked against torch only."""
    return Sample(values=tuple(np.asarray(v, dtype=np.float64) for v in values),
                  at_kink=True, label=label, **options)


def T(shape, label="", **options):
    """A non-contiguous 2-D input of the given shape: the op gets leaf.t()."""
    return S(shape, label=label or shape_label(shape) + "-t", layouts=("t",), **options)


def STEP(*shapes, label="", **options):
    """Non-contiguous inputs: the op gets leaf[::2] for the first input."""
    layouts = ("step",) + (None,) * (len(shapes) - 1)
    return S(*shapes, label=label or ",".join(map(shape_label, shapes)) + "-step",
             layouts=layouts, **options)


# Shapes every binary elementwise row is run with: equal, broadcast both ways, 0-d, empty,
# non-contiguous.
BINARY = (
    S((3, 4), (3, 4)), S((3, 4), (4,)), S((4,), (3, 4)), S((3, 1), (1, 4)),
    S((2, 3), ()), S((), (2, 3)), S((), ()), S((0, 3), (3,)),
    S((4, 3), (4, 3), layouts=("t", None), label="t-x-contiguous"),
    STEP((3, 2), (3, 2)),
)
UNARY = (S((3, 4)), S(()), S((5,)), S((0, 3)), T((3, 4)), STEP((3, 2)))
SCALAR_SIDE = (S((3, 4)), S(()), T((2, 3)))

# Matrix product shapes for matmul: every dimension combination torch distinguishes.
MATMUL = (
    S((3,), (3,), label="1d@1d"), S((2, 3), (3,), label="2d@1d"),
    S((3,), (3, 4), label="1d@2d"),
    S((2, 3), (3, 4), label="2d@2d"),
    S((2, 2, 3), (3, 4), label="3d@2d"), S((2, 2, 3), (3,), label="3d@1d"),
    S((2, 2, 3), (2, 3, 4), label="3d@3d"),
    S((1, 2, 3), (2, 3, 4), label="3d@3d-broadcast", bugs=MATMUL_FOLD_BUG),
    S((3,), (2, 3, 4), label="1d@3d"),
    S((2, 3), (2, 3, 4), label="2d@3d"),
    S((2, 1, 2, 3), (3, 3, 2), label="4d@3d-broadcast"),
    S((0, 3), (3, 2), label="empty-rows"), S((2, 0), (0, 3), label="empty-inner"),
    S((2, 3), (3, 4), layouts=("t", None), label="2d-t@2d"),
)


def _binary(name, fn, ops, samples=BINARY, domain=REAL, smooth=True, **options):
    return OpRow(name, fn, samples, domain, smooth, ops, **options)


def _vector_norm(lib, x, **options):
    # torch.linalg.vector_norm; tapegrad has it as tapegrad.ops.vector_norm only
    if lib.__name__ == "torch":
        return lib.linalg.vector_norm(x, **options)
    return lib.ops.vector_norm(x, **options)


_TIE_MATRIX = [[1.0, 3.0], [3.0, -2.0]]
_SQUEEZABLE = (S((1, 3, 1)), S((3,)), S(()), S((1, 1)))

OP_DB = (
    # ---- arithmetic: tensor with tensor, Python scalars on both sides ----------------------
    _binary("add", lambda lib, a, b: a + b, ("add",)),
    _binary("add_fn_alpha", lambda lib, a, b: lib.add(a, b, alpha=2.5), ("add",),
            samples=BINARY[:4]),
    _binary("add_other_no_grad", lambda lib, a, b: a + b, ("add",),
            samples=(S((3, 4), (4,), requires_grad=(True, False)),
                     S((3, 4), (4,), requires_grad=(False, True)))),
    OpRow("add_scalar", lambda lib, x: x + 2.5, SCALAR_SIDE, ops=("add",)),
    OpRow("add_int_scalar", lambda lib, x: x + 2, SCALAR_SIDE, ops=("add",)),
    OpRow("radd_scalar", lambda lib, x: 2.5 + x, SCALAR_SIDE, ops=("add",)),
    _binary("sub", lambda lib, a, b: a - b, ("sub",)),
    _binary("sub_fn_alpha", lambda lib, a, b: lib.sub(a, b, alpha=2.0), ("sub",),
            samples=BINARY[:4]),
    OpRow("sub_scalar", lambda lib, x: x - 1.5, SCALAR_SIDE, ops=("sub",)),
    OpRow("rsub_scalar", lambda lib, x: 1.5 - x, SCALAR_SIDE, ops=("rsub",)),
    _binary("rsub_fn", lambda lib, a, b: lib.rsub(a, b), ("rsub",), samples=BINARY[:4]),
    OpRow("rsub_fn_scalar", lambda lib, x: lib.rsub(x, 2.0, alpha=3.0), SCALAR_SIDE,
          ops=("rsub",)),
    _binary("mul", lambda lib, a, b: a * b, ("mul",)),
    OpRow("mul_scalar", lambda lib, x: x * 2.5, SCALAR_SIDE, ops=("mul",)),
    OpRow("rmul_scalar", lambda lib, x: -3 * x, SCALAR_SIDE, ops=("mul",)),
    _binary("div", lambda lib, a, b: a / b, ("div",), domain=each(_real, _nonzero)),
    OpRow("div_scalar", lambda lib, x: x / 2.5, SCALAR_SIDE, ops=("div",)),
    OpRow("rdiv_scalar", lambda lib, x: 2.5 / x, SCALAR_SIDE, domain=NONZERO,
          ops=("div", "reciprocal")),
    _binary("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), ("div",),
            samples=(S((3, 4), (3, 4)), S((3, 4), (4,)), S((4,), (3, 4))),
            domain=dividend_divisor, smooth=False),
    _binary("div_trunc", lambda lib, a, b: a.div(b, rounding_mode="trunc"), ("div",),
            samples=(S((3, 4), (3, 4)), S((2, 3), ())), domain=dividend_divisor, smooth=False),
    OpRow("pow_scalar", lambda lib, x, exponent: x ** exponent,
          (S((3, 4), constants={"exponent": 2}, label="square"),
           S((3, 4), constants={"exponent": 3}, label="cube"),
           S((3, 4), constants={"exponent": -1}, label="inverse"),
           S((), constants={"exponent": 2}, label="0d-square"),
           S((0, 2), constants={"exponent": 2}, label="empty"),
           S((2, 3), constants={"exponent": 3}, layouts=("t",), label="cube-t"),
           S((3,), constants={"exponent": 1}, label="identity"),
           S((3,), constants={"exponent": 0}, label="zero"),
           K([0.0, 1.5, -2.0], constants={"exponent": 2}, label="square-at-0")),
          domain=NONZERO, ops=("pow",)),
    OpRow("pow_scalar_fractional", lambda lib, x, exponent: x ** exponent,
          (S((3, 4), constants={"exponent": 0.5}, label="sqrt"),
           S((3, 4), constants={"exponent": 2.5}, label="2.5"),
           S((), constants={"exponent": -1.5}, label="0d-minus-1.5")),
          domain=POSITIVE, ops=("pow",)),
    OpRow("pow_fn", lambda lib, x: lib.pow(x, 3), UNARY[:3], ops=("pow",)),
    OpRow("square", lambda lib, x: x.square(), UNARY, ops=("square",)),
    OpRow("square_fn", lambda lib, x: lib.square(x), UNARY[:2], ops=("square",)),
    _binary("pow_tensor", lambda lib, a, b: a ** b, ("pow",), domain=each(_positive, _real),
            samples=BINARY + (
                K([0.0, 0.0, 2.0, 0.0], [2.0, 0.0, 1.5, 0.5], label="zero-base"),)),
    OpRow("rpow_scalar", lambda lib, x: 2.0 ** x, SCALAR_SIDE, ops=("pow",)),
    OpRow("rpow_int_scalar", lambda lib, x: 3 ** x, SCALAR_SIDE, ops=("pow",)),
    OpRow("pow_fn_scalar_base", lambda lib, x: lib.pow(1.5, x), SCALAR_SIDE, ops=("pow",)),
    _binary("remainder", lambda lib, a, b: a % b, ("remainder",), domain=dividend_divisor,
            smooth=False, samples=(S((3, 4), (3, 4)), S((3, 4), (4,)), S((4,), (3, 4)),
                                   S((2, 3), ()), S((), ()), S((0, 3), (3,)))),
    _binary("remainder_fn", lambda lib, a, b: lib.remainder(a, b), ("remainder",),
            domain=dividend_divisor, smooth=False, samples=(S((3, 4), (3, 4)),)),
    OpRow("remainder_scalar", lambda lib, x: x % 1.5, SCALAR_SIDE, domain=divisible_by(1.5),
          smooth=False, ops=("remainder",)),
    OpRow("neg", lambda lib, x: -x, UNARY, ops=("neg",)),
    OpRow("neg_fn", lambda lib, x: lib.neg(x), UNARY[:2], ops=("neg",)),
    # torch's aliases: the same ops under a second name, as functions and methods
    OpRow("negative", lambda lib, x: lib.negative(x) + x.negative(), UNARY[:2],
          ops=("negative",)),
    OpRow("absolute", lambda lib, x: lib.absolute(x) + x.absolute(), UNARY[:2],
          domain=DISTINCT, smooth=False, ops=("absolute",)),
    _binary("arithmetic_aliases", lambda lib, a, b: lib.multiply(a, b) + a.subtract(b)
            + lib.divide(a, b), ("multiply", "subtract", "divide"), samples=BINARY[:2],
            domain=each(_real, _nonzero)),
    OpRow("reciprocal", lambda lib, x: x.reciprocal(), UNARY, domain=NONZERO,
          ops=("reciprocal",)),

    # ---- unary math and activations ------------------------------------------------------
    OpRow("abs", lambda lib, x: x.abs(), UNARY + (K([-1.0, 0.0, 2.0], label="at-0"),),
          domain=DISTINCT, smooth=False, ops=("abs",)),
    OpRow("abs_fn", lambda lib, x: lib.abs(x), UNARY[:2], domain=DISTINCT, smooth=False,
          ops=("abs",)),
    OpRow("sign", lambda lib, x: x.sign(), UNARY + (K([-1.0, 0.0, 2.0], label="at-0"),),
          domain=DISTINCT, smooth=False, ops=("sign",)),
    OpRow("exp", lambda lib, x: x.exp(), UNARY, ops=("exp",)),
    OpRow("log", lambda lib, x: x.log(), UNARY, domain=POSITIVE, ops=("log",)),
    OpRow("sqrt", lambda lib, x: x.sqrt(), UNARY, domain=POSITIVE, ops=("sqrt",)),
    OpRow("sin", lambda lib, x: x.sin(), UNARY, ops=("sin",)),
    OpRow("cos", lambda lib, x: x.cos(), UNARY, ops=("cos",)),
    OpRow("tanh", lambda lib, x: x.tanh(), UNARY, ops=("tanh",)),
    OpRow("sigmoid", lambda lib, x: x.sigmoid(), UNARY, ops=("sigmoid",)),
    OpRow("unary_fns", lambda lib, x: lib.exp(x) + lib.sin(x) + lib.cos(x) + lib.tanh(x)
          + lib.sigmoid(x) + lib.log(x) + lib.sqrt(x) + lib.reciprocal(x),
          UNARY[:2], domain=POSITIVE,
          ops=("exp", "sin", "cos", "tanh", "sigmoid", "log", "sqrt", "reciprocal")),
    OpRow("relu", lambda lib, x: x.relu(), UNARY + (K([-1.0, 0.0, 2.0], label="at-0"),),
          domain=DISTINCT, smooth=False, ops=("relu",)),
    OpRow("relu_fn", lambda lib, x: lib.relu(x), UNARY[:2], domain=DISTINCT, smooth=False,
          ops=("relu",)),
    OpRow("clamp_min", lambda lib, x: x.clamp(min=-0.5), UNARY, domain=each(_away_from(-0.5)),
          smooth=False, ops=("clamp",)),
    OpRow("clamp_max", lambda lib, x: x.clamp(max=0.5), UNARY, domain=each(_away_from(0.5)),
          smooth=False, ops=("clamp",)),
    OpRow("clamp_both", lambda lib, x: lib.clamp(x, -0.5, 0.5),
          UNARY + (K([-0.5, 0.5, 0.0, -1.0, 1.0], label="at-bounds"),),
          domain=each(_away_from(-0.5, 0.5)), smooth=False, ops=("clamp",)),
    OpRow("clamp_int_bounds", lambda lib, x: x.clamp(-1, 1), UNARY[:3],
          domain=each(_away_from(-1.0, 1.0)), smooth=False, ops=("clamp",)),
    OpRow("clip", lambda lib, x: x.clip(-0.5, 0.5), UNARY[:2],
          domain=each(_away_from(-0.5, 0.5)), smooth=False, ops=("clip",)),
    OpRow("clamp_tensor_bounds",
          lambda lib, x, low: lib.clamp(x, min=low), (S((3, 4), constants={
              "low": np.full(4, -0.5)}),),
          domain=each(_away_from(-0.5)), smooth=False, ops=("clamp",)),
    _binary("maximum", lambda lib, a, b: lib.maximum(a, b), ("maximum",), domain=_apart,
            smooth=False, samples=BINARY + (K([1.0, 2.0, -1.0], [1.0, 3.0, -1.0], label="ties"),)),
    _binary("minimum", lambda lib, a, b: a.minimum(b), ("minimum",), domain=_apart,
            smooth=False, samples=BINARY + (K([1.0, 2.0, -1.0], [1.0, 3.0, -1.0], label="ties"),)),
    _binary("max_binary", lambda lib, a, b: lib.max(a, b), ("max", "maximum"), domain=_apart,
            smooth=False, samples=BINARY[:3]),
    _binary("min_binary", lambda lib, a, b: lib.min(a, b), ("min", "minimum"), domain=_apart,
            smooth=False, samples=BINARY[:3]),

    # ---- selection and copies ------------------------------------------------------------
    OpRow("where", lambda lib, a, b, condition: lib.where(condition, a, b),
          (S((3, 4), (3, 4), constants={"condition": _mask((3, 4))}),
           S((3, 4), (4,), constants={"condition": _mask((3, 4))}),
           S((4,), (3, 1), constants={"condition": _mask((3, 4))}),
           S((), (3, 4), constants={"condition": _mask((3, 4))}),
           S((3, 4), (3, 4), constants={"condition": _mask((4,))}, label="mask-broadcast"),
           S((3, 4), (3, 4), layouts=("t", None), constants={"condition": _mask((3, 4))},
             label="t"),
           S((0, 4), (4,), constants={"condition": np.zeros((0, 4), bool)}, label="empty")),
          ops=("where",)),
    OpRow("where_scalar_other", lambda lib, x, condition: lib.where(condition, x, 0.0),
          (S((3, 4), constants={"condition": _mask((3, 4))}),), ops=("where",)),
    OpRow("where_method", lambda lib, x, y, condition: x.where(condition, y),
          (S((3, 4), (3, 4), constants={"condition": _mask((3, 4))}),), ops=("where",)),
    OpRow("clone", lambda lib, x: x.clone(), UNARY, ops=("clone",)),
    OpRow("clone_fn", lambda lib, x: lib.clone(x), UNARY[:2], ops=("clone",)),
    # A float32 result: the domain holds multiples of 1/8 and eps is 2**-20 (~1e-6), so x +- eps
    # is exact in float32 and the central difference is exactly the derivative.
    OpRow("to_float32", lambda lib, x: x.to(lib.float32), UNARY, domain=DYADIC, eps=2.0 ** -20,
          ops=("to_copy",)),
    OpRow("float_double", lambda lib, x: x.float().double(), UNARY, domain=DYADIC,
          eps=2.0 ** -20, ops=("to_copy",)),
    OpRow("to_dtype_keyword", lambda lib, x: x.to(dtype=lib.float32) * 2, UNARY[:2],
          domain=DYADIC, eps=2.0 ** -20, ops=("to_copy",)),

    # ---- reductions ----------------------------------------------------------------------
    OpRow("sum", lambda lib, x: x.sum(), UNARY + (S((2, 3, 2)),), ops=("sum",)),
    OpRow("sum_fn", lambda lib, x: lib.sum(x), UNARY[:2], ops=("sum",)),
    OpRow("sum_dim", lambda lib, x, dim, keepdim: x.sum(dim, keepdim=keepdim), (
        S((3, 4), constants={"dim": 1, "keepdim": False}, label="dim1"),
        S((3, 4), constants={"dim": -1, "keepdim": True}, label="dim-1-keepdim"),
        S((2, 3, 2), constants={"dim": (0, 2), "keepdim": False}, label="dims02"),
        S((2, 3, 2), constants={"dim": (-1, 0), "keepdim": True}, label="dims-10-keepdim"),
        S((2, 3, 2), constants={"dim": [1], "keepdim": False}, label="dim-list"),
        S((), constants={"dim": 0, "keepdim": False}, label="0d"),
        S((), constants={"dim": -1, "keepdim": True}, label="0d-keepdim"),
        S((0, 3), constants={"dim": 0, "keepdim": False}, label="empty-dim0"),
        S((0, 3), constants={"dim": 1, "keepdim": True}, label="empty-dim1"),
        S((4, 3), constants={"dim": 0, "keepdim": False}, layouts=("t",), label="t"),
        S((3, 2), constants={"dim": 1, "keepdim": False}, layouts=("step",), label="step"),
    ), ops=("sum",)),
    OpRow("sum_fn_dim", lambda lib, x: lib.sum(x, dim=0, keepdim=True), UNARY[:1],
          ops=("sum",)),
    OpRow("mean", lambda lib, x: x.mean(), (S((3, 4)), S(()), S((5,)), T((3, 4)),
                                            STEP((3, 2))), ops=("mean",)),
    OpRow("mean_fn", lambda lib, x: lib.mean(x), UNARY[:2], ops=("mean",)),
    OpRow("mean_dim", lambda lib, x, dim, keepdim: x.mean(dim, keepdim), (
        S((3, 4), constants={"dim": 1, "keepdim": False}, label="dim1"),
        S((3, 4), constants={"dim": -2, "keepdim": True}, label="dim-2-keepdim"),
        S((2, 3, 2), constants={"dim": (0, 2), "keepdim": False}, label="dims02"),
        S((2, 3, 2), constants={"dim": (-1, -3), "keepdim": True}, label="dims-keepdim"),
        S((), constants={"dim": 0, "keepdim": False}, label="0d"),
        S((0, 3), constants={"dim": 1, "keepdim": False}, label="empty-reduce-nonempty"),
        S((0, 3), constants={"dim": 0, "keepdim": False}, label="empty-reduce-empty"),
        S((4, 3), constants={"dim": 0, "keepdim": False}, layouts=("t",), label="t"),
    ), ops=("mean",)),
    OpRow("mean_fn_dim", lambda lib, x: lib.mean(x, dim=(0, 1)), (S((2, 3, 2)),),
          ops=("mean",)),
    OpRow("max_all", lambda lib, x: x.max(), (S((3, 4)), S(()), S((5,)), T((3, 4)),
                                              STEP((3, 2)), K(_TIE_MATRIX, label="ties")),
          domain=DISTINCT, smooth=False, ops=("max",)),
    OpRow("min_all", lambda lib, x: lib.min(x), (S((3, 4)), S(()), T((3, 4)),
                                                 K(_TIE_MATRIX, label="ties")),
          domain=DISTINCT, smooth=False, ops=("min",)),
    OpRow("max_dim", lambda lib, x, dim, keepdim: x.max(dim, keepdim=keepdim), (
        S((3, 4), constants={"dim": 1, "keepdim": False}, label="dim1"),
        S((3, 4), constants={"dim": -2, "keepdim": True}, label="dim-2-keepdim"),
        S((2, 3, 2), constants={"dim": 1, "keepdim": False}, label="3d"),
        S((), constants={"dim": 0, "keepdim": False}, label="0d"),
        S((), constants={"dim": -1, "keepdim": True}, label="0d-keepdim"),
        S((4, 3), constants={"dim": 0, "keepdim": False}, layouts=("t",), label="t"),
        S((0, 3), constants={"dim": 1, "keepdim": False}, label="empty"),
    ), domain=DISTINCT, smooth=False, ops=("max",)),
    OpRow("min_dim", lambda lib, x, dim: lib.min(x, dim=dim), (
        S((3, 4), constants={"dim": 0}, label="dim0"),
        S((2, 3, 2), constants={"dim": -1}, label="3d-dim-1"),
        S((), constants={"dim": 0}, label="0d"),
        K(_TIE_MATRIX, constants={"dim": 1}, label="ties"),
    ), domain=DISTINCT, smooth=False, ops=("min",)),
    OpRow("norm", lambda lib, x: x.norm(), UNARY + (
        K([0.0, 0.0, 0.0], label="zero-vector"),), domain=NONZERO, ops=("norm",)),
    OpRow("norm_fn", lambda lib, x: lib.norm(x), UNARY[:2], domain=NONZERO, ops=("norm",)),
    OpRow("norm_p1", lambda lib, x: x.norm(p=1), UNARY[:5], domain=DISTINCT, smooth=False,
          ops=("norm",)),
    OpRow("norm_inf", lambda lib, x: x.norm(p=float("inf")), UNARY[:3] + UNARY[4:5] + (
        K([-2.0, 2.0, 1.0], label="ties"),), domain=DISTINCT, smooth=False, ops=("norm",)),
    OpRow("norm_dim", lambda lib, x, dim, keepdim: x.norm(dim=dim, keepdim=keepdim), (
        S((3, 4), constants={"dim": 1, "keepdim": False}, label="dim1"),
        S((3, 4), constants={"dim": -1, "keepdim": True}, label="dim-1-keepdim"),
        S((2, 3, 2), constants={"dim": (0, 2), "keepdim": False}, label="dims02"),
        S((4, 3), constants={"dim": 0, "keepdim": False}, layouts=("t",), label="t"),
    ), domain=NONZERO, ops=("norm",)),
    OpRow("norm_p3_dim", lambda lib, x: x.norm(p=3, dim=0), (S((3, 4)), S((3,))),
          domain=NONZERO, ops=("norm",)),
    OpRow("norm_p1_dim", lambda lib, x: x.norm(p=1, dim=-1), (S((3, 4)),), domain=DISTINCT,
          smooth=False, ops=("norm",)),
    OpRow("norm_inf_dim", lambda lib, x: x.norm(p=float("inf"), dim=1, keepdim=True),
          (S((3, 4)),), domain=DISTINCT, smooth=False, ops=("norm",)),
    OpRow("vector_norm", lambda lib, x, **options: _vector_norm(lib, x, **options), (
        S((3, 4), label="default"),
        S((3, 4), constants={"ord": 3, "dim": 1}, label="ord3-dim1"),
        S((3, 4), constants={"ord": 2, "dim": (0, 1), "keepdim": True}, label="keepdim"),
    ), domain=NONZERO, ops=("vector_norm",)),
    OpRow("sum_to_size", lambda lib, x, size: x.sum_to_size(size), (
        S((3, 4), constants={"size": (1, 4)}, label="to-1x4"),
        S((3, 4), constants={"size": (3, 1)}, label="to-3x1"),
        S((2, 3, 4), constants={"size": (4,)}, label="drop-leading"),
        S((3, 4), constants={"size": (3, 4)}, label="same"),
    ), ops=("sum_to_size",)),
    OpRow("sum_to_size_varargs", lambda lib, x: x.sum_to_size(3, 1), (S((3, 4)),),
          ops=("sum_to_size",)),

    # ---- matrix products -----------------------------------------------------------------
    _binary("matmul", lambda lib, a, b: a @ b, ("matmul",), samples=MATMUL),
    _binary("matmul_fn", lambda lib, a, b: lib.matmul(a, b), ("matmul",), samples=MATMUL[:4]),
    _binary("mm", lambda lib, a, b: lib.mm(a, b), ("mm",), samples=(
        S((2, 3), (3, 4)), S((2, 3), (3, 4), layouts=("t", None), label="t"),
        S((2, 3), (3, 4), layouts=(None, "t"), label="t-mat2"), S((0, 3), (3, 2)),
        S((2, 3), (3, 4), requires_grad=(False, True), label="mat2-only"))),
    _binary("mm_method", lambda lib, a, b: a.mm(b), ("mm",), samples=(S((2, 3), (3, 4)),)),
    _binary("dot", lambda lib, a, b: lib.dot(a, b), ("dot",), samples=(
        S((3,), (3,)), S((0,), (0,)), STEP((3,), (3,)))),
    _binary("dot_method", lambda lib, a, b: a.dot(b), ("dot",), samples=(S((4,), (4,)),)),
    _binary("mv", lambda lib, a, b: lib.mv(a, b), ("mv",), samples=(
        S((2, 3), (3,)), S((2, 3), (3,), layouts=("t", None), label="t"), S((0, 3), (3,)),
        S((2, 3), (3,), requires_grad=(True, False), label="mat-only"))),
    _binary("mv_method", lambda lib, a, b: a.mv(b), ("mv",), samples=(S((2, 3), (3,)),)),
    _binary("bmm", lambda lib, a, b: lib.bmm(a, b), ("bmm",), samples=(
        S((2, 2, 3), (2, 3, 2)), S((0, 2, 3), (0, 3, 2)),
        STEP((2, 2, 3), (2, 3, 2)))),
    _binary("bmm_method", lambda lib, a, b: a.bmm(b), ("bmm",), samples=(
        S((2, 2, 3), (2, 3, 2)),)),

    # ---- shape ops -----------------------------------------------------------------------
    OpRow("t", lambda lib, x: x.t(), (S((2, 3)), S((3,)), S(()), T((2, 3)), STEP((2, 3))),
          ops=("t",)),
    OpRow("t_fn", lambda lib, x: lib.t(x), (S((2, 3)),), ops=("t",)),
    OpRow("transpose", lambda lib, x, dims: x.transpose(*dims), (
        S((2, 3, 4), constants={"dims": (0, 2)}, label="0-2"),
        S((2, 3, 4), constants={"dims": (-1, 0)}, label="negative"),
        S((2, 3), constants={"dims": (1, 1)}, label="same-dim"),
        S((), constants={"dims": (0, -1)}, label="0d"),
        S((2, 3), constants={"dims": (0, 1)}, layouts=("t",), label="t"),
    ), ops=("transpose",)),
    OpRow("transpose_fn", lambda lib, x: lib.transpose(x, 0, 1), (S((2, 3)),),
          ops=("transpose",)),
    OpRow("swapaxes", lambda lib, x: x.swapaxes(0, -1), (S((2, 3, 4)),), ops=("swapaxes",)),
    OpRow("swapdims", lambda lib, x: x.swapdims(1, 0), (S((2, 3)),), ops=("swapdims",)),
    OpRow("reshape", lambda lib, x, shape: x.reshape(shape), (
        S((2, 6), constants={"shape": (3, 4)}, label="view"),
        S((2, 6), constants={"shape": (-1,)}, label="flat"),
        S((2, 6), constants={"shape": (4, -1)}, label="infer"),
        S((), constants={"shape": (1, 1)}, label="0d"),
        S((1,), constants={"shape": ()}, label="to-0d"),
        S((0, 3), constants={"shape": (3, 0)}, label="empty"),
        S((4, 3), constants={"shape": (12,)}, layouts=("t",), label="t-copies"),
        S((3, 2), constants={"shape": (6,)}, layouts=("step",), label="step-copies"),
    ), ops=("reshape",)),
    OpRow("reshape_varargs", lambda lib, x: x.reshape(3, 4), (S((2, 6)),), ops=("reshape",)),
    OpRow("reshape_fn", lambda lib, x: lib.reshape(x, (4, 3)), (S((2, 6)), T((6, 2))),
          ops=("reshape",)),
    OpRow("view", lambda lib, x, shape: x.view(shape), (
        S((2, 6), constants={"shape": (3, 4)}, label="3x4"),
        S((2, 6), constants={"shape": (-1,)}, label="flat"),
        S((2, 6), constants={"shape": (2, 3, 2)}, label="3d"),
        S((), constants={"shape": (1,)}, label="0d"),
        S((0, 3), constants={"shape": (-1, 3)}, label="empty"),
        S((2, 3), constants={"shape": (2, 1, 3)}, layouts=("step",), label="step-rows"),
    ), ops=("view",)),
    OpRow("view_varargs", lambda lib, x: x.view(4, -1), (S((2, 6)),), ops=("view",)),
    OpRow("unsqueeze", lambda lib, x, dim: x.unsqueeze(dim), (
        S((2, 3), constants={"dim": 0}, label="0"),
        S((2, 3), constants={"dim": -1}, label="-1"),
        S((2, 3), constants={"dim": 1}, label="1"),
        S((), constants={"dim": 0}, label="0d"),
        S((2, 3), constants={"dim": 2}, layouts=("t",), label="t"),
    ), ops=("unsqueeze",)),
    OpRow("unsqueeze_fn", lambda lib, x: lib.unsqueeze(x, -2), (S((2, 3)),),
          ops=("unsqueeze",)),
    OpRow("squeeze_all", lambda lib, x: x.squeeze(), _SQUEEZABLE, ops=("squeeze",)),
    OpRow("squeeze_dim", lambda lib, x, dim: x.squeeze(dim), (
        S((1, 3, 1), constants={"dim": 0}, label="0"),
        S((1, 3, 1), constants={"dim": -1}, label="-1"),
        S((1, 3, 1), constants={"dim": 1}, label="not-size-1"),
        S((), constants={"dim": 0}, label="0d"),
    ), ops=("squeeze",)),
    OpRow("squeeze_dims", lambda lib, x, dim: x.squeeze(dim), (
        S((1, 3, 1), constants={"dim": (0, 2)}, label="both"),
        S((1, 3, 1), constants={"dim": (-1, 1)}, label="one-not-size-1"),
        S((1, 3, 1), constants={"dim": (1,)}, label="none-size-1"),
        S((), constants={"dim": (0,)}, label="0d"),
    ), ops=("squeeze",)),
    OpRow("squeeze_fn", lambda lib, x: lib.squeeze(x, 0), (S((1, 3)),), ops=("squeeze",)),
    OpRow("flatten", lambda lib, x, dims: x.flatten(*dims), (
        S((2, 3, 2), constants={"dims": ()}, label="all"),
        S((2, 3, 2), constants={"dims": (1,)}, label="from-1"),
        S((2, 3, 2), constants={"dims": (0, 1)}, label="0-1"),
        S((2, 3, 2), constants={"dims": (-2, -1)}, label="negative"),
        S((2, 3, 2), constants={"dims": (1, 1)}, label="start-is-end"),
        S((), constants={"dims": ()}, label="0d"),
        S((3, 2), constants={"dims": ()}, layouts=("t",), label="t-copies"),
    ), ops=("flatten",)),
    OpRow("flatten_fn", lambda lib, x: lib.flatten(x), (S((2, 3)),), ops=("flatten",)),
    OpRow("permute", lambda lib, x, dims: x.permute(*dims), (
        S((2, 3, 4), constants={"dims": (2, 0, 1)}, label="201"),
        S((2, 3, 4), constants={"dims": (-1, -3, 1)}, label="negative"),
        S((2, 3, 4), constants={"dims": ((1, 2, 0),)}, label="tuple"),
        S((), constants={"dims": ((),)}, label="0d"),
        S((2, 3), constants={"dims": (1, 0)}, layouts=("t",), label="t"),
    ), ops=("permute",)),
    OpRow("permute_fn", lambda lib, x: lib.permute(x, (1, 0)), (S((2, 3)),), ops=("permute",)),
    OpRow("expand", lambda lib, x, size: x.expand(*size), (
        S((3, 1), constants={"size": (3, 4)}, label="3x1-3x4"),
        S((3, 1), constants={"size": (2, 3, 4)}, label="new-leading"),
        S((3, 1), constants={"size": (-1, 4)}, label="minus-one"),
        S((), constants={"size": (2, 3)}, label="0d"),
        S((3,), constants={"size": ((2, 3),)}, label="tuple"),
        S((1, 3), constants={"size": (0, 3)}, label="to-empty"),
        S((1, 2), constants={"size": (3, 2)}, layouts=("step",), label="step"),
    ), ops=("expand",)),
    OpRow("expand_as", lambda lib, x, other: x.expand_as(other), (
        S((3, 1), constants={"other": np.zeros((2, 3, 4))}),), ops=("expand_as",)),

    # ---- indexing ------------------------------------------------------------------------
    OpRow("getitem", lambda lib, x, key: x[key], (
        S((3, 4), constants={"key": 1}, label="int"),
        S((3, 4), constants={"key": -1}, label="negative-int"),
        S((5, 2), constants={"key": slice(1, None, 2)}, label="slice-step"),
        S((5, 2), constants={"key": slice(None, -1)}, label="slice-negative-end"),
        S((3, 4), constants={"key": slice(None)}, label="full-slice"),
        S((3, 4), constants={"key": slice(5, 9)}, label="empty-slice"),
        S((3, 4), constants={"key": None}, label="none"),
        S((3, 4), constants={"key": Ellipsis}, label="ellipsis"),
        S((), constants={"key": ()}, label="0d-empty-tuple"),
        S((), constants={"key": None}, label="0d-none"),
        S((3, 4), constants={"key": (0, slice(1, None))}, label="int-slice"),
        S((3, 4), constants={"key": (slice(None), 0)}, label="slice-int"),
        S((2, 3, 4), constants={"key": (Ellipsis, 1)}, label="ellipsis-int"),
        S((2, 3, 4), constants={"key": (1, None, slice(None, None, 2), -1)},
          label="int-none-step-int"),
        S((2, 3, 4), constants={"key": (slice(None), None, Ellipsis, None)},
          label="nones-around-ellipsis"),
        S((3, 4), constants={"key": 1}, layouts=("t",), label="t-int"),
        S((3, 4), constants={"key": (slice(None), slice(1, 3))}, layouts=("step",),
          label="step-slice"),
    ), ops=("getitem",)),
    OpRow("getitem_advanced", lambda lib, x, key: x[key], (
        S((4, 3), constants={"key": _index(2, 0, 2)}, label="int-array-repeats"),
        S((4, 3), constants={"key": _index(-1, 1)}, label="int-array-negative"),
        S((4, 3), constants={"key": _random_index(4, (2, 2))}, label="int-array-2d"),
        S((4, 3), constants={"key": [0, 3]}, label="list"),
        S((4, 3), constants={"key": _mask((4, 3))}, label="mask-full"),
        S((4, 3), constants={"key": _mask((4,))}, label="mask-rows"),
        S((4, 3), constants={"key": (_index(0, 2), _index(1, 1))}, label="two-arrays"),
        S((4, 3), constants={"key": (slice(1, None), _index(0, 2))}, label="slice-array"),
        S((4, 3), constants={"key": (_index(1, 3), slice(None, 2))}, label="array-slice"),
        S((2, 3, 4), constants={"key": (0, _index(2, 0))}, label="int-array"),
        S((2, 3, 4), constants={"key": (_index(0, 1), slice(None), _index(3, 3))},
          label="arrays-split-by-slice"),
        S((4, 3), constants={"key": np.zeros(4, bool)}, label="mask-empty"),
        S((4, 3), constants={"key": _index(1, 0)}, layouts=("t",), label="t"),
        S((), constants={"key": np.array(True)}, label="0d-mask"),
    ), ops=("getitem",)),
    OpRow("gather", lambda lib, x, dim, index: x.gather(dim, index), (
        S((3, 4), constants={"dim": 1, "index": _random_index(4, (3, 2))}, label="dim1"),
        S((3, 4), constants={"dim": 0, "index": _random_index(3, (2, 4))}, label="dim0"),
        S((3, 4), constants={"dim": -1, "index": _random_index(4, (2, 5))}, label="dim-1"),
        S((2, 3, 2), constants={"dim": 1, "index": _random_index(3, (2, 4, 1))}, label="3d"),
        S((), constants={"dim": 0, "index": np.array(0)}, label="0d"),
        S((3, 4), constants={"dim": 1, "index": np.zeros((3, 0), np.int64)}, label="empty"),
        S((4, 3), constants={"dim": 0, "index": _random_index(3, (3, 3))}, layouts=("t",),
          label="t"),
    ), ops=("gather",)),
    OpRow("gather_fn", lambda lib, x, index: lib.gather(x, 1, index), (
        S((3, 4), constants={"index": _random_index(4, (3, 3))}),), ops=("gather",)),
)


def _family_rows():
    """Rows of further op families, each kept in its own tests/op_db_<family>.py as ROWS."""
    rows = []
    for path in sorted(pathlib.Path(__file__).parent.glob("op_db_*.py")):
        rows.extend(importlib.import_module(path.stem).ROWS)
    return tuple(rows)


OP_DB = OP_DB + _family_rows()
assert len({row.name for row in OP_DB}) == len(OP_DB), "op_db row names must be unique"
