"""op_db rows of tapegrad/ops/namespace.py: the torch-level losses, pools, embedding and
native_dropout (positional arguments, reduction as an int), the deprecated chain_matmul,
frobenius_norm and nuclear_norm, fill_diagonal_, and the non-differentiable names (predicates,
index helpers, settings) as parts of differentiable rows, so that torch compares them too."""
import warnings

import numpy as np

from op_db import DISTINCT, POSITIVE, REAL, OpRow, S, _away_from

_constants_rng = np.random.default_rng(20240617)


def _quiet(call):
    """call() without the deprecation warnings both libraries give."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _signs(shape):
    signs = _constants_rng.choice([-1.0, 1.0], shape)
    signs.flat[0], signs.flat[-1] = 1.0, -1.0
    return signs


# hinge_embedding_loss's hinge (margin 0.5) and margin_ranking_loss's (margin 0.1, x1 - x2
# within [-4, 4]) are avoided by values away from 0.5 and by the pairs' differences
def _apart_from_hinges(rng, shapes):
    first = _away_from(0.5, margin=0.15)(rng, shapes[0])
    second = first + rng.choice([-1.0, 1.0], shapes[1]) * rng.uniform(0.4, 1.0, shapes[1])
    return [first, second]


# ---- non-differentiable names inside differentiable rows -------------------------------------

def _predicates(lib, x):
    flags = (lib.is_complex(x) + lib.is_signed(x) + lib.is_same_size(x, x)
             + lib.is_inference(x) + lib.get_device(x) + lib.is_nonzero(x.reshape(-1)[:1] * 0 + 1)
             + lib.is_storage(x) + lib.can_cast(lib.int64, lib.float32) + len(lib.typename(x)))
    # detached values as bool outputs: finite differences would see them vary
    return x * flags, lib.detach(x) > 0, lib.detach_(x * 2) > 1


def _settings(lib, x):
    lib.set_num_threads(lib.get_num_threads())
    lib.set_warn_always(lib.is_warn_always_enabled())
    try:  # torch allows it once per process, and not after parallel work has started
        lib.set_num_interop_threads(lib.get_num_interop_threads())
    except RuntimeError:
        pass
    _quiet(lambda: lib.set_default_tensor_type(lib.FloatTensor))
    kept = lib.set_flush_denormal(False)
    return lib.compile(lib.sin, disable=True)(x) * kept + _quiet(lambda: lib.asarray(x))


def _indices(lib, x):
    """x is square: its triangles, three elements picked by flat index, x times a range."""
    rows = x.shape[0]
    lower = x[tuple(lib.tril_indices(rows, rows, -1))].sum()
    upper = x[tuple(lib.triu_indices(rows, rows, 1))].sum()
    picked = x[lib.unravel_index(lib.tensor([0, 5, rows * rows - 1]), x.shape)].sum()
    steps = _quiet(lambda: lib.range(1, rows))
    return x * steps + lower * upper + picked, lib.tril_indices(rows, rows)


# ---- differentiable ------------------------------------------------------------------------

def _smooth_losses(lib, x, y, **constants):
    """The smooth torch-level losses (margins keep the hinges on one side), reduction an int."""
    reduction, target, signs = constants["reduction"], constants["target"], constants["signs"]
    target, ones = target.to(x.dtype), signs[:, 0].abs().to(x.dtype)
    losses = (lib.kl_div(x, target, reduction),
              lib.kl_div(x, target.log(), reduction, log_target=True),
              lib.binary_cross_entropy_with_logits(x, target, None, None, reduction),
              lib.cosine_embedding_loss(x, y, ones, 0.0, reduction),
              lib.cosine_embedding_loss(x, y, -ones, -2.0, reduction),
              lib.poisson_nll_loss(x, target, True, False, 1e-8, reduction),
              lib.triplet_margin_loss(x, y, y.flip(0), 10.0, 2, 1e-6, False, reduction))
    return sum(loss.sum() * (i + 1) for i, loss in enumerate(losses))


def _hinged_losses(lib, x, y, **constants):
    """The piecewise-linear torch-level losses, on both sides of their hinges."""
    reduction, signs = constants["reduction"], constants["signs"].to(x.dtype)
    return (lib.hinge_embedding_loss(x, signs, 0.5, reduction).sum()
            + 2 * lib.margin_ranking_loss(x[:, 0], y[:, 0], signs[:, 0], 0.1, reduction).sum())


def _loss_sample(reduction):
    return S((3, 4), (3, 4), constants={"reduction": reduction,
                                        "target": _constants_rng.uniform(0.1, 0.9, (3, 4)),
                                        "signs": _signs((3, 4))}, label=f"reduction-{reduction}")


def _pools(lib, x, **constants):
    values, indices = lib.adaptive_max_pool1d(x, 3)
    pooled, where = lib.max_pool1d_with_indices(x, 2, (), 0, 1, True)
    strided, _ = lib.max_pool1d_with_indices(x, 3, 2, 1)
    return values.sum() + 2 * pooled.sum() + 3 * strided.sum(), indices, where


def _embedding(lib, weight, indices, padding_idx):
    return lib.embedding(weight, indices, padding_idx)


def _native_dropout(lib, x):
    kept, mask = lib.native_dropout(x, 0.3, False)
    unscaled, _ = lib.native_dropout(x, 0.0, True)
    dropped, none_kept = lib.native_dropout(x, 1.0, True)
    return kept + unscaled * 2 + dropped, mask, none_kept


def _fill_diagonal(lib, x, wrap):
    values = x * 1
    values.fill_diagonal_(0.5, wrap=wrap)
    return values * lib.fill_(x * 1, 2.0) * lib.fill_(x * 1, lib.tensor(3.0))


ROWS = (
    OpRow("namespace_predicates", _predicates, (S((3, 4)), S((2,)), S((1, 1, 2))),
          ops=("is_complex", "is_signed", "is_same_size", "is_inference", "get_device",
               "is_nonzero", "is_storage", "can_cast", "typename", "detach", "detach_")),
    OpRow("namespace_settings", _settings, (S((3, 4)), S(()),),
          ops=("get_num_threads", "set_num_threads", "get_num_interop_threads",
               "set_num_interop_threads", "set_warn_always", "is_warn_always_enabled",
               "set_default_tensor_type", "set_flush_denormal", "compile", "asarray")),
    OpRow("namespace_indices", _indices, (S((4, 4)), S((3, 3)), S((4, 4), layouts=("t",))),
          ops=("tril_indices", "triu_indices", "unravel_index", "range")),
    OpRow("torch_level_losses", _smooth_losses, tuple(_loss_sample(r) for r in (0, 1, 2, 5)),
          domain=POSITIVE, ops=("kl_div", "binary_cross_entropy_with_logits",
                                "cosine_embedding_loss", "poisson_nll_loss",
                                "triplet_margin_loss")),
    OpRow("torch_level_hinged_losses", _hinged_losses,
          tuple(_loss_sample(r) for r in (0, 1, 2)), domain=_apart_from_hinges, smooth=False,
          ops=("hinge_embedding_loss", "margin_ranking_loss")),
    OpRow("torch_level_pools", _pools, (S((2, 7)), S((1, 3, 8))), domain=DISTINCT,
          smooth=False, ops=("adaptive_max_pool1d", "max_pool1d_with_indices")),
    OpRow("torch_level_embedding", _embedding, (
        S((5, 3), constants={"indices": np.array([[0, 4], [4, 2]]), "padding_idx": -1},
          label="no-padding"),
        S((5, 3), constants={"indices": np.array([1, 0, 1, 3]), "padding_idx": -1},
          label="repeated")), smooth=False, ops=("embedding",)),
    OpRow("native_dropout", _native_dropout, (S((3, 4)), S(())), ops=("native_dropout",)),
    OpRow("chain_matmul", lambda lib, *matrices: _quiet(lambda: lib.chain_matmul(*matrices)), (
        S((2, 3)), S((2, 3), (3, 4)), S((2, 3), (3, 4), (4, 1)), S((5, 1), (1, 5), (5, 2)),
        S((3, 4), (4, 2), (2, 5), (5, 1)), S((3, 2), (2, 3), layouts=("t", None))),
        ops=("chain_matmul",)),
    OpRow("frobenius_norm", lambda lib, x, dim, keepdim: _quiet(
        lambda: lib.frobenius_norm(x, dim, keepdim)), (
        S((3, 4), constants={"dim": (0, 1), "keepdim": False}),
        S((2, 3, 4), constants={"dim": 1, "keepdim": True}, label="dim1-keepdim"),
        S((2, 3, 4), constants={"dim": (-1, 0), "keepdim": False}, label="two-dims"),
        S((3, 4), constants={"dim": (), "keepdim": False}, label="all")),
        ops=("frobenius_norm",)),
    OpRow("nuclear_norm", lambda lib, x: _quiet(lambda: (
        lib.nuclear_norm(x).sum() * lib.nuclear_norm(x, True) + lib.nuclear_norm(x, (0, -1)))),
        (S((3, 4)), S((2, 3, 3))), domain=REAL, ops=("nuclear_norm",)),
    OpRow("fill_diagonal_", _fill_diagonal, (
        S((3, 4), constants={"wrap": False}), S((7, 2), constants={"wrap": True}, label="wrap"),
        S((7, 2), constants={"wrap": False}, label="tall"),
        S((2, 2, 2), constants={"wrap": False}, label="cube"),
        S((4, 3), constants={"wrap": False}, layouts=("t",), label="t")), ops=("fill_",)),
)
