"""Float sums in torch's CPU summation order, so printed float32 results match to the bit.

torch sums a contiguous float tensor with a vectorised cascade (ATen's cascade_sum): 8-float
(AVX2) lanes, 4 interleaved accumulators, and partial sums combined in levels of >= 16 rows.
Its rounding therefore differs from NumPy's pairwise sum in the last bits, which shows in
f"{t.mean()}" (it prints the full float). Above one parallel grain (32768 elements) torch
splits the work across threads, and we fall back to NumPy's equally accurate pairwise sum.

Note [Sums in order]: np.add.reduce along an axis that is not the innermost one adds whole
rows into the result one after another, so a chunk of rows summed in order is one reduce
(along the innermost axis, or as np.sum of a vector, NumPy sums pairwise instead; a vector is
summed in order by np.add.accumulate). Every partial sum is then a handful of NumPy calls, not
a Python loop over rows. torch starts each of its accumulators from 0, and 0 + -0.0 is 0.0,
so every sum here starts from 0 too (initial=0; for a vector, + 0 after it, which is the same:
the in-order sum from the first element differs from it only in giving -0.0 for 0.0).
tests/test_summation_speed.py checks the result bit for bit against the loop this replaces.
"""
import numpy as np

from .. import _backend

_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}  # one AVX2 register
_GRAIN = 32768


def full_sum(array):
    """Sum of all elements of a float array, rounded as torch's CPU kernel rounds it (a device
    array's in its own library's order, as torch's CUDA kernel has an order of its own)."""
    width = _LANES.get(array.dtype)
    if _backend.on_device(array):
        return array.sum()
    if width is None or array.size > _GRAIN:
        return np.sum(array)
    flat = array.ravel()
    if flat.size < width:
        return _row_sum(flat)
    count = flat.size // width * width
    lanes = _row_sum(flat[:count].reshape(-1, width))
    if count == flat.size:
        return _in_order(lanes)
    return _in_order(np.concatenate((flat[count:], lanes)))  # the scalar tail comes first


def _row_sum(rows, interleave=4):
    """Rows summed with `interleave` independent accumulators, then combined in order."""
    whole = rows.shape[0] // interleave
    split = whole * interleave
    if not whole:  # every row goes into the first accumulator
        return _in_order(rows) if len(rows) else rows.dtype.type(0)
    partial = _cascade(rows[:split].reshape((whole, interleave) + rows.shape[1:]))
    if split < rows.shape[0]:  # the rows left over go into the first accumulator
        partial = np.concatenate((partial[:1], rows[split:], partial[1:]))
    return _in_order(partial)


def _cascade(rows, levels=4):
    """Sum along axis 0 in chunks of 2**power rows; chunk sums roll up through `levels`.

    Level 0 takes each chunk's in-order sum and hands it to level 1 at once; a level below the
    top hands its sum up after every 2**power items it took and starts again from 0. At the
    end level 0 holds the rows after the last whole chunk, and the levels' sums are added
    bottom up. No sum is -0.0 (each starts from 0), so a level holding nothing (0.0) adds
    nothing and is left out.
    """
    power = max(4, _ceil_log2(rows.shape[0]) // levels)
    group = 1 << power
    whole = rows.shape[0] // group * group
    items = _group_sums(rows[:whole], group) if whole else rows[:0]
    held = [_in_order(rows[whole:])] if whole < rows.shape[0] else []
    for level in range(1, levels):
        handed = len(items) // group * group if level < levels - 1 else 0
        if handed < len(items):
            rest = items[handed:]
            held.append(rest[0] if len(rest) == 1 else _in_order(rest))
        if not handed:
            break
        items = _group_sums(items[:handed], group)
    total = held[0]
    for value in held[1:]:
        total = total + value
    return total


def _group_sums(rows, group):
    """The in-order sum of each run of `group` rows (len(rows) a multiple of it)."""
    if len(rows) == group:
        return np.add.reduce(rows, axis=0, keepdims=True, initial=0)
    # row k of every run next to each other: one reduce down axis 0 with long inner loops
    # (down the middle axis of the runs, NumPy's inner loop would be one row long)
    runs = rows.reshape((-1, group) + rows.shape[1:]).swapaxes(0, 1)
    return np.add.reduce(np.ascontiguousarray(runs), axis=0, initial=0)


def _in_order(rows):
    """0 + rows[0] + rows[1] + ... strictly from the left (Note [Sums in order])."""
    if rows.ndim == 1:
        return np.add.accumulate(rows)[-1] + 0
    return np.add.reduce(rows, axis=0, initial=0)


def _ceil_log2(n):
    return (int(n) - 1).bit_length() if n > 1 else 0
