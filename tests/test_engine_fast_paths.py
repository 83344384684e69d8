"""The engine's shortcuts must not show: formulas run on arrays (Note [Formulas on arrays] in
ops/_define.py) and gradients taken or summed in place (Note [Unshared gradients] in
autograd/engine.py) give what the Tensor path and torch give, and never alias two gradients."""
import numpy as np
import pytest

import tapegrad
from tapegrad.ops import REGISTRY, _define

from compare import torch_or_skip

BIG = 80  # 80 x 80 = 6400 elements: above the engine's size for unshared gradients


def _big(lib, seed=0, requires_grad=True):
    values = np.random.default_rng(seed).standard_normal((BIG, BIG)).astype(np.float32)
    return lib.tensor(values, requires_grad=requires_grad)


def test_one_gradient_handed_to_two_leaves_is_not_aliased():
    # add's backward hands the same gradient to both inputs; each leaf gets its own .grad
    a, b = _big(tapegrad, 0), _big(tapegrad, 1)
    (a + b).sum().backward()
    assert a.grad._data is not b.grad._data
    a.grad.add_(1.0)
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((BIG, BIG), np.float32))


def test_a_leaf_takes_a_fresh_gradient_without_a_copy_and_later_sums_stay_its_own():
    a, w = _big(tapegrad, 0), _big(tapegrad, 1, requires_grad=False)
    (a * w).sum().backward()
    first = a.grad
    np.testing.assert_array_equal(first.numpy(), w.numpy())
    (a * w).sum().backward()  # accumulates in place into the first .grad, as torch
    assert a.grad is first
    np.testing.assert_array_equal(a.grad.numpy(), 2 * w.numpy())
    np.testing.assert_array_equal(w.numpy(), _big(tapegrad, 1).detach().numpy())


def test_gradients_seen_by_hooks_are_never_changed_afterwards():
    a = _big(tapegrad, 0)
    seen = []
    a.register_hook(lambda grad: seen.append(grad.clone()) or seen.append(grad))
    # two uses of a: its gradient is a sum the engine made; the hook keeps it, then .grad
    (a * 3.0 + a * 5.0).sum().backward()
    copy, kept = seen
    a.grad.add_(100.0)
    np.testing.assert_array_equal(kept.numpy(), copy.numpy())


def test_retained_and_leaf_gradients_do_not_share_memory():
    a = _big(tapegrad, 0)
    h = a * 1.0
    h.retain_grad()
    (h * 3.0 + h * 5.0).sum().backward()
    assert not np.shares_memory(h.grad.numpy(), a.grad.numpy())
    h.grad.zero_()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((BIG, BIG), 8.0, np.float32))


def test_autograd_grad_results_are_not_summed_into_later():
    a = _big(tapegrad, 0)
    h = a * 1.0
    loss = (h * 3.0 + h * 5.0).sum()
    (grad_h,) = tapegrad.autograd.grad(loss, h, retain_graph=True)
    before = grad_h.clone()
    loss.backward()
    np.testing.assert_array_equal(grad_h.numpy(), before.numpy())


def test_fan_in_of_large_gradients_matches_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        a, b = _big(lib, 0), _big(lib, 1)
        h = a @ b
        loss = (h.tanh() + h * a + (h @ b).sigmoid()).sum() + (a * b).sum()
        loss.backward()
        results.append((a.grad.numpy().copy(), b.grad.numpy().copy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-3)


def test_a_formula_needing_tensors_falls_back_and_its_op_stays_on_tensors(monkeypatch):
    op = REGISTRY["mul"]
    original = op.formulas
    calls = []

    def needs_a_tensor(ctx):
        calls.append(type(ctx.grad))
        return ctx.grad.mul(ctx.other)  # Tensor.mul: no such method on an ndarray

    monkeypatch.setattr(op, "formulas", (needs_a_tensor, original[1]))
    monkeypatch.setattr(op, "on_arrays", True)
    x = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    (x * tapegrad.tensor([3.0, 4.0])).sum().backward()
    assert calls == [np.ndarray, tapegrad.Tensor]  # tried on arrays, then run on Tensors
    assert op.on_arrays is False
    assert x.grad.tolist() == [3.0, 4.0]


def test_formulas_on_arrays_agree_with_formulas_on_tensors(monkeypatch):
    monkeypatch.setattr(_define, "CHECK_ARRAYS", True)  # compares both, raises on a difference
    x = tapegrad.randn(5, 7, requires_grad=True, dtype=tapegrad.float64)
    w = tapegrad.randn(7, 3, requires_grad=True, dtype=tapegrad.float64)
    y = (x @ w).tanh().exp().sum(1).log().mean() + x.clamp(-0.5, 0.5).pow(3).sum()
    y.backward()
    assert REGISTRY["_mm"].on_arrays and REGISTRY["tanh"].on_arrays


def test_integer_intermediates_send_a_formula_back_to_tensors():
    # amax's formula counts ties (an integer sum): NumPy would promote float32 / int64 to
    # float64 where torch stays in float32, so the formula must not stay on arrays.
    x = tapegrad.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]], requires_grad=True)
    x.amax(1).sum().backward()
    assert x.grad.dtype is tapegrad.float32
    assert x.grad.tolist() == [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]


def test_grad_runs_only_the_formulas_of_inputs_it_was_asked_for():
    """autograd.grad(out, [q]) leaves x's formula alone (zeta's raises), as torch's engine
    computes only the outputs that lead to the requested inputs."""
    x = tapegrad.tensor([2.0, 3.0], requires_grad=True)
    q = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    out = tapegrad.special.zeta(x, q).sum()
    (grad_q,) = tapegrad.autograd.grad(out, [q], retain_graph=True)
    np.testing.assert_allclose(grad_q.numpy(), [-2.4041138, -0.2469697], rtol=1e-5)
    with pytest.raises(RuntimeError, match="the derivative for 'zeta' is not implemented"):
        tapegrad.autograd.grad(out, [x])
    assert out.grad_fn.next_functions[0][0].next_functions  # the graph is intact
