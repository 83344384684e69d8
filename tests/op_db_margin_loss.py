"""op_db rows of the margin, ranking and embedding losses (tapegrad/ops/margin_loss.py)."""
import numpy as np

from op_db import STEP, K, OpRow, S, _away_from, _real, each
from op_db_loss import _WEIGHT4, F, _probability, _quiet

_constants_rng = np.random.default_rng(20240616)


def _signs(shape):
    signs = _constants_rng.choice([-1.0, 1.0], shape)
    signs.flat[0], signs.flat[-1] = 1.0, -1.0
    return signs


def _targets(classes, shape):
    return _constants_rng.integers(0, classes, shape)


# ---- pairs and triplets ----------------------------------------------------------------------

def _cosine(lib, x1, x2, target, **options):
    return F(lib).cosine_embedding_loss(x1, x2, target.to(x1.dtype), **options)


def _ranking(lib, x1, x2, target, **options):
    return F(lib).margin_ranking_loss(x1, x2, target.to(x1.dtype), **options)


def _triplet(lib, anchor, positive, negative, **options):
    return F(lib).triplet_margin_loss(anchor, positive, negative, **options)


_COSINE = (
    S((3, 4), (3, 4), constants={"target": _signs(3)}, label="mean"),
    S((3, 4), (3, 4), constants={"target": _signs(3), "margin": 0.2, "reduction": "none"},
      label="margin-none"),
    S((3, 4), (3, 4), constants={"target": _signs(3), "margin": -0.5, "reduction": "sum"},
      label="negative-margin-sum"),
    S((4,), (4,), constants={"target": np.array(-1.0), "margin": -0.9}, label="0d-target"),
    S((4,), (4,), constants={"target": np.array(1.0)}, label="0d-target-similar"),
    S((4, 3), (4, 3), constants={"target": _signs(4)}, layouts=("t", None), label="t"),
    S((0, 4), (0, 4), constants={"target": np.zeros(0)}, label="empty-sum"),
)

_RANKING = (
    S((3,), (3,), constants={"target": _signs(3)}, label="mean"),
    S((3,), (3,), constants={"target": _signs(3), "margin": 0.5, "reduction": "none"},
      label="margin-none"),
    S((3,), (1,), constants={"target": _signs(3), "reduction": "sum"}, label="broadcast"),
    S((), (), constants={"target": np.array(1.0), "margin": 3.0}, label="0d"),
    S((2, 3), (2, 3), constants={"target": _signs((2, 3))}, layouts=(None, "t"), label="t"),
    S((0,), (0,), constants={"target": np.zeros(0)}, label="empty-mean"),
)

_TRIPLET = (
    S((3, 4), (3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), (3, 4), constants={"reduction": "none", "margin": 2.0}, label="none"),
    S((3, 4), (3, 4), (3, 4), constants={"swap": True, "reduction": "sum"}, label="swap"),
    S((3, 4), (3, 4), (3, 4), constants={"p": 1}, label="p1"),
    S((3, 4), (3, 4), (3, 4), constants={"p": 3, "eps": 0.0}, label="p3"),
    S((4,), (4,), (4,), constants={"margin": 3.0}, label="1d"),
    S((3, 4), (1, 4), (3, 4), constants={"margin": 3.0}, label="broadcast-positive"),
    S((4, 3), (4, 3), (4, 3), layouts=("t", None, None), constants={"reduction": "none"},
      label="t"),
)


def _triplet_distance(lib, anchor, positive, negative, **options):
    return F(lib).triplet_margin_with_distance_loss(anchor, positive, negative, **options)


def _cosine_distance(lib):
    return lambda u, v: 1 - F(lib).cosine_similarity(u, v, dim=-1)


_TRIPLET_DISTANCE = _TRIPLET[:3] + _TRIPLET[5:]


def _hinge(lib, x, target, **options):
    return F(lib).hinge_embedding_loss(x, target, **options)


_HINGE = (
    S((3, 4), constants={"target": _signs((3, 4))}, label="mean"),
    S((3, 4), constants={"target": _signs((3, 4)), "reduction": "sum"}, label="sum"),
    S((3, 4), constants={"target": _signs((3, 4)), "reduction": "none", "margin": 0.5},
      label="margin-none"),
    S((3, 4), constants={"target": _signs(4)}, label="broadcast-target"),
    S((4,), constants={"target": _signs((3, 4)), "reduction": "none"}, label="broadcast-input"),
    # targets other than +-1 take both terms
    S((3, 4), constants={"target": np.array([[1.0, -1.0, 0.0, 2.0]] * 3)},
      label="other-targets"),
    S((), constants={"target": np.array(-1.0)}, label="0d"),
    S((0, 3), constants={"target": np.zeros((0, 3))}, label="empty-mean"),
    S((4, 3), constants={"target": _signs((4, 3))}, layouts=("t",), label="t"),
    S((3, 4), constants={"target": _signs((3, 4)), "size_average": False}, label="legacy-sum"),
    K([1.0, 0.5, 2.0, -1.0], constants={"target": np.array([-1.0, -1.0, 1.0, -1.0]),
                                         "reduction": "none"}, label="at-margin"),
)

# ---- logistic losses -------------------------------------------------------------------------


def _soft_margin(lib, x, target, **options):
    return F(lib).soft_margin_loss(x, target, **options)


_SOFT_MARGIN = (
    S((3, 4), constants={"target": _signs((3, 4))}, label="mean"),
    S((3, 4), constants={"target": _signs((3, 4)), "reduction": "sum"}, label="sum"),
    S((3, 4), constants={"target": _signs((3, 4)), "reduction": "none"}, label="none"),
    S((3, 4), constants={"target": _signs(4)}, label="broadcast-target"),
    S((), constants={"target": np.array(-1.0)}, label="0d"),
    S((0, 3), constants={"target": np.zeros((0, 3))}, label="empty-mean"),
    S((0, 3), constants={"target": np.zeros((0, 3)), "reduction": "none"}, label="empty-none"),
    S((4, 3), constants={"target": _signs((4, 3))}, layouts=("t",), label="t"),
    STEP((3, 2), constants={"target": _signs((3, 2)), "reduction": "none"}),
    S((3, 4), constants={"target": _signs((3, 4)).astype(np.int64)}, label="int-target"),
    S((3, 4), constants={"target": _signs((3, 4)), "size_average": False}, label="legacy-sum"),
    # exp overflows: the loss is inf, torch's gradient z / (1 + z) is NaN there
    K([800.0, -800.0, 0.0], constants={"target": np.array([1.0, 1.0, -1.0]),
                                       "reduction": "none"}, label="large"),
)


def _multilabel_soft(lib, x, y, *weight, **options):
    return F(lib).multilabel_soft_margin_loss(x, y, *weight, **options)


_MULTILABEL_SOFT = (
    S((3, 4), (3, 4), label="mean"),
    S((3, 4), (3, 4), constants={"reduction": "sum"}, label="sum"),
    S((3, 4), (3, 4), constants={"reduction": "none"}, label="none"),
    S((4,), (4,), label="1d"),
    S((2, 3, 4), (2, 3, 4), constants={"reduction": "none"}, label="3d-none"),
    S((0, 4), (0, 4), label="empty-mean"),
    S((4, 3), (4, 3), layouts=("t", None), label="t"),
    S((3, 4), (3, 4), requires_grad=(False, True), label="target-only"),
    S((3, 4), (3, 4), constants={"reduce": False}, label="legacy-none"),
    S((3, 4), (3, 4), (4,), label="weight"),
    S((3, 4), (3, 4), (3, 4), constants={"reduction": "none"}, label="weight-full-none"),
)

# ---- multi-class margin losses ---------------------------------------------------------------


def _multi_margin(lib, x, target, weight=None, **options):
    weight = None if weight is None else weight.to(x.dtype)
    return F(lib).multi_margin_loss(x, target, weight=weight, **options)


_MULTI_MARGIN = (
    S((3, 4), constants={"target": _targets(4, 3)}, label="mean"),
    S((3, 4), constants={"target": _targets(4, 3), "reduction": "sum"}, label="sum"),
    S((3, 4), constants={"target": _targets(4, 3), "reduction": "none"}, label="none"),
    S((3, 4), constants={"target": _targets(4, 3), "margin": 0.3}, label="margin"),
    S((3, 4), constants={"target": _targets(4, 3), "weight": _WEIGHT4, "reduction": "none"},
      label="weight-none"),
    S((4,), constants={"target": np.array(2)}, label="1d-0d-target"),
    S((4,), constants={"target": np.array([1]), "reduction": "none"}, label="1d-none"),
    S((), constants={"target": np.array(0)}, label="0d"),
    S((0, 4), constants={"target": np.zeros(0, np.int64), "reduction": "none"},
      label="empty-none"),
    S((4, 3), constants={"target": _targets(3, 4)}, layouts=("t",), label="t"),
    STEP((3, 4), constants={"target": _targets(4, 3), "reduction": "sum"}),
    S((3, 4), constants={"target": _targets(4, 3), "size_average": False}, label="legacy-sum"),
    # a hinge at exactly 0 counts as inactive
    K([[0.5, 1.5, 0.5], [0.0, 1.0, 2.0]], constants={"target": np.array([1, 0])},
      label="at-margin"),
)

_LABELS = np.array([[3, 0, -1, 1], [1, 1, 2, -1], [-1, 0, 0, 0]])

_MULTILABEL = (
    S((3, 4), constants={"target": _LABELS}, label="mean"),
    S((3, 4), constants={"target": _LABELS, "reduction": "sum"}, label="sum"),
    S((3, 4), constants={"target": _LABELS, "reduction": "none"}, label="none"),
    S((4,), constants={"target": np.array([2, 0, -1, 3])}, label="1d"),
    S((4,), constants={"target": np.array([2, 0, 1, 3]), "reduction": "none"},
      label="1d-every-class"),
    S((), constants={"target": np.array(0)}, label="0d"),
    S((0, 4), constants={"target": np.zeros((0, 4), np.int64), "reduction": "none"},
      label="empty-none"),
    S((4, 3), constants={"target": np.array([[2, -1, 0], [0, 1, -1], [1, -1, 2], [-1, 2, 2]])},
      layouts=("t",), label="t"),
    S((3, 4), constants={"target": _LABELS, "size_average": False}, label="legacy-sum"),
    K([[0.5, 1.5, 0.5], [0.0, 1.0, 2.0]], constants={"target": np.array([[1, -1, 0],
                                                                         [0, 2, -1]])},
      label="at-margin"),
)


ROWS = (
    OpRow("cosine_embedding_loss", _cosine, _COSINE, ops=("cosine_embedding_loss",)),
    OpRow("margin_ranking_loss", _ranking, _RANKING, smooth=False,
          ops=("margin_ranking_loss",)),
    OpRow("margin_ranking_loss_target_grad", lambda lib, x1, x2, target: F(
        lib).margin_ranking_loss(x1, x2, target, margin=0.5), (S((3,), (3,), (3,)),),
          ops=("margin_ranking_loss",)),
    OpRow("triplet_margin_loss", _triplet, _TRIPLET, ops=("triplet_margin_loss",)),
    OpRow("triplet_margin_with_distance_loss", _triplet_distance, _TRIPLET_DISTANCE,
          ops=("triplet_margin_with_distance_loss",)),
    OpRow("triplet_margin_with_distance_loss_function", lambda lib, a, p, n, **options: (
        _triplet_distance(lib, a, p, n, distance_function=_cosine_distance(lib), **options)),
          _TRIPLET_DISTANCE[:3], ops=("triplet_margin_with_distance_loss",)),
    OpRow("hinge_embedding_loss", _quiet(_hinge), _HINGE, each(_away_from(0.5, 1.0)),
          smooth=False, ops=("hinge_embedding_loss",)),
    OpRow("soft_margin_loss", _quiet(_soft_margin), _SOFT_MARGIN,
          ops=("soft_margin_loss",)),
    OpRow("multilabel_soft_margin_loss", _quiet(_multilabel_soft), _MULTILABEL_SOFT,
          each(_real, _probability, _real), ops=("multilabel_soft_margin_loss",)),
    OpRow("multi_margin_loss", _quiet(_multi_margin), _MULTI_MARGIN, smooth=False,
          ops=("multi_margin_loss",)),
    OpRow("multi_margin_loss_p2", lambda lib, x, target, **options: _multi_margin(
        lib, x, target, p=2, **options), _MULTI_MARGIN[:9], ops=("multi_margin_loss",)),
    OpRow("multilabel_margin_loss", _quiet(lambda lib, x, target, **options: F(
        lib).multilabel_margin_loss(x, target, **options)), _MULTILABEL, smooth=False,
          ops=("multilabel_margin_loss",)),
)
