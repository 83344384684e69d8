"""Errors of the remaining nn.functional, normalisation, resampling and product ops, against
torch's (type and text): addbmm, addr, the native_* norms, local_response_norm, interpolate's
modes, linear_cross_entropy, scaled_dot_product_attention.

Values, gradients and graphs are checked by the rows of tests/op_db_nn_extra.py through
tests/test_ops.py.
"""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same, same_error


def F(lib):
    return lib.nn.functional


def LCE(lib):
    return lib.nn.functional.linear_cross_entropy


def R(lib, *shape, dtype="float32"):
    return lib.ones(*shape, dtype=getattr(lib, dtype))


def L(lib, *shape):
    return lib.ones(*shape, dtype=lib.int64)


ERRORS = {
    # addbmm
    "addbmm-batch1-2d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-batch2-2d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5), R(lib, 2, 5)),
    "addbmm-batch1-4d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5, 1),
                                               R(lib, 2, 5, 4)),
    "addbmm-batches": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 3, 3, 5), R(lib, 2, 6, 4)),
    "addbmm-inner": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5), R(lib, 2, 6, 4)),
    "addbmm-input-shape": lambda lib: lib.addbmm(R(lib, 3, 3), R(lib, 2, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-input-3d": lambda lib: lib.addbmm(R(lib, 3, 1, 4), R(lib, 2, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-input-dtype": lambda lib: lib.addbmm(R(lib, 3, 4, dtype="float64"), R(lib, 2, 3, 5),
                                                 R(lib, 2, 5, 4)),
    "addbmm-batch-dtype": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5),
                                                 R(lib, 2, 5, 4, dtype="float64")),
    "addbmm-bool": lambda lib: lib.addbmm(R(lib, 3, 4, dtype="bool"), R(lib, 2, 3, 5, dtype="bool"),
                                          R(lib, 2, 5, 4, dtype="bool")),
    "addbmm-number": lambda lib: lib.addbmm(R(lib, 3, 4), 3, R(lib, 2, 5, 4)),
    # addr
    "addr-vec1-2d": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3, 1), R(lib, 4)),
    "addr-vec2-2d": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3), R(lib, 4, 1)),
    "addr-input-shape": lambda lib: lib.addr(R(lib, 3, 5), R(lib, 3), R(lib, 4)),
    "addr-input-3d": lambda lib: lib.addr(R(lib, 2, 3, 4), R(lib, 3), R(lib, 4)),
    "addr-int-float-beta": lambda lib: lib.addr(L(lib, 3, 4), L(lib, 3), L(lib, 4), beta=0.5),
    "addr-int-float-alpha": lambda lib: lib.addr(L(lib, 3, 4), L(lib, 3), L(lib, 4), alpha=2.5),
    "addr-bool-beta": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3), R(lib, 4), beta=True),
    "addr-number": lambda lib: lib.addr(R(lib, 3, 4), 3, R(lib, 4)),
    # native_batch_norm (torch.native_batch_norm(input, weight, bias, running_mean,
    # running_var, training, momentum, eps))
    "native-batch-norm-one-running-stat": lambda lib: lib.native_batch_norm(
        R(lib, 2, 3), None, None, R(lib, 3), None, True, 0.1, 1e-5),
    "native-batch-norm-empty": lambda lib: lib.native_batch_norm(
        R(lib, 0, 3), None, None, None, None, True, 0.1, 1e-5),
    "native-batch-norm-1d": lambda lib: lib.native_batch_norm(
        R(lib, 3), None, None, None, None, True, 0.1, 1e-5),
    "native-batch-norm-int": lambda lib: lib.native_batch_norm(
        L(lib, 2, 3), None, None, None, None, True, 0.1, 1e-5),
    "native-batch-norm-float64-weight": lambda lib: lib.native_batch_norm(
        R(lib, 2, 3), R(lib, 3, dtype="float64"), None, None, None, True, 0.1, 1e-5),
    "native-batch-norm-float32-weight": lambda lib: lib.native_batch_norm(
        R(lib, 2, 3, dtype="float64"), R(lib, 3), None, None, None, True, 0.1, 1e-5),
    "native-batch-norm-float32-stats": lambda lib: lib.native_batch_norm(
        R(lib, 2, 3, dtype="float64"), None, None, R(lib, 3), R(lib, 3), True, 0.1, 1e-5),
    # batch_norm of 1-d and 0-d input
    "batch-norm-1d-training": lambda lib: lib.nn.functional.batch_norm(R(lib, 3), None, None,
                                                                       training=True),
    "batch-norm-1d-eval": lambda lib: lib.nn.functional.batch_norm(R(lib, 3), R(lib, 3),
                                                                   R(lib, 3)),
    "batch-norm-1d-eval-no-stats": lambda lib: lib.nn.functional.batch_norm(
        R(lib, 3), R(lib, 0), R(lib, 0)),
    "batch-norm-0d": lambda lib: lib.nn.functional.batch_norm(lib.tensor(1.0), None, None,
                                                               training=True),
    # native_layer_norm
    "native-layer-norm-int-shape": lambda lib: lib.native_layer_norm(R(lib, 2, 3), 3, None, None,
                                                                     1e-5),
    "native-layer-norm-shape": lambda lib: lib.native_layer_norm(R(lib, 2, 3), [2], None, None,
                                                                 1e-5),
    "native-layer-norm-empty-shape": lambda lib: lib.native_layer_norm(R(lib, 2, 3), [], None,
                                                                       None, 1e-5),
    "native-layer-norm-weight": lambda lib: lib.native_layer_norm(R(lib, 2, 3), [3], R(lib, 2),
                                                                  None, 1e-5),
    "native-layer-norm-int": lambda lib: lib.native_layer_norm(L(lib, 2, 3), [3], None, None,
                                                               1e-5),
    "native-layer-norm-float64-weight": lambda lib: lib.native_layer_norm(
        R(lib, 2, 3), [3], R(lib, 3, dtype="float64"), None, 1e-5),
    # native_group_norm (input, weight, bias, N, C, HxW, group, eps)
    "native-group-norm-groups": lambda lib: lib.native_group_norm(R(lib, 2, 6, 3), None, None, 2,
                                                                  6, 3, 4, 1e-5),
    "native-group-norm-no-groups": lambda lib: lib.native_group_norm(R(lib, 2, 6, 3), None,
                                                                     None, 2, 6, 3, 0, 1e-5),
    "native-group-norm-numel": lambda lib: lib.native_group_norm(R(lib, 2, 6, 3), None, None, 2,
                                                                 6, 4, 2, 1e-5),
    "native-group-norm-channels": lambda lib: lib.native_group_norm(R(lib, 2, 6, 3), None, None,
                                                                    2, 7, 3, 2, 1e-5),
    "native-group-norm-weight": lambda lib: lib.native_group_norm(R(lib, 2, 6, 3), R(lib, 5),
                                                                  None, 2, 6, 3, 2, 1e-5),
    "native-group-norm-int": lambda lib: lib.native_group_norm(L(lib, 2, 3), None, None, 2, 4, 3,
                                                               2, 1e-5),
    "native-group-norm-float64-weight": lambda lib: lib.native_group_norm(
        R(lib, 2, 6, 3), R(lib, 6, dtype="float64"), None, 2, 6, 3, 2, 1e-5),
    "native-group-norm-float32-weight": lambda lib: lib.native_group_norm(
        R(lib, 2, 6, 3, dtype="float64"), R(lib, 6), None, 2, 6, 3, 2, 1e-5),
    "native-group-norm-not-contiguous": lambda lib: lib.native_group_norm(
        R(lib, 4, 4, 3)[::2], None, None, 2, 4, 3, 2, 0.5),
    "native-group-norm-too-many-arguments": lambda lib: lib.native_group_norm(
        R(lib, 2, 6, 3), None, None, 2, 6, 3, 2, 1e-5, 3),
    # interpolate's 3-d modes and bicubic
    "interpolate-nearest-3d-int": lambda lib: F(lib).interpolate(L(lib, 1, 1, 2, 2, 2), size=3),
    "interpolate-nearest-exact-3d-int": lambda lib: F(lib).interpolate(
        L(lib, 1, 1, 2, 2, 2), size=3, mode="nearest-exact"),
    "interpolate-trilinear-int": lambda lib: F(lib).interpolate(L(lib, 1, 1, 2, 2, 2), size=3,
                                                                mode="trilinear"),
    "interpolate-bicubic-int": lambda lib: F(lib).interpolate(L(lib, 1, 1, 2, 2), size=3,
                                                              mode="bicubic"),
    "interpolate-area-3d-int": lambda lib: F(lib).interpolate(L(lib, 1, 1, 2, 2, 2), size=3,
                                                              mode="area"),
    "interpolate-area-3d-mean-int": lambda lib: F(lib).interpolate(L(lib, 1, 1, 2, 2, 2),
                                                                   size=1, mode="area"),
    "interpolate-area-3d-empty": lambda lib: F(lib).interpolate(R(lib, 1, 1, 0, 2, 2), size=2,
                                                                mode="area"),
    "interpolate-trilinear-to-0": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2, 2), size=0,
                                                                 mode="trilinear"),
    "interpolate-nearest-3d-from-0": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 0, 2),
                                                                    size=2),
    "interpolate-bicubic-to-0": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2), size=(0, 2),
                                                               mode="bicubic"),
    "interpolate-trilinear-4d": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2), size=3,
                                                               mode="trilinear"),
    "interpolate-bicubic-5d": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2, 2), size=3,
                                                             mode="bicubic"),
    "interpolate-6d": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2, 2, 2), size=3),
    "interpolate-3d-size": lambda lib: F(lib).interpolate(R(lib, 1, 1, 2, 2, 2), size=(3, 3)),
    "upsample-bilinear-3d": lambda lib: F(lib).upsample_bilinear(R(lib, 1, 1, 2), size=3),
    "upsample-nearest-no-size": lambda lib: F(lib).upsample_nearest(R(lib, 1, 1, 2)),
    # linear_cross_entropy
    "lce-input-3d": lambda lib: LCE(lib)(R(lib, 2, 2, 3), R(lib, 4, 3), L(lib, 2)),
    "lce-input-0d": lambda lib: LCE(lib)(lib.tensor(1.0), R(lib, 4, 3), L(lib, 2)),
    "lce-weight-1d": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 3), L(lib, 2)),
    "lce-in-features": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 2), L(lib, 2)),
    "lce-bias-shape": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3), L(lib, 2),
                                           linear_bias=R(lib, 3)),
    "lce-k-dim-unbatched": lambda lib: LCE(lib)(R(lib, 3), R(lib, 4, 2, 3), L(lib, 2)),
    "lce-probabilities-ignore-index": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3),
                                                           R(lib, 2, 4), ignore_index=1),
    "lce-reduction": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3), L(lib, 2),
                                          reduction="bad"),
    "lce-label-smoothing": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3), L(lib, 2),
                                                label_smoothing=1.5),
    "lce-target-batch": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3), L(lib, 3)),
    "lce-float-target": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3), R(lib, 2)),
    "lce-target-out-of-bounds": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3),
                                                     lib.full((2,), 7)),
    "lce-mixed-dtypes": lambda lib: LCE(lib)(R(lib, 2, 3), R(lib, 4, 3, dtype="float64"),
                                             L(lib, 2)),
    "lce-chunked-mixed-dtypes": lambda lib: LCE(lib)(
        R(lib, 2, 3, dtype="float64"), R(lib, 4, 3), L(lib, 2), reduction="none",
        options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=1)),
    "lce-chunked-target-out-of-bounds": lambda lib: LCE(lib)(
        R(lib, 2, 3), R(lib, 4, 3), lib.tensor([0, 7]),
        options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=1)),
    # scaled_dot_product_attention
    "sdpa-causal-with-mask-math": lambda lib: F(lib).scaled_dot_product_attention(
        R(lib, 3, 4), R(lib, 5, 4), R(lib, 5, 4), attn_mask=R(lib, 3, 5), is_causal=True),
    "sdpa-dtypes": lambda lib: F(lib).scaled_dot_product_attention(
        R(lib, 3, 4), R(lib, 5, 4, dtype="float64"), R(lib, 5, 4)),
    "sdpa-1d": lambda lib: F(lib).scaled_dot_product_attention(R(lib, 4), R(lib, 5, 4),
                                                               R(lib, 5, 4)),
    "sdpa-int-mask": lambda lib: F(lib).scaled_dot_product_attention(
        R(lib, 3, 4), R(lib, 5, 4), R(lib, 5, 4), attn_mask=L(lib, 3, 5)),
    "sdpa-fused-mask-shape": lambda lib: F(lib).scaled_dot_product_attention(
        R(lib, 1, 2, 3, 4), R(lib, 1, 2, 5, 4), R(lib, 1, 2, 5, 4), attn_mask=R(lib, 3, 4)),
    # LinearCrossEntropyOptions
    "lce-options-acc-policy": lambda lib: lib.nn.LinearCrossEntropyOptions(acc_policy="fast"),
    "lce-options-chunking": lambda lib: lib.nn.LinearCrossEntropyOptions(
        chunking_method="aspect_ratio:0"),
    "lce-options-chunk-size": lambda lib: lib.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    "lce-options-acc-dtype": lambda lib: lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.int64),
    # local_response_norm
    "local-response-norm-2d": lambda lib: lib.nn.functional.local_response_norm(R(lib, 2, 3), 2),
}


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in ERRORS.items()])
def test_error_matches_torch(fn):
    same_error(fn)


RESULTS = {
    # torch truncates addbmm's scales for integers; addr's booleans combine with and/or
    "addbmm-int-scales": lambda lib: lib.addbmm(L(lib, 3, 4), L(lib, 2, 3, 5), L(lib, 2, 5, 4),
                                                beta=0.5, alpha=1.5),
    "addr-int": lambda lib: lib.addr(L(lib, 3, 4), 2 * L(lib, 3), L(lib, 4), beta=2, alpha=3),
    "addr-bool": lambda lib: lib.addr(R(lib, 3, 4, dtype="bool"), R(lib, 3, dtype="bool"),
                                      lib.zeros(4, dtype=lib.bool), beta=False),
    "addr-mixed-dtypes": lambda lib: lib.addr(lib.ones((), dtype=lib.int32),
                                              R(lib, 3, dtype="float16"), L(lib, 4)),
}


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in RESULTS.items()])
def test_result_matches_torch(fn):
    torch = pytest.importorskip("torch")
    ours, theirs = fn(tapegrad), fn(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


def _statistics_cases(lib):
    x = lib.tensor([[[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[3.0, 1.0, -2.0], [0.0, 0.5, 1.0]]],
                   requires_grad=True)
    w = lib.tensor([0.5, 2.0], requires_grad=True)
    running_mean, running_var = lib.tensor([0.1, -0.2]), lib.tensor([1.5, 0.5])
    return {
        "layer": lib.native_layer_norm(x, [3], None, None, 1e-5),
        "batch-training": lib.native_batch_norm(x, w, None, running_mean, running_var, True,
                                                0.3, 1e-5),
        "batch-eval": lib.native_batch_norm(x, w, None, running_mean, running_var, False, 0.3,
                                            1e-5),
        "group": lib.native_group_norm(x, w, None, 2, 2, 3, 1, 1e-5),
        "running-stats": (running_mean, running_var),
        "running-stats-versions": (running_mean._version, running_var._version),
    }


def test_native_norm_statistics_match_torch():
    """The statistics, which of them require grad, and the running statistics' update."""
    torch = pytest.importorskip("torch")
    ours, theirs = _statistics_cases(tapegrad), _statistics_cases(torch)
    assert ours["running-stats-versions"] == theirs["running-stats-versions"]
    for name in ("layer", "batch-training", "batch-eval", "group", "running-stats"):
        for mine, their in zip(ours[name], theirs[name]):
            assert tuple(mine.shape) == tuple(their.shape), name
            assert mine.requires_grad == their.requires_grad, name
            np.testing.assert_allclose(mine.detach().numpy(), their.detach().numpy(),
                                       rtol=1e-6, atol=1e-6, err_msg=name)


def test_native_norms_record_torch_nodes():
    x = tapegrad.ones(2, 2, 3, requires_grad=True)
    results = (tapegrad.native_layer_norm(x, [3], None, None, 1e-5),
               tapegrad.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
               tapegrad.native_group_norm(x, None, None, 2, 2, 3, 1, 1e-5))
    assert [type(r[0].grad_fn).__name__ for r in results] == [
        "NativeLayerNormBackward0", "NativeBatchNormBackward0", "NativeGroupNormBackward0"]


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_warns_as_torch(name):
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(F(lib), name)(R(lib, 1, 1, 2, 2), size=3)
        assert [w.filename for w in caught] == [__file__]  # points at the caller
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1]


LCE_OPTIONS_CASES = {
    "chunked": {"reduction": "sum"},
    "chunked-none": {"reduction": "none"},
    "smoothing-falls-back": {"label_smoothing": 0.1},
    "k-dim-falls-back": {"k_dimensional": True},
}


@pytest.mark.parametrize("case", LCE_OPTIONS_CASES.values(), ids=LCE_OPTIONS_CASES.keys())
def test_linear_cross_entropy_options_match_torch(case):
    """torch's chunked path (options given) has the reference path's values; where it does
    not apply, both libraries warn that the options are ignored."""
    torch = pytest.importorskip("torch")
    options = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    case = dict(case)
    weight_shape = (4, 2, 3) if case.pop("k_dimensional", False) else (4, 3)
    target = [[0, 1]] * 5 if len(weight_shape) == 3 else [0, 3, 1, 2, 2]
    results = []
    for lib in (tapegrad, torch):
        x = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), requires_grad=True)
        w = lib.tensor(np.linspace(-2, 1, np.prod(weight_shape)).reshape(weight_shape),
                       requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = LCE(lib)(x, w, lib.tensor(target), options=options, **case)
        loss.sum().backward()
        results.append((loss.tolist(), x.grad.tolist(), w.grad.tolist(),
                        [str(w.message) for w in caught], [w.filename for w in caught]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)
    assert results[0][3] == results[1][3]
    assert results[0][4] == results[1][4] == [__file__] * len(results[1][4])


def test_scaled_dot_product_attention_records_torch_nodes():
    """torch's flash kernel where it would run it (4-d, one batch and head count, a constant
    mask), its math path elsewhere (dropout, broadcast batch, a mask that requires grad)."""
    torch = pytest.importorskip("torch")

    def nodes(lib, mask_requires_grad=False, query_shape=(2, 3, 4, 5), dropout_p=0.0):
        query = lib.ones(*query_shape, requires_grad=True)
        key = lib.ones(2, 3, 6, 5, requires_grad=True)
        mask = lib.zeros(4, 6, requires_grad=mask_requires_grad)
        result = F(lib).scaled_dot_product_attention(query, key, key, attn_mask=mask,
                                                     dropout_p=dropout_p)
        node, names = result.grad_fn, []
        while node is not None and len(names) < 8:
            names.append(type(node).__name__)
            node = next((n for n, _ in node.next_functions if n is not None), None)
        return names

    for options in ({}, {"mask_requires_grad": True}, {"query_shape": (3, 4, 5)},
                    {"dropout_p": 0.5}):
        assert nodes(tapegrad, **options) == nodes(torch, **options), options


@pytest.mark.parametrize("allow_retain_graph", [False, True])
def test_linear_cross_entropy_chunked_backward_twice_as_torch(allow_retain_graph):
    """torch's mean/sum chunked op hands its precomputed gradients over once, unless
    options.allow_retain_graph keeps them."""
    torch = pytest.importorskip("torch")
    options = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2,
                                                 allow_retain_graph=allow_retain_graph)
    outcomes = []
    for lib in (tapegrad, torch):
        x = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), requires_grad=True)
        w = lib.tensor(np.linspace(-2, 1, 12).reshape(4, 3))
        loss = LCE(lib)(x, w, lib.tensor([0, 3, 1, 2, 2]), options=options)
        loss.backward(retain_graph=True)
        try:
            loss.backward()
        except RuntimeError as error:
            outcomes.append((type(loss.grad_fn).__name__, str(error)))
        else:
            outcomes.append((type(loss.grad_fn).__name__, x.grad.tolist()))
    assert outcomes[0][0] == outcomes[1][0]
    if allow_retain_graph:
        np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], rtol=1e-12)
    else:
        assert outcomes[0][1] == outcomes[1][1]


def test_local_response_norm_layer_matches_torch():
    torch = pytest.importorskip("torch")
    outputs = []
    for lib in (tapegrad, torch):
        layer = lib.nn.LocalResponseNorm(3, alpha=0.5, k=2.0)
        x = lib.tensor(np.linspace(-2, 2, 40).reshape(2, 5, 4))
        outputs.append((repr(layer), layer(x).tolist()))
    assert outputs[0][0] == outputs[1][0]
    np.testing.assert_allclose(outputs[0][1], outputs[1][1], rtol=1e-12)


def test_linear_cross_entropy_options_repr_matches_torch():
    same(lambda lib: repr(lib.nn.LinearCrossEntropyOptions(batch_chunk_size=4,
                                                           allow_retain_graph=True)))
