"""op_db rows of the softmax and loss family (tapegrad/ops/loss.py); the margin losses' rows
are in op_db_margin_loss.py."""
import warnings

import numpy as np

from op_db import DYADIC, REAL, STEP, UNARY, K, OpRow, S, each

_constants_rng = np.random.default_rng(20240615)


def F(lib):
    return lib.nn.functional


def _quiet(fn):
    """The row's call with warnings off: broadcast targets, legacy flags, kl_div's 'mean' and
    dropout2d's 3-d input warn on purpose (tests/test_loss.py and test_activation.py check
    those warnings)."""
    def call(lib, *inputs, **constants):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib, *inputs, **constants)
    return call


def _as_dtype_of(x, weight):
    """Constant weights in the inputs' dtype (torch requires it for nll_loss and bce)."""
    return None if weight is None else weight.to(x.dtype)


# ---- domains ---------------------------------------------------------------------------------

def _probability(rng, shape):
    return rng.uniform(0.05, 0.95, shape)


def _real(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def _differences_away_from(*kinks, margin=0.1):
    """(input, target) whose differences keep `margin` away from each kink (|d| = beta...)."""
    def domain(rng, shapes):
        full = np.broadcast_shapes(*shapes)
        assert tuple(shapes[0]) == full, "the input must have the broadcast shape"
        target = _real(rng, shapes[1])
        difference = _real(rng, full)
        for _ in range(100):
            near = np.zeros(full, bool)
            for kink in kinks:
                near |= np.abs(difference - kink) < margin
            if not near.any():
                return [target + difference, target] + [_real(rng, s) for s in shapes[2:]]
            difference = np.where(near, _real(rng, full), difference)
        raise AssertionError("could not draw differences away from the kinks")
    return domain


def _targets(classes, shape, ignored=None):
    """Class indices in [0, classes), with `ignored` written at the first position."""
    target = _constants_rng.integers(0, classes, shape)
    if ignored is not None:
        target.flat[0] = ignored
    return target


_WEIGHT4 = np.array([0.5, 2.0, 1.5, 0.25])
_WEIGHT3 = np.array([0.5, 2.0, 1.5])

# ---- softmax ---------------------------------------------------------------------------------

_SOFTMAX = (
    S((3, 4), constants={"dim": 1}, label="dim1"),
    S((3, 4), constants={"dim": -2}, label="dim-2"),
    S((2, 3, 2), constants={"dim": 1}, label="3d"),
    S((), constants={"dim": 0}, label="0d"),
    S((5,), constants={"dim": -1}, label="1d"),
    S((0, 3), constants={"dim": 1}, label="empty"),
    S((3, 0), constants={"dim": 1}, label="empty-dim"),
    S((4, 3), constants={"dim": 1}, layouts=("t",), label="t"),
    S((3, 2), constants={"dim": 0}, layouts=("step",), label="step"),
)


def _nll(lib, x, target, weight=None, **options):
    return F(lib).nll_loss(x, target, weight=_as_dtype_of(x, weight), **options)


def _cross_entropy(lib, x, target, weight=None, **options):
    return F(lib).cross_entropy(x, target, weight=_as_dtype_of(x, weight), **options)


# Class-index targets of every shape nll_loss and cross_entropy accept.
_CLASS_INDICES = (
    S((3, 4), constants={"target": _targets(4, 3)}, label="mean"),
    S((3, 4), constants={"target": _targets(4, 3), "reduction": "sum"}, label="sum"),
    S((3, 4), constants={"target": _targets(4, 3), "reduction": "none"}, label="none"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100)}, label="ignored"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=2), "ignore_index": 2,
                         "reduction": "none"}, label="ignore-index-none"),
    S((3, 4), constants={"target": _targets(4, 3), "weight": _WEIGHT4}, label="weight"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100), "weight": _WEIGHT4,
                         "reduction": "sum"}, label="weight-ignored-sum"),
    S((3, 4), constants={"target": _targets(4, 3).astype(np.uint8)}, label="uint8-target"),
    S((4,), constants={"target": np.array(2)}, label="1d-input-0d-target"),
    S((4,), constants={"target": np.array(1), "reduction": "none"}, label="1d-none"),
    S((2, 3, 2, 2), constants={"target": _targets(3, (2, 2, 2))}, label="4d"),
    S((2, 3, 2, 2), constants={"target": _targets(3, (2, 2, 2), ignored=-100),
                               "reduction": "none"}, label="4d-none"),
    S((2, 3, 2), constants={"target": _targets(3, (2, 2)), "weight": _WEIGHT3},
      label="3d-weight"),
    S((2, 3, 2), constants={"target": _targets(3, (2, 2)), "reduction": "none"},
      label="3d-none"),
    S((2, 3, 1, 2, 1), constants={"target": _targets(3, (2, 1, 2, 1))}, label="5d"),
    S((0, 4), constants={"target": np.zeros(0, np.int64)}, label="empty-mean"),
    S((0, 4), constants={"target": np.zeros(0, np.int64), "reduction": "none"},
      label="empty-none"),
    S((2, 3, 0), constants={"target": np.zeros((2, 0), np.int64), "reduction": "none"},
      label="3d-empty-none"),
    S((3, 4), constants={"target": _targets(4, 3)}, layouts=("t",), label="t"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100), "reduction": "none"},
      layouts=("step",), label="step"),
    K([[0.5, -1.0], [2.0, 0.25]], constants={"target": np.array([-100, -100])},
      label="all-ignored-mean-is-nan"),
)


_PROBABILITIES = (
    S((3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
    S((3, 4), (3, 4), constants={"reduction": "none"}, label="none"),
    S((4,), (4,), label="1d"),
    S((2, 3, 2), (2, 3, 2), constants={"reduction": "none"}, label="3d-none"),
    S((3, 4), (3, 4), constants={"weight": _WEIGHT4}, label="weight"),
    S((2, 4, 1), (2, 4, 1), constants={"weight": _WEIGHT4, "reduction": "none"},
      label="3d-weight-none"),
    S((3, 4), (3, 4), constants={"label_smoothing": 0.2}, label="smoothing"),
    S((3, 4), (3, 4), requires_grad=(True, False), label="target-constant"),
    S((0, 4), (0, 4), label="empty-mean"),
    S((4, 3), (4, 3), layouts=("t", None), label="t"),
)

_SMOOTHED = (
    S((3, 4), constants={"target": _targets(4, 3), "label_smoothing": 0.1}, label="mean"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100), "label_smoothing": 0.3,
                         "reduction": "sum"}, label="ignored-sum"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100), "label_smoothing": 0.3,
                         "reduction": "none"}, label="ignored-none"),
    S((3, 4), constants={"target": _targets(4, 3, ignored=-100), "label_smoothing": 0.2,
                         "weight": _WEIGHT4}, label="weight-ignored-mean"),
    S((3, 4), constants={"target": _targets(4, 3), "label_smoothing": 0.2,
                         "weight": _WEIGHT4, "reduction": "none"}, label="weight-none"),
    S((4,), constants={"target": np.array(3), "label_smoothing": 0.1}, label="1d"),
    S((2, 3, 2), constants={"target": _targets(3, (2, 2)), "label_smoothing": 0.1},
      label="3d"),
    S((3, 4), constants={"target": _targets(4, 3), "label_smoothing": 1.0}, label="full"),
    S((3, 4), constants={"target": _targets(4, 3), "label_smoothing": -0.1},
      label="negative-is-none"),
)

# ---- regression losses -----------------------------------------------------------------------


def _pairs(*extra):
    """(input, target) shapes for elementwise losses; the input has the broadcast shape."""
    return (
        S((3, 4), (3, 4), label="mean"),
        S((3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
        S((3, 4), (3, 4), constants={"reduction": "none"}, label="none"),
        S((3, 4), (4,), label="broadcast-target"),
        S((), (), label="0d"),
        S((0, 3), (0, 3), label="empty-mean"),
        S((0, 3), (0, 3), constants={"reduction": "none"}, label="empty-none"),
        S((4, 3), (4, 3), layouts=("t", None), label="t"),
        STEP((3, 2), (3, 2), constants={"reduction": "none"}),
        S((3, 4), (3, 4), requires_grad=(False, True), label="target-only"),
    ) + extra


_LEGACY = (S((3, 4), (3, 4), constants={"size_average": False}, label="legacy-sum"),)
_WEIGHTED = (S((3, 4), (3, 4), (3, 4), label="mean"),
             S((3, 4), (3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
             S((3, 4), (3, 4), (3, 4), constants={"reduction": "none"}, label="none"))


def _regression_rows(row_name, name, domain, smooth, kink_samples, weighted=True, **fixed):
    """Rows for an elementwise regression loss: plain and, if torch takes one, weighted."""
    call = _quiet(lambda lib, x, y, **options: getattr(F(lib), name)(x, y, **fixed, **options))
    rows = [OpRow(row_name, call, _pairs(*kink_samples), domain, smooth, ops=(name,))]
    if weighted:
        weighted_call = _quiet(lambda lib, x, y, w, **options: getattr(F(lib), name)(
            x, y, weight=w, **fixed, **options))
        # loss * weight is bilinear: smooth away from the kinks even where the loss is linear
        rows.append(OpRow(row_name + "_weighted", weighted_call, _WEIGHTED, domain,
                          ops=(name,)))
    return rows


def _kinks(*values):
    """K samples with input - target at each kink value."""
    difference = np.array(values, dtype=np.float64)
    target = np.linspace(-1.0, 1.0, difference.size)
    return (K(target + difference, target, label="at-kinks"),
            K(target + difference, target, constants={"reduction": "none"},
              label="at-kinks-none"))


# ---- binary cross entropy and kl_div ---------------------------------------------------------

def _bce(lib, x, y, weight=None, **options):
    return F(lib).binary_cross_entropy(x, y, weight=_as_dtype_of(x, weight), **options)


def _bce_with_logits(lib, x, y, weight=None, pos_weight=None, **options):
    return F(lib).binary_cross_entropy_with_logits(
        x, y, weight=_as_dtype_of(x, weight), pos_weight=_as_dtype_of(x, pos_weight), **options)


_BINARY_TARGETS = (
    S((3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
    S((3, 4), (3, 4), constants={"reduction": "none"}, label="none"),
    S((3, 4), (3, 4), constants={"weight": _WEIGHT4}, label="weight-broadcast"),
    S((3, 4), (3, 4), constants={"weight": np.full((3, 4), 0.5), "reduction": "none"},
      label="weight-full-none"),
    S((), (), label="0d"),
    S((0, 3), (0, 3), label="empty-mean"),
    S((4, 3), (4, 3), layouts=("t", None), label="t"),
    STEP((3, 2), (3, 2), constants={"reduction": "none"}),
    S((3, 4), (3, 4), requires_grad=(False, True), label="target-only"),
)

_CERTAIN = K([0.0, 1.0, 0.0, 1.0, 0.5], [1.0, 0.0, 0.0, 1.0, 0.5], constants={
    "reduction": "none"}, label="certain-inputs")


def _kl_div(lib, x, y, **options):
    return F(lib).kl_div(x, y, **options)


_KL = (
    S((3, 4), (3, 4), constants={"reduction": "batchmean"}, label="batchmean"),
    S((3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
    S((3, 4), (3, 4), constants={"reduction": "none"}, label="none"),
    S((3, 4), (4,), constants={"reduction": "none"}, label="broadcast"),
    S((), (), constants={"reduction": "batchmean"}, label="0d-batchmean"),
    S((0, 3), (0, 3), constants={"reduction": "sum"}, label="empty-sum"),
    S((4, 3), (4, 3), layouts=("t", None), constants={"reduction": "batchmean"}, label="t"),
    S((3, 4), (3, 4), requires_grad=(False, True), constants={"reduction": "sum"},
      label="target-only"),
    S((3, 4), (3, 4), constants={"reduce": False}, label="legacy-none"),
)

# ---- likelihood losses -----------------------------------------------------------------------

def _poisson(lib, x, y, **options):
    return F(lib).poisson_nll_loss(x, y, **options)


def _gaussian(lib, x, y, var, **options):
    return F(lib).gaussian_nll_loss(x, y, var, **options)


def _counts(rng, shape):
    """Positive targets away from 1, where full=True switches Stirling's term on."""
    values = rng.uniform(0.2, 3.0, shape)
    return np.where(np.abs(values - 1.0) < 0.1, values + 0.3, values)


def _positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


_POISSON = _pairs(S((4,), (3, 4), label="broadcast-input"),
                  S((3, 4), (3, 4), constants={"reduce": False}, label="legacy-none"))

_GAUSSIAN = (
    S((3, 4), (3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
    S((3, 4), (3, 4), (3, 4), constants={"reduction": "none", "full": True}, label="full-none"),
    S((3, 4), (3, 4), (3,), label="var-without-last-dim"),
    S((3, 4), (3, 4), (3, 1), constants={"reduction": "none"}, label="var-one-column"),
    S((2, 3, 4), (2, 3, 4), (1, 3, 4), label="var-one-batch"),
    S((3, 4), (4,), (3, 4), label="broadcast-target"),
    S((), (), (), label="0d"),
    S((0, 3), (0, 3), (0, 3), constants={"reduction": "none"}, label="empty-none"),
    S((4, 3), (4, 3), (4, 3), layouts=("t", None, None), label="t"),
    S((3, 4), (3, 4), (3, 4), requires_grad=(False, False, True), label="var-only"),
    # torch clamps var at eps without recording it: the gradient ignores the clamp
    K([0.5, -1.0, 2.0], [0.25, 0.0, 1.0], [0.1, 1.0, 0.01], constants={"eps": 0.2},
      label="eps-clamps"),
)

ROWS = (
    OpRow("softmax", lambda lib, x, dim: x.softmax(dim), _SOFTMAX, ops=("softmax",)),
    OpRow("softmax_fn", lambda lib, x, dim: lib.softmax(x, dim), _SOFTMAX[:4],
          ops=("softmax",)),
    OpRow("softmax_F", lambda lib, x, dim: F(lib).softmax(x, dim=dim), _SOFTMAX[:4],
          ops=("softmax",)),
    # float64 inputs: no cast; the float32 comparison casts up (ToCopyBackward0) as torch does
    OpRow("softmax_dtype", lambda lib, x: F(lib).softmax(x, 0, dtype=lib.float64),
          UNARY[:3], ops=("softmax",)),
    OpRow("softmax_large_inputs", lambda lib, x: (x * 500.0).softmax(-1),
          (S((3, 4)), S((5,))), domain=DYADIC, ops=("softmax",)),
    OpRow("log_softmax", lambda lib, x, dim: x.log_softmax(dim), _SOFTMAX,
          ops=("log_softmax",)),
    OpRow("log_softmax_fn", lambda lib, x, dim: lib.log_softmax(x, dim), _SOFTMAX[:4],
          ops=("log_softmax",)),
    OpRow("log_softmax_F", lambda lib, x: F(lib).log_softmax(x, 1, dtype=lib.float64),
          (S((3, 4)),), ops=("log_softmax",)),
    OpRow("log_softmax_large_inputs", lambda lib, x: (x * 500.0).log_softmax(0),
          (S((3, 4)), S((5,))), domain=DYADIC, ops=("log_softmax",)),
    OpRow("softmin", lambda lib, x, dim: F(lib).softmin(x, dim), _SOFTMAX[:5] + _SOFTMAX[7:],
          ops=("softmin",)),
    OpRow("softmin_dtype", lambda lib, x: F(lib).softmin(x, -1, dtype=lib.float64),
          (S((3, 4)),), ops=("softmin",)),

    OpRow("nll_loss", _nll, _CLASS_INDICES, ops=("nll_loss",)),
    OpRow("nll_loss_legacy", _quiet(lambda lib, x, target: F(lib).nll_loss(x, target,
                                                                            reduce=False)),
          (S((3, 4), constants={"target": _targets(4, 3)}),), ops=("nll_loss",)),
    # a non-contiguous 3-d input: torch copies it (CloneBackward0) before viewing it as 4-d
    OpRow("nll_loss_3d_transposed", lambda lib, x, target: F(lib).nll_loss(
        x.transpose(1, 2), target, reduction="none"),
          (S((2, 3, 4), constants={"target": _targets(4, (2, 3))}),), ops=("nll_loss",)),
    OpRow("cross_entropy", _cross_entropy, _CLASS_INDICES, ops=("cross_entropy",)),
    OpRow("cross_entropy_probabilities", _cross_entropy, _PROBABILITIES,
          ops=("cross_entropy",)),
    OpRow("cross_entropy_smoothing", _cross_entropy, _SMOOTHED, ops=("cross_entropy",)),

    *_regression_rows("mse_loss", "mse_loss", REAL, True, ()),
    OpRow("mse_loss_legacy", _quiet(lambda lib, x, y, **options: F(lib).mse_loss(
        x, y, **options)), _LEGACY, ops=("mse_loss",)),
    *_regression_rows("l1_loss", "l1_loss", _differences_away_from(0.0), False,
                      _kinks(0.0, 0.0, 1.0)),
    *_regression_rows("smooth_l1_loss", "smooth_l1_loss", _differences_away_from(-1.0, 1.0),
                      True, _kinks(-1.0, 1.0, 0.0, 0.5), weighted=False),
    *_regression_rows("smooth_l1_loss_beta", "smooth_l1_loss", _differences_away_from(-0.5, 0.5),
                      True, _kinks(-0.5, 0.5), weighted=False, beta=0.5),
    OpRow("smooth_l1_loss_beta0", lambda lib, x, y: F(lib).smooth_l1_loss(x, y, beta=0.0),
          (S((3, 4), (3, 4)),), _differences_away_from(0.0), False, ops=("smooth_l1_loss",)),
    *_regression_rows("huber_loss", "huber_loss", _differences_away_from(-1.0, 1.0), True,
                      _kinks(-1.0, 1.0, 0.0)),
    *_regression_rows("huber_loss_delta", "huber_loss", _differences_away_from(-0.5, 0.5),
                      True, _kinks(-0.5, 0.5), weighted=False, delta=0.5),

    OpRow("binary_cross_entropy", _bce, _BINARY_TARGETS + (_CERTAIN,),
          each(_probability), ops=("binary_cross_entropy",)),
    OpRow("binary_cross_entropy_with_logits", _bce_with_logits, _BINARY_TARGETS + (
        S((3, 4), (3, 4), constants={"pos_weight": _WEIGHT4}, label="pos-weight"),
        S((3, 4), (3, 4), constants={"pos_weight": np.array([3.0]), "weight": _WEIGHT4,
                                     "reduction": "none"}, label="pos-weight-weight-none"),
        S((2,), (2,), requires_grad=(False, True), constants={"pos_weight": _WEIGHT4[:2]},
          label="pos-weight-target-only"),
        K([800.0, -800.0, 0.0], [0.25, 0.5, 1.0], constants={"reduction": "none"},
          label="large-logits"),
    ), each(_real, _probability), ops=("binary_cross_entropy_with_logits",)),
    OpRow("kl_div", _quiet(_kl_div), _KL + (
        K([-1.0, -2.0], [0.0, 0.5], constants={"reduction": "sum"}, label="zero-target"),),
          each(_real, lambda rng, shape: rng.uniform(0.5, 2.0, shape)), ops=("kl_div",)),
    OpRow("kl_div_log_target", lambda lib, x, y, **options: F(lib).kl_div(
        x, y, log_target=True, **options), _KL[:1] + _KL[2:8], ops=("kl_div",)),

    OpRow("poisson_nll_loss", _quiet(_poisson), _POISSON, each(_real, _counts),
          ops=("poisson_nll_loss",)),
    OpRow("poisson_nll_loss_rate", _quiet(lambda lib, x, y, **options: F(lib).poisson_nll_loss(
        x, y, log_input=False, **options)), _pairs(
        S((3, 4), (3, 4), constants={"eps": 0.5}, label="eps")), each(_positive),
          ops=("poisson_nll_loss",)),
    OpRow("poisson_nll_loss_full", _quiet(lambda lib, x, y, **options: F(lib).poisson_nll_loss(
        x, y, full=True, **options)), _pairs(
        # Stirling's term only counts for targets above 1; log(0) makes torch's gradient NaN
        K([0.5, -1.0, 2.0, 0.1], [0.0, 0.5, 1.0, 2.5], requires_grad=(True, False),
          constants={"reduction": "none"}, label="small-targets")), each(_real, _counts),
          ops=("poisson_nll_loss",)),
    OpRow("gaussian_nll_loss", _gaussian, _GAUSSIAN, each(_real, _real, _positive),
          ops=("gaussian_nll_loss",)),
    OpRow("gaussian_nll_loss_float_var", lambda lib, x, y, **options: F(lib).gaussian_nll_loss(
        x, y, 0.75, **options), (S((3, 4), (3, 4)), S((3, 4), (3, 4), constants={
            "full": True, "reduction": "none"}, label="full-none")),
          ops=("gaussian_nll_loss",)),
)
