"""full_sum (ops/_summation.py) is bit for bit the loop it replaced (kept below as the
reference), and through sum/mean bit for bit torch's CPU sum."""
import numpy as np
import pytest

import tapegrad
from tapegrad.ops import _summation
from tapegrad.ops._summation import full_sum

# ---- the reference: the row-by-row loop full_sum used to be ------------------------------


def reference_full_sum(array):
    width = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}.get(array.dtype)
    if width is None or array.size > 32768:
        return np.sum(array)
    flat = array.ravel()
    if flat.size < width:
        return _reference_row_sum(flat)
    count = flat.size // width * width
    total = array.dtype.type(0)
    for value in flat[count:]:
        total = total + value
    for value in _reference_row_sum(flat[:count].reshape(-1, width)):
        total = total + value
    return total


def _reference_row_sum(rows, interleave=4):
    whole = rows.shape[0] // interleave
    if whole:
        partial = reference_cascade(
            rows[:whole * interleave].reshape((whole, interleave) + rows.shape[1:]))
    else:
        partial = np.zeros((interleave,) + rows.shape[1:], rows.dtype)
    for row in rows[whole * interleave:]:
        partial[0] = partial[0] + row
    total = partial[0]
    for k in range(1, interleave):
        total = total + partial[k]
    return total


def reference_cascade(rows, levels=4):
    power = max(4, _reference_ceil_log2(rows.shape[0]) // levels)
    step = 1 << power
    acc = [np.zeros(rows.shape[1:], rows.dtype) for _ in range(levels)]
    i = 0
    while i + step <= rows.shape[0]:
        acc[0] = acc[0] + _reference_in_order(rows[i:i + step])
        i += step
        for j in range(1, levels):
            acc[j], acc[j - 1] = acc[j] + acc[j - 1], np.zeros_like(acc[j - 1])
            if i & ((step - 1) << (j * power)):
                break
    if i < rows.shape[0]:
        acc[0] = acc[0] + _reference_in_order(rows[i:])
    for j in range(1, levels):
        acc[0] = acc[0] + acc[j]
    return acc[0]


def _reference_in_order(rows):
    total = rows[0].copy()
    for row in rows[1:]:
        total += row
    return total


def _reference_ceil_log2(n):
    return (int(n) - 1).bit_length() if n > 1 else 0


@pytest.fixture(autouse=True)
def quiet():
    # the ops call full_sum with NumPy's warnings off; overflow and inf - inf are expected here
    with np.errstate(all="ignore"):
        yield


# ---- inputs ---------------------------------------------------------------------------------

DTYPES = (np.float32, np.float64)
# every size up to 300 (all tails mod 8 and 32, fewer elements than one lane), every tail
# around the chunk (512/256 elements), level-1 group (8192/4096) and grain (32768) boundaries
# and their multiples, and sizes above the grain (NumPy's sum there)
SIZES = sorted(set(range(301))
               | {base + offset for base in (256, 512, 1024, 4096, 4096 * 3, 8192, 8192 * 3,
                                             16384, 32768 - 64)
                  for offset in range(-9, 40)}
               | {32767, 32768, 32769, 32800, 40000})


def bits(value):
    return np.asarray(value).tobytes()


def same_bits(got, expected):
    # NaN payloads are the hardware's choice; any NaN matches any NaN
    if np.isnan(expected):
        return np.isnan(got)
    return bits(got) == bits(expected)


def check(array):
    got, expected = full_sum(array), reference_full_sum(array)
    assert type(got) is type(expected), (array.shape, type(got), type(expected))
    assert same_bits(got, expected), (array.dtype, array.shape, got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_normal_every_size(dtype):
    rng = np.random.default_rng(0)
    for size in SIZES:
        check(rng.standard_normal(size).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_mixed_magnitudes(dtype):
    """Cancellation and absorption make the order visible in many bits."""
    rng = np.random.default_rng(1)
    info = np.finfo(dtype)
    for size in SIZES[::3]:
        exponents = rng.integers(-12, 13, size)
        check((rng.standard_normal(size) * 10.0 ** exponents).astype(dtype))
        # near the overflow threshold: some orders overflow, others do not
        check((rng.uniform(-1, 1, size) * info.max / 8).astype(dtype))
        # subnormals and the tiniest normals
        check((rng.uniform(-1, 1, size) * info.tiny * 4).astype(dtype))
        # big values that cancel, leaving the small ones
        big = np.repeat(rng.standard_normal((size + 1) // 2) * 1e6, 2)[:size]
        big[1::2] *= -1
        check((big + rng.standard_normal(size)).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inf_nan_and_signed_zero(dtype):
    rng = np.random.default_rng(2)
    for size in SIZES[::4]:
        if not size:
            continue
        for special in (np.inf, -np.inf, np.nan, -0.0):
            values = rng.standard_normal(size).astype(dtype)
            values[rng.integers(0, size, 1 + size // 100)] = special
            check(values)
        both = rng.standard_normal(size).astype(dtype)
        both[rng.integers(0, size)] = np.inf
        both[rng.integers(0, size)] = -np.inf
        check(both)
        check(np.full(size, -0.0, dtype))
        check(np.zeros(size, dtype))
        zeros = np.full(size, -0.0, dtype)
        zeros[rng.integers(0, size, 1 + size // 7)] = 0.0
        check(zeros)


def test_all_negative_zero_sums_to_positive_zero():
    # torch's accumulators start from 0: 0 + -0.0 is 0.0
    for size in (1, 3, 7, 8, 31, 32, 100, 512, 9000):
        assert not np.signbit(full_sum(np.full(size, -0.0, np.float32)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous_and_shaped(dtype):
    rng = np.random.default_rng(3)
    for rows, columns in ((1, 1), (3, 5), (16, 33), (64, 10), (64, 128), (100, 77), (181, 181)):
        base = rng.standard_normal((rows, columns)).astype(dtype)
        check(base)
        check(base.T)  # summed in logical (row-major) order, as the old loop did
        check(base[::2, 1::3])
        check(rng.standard_normal((2, rows, columns)).astype(dtype)[:, ::-1])


def test_other_dtypes_use_numpy():
    for dtype in (np.float16, np.complex64, np.int32):
        values = np.arange(100).astype(dtype)
        assert bits(full_sum(values)) == bits(np.sum(values))


def test_cascade_levels_beyond_the_grain():
    """The roll-up above level 1 (and chunks longer than 16 rows) is only reached by rows no
    sum of one grain makes; _cascade is checked there on its own."""
    rng = np.random.default_rng(4)
    for count in (4096, 4096 * 2 + 16 * 5 + 3, 65536 + 16 * 17 + 5, (1 << 19) + 100):
        rows = rng.standard_normal((count, 4, 1)).astype(np.float32)
        rows[rng.integers(0, count, 10)] *= 1e6
        assert bits(_summation._cascade(rows)) == bits(reference_cascade(rows))


# ---- against torch --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ("float32", "float64"))
def test_sum_and_mean_print_torchs_bits(dtype):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(5)
        for size in SIZES:
            if size > 32768:  # above one grain torch's order depends on its threads
                continue
            values = rng.standard_normal(size).astype(dtype) * 3 + 1
            ours, theirs = tapegrad.tensor(values), torch.tensor(values)
            assert bits(ours.sum().numpy()) == bits(theirs.sum().numpy()), size
            if size:
                assert bits(ours.mean().numpy()) == bits(theirs.mean().numpy()), size
                assert f"{ours.mean()}" == f"{theirs.mean()}"
    finally:
        torch.set_num_threads(threads)
