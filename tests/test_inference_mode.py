"""inference_mode: grad off, inference tensors refused by autograd later, as in torch."""
import pytest

import tapegrad
from compare import error_of


def inference_scenario(lib):
    """What a user observes around inference_mode, as a list of plain values."""
    w = lib.ones(2, requires_grad=True)
    seen = []
    with lib.inference_mode():
        seen += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        x = lib.ones(2)
        y = w * 2
        x.add_(1)  # in-place is fine inside
        seen += [x.is_inference(), w.view(2).is_inference(), y.is_inference(), y.requires_grad]
        with lib.enable_grad():  # grad mode on, yet nothing records
            z = w * 2
            seen += [lib.is_grad_enabled(), z.requires_grad, z.grad_fn is None]
    seen += [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), w.is_inference()]
    with lib.inference_mode(False):
        seen += [lib.is_inference_mode_enabled(), (w * 2).requires_grad]
    seen += [(x + w).grad_fn is not None, x.clone().is_inference(), x.tolist()]
    seen += [error_of(lambda: x * w), error_of(lambda: x.requires_grad_()),
             error_of(lambda: x.add_(1)), error_of(lambda: x.__setitem__(0, 5.))]
    return seen


def test_inference_mode_matchestorch_or_skip():
    ours = inference_scenario(tapegrad)
    assert ours[:5] == [True, False, True, False, True]
    torch = pytest.importorskip("torch")
    assert ours == inference_scenario(torch)


def test_a_refused_inplace_update_leaves_the_inference_tensor_unchanged():
    # torch writes the data before raising; tapegrad checks first
    with tapegrad.inference_mode():
        x = tapegrad.ones(2)
    with pytest.raises(RuntimeError):
        x.add_(1)
    assert x.tolist() == [1.0, 1.0]


def test_inference_mode_decorates_with_and_without_parentheses():
    @tapegrad.inference_mode
    def bare(t):
        return t * 2

    @tapegrad.inference_mode()
    def called(t):
        return t * 2
    w = tapegrad.ones(2, requires_grad=True)
    for function in (bare, called):
        result = function(w)
        assert result.is_inference() and not result.requires_grad
    assert not tapegrad.is_inference_mode_enabled()


def test_inference_mode_restores_the_outer_mode_after_anerror_of():
    with pytest.raises(ValueError):
        with tapegrad.no_grad(), tapegrad.inference_mode():
            raise ValueError
    assert tapegrad.is_grad_enabled() and not tapegrad.is_inference_mode_enabled()


def test_a_leaf_made_in_inference_mode_still_backpropagates_when_not_saved():
    with tapegrad.inference_mode():
        t = tapegrad.tensor([1., 2.], requires_grad=True)
    (t * 2).sum().backward()  # mul by a number saves nothing of t
    assert t.grad.tolist() == [2.0, 2.0]
