"""The fast kernels of convolution and max pooling (issue 12) against torch and finite
differences: size-keeping convolutions built from shifted planes (Note [Shifted columns] in
ops/conv.py) and their strided, dilated, grouped and transposed neighbours that take the
general path; max pooling's first-maximum path without padding and the scan it falls back to
(NaN, padding). Values, dtypes, gradients and grad_fn names as torch's; float64 gradcheck and
gradgradcheck."""
import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck


def leaves(lib, arrays, dtype):
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def run(lib, fn, arrays, dtype, contiguous=True):
    """fn's result, its grad_fn name and the gradients of a fixed weighting of it; with
    contiguous=False the first input is a transposed view (its last two dims swapped)."""
    tensors = leaves(lib, arrays, dtype)
    inputs = list(tensors)
    if not contiguous:
        inputs[0] = tensors[0].transpose(-1, -2)
    result = fn(lib, *inputs)
    weights = np.random.default_rng(1).standard_normal(tuple(result.shape))
    (result * lib.tensor(weights, dtype=result.dtype)).sum().backward()
    return result, type(result.grad_fn).__name__, [t.grad for t in tensors]


def assert_like_torch(fn, arrays, dtype, contiguous=True):
    torch = pytest.importorskip("torch")
    ours, our_name, our_grads = run(tapegrad, fn, arrays, dtype, contiguous)
    theirs, their_name, their_grads = run(torch, fn, arrays, dtype, contiguous)
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    assert str(ours.dtype) == str(theirs.dtype) and our_name == their_name
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance,
                               atol=tolerance)
    for mine, reference in zip(our_grads, their_grads):
        assert (mine is None) == (reference is None)
        if reference is not None:
            np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=tolerance,
                                       atol=tolerance)


RNG = np.random.default_rng(12)


def randn(*shape):
    return RNG.standard_normal(shape)


def conv2d(**options):
    return lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, **options)


def conv1d(**options):
    return lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, **options)


def conv_transpose2d(**options):
    return lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, **options)


# (fn, input, weight, bias): the size-keeping ones go through shifted planes
CONVOLUTIONS = {
    "3x3-same": (conv2d(padding=1), (2, 3, 6, 7), (4, 3, 3, 3), 4),
    "1x1": (conv2d(), (2, 3, 4, 5), (4, 3, 1, 1), 4),
    "5x5-pad2": (conv2d(padding=2), (2, 2, 6, 5), (3, 2, 5, 5), 3),
    "dilated-same": (conv2d(padding=2, dilation=2), (2, 2, 7, 6), (3, 2, 3, 3), 3),
    "even-kernel-dilated-same": (conv2d(padding=1, dilation=2), (2, 2, 5, 6), (3, 2, 2, 2), 3),
    "kernel-wider-than-input": (conv2d(padding=2), (2, 2, 2, 3), (3, 2, 5, 5), 3),
    "rectangular-kernel": (conv2d(padding=(1, 0)), (2, 3, 5, 4), (2, 3, 3, 1), 2),
    "groups-same": (conv2d(padding=1, groups=2), (2, 4, 5, 5), (6, 2, 3, 3), 6),
    "depthwise-same": (conv2d(padding=1, groups=3), (2, 3, 5, 6), (3, 1, 3, 3), 3),
    "padding-string-same": (conv2d(padding="same"), (2, 3, 5, 6), (4, 3, 3, 3), 4),
    "padding-same-even-kernel": (conv2d(padding="same"), (2, 3, 5, 6), (4, 3, 2, 4), 4),
    "batch-of-one": (conv2d(padding=1), (1, 3, 4, 4), (2, 3, 3, 3), 2),
    "unbatched": (conv2d(padding=1), (3, 5, 4), (2, 3, 3, 3), 2),
    "stride-2": (conv2d(stride=2, padding=1), (2, 3, 7, 6), (4, 3, 3, 3), 4),
    "stride-2-dilated-groups": (conv2d(stride=(2, 1), padding=(2, 1), dilation=(2, 1),
                                       groups=2), (2, 4, 9, 7), (4, 2, 3, 3), 4),
    "valid": (conv2d(), (2, 3, 6, 5), (4, 3, 3, 2), 4),
    "padding-not-same": (conv2d(padding=2), (2, 3, 5, 5), (2, 3, 3, 3), 2),
    "conv1d-same": (conv1d(padding=1), (2, 3, 7), (4, 3, 3), 4),
    "conv1d-dilated-same": (conv1d(padding=3, dilation=3), (2, 2, 5), (3, 2, 3), 3),
    "conv1d-stride-3": (conv1d(stride=3), (2, 3, 11), (4, 3, 3), 4),
    "transposed-same": (conv_transpose2d(padding=1), (2, 3, 5, 6), (3, 4, 3, 3), 4),
    "transposed-stride-2": (conv_transpose2d(stride=2, padding=1, output_padding=1),
                            (2, 3, 4, 5), (3, 2, 3, 3), 2),
    "transposed-groups-dilated": (conv_transpose2d(padding=2, groups=2, dilation=2),
                                  (2, 4, 5, 4), (4, 3, 3, 3), 6),
}


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_convolution_like_torch(name, dtype):
    fn, input, weight, bias = CONVOLUTIONS[name]
    assert_like_torch(fn, [randn(*input), randn(*weight), randn(bias)], dtype)


@pytest.mark.parametrize("name", ["3x3-same", "groups-same", "stride-2", "transposed-same"])
def test_convolution_of_a_non_contiguous_input_like_torch(name):
    fn, input, weight, bias = CONVOLUTIONS[name]
    swapped = input[:-2] + input[:-3:-1]
    assert_like_torch(fn, [randn(*swapped), randn(*weight), randn(bias)], "float32",
                      contiguous=False)


def test_convolution_of_an_empty_batch_like_torch():
    fn, _, weight, bias = CONVOLUTIONS["3x3-same"]
    assert_like_torch(fn, [randn(0, 3, 4, 4), randn(*weight), randn(bias)], "float64")


GRADCHECKED = ["3x3-same", "1x1", "even-kernel-dilated-same", "kernel-wider-than-input",
               "depthwise-same", "stride-2-dilated-groups", "conv1d-dilated-same",
               "transposed-same", "transposed-groups-dilated"]


def _float64_leaves(name, batch=1):
    fn, input, weight, bias = CONVOLUTIONS[name]
    input = (batch,) + input[1:] if len(input) == len(weight) else input
    arrays = [randn(*input) * 0.5, randn(*weight) * 0.5, randn(bias)]
    return (lambda *tensors: fn(tapegrad, *tensors)), leaves(tapegrad, arrays, "float64")


@pytest.mark.parametrize("name", GRADCHECKED)
def test_convolution_gradcheck(name):
    fn, tensors = _float64_leaves(name, batch=2)
    assert gradcheck(fn, tensors)


@pytest.mark.parametrize("name", ["3x3-same", "even-kernel-dilated-same", "transposed-same"])
def test_convolution_gradgradcheck(name):
    fn, tensors = _float64_leaves(name)
    assert gradgradcheck(fn, tensors)


def test_double_backward_through_size_keeping_convolution_like_torch():
    """create_graph=True: the gradient's graph and second derivatives as torch's."""
    torch = pytest.importorskip("torch")
    arrays = [randn(2, 3, 5, 5), randn(4, 3, 3, 3)]

    def scenario(lib):
        x, w = leaves(lib, arrays, "float64")
        y = lib.nn.functional.conv2d(x, w, padding=1)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        names = [type(g.grad_fn).__name__ for g in (gx, gw)]
        (gx.square().sum() + gw.sum()).backward()
        return names, x.grad.numpy(), w.grad.numpy()

    ours, theirs = scenario(tapegrad), scenario(torch)
    assert ours[0] == theirs[0]
    for mine, reference in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-10)


def test_unfold_and_fold_of_size_keeping_windows_like_torch():
    fold = lambda lib, x: lib.nn.functional.fold(  # noqa: E731
        lib.nn.functional.unfold(x, (3, 3), padding=1) * 2, (5, 6), (3, 3), padding=1)
    assert_like_torch(fold, [randn(2, 3, 5, 6)], "float64")


# ---- max pooling ---------------------------------------------------------------------------

def max_pool2d(**options):
    def pool(lib, x):
        values, indices = lib.nn.functional.max_pool2d(x, return_indices=True, **options)
        return values + indices.to(values.dtype) * 1e-3  # indices compared too
    return pool


def with_ties(*shape):
    """Values from a few levels, so windows hold equal maxima."""
    return RNG.integers(-2, 2, shape).astype(float)


# (fn, input): without padding the first-maximum path, with it torch's scan
POOLS = {
    "2x2": (max_pool2d(kernel_size=2), randn(2, 3, 6, 8)),
    "2x2-ties": (max_pool2d(kernel_size=2), with_ties(2, 3, 6, 8)),
    "2x2-odd-size": (max_pool2d(kernel_size=2), randn(2, 2, 7, 5)),
    "2x2-ceil": (max_pool2d(kernel_size=2, ceil_mode=True), randn(2, 2, 7, 5)),
    "3x3-stride-2-overlapping-ties": (max_pool2d(kernel_size=3, stride=2), with_ties(2, 2, 9, 8)),
    "3x3-stride-1-ceil": (max_pool2d(kernel_size=3, stride=2, ceil_mode=True),
                          with_ties(1, 2, 6, 6)),
    "dilated": (max_pool2d(kernel_size=2, stride=1, dilation=2), with_ties(2, 2, 6, 7)),
    "1x1": (max_pool2d(kernel_size=1), randn(2, 2, 3, 3)),
    "rectangular": (max_pool2d(kernel_size=(1, 3), stride=(2, 3)), with_ties(2, 2, 5, 9)),
    "unbatched": (max_pool2d(kernel_size=2), randn(3, 4, 6)),
    "padding": (max_pool2d(kernel_size=3, stride=2, padding=1), with_ties(2, 2, 7, 6)),
    "minus-infinity": (max_pool2d(kernel_size=2),
                       np.where(randn(2, 2, 4, 4) > 0, -np.inf, randn(2, 2, 4, 4))),
    "minus-infinity-padding": (max_pool2d(kernel_size=3, stride=2, padding=1),
                               np.full((1, 2, 5, 5), -np.inf)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(POOLS))
def test_max_pool2d_like_torch(name, dtype):
    fn, input = POOLS[name]
    assert_like_torch(fn, [input], dtype)


@pytest.mark.parametrize("name", ["2x2-ties", "3x3-stride-2-overlapping-ties"])
def test_max_pool2d_of_a_non_contiguous_input_like_torch(name):
    fn, input = POOLS[name]
    assert_like_torch(fn, [np.swapaxes(input, -1, -2)], "float32", contiguous=False)


def test_max_pool2d_with_nan_takes_the_last_nan_like_torch():
    torch = pytest.importorskip("torch")
    x = randn(2, 2, 4, 6)
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = x[1, 1, 2, 3] = np.nan

    def scenario(lib):
        values, indices = lib.nn.functional.max_pool2d(lib.tensor(x), 2, return_indices=True)
        return values.numpy(), indices.numpy()

    ours, theirs = scenario(tapegrad), scenario(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_max_pool2d_of_integers_like_torch(dtype):
    torch = pytest.importorskip("torch")
    x = RNG.integers(0, 4, (2, 3, 6, 5))

    def scenario(lib):
        values, indices = lib.nn.functional.max_pool2d(lib.tensor(x, dtype=getattr(lib, dtype)),
                                                       (2, 3), stride=(2, 1),
                                                       return_indices=True)
        return str(values.dtype), values.numpy(), indices.numpy()

    ours, theirs = scenario(tapegrad), scenario(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_max_pool1d_like_torch():
    pool = lambda lib, x: lib.nn.functional.max_pool1d(x, 3, stride=2)  # noqa: E731
    assert_like_torch(pool, [with_ties(2, 3, 11)], "float64")


@pytest.mark.parametrize("name", ["2x2", "3x3-stride-2-overlapping-ties", "padding"])
def test_max_pool2d_gradcheck(name):
    options = {"2x2": {"kernel_size": 2},
               "3x3-stride-2-overlapping-ties": {"kernel_size": 3, "stride": 2},
               "padding": {"kernel_size": 3, "stride": 2, "padding": 1}}[name]
    # distinct values: finite differences cannot cross a tie
    x = tapegrad.tensor(RNG.permutation(2 * 2 * 7 * 6).reshape(2, 2, 7, 6) / 10.0,
                        requires_grad=True)
    pool = lambda x: tapegrad.nn.functional.max_pool2d(x, **options)  # noqa: E731
    assert gradcheck(pool, [x])
    assert gradgradcheck(pool, [x])


# ---- average pooling and the other linear maps along axes ----------------------------------

def avg_pool2d(**options):
    return lambda lib, x: lib.nn.functional.avg_pool2d(x, **options)


# evenly spaced window positions read the input through views; the rest gather
LINEAR_MAPS = {
    "avg-2x2": avg_pool2d(kernel_size=2),
    "avg-2x2-odd-size": avg_pool2d(kernel_size=2),
    "avg-3x3-stride-2": avg_pool2d(kernel_size=3, stride=2),
    "avg-3x3-stride-2-padding": avg_pool2d(kernel_size=3, stride=2, padding=1),
    "avg-padding-excluded": avg_pool2d(kernel_size=3, stride=2, padding=1,
                                       count_include_pad=False),
    "avg-ceil": avg_pool2d(kernel_size=2, ceil_mode=True),
    "avg-divisor": avg_pool2d(kernel_size=(2, 3), stride=(1, 2), divisor_override=5),
    "avg1d": lambda lib, x: lib.nn.functional.avg_pool1d(x.flatten(-2), 3, stride=2),
    "adaptive-avg": lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
    "nearest": lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2),
    "bilinear": lambda lib, x: lib.nn.functional.interpolate(x, size=(9, 4), mode="bilinear"),
}
SHAPES = {"avg-2x2-odd-size": (2, 3, 7, 5), "avg-ceil": (2, 3, 7, 5)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(LINEAR_MAPS))
def test_linear_map_along_axes_like_torch(name, dtype):
    assert_like_torch(LINEAR_MAPS[name], [randn(*SHAPES.get(name, (2, 3, 6, 8)))], dtype)


@pytest.mark.parametrize("name", ["avg-2x2", "avg-3x3-stride-2", "nearest"])
def test_linear_map_of_a_non_contiguous_input_like_torch(name):
    assert_like_torch(LINEAR_MAPS[name], [randn(2, 3, 8, 6)], "float32", contiguous=False)


def test_avg_pool2d_of_integers_like_torch():
    torch = pytest.importorskip("torch")
    x = RNG.integers(-9, 9, (2, 3, 6, 5))

    def scenario(lib):
        result = lib.nn.functional.avg_pool2d(lib.tensor(x), 2)
        return str(result.dtype), result.numpy()

    ours, theirs = scenario(tapegrad), scenario(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("name", ["avg-2x2", "avg-3x3-stride-2-padding", "adaptive-avg"])
def test_linear_map_gradcheck(name):
    x = tapegrad.tensor(randn(2, 2, 6, 7), requires_grad=True)
    fn = lambda x: LINEAR_MAPS[name](tapegrad, x)  # noqa: E731
    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])
