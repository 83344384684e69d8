"""nn.AdaptiveLogSoftmaxWithLoss against torch: same seed, same weights; output, loss,
gradients, log_prob, predict, and torch's errors."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

X = np.random.default_rng(0).standard_normal((6, 8))


def _run(lib, target, head_bias=False, batched=True):
    lib.manual_seed(0)
    model = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 6], div_value=2.0,
                                              head_bias=head_bias).double()
    inputs = lib.tensor(X if batched else X[0], requires_grad=True)
    result = model(inputs, lib.tensor(target))
    result.loss.backward()
    rows = inputs if batched else inputs.unsqueeze(0)
    return [repr(model), result.output.detach().numpy(), result.loss.item(),
            inputs.grad.numpy(), *(p.grad if p.grad is None else p.grad.numpy()
                                   for p in model.parameters()),
            model.log_prob(rows).detach().numpy(), model.predict(rows).tolist()]


@pytest.mark.parametrize("target, options", [
    ([0, 3, 9, 5, 1, 7], {}), ([0, 1, 1, 0, 1, 0], {"head_bias": True}),
    ([8, 9, 7, 6, 9, 8], {}), (4, {"batched": False})])
def test_adaptive_log_softmax_matches_torch(target, options):
    torch = torch_or_skip()
    mine, theirs = _run(tapegrad, target, **options), _run(torch, target, **options)
    assert mine[0] == theirs[0] and mine[-1] == theirs[-1]
    assert len(mine) == len(theirs)
    for got, want in zip(mine[1:-1], theirs[1:-1]):
        if want is None:  # a cluster no target reached has no gradient
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_log_prob_is_a_distribution_without_torch():
    model = tapegrad.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])
    probabilities = model.log_prob(tapegrad.tensor(X, dtype=tapegrad.float32)).exp()
    np.testing.assert_allclose(probabilities.sum(1).detach().numpy(), 1.0, rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2])(lib.zeros(3, 8),
                                                            lib.tensor([1, 2, 10])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2])(lib.zeros(3, 8),
                                                            lib.tensor([1, 2])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2])(lib.zeros(3, 8),
                                                            lib.zeros(3, 1).long()),
])
def test_errors_match_torch(call):
    torch = torch_or_skip()
    raised = []
    for lib in (tapegrad, torch):
        with pytest.raises(Exception) as info:
            call(lib)
        raised.append((type(info.value).__name__, str(info.value)))
    assert raised[0] == raised[1]
