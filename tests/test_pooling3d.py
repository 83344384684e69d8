"""3-d pooling (max_pool3d, avg_pool3d, adaptive_avg/max_pool3d, lp_pool3d), max unpooling in
1-d, 2-d and 3-d, fractional max pooling in 2-d and 3-d, and their layers, beyond the op
database: float64 gradcheck and gradgradcheck; against torch, values, indices, dtypes,
gradients, grad_fn names (also of the recorded backward), ties, NaN and -inf, integer, empty
and unbatched inputs, the random windows of fractional pooling under a shared seed, error
types and texts, and the layers' reprs, state_dicts and outputs."""
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck
from test_conv3d import F, R, randn
from test_ops import assert_raises_like_torch, labelled_params


def _samples(lib, *shape, dtype="float64"):
    """Fixed samples for fractional pooling, in [0, 1)."""
    values = np.random.default_rng(sum(shape)).uniform(0, 1, shape)
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _pooled_indices(lib, pool, x, *args):
    """Indices of a max pooling of x (detached), for unpooling."""
    return pool(x.detach(), *args, return_indices=True)[1]


# name: (input shape, function of (lib, x) -> a Tensor or (values, indices))
POOLINGS = {
    "max": ((2, 2, 4, 5, 6), lambda lib, x: F(lib).max_pool3d(x, 2, return_indices=True)),
    "max-options": ((1, 2, 5, 6, 5), lambda lib, x: F(lib).max_pool3d(
        x, (3, 2, 3), (2, 1, 2), (1, 1, 0), (1, 2, 1), ceil_mode=True, return_indices=True)),
    "max-unbatched": ((2, 4, 4, 5), lambda lib, x: F(lib).max_pool3d(x, (1, 2, 3), 1,
                                                                     return_indices=True)),
    "avg": ((2, 2, 4, 5, 6), lambda lib, x: F(lib).avg_pool3d(x, 2)),
    "avg-options": ((1, 2, 5, 6, 5), lambda lib, x: F(lib).avg_pool3d(
        x, (3, 2, 3), (2, 1, 2), (1, 1, 0), ceil_mode=True, count_include_pad=False)),
    "avg-divisor": ((1, 2, 5, 6, 5), lambda lib, x: F(lib).avg_pool3d(
        x, 3, 2, 1, divisor_override=5)),
    "avg-unbatched": ((2, 4, 4, 5), lambda lib, x: F(lib).avg_pool3d(x, (2, 1, 3),
                                                                     padding=(1, 0, 1))),
    "adaptive-avg": ((2, 2, 5, 7, 6), lambda lib, x: F(lib).adaptive_avg_pool3d(x, (3, None, 4))),
    "adaptive-avg-unbatched": ((2, 5, 7, 6), lambda lib, x: F(lib).adaptive_avg_pool3d(x, 4)),
    "adaptive-max": ((2, 2, 5, 7, 6), lambda lib, x: F(lib).adaptive_max_pool3d(
        x, (3, None, 4), return_indices=True)),
    "adaptive-max-unbatched": ((2, 5, 7, 6), lambda lib, x: F(lib).adaptive_max_pool3d(
        x, 4, return_indices=True)),
    "lp": ((1, 2, 4, 5, 6), lambda lib, x: F(lib).lp_pool3d(x, 2, 2)),
    # (an odd power of a negative sum has no real root: positive inputs)
    "lp-options": ((1, 2, 4, 5, 6), lambda lib, x: F(lib).lp_pool3d(x.abs() + 0.5, 3, (2, 1, 3),
                                                                    1, ceil_mode=True)),
    "unpool1d": ((2, 3, 4), lambda lib, x: F(lib).max_unpool1d(
        x, _pooled_indices(lib, F(lib).max_pool1d, R(lib, 2, 3, 8, dtype=str(x.dtype)[-7:]), 2),
        2)),
    "unpool2d": ((2, 3, 2, 3), lambda lib, x: F(lib).max_unpool2d(
        x, _pooled_indices(lib, F(lib).max_pool2d, R(lib, 2, 3, 5, 7), 2), 2,
        output_size=(5, 7))),
    "unpool2d-unbatched": ((3, 2, 3), lambda lib, x: F(lib).max_unpool2d(
        x, _pooled_indices(lib, F(lib).max_pool2d, R(lib, 3, 4, 6), 2), 2)),
    "unpool3d": ((1, 2, 2, 2, 3), lambda lib, x: F(lib).max_unpool3d(
        x, _pooled_indices(lib, F(lib).max_pool3d, R(lib, 1, 2, 4, 5, 6), 2), 2,
        output_size=(4, 5, 6))),
    "fractional2d": ((2, 3, 7, 8), lambda lib, x: F(lib).fractional_max_pool2d(
        x, (2, 3), output_size=(4, 3), return_indices=True,
        _random_samples=_samples(lib, 2, 3, 2, dtype=str(x.dtype)[-7:]))),
    "fractional2d-unbatched": ((3, 7, 8), lambda lib, x: F(lib).fractional_max_pool2d(
        x, 2, output_size=(4, 3), return_indices=True,
        _random_samples=_samples(lib, 1, 3, 2, dtype=str(x.dtype)[-7:]))),
    "fractional3d": ((2, 2, 7, 8, 6), lambda lib, x: F(lib).fractional_max_pool3d(
        x, (2, 3, 2), output_size=(3, 4, 2), return_indices=True,
        _random_samples=_samples(lib, 2, 2, 3, dtype=str(x.dtype)[-7:]))),
    "fractional3d-unbatched": ((2, 7, 8, 6), lambda lib, x: F(lib).fractional_max_pool3d(
        x, 2, output_ratio=(0.5, 0.4, 0.7), return_indices=True,
        _random_samples=_samples(lib, 1, 2, 3, dtype=str(x.dtype)[-7:]))),
}

# double backward: the recorded gradients of these are torch's too (lp_pool composes ops)
SECOND_ORDER = ["max", "avg-options", "adaptive-avg", "adaptive-max", "unpool2d", "unpool3d",
                "fractional2d", "fractional3d"]


def _values(result):
    return result[0] if isinstance(result, tuple) else result


def _leaf(lib, name, dtype="float64"):
    return R(lib, *POOLINGS[name][0], dtype=dtype, requires_grad=True)


@pytest.mark.parametrize("name", list(POOLINGS))
def test_pooling_gradcheck(name):
    fn = POOLINGS[name][1]
    assert gradcheck(lambda x: _values(fn(tapegrad, x)), [_leaf(tapegrad, name)])


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_pooling_gradgradcheck(name):
    fn = POOLINGS[name][1]
    assert gradgradcheck(lambda x: _values(fn(tapegrad, x)), [_leaf(tapegrad, name)])


def _observed(lib, name, dtype):
    x = _leaf(lib, name, dtype)
    result = POOLINGS[name][1](lib, x)
    values = _values(result)
    weights = lib.tensor(randn(*values.shape, seed=1), dtype=values.dtype)
    (values * weights).sum().backward()
    indices = result[1] if isinstance(result, tuple) else None
    return values, indices, type(values.grad_fn).__name__, x.grad


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(POOLINGS))
def test_pooling_like_torch(name, dtype):
    torch = pytest.importorskip("torch")
    ours, our_indices, our_name, our_grad = _observed(tapegrad, name, dtype)
    theirs, their_indices, their_name, their_grad = _observed(torch, name, dtype)
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    assert (str(ours.dtype), tuple(ours.shape), our_name) == (str(theirs.dtype),
                                                             tuple(theirs.shape), their_name)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance,
                               atol=tolerance)
    np.testing.assert_allclose(our_grad.numpy(), their_grad.numpy(), rtol=tolerance,
                               atol=tolerance)
    if their_indices is not None:
        assert str(our_indices.dtype) == str(their_indices.dtype)
        np.testing.assert_array_equal(our_indices.numpy(), their_indices.numpy())


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
@pytest.mark.parametrize("name", SECOND_ORDER)
def test_recorded_backward_like_torch(name):
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = _leaf(lib, name)
        values = _values(POOLINGS[name][1](lib, x))
        (grad,) = lib.autograd.grad(values.pow(2).sum(), [x], create_graph=True)
        (second,) = lib.autograd.grad(grad.pow(2).sum(), [x])
        return type(grad.grad_fn).__name__, second.numpy()
    (our_name, ours), (their_name, theirs) = observed(tapegrad), observed(torch)
    assert our_name == their_name
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_max_pool3d_ties_nan_and_minus_infinity_like_torch():
    # ties go to the first maximum, the last NaN of a window wins, a window of -inf keeps the
    # index of its first element inside the input
    def observed(lib):
        nan, inf = float("nan"), float("inf")
        values = np.array([[1.0, 3.0, 3.0, nan], [3.0, 2.0, nan, 0.0], [-inf, -inf, 5.0, 5.0],
                           [-inf, -inf, 5.0, -inf]])
        x = lib.tensor(np.stack([values, values[::-1], -np.abs(values)])[None, None],
                       dtype=lib.float64, requires_grad=True)
        pooled = F(lib).max_pool3d(x, 2, 1, 1, return_indices=True)
        adaptive = F(lib).adaptive_max_pool3d(x, (2, 3, 3), return_indices=True)
        fractional = F(lib).fractional_max_pool3d(
            x, 2, output_size=(1, 2, 2), return_indices=True,
            _random_samples=lib.tensor([[[0.3, 0.6, 0.9]]], dtype=lib.float64))
        total = sum(result[0].nan_to_num(0.0, 0.0, 0.0).sum()
                    for result in (pooled, adaptive, fractional))
        total.backward()
        return [np.nan_to_num(t.detach().numpy()) for result in (pooled, adaptive, fractional)
                for t in result] + [x.grad.numpy()]
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(observed(tapegrad), observed(torch)):
        np.testing.assert_array_equal(ours, theirs)


def test_integer_pooling_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = (lib.arange(2 * 4 * 5 * 6).reshape(1, 2, 4, 5, 6) * 7) % 11 - 5
        return [F(lib).max_pool3d(x, 2, 1, 1, return_indices=True)[1],
                F(lib).max_pool3d(x, (2, 3, 2)), F(lib).avg_pool3d(x, 2, 1, 1),
                F(lib).avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                F(lib).avg_pool3d(x, 2, divisor_override=3)]
    for ours, theirs in zip(observed(tapegrad), observed(torch)):
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_empty_batch_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = lib.zeros(0, 2, 4, 5, 6, dtype=lib.float64, requires_grad=True)
        results = [F(lib).max_pool3d(x, 2), F(lib).avg_pool3d(x, 2, 1, 1),
                   F(lib).adaptive_avg_pool3d(x, 3), F(lib).adaptive_max_pool3d(x, 3),
                   F(lib).fractional_max_pool3d(x, 2, output_size=2),
                   F(lib).max_unpool3d(x, lib.zeros(0, 2, 4, 5, 6, dtype=lib.int64), 2)]
        sum(r.sum() for r in results).backward()
        return [tuple(r.shape) for r in results] + [tuple(x.grad.shape)]
    assert observed(tapegrad) == observed(torch)


def test_adaptive_pool3d_to_size_zero_and_one_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = R(lib, 1, 2, 3, 4, 5, dtype="float64", requires_grad=True)
        one = F(lib).adaptive_avg_pool3d(x, 1)
        values, indices = F(lib).adaptive_max_pool3d(x, 0, return_indices=True)
        return (type(one.grad_fn).__name__, one.detach().numpy(), tuple(values.shape),
                str(indices.dtype), tuple(F(lib).adaptive_avg_pool3d(x, 0).shape))
    ours, theirs = observed(tapegrad), observed(torch)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[:1] + ours[2:] == theirs[:1] + theirs[2:]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_windows_under_a_shared_seed_like_torch(nd, dtype):
    # the samples are drawn from the generator as torch draws them, and the window starts are
    # computed in the input's dtype as torch computes them (float32 rounding decides some)
    torch = pytest.importorskip("torch")

    def observed(lib, seed):
        lib.manual_seed(seed)
        x = R(lib, 3, 4, *(23, 17, 19)[-nd:], dtype=dtype)
        pool = getattr(F(lib), f"fractional_max_pool{nd}d")
        sized = pool(x, 3, output_size=(7, 5, 6)[-nd:], return_indices=True)
        ratio = pool(x[0], 2, output_ratio=(0.61, 0.53, 0.7)[-nd:], return_indices=True)
        return [t.numpy() for t in sized + ratio] + [lib.rand(2).numpy()]
    for seed in range(4):
        for ours, theirs in zip(observed(tapegrad, seed), observed(torch, seed)):
            np.testing.assert_array_equal(ours, theirs)


def test_max_unpool_keeps_the_last_of_repeated_indices_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = lib.tensor([[[1.0, 2.0, 3.0, 4.0]]])
        indices = lib.tensor([[[1, 1, 5, 5]]])
        return F(lib).max_unpool1d(x, indices, 2).numpy()
    np.testing.assert_array_equal(observed(tapegrad), observed(torch))


def _max_pool3d(shape, *args, **options):
    return lambda lib: F(lib).max_pool3d(R(lib, *shape), *args, **options)


def _avg_pool3d(shape, *args, **options):
    return lambda lib: F(lib).avg_pool3d(R(lib, *shape), *args, **options)


def _unpool(nd, input_shape, indices_shape=None, dtype="float32", index_dtype="int64",
            offset=0, *args, **options):
    def call(lib):
        x = R(lib, *input_shape, dtype=dtype)
        # valid indices but one, moved by offset (torch's threads report one of several)
        shape = indices_shape or input_shape
        flat = lib.arange(int(np.prod(shape))) % max(1, int(np.prod(shape[-nd:]))) * 2
        flat[min(5, flat.numel() - 1)] += offset
        indices = flat.reshape(indices_shape or input_shape).to(getattr(lib, index_dtype))
        return getattr(F(lib), f"max_unpool{nd}d")(x, indices, 2, *args, **options)
    return call


def _fractional(nd, shape, *args, dtype="float32", **options):
    def call(lib):
        lib.manual_seed(0)
        x = R(lib, *shape, dtype=dtype)
        if "samples" in options:
            options["_random_samples"] = _samples(lib, *options.pop("samples"))
        return getattr(F(lib), f"fractional_max_pool{nd}d")(x, *args, **options)
    return call


X = (1, 2, 4, 5, 6)
ERRORS = {
    "max-kernel-2-values": _max_pool3d(X, (2, 2)),
    "max-stride-2-values": _max_pool3d(X, 2, (1, 1)),
    "max-padding-2-values": _max_pool3d(X, 2, padding=(1, 1)),
    "max-dilation-2-values": _max_pool3d(X, 2, dilation=(1, 1)),
    "max-kernel-0": _max_pool3d(X, 0),
    "max-kernel-0-stride-1": _max_pool3d(X, 0, 1),
    "max-dilation-0": _max_pool3d(X, 2, dilation=0),
    "max-input-3d": _max_pool3d((4, 5, 6), 2),
    "max-input-6d": _max_pool3d((1,) + X, 2),
    "max-empty-channels": _max_pool3d((1, 0, 4, 5, 6), 2),
    "max-padding-over-half": _max_pool3d(X, 2, padding=2),
    "max-padding-over-half-kernel": _max_pool3d(X, 3, padding=2, dilation=2),
    "max-padding-negative": _max_pool3d(X, 2, padding=-1),
    "max-output-too-small": _max_pool3d(X, 5),
    "max-bool": lambda lib: F(lib).max_pool3d(R(lib, *X) > 0, 2),
    "avg-kernel-2-values": _avg_pool3d(X, (2, 2)),
    "avg-stride-2-values": _avg_pool3d(X, 2, (2, 2)),
    "avg-padding-2-values": _avg_pool3d(X, 2, 2, (1, 1)),
    "avg-divisor-0": _avg_pool3d(X, 2, divisor_override=0),
    "avg-kernel-over-input": _avg_pool3d(X, 5),
    "avg-kernel-over-input-padded": _avg_pool3d(X, 5, padding=2),
    "avg-input-3d": _avg_pool3d((4, 5, 6), 2),
    "avg-empty-channels": _avg_pool3d((1, 0, 4, 5, 6), 2),
    "avg-padding-over-half": _avg_pool3d(X, 2, padding=2),
    "avg-kernel-0": _avg_pool3d(X, 0),
    "adaptive-avg-2-sizes": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, *X), (2, 2)),
    "adaptive-avg-negative": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, *X), (2, -2, 2)),
    "adaptive-avg-input-3d": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, 4, 5, 6), 2),
    "adaptive-avg-empty": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, 1, 0, 4, 5, 6), 2),
    "adaptive-avg-long": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, *X).long(), 2),
    "adaptive-avg-long-to-one": lambda lib: F(lib).adaptive_avg_pool3d(R(lib, *X).long(), 1),
    "adaptive-max-2-sizes": lambda lib: F(lib).adaptive_max_pool3d(R(lib, *X), (2, 2)),
    "adaptive-max-negative": lambda lib: F(lib).adaptive_max_pool3d(R(lib, *X), (2, -2, 2)),
    "adaptive-max-input-3d": lambda lib: F(lib).adaptive_max_pool3d(R(lib, 4, 5, 6), 2),
    "adaptive-max-empty": lambda lib: F(lib).adaptive_max_pool3d(R(lib, 1, 0, 4, 5, 6), 2),
    "adaptive-max-long": lambda lib: F(lib).adaptive_max_pool3d(R(lib, *X).long(), 2),
    "unpool3d-input-3d": _unpool(3, (2, 3, 4)),
    "unpool3d-index-out-of-range": _unpool(3, (1, 2, 2, 3, 4), offset=1000),
    "unpool3d-index-negative": _unpool(3, (1, 2, 2, 3, 4), offset=-1000),
    "unpool3d-output-size-out-of-range": _unpool(3, (1, 2, 2, 3, 4), output_size=(9, 6, 8)),
    "unpool3d-output-size-length": _unpool(3, (1, 2, 2, 3, 4), output_size=(6, 8)),
    "unpool3d-indices-shape": _unpool(3, (1, 2, 2, 3, 4), (1, 2, 2, 3, 1)),
    "unpool3d-int32-indices": _unpool(3, (1, 2, 2, 3, 4), index_dtype="int32"),
    "unpool3d-int32-indices-3d": _unpool(3, (2, 3, 4), index_dtype="int32"),
    "unpool3d-long": _unpool(3, (1, 2, 2, 3, 4), dtype="int64"),
    "unpool3d-empty-channels": _unpool(3, (1, 0, 2, 3, 4)),
    "unpool3d-stride-0": _unpool(3, (1, 2, 2, 3, 4), None, "float32", "int64", 0, 0),
    "unpool2d-input-2d": _unpool(2, (3, 4)),
    "unpool2d-input-5d": _unpool(2, (1, 2, 2, 3, 4)),
    "unpool2d-index-out-of-range": _unpool(2, (2, 4, 3, 4), offset=1000),
    "unpool2d-output-size-out-of-range": _unpool(2, (2, 4, 3, 4), output_size=(9, 8)),
    "unpool2d-indices-shape": _unpool(2, (2, 4, 3, 4), (2, 4, 3, 1)),
    "unpool2d-int32-indices": _unpool(2, (2, 4, 3, 4), index_dtype="int32"),
    "unpool2d-long": _unpool(2, (2, 4, 3, 4), dtype="int64"),
    "unpool2d-bool": lambda lib: F(lib).max_unpool2d(R(lib, 2, 4, 3, 4) > 0,
                                                     lib.zeros(2, 4, 3, 4, dtype=lib.int64), 2),
    "unpool2d-empty-channels": _unpool(2, (2, 0, 3, 4)),
    "unpool2d-negative-output-size": _unpool(2, (2, 4, 3, 4), None, "float32", "int64", 0,
                                             None, 5),
    "unpool1d-index-out-of-range": _unpool(1, (4, 6, 4), offset=1000),
    "unpool1d-input-4d": _unpool(1, (2, 4, 3, 4)),
    "unpool1d-input-1d": _unpool(1, (4,)),
    "unpool1d-output-size-out-of-range": _unpool(1, (4, 6, 4), output_size=(20,)),
    "fractional2d-no-size": _fractional(2, (3, 7, 8, 9), 2),
    "fractional2d-ratio-float": _fractional(2, (3, 7, 8, 9), 2, output_ratio=0.5),
    "fractional2d-ratio-3": _fractional(2, (3, 7, 8, 9), 2, output_ratio=(0.5, 0.5, 0.5)),
    "fractional2d-ratio-1": _fractional(2, (3, 7, 8, 9), 2, output_ratio=[0.5]),
    "fractional2d-pool-height": _fractional(2, (3, 7, 8, 9), 5, output_size=5),
    "fractional2d-pool-width": _fractional(2, (3, 7, 8, 9), (2, 6), output_size=5),
    "fractional2d-input-2d": _fractional(2, (8, 9), 2, output_size=3),
    "fractional2d-input-5d": _fractional(2, (2, 3, 7, 8, 9), 2, output_size=3),
    "fractional2d-empty-channels": _fractional(2, (3, 0, 8, 8), 2, output_size=3),
    "fractional2d-kernel-3": _fractional(2, (3, 7, 8, 9), (2, 2, 2), output_size=3),
    "fractional2d-output-3": _fractional(2, (3, 7, 8, 9), 2, output_size=(3, 3, 3)),
    "fractional2d-long": lambda lib: F(lib).fractional_max_pool2d(R(lib, 3, 7, 8, 9).long(), 2,
                                                                  output_size=3),
    "fractional2d-samples-batch": _fractional(2, (3, 7, 8, 9), 2, output_size=3,
                                              samples=(1, 7, 2)),
    "fractional2d-samples-channels": _fractional(2, (3, 7, 8, 9), 2, output_size=3,
                                                 samples=(3, 4, 2)),
    "fractional2d-samples-dims": _fractional(2, (3, 7, 8, 9), 2, output_size=3,
                                             samples=(3, 7, 3)),
    "fractional2d-samples-2d": _fractional(2, (3, 7, 8, 9), 2, output_size=3, samples=(3, 7)),
    "fractional2d-samples-dtype": _fractional(2, (3, 7, 8, 9), 2, output_size=3,
                                              samples=(3, 7, 2), dtype="float32"),
    "fractional2d-negative-size": _fractional(2, (3, 7, 8, 9), 2, output_size=-1),
    "fractional3d-no-size": _fractional(3, (2, 3, 7, 8, 9), 2),
    "fractional3d-ratio-2": _fractional(3, (2, 3, 7, 8, 9), 2, output_ratio=(0.5, 0.5)),
    "fractional3d-pool-time": _fractional(3, (2, 3, 7, 8, 9), 6, output_size=3),
    "fractional3d-pool-time-exactly": _fractional(3, (2, 3, 8, 8, 8), 5, output_size=4),
    "fractional3d-pool-height": _fractional(3, (2, 3, 7, 8, 9), (2, 7, 2), output_size=3),
    "fractional3d-pool-width": _fractional(3, (2, 3, 7, 8, 9), (2, 2, 8), output_size=3),
    "fractional3d-input-3d": _fractional(3, (7, 8, 9), 2, output_size=3),
    "fractional3d-empty-channels": _fractional(3, (2, 0, 7, 8, 9), 2, output_size=3),
    "fractional3d-long": lambda lib: F(lib).fractional_max_pool3d(
        R(lib, 2, 3, 7, 8, 9).long(), 2, output_size=3),
    "fractional3d-samples-dims": _fractional(3, (2, 3, 7, 8, 9), 2, output_size=3,
                                             samples=(2, 3, 2)),
    "fractional3d-samples-batch": _fractional(3, (2, 3, 7, 8, 9), 2, output_size=3,
                                              samples=(1, 3, 3)),
    "fractional3d-kernel-2": _fractional(3, (2, 3, 7, 8, 9), (2, 2), output_size=3),
    "fractional3d-output-2": _fractional(3, (2, 3, 7, 8, 9), 2, output_size=(3, 3)),
}


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


LAYERS = {
    "max": ("MaxPool3d", (2,), {}, (1, 2, 4, 5, 6)),
    "max-options": ("MaxPool3d", ((2, 3, 2),), dict(stride=1, padding=1, return_indices=True,
                                                   ceil_mode=True), (1, 2, 4, 5, 6)),
    "avg": ("AvgPool3d", (2,), {}, (1, 2, 4, 5, 6)),
    "avg-options": ("AvgPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True,
                                            count_include_pad=False, divisor_override=3),
                    (2, 4, 5, 6)),
    "adaptive-avg": ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (1, 2, 4, 5, 6)),
    "adaptive-max": ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), (2, 4, 5, 6)),
    "lp": ("LPPool3d", (2, 2), {}, (1, 2, 4, 5, 6)),
    "lp-options": ("LPPool3d", (1.5, (2, 1, 2)), dict(stride=1, ceil_mode=True),
                   (1, 2, 4, 5, 6)),
    "fractional2d": ("FractionalMaxPool2d", (2,), dict(output_size=3), (2, 3, 7, 8)),
    "fractional2d-ratio": ("FractionalMaxPool2d", ((2, 3),), dict(output_ratio=0.5,
                                                                  return_indices=True),
                           (3, 7, 8)),
    "fractional3d": ("FractionalMaxPool3d", (2,), dict(output_size=(3, 2, 4)), (2, 3, 7, 8, 9)),
    "fractional3d-ratio": ("FractionalMaxPool3d", (2,), dict(output_ratio=(0.5, 0.4, 0.6),
                                                             return_indices=True),
                           (3, 7, 8, 9)),
}


@pytest.mark.parametrize("case", labelled_params(LAYERS))
def test_layer_like_torch(case):
    torch = pytest.importorskip("torch")
    name, args, kwargs, shape = case

    def observed(lib):
        layer = getattr(lib.nn, name)(*args, **kwargs)
        lib.manual_seed(3)
        result = layer(lib.tensor(randn(*shape), dtype=lib.float32))
        outputs = result if isinstance(result, tuple) else (result,)
        return repr(layer), list(layer.state_dict()), [t.numpy() for t in outputs]
    ours, theirs = observed(tapegrad), observed(torch)
    assert ours[:2] == theirs[:2]
    for mine, reference in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unpool_layer_like_torch(nd):
    torch = pytest.importorskip("torch")

    def observed(lib):
        pool = getattr(lib.nn, f"MaxPool{nd}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{nd}d")(2)
        values, indices = pool(R(lib, 2, 3, *(7, 6, 5)[:nd]))
        return repr(unpool), unpool(values, indices, output_size=(7, 6, 5)[:nd]).numpy()
    (our_repr, ours), (their_repr, theirs) = observed(tapegrad), observed(torch)
    assert our_repr == their_repr
    np.testing.assert_array_equal(ours, theirs)


def test_fractional_layer_keeps_its_samples_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        samples = _samples(lib, 1, 3, 3, dtype="float32")
        layer = lib.nn.FractionalMaxPool3d(2, output_size=2, _random_samples=samples)
        return list(layer.state_dict()), layer(R(lib, 3, 5, 6, 7)).numpy()
    (our_keys, ours), (their_keys, theirs) = observed(tapegrad), observed(torch)
    assert our_keys == their_keys
    np.testing.assert_array_equal(ours, theirs)


LAYER_ERRORS = {
    "fractional3d-no-size": lambda lib: lib.nn.FractionalMaxPool3d(2),
    "fractional3d-size-and-ratio": lambda lib: lib.nn.FractionalMaxPool3d(
        2, output_size=2, output_ratio=0.5),
    "fractional3d-ratio-over-1": lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=1.5),
    "fractional3d-kernel-0": lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2),
    "fractional2d-no-size": lambda lib: lib.nn.FractionalMaxPool2d(2),
    "fractional2d-ratio-0": lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0)),
}


@pytest.mark.parametrize("fn", labelled_params(LAYER_ERRORS))
def test_layer_error_matches_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like_torch(fn)


def test_functions_are_where_torch_has_them():
    torch = pytest.importorskip("torch")
    names = ("max_pool3d avg_pool3d adaptive_avg_pool3d adaptive_max_pool3d lp_pool3d "
             "max_unpool1d max_unpool2d max_unpool3d fractional_max_pool2d "
             "fractional_max_pool3d").split()
    names += [name for name in dir(torch.nn.functional) if name.endswith("_with_indices")]
    for name in names:
        assert hasattr(tapegrad.nn.functional, name)
        assert hasattr(tapegrad, name) == hasattr(torch, name), name


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d",
                                  "adaptive_max_pool2d", "adaptive_max_pool3d",
                                  "fractional_max_pool2d", "fractional_max_pool3d"])
def test_with_indices_forms_return_indices_like_torch(name):
    torch = pytest.importorskip("torch")
    nd = int(name[-2])
    arguments = {"adaptive": (2,), "fractional": (2, 2)}.get(name.split("_")[0], (2,))

    def observed(lib):
        lib.manual_seed(0)
        x = R(lib, 2, 3, *(7, 6, 5)[:nd])
        values, indices = getattr(F(lib), name + "_with_indices")(x, *arguments)
        return values.numpy(), indices.numpy()
    for ours, theirs in zip(observed(tapegrad), observed(torch)):
        np.testing.assert_array_equal(ours, theirs)
