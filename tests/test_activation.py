"""nn functions beyond op_db: error texts, integer inputs, in-place behaviour, the random masks
of dropout and slopes of rrelu, and embedding's max_norm, each compared with torch where torch
is importable."""
import importlib
import inspect
import warnings

import numpy as np
import pytest

import tapegrad
import tapegrad.nn.functional as F
from tapegrad.ops import activation

# the module, not torch.dropout, which tapegrad.ops also exports under that name
dropout = importlib.import_module("tapegrad.ops.dropout")
from tapegrad.ops._define import Op
from test_ops import assert_raises_like_torch


def _torch():
    return pytest.importorskip("torch")


def _f(lib):
    return lib.nn.functional


def R(lib, *shape, dtype="float64", requires_grad=False):
    """Fixed pseudo-random values (the same in both libraries)."""
    values = np.random.default_rng(sum(shape) + len(shape)).uniform(-2.0, 2.0, shape)
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def I(lib, values, dtype="int64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


# ---- errors --------------------------------------------------------------------------------

def _inplace_backward(name, *args):
    def scenario(lib):
        x = R(lib, 3, requires_grad=True)
        getattr(_f(lib), name)(x * 1, *args, inplace=True).sum().backward()
    return scenario


ERRORS = {
    "gelu-approximate": lambda lib: _f(lib).gelu(R(lib, 3), approximate="foo"),
    "glu-odd": lambda lib: _f(lib).glu(R(lib, 3, 3), 1),
    "glu-0d": lambda lib: _f(lib).glu(R(lib)),
    "glu-dim": lambda lib: _f(lib).glu(R(lib, 3, 4), 2),
    "hardtanh-bounds": lambda lib: _f(lib).hardtanh(R(lib, 3), 1.0, -1.0),
    "celu-alpha-0": lambda lib: _f(lib).celu(R(lib, 3), alpha=0.0),
    "softshrink-negative": lambda lib: _f(lib).softshrink(R(lib, 3), -0.5),
    "softshrink-negative-float32": lambda lib: _f(lib).softshrink(R(lib, 3, dtype="float32"),
                                                                  -0.25),
    "dropout-p-above": lambda lib: _f(lib).dropout(R(lib, 3), 1.1),
    "dropout-p-below": lambda lib: _f(lib).dropout(R(lib, 3), -0.1),
    "dropout-p-int": lambda lib: _f(lib).dropout(R(lib, 3), p=2),
    "dropout-int": lambda lib: _f(lib).dropout(I(lib, [1, -2]), 0.5),
    "inplace-on-leaf": lambda lib: _f(lib).threshold(R(lib, 3, requires_grad=True), 0.1, 2.0,
                                                     inplace=True),
    "elu-inplace-negative-alpha": _inplace_backward("elu", -0.5),
    "celu-inplace-negative-alpha": _inplace_backward("celu", -0.5),
    "leaky-relu-inplace-negative-slope": _inplace_backward("leaky_relu", -0.5),
    "linear-0d": lambda lib: _f(lib).linear(R(lib), R(lib, 3, 4)),
    "linear-shapes": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 3), R(lib, 5)),
    "linear-shapes-no-bias": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 3)),
    "linear-shapes-3d": lambda lib: _f(lib).linear(R(lib, 2, 3, 4), R(lib, 5, 3), R(lib, 5)),
    "linear-bias": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 4), R(lib, 4)),
    "linear-bias-3d": lambda lib: _f(lib).linear(R(lib, 2, 3, 4), R(lib, 5, 4), R(lib, 4)),
    "linear-dtypes": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 4, dtype="float32"),
                                                R(lib, 5)),
    "linear-bias-dtype": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 4),
                                                    R(lib, 5, dtype="float32")),
    "linear-input-dtype": lambda lib: _f(lib).linear(R(lib, 3, 4, dtype="float32"),
                                                     R(lib, 5, 4), R(lib, 5)),
    "linear-dtypes-no-bias": lambda lib: _f(lib).linear(R(lib, 3, 4),
                                                        R(lib, 5, 4, dtype="float32")),
    "linear-3d-weight": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 5, 4, 2)),
    "linear-1d-weight-with-bias": lambda lib: _f(lib).linear(R(lib, 3, 4), R(lib, 4), R(lib)),
    "bilinear-ndim": lambda lib: _f(lib).bilinear(R(lib, 3, 4), R(lib, 3, 2, 1),
                                                  R(lib, 5, 4, 2)),
    "bilinear-batch": lambda lib: _f(lib).bilinear(R(lib, 3, 4), R(lib, 2, 2), R(lib, 5, 4, 2)),
    "bilinear-input1": lambda lib: _f(lib).bilinear(R(lib, 3, 3), R(lib, 3, 2), R(lib, 5, 4, 2)),
    "bilinear-input2": lambda lib: _f(lib).bilinear(R(lib, 3, 4), R(lib, 3, 3), R(lib, 5, 4, 2)),
    "bilinear-bias": lambda lib: _f(lib).bilinear(R(lib, 3, 4), R(lib, 3, 2), R(lib, 5, 4, 2),
                                                  R(lib, 4)),
    "bilinear-0d": lambda lib: _f(lib).bilinear(R(lib), R(lib), R(lib, 5, 4, 2)),
    "embedding-float-indices": lambda lib: _f(lib).embedding(lib.tensor([0.0]), R(lib, 3, 4)),
    "embedding-double-indices": lambda lib: _f(lib).embedding(
        lib.tensor([0.0], dtype=lib.float64), R(lib, 3, 4)),
    "embedding-index-too-large": lambda lib: _f(lib).embedding(I(lib, [3]), R(lib, 3, 4)),
    "embedding-index-negative": lambda lib: _f(lib).embedding(I(lib, [-1]), R(lib, 3, 4)),
    "embedding-padding-too-large": lambda lib: _f(lib).embedding(I(lib, [1]), R(lib, 3, 4),
                                                                 padding_idx=3),
    "embedding-padding-too-negative": lambda lib: _f(lib).embedding(I(lib, [1]), R(lib, 3, 4),
                                                                    padding_idx=-4),
    "embedding-1d-weight": lambda lib: _f(lib).embedding(I(lib, [1]), R(lib, 3)),
    "one_hot-float": lambda lib: _f(lib).one_hot(lib.tensor([1.0])),
    "one_hot-int32": lambda lib: _f(lib).one_hot(I(lib, [1], "int32")),
    "one_hot-negative": lambda lib: _f(lib).one_hot(I(lib, [-1])),
    "one_hot-too-large": lambda lib: _f(lib).one_hot(I(lib, [3]), 3),
    "one_hot-empty": lambda lib: _f(lib).one_hot(I(lib, [])),
    "one_hot-classes-negative": lambda lib: _f(lib).one_hot(I(lib, [1]), -2),
    "pad-odd": lambda lib: _f(lib).pad(R(lib, 2, 3), (1,)),
    "pad-too-long": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 1, 1, 1, 1, 1)),
    "pad-mode": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 1), mode="foo"),
    "pad-float-size": lambda lib: _f(lib).pad(R(lib, 2, 3), [1, 1.0]),
    "pad-float-first": lambda lib: _f(lib).pad(R(lib, 2, 3), (1.0, 1)),
    "pad-bool-first": lambda lib: _f(lib).pad(R(lib, 2, 3), [True, 1]),
    "pad-float-third": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 2, 3.0, 4)),
    "pad-value-with-reflect": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 1), "reflect", 1.0),
    "pad-crop-too-much": lambda lib: _f(lib).pad(R(lib, 2, 3), (-2, -2)),
    "pad-crop-past-start": lambda lib: _f(lib).pad(R(lib, 2, 3), (-4, 2)),
    "pad-crop-past-end": lambda lib: _f(lib).pad(R(lib, 2, 3), (2, -4)),
    "pad-crop-second-dim": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 0, -3, 0)),
    "reflect-1d-input": lambda lib: _f(lib).pad(R(lib, 3), (1, 1), mode="reflect"),
    "reflect-4d-input-1-dim": lambda lib: _f(lib).pad(R(lib, 1, 1, 3, 3), (1, 1), "reflect"),
    "reflect-2d-input-2-dims": lambda lib: _f(lib).pad(R(lib, 3, 3), (1, 1, 1, 1), "reflect"),
    "reflect-3d-input-3-dims": lambda lib: _f(lib).pad(R(lib, 3, 3, 3), (1,) * 6, "reflect"),
    "replicate-1d-input": lambda lib: _f(lib).pad(R(lib, 3), (1, 1), mode="replicate"),
    "circular-1d-input": lambda lib: _f(lib).pad(R(lib, 3), (1, 1), mode="circular"),
    "reflect-too-wide": lambda lib: _f(lib).pad(R(lib, 2, 3), (3, 1), mode="reflect"),
    "reflect-too-wide-right": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 3), mode="reflect"),
    "reflect-width-1": lambda lib: _f(lib).pad(R(lib, 1, 1), (1, 0), mode="reflect"),
    "reflect-2d-too-high": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (1, 1, 3, 1), "reflect"),
    "reflect-2d-too-wide": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (3, 1, 1, 1), "reflect"),
    "reflect-3d-too-deep": lambda lib: _f(lib).pad(R(lib, 1, 3, 3, 3), (1, 1, 1, 1, 3, 1),
                                                   "reflect"),
    "reflect-empty": lambda lib: _f(lib).pad(R(lib, 2, 0), (1, 1), mode="reflect"),
    "replicate-empty-channels": lambda lib: _f(lib).pad(R(lib, 0, 3), (1, 1), "replicate"),
    "reflect-2d-empty": lambda lib: _f(lib).pad(R(lib, 1, 0, 3), (1, 1, 1, 1), "reflect"),
    "replicate-3d-empty": lambda lib: _f(lib).pad(R(lib, 1, 3, 0, 3), (1,) * 6, "replicate"),
    "reflect-1d-too-small": lambda lib: _f(lib).pad(R(lib, 2, 3), (-2, -1), mode="reflect"),
    "replicate-1d-too-small": lambda lib: _f(lib).pad(R(lib, 2, 3), (-3, -1), "replicate"),
    "reflect-2d-too-small": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (-2, -1, -2, -1),
                                                    "reflect"),
    "replicate-2d-too-small": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (-2, -1, -2, -1),
                                                      "replicate"),
    "reflect-3d-too-small": lambda lib: _f(lib).pad(R(lib, 1, 3, 3, 3), (-2, -1) * 3,
                                                    "reflect"),
    "replicate-3d-too-small": lambda lib: _f(lib).pad(R(lib, 1, 3, 3, 3), (-2, -1) * 3,
                                                      "replicate"),
    "normalize-int": lambda lib: _f(lib).normalize(I(lib, [[1, 2]])),
    "normalize-dim": lambda lib: _f(lib).normalize(R(lib, 4)),
    "cosine_similarity-shapes": lambda lib: _f(lib).cosine_similarity(R(lib, 3, 4),
                                                                      R(lib, 2, 4)),
    "cosine_similarity-int": lambda lib: _f(lib).cosine_similarity(I(lib, [[1, 2]]),
                                                                   I(lib, [[1, 2]])),
    "cosine_similarity-dim": lambda lib: _f(lib).cosine_similarity(R(lib, 4), R(lib, 4)),
    "pairwise_distance-shapes": lambda lib: _f(lib).pairwise_distance(R(lib, 3, 4),
                                                                      R(lib, 2, 4)),
}
ERRORS.update({
    f"{name}-int": (lambda name: lambda lib: getattr(_f(lib), name)(I(lib, [1, -2])))(name)
    for name in ("gelu elu selu celu silu mish leaky_relu softplus logsigmoid hardsigmoid "
                 "hardswish glu hardshrink softshrink rrelu rrelu_").split()})
ERRORS.update({
    "prelu-dtypes": lambda lib: _f(lib).prelu(R(lib, 2, 3), R(lib, 3, dtype="float32")),
    "prelu-channels": lambda lib: _f(lib).prelu(R(lib, 2, 3), R(lib, 4)),
    "prelu-1d-channels": lambda lib: _f(lib).prelu(R(lib, 4), R(lib, 4)),
    "prelu-0d-input": lambda lib: _f(lib).prelu(R(lib), R(lib, 3)),
    "prelu-2d-weight": lambda lib: _f(lib).prelu(R(lib, 2, 3), R(lib, 1, 1)),
    "prelu-int": lambda lib: _f(lib).prelu(I(lib, [1, -2]), I(lib, [1])),
    "prelu-number-weight": lambda lib: _f(lib).prelu(R(lib, 2, 3), 0.25),
    "prelu-number-input": lambda lib: lib.prelu(0.5, R(lib, 1)),
    "rrelu-bounds": lambda lib: _f(lib).rrelu(R(lib, 3), 0.5, 0.1),
    "rrelu-bounds-training": lambda lib: _f(lib).rrelu(R(lib, 3), 0.5, 0.1, True),
    "rrelu-int-training": lambda lib: _f(lib).rrelu(I(lib, [1, -2]), training=True),
    "rrelu-inplace-on-leaf": lambda lib: _f(lib).rrelu_(R(lib, 3, requires_grad=True)),
    "rrelu-inplace-negative-slope": lambda lib: _f(lib).rrelu_(
        R(lib, 3, requires_grad=True) * 1, -0.5, -0.1).sum().backward(),
    "circular-too-wide": lambda lib: _f(lib).pad(R(lib, 1, 4), (5, 0), mode="circular"),
    "circular-too-wide-right": lambda lib: _f(lib).pad(R(lib, 1, 4), (0, 5), "circular"),
    "circular-crop-past-empty": lambda lib: _f(lib).pad(R(lib, 1, 4), (-3, -2), "circular"),
    "circular-2d-too-high": lambda lib: _f(lib).pad(R(lib, 1, 2, 4), (1, 1, 3, 0), "circular"),
    "circular-value": lambda lib: _f(lib).pad(R(lib, 1, 4), (1, 2), "circular", 1.0),
    "circular-4d-input-1-dim": lambda lib: _f(lib).pad(R(lib, 1, 1, 2, 4), (1, 1), "circular"),
    "circular-empty-dim": lambda lib: _f(lib).pad(R(lib, 2, 0), (1, 0), mode="circular"),
})
for _name, _dims in (("dropout1d", (3, 4)), ("dropout2d", (2, 3, 4, 5)),
                     ("dropout3d", (1, 2, 3, 4, 5)), ("alpha_dropout", (3,)),
                     ("feature_alpha_dropout", (2, 3))):
    ERRORS.update({
        f"{_name}-p": (lambda name: lambda lib: getattr(_f(lib), name)(R(lib, 3, 4), 1.5))(_name),
        f"{_name}-int": (lambda name, dims: lambda lib: getattr(_f(lib), name)(
            lib.ones(dims, dtype=lib.int64), 0.5, True))(_name, _dims),
    })
ERRORS.update({
    "dropout1d-1d": lambda lib: _f(lib).dropout1d(R(lib, 3)),
    "dropout1d-4d": lambda lib: _f(lib).dropout1d(R(lib, 1, 2, 3, 4)),
    "dropout1d-0d": lambda lib: _f(lib).dropout1d(R(lib)),
    "dropout2d-1d": lambda lib: _quiet(_f(lib).dropout2d)(R(lib, 3), 0.5),
    "dropout3d-0d": lambda lib: _quiet(_f(lib).dropout3d)(R(lib), 0.5),
    "feature_alpha_dropout-1d": lambda lib: _f(lib).feature_alpha_dropout(R(lib, 3), 0.5, True),
    "dropout-bool": lambda lib: _f(lib).dropout(lib.ones(2, 3, dtype=lib.bool), 0.5),
    "dropout1d-inplace-on-leaf": lambda lib: _f(lib).dropout1d(R(lib, 2, 2, 3,
                                                                 requires_grad=True),
                                                               0.5, inplace=True),
})


def _quiet(function):
    """function with its warnings off (dropout2d and dropout3d warn about unusual dims)."""
    def call(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(*args, **kwargs)
    return call


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in ERRORS.items()])
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


# ---- results without gradients: integers, padding corner cases, one_hot -------------------

RESULTS = {
    "relu6-int": lambda lib: _f(lib).relu6(I(lib, [1, -2, 7])),
    "hardtanh-int": lambda lib: _f(lib).hardtanh(I(lib, [1, -2, 5]), -1.5, 2.5),
    "threshold-int": lambda lib: _f(lib).threshold(I(lib, [1, 2, 3]), 1.5, 2.7),
    "softsign-int": lambda lib: _f(lib).softsign(I(lib, [1, -2])),
    "tanhshrink-int": lambda lib: _f(lib).tanhshrink(I(lib, [1, -2])),
    "dropout-int-p1": lambda lib: _f(lib).dropout(I(lib, [1, -2]), 1.0),
    "pad-int-value": lambda lib: _f(lib).pad(I(lib, [1, 2]), (1, 1), value=2.7),
    "pad-int-negative-value": lambda lib: _f(lib).pad(I(lib, [1, 2]), (0, 2), value=-2.7),
    "reflect-int": lambda lib: _f(lib).pad(I(lib, [[1, 2, 3]]), (2, 1), mode="reflect"),
    "replicate-int": lambda lib: _f(lib).pad(I(lib, [[1, 2]]), (1, 3), mode="replicate"),
    "reflect-value-0": lambda lib: _f(lib).pad(R(lib, 2, 3), (1, 1), "reflect", 0.0),
    "reflect-2d-one-dim-empty": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (-2, -1, 0, 0),
                                                        "reflect"),
    "replicate-2d-height-empty": lambda lib: _f(lib).pad(R(lib, 1, 3, 3), (0, 0, -2, -1),
                                                         "replicate"),
    "replicate-3d-depth-empty": lambda lib: _f(lib).pad(R(lib, 1, 3, 3, 3), (0, 0, 0, 0, -2, -1),
                                                        "replicate"),
    "reflect-crop-past": lambda lib: _f(lib).pad(R(lib, 2, 3), (-3, 1), mode="reflect"),
    "linear-int": lambda lib: _f(lib).linear(I(lib, [[1, 2], [3, 4]]), I(lib, [[1, -1]]),
                                             I(lib, [5])),
    "pairwise_distance-int": lambda lib: _f(lib).pairwise_distance(I(lib, [[1, 2]]),
                                                                   I(lib, [[1, 4]])),
    "cosine_similarity-int-float": lambda lib: _f(lib).cosine_similarity(
        I(lib, [[1, 2]]), R(lib, 1, 2, dtype="float32")),
    "one_hot": lambda lib: _f(lib).one_hot(I(lib, [[0, 2], [1, 0]])),
    "one_hot-classes": lambda lib: _f(lib).one_hot(I(lib, [0, 2]), 5),
    "one_hot-0d": lambda lib: _f(lib).one_hot(I(lib, 1), 3),
    "one_hot-empty": lambda lib: _f(lib).one_hot(I(lib, []), 3),
    "softplus-float32-large": lambda lib: _f(lib).softplus(
        lib.tensor([-100.0, -20.0, 0.0, 19.9, 20.0, 20.1, 100.0])),
    "logsigmoid-float32-large": lambda lib: _f(lib).logsigmoid(
        lib.tensor([-100.0, -20.0, 0.0, 20.0, 50.0])),
    "gelu-float32": lambda lib: _f(lib).gelu(lib.tensor([-6.0, -1.0, -0.25, 0.0, 0.5, 3.0])),
    "mish-float32-large": lambda lib: _f(lib).mish(lib.tensor([-100.0, 0.0, 100.0])),
    "circular-int": lambda lib: _f(lib).pad(I(lib, [[1, 2, 3]]), (2, 1), mode="circular"),
    "circular-empty-batch": lambda lib: _f(lib).pad(R(lib, 0, 4), (1, 2), mode="circular"),
    "circular-empty-dim-no-pad": lambda lib: _f(lib).pad(R(lib, 2, 0), (0, 0), "circular"),
    "rrelu-float32": lambda lib: _f(lib).rrelu(lib.tensor([-1.5, 0.0, 2.0]), 0.1, 0.4),
    "dropout2d-int-p1": lambda lib: _f(lib).dropout2d(lib.ones(2, 3, 2, 2, dtype=lib.int64), 1.0),
    "alpha_dropout-int-p1": lambda lib: _f(lib).alpha_dropout(I(lib, [1, -2]), 1.0, True),
    "dropout2d-1d-eval": lambda lib: _quiet(_f(lib).dropout2d)(R(lib, 3), 0.5, False),
    "dropout3d-0d-p1": lambda lib: _quiet(_f(lib).dropout3d)(R(lib), 1.0),
    "feature_alpha_dropout-1d-p0": lambda lib: _f(lib).feature_alpha_dropout(R(lib, 3), 0.0,
                                                                             True),
}


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in RESULTS.items()])
def test_result_matches_torch(fn):
    torch = _torch()
    ours, theirs = fn(tapegrad), fn(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


# ---- linear: which composition torch picks for a bias shape ------------------------------

LINEAR_BIASES = [(5,), (1,), (), (1, 5), (3, 5), (3, 1), (1, 1), (2, 1, 1), (2, 3, 5), (1, 3, 5),
                 (1, 3, 1), (1, 1, 5), (2, 1, 5), (2, 3, 1), (6, 5)]


LINEAR_CASES = [
    pytest.param(x, b, id=f"{x}-{b}")
    for x in ((2, 3, 4), (2, 2, 3, 4), (4,)) for b in LINEAR_BIASES]


@pytest.mark.parametrize("input_shape, bias_shape", LINEAR_CASES)
def test_linear_composes_as_torch_for_each_bias_shape(input_shape, bias_shape):
    torch = _torch()

    def observe(lib):
        x = R(lib, *input_shape, requires_grad=True)
        bias = R(lib, *bias_shape, requires_grad=True)
        try:
            y = _f(lib).linear(x, R(lib, 5, 4, requires_grad=True), bias)
        except RuntimeError as error:
            return str(error)
        y.backward(lib.ones(y.shape, dtype=lib.float64))
        return type(y.grad_fn).__name__, y.detach().numpy(), x.grad.numpy(), bias.grad.numpy()
    ours, theirs = observe(tapegrad), observe(torch)
    if isinstance(theirs, str):
        assert ours == theirs
        return
    assert ours[0] == theirs[0]
    for our, their in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(our, their, rtol=1e-6)


# ---- in place ------------------------------------------------------------------------------

IN_PLACE = {
    "relu": lambda lib, x: _f(lib).relu(x, inplace=True),
    "relu_": lambda lib, x: lib.relu_(x),
    "Tensor.relu_": lambda lib, x: x.relu_(),
    "relu6": lambda lib, x: _f(lib).relu6(x, inplace=True),
    "leaky_relu": lambda lib, x: _f(lib).leaky_relu(x, 0.1, inplace=True),
    "elu_": lambda lib, x: _f(lib).elu_(x),
    "selu_": lambda lib, x: lib.selu_(x),
    "celu": lambda lib, x: _f(lib).celu(x, 2.0, inplace=True),
    "hardtanh_": lambda lib, x: _f(lib).hardtanh_(x),
    "threshold_": lambda lib, x: lib.threshold_(x, 0.5, 2.0),
    "silu": lambda lib, x: _f(lib).silu(x, inplace=True),
    "dropout-p1": lambda lib, x: _f(lib).dropout(x, 1.0, inplace=True),
    "dropout1d-unbatched-p1": lambda lib, x: _f(lib).dropout1d(x, 1.0, inplace=True),
    "dropout1d-unbatched-eval": lambda lib, x: _f(lib).dropout1d(x, 0.5, False, True),
    "alpha_dropout-p1": lambda lib, x: _f(lib).alpha_dropout(x, 1.0, True, True),
    "rrelu_": lambda lib, x: _f(lib).rrelu_(x, 0.1, 0.4),
    "rrelu-training-one-slope": lambda lib, x: _f(lib).rrelu(x, 0.3, 0.3, True, True),
}


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in IN_PLACE.items()])
def test_in_place_returns_the_input_and_matches_torch(fn):
    torch = _torch()

    def observe(lib):
        x = R(lib, 2, 3, requires_grad=True)
        y = x * 1
        result = fn(lib, y)
        observed = {"same": result is y, "version": y._version,
                    "name": type(y.grad_fn).__name__, "value": y.detach().numpy().copy()}
        (y * y).sum().backward()
        observed["grad"] = x.grad.numpy()
        with lib.no_grad():
            plain = R(lib, 2, 3)
            observed["no_grad same"] = fn(lib, plain) is plain
            observed["no_grad value"] = plain.numpy()
        return observed

    ours, theirs = observe(tapegrad), observe(torch)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(ours[key], value, rtol=1e-6, atol=1e-12, err_msg=key)
        else:
            assert ours[key] == value, key


def test_threshold_in_place_differentiates_the_input_as_it_was():
    # value 2 lies above the threshold: below-threshold elements still get no gradient
    torch = _torch()

    def grad(lib):
        x = lib.tensor([0.2, 0.9, -1.0], dtype=lib.float64, requires_grad=True)
        _f(lib).threshold(x * 1, 0.5, 2.0, inplace=True).sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(grad(tapegrad), grad(torch))


# ---- dropout -------------------------------------------------------------------------------

def test_dropout_keeps_and_scales_as_a_mask():
    x = tapegrad.ones(200, 50, dtype=tapegrad.float64, requires_grad=True)
    tapegrad.manual_seed(3)
    y = F.dropout(x, 0.3)
    values = np.unique(y.detach().numpy())
    np.testing.assert_allclose(values, [0.0, 1 / 0.7])
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.02  # 10,000 draws: 4.5 standard deviations
    y.backward(tapegrad.ones(200, 50, dtype=tapegrad.float64))
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout_follows_the_global_seed():
    x = tapegrad.ones(4, 5)
    tapegrad.manual_seed(11)
    first = F.dropout(x, 0.5).numpy()
    tapegrad.manual_seed(11)
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), first)
    assert not np.array_equal(F.dropout(x, 0.5).numpy(), first)


def test_dropout_graph_and_dtype_match_torch():
    torch = _torch()

    def observe(lib):
        x = R(lib, 3, 4, dtype="float32", requires_grad=True)
        y = _f(lib).dropout(x, 0.4)
        z = _f(lib).dropout(x * 1, 0.4, inplace=True)
        with lib.no_grad():
            untracked = _f(lib).dropout(x, 0.4)
        return ([(type(t.grad_fn).__name__, str(t.dtype), tuple(t.shape),
                  tuple((type(n).__name__ if n else None, i)
                        for n, i in t.grad_fn.next_functions)) for t in (y, z)],
                untracked.grad_fn, untracked.requires_grad)
    assert observe(tapegrad) == observe(torch)


def test_dropout_identities_return_the_input():
    x = tapegrad.ones(3)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    empty = tapegrad.ones(0, 3)
    assert F.dropout(empty, 0.5) is empty


@pytest.mark.parametrize("name, shape, lead", [
    ("dropout1d", (40, 50, 3), 2), ("dropout1d", (50, 3), 1), ("dropout2d", (40, 50, 2, 2), 2),
    ("dropout3d", (40, 50, 2, 1, 2), 2), ("dropout3d", (50, 2, 1, 2), 1)])
def test_channel_dropout_zeroes_whole_channels(name, shape, lead):
    x = tapegrad.ones(shape, dtype=tapegrad.float64, requires_grad=True)
    tapegrad.manual_seed(5)
    y = getattr(F, name)(x, 0.3)
    values = y.detach().numpy()
    channels = values.reshape(values.shape[:lead] + (-1,))
    # each channel is dropped or kept (scaled) as a whole
    assert (channels == channels[..., :1]).all()
    np.testing.assert_allclose(np.unique(channels), [0.0, 1 / 0.7])
    kept = (channels[..., 0] != 0).mean()
    assert abs(kept - 0.7) < (0.02 if channels[..., 0].size > 1000 else 0.15)
    y.backward(tapegrad.ones(shape, dtype=tapegrad.float64))
    np.testing.assert_array_equal(x.grad.numpy(), values)


@pytest.mark.parametrize("name, shape", [("alpha_dropout", (400, 500)),
                                         ("feature_alpha_dropout", (400, 500, 2))])
def test_alpha_dropout_keeps_mean_and_variance(name, shape):
    """Dropped units take -SELU_SCALE * SELU_ALPHA; the affine map after it restores a
    standard normal input's mean 0 and variance 1."""
    tapegrad.manual_seed(6)
    x = tapegrad.randn(shape, dtype=tapegrad.float64)
    y = getattr(F, name)(x, 0.2, True).numpy()
    alpha = 1.7580993408473766
    scale = 1 / np.sqrt((alpha ** 2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(y, scale * (alpha * 0.2 - alpha), rtol=1e-12)
    assert abs(dropped.mean() - 0.2) < 0.01
    np.testing.assert_allclose(y[~dropped], scale * (x.numpy()[~dropped] + alpha * 0.2),
                               rtol=1e-12, atol=1e-15)
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    if name == "feature_alpha_dropout":  # whole channels drop together
        assert (dropped == dropped[..., :1]).all()


@pytest.mark.parametrize("name, shape, args", [
    ("dropout1d", (3, 4), ()), ("dropout1d", (2, 3, 4), ()), ("dropout2d", (2, 3, 2, 2), ()),
    ("dropout3d", (3, 2, 2, 2), ()), ("alpha_dropout", (3, 4), (True,)),
    ("feature_alpha_dropout", (2, 3, 4), (True,))])
def test_random_dropout_graph_and_dtype_match_torch(name, shape, args):
    torch = _torch()

    def observe(lib):
        x = R(lib, *shape, dtype="float32", requires_grad=True)
        outputs = [getattr(_f(lib), name)(x, 0.4, *args),
                   getattr(_f(lib), name)(x * 1, 0.4, *args, inplace=True)]
        return [(type(t.grad_fn).__name__, str(t.dtype), tuple(t.shape),
                 tuple((type(n).__name__ if n else None, i)
                       for n, i in t.grad_fn.next_functions)) for t in outputs]
    assert observe(tapegrad) == observe(torch)


_DROPOUT_SHAPES = {"dropout": (4, 6), "dropout1d": (4, 6, 2), "dropout2d": (4, 6, 2, 2),
                   "dropout3d": (4, 6, 2, 2, 2), "alpha_dropout": (4, 6),
                   "feature_alpha_dropout": (4, 6, 2)}


@pytest.mark.parametrize("name", [n for n in dropout.NN_FUNCTIONS if "dropout" in n])
def test_every_dropout_follows_the_global_seed(name):
    x = tapegrad.ones(_DROPOUT_SHAPES[name])
    function = getattr(F, name)
    tapegrad.manual_seed(11)
    first = function(x, 0.5, True).numpy()
    tapegrad.manual_seed(11)
    np.testing.assert_array_equal(function(x, 0.5, True).numpy(), first)
    assert not np.array_equal(function(x, 0.5, True).numpy(), first)


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                                  "FeatureAlphaDropout"])
def test_dropout_layers_are_identities_in_eval(name):
    x = tapegrad.ones(_DROPOUT_SHAPES[{"Dropout1d": "dropout1d", "Dropout2d": "dropout2d"}.get(
        name, "dropout3d")])
    assert getattr(tapegrad.nn, name)().eval()(x) is x


# ---- rrelu's random slopes, prelu, hardsigmoid -------------------------------------------

def test_rrelu_training_draws_one_slope_per_element():
    tapegrad.manual_seed(2)
    x = -tapegrad.rand(2000, dtype=tapegrad.float64) - 0.1
    x.requires_grad_()
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach().numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.005
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)
    positive = tapegrad.rand(5, dtype=tapegrad.float64)
    assert F.rrelu(positive, 0.1, 0.3, training=True).tolist() == positive.tolist()


def test_rrelu_follows_the_global_seed():
    x = -tapegrad.ones(10)
    tapegrad.manual_seed(3)
    first = F.rrelu(x, training=True).numpy()
    tapegrad.manual_seed(3)
    np.testing.assert_array_equal(F.rrelu(x, training=True).numpy(), first)


def test_rrelu_draws_from_a_given_generator():
    x = -tapegrad.ones(8)
    generator = tapegrad.Generator().manual_seed(4)
    first = tapegrad.rrelu(x, 0.1, 0.3, True, generator)
    generator.manual_seed(4)
    tapegrad.manual_seed(0)  # the global generator plays no part
    np.testing.assert_array_equal(F.rrelu_(x.clone(), 0.1, 0.3, True, generator).numpy(),
                                  first.numpy())


def test_rrelu_training_graph_matches_torch():
    torch = _torch()

    def observe(lib):
        x = R(lib, 3, 4, requires_grad=True)
        outputs = (_f(lib).rrelu(x, training=True), _f(lib).rrelu(x * 1, training=True,
                                                                  inplace=True))
        return [(type(t.grad_fn).__name__, tuple((type(n).__name__ if n else None, i)
                                                 for n, i in t.grad_fn.next_functions))
                for t in outputs]
    assert observe(tapegrad) == observe(torch)


def test_hardsigmoid_gradient_equals_torch_exactly():
    # torch scales by 1/6 rounded to float32, in float64 too: the gradients agree to the bit
    torch = _torch()

    def grad(lib):
        x = lib.tensor(np.linspace(-2.9, 2.9, 13), requires_grad=True)
        _f(lib).hardsigmoid(x).backward(lib.tensor(np.linspace(-3.0, 4.0, 13)))
        return x.grad.numpy()
    np.testing.assert_array_equal(grad(tapegrad), grad(torch))


# ---- embedding max_norm ------------------------------------------------------------------

def test_embedding_max_norm_rescales_the_weight_in_place_as_torch():
    torch = _torch()

    def observe(lib):
        weight = lib.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, -1.0], [-6.0, 8.0]],
                            dtype=lib.float64, requires_grad=True)
        out = _f(lib).embedding(I(lib, [[0, 3], [0, 1]]), weight, max_norm=2.0)
        out.sum().backward()
        return weight.detach().numpy(), weight._version, out.detach().numpy(), weight.grad.numpy()
    ours, theirs = observe(tapegrad), observe(torch)
    for our, their in zip(ours, theirs):
        np.testing.assert_allclose(our, their, rtol=1e-6)


# ---- namespaces ----------------------------------------------------------------------------

def test_functional_names_take_torch_parameters():
    torch = _torch()
    for name in activation.NN_FUNCTIONS + dropout.NN_FUNCTIONS:
        theirs = getattr(torch.nn.functional, name)
        try:
            expected = list(inspect.signature(theirs).parameters)
        except ValueError:
            continue  # a builtin without a Python signature
        ours = getattr(F, name)
        if isinstance(ours, Op):
            continue  # an op re-exported as is: its parameters are its forward's
        assert list(inspect.signature(ours).parameters) == expected, name


def test_names_are_exported_where_torch_has_them():
    torch = _torch()
    for name in activation.NN_FUNCTIONS + dropout.NN_FUNCTIONS:
        assert hasattr(torch.nn.functional, name), name
    for name in activation.FUNCTIONS:
        assert hasattr(torch, name) and hasattr(tapegrad, name), name
    for name in activation.METHODS:
        assert hasattr(torch.Tensor, name) and hasattr(tapegrad.Tensor, name), name
    assert F.relu is not tapegrad.relu and F.sigmoid is tapegrad.sigmoid
