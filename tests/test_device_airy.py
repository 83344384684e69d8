"""special.airy_ai on a device whose SciPy twin has no airy (CuPy's): the array-ops Ai of
ops/_airy.py against SciPy's on NumPy arrays, and on the device against the cpu's values."""
import math

import numpy as np
import pytest

import device_double
import tapegrad
from tapegrad.ops import _airy

special = pytest.importorskip("scipy.special")

# (range, absolute bound, relative bound where |Ai| is away from its zeros)
RANGES = [((-200.0, -9.0), 1e-13, None), ((-9.0, 0.0), 2e-15, None),
          ((0.0, 2.0), 1e-15, 1e-13), ((2.0, 9.0), 2e-15, 1e-12), ((9.0, 100.0), 1e-20, 1e-12)]


@pytest.mark.parametrize("bounds, absolute, relative", RANGES)
def test_airy_ai_array_ops_match_scipy(bounds, absolute, relative):
    x = np.linspace(*bounds, 100001)
    expected = special.airy(x)[0]
    error = np.abs(_airy.airy_ai(np, x) - expected)
    assert error.max() <= absolute
    if relative is not None:
        normal = np.abs(expected) > 1e-290
        assert (error[normal] / np.abs(expected[normal])).max() <= relative


def test_airy_ai_array_ops_at_the_edges():
    x = np.array([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e10, 300.0])
    np.testing.assert_array_equal(_airy.airy_ai(np, x)[:3], [math.nan] * 3)
    ai_at_zero = special.airy(0.0)[0]
    np.testing.assert_allclose(_airy.airy_ai(np, x)[3:], [ai_at_zero, ai_at_zero, 0.0, 0.0],
                               rtol=1e-15, atol=0)


@pytest.fixture
def cuda():
    device_double.install(count=1)
    yield
    device_double.uninstall()


@pytest.mark.parametrize("dtype", [tapegrad.float64, tapegrad.float32])
def test_airy_ai_on_the_device_matches_the_cpu(cuda, dtype):
    x = tapegrad.linspace(-60, 60, 2001, dtype=dtype)
    on_device = tapegrad.special.airy_ai(x.to("cuda"))
    assert on_device.device == tapegrad.device("cuda", 0) and on_device.dtype == dtype
    # for x < -9 Ai oscillates with phase 2/3 |x|^1.5: one rounding of it is 1e-14 absolute
    rtol, atol = (1e-12, 5e-14) if dtype is tapegrad.float64 else (1e-6, 1e-8)
    np.testing.assert_allclose(on_device.cpu().numpy(), tapegrad.special.airy_ai(x).numpy(),
                               rtol=rtol, atol=atol)


def test_airy_ai_on_the_device_has_no_gradient(cuda):
    result = tapegrad.special.airy_ai(tapegrad.ones(3, device="cuda", requires_grad=True))
    assert not result.requires_grad and result.grad_fn is None
