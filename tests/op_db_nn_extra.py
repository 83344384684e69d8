"""op_db rows of the remaining nn.functional, normalisation, resampling and product ops:
addbmm and addr (tapegrad/ops/linalg.py), the native_* norms, local_response_norm, the
interpolation modes beyond bilinear, linear_cross_entropy and the linalg decompositions on
empty batches."""
import warnings

import numpy as np

from op_db import STEP, OpRow, S, bug

_rng = np.random.default_rng(20261201)


def _running(channels):
    """Running mean and (positive) running variance, fresh tensors in each run."""
    return {"running_mean": _rng.uniform(-1.0, 1.0, channels),
            "running_var": _rng.uniform(0.5, 2.0, channels)}


def _native_batch_norm(lib, x, w, b, running_mean=None, running_var=None, training=True,
                       momentum=0.1, eps=1e-5):
    # the statistics outputs are not differentiable: checked against torch in test_nn_extra
    stats = [None if s is None else s.to(x.dtype) for s in (running_mean, running_var)]
    return lib.native_batch_norm(x, w, b, *stats, training, momentum, eps)[0]


def _linear_cross_entropy(lib, x, w, *bias, target, weight=None, **options):
    """Class-index targets; the class weights (a constant) in x's dtype."""
    if weight is not None:
        options["weight"] = weight.to(x.dtype)
    if bias:
        options["linear_bias"] = bias[0]
    return lib.nn.functional.linear_cross_entropy(x, w, target, **options)


_ATTENTION_MASK = _rng.random((4, 6)) < 0.7
_DEAD_ROW_MASK = np.ones((4, 6), bool)
_DEAD_ROW_MASK[1] = False


_CLASS_WEIGHTS = np.array([1.0, 0.5, 2.0, 1.5])


# the mean/sum op hands its precomputed gradients over once; forward AD's replay takes them
_NO_FORWARD_AD = bug("torch's chunked mean/sum op has no forward-mode derivative; tapegrad's "
                     "replay of it finds no gradients to hand over", ("forward_ad",))


def _chunked_linear_cross_entropy(lib, x, w, *bias, target, weight=None, chunk=2, **options):
    options["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk)
    return _linear_cross_entropy(lib, x, w, *bias, target=target, weight=weight, **options)


def _quiet(function, *args, **kwargs):
    """A deprecated function without its warning (test_nn_extra compares the warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return function(*args, **kwargs)


# torch's gradient through them is right when the result gets a gradient too (torch_op_db.py
# checks that), but dropped when only they get one
_STATISTICS_ONLY = bug("torch drops the gradient of native_group_norm's mean and rstd when its "
                       "result gets none (its backward returns None); tapegrad's is their "
                       "derivative", ("torch",))

ROWS = (
    OpRow("addbmm", lambda lib, i, a, b, **scales: lib.addbmm(i, a, b, **scales), (
        S((2, 4), (3, 2, 5), (3, 5, 4)),
        S((4,), (3, 2, 5), (3, 5, 4), constants={"beta": 0.5, "alpha": -2},
          label="broadcast-scaled"),
        S((), (2, 2, 3), (2, 3, 2), constants={"beta": 0}, label="0d-beta0"),
        S((2, 2), (0, 2, 3), (0, 3, 2), label="empty-batch"),
    ), ops=("addbmm",)),
    OpRow("addbmm_method", lambda lib, i, a, b: i.addbmm(a, b, alpha=3),
          (S((2, 2), (2, 2, 3), (2, 3, 2)),), ops=("addbmm",)),
    OpRow("addr", lambda lib, i, a, b, **scales: lib.addr(i, a, b, **scales), (
        S((3, 4), (3,), (4,)),
        S((4,), (3,), (4,), constants={"beta": 2, "alpha": 0.5}, label="broadcast-scaled"),
        S((), (3,), (4,), constants={"beta": 0}, label="0d-beta0"),
        S((3, 4), (3,), (4,), layouts=("t", None, None), requires_grad=(True, False, True),
          label="t-vec2-only"),
    ), ops=("addr",)),
    OpRow("native_layer_norm", lambda lib, x, w, b, shape: lib.native_layer_norm(
        x, shape, w, b, 1e-5)[0], (
        S((2, 3, 4), (4,), (4,), constants={"shape": (4,)}),
        S((2, 3, 4), (3, 4), (3, 4), constants={"shape": [3, 4]}, label="two-dims"),
        STEP((2, 3), (3,), (3,), constants={"shape": (3,)}),
    ), ops=("native_layer_norm",)),
    OpRow("native_batch_norm", _native_batch_norm, (
        S((4, 3, 2), (3,), (3,)),
        S((3, 2, 4), (2,), (2,), constants=dict(momentum=0.3, **_running(2)),
          label="running-stats"),
        S((3, 2, 4), (2,), (2,), constants=dict(training=False, **_running(2)), label="eval"),
        S((4, 3), (3,), (3,), requires_grad=(True, False, True), label="2d-no-weight-grad"),
    ), ops=("native_batch_norm",)),
    OpRow("native_group_norm", lambda lib, x, w, b, shape: lib.native_group_norm(
        x, w, b, *shape, 1e-5)[0], (
        S((2, 4, 3), (4,), (4,), constants={"shape": (2, 4, 3, 2)}),
        S((2, 6, 2, 2), (6,), (6,), constants={"shape": (2, 6, 4, 3)}, label="4d"),
        S((6,), (6,), (6,), constants={"shape": (1, 6, 1, 3)}, label="1d-as-1x6x1"),
        S((0, 4), (4,), (4,), constants={"shape": (0, 4, 1, 2)}, label="empty-batch"),
    ), ops=("native_group_norm",)),
    # the mean and 1/std outputs are differentiable too
    OpRow("native_group_norm_mean", lambda lib, x, w: lib.native_group_norm(
        x, w, None, 2, 4, 3, 2, 0.5)[1], (S((2, 4, 3), (4,)),), ops=("native_group_norm",),
          bugs=_STATISTICS_ONLY),
    OpRow("native_group_norm_rstd", lambda lib, x: lib.native_group_norm(
        x, None, None, 2, 4, 3, 2, 0.5)[2], (S((2, 4, 3)),),
          ops=("native_group_norm",), bugs=_STATISTICS_ONLY),
    OpRow("local_response_norm", lambda lib, x, **options: lib.nn.functional.local_response_norm(
        x, **options), (
        S((2, 5, 3), constants={"size": 3}),
        S((2, 4, 3, 2), constants={"size": 2, "alpha": 0.5, "beta": 0.6, "k": 1.5},
          label="4d"),
        S((1, 3, 2, 2, 2), constants={"size": 4, "alpha": 0.3}, label="5d"),
        S((0, 3, 2), constants={"size": 2}, label="empty"),
    ), ops=("local_response_norm",)),
    OpRow("interpolate_more_modes", lambda lib, x, **options: lib.nn.functional.interpolate(
        x, **options), (
        S((1, 2, 4, 3), constants={"size": (6, 5), "mode": "bicubic"}, label="bicubic"),
        S((1, 2, 4, 5), constants={"scale_factor": 0.6, "mode": "bicubic",
                                   "align_corners": True}, label="bicubic-align-corners"),
        S((1, 1, 5, 3), constants={"scale_factor": (1.1, 1.7), "mode": "bicubic"},
          label="bicubic-same-size"),
        S((1, 2, 3, 2, 4), constants={"size": (4, 3, 3), "mode": "trilinear"},
          label="trilinear"),
        S((1, 1, 3, 4, 2), constants={"scale_factor": 1.7, "mode": "trilinear",
                                      "align_corners": True}, label="trilinear-align-corners"),
        S((2, 1, 3, 2, 4), constants={"size": (5, 4, 3)}, label="nearest-3d"),
        S((1, 2, 5, 2, 2), constants={"scale_factor": (1.1, 2.1, 1.0)},
          label="nearest-3d-no-shortcuts",
          bugs=bug("torch's 3-d nearest backward copies where out == in and halves where out "
                   "== 2 * in, its forward does not: torch's gradient is not its forward's, "
                   "tapegrad's is", ("torch",))),
        S((1, 2, 3, 4, 2), constants={"size": (4, 2, 3), "mode": "nearest-exact"},
          label="nearest-exact-3d"),
        S((1, 2, 5, 4, 3), constants={"size": (3, 3, 2), "mode": "area"}, label="area-3d"),
        S((1, 2, 3, 2, 2), constants={"size": (1, 1, 1), "mode": "area"}, label="area-3d-mean"),
        STEP((2, 2, 3, 3), constants={"size": (4, 2), "mode": "bicubic"}),
    ), ops=("interpolate",)),
    OpRow("upsample", lambda lib, x, name, **options: _quiet(getattr(lib.nn.functional, name), x,
                                                            **options), (
        S((1, 2, 3, 4), constants={"name": "upsample_bilinear", "size": (5, 3)},
          label="bilinear"),
        S((1, 2, 3), constants={"name": "upsample_nearest", "scale_factor": 2}, label="nearest"),
        S((1, 2, 3, 3), constants={"name": "upsample", "scale_factor": 1.5, "mode": "bicubic"},
          label="upsample"),
    ), ops=("upsample", "upsample_bilinear", "upsample_nearest")),
    # an empty batch of matrices: torch's matmul reshapes it to (0, n, m), never to (-1, n, m)
    OpRow("matmul_empty_batch", lambda lib, a, b: a @ b, (
        S((0, 2, 3), (0, 3, 2)), S((0, 0, 0), (0, 0, 1)), S((2, 0, 2, 3), (3, 4))),
          ops=("matmul",)),
    OpRow("decompositions_empty_batch", lambda lib, a: lib.linalg.inv(a) + lib.linalg.qr(a).Q
          + lib.linalg.svd(a)[1].sum() + lib.linalg.solve(a, a), (S((0, 0, 0)), S((0, 2, 2))),
          ops=("inv", "qr", "svd", "solve")),
    OpRow("linear_cross_entropy", _linear_cross_entropy, (
        S((4, 3), (5, 3), constants={"target": np.array([0, 4, 2, 2])}),
        S((3,), (5, 3), (5,), constants={"target": np.array(3), "reduction": "sum"},
          label="unbatched-bias"),
        S((4, 3), (2, 3, 3), (2, 3), constants={"target": np.array([[0, 1, 1]] * 4),
                                                 "reduction": "none"}, label="k-dimensional"),
        S((4, 3), (5, 3), constants={"target": np.array([0, 4, 1, 2]), "ignore_index": 1,
                                     "weight": np.array([1.0, 0.5, 2.0, 1.5, 0.25]),
                                     "label_smoothing": 0.2}, label="weight-ignore-smoothing"),
    ), ops=("linear_cross_entropy",)),
    # torch's chunked path: gradients from its own kernels, not differentiable again (so not
    # smooth: no second-order checks)
    OpRow("linear_cross_entropy_chunked", _chunked_linear_cross_entropy, (
        S((5, 3), (4, 3), constants={"target": np.array([0, 3, 1, 2, 2])},
          bugs=_NO_FORWARD_AD),
        S((5, 3), (4, 3), (4,), constants={"target": np.array([0, 3, -100, 2, 2]),
                                           "reduction": "sum", "chunk": 3},
          label="bias-ignored-row", bugs=_NO_FORWARD_AD),
        S((3,), (4, 3), constants={"target": np.array(2), "weight": _CLASS_WEIGHTS},
          label="unbatched-weight", bugs=_NO_FORWARD_AD),
        S((5, 3), (4, 3), (4,), constants={"target": np.array([0, 3, 1, 2, 2]),
                                           "weight": _CLASS_WEIGHTS},
          label="bias-weight", bugs=_NO_FORWARD_AD),
        S((5, 3), (4, 3), constants={"target": np.array([0, 3, 1, 2, 2]), "reduction": "none"},
          label="none"),
        S((5, 3), (4, 3), (4,), constants={"target": np.array([0, 3, 1, 2, 2]),
                                           "reduction": "none", "weight": _CLASS_WEIGHTS},
          label="none-bias-weight"),
        S((5, 3), (4, 3), (4,), constants={"target": np.array([0, 3, 1, 2, 2]),
                                           "reduction": "none", "chunk": 4}, label="none-bias"),
        S((2,), (4, 2), constants={"target": np.array(1), "reduction": "none",
                                   "weight": _CLASS_WEIGHTS}, label="none-unbatched-weight"),
    ), ops=("linear_cross_entropy",), smooth=False),
    OpRow("linear_cross_entropy_probabilities", lambda lib, x, w, target, **options:
          lib.nn.functional.linear_cross_entropy(x, w, target, **options), (
        S((4, 3), (5, 3), (4, 5)),
        S((3,), (5, 3), (5,), constants={"reduction": "none", "label_smoothing": 0.1},
          label="unbatched-smoothing"),
        S((4, 2), (3, 2, 2), (4, 3, 2), requires_grad=(True, True, False),
          label="k-dimensional"),
    ), ops=("linear_cross_entropy",)),
    # torch's fused CPU kernel for 4-d inputs of one batch and head count, its math path else
    OpRow("scaled_dot_product_attention", lambda lib, q, k, v, mask=None, **options:
          lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **options), (
        S((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), label="fused"),
        S((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), constants={"is_causal": True,
                                                              "mask": _ATTENTION_MASK},
          label="fused-causal-bool-mask"),
        S((1, 2, 4, 3), (1, 2, 6, 3), (1, 2, 6, 3), constants={"mask": _DEAD_ROW_MASK},
          label="fused-dead-row"),
        S((1, 2, 4, 3), (1, 2, 6, 3), (1, 2, 6, 3), constants={"scale": -0.7},
          label="fused-negative-scale"),
        S((3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 2), label="math-broadcast"),
        S((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 2), constants={"is_causal": True},
          label="math-causal"),
        S((1, 2, 4, 3), (1, 2, 6, 3), (1, 2, 6, 2), constants={"mask": _DEAD_ROW_MASK,
                                                              "scale": -0.7},
          label="math-dead-row-negative-scale"),
        S((1, 4, 4, 3), (1, 2, 6, 3), (1, 2, 6, 3), constants={"enable_gqa": True},
          label="math-gqa"),
    ), ops=("scaled_dot_product_attention",)),
    OpRow("scaled_dot_product_attention_mask_grad", lambda lib, q, k, v, mask:
          lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask), (
        S((1, 2, 4, 3), (1, 2, 6, 3), (1, 2, 6, 3), (4, 6), label="math-float-mask"),),
          ops=("scaled_dot_product_attention",)),
    OpRow("addr_method", lambda lib, i, a, b: i.addr(a, b), (S((2, 3), (2,), (3,)),),
          ops=("addr",)),
)
