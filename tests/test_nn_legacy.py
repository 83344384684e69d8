"""torch.nn's legacy names and torch.nn.grad: nn.Container, nn.NLLLoss2d, nn.CrossMapLRN2d, and
the convolution gradients conv{1,2,3}d_input/_weight."""
import warnings

import numpy as np
import pytest

import tapegrad
import tapegrad.nn as nn
from compare import torch_or_skip


def test_container_adds_its_keywords_as_children_and_warns_as_torch():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        class Block(nn.Container):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # making a subclass's instance does not warn again
        block = Block(linear=nn.Linear(2, 3), act=nn.ReLU())
    assert list(dict(block.named_children())) == ["linear", "act"]
    with pytest.warns(FutureWarning, match="Subclass that instead"):
        nn.Container(act=nn.ReLU())


def test_nll_loss_2d_is_nll_loss_with_torchs_warning():
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    scores, target = rng.standard_normal((2, 3, 4, 4)), rng.integers(0, 3, (2, 4, 4))
    weight = np.array([0.2, 1.0, 3.0])
    with pytest.warns(FutureWarning) as mine:
        ours = nn.NLLLoss2d(tapegrad.tensor(weight), ignore_index=1)
    with pytest.warns(FutureWarning) as theirs:
        reference = torch.nn.NLLLoss2d(torch.tensor(weight), ignore_index=1)
    assert str(mine[0].message) == str(theirs[0].message)
    assert isinstance(ours, nn.NLLLoss) and repr(ours) == repr(reference)
    np.testing.assert_allclose(ours(tapegrad.tensor(scores), tapegrad.tensor(target)).item(),
                               reference(torch.tensor(scores), torch.tensor(target)).item(),
                               rtol=1e-12)


def _lrn_by_torchs_loops(x, size, alpha, beta, k, grad):
    """torch's CrossMapLRN2d, forward and backward, as its running-sum loops compute them."""
    channels, square = x.shape[1], x * x
    reach = int((size - 1) / 2 + 1)
    scale = np.zeros_like(x)
    scale[:, 0] = square[:, :min(reach, channels)].sum(1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - reach + 1:
            scale[:, c] += square[:, c + reach - 1]
        if c > reach:
            scale[:, c] -= square[:, c - reach]
    scale = scale * alpha / size + k
    output = x * scale ** -beta
    pad = int(size - (size - 1) / 2)
    padded = np.zeros((x.shape[0], channels + size - 1) + x.shape[2:])
    padded[:, pad:pad + channels] = grad * output / scale
    grad_input = scale ** -beta * grad
    for c in range(channels):
        grad_input[:, c] -= 2 * alpha * beta / size * x[:, c] * padded[:, c:c + size].sum(1)
    return output, grad_input


@pytest.mark.parametrize("size", [2, 3, 4, 5, 9])
@pytest.mark.parametrize("channels", [1, 3, 6])
def test_cross_map_lrn_2d_follows_torchs_recurrences(size, channels):
    rng = np.random.default_rng(size * 10 + channels)
    x, grad = rng.standard_normal((2, channels, 3, 2)), rng.standard_normal((2, channels, 3, 2))
    expected_output, expected_grad = _lrn_by_torchs_loops(x, size, 0.3, 0.6, 1.5, grad)
    input = tapegrad.tensor(x, requires_grad=True)
    output = nn.CrossMapLRN2d(size, 0.3, 0.6, 1.5)(input)
    output.backward(tapegrad.tensor(grad))
    assert output.grad_fn.name() == "CrossMapLRN2dBackward"
    np.testing.assert_allclose(output.detach().numpy(), expected_output, rtol=1e-12)
    np.testing.assert_allclose(input.grad.numpy(), expected_grad, rtol=1e-12, atol=1e-14)


def test_cross_map_lrn_2d_matches_torch_and_its_errors():
    torch = torch_or_skip()
    x = np.random.default_rng(3).standard_normal((2, 5, 3, 3))
    outputs, errors = [], []
    for lib in (tapegrad, torch):
        layer = lib.nn.CrossMapLRN2d(3, alpha=0.2)
        input = lib.tensor(x, requires_grad=True)
        output = layer(input)
        output.sum().backward()
        outputs.append((repr(layer), output.detach().numpy(), input.grad.numpy(),
                        output.grad_fn.name()))
        with pytest.raises(ValueError) as not_4d:
            layer(lib.ones(2, 3))
        ones = lib.ones(1, 2, 2, 2, requires_grad=True)
        with pytest.raises(RuntimeError) as no_room:  # size 1: torch's backward cannot run
            lib.nn.CrossMapLRN2d(1)(ones).sum().backward()
        errors.append((str(not_4d.value), str(no_room.value)))
    (repr_a, out_a, grad_a, name_a), (repr_b, out_b, grad_b, name_b) = outputs
    assert (repr_a, name_a) == (repr_b, name_b)
    np.testing.assert_allclose(out_a, out_b, rtol=1e-12)
    np.testing.assert_allclose(grad_a, grad_b, rtol=1e-12)
    assert errors[0] == errors[1]


CONV_CASES = [(1, dict()), (2, dict(stride=2, padding=1, groups=2)),
              (2, dict(stride=(1, 2), padding=(0, 1), dilation=2)), (3, dict(padding=1))]


def _conv_case(nd, options):
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 4) + (7,) * nd)
    w = rng.standard_normal((6, 4 // options.get("groups", 1)) + (3,) * nd)
    return x, w


@pytest.mark.parametrize("nd, options", CONV_CASES)
def test_nn_grad_is_the_convolutions_gradient(nd, options):
    x, w = _conv_case(nd, options)
    conv = getattr(nn.functional, f"conv{nd}d")
    input = tapegrad.tensor(x, requires_grad=True)
    weight = tapegrad.tensor(w, requires_grad=True)
    output = conv(input, weight, **options)
    grad = tapegrad.tensor(np.random.default_rng(9).standard_normal(output.shape))
    expected_input, expected_weight = tapegrad.autograd.grad(output, (input, weight), grad)
    got_input = getattr(nn.grad, f"conv{nd}d_input")(x.shape, weight, grad, **options)
    got_weight = getattr(nn.grad, f"conv{nd}d_weight")(input, w.shape, grad, **options)
    np.testing.assert_allclose(got_input.detach().numpy(), expected_input.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_weight.detach().numpy(), expected_weight.numpy(),
                               rtol=1e-12)
    assert got_input.grad_fn.name() == got_weight.grad_fn.name() == (
        "ConvolutionBackwardBackward0")
    assert nn.functional.grad is nn.grad
    # differentiable in turn: the input gradient is linear in the weight and in grad
    grad.requires_grad_()
    assert tapegrad.autograd.gradcheck(
        lambda w_, g_: getattr(nn.grad, f"conv{nd}d_input")(x.shape, w_, g_, **options),
        (weight.detach().requires_grad_(), grad))


@pytest.mark.parametrize("nd, options", CONV_CASES)
def test_nn_grad_matches_torch(nd, options):
    torch = torch_or_skip()
    x, w = _conv_case(nd, options)
    shape = getattr(torch.nn.functional, f"conv{nd}d")(torch.tensor(x), torch.tensor(w),
                                                       **options).shape
    g = np.random.default_rng(5).standard_normal(shape)
    results = []
    for lib in (tapegrad, torch):
        weight = lib.tensor(w, requires_grad=True)
        got_input = getattr(lib.nn.grad, f"conv{nd}d_input")(x.shape, weight, lib.tensor(g),
                                                               **options)
        got_weight = getattr(lib.nn.grad, f"conv{nd}d_weight")(lib.tensor(x), w.shape,
                                                                lib.tensor(g), **options)
        results.append((got_input.detach().numpy(), got_weight.numpy(),
                        got_input.grad_fn.name(), got_weight.grad_fn))
    (input_a, weight_a, name_a, node_a), (input_b, weight_b, name_b, node_b) = results
    np.testing.assert_allclose(input_a, input_b, rtol=1e-10)
    np.testing.assert_allclose(weight_a, weight_b, rtol=1e-10)
    assert name_a == name_b and node_a is node_b is None  # no input requires grad: no node
