"""Numerics that once differed from torch's, each against torch itself: complex closeness,
complex magnitudes, the strides of empty tensors, uniform_ over the widest float ranges and
randint over int64 ranges of every size."""
import zlib
from contextlib import nullcontext

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


# ---- the modulus of complex tensors --------------------------------------------------------

def complex_samples(rng, dtype, n):
    """Complex values of every magnitude (exponents across the whole range, subnormals
    included), a quarter of them normal-sized, and parts that are 0, inf, NaN, the largest or
    the smallest numbers."""
    real_dtype = np.finfo(dtype).dtype
    info = np.finfo(real_dtype)
    exponents = rng.integers(info.minexp - info.nmant, info.maxexp, (2, n)).astype(float)
    parts = (rng.uniform(1, 2, (2, n)) * np.exp2(exponents)).astype(real_dtype)
    parts *= rng.choice(np.array([-1, 1], real_dtype), (2, n))
    parts[:, :n // 4] = rng.standard_normal((2, n // 4))
    special = np.array([0, -0.0, INF, -INF, NAN, 1, info.max, info.tiny,
                        info.smallest_subnormal], real_dtype)
    chosen = rng.random((2, n)) < 0.05
    parts[chosen] = rng.choice(special, chosen.sum())
    return complex_of(parts[0], parts[1], dtype)


def agreement(ours, theirs):
    """Which elements are bit-equal (NaN equal to NaN) and the largest gap in ulps."""
    ours, theirs = ours.numpy().reshape(-1), theirs.numpy().reshape(-1)
    parts = [(ours.real, theirs.real), (ours.imag, theirs.imag)] if ours.dtype.kind == "c" \
        else [(ours, theirs)]
    equal = np.ones(ours.shape, bool)
    ulps = 0
    for mine, other in parts:
        both_nan = np.isnan(mine) & np.isnan(other)
        equal &= (mine == other) | both_nan
        apart = ~((mine == other) | both_nan)
        if apart.any():
            ulps = max(ulps, np.max(np.abs(mine[apart] - other[apart])
                                    / np.spacing(np.abs(other[apart]))))
    return equal, ulps


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_modulus_is_torchs_hypot(dtype):
    """torch's modulus is a hypot of the parts; NumPy's complex absolute disagreed with it for
    about 1 value in 10. A hypot does for under 1 in 500, by 1 ulp, and never on 0, inf or NaN
    parts. sgn divides each part by that modulus, as torch's."""
    values = complex_samples(np.random.default_rng(7), dtype, 200_000)
    with np.errstate(all="ignore"):
        ours, theirs = (lib.abs(both(lib, values)) for lib in (tapegrad, torch))
        signs = [lib.sgn(both(lib, values)) for lib in (tapegrad, torch)]
    assert str(ours.dtype) == str(theirs.dtype) and str(signs[0].dtype) == str(signs[1].dtype)
    equal, ulps = agreement(ours, theirs)
    assert (~equal).mean() < 1 / 500 and ulps <= 1
    finite_parts = np.isfinite(values.real) & np.isfinite(values.imag)
    assert equal[~finite_parts].all()
    assert agreement(*signs)[0][equal].all()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_inf_norm_of_complex_is_torchs(dtype):
    """The largest modulus of each row: NumPy's complex absolute gave torch's for 2 rows in 3."""
    rng = np.random.default_rng(8)
    values = complex_of(*rng.standard_normal((2, 3000, 20)), dtype)
    ours, theirs = (lib.linalg.vector_norm(both(lib, values), float("inf"), dim=1)
                    for lib in (tapegrad, torch))
    assert agreement(ours, theirs)[0].mean() > 0.99


# ---- strides of empty tensors --------------------------------------------------------------

EMPTY_FACTORIES = {
    "empty": lambda lib: lib.empty((0, 6)),
    "empty-1d": lambda lib: lib.empty(0),
    "empty-3d": lambda lib: lib.empty(3, 0, 2, dtype=lib.int16),
    "empty-channels-last": lambda lib: lib.empty(0, 3, 2, 2, memory_format=lib.channels_last),
    "zeros": lambda lib: lib.zeros((0, 6)),
    "zeros-all-empty": lambda lib: lib.zeros(0, 0, 0),
    "ones": lambda lib: lib.ones(3, 0, 2),
    "full": lambda lib: lib.full((2, 0), 1.0),
    "eye": lambda lib: lib.eye(0, 3),
    "eye-columns": lambda lib: lib.eye(3, 0),
    "tensor": lambda lib: lib.tensor([[], []]),
    "tensor-int": lambda lib: lib.tensor([[], [], []], dtype=lib.int32),
    "tensor-of-tensor": lambda lib: lib.tensor(lib.zeros(0, 3)),
    "tensor-of-transposed": lambda lib: lib.tensor(lib.zeros(6, 0).t(), dtype=lib.int64),
    "tensor-of-ndarray": lambda lib: lib.tensor(np.zeros((0, 3))),
    "as_tensor-of-ndarray": lambda lib: lib.as_tensor(np.zeros((0, 3))),
    "empty_like": lambda lib: lib.empty_like(lib.zeros(0, 6)),
    "empty_like-strided": lambda lib: lib.empty_like(lib.empty_strided((0, 3), (1, 0))),
    "zeros_like-transposed": lambda lib: lib.zeros_like(lib.zeros(6, 0).t()),
    "ones_like": lambda lib: lib.ones_like(lib.empty(4, 0, 3)),
    "full_like": lambda lib: lib.full_like(lib.zeros(0, 5), 2.0),
    "rand_like": lambda lib: lib.rand_like(lib.zeros(0, 6)),
    "new_empty": lambda lib: lib.zeros(2).new_empty((0, 4)),
    "new_zeros": lambda lib: lib.zeros(2).new_zeros(0, 3),
    "new_ones": lambda lib: lib.zeros(2).new_ones(5, 0),
    "new_full": lambda lib: lib.zeros(2).new_full((0, 2), 3.0),
    "new_empty_strided": lambda lib: lib.zeros(1).new_empty_strided((0, 4), (4, 1)),
    "empty_strided": lambda lib: lib.empty_strided((0, 6), (1, 0)),
    "empty_permuted": lambda lib: lib.empty_permuted((2, 0, 3), (2, 0, 1)),
    "rand": lambda lib: lib.rand(0, 3),
    "randn": lambda lib: lib.randn(2, 0, 3),
    "reshape": lambda lib: lib.zeros(0, 6).reshape(3, 0, 2),
    "view": lambda lib: lib.zeros(0, 6).view(6, 0),
    "contiguous-of-transposed": lambda lib: lib.zeros(0, 6).t().contiguous(),
    "expand": lambda lib: lib.zeros(1, 6).expand(0, 6),
    "slice": lambda lib: lib.zeros(3, 6)[:0],
}


@pytest.mark.parametrize("name", EMPTY_FACTORIES)
def test_empty_tensors_have_torchs_strides(name):
    make = EMPTY_FACTORIES[name]
    with pytest.warns(UserWarning) if name.startswith("tensor-of-t") else nullcontext():
        ours = make(tapegrad)
    theirs = make(torch)
    assert (ours.shape, ours.stride(), ours.is_contiguous(), str(ours.dtype)) == (
        tuple(theirs.shape), theirs.stride(), theirs.is_contiguous(), str(theirs.dtype))


# ---- uniform_ over the widest ranges -------------------------------------------------------

def drawn(lib, seed, fill):
    """fill(lib)'s tensor after manual_seed(seed), as an array, or its error's type and text."""
    lib.manual_seed(seed)
    try:
        result = fill(lib)
    except Exception as error:  # the same refusal is the expected outcome for some cases
        return type(error).__name__, str(error)
    return (result.double() if result.dtype == lib.bfloat16 else result).numpy()


def same_draws(fill, seed=0):
    ours, theirs = drawn(tapegrad, seed, fill), drawn(torch, seed, fill)
    if isinstance(theirs, tuple):
        assert ours == theirs
    else:
        np.testing.assert_array_equal(ours, theirs, strict=True)
    return theirs


FLOAT64_MAX = float(np.finfo(np.float64).max)


@pytest.mark.parametrize("low, high", [
    (-8.9e307, 8.9e307), (0, 1.79e308), (-FLOAT64_MAX, 0), (1e307, FLOAT64_MAX),
    (-2.0 ** 995, 2.0 ** 995), (-2.0 ** 996, 2.0 ** 996), (5e307, 1.5e308), (-1e300, 1e300),
    (-1e308, 1e308), (-FLOAT64_MAX, FLOAT64_MAX)])
def test_uniform_over_the_widest_float64_ranges_is_torchs(low, high):
    """A range wider than 2**996 gave NaN (the exact product's split overflowed); one wider
    than the largest double is refused with torch's error."""
    for dtype in ("float64", "complex128"):
        result = same_draws(lambda lib: lib.empty(500, dtype=getattr(lib, dtype))
                            .uniform_(low, high))
        if not isinstance(result, tuple):
            assert np.isfinite(result).all()


@pytest.mark.parametrize("seed", range(10))
def test_uniform_over_random_wide_float64_ranges_is_torchs(seed):
    rng = np.random.default_rng(seed)
    low, high = sorted(rng.uniform(-1, 1, 2) * FLOAT64_MAX)
    same_draws(lambda lib: lib.empty(200, 3, dtype=lib.float64).uniform_(low, high).t(), seed)


@pytest.mark.parametrize("dtype, low, high", [
    ("float32", -1.7e38, 1.7e38), ("float32", -3e38, 3e38), ("float16", -3e4, 3e4),
    ("float16", -6e4, 6e4), ("bfloat16", -1e38, 1e38), ("bfloat16", -3e38, 3e38)])
def test_uniform_over_the_widest_narrow_float_ranges_is_torchs(dtype, low, high):
    same_draws(lambda lib: lib.empty(300, dtype=getattr(lib, dtype)).uniform_(low, high))


@pytest.mark.parametrize("std", [1e300, 1.5e300, 1e308, FLOAT64_MAX])
def test_normal_with_the_largest_std_is_torchs(std):
    """The same exact product as uniform_'s: a std from 2**996 on gave NaN."""
    for count in (10, 40):
        same_draws(lambda lib: lib.empty(count, dtype=lib.float64).normal_(0.5, std))


# ---- randint and random_ over int64 ranges of every size -----------------------------------

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
RANGES = [(0, 10), (0, 2 ** 28 - 1), (0, 2 ** 28), (0, 2 ** 29), (0, 2 ** 31), (-5, 2 ** 32 - 5),
          (0, 2 ** 32), (0, 2 ** 32 + 1), (0, 2 ** 40), (-2 ** 62, 2 ** 62), (0, 2 ** 62),
          (INT64_MIN, INT64_MIN + 2 ** 32 - 1024), (INT64_MIN, INT64_MIN + 2 ** 32),
          (-1, INT64_MAX), (INT64_MIN, 0), (INT64_MIN, 1), (-2 ** 62, INT64_MAX),
          (INT64_MIN + 1, INT64_MAX), (INT64_MIN, INT64_MAX), (2 ** 60, 2 ** 60 + 1)]
DRAW_DTYPES = ["int64", "float64", "float32", "bfloat16", "int32", "int16", "uint8", "bool"]


@pytest.mark.parametrize("low, high", RANGES)
@pytest.mark.parametrize("dtype", DRAW_DTYPES)
def test_randint_over_every_range_is_torchs(low, high, dtype):
    """torch takes 64-bit draws once the range (after a float dtype's rounding of the
    bounds) reaches 2**28, in every dtype, and draws in the result's dtype: 32-bit draws up
    to 2**32 and draws in int64 cast afterwards gave other values, and no refusal of a range
    the dtype cannot hold."""
    same_draws(lambda lib: lib.randint(low, high, (40,), dtype=getattr(lib, dtype)), seed=1)


@pytest.mark.parametrize("low, high", RANGES)
@pytest.mark.parametrize("dtype", DRAW_DTYPES)
def test_random_over_every_range_is_torchs(low, high, dtype):
    def fill(lib):
        tensor = lib.empty(6, 7, dtype=getattr(lib, dtype))
        return tensor.t().random_(low, high).t()  # a transposed target: torch's visiting order
    same_draws(fill, seed=2)
    same_draws(lambda lib: lib.empty(30, dtype=getattr(lib, dtype)).random_(low, None), seed=3)


@pytest.mark.parametrize("dtype", DRAW_DTYPES + ["float16", "complex64"])
@pytest.mark.parametrize("size", [(0,), (25,)])
def test_random_over_the_full_64_bit_range_is_torchs(dtype, size):
    """random_(-2**63) has a kernel of its own: int64 and the 32- and 64-bit floats only, an
    empty tensor whatever its dtype."""
    same_draws(lambda lib: lib.empty(size, dtype=getattr(lib, dtype)).random_(INT64_MIN), seed=4)


@pytest.mark.parametrize("call", [
    lambda lib: lib.randint(2 ** 63, (2,)), lambda lib: lib.randint(INT64_MIN - 1, 0, (2,)),
    lambda lib: lib.randint(0, 2 ** 63, (2,), dtype=lib.float64),
    lambda lib: lib.randint(INT64_MIN, 2 ** 63, (2,)),
    lambda lib: lib.randint(0, 2 ** 70, (2,), dtype=lib.complex64),
    lambda lib: lib.randint(2 ** 63, 2, (2,)), lambda lib: lib.empty(2).random_(2 ** 63),
    lambda lib: lib.empty(2).random_(INT64_MIN - 1, None),
    lambda lib: lib.empty(2, dtype=lib.int64).random_(0, 2 ** 64),
], ids=["high", "low", "float64", "beyond-full", "complex", "low-above-high", "random-to",
        "random-from", "random-2**64"])
def test_bounds_beyond_int64_get_torchs_error(call):
    assert same_draws(call)[0] == "ValueError"


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_isreal_of_complex_tensors_is_torchs(dtype):
    values = complex_of([1, 3, NAN, 0, -0.0, INF, 2], [2, 0, 0, NAN, -0.0, 0, INF], dtype)
    same_values(*[lib.isreal(both(lib, values)) for lib in (tapegrad, torch)])
    same_values(*[both(lib, values).isreal() for lib in (tapegrad, torch)])


@pytest.mark.parametrize("op", ["signbit", "isposinf", "isneginf"])
@pytest.mark.parametrize("size", [0, 3])
def test_sign_and_infinity_tests_refuse_complex_tensors_as_torch(op, size):
    for dtype in ("complex64", "complex128"):
        same_draws(lambda lib: getattr(lib, op)(lib.zeros(size, dtype=getattr(lib, dtype))))
        same_draws(lambda lib: getattr(lib.zeros(size, dtype=getattr(lib, dtype)), op)())


def test_invert_operator_refuses_floating_and_complex_as_torch():
    for dtype in ("float32", "complex64", "bfloat16"):
        errors = []
        for lib in (tapegrad, torch):
            with pytest.raises(TypeError) as error:
                ~lib.ones(2, dtype=getattr(lib, dtype))
            errors.append(str(error.value))
        assert errors[0] == errors[1]
    assert (~tapegrad.tensor([True, False])).tolist() == [False, True]
    assert (~tapegrad.tensor([3])).tolist() == [-4]
