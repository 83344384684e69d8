"""3-d convolution (conv3d, conv_transpose3d) and its layers (Conv3d, ConvTranspose3d) beyond
the op database: float64 gradcheck and gradgradcheck; against torch, values, dtypes, gradients,
grad_fn names, the double-backward graph, empty and unbatched inputs, error types and texts,
and the layers' reprs, state_dicts and outputs."""
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck
from test_ops import assert_raises_like_torch, labelled_params


def F(lib):
    return lib.nn.functional


def randn(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


def R(lib, *shape, dtype="float32", requires_grad=False):
    return lib.tensor(randn(*shape), dtype=getattr(lib, dtype), requires_grad=requires_grad)


# name: (function of (lib, input, weight, bias), input shape, weight shape, bias size or None)
CONVOLUTIONS = {
    "plain": (lambda lib, x, w, b: F(lib).conv3d(x, w, b), (2, 2, 4, 5, 3), (3, 2, 2, 3, 2), 3),
    "strided-padded": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, stride=(2, 1, 2),
                                                          padding=(1, 0, 2)),
                       (1, 2, 5, 4, 5), (2, 2, 3, 2, 3), 2),
    "dilated-grouped": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, dilation=(1, 2, 1),
                                                           groups=2),
                        (1, 4, 3, 5, 4), (4, 2, 2, 2, 2), 4),
    "same": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding="same"),
             (1, 2, 4, 4, 3), (2, 2, 3, 3, 3), 2),
    "same-even-kernel": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding="same",
                                                            dilation=(1, 1, 3)),
                         (1, 1, 3, 4, 5), (2, 1, 2, 3, 2), 2),
    "valid-unbatched": (lambda lib, x, w, b: F(lib).conv3d(x, w, b, padding="valid"),
                        (2, 4, 3, 5), (3, 2, 2, 2, 3), 3),
    "transposed": (lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b, stride=2, padding=1,
                                                                output_padding=1),
                   (1, 2, 3, 2, 3), (2, 3, 3, 2, 3), 3),
    "transposed-grouped-dilated": (
        lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b, stride=(1, 2, 1), groups=2,
                                                     dilation=(2, 1, 1),
                                                     output_padding=(0, 1, 0)),
        (2, 4, 2, 3, 2), (4, 1, 2, 2, 3), 2),
    "transposed-unbatched": (lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b),
                             (2, 3, 2, 2), (2, 2, 2, 3, 2), None),
}


def _leaves(lib, name, dtype):
    _, input, weight, bias = CONVOLUTIONS[name]
    arrays = [randn(*input) * 0.5, randn(*weight) * 0.5] + ([randn(bias)] if bias else [])
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _call(lib, name, tensors):
    fn = CONVOLUTIONS[name][0]
    return fn(lib, *tensors) if len(tensors) == 3 else fn(lib, *tensors, None)


@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_convolution_gradcheck(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # padding='same' with an even kernel
        assert gradcheck(lambda *t: _call(tapegrad, name, t), _leaves(tapegrad, name, "float64"))


@pytest.mark.parametrize("name", ["plain", "dilated-grouped", "transposed"])
def test_convolution_gradgradcheck(name):
    assert gradgradcheck(lambda *t: _call(tapegrad, name, t), _leaves(tapegrad, name, "float64"))


def _observed(lib, name, dtype):
    tensors = _leaves(lib, name, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _call(lib, name, tensors)
    weights = lib.tensor(randn(*result.shape, seed=1), dtype=result.dtype)
    (result * weights).sum().backward()
    return result, type(result.grad_fn).__name__, [t.grad for t in tensors]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_convolution_like_torch(name, dtype):
    torch = pytest.importorskip("torch")
    ours, our_name, our_grads = _observed(tapegrad, name, dtype)
    theirs, their_name, their_grads = _observed(torch, name, dtype)
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    assert (str(ours.dtype), tuple(ours.shape), our_name) == (str(theirs.dtype),
                                                             tuple(theirs.shape), their_name)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance,
                               atol=tolerance)
    for mine, reference in zip(our_grads, their_grads):
        np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=tolerance,
                                   atol=tolerance)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
@pytest.mark.parametrize("name", ["plain", "transposed"])
def test_double_backward_graph_like_torch(name):
    torch = pytest.importorskip("torch")

    def observed(lib):
        tensors = _leaves(lib, name, "float64")
        result = _call(lib, name, tensors)
        grads = lib.autograd.grad(result.pow(2).sum(), tensors, create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), tensors[:2])
        return [type(g.grad_fn).__name__ for g in grads], [g.detach().numpy() for g in second]
    our_names, our_second = observed(tapegrad)
    their_names, their_second = observed(torch)
    assert our_names == their_names
    for mine, reference in zip(our_second, their_second):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-10)


def test_empty_batch_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        x = lib.zeros(0, 2, 3, 4, 3, dtype=lib.float64, requires_grad=True)
        w = R(lib, 3, 2, 2, 2, 2, dtype="float64", requires_grad=True)
        y = F(lib).conv3d(x, w, padding=1)
        t = F(lib).conv_transpose3d(x, w.transpose(0, 1), stride=2)
        (y.sum() + t.sum()).backward()
        return tuple(y.shape), tuple(t.shape), w.grad.abs().sum().item(), tuple(x.grad.shape)
    assert observed(tapegrad) == observed(torch)


def _conv3d(input_shape, weight_shape, dtype="float32", **options):
    return lambda lib: F(lib).conv3d(R(lib, *input_shape, dtype=dtype),
                                     R(lib, *weight_shape, dtype=dtype), **options)


def _weights_of_dtype(input_shape, weight_shape, dtype, bias=None, transposed=False,
                      **options):
    def call(lib):
        conv = F(lib).conv_transpose3d if transposed else F(lib).conv3d
        channels = weight_shape[1] * options.get("groups", 1) if transposed else weight_shape[0]
        return conv(R(lib, *input_shape), R(lib, *weight_shape, dtype=dtype),
                    bias and R(lib, channels, dtype=bias), **options)
    return call


def _transposed(input_shape, weight_shape, **options):
    return lambda lib: F(lib).conv_transpose3d(R(lib, *input_shape), R(lib, *weight_shape),
                                               **options)


ERRORS = {
    "input-3d": _conv3d((2, 4, 4), (2, 2, 2, 2, 2)),
    "input-6d": _conv3d((1, 1, 2, 4, 4, 4), (2, 2, 2, 2, 2)),
    "weight-4d": _conv3d((1, 2, 4, 4, 4), (2, 2, 2, 2)),
    "in-channels": _conv3d((1, 3, 4, 4, 4), (2, 2, 2, 2, 2)),
    "groups": _conv3d((1, 4, 4, 4, 4), (3, 2, 2, 2, 2), groups=2),
    "kernel-too-big": _conv3d((1, 2, 4, 4, 4), (2, 2, 5, 2, 2)),
    "stride-2-values": _conv3d((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), stride=(1, 1)),
    "padding-negative": _conv3d((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), padding=-1),
    "padding-string": _conv3d((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), padding="full"),
    "same-strided": _conv3d((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), padding="same", stride=2),
    "bias-size": lambda lib: F(lib).conv3d(R(lib, 1, 2, 4, 4, 4), R(lib, 2, 2, 2, 2, 2),
                                           R(lib, 3)),
    # torch words a dtype mismatch by the path it picks (MKLDNN for groups, a batch, big
    # kernels)
    "weight-dtype": _weights_of_dtype((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), "float64"),
    "weight-dtype-batch": _weights_of_dtype((2, 2, 4, 4, 4), (2, 2, 2, 2, 2), "float64"),
    "weight-dtype-groups": _weights_of_dtype((1, 2, 4, 4, 4), (2, 1, 2, 2, 2), "float64",
                                             groups=2),
    "weight-dtype-big-kernel": _weights_of_dtype((1, 2, 8, 8, 8), (2, 2, 2, 4, 4), "float64"),
    "weight-dtype-many-elements": _weights_of_dtype((1, 2, 30, 30, 30), (2, 2, 2, 2, 2),
                                                    "float64"),
    "bias-dtype": _weights_of_dtype((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), "float32", bias="float64"),
    "transposed-weight-dtype": _weights_of_dtype((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), "float64",
                                                 transposed=True),
    "transposed-weight-dtype-batch": _weights_of_dtype((2, 2, 4, 4, 4), (2, 2, 2, 2, 2),
                                                       "float64", transposed=True),
    "transposed-bias-dtype": _weights_of_dtype((1, 2, 4, 4, 4), (2, 2, 2, 2, 2), "float32",
                                               bias="float64", transposed=True),
    "transposed-bias-dtype-batch": _weights_of_dtype((2, 2, 4, 4, 4), (2, 2, 2, 2, 2),
                                                     "float32", bias="float64", transposed=True),
    "transposed-double-bias-float": lambda lib: F(lib).conv_transpose3d(
        R(lib, 1, 2, 3, 3, 3, dtype="float64"), R(lib, 2, 2, 2, 2, 2, dtype="float64"),
        R(lib, 2)),
    "transposed-output-padding": _transposed((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), stride=2,
                                             output_padding=2),
    "transposed-too-small": _transposed((1, 2, 1, 1, 1), (2, 2, 1, 1, 1), padding=1),
    "transposed-channels": _transposed((1, 3, 3, 3, 3), (2, 2, 2, 2, 2)),
    "transposed-padding-string": _transposed((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), padding="same"),
    "transposed-input-3d": _transposed((2, 3, 3), (2, 2, 2, 2, 2)),
}


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
def test_error_matches_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like_torch(fn)


LAYERS = {
    "conv": ("Conv3d", (2, 4, 3), {}, (2, 2, 5, 6, 7)),
    "conv-options": ("Conv3d", (2, 4, (1, 2, 3)), dict(stride=(1, 2, 1), padding=1,
                                                       dilation=(1, 1, 2), groups=2, bias=False),
                     (1, 2, 5, 6, 7)),
    "conv-reflect": ("Conv3d", (2, 4, 3), dict(padding=(1, 0, 2), padding_mode="reflect"),
                     (1, 2, 5, 6, 7)),
    "conv-same-circular": ("Conv3d", (2, 4, 2), dict(padding="same", padding_mode="circular"),
                           (2, 5, 6, 7)),
    "transposed": ("ConvTranspose3d", (2, 4, 3), dict(stride=2, output_padding=1),
                   (1, 2, 3, 4, 5)),
    "transposed-options": ("ConvTranspose3d", (2, 4, (2, 3, 1)), dict(groups=2, dilation=2,
                                                                      bias=False),
                           (2, 3, 4, 5)),
}


@pytest.mark.parametrize("case", labelled_params(LAYERS))
def test_layer_like_torch(case):
    torch = pytest.importorskip("torch")
    name, args, kwargs, shape = case
    theirs, ours = getattr(torch.nn, name)(*args, **kwargs), getattr(tapegrad.nn, name)(*args,
                                                                                      **kwargs)
    assert repr(ours) == repr(theirs)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    ours.load_state_dict({k: tapegrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = randn(*shape)
    expected = theirs(torch.tensor(x, dtype=torch.float32))
    result = ours(tapegrad.tensor(x, dtype=tapegrad.float32))
    np.testing.assert_allclose(result.detach().numpy(), expected.detach().numpy(), rtol=1e-4,
                               atol=1e-4)


def test_transposed_layer_output_size_like_torch():
    torch = pytest.importorskip("torch")

    def observed(lib):
        lib.manual_seed(0)
        layer = lib.nn.ConvTranspose3d(2, 3, 3, stride=2)
        x = R(lib, 1, 2, 3, 3, 3)
        return tuple(layer(x, output_size=(8, 7, 8)).shape)
    assert observed(tapegrad) == observed(torch)
    with pytest.raises(ValueError, match="requested an output size of"):
        tapegrad.nn.ConvTranspose3d(2, 3, 3, stride=2)(R(tapegrad, 1, 2, 3, 3, 3),
                                                       output_size=(10, 7, 7))


def test_functions_are_where_torch_has_them():
    torch = pytest.importorskip("torch")
    for name in ("conv3d", "conv_transpose3d"):
        assert hasattr(torch, name) and hasattr(tapegrad, name)
        assert hasattr(tapegrad.nn.functional, name)
