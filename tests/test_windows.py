"""Window functions beyond their op_db rows: torch.hann_window, hamming_window,
bartlett_window, blackman_window and kaiser_window (native factories) and
tapegrad.signal.windows, against torch for every length up to 11 and two longer ones, both
symmetries and every dtype torch takes; printing, leaves and grad_fn with requires_grad=True,
and torch's errors; torch.pi, e, inf and nan."""
import math

import numpy as np
import pytest

import tapegrad
import tapegrad.signal
from compare import same_error, torch_or_skip

LENGTHS = list(range(12)) + [25, 32]
FACTORIES = {
    "hann_window": {}, "hamming_window": {}, "hamming_window-alpha": {"alpha": 0.5},
    "hamming_window-alpha-beta": {"alpha": 0.6, "beta": 0.3}, "bartlett_window": {},
    "blackman_window": {}, "kaiser_window": {}, "kaiser_window-beta": {"beta": 5.0},
    "kaiser_window-beta-0": {"beta": 0.0},
}
WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {},
    "exponential-tau": {"tau": 2.5}, "exponential-center": {"center": 1.5, "sym": False},
    "gaussian": {}, "gaussian-std": {"std": 0.3}, "general_cosine": {"a": [0.5, 0.5]},
    "general_cosine-4": {"a": (0.3, 0.2, 0.1, 0.4)}, "general_hamming": {},
    "general_hamming-alpha": {"alpha": 0.7}, "hamming": {}, "hann": {}, "kaiser": {},
    "kaiser-beta": {"beta": 3.0}, "kaiser-beta-0": {"beta": 0.0}, "nuttall": {},
}


def _factory(lib, name, length, periodic, dtype, requires_grad=False):
    kwargs = FACTORIES[name]
    return getattr(lib, name.split("-")[0])(length, periodic, dtype=getattr(lib, dtype),
                                            requires_grad=requires_grad, **kwargs)


def _window(lib, name, length, sym, dtype, requires_grad=False):
    kwargs = {"sym": sym, **WINDOWS[name]}
    if dtype is not None:
        kwargs["dtype"] = getattr(lib, dtype)
    return getattr(lib.signal.windows, name.split("-")[0])(length, requires_grad=requires_grad,
                                                          **kwargs)


def _assert_same(expected, actual):
    """Same values, dtype, requires_grad and grad_fn, and in float64 the same printing (in
    float32 NumPy's cos may differ from torch's by a rounding, and so the fifth digit)."""
    assert str(actual.dtype) == str(expected.dtype)
    if str(expected.dtype).endswith("float64"):
        assert repr(actual) == repr(expected)
    assert actual.requires_grad == expected.requires_grad
    assert actual.is_leaf == expected.is_leaf
    node = type(expected.grad_fn).__name__ if expected.grad_fn is not None else None
    assert (type(actual.grad_fn).__name__ if actual.grad_fn is not None else None) == node
    np.testing.assert_allclose(_array(actual), _array(expected), rtol=1e-6, atol=1e-7)


def _array(tensor):
    """tensor's values, float16 and bfloat16 (which NumPy may lack) as float32."""
    tensor = tensor.detach()
    return (tensor.float() if tensor.dtype.itemsize == 2 else tensor).numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("name", FACTORIES)
def test_factories_match_torch(name, periodic, dtype):
    torch = torch_or_skip()
    for length in LENGTHS:
        _assert_same(_factory(torch, name, length, periodic, dtype),
                     _factory(tapegrad, name, length, periodic, dtype))


@pytest.mark.parametrize("name", ["hann_window", "kaiser_window", "blackman_window"])
def test_factories_with_requires_grad_are_leaves(name):
    torch = torch_or_skip()
    _assert_same(_factory(torch, name, 6, True, "float32", True),
                 _factory(tapegrad, name, 6, True, "float32", True))
    assert _factory(tapegrad, name, 6, True, "float64", True).is_leaf


def test_float32_windows_print_as_torch():
    """Computed step by step in float32, as torch's kernels do: Blackman's ends are -2.98e-08."""
    torch = torch_or_skip()
    for name in ("hann_window", "hamming_window", "blackman_window", "kaiser_window"):
        for periodic in (True, False):
            assert repr(_factory(tapegrad, name, 5, periodic, "float32")) == repr(
                _factory(torch, name, 5, periodic, "float32"))
    assert "-2.9802e-08" in repr(tapegrad.blackman_window(5, False))


def test_factories_default_dtype_and_arguments():
    torch = torch_or_skip()
    _assert_same(torch.hann_window(7), tapegrad.hann_window(7))
    _assert_same(torch.hamming_window(7, False, 0.5), tapegrad.hamming_window(7, False, 0.5))
    _assert_same(torch.kaiser_window(7, True, 4), tapegrad.kaiser_window(7, True, 4))
    _assert_same(torch.bartlett_window(7, periodic=False), tapegrad.bartlett_window(
        7, periodic=False))
    _assert_same(torch.blackman_window(0, dtype=torch.complex64),
                 tapegrad.blackman_window(0, dtype=tapegrad.complex64))
    _assert_same(torch.hann_window(1, dtype=torch.complex64),
                 tapegrad.hann_window(1, dtype=tapegrad.complex64))


@pytest.mark.parametrize("dtype", ["float64", "float32", None])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("name", WINDOWS)
def test_signal_windows_match_torch(name, sym, dtype):
    torch = torch_or_skip()
    for length in LENGTHS:
        _assert_same(_window(torch, name, length, sym, dtype),
                     _window(tapegrad, name, length, sym, dtype))


@pytest.mark.parametrize("name", WINDOWS)
def test_signal_windows_with_requires_grad_have_torch_grad_fn(name):
    """torch composes these windows of ops: with requires_grad=True they are no leaves."""
    torch = torch_or_skip()
    for length in (0, 1, 2, 7):
        _assert_same(_window(torch, name, length, False, "float64", True),
                     _window(tapegrad, name, length, False, "float64", True))


def test_signal_windows_without_torch():
    windows = tapegrad.signal.windows
    np.testing.assert_allclose(windows.hann(5).numpy(), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7)
    np.testing.assert_allclose(windows.hann(4, sym=False).numpy(), [0.0, 0.5, 1.0, 0.5],
                               atol=1e-7)
    np.testing.assert_allclose(windows.bartlett(5).numpy(), [0.0, 0.5, 1.0, 0.5, 0.0])
    np.testing.assert_allclose(windows.exponential(3, dtype=tapegrad.float64).numpy(),
                               [math.exp(-1), 1.0, math.exp(-1)])
    np.testing.assert_allclose(windows.kaiser(3, beta=0.0).numpy(), [1.0, 1.0, 1.0])
    assert windows.gaussian(0).shape == (0,) and windows.cosine(1).tolist() == [1.0]
    assert windows.general_cosine(1, a=[1.0]).tolist() == [1.0]
    assert sorted(windows.__all__) == sorted(
        "bartlett blackman cosine exponential gaussian general_cosine general_hamming hamming "
        "hann kaiser nuttall".split())
    np.testing.assert_allclose(tapegrad.bartlett_window(4).numpy(), [0.0, 0.5, 1.0, 0.5])


def test_constants():
    assert tapegrad.pi == math.pi and tapegrad.e == math.e and tapegrad.inf == math.inf
    assert math.isnan(tapegrad.nan)


ERRORS = {
    # the native factories
    "hann-negative": lambda lib: lib.hann_window(-1),
    "hann-int-dtype": lambda lib: lib.hann_window(3, dtype=lib.int64),
    "hann-negative-int-dtype": lambda lib: lib.hann_window(-1, dtype=lib.int32),
    "hamming-bool-dtype-layout": lambda lib: lib.hamming_window(3, dtype=lib.bool,
                                                                layout=lib.strided),
    "kaiser-complex": lambda lib: lib.kaiser_window(4, dtype=lib.complex64),
    "bartlett-negative-complex": lambda lib: lib.bartlett_window(-1, dtype=lib.complex128),
    "blackman-float-length": lambda lib: lib.blackman_window(3.0),
    "hann-bool-length": lambda lib: lib.hann_window(True),
    "hann-int-periodic": lambda lib: lib.hann_window(3, 1),
    "hamming-int-periodic": lambda lib: lib.hamming_window(3, 1),
    "hamming-str-alpha": lambda lib: lib.hamming_window(3, True, "a"),
    "kaiser-int-periodic": lambda lib: lib.kaiser_window(3, 1),
    "kaiser-pin-memory": lambda lib: lib.kaiser_window(3, pin_memory=True),
    # torch.signal.windows
    "window-negative": lambda lib: lib.signal.windows.hann(-1),
    "window-float16": lambda lib: lib.signal.windows.cosine(3, dtype=lib.float16),
    "window-int": lambda lib: lib.signal.windows.bartlett(3, dtype=lib.int64),
    "exponential-tau": lambda lib: lib.signal.windows.exponential(3, tau=0.0),
    "exponential-center-sym": lambda lib: lib.signal.windows.exponential(3, center=1.0),
    "gaussian-std": lambda lib: lib.signal.windows.gaussian(3, std=-1.0),
    "kaiser-beta": lambda lib: lib.signal.windows.kaiser(3, beta=-1.0),
    "general-cosine-empty": lambda lib: lib.signal.windows.general_cosine(3, a=[]),
    "general-cosine-number": lambda lib: lib.signal.windows.general_cosine(3, a=1.0),
    "blackman-negative": lambda lib: lib.signal.windows.blackman(-2, dtype=lib.int64),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(ERRORS[name])
