"""Numerics that once differed from torch's, each against torch itself: complex closeness,
complex magnitudes, the strides of empty tensors, uniform_ over the widest float ranges and
randint over int64 ranges of every size."""
import zlib

import numpy as np
import pytest

import tapegrad

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def both(lib, array):
    return lib.from_numpy(array.copy())


def same_values(ours, theirs):
    """Equal dtypes and bit-equal values (NaN equal to NaN), through NumPy."""
    assert str(ours.dtype) == str(theirs.dtype)
    ours, theirs = ours.numpy(), theirs.numpy()
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs, strict=True)


# ---- isclose and allclose of complex tensors ----------------------------------------------

def complex_of(real, imag, dtype="complex128"):
    """real + i imag without complex arithmetic (1j * inf would give a NaN real part)."""
    result = np.empty(np.shape(real), dtype)
    result.real, result.imag = real, imag
    return result


def complex_pairs(rng, dtype, n):
    """Pairs near each other (within and beyond the tolerances, in either part) and with
    NaN or infinite parts."""
    parts = rng.choice([0.0, 1.0, -2.5, 1e-9, 1e6, NAN, INF, -INF], size=(4, n),
                       p=[.1, .3, .2, .1, .1, .1, .05, .05])
    input = complex_of(parts[0], parts[1])
    scale = rng.choice([0, 1e-9, 1e-6, 1e-5, 1e-3, 1], size=(2, n))
    with np.errstate(invalid="ignore"):
        other = complex_of(parts[0] * (1 + scale[0] * rng.standard_normal(n)),
                           parts[1] + scale[1] * rng.standard_normal(n))
    swap = rng.random(n) < 0.1  # some pairs whose other has its own special parts
    other[swap] = complex_of(parts[2, swap], parts[3, swap])
    return input.astype(dtype), other.astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-8), (0, 0), (1e-3, 0), (0, 1e-6), (1, 1)])
def test_isclose_of_complex_tensors_is_torchs(dtype, equal_nan, rtol, atol):
    rng = np.random.default_rng(zlib.crc32(repr((dtype, equal_nan, rtol, atol)).encode()))
    input, other = complex_pairs(rng, dtype, 2000)
    results = [lib.isclose(both(lib, input), both(lib, other), rtol, atol, equal_nan)
               for lib in (tapegrad, torch)]
    same_values(*results)
    assert results[1].any() and not results[1].all()  # the pairs are worth comparing


@pytest.mark.parametrize("input, other", [
    (1 + 2j, 1 + 3j), (1 + 2j, 1 + 2j + 1e-7j), (complex(NAN, 1), complex(1, NAN)),
    (complex(NAN, NAN), complex(0, NAN)), (complex(INF, 1), complex(INF, 1)),
    (complex(INF, 0), complex(INF, 1)), (complex(INF, INF), complex(INF, INF)),
])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_and_allclose_of_complex_numbers_are_torchs(input, other, equal_nan):
    for dtype in ("complex64", "complex128"):
        pair = [complex_of([value.real], [value.imag], dtype) for value in (input, other)]
        same_values(*[lib.isclose(*[both(lib, value) for value in pair], equal_nan=equal_nan)
                      for lib in (tapegrad, torch)])
        assert (tapegrad.allclose(*[both(tapegrad, value) for value in pair],
                                  equal_nan=equal_nan)
                == torch.allclose(*[both(torch, value) for value in pair], equal_nan=equal_nan))
