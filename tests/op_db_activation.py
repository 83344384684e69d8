"""op_db rows of the nn functions: activations, linear layers, embedding, padding, normalize
and distances (tapegrad/ops/activation.py), and dropout (tapegrad/ops/dropout.py). In-place
variants run on x * 1, so the leaf stays untouched and the graph shows torch's in-place node
after MulBackward0."""
import numpy as np

from op_db import (DISTINCT, NONZERO, REAL, UNARY, K, OpRow, S, STEP, T, _away_from, _distinct,
                   _real, each)
from op_db_loss import _quiet

_rng = np.random.default_rng(20240614)


def F(lib):
    return lib.nn.functional


# ---- input domains -------------------------------------------------------------------------

def _stretched(scale, shift, *kinks):
    """op_db's draw away from kinks, stretched from [-2, 2] to shift +- 2 * scale."""
    draw = _away_from(*((kink - shift) / scale for kink in kinks), margin=0.1 / scale)
    return each(lambda rng, shape: shift + scale * draw(rng, shape))


def _apart(rng, shapes):
    """Two inputs whose difference stays >= 0.05 away from 0 (|x1 - x2| is smooth there)."""
    first = rng.uniform(-2.0, 2.0, shapes[0])
    full = np.broadcast_shapes(*shapes)
    step = rng.choice([-1.0, 1.0], full) * rng.uniform(0.05, 1.0, full)
    second = np.broadcast_to(first, full) + step
    if tuple(shapes[1]) != full:  # the second input broadcasts: draw the first from it
        second = rng.uniform(-2.0, 2.0, shapes[1])
        first = second + rng.choice([-1.0, 1.0], full) * rng.uniform(0.05, 1.0, full)
    return [first, second]


def _distinct_differences(rng, shapes):
    """Differences with distinct magnitudes (the inf-norm picks one element per row)."""
    difference = DISTINCT(rng, shapes[:1])[0]
    second = rng.uniform(-2.0, 2.0, shapes[1])
    return [second + difference, second]


AROUND_6 = _stretched(2.5, 3.0, 0.0, 6.0)
AROUND_3 = _stretched(2.5, 0.0, -3.0, 3.0)
AROUND_HALF = each(_away_from(-0.5, 0.5))
KINKS = [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0]

# ---- activations ---------------------------------------------------------------------------


def _activation(name, fn, ops, domain=REAL, smooth=True, samples=UNARY, kinks=None):
    if kinks is not None:
        samples = samples + (K(kinks, label="at-kinks"),)
    return OpRow(name, fn, samples, domain, smooth, ops)


def _in_place(name, fn, ops, domain=REAL, smooth=True):
    """A row applying an in-place function to x * 1."""
    return OpRow(name, lambda lib, x: fn(lib, x * 1), UNARY[:2] + UNARY[4:5], domain, smooth,
                 ops)


ACTIVATIONS = (
    _activation("F_relu", lambda lib, x: F(lib).relu(x), ("relu",), DISTINCT, False,
                kinks=KINKS),
    _in_place("F_relu_inplace", lambda lib, x: F(lib).relu(x, inplace=True), ("relu",),
              DISTINCT, False),
    _in_place("relu_", lambda lib, x: lib.relu_(x * 1) + F(lib).relu_(x * 2) + (x * 3).relu_(),
              ("relu_",), DISTINCT, False),
    _activation("relu6", lambda lib, x: F(lib).relu6(x), ("relu6",), AROUND_6, False,
                kinks=KINKS),
    _in_place("relu6_inplace", lambda lib, x: F(lib).relu6(x, inplace=True), ("relu6",),
              AROUND_6, False),
    _activation("leaky_relu", lambda lib, x: F(lib).leaky_relu(x), ("leaky_relu",), DISTINCT,
                False, kinks=KINKS),
    _activation("leaky_relu_slope", lambda lib, x: F(lib).leaky_relu(x, 0.2), ("leaky_relu",),
                DISTINCT, False, samples=UNARY[:2]),
    _in_place("leaky_relu_inplace", lambda lib, x: F(lib).leaky_relu(x, 0.3, inplace=True),
              ("leaky_relu",), DISTINCT, False),
    _in_place("leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x, 0.3), ("leaky_relu_",),
              DISTINCT, False),
    _activation("hardtanh", lambda lib, x: F(lib).hardtanh(x), ("hardtanh",),
                each(_away_from(-1.0, 1.0)), False, kinks=KINKS),
    _activation("hardtanh_bounds", lambda lib, x: F(lib).hardtanh(x, -0.5, 1.5), ("hardtanh",),
                each(_away_from(-0.5, 1.5)), False, samples=UNARY[:2], kinks=KINKS),
    _in_place("hardtanh_inplace", lambda lib, x: F(lib).hardtanh(x, inplace=True),
              ("hardtanh",), each(_away_from(-1.0, 1.0)), False),
    _in_place("hardtanh_", lambda lib, x: F(lib).hardtanh_(x, -0.5, 0.5), ("hardtanh_",),
              AROUND_HALF, False),
    _activation("threshold", lambda lib, x: F(lib).threshold(x, 0.5, 2.0), ("threshold",),
                AROUND_HALF, False, kinks=KINKS),
    _activation("threshold_fn", lambda lib, x: lib.threshold(x, -0.5, -3), ("threshold",),
                AROUND_HALF, False, samples=UNARY[:2]),
    _in_place("threshold_inplace", lambda lib, x: F(lib).threshold(x, 0.5, 2.0, inplace=True),
              ("threshold",), AROUND_HALF, False),
    _in_place("threshold_", lambda lib, x: lib.threshold_(x * 1, 0.5, 2.0)
              + F(lib).threshold_(x * 2, -0.5, 1.0), ("threshold_",), AROUND_HALF, False),
    _activation("hardshrink", lambda lib, x: F(lib).hardshrink(x), ("hardshrink",),
                AROUND_HALF, False, kinks=KINKS),
    _activation("hardshrink_fn", lambda lib, x: lib.hardshrink(x, 0.5) + x.hardshrink(),
                ("hardshrink",), AROUND_HALF, False, samples=UNARY[:2]),
    _activation("softshrink", lambda lib, x: F(lib).softshrink(x), ("softshrink",),
                AROUND_HALF, False, kinks=KINKS),
    _activation("elu", lambda lib, x: F(lib).elu(x), ("elu",), DISTINCT, kinks=KINKS),
    _activation("elu_alpha", lambda lib, x: F(lib).elu(x, alpha=0.5), ("elu",), DISTINCT,
                samples=UNARY[:2]),
    _in_place("elu_inplace", lambda lib, x: F(lib).elu(x, 0.5, inplace=True), ("elu",),
              DISTINCT),
    _in_place("elu_", lambda lib, x: F(lib).elu_(x, 2.0), ("elu_",), DISTINCT),
    _activation("selu", lambda lib, x: F(lib).selu(x), ("selu",), DISTINCT, kinks=KINKS),
    _activation("selu_fn", lambda lib, x: lib.selu(x), ("selu",), DISTINCT, samples=UNARY[:2]),
    _in_place("selu_inplace", lambda lib, x: F(lib).selu(x, inplace=True), ("selu",),
              DISTINCT),
    _in_place("selu_", lambda lib, x: lib.selu_(x * 1) + F(lib).selu_(x * 2), ("selu_",),
              DISTINCT),
    _activation("celu", lambda lib, x: F(lib).celu(x, alpha=0.7), ("celu",), DISTINCT,
                kinks=KINKS),
    _activation("celu_fn", lambda lib, x: lib.celu(x), ("celu",), DISTINCT, samples=UNARY[:2]),
    _in_place("celu_inplace", lambda lib, x: F(lib).celu(x, 1.5, inplace=True), ("celu",),
              DISTINCT),
    _in_place("celu_", lambda lib, x: lib.celu_(x * 1) + F(lib).celu_(x * 2, 0.5), ("celu_",),
              DISTINCT),
    _activation("gelu", lambda lib, x: F(lib).gelu(x), ("gelu",), kinks=KINKS),
    _activation("gelu_wide", lambda lib, x: F(lib).gelu(x * 4), ("gelu",), samples=UNARY[:1]),
    _activation("gelu_tanh", lambda lib, x: F(lib).gelu(x, approximate="tanh"), ("gelu",),
                kinks=KINKS),
    _activation("silu", lambda lib, x: F(lib).silu(x), ("silu",),
                kinks=KINKS + [-50.0, 50.0, 800.0]),
    _in_place("silu_inplace", lambda lib, x: F(lib).silu(x, inplace=True), ("silu",)),
    _activation("mish", lambda lib, x: F(lib).mish(x), ("mish",),
                kinks=KINKS + [-50.0, 50.0, 800.0]),
    _in_place("mish_inplace", lambda lib, x: F(lib).mish(x, inplace=True), ("mish",)),
    _activation("softplus", lambda lib, x: F(lib).softplus(x), ("softplus",),
                kinks=KINKS + [-50.0, 19.5, 20.5, 800.0]),
    # beta * x crosses the threshold at x = 0.5: the domain keeps away from the jump there
    _activation("softplus_beta", lambda lib, x: F(lib).softplus(x, beta=2.0, threshold=1.0),
                ("softplus",), AROUND_HALF, kinks=KINKS),
    _activation("logsigmoid", lambda lib, x: F(lib).logsigmoid(x), ("logsigmoid",),
                kinks=KINKS + [-50.0, 50.0, -800.0]),
    _activation("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x), ("hardsigmoid",),
                AROUND_3, False, kinks=KINKS),
    _in_place("hardsigmoid_inplace", lambda lib, x: F(lib).hardsigmoid(x, inplace=True),
              ("hardsigmoid",), AROUND_3, False),
    # piecewise quadratic: smooth away from -3 and 3
    _activation("hardswish", lambda lib, x: F(lib).hardswish(x), ("hardswish",), AROUND_3,
                kinks=KINKS),
    _in_place("hardswish_inplace", lambda lib, x: F(lib).hardswish(x, inplace=True),
              ("hardswish",), AROUND_3),
    _activation("softsign", lambda lib, x: F(lib).softsign(x), ("softsign",), NONZERO,
                kinks=KINKS),
    _activation("tanhshrink", lambda lib, x: F(lib).tanhshrink(x), ("tanhshrink",)),
    _activation("F_sigmoid_tanh", lambda lib, x: F(lib).sigmoid(x) + F(lib).tanh(x),
                ("sigmoid", "tanh"), samples=UNARY[:2]),
    OpRow("glu", lambda lib, x, dim: F(lib).glu(x, dim), (
        S((3, 4), constants={"dim": -1}, label="last"),
        S((4, 3), constants={"dim": 0}, label="dim0"),
        S((2, 4, 2), constants={"dim": 1}, label="3d-middle"),
        S((0, 4), constants={"dim": 1}, label="empty"),
        S((3, 4), constants={"dim": 1}, layouts=("t",), label="t"),
    ), ops=("glu",)),
    OpRow("glu_default_dim", lambda lib, x: F(lib).glu(x), (S((2, 6)),), ops=("glu",)),
)

# ---- learned and random slopes ---------------------------------------------------------------

# x * w is bilinear: prelu is smooth away from x = 0, with a mixed second derivative
PRELU = (
    OpRow("prelu", lambda lib, x, w: F(lib).prelu(x, w), (
        S((2, 3, 4), (3,), label="channels"),
        S((2, 3, 4, 2), (1,), label="one-slope"),
        S((3, 4), (4,), label="2d"),
        S((5,), (1,), label="1d"),
        S((5,), (), label="1d-0d-weight"),
        S((), (), label="0d"),
        S((), (1,), label="0d-1d-weight"),
        S((0, 3), (3,), label="empty"),
        S((4, 3), (3,), layouts=("t", None), label="t"),
        STEP((2, 3, 2), (3,)),
        S((2, 3), (3,), requires_grad=(False, True), label="weight-only"),
        K([[-1.0, 0.0, 2.0], [0.0, -0.5, 1.0]], [0.25, -0.5, 2.0], label="at-kink"),
    ), each(_distinct, _real), ops=("prelu",)),
    OpRow("prelu_fn", lambda lib, x, w: lib.prelu(x, w) + x.prelu(w), (S((2, 3), (3,)),),
          each(_distinct, _real), ops=("prelu",)),
    _activation("rrelu", lambda lib, x: F(lib).rrelu(x), ("rrelu",), DISTINCT, False,
                kinks=KINKS),
    _activation("rrelu_bounds", lambda lib, x: F(lib).rrelu(x, 0.3, 0.9), ("rrelu",), DISTINCT,
                False, samples=UNARY[:2]),
    # training draws a slope per element from [lower, upper]: equal bounds make it one slope
    _activation("rrelu_training", lambda lib, x: F(lib).rrelu(x, 0.2, 0.2, True), ("rrelu",),
                DISTINCT, False, kinks=KINKS),
    _activation("rrelu_fn", lambda lib, x: lib.rrelu(x) + lib.rrelu(x * 2, 0.3, 0.3, True),
                ("rrelu",), DISTINCT, False, samples=UNARY[:2]),
    _in_place("rrelu_inplace", lambda lib, x: F(lib).rrelu(x, 0.2, 0.4, inplace=True),
              ("rrelu",), DISTINCT, False),
    _in_place("rrelu_", lambda lib, x: F(lib).rrelu_(x) + lib.rrelu_(x * 2, 0.3, 0.3, True),
              ("rrelu_",), DISTINCT, False),
)

# ---- dropout (random masks: see test_activation.py; here the deterministic cases) ---------

def _dropout_rows(name, samples):
    """p = 1 zeroes everything (x * 0), in place too; p = 0 and eval return the input."""
    def drop(lib, x, p, training=True, **options):
        return getattr(F(lib), name)(x, p, training, **options)
    return (
        OpRow(f"{name}_all", _quiet(lambda lib, x: drop(lib, x, 1.0)), samples, ops=(name,)),
        OpRow(f"{name}_all_inplace", _quiet(lambda lib, x: drop(lib, x * 1, 1.0, inplace=True)),
              samples[:2], ops=(name,)),
        OpRow(f"{name}_identity", _quiet(lambda lib, x: drop(lib, x, 0.5, training=False)
                                         + drop(lib, x, 0.0)), samples, ops=(name,)),
    )


_CHANNELS_1D = (S((2, 3, 4)), S((3, 4), label="unbatched"), S((0, 3, 4), label="empty"),
                S((3, 4), layouts=("t",), label="unbatched-t"))
_CHANNELS_2D = (S((2, 3, 2, 2)), S((2, 3, 4), label="3d-as-1d"), S((2, 3), label="2d"),
                STEP((2, 3, 2, 2)))
_CHANNELS_3D = (S((1, 2, 2, 2, 2)), S((2, 2, 2, 2), label="unbatched"), S((2, 3), label="2d"),
                S((0, 2, 1, 2, 2), label="empty"))

DROPOUT = (
    *_dropout_rows("dropout", UNARY),
    *_dropout_rows("dropout1d", _CHANNELS_1D),
    *_dropout_rows("dropout2d", _CHANNELS_2D),
    *_dropout_rows("dropout3d", _CHANNELS_3D),
    *_dropout_rows("alpha_dropout", UNARY),
    *_dropout_rows("feature_alpha_dropout", (S((2, 3, 4)), S((2, 3), label="2d"),
                                             S((0, 3), label="empty"))),
    # torch.dropout(input, p, train) and its siblings, in place too
    *(OpRow(f"torch_{name}", _quiet(lambda lib, x, name=name: getattr(lib, name)(x, 1.0, True)
                                    + getattr(lib, name)(x, 0.5, False)
                                    + getattr(lib, name + "_")(x * 1, 1.0, True)),
            _CHANNELS_1D[:2], ops=(name, name + "_"))
      for name in ("dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout")),
)

# ---- linear layers -------------------------------------------------------------------------

LINEAR = (
    OpRow("linear", lambda lib, x, w, b: F(lib).linear(x, w, b), (
        S((3, 4), (5, 4), (5,), label="2d"),
        S((4,), (5, 4), (5,), label="1d"),
        S((2, 3, 4), (5, 4), (5,), label="3d"),
        S((2, 2, 3, 4), (5, 4), (5,), label="4d"),
        S((3, 4), (5, 4), (), label="0d-bias"),
        S((3, 4), (5, 4), (3, 5), label="2d-bias"),
        S((4,), (4,), (), label="1d-1d"),
        S((4,), (5, 4), (), label="1d-0d-bias"),
        S((2, 2, 3, 4), (5, 4), (3, 5), layouts=(None, "t"), label="4d-2d-bias-t-weight"),
        S((0, 4), (5, 4), (5,), label="empty"),
        S((3, 4), (5, 4), (5,), layouts=("t", None, None), label="t"),
        STEP((2, 3, 4), (5, 4), (5,), label="3d-step"),
        STEP((3, 4), (5, 4), (3, 1), label="step-bias-column"),
        S((3, 4), (5, 4), (5,), requires_grad=(False, True, True), label="weights-only"),
    ), ops=("linear",)),
    OpRow("linear_no_bias", lambda lib, x, w: F(lib).linear(x, w), (
        S((3, 4), (5, 4), label="2d"),
        S((4,), (5, 4), label="1d"),
        S((2, 3, 4), (5, 4), label="3d"),
        S((3, 4), (4,), label="1d-weight"),
        STEP((2, 3, 4), (5, 4), label="3d-step"),
    ), ops=("linear",)),
    OpRow("bilinear", lambda lib, a, b, w, bias: F(lib).bilinear(a, b, w, bias), (
        S((3, 4), (3, 2), (5, 4, 2), (5,), label="2d"),
        S((4,), (2,), (5, 4, 2), (5,), label="1d"),
        S((2, 3, 4), (2, 3, 2), (5, 4, 2), (5,), label="3d"),
        S((0, 4), (0, 2), (5, 4, 2), (5,), label="empty"),
        S((3, 4), (3, 2), (5, 4, 2), (5,), layouts=("t",), label="t"),
    ), ops=("bilinear",)),
    OpRow("bilinear_no_bias", lambda lib, a, b, w: lib.bilinear(a, b, w), (
        S((3, 4), (3, 2), (5, 4, 2)),), ops=("bilinear",)),
)

# ---- embedding and one_hot -----------------------------------------------------------------

_INDICES = _rng.integers(0, 5, (3, 4))
_REPEATED = np.array([[0, 2, 2], [4, 0, 2]])
_WEIGHT = _rng.uniform(-2.0, 2.0, (5, 3))

EMBEDDING = (
    OpRow("embedding", lambda lib, w, indices, **options: F(lib).embedding(
        indices, w, **options), (
        S((5, 3), constants={"indices": _INDICES}, label="2d-indices"),
        S((5, 3), constants={"indices": _REPEATED}, label="repeated"),
        S((5, 3), constants={"indices": np.array(3)}, label="0d-index"),
        S((5, 3), constants={"indices": np.zeros((0, 2), np.int64)}, label="empty"),
        S((5, 3), constants={"indices": _REPEATED.astype(np.int32)}, label="int32"),
        S((5, 3), constants={"indices": _REPEATED}, layouts=("t",), label="t"),
        # Against torch only: its gradient leaves out the padding row (which the output reads),
        # divides by each index's count, and ignores the in-place max_norm rescaling.
        K(_WEIGHT, constants={"indices": _REPEATED, "padding_idx": 2}, label="padding"),
        K(_WEIGHT, constants={"indices": _REPEATED, "padding_idx": -1}, label="padding-neg"),
        K(_WEIGHT, constants={"indices": _REPEATED, "scale_grad_by_freq": True},
          label="scale-by-freq"),
        K(_WEIGHT, constants={"indices": _REPEATED, "scale_grad_by_freq": True,
                              "padding_idx": 0}, label="scale-and-padding"),
        K([[3.0, 4.0], [0.3, 0.4], [1.0, -1.0], [-6.0, 8.0]],
          constants={"indices": np.array([0, 1, 3, 0]), "max_norm": 2.0},
          label="max-norm"),
        K([[3.0, 4.0], [0.3, 0.4], [1.0, -1.0], [-6.0, 8.0]],
          constants={"indices": np.array([2, 3]), "max_norm": 1.0, "norm_type": 1.0},
          label="max-norm-l1"),
        # the weight's gradient sparse COO (tests/test_sparse.py checks its layout)
        K(_WEIGHT, constants={"indices": _REPEATED, "sparse": True}, label="sparse"),
    ), ops=("embedding",)),
    OpRow("one_hot", lambda lib, x, classes, **options: x * F(lib).one_hot(classes, **options), (
        S((3, 4), constants={"classes": np.array([0, 3, 1]), "num_classes": 4},
          label="given"),
        S((3, 4), constants={"classes": np.array([0, 3, 1])}, label="inferred"),
        S((4,), constants={"classes": np.array(2), "num_classes": 4}, label="0d"),
        S((0, 4), constants={"classes": np.zeros(0, np.int64), "num_classes": 4},
          label="empty"),
    ), ops=("one_hot",)),
)

# ---- padding -------------------------------------------------------------------------------


def _pad_samples(*cases):
    return tuple(S(shape, constants={"pad": pad}, label=label, **options)
                 for shape, pad, label, options in cases)


PADDING = (
    OpRow("pad_constant", lambda lib, x, pad, **options: F(lib).pad(x, pad, **options),
          _pad_samples(
              ((3, 4), (1, 2), "last", {}),
              ((3, 4), (1, 2, 0, 1), "two-dims", {}),
              ((3, 4), (-1, 2), "crop-and-pad", {}),
              ((3, 4), (-1, 0, 0, -2), "crop-only", {}),
              ((3, 4), (0, 0), "zeros", {}),
              ((3, 4), (-2, -2), "crop-all", {}),
              ((2, 3, 4), (1, 1, 1, 1, 1, 1), "every-dim", {}),
              ((), (), "0d", {}),
              ((0, 3), (1, 1), "empty", {}),
              ((4, 3), (2, 0), "t", {"layouts": ("t",)}),
              ((3, 4), [1, 1], "list", {}),
          ) + (S((3, 4), constants={"pad": (1, 2, 2, 1), "value": 2.5}, label="value"),
               S((3, 4), constants={"pad": (1, 2), "mode": "constant", "value": -1},
                 label="mode-int-value")),
          ops=("pad",)),
    OpRow("pad_reflect", lambda lib, x, pad: F(lib).pad(x, pad, mode="reflect"), _pad_samples(
        ((2, 5), (2, 1), "1d-unbatched", {}),
        ((2, 3, 5), (1, -1), "1d-crop", {}),
        ((2, 3), (-2, 1), "1d-crop-past", {}),
        ((2, 4, 5), (0, 0), "1d-zeros", {}),
        ((0, 2, 3), (1, 2), "1d-empty-batch", {}),
        ((2, 4, 5), (2, 2, 1, 3), "2d", {}),
        ((3, 4, 5), (1, 1, 0, 2), "2d-unbatched", {}),
        ((1, 3, 4, 4), (1, 2, -1, 3), "2d-crop", {}),
        ((1, 2, 3, 4, 4), (1, 1, 2, 1, 1, 2), "3d", {}),
        ((2, 3, 4, 4), (1, 1, 2, 1, 1, 2), "3d-unbatched", {}),
        ((3, 5), (2, 2), "t", {"layouts": ("t",)}),
    ), ops=("pad",)),
    OpRow("pad_replicate", lambda lib, x, pad: F(lib).pad(x, pad, "replicate"), _pad_samples(
        ((2, 5), (2, 3), "1d-unbatched", {}),
        ((2, 3, 5), (-2, 1), "1d-crop", {}),
        ((0, 2, 3), (1, 2), "1d-empty-batch", {}),
        ((2, 4, 5), (2, 2, 1, 3), "2d", {}),
        ((3, 4, 5), (1, 1, 0, 2), "2d-unbatched", {}),
        ((1, 3, 3), (-2, -1, 0, 0), "2d-crop-to-empty", {}),
        ((1, 2, 3, 4, 4), (1, 1, 2, 1, 1, 2), "3d", {}),
        ((2, 3, 4, 4), (2, -1, 0, 1, 3, 0), "3d-unbatched-crop", {}),
        ((3, 5), (4, 4), "t", {"layouts": ("t",)}),
    ), ops=("pad",)),
    OpRow("pad_circular", lambda lib, x, pad: F(lib).pad(x, pad, mode="circular"),
          _pad_samples(
              ((2, 5), (2, 1), "1d-unbatched", {}),
              ((2, 3, 5), (-1, 3), "1d-crop-left", {}),
              ((2, 3, 5), (2, -2), "1d-crop-right", {}),
              ((2, 3, 5), (5, 5), "1d-whole-size", {}),
              ((2, 3), (-2, -1), "1d-crop-to-empty", {}),
              ((0, 2, 3), (1, 2), "1d-empty-batch", {}),
              ((2, 4, 5), (2, 2, 1, 3), "2d", {}),
              ((3, 4, 5), (1, -1, 0, 2), "2d-unbatched-crop", {}),
              ((1, 2, 3, 4, 4), (1, 1, 2, 1, 1, 2), "3d", {}),
              ((2, 3, 4, 4), (2, -1, 0, 1, 3, 0), "3d-unbatched-crop", {}),
              ((3, 5), (4, 4), "t", {"layouts": ("t",)}),
          ), ops=("pad",)),
)

# ---- normalize and distances ---------------------------------------------------------------

DISTANCES = (
    OpRow("normalize", lambda lib, x, **options: F(lib).normalize(x, **options), (
        S((3, 4), label="default"),
        S((3, 4), constants={"dim": 0, "p": 1.0}, label="p1-dim0"),
        S((3, 4), constants={"dim": -1, "p": 3}, label="p3-dim-1"),
        S((2, 3, 2), constants={"dim": 1}, label="3d"),
        S((), constants={"dim": 0}, label="0d"),
        S((0, 3), constants={"dim": 1}, label="empty"),
        S((3, 4), constants={"eps": 10.0}, label="eps-clamps"),
        T((4, 3), label="t"),
    ), NONZERO, ops=("normalize",)),
    OpRow("cosine_similarity", lambda lib, a, b, **options: F(lib).cosine_similarity(
        a, b, **options), (
        S((3, 4), (3, 4), label="same"),
        S((3, 4), (4,), label="broadcast"),
        S((3, 1), (1, 4), constants={"dim": 0}, label="broadcast-both-dim0"),
        S((2, 3, 4), (2, 3, 4), constants={"dim": -1}, label="3d-dim-1"),
        S((), (), constants={"dim": 0}, label="0d"),
        S((0, 3), (0, 3), label="empty"),
        S((3, 4), (3, 4), layouts=("t", None), label="t"),
        # torch clamps the norms without recording it: the gradient is not the derivative
        K([[0.1, -0.2], [3.0, 1.0]], [[0.3, 0.1], [0.01, 0.02]], constants={"eps": 0.5},
          label="eps-clamps"),
    ), NONZERO, ops=("cosine_similarity",)),
    OpRow("cosine_similarity_fn", lambda lib, a, b: lib.cosine_similarity(a, b, 0),
          (S((3, 4), (3, 4)),), NONZERO, ops=("cosine_similarity",)),
    OpRow("pairwise_distance", lambda lib, a, b, **options: F(lib).pairwise_distance(
        a, b, **options), (
        S((3, 4), (3, 4), label="same"),
        S((3, 4), (4,), label="broadcast"),
        S((3, 4), (3, 4), constants={"keepdim": True}, label="keepdim"),
        S((4,), (4,), label="1d"),
        S((), (), label="0d"),
        S((0, 4), (0, 4), label="empty"),
        S((3, 4), (3, 4), constants={"p": 3.0}, label="p3"),
        S((3, 4), (3, 4), layouts=("t", None), label="t"),
    ), _apart, ops=("pairwise_distance",)),
    OpRow("pairwise_distance_p1", lambda lib, a, b: lib.pairwise_distance(a, b, p=1),
          (S((3, 4), (3, 4)), S((3, 4), (4,))), _apart, smooth=False,
          ops=("pairwise_distance",)),
    OpRow("pairwise_distance_inf", lambda lib, a, b: F(lib).pairwise_distance(
        a, b, p=float("inf")), (S((3, 4), (3, 4)),), _distinct_differences, smooth=False,
        ops=("pairwise_distance",)),
)

ROWS = ACTIVATIONS + PRELU + DROPOUT + LINEAR + EMBEDDING + PADDING + DISTANCES
