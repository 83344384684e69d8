"""utils.checkpoint: same gradients as the plain forward, less memory held between passes."""
import tracemalloc
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad.utils.checkpoint import checkpoint, checkpoint_sequential

STRATEGIES = [True, False]  # use_reentrant


def _torch():
    pytest.importorskip("torch")
    import torch.utils.checkpoint  # the submodule is not imported by torch
    return torch


def segment(a, b):
    return (a.sin() * b).exp().tanh()


def checkpointed_grads(lib, use_reentrant):
    x = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.5, -0.5, 2.0], dtype=lib.float64, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(segment, x, w, use_reentrant=use_reentrant)
    (y * y).sum().backward()
    return y.grad_fn.name(), x.grad.tolist(), w.grad.tolist()


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_gives_the_plain_gradients(use_reentrant):
    x = tapegrad.tensor([0.1, 0.2, 0.3], dtype=tapegrad.float64, requires_grad=True)
    w = tapegrad.tensor([1.5, -0.5, 2.0], dtype=tapegrad.float64, requires_grad=True)
    y = segment(x, w)
    (y * y).sum().backward()
    name, x_grad, w_grad = checkpointed_grads(tapegrad, use_reentrant)
    assert name == ("CheckpointFunctionBackward" if use_reentrant else "TanhBackward0")
    assert x_grad == x.grad.tolist() and w_grad == w.grad.tolist()


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_matches_torch(use_reentrant):
    ours = checkpointed_grads(tapegrad, use_reentrant)
    theirs = checkpointed_grads(_torch(), use_reentrant)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1:], theirs[1:], rtol=1e-14)


def deep_chain(x, blocks, wrap):
    for _ in range(blocks):
        x = wrap(lambda t: t.sin().exp().tanh().sigmoid().cos(), x)
    return x.sum()


def peak_activations(blocks, wrap, size=20_000):
    """Peak traced memory over forward + backward, in units of one activation array."""
    x = tapegrad.randn(size, dtype=tapegrad.float64, requires_grad=True)
    tracemalloc.start()
    try:
        deep_chain(x, blocks, wrap).backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / (size * 8), x.grad.numpy()


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_lowers_the_peak_of_live_saved_arrays(use_reentrant):
    tapegrad.manual_seed(0)
    plain_peak, plain_grad = peak_activations(24, lambda f, x: f(x))
    tapegrad.manual_seed(0)
    peak, grad = peak_activations(
        24, lambda f, x: checkpoint(f, x, use_reentrant=use_reentrant))
    # Each block saves 4 distinct arrays (its input for sin, the results of exp, tanh and
    # sigmoid; cos saves sigmoid's), so 24 blocks keep ~96 alive until backward. Checkpointed,
    # only the 24 block outputs stay, plus one block's recomputation at a time.
    assert plain_peak > 90
    assert peak < 36
    np.testing.assert_array_equal(grad, plain_grad)


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_replays_the_random_stream(use_reentrant):
    tapegrad.manual_seed(3)
    x = tapegrad.ones(1000, dtype=tapegrad.float64, requires_grad=True)
    y = checkpoint(lambda t: tapegrad.nn.functional.dropout(t * 2, 0.5), x,
                   use_reentrant=use_reentrant)
    y.sum().backward()
    # the gradient is 4 where dropout kept an element (2 * 1/(1-p)), 0 elsewhere, as in y
    np.testing.assert_array_equal(x.grad.numpy(), (y.detach().numpy() != 0) * 4.0)


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_replays_a_devices_random_stream(use_reentrant):
    """On cuda (the test double), dropout draws from the device's generator: the replay in
    backward restores that one too, so the mask is the forward's."""
    import device_double
    device_double.install(count=2)
    try:
        x = tapegrad.ones(1000, dtype=tapegrad.float64, device="cuda:1", requires_grad=True)
        y = checkpoint(lambda t: tapegrad.nn.functional.dropout(t * 2, 0.5), x,
                       use_reentrant=use_reentrant)
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), (y.detach().cpu().numpy() != 0) * 4.0)
    finally:
        device_double.uninstall()


def test_reentrant_checkpoint_refuses_autograd_grad_as_torch():
    def attempt(lib):
        x = lib.ones(3, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: t.exp(), x, use_reentrant=True)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(y.sum(), x)
        return str(info.value)
    assert attempt(tapegrad) == attempt(_torch())


def test_non_reentrant_checkpoint_works_with_autograd_grad():
    x = tapegrad.tensor([0.5, 1.0], dtype=tapegrad.float64, requires_grad=True)
    y = checkpoint(lambda t: t.exp() * t, x, use_reentrant=False)
    grad, = tapegrad.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(grad.numpy(), np.exp([0.5, 1.0]) * [1.5, 2.0], rtol=1e-15)


def test_checkpoint_warns_without_use_reentrant_and_rejects_unknown_keywords():
    x = tapegrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        checkpoint(lambda t: t * 2, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint(lambda t: t * 2, x, use_reentrant=True, foo=1)


@pytest.mark.parametrize("use_reentrant", STRATEGIES)
def test_checkpoint_sequential_gives_the_plain_gradients(use_reentrant):
    functions = [lambda t: t.sin(), lambda t: t * 3, lambda t: t.exp(), lambda t: t.tanh(),
                 lambda t: t * t]
    x = tapegrad.tensor([0.1, -0.4], dtype=tapegrad.float64, requires_grad=True)
    checkpoint_sequential(functions, 2, x, use_reentrant=use_reentrant).sum().backward()
    expected = x.grad.clone()
    x.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = x
        for function in functions:
            value = function(value)
    value.sum().backward()
    np.testing.assert_allclose(expected.numpy(), x.grad.numpy(), rtol=1e-15)


def test_checkpoint_sequential_takes_a_sequential_module():
    tapegrad.manual_seed(0)
    model = tapegrad.nn.Sequential(tapegrad.nn.Linear(3, 4), tapegrad.nn.Tanh(),
                                   tapegrad.nn.Linear(4, 2))
    x = tapegrad.randn(5, 3)
    checkpoint_sequential(model, 2, x, use_reentrant=False).sum().backward()
    expected = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for grad, parameter in zip(expected, model.parameters()):
        np.testing.assert_array_equal(grad.numpy(), parameter.grad.numpy())
