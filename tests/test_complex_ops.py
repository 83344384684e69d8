"""Complex inputs of conv, cross, cov, corrcoef and gradient: torch's conjugate Wirtinger
gradients (the other operand conjugated), checked numerically through the real and imaginary
parts, and against torch."""
import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck

from compare import torch_or_skip

RNG = np.random.default_rng(7)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


CASES = {  # name: (function of two complex tensors, their shapes)
    "conv1d": (lambda x, w: tapegrad.nn.functional.conv1d(x, w, padding=1), ((2, 2, 5), (3, 2, 3))),
    "conv2d": (lambda x, w: tapegrad.nn.functional.conv2d(x, w, stride=2), ((1, 2, 5, 4),
                                                                            (2, 2, 2, 2))),
    "conv_transpose2d": (lambda x, w: tapegrad.nn.functional.conv_transpose2d(x, w, stride=2),
                         ((1, 2, 3, 3), (2, 3, 2, 2))),
    "cross": (lambda x, w: tapegrad.linalg.cross(x, w), ((4, 3), (4, 3))),
    "cov": (lambda x, w: tapegrad.cov(x) + w, ((3, 5), (3, 3))),
    "corrcoef": (lambda x, w: tapegrad.corrcoef(x) * w, ((3, 5), (3, 3))),
    "gradient": (lambda x, w: tapegrad.gradient(x)[1] * w, ((3, 4), (3, 4))),
}
VALUES = {name: [_complex(*shape) for shape in shapes] for name, (_, shapes) in CASES.items()}


def _through_real_parameters(function):
    def real_function(x, y, u, v):
        result = function(tapegrad.complex(x, y), tapegrad.complex(u, v))
        return tapegrad.view_as_real(result)
    return real_function


def _real_parameters(name):
    return [tapegrad.tensor(part, requires_grad=True) for value in VALUES[name]
            for part in (value.real.copy(), value.imag.copy())]


@pytest.mark.parametrize("name", CASES)
def test_complex_op_gradcheck(name):
    assert gradcheck(_through_real_parameters(CASES[name][0]), _real_parameters(name))


@pytest.mark.parametrize("name", ["conv2d", "conv_transpose2d", "cross"])
def test_complex_op_gradgradcheck(name):
    assert gradgradcheck(_through_real_parameters(CASES[name][0]), _real_parameters(name))


@pytest.mark.parametrize("name", CASES)
def test_complex_op_matches_torch(name):
    torch = torch_or_skip()
    cotangent = None
    results = []
    for lib in (tapegrad, torch):
        inputs = [lib.tensor(value, requires_grad=True) for value in VALUES[name]]
        function = CASES[name][0]
        result = _on(lib, function, inputs)
        if cotangent is None:
            cotangent = _complex(*result.shape)
        grads = lib.autograd.grad(result, inputs, lib.tensor(cotangent))
        results.append((result, grads))
    (mine, my_grads), (theirs, their_grads) = results
    assert mine.dtype.is_complex and str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    for my_grad, their_grad in zip(my_grads, their_grads):
        np.testing.assert_allclose(my_grad.numpy(), their_grad.numpy(), atol=1e-12)


def _on(lib, function, inputs):
    """function with its module's `tapegrad` bound to lib for one call."""
    namespace = function.__globals__
    namespace["tapegrad"] = lib
    try:
        return function(*inputs)
    finally:
        namespace["tapegrad"] = tapegrad


def test_complex_corrcoef_clips_parts_apart():
    torch = torch_or_skip()
    value = np.array([[1 + 2j, 3 - 1j, -2 + 0.5j], [0.5 - 1j, 2j, 1 + 1j]])
    mine = tapegrad.corrcoef(tapegrad.tensor(value)).numpy()
    np.testing.assert_allclose(mine, torch.corrcoef(torch.tensor(value)).numpy(), atol=1e-12)
    assert np.abs(mine.real).max() <= 1 and np.abs(mine.imag).max() <= 1


def test_complex_gradient_keeps_the_dtype():
    torch = torch_or_skip()
    for dtype in ("complex64", "complex128"):
        value = _complex(5).astype(dtype)
        mine = tapegrad.gradient(tapegrad.tensor(value), spacing=2.0)[0]
        theirs = torch.gradient(torch.tensor(value), spacing=2.0)[0]
        assert str(mine.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)
