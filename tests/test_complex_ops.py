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


ONE_INPUT = {  # name: (function of one complex tensor, its shape)
    "renorm": (lambda lib, x: lib.renorm(x, 2, 0, 0.5), (3, 4)),
    "renorm-inf": (lambda lib, x: lib.renorm(x, float("inf"), 1, 0.5), (3, 4)),
    "logcumsumexp": (lambda lib, x: lib.logcumsumexp(x, 1), (3, 5)),
    "rms_norm": (lambda lib, x: lib.nn.functional.rms_norm(x, [4]), (3, 4)),
    "silu-in-place": (lambda lib, x: lib.nn.functional.silu(x * 1, inplace=True), (6,)),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ONE_INPUT)
def test_complex_one_input_op_matches_torch(name, dtype):
    """Values, dtype, grad_fn and the conjugate Wirtinger gradient, as torch's (renorm-inf in
    complex64 included: torch's backward norm in double gives NaN in every rescaled slice)."""
    torch = torch_or_skip()
    function, shape = ONE_INPUT[name]
    value, cotangent = _complex(*shape).astype(dtype), _complex(*shape).astype(dtype)
    results = []
    for lib in (tapegrad, torch):
        x = lib.tensor(value, requires_grad=True)
        result = function(lib, x)
        grad, = lib.autograd.grad(result, x, lib.tensor(cotangent))
        results.append((result, grad))
    (mine, my_grad), (theirs, their_grad) = results
    assert str(mine.dtype) == str(theirs.dtype) and str(my_grad.dtype) == str(their_grad.dtype)
    assert type(mine.grad_fn).__name__ == type(theirs.grad_fn).__name__
    tolerance = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), atol=tolerance)
    np.testing.assert_allclose(my_grad.resolve_conj().numpy(), their_grad.resolve_conj().numpy(),
                               atol=tolerance)


def test_complex_logcumsumexp_keeps_the_imaginary_part_unwrapped():
    torch = torch_or_skip()
    value = np.array([3j, 2.5j, 3.1j, -1 + 3j])
    mine = tapegrad.logcumsumexp(tapegrad.tensor(value), 0).numpy()
    np.testing.assert_allclose(mine, torch.logcumsumexp(torch.tensor(value), 0).numpy(),
                               atol=1e-12)


def test_complex_silu_refuses_autograd_out_of_place_as_torch():
    torch = torch_or_skip()
    value = _complex(4)
    for lib in (tapegrad, torch):
        with pytest.raises(RuntimeError, match="^silu does not support automatic "
                           "differentiation for outputs with complex dtype.$"):
            lib.nn.functional.silu(lib.tensor(value, requires_grad=True))
    with tapegrad.no_grad():
        mine = tapegrad.nn.functional.silu(tapegrad.tensor(value, requires_grad=True))
    np.testing.assert_allclose(mine.numpy(), torch.nn.functional.silu(torch.tensor(value)),
                               atol=1e-12)


def test_gradcheck_complex_renorm_and_logcumsumexp():
    for function in (lambda x: tapegrad.renorm(x, 3, 0, 0.5),
                     lambda x: tapegrad.logcumsumexp(x, 0)):
        value = _complex(3, 2)
        parts = [tapegrad.tensor(p.copy(), requires_grad=True) for p in (value.real, value.imag)]
        assert gradcheck(lambda a, b: tapegrad.view_as_real(function(tapegrad.complex(a, b))),
                         parts)
