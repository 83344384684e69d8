"""Complex inputs to the reductions: torch's results, dtypes and conjugate Wirtinger gradients."""
import numpy as np
import pytest

import tapegrad
from compare import same, torch_or_skip

VALUES = np.random.default_rng(0).standard_normal((4, 5, 2)) @ np.array([1, 1j]) + 4j


def described(t):
    return str(t.dtype), np.round(t.detach().numpy(), 6).tolist()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("p", [0, 1, 2, 3, float("inf")])
def test_norm_of_complex_is_real(dtype, p):
    torch = torch_or_skip()
    ours, theirs = (lib.tensor(VALUES, dtype=getattr(lib, dtype)).norm(p, dim=1)
                    for lib in (tapegrad, torch))
    assert str(ours.dtype) == str(theirs.dtype)
    # complex64 powers and roots may differ from torch's by an ulp
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6 if dtype == "complex64"
                               else 1e-13)


@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_of_complex_and_its_gradient(keepdim):
    # imaginary parts past pi: a complex peak would move log off its principal branch
    def scenario(lib):
        x = lib.tensor(VALUES, requires_grad=True)
        result = x.logsumexp(1, keepdim)
        result.backward(lib.tensor(VALUES[:, :1] if keepdim else VALUES[:, 0]))
        return described(result), described(x.grad), type(result.grad_fn).__name__
    same(scenario)



@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod_of_complex_infinity_multiplies_the_first_element(dim):
    # torch's kernel starts from 1: (1+0j)(inf+0j) is inf+nanj, and the NaN runs on
    same(lambda lib: str(lib.tensor([[complex("inf"), 1], [2, 3j]]).cumprod(dim)))
    same(lambda lib: str(lib.tensor(complex("inf")).cumprod(0)))
