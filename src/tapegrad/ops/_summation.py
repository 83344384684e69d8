"""Float sums in torch's CPU summation order, so printed float32 results match to the bit.

torch sums a contiguous float tensor with a vectorised cascade (ATen's cascade_sum): 8-float
(AVX2) lanes, 4 interleaved accumulators, and partial sums combined in levels of >= 16 rows.
Its rounding therefore differs from NumPy's pairwise sum in the last bits, which shows in
f"{t.mean()}" (it prints the full float). Above one parallel grain (32768 elements) torch
splits the work across threads, and we fall back to NumPy's equally accurate pairwise sum.
"""
import numpy as np

_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}  # one AVX2 register
_GRAIN = 32768


def full_sum(array):
    """Sum of all elements of a float array, rounded as torch rounds it."""
    width = _LANES.get(array.dtype)
    if width is None or array.size > _GRAIN:
        return np.sum(array)
    flat = array.ravel()
    if flat.size < width:
        return _row_sum(flat)
    count = flat.size // width * width
    total = array.dtype.type(0)
    for value in flat[count:]:  # the scalar tail comes first, then the lanes
        total = total + value
    for value in _row_sum(flat[:count].reshape(-1, width)):
        total = total + value
    return total


def _row_sum(rows, interleave=4):
    """Rows summed with `interleave` independent accumulators, then combined in order."""
    whole = rows.shape[0] // interleave
    if whole:
        partial = _cascade(rows[:whole * interleave].reshape((whole, interleave) + rows.shape[1:]))
    else:
        partial = np.zeros((interleave,) + rows.shape[1:], rows.dtype)
    for row in rows[whole * interleave:]:
        partial[0] = partial[0] + row
    total = partial[0]
    for k in range(1, interleave):
        total = total + partial[k]
    return total


def _cascade(rows, levels=4):
    """Sum along axis 0 in chunks of 2**power rows; chunk sums roll up through `levels`."""
    power = max(4, _ceil_log2(rows.shape[0]) // levels)
    step = 1 << power
    acc = [np.zeros(rows.shape[1:], rows.dtype) for _ in range(levels)]
    i = 0
    while i + step <= rows.shape[0]:
        acc[0] = acc[0] + _in_order(rows[i:i + step])
        i += step
        for j in range(1, levels):
            acc[j], acc[j - 1] = acc[j] + acc[j - 1], np.zeros_like(acc[j - 1])
            if i & ((step - 1) << (j * power)):
                break
    if i < rows.shape[0]:
        acc[0] = acc[0] + _in_order(rows[i:])
    for j in range(1, levels):
        acc[0] = acc[0] + acc[j]
    return acc[0]


def _in_order(rows):
    total = rows[0].copy()
    for row in rows[1:]:
        total += row
    return total


def _ceil_log2(n):
    return (int(n) - 1).bit_length() if n > 1 else 0
