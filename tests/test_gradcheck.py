"""tapegrad.autograd.gradcheck / gradgradcheck: they pass correct derivatives, catch wrong
ones with torch's message, and agree with torch's verdicts."""
import numpy as np
import pytest

import tapegrad
from tapegrad.autograd.gradcheck import GradcheckError
from tapegrad.ops.pointwise import mul


def _double(lib, shape, seed=0):
    values = np.random.default_rng(seed).uniform(-1, 1, shape)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def test_gradcheck_and_gradgradcheck_pass_correct_derivatives():
    x, w = _double(tapegrad, (3, 4)), _double(tapegrad, (4, 2), seed=1)
    assert tapegrad.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (x, w))
    assert tapegrad.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w))
    # a non-contiguous input is perturbed correctly and left unchanged
    before = x.detach().clone()
    assert tapegrad.autograd.gradcheck(lambda a: a.exp() * 2, (x.t(),))
    assert (x.detach() == before).all()


def _broken_mul_formula(monkeypatch):
    """mul's derivative for input made wrong (grad * other * 1.5)."""
    formulas = list(mul.formulas)
    formulas[0] = lambda ctx: ctx.grad * ctx.other * 1.5
    monkeypatch.setattr(mul, "formulas", tuple(formulas))


def test_gradcheck_catches_a_wrong_derivative_with_torch_text(monkeypatch):
    x = tapegrad.tensor([1.0, 2.0], dtype=tapegrad.float64, requires_grad=True)
    _broken_mul_formula(monkeypatch)
    with pytest.raises(GradcheckError) as info:
        tapegrad.autograd.gradcheck(lambda a: a * 2, (x,))
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 2.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[3., 0.],\n        [0., 3.]], dtype=torch.float64)\n")
    assert tapegrad.autograd.gradcheck(lambda a: a * 2, (x,), raise_exception=False) is False


def test_gradgradcheck_catches_a_wrong_second_derivative(monkeypatch):
    x = _double(tapegrad, (3,))
    _broken_mul_formula(monkeypatch)
    # exp's derivative, grad * result, only calls mul: first order stays right; the second
    # order differentiates that mul, through the broken formula
    assert tapegrad.autograd.gradcheck(lambda a: a.exp(), (x,))
    assert not tapegrad.autograd.gradgradcheck(lambda a: a.exp(), (x,), raise_exception=False)


def test_gradcheck_warns_for_single_precision_like_torch():
    torch = pytest.importorskip("torch")
    for lib in (tapegrad, torch):
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
            lib.autograd.gradcheck(lambda a: a * 2, (x,), raise_exception=False)


@pytest.mark.parametrize("name", ["tanh-matmul", "prod", "pow", "softmax-like"])
def test_verdicts_agree_with_torch(name):
    torch = pytest.importorskip("torch")
    functions = {
        "tanh-matmul": lambda lib: (lambda a, b: (a @ b).tanh()),
        "prod": lambda lib: (lambda a, b: (a * b).prod()),
        "pow": lambda lib: (lambda a, b: a.abs() ** b),
        "softmax-like": lambda lib: (lambda a, b: (a - b).exp() / (a - b).exp().sum()),
    }
    verdicts = []
    for lib in (tapegrad, torch):
        a, b = _double(lib, (3, 3)), _double(lib, (3, 3), seed=1)
        function = functions[name](lib)
        verdicts.append((lib.autograd.gradcheck(function, (a, b)),
                         lib.autograd.gradgradcheck(function, (a, b))))
    assert verdicts[0] == verdicts[1] == (True, True)
