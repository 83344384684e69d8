"""LDL by Bunch-Kaufman pivoting in array ops, for a device (CuPy has no sytrf or sytrs): the
steps of LAPACK's unblocked sytf2 and sytrs (lower triangle), so the pivots and LD come out as
torch's LAPACK (and cuSOLVER) give them. Every matrix of the batch takes its own steps (1 x 1 or
2 x 2 pivot blocks), all at once: step t works on column k[b] of matrix b, masked where a matrix
is done, so the loop runs n times whatever the pivots and never reads a device value on the host.

A = P L D L^T P^T for real and complex symmetric matrices; the Hermitian form of complex ones
is not here, as torch's CUDA (cuSOLVER) has none either."""
import math

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # LAPACK's growth bound for a 1 x 1 pivot


def _magnitude(xp, values):
    """LAPACK's |x| for picking pivots: |re| + |im| for complex numbers (i?amax's cabs1)."""
    if values.dtype.kind == "c":
        return xp.abs(values.real) + xp.abs(values.imag)
    return xp.abs(values)


def _column(xp, A, k):
    """Column k[b] of each matrix b: (batch, n)."""
    return xp.take_along_axis(A, k[:, None, None], axis=2)[..., 0]


def _row(xp, A, k):
    """Row k[b] of each matrix b: (batch, n)."""
    return xp.take_along_axis(A, k[:, None, None], axis=1)[:, 0, :]


def _entry(xp, vectors, k):
    """vectors[b, k[b]]: (batch,)."""
    return xp.take_along_axis(vectors, k[:, None], axis=1)[:, 0]


def _symmetric(xp, A):
    """The lower triangle mirrored above the diagonal: pivots and swaps then read whole rows
    and columns."""
    return xp.tril(A) + xp.swapaxes(xp.tril(A, -1), -1, -2)


def factor(xp, A):
    """(LD, pivots, info) of LAPACK's sytrf with lower=1, for a batch of n x n matrices A
    (batch, n, n); pivots 1-based, negative for 2 x 2 blocks, as LAPACK's."""
    batch, n = A.shape[0], A.shape[-1]
    A = _symmetric(xp, A)
    index = xp.arange(n)
    k = xp.zeros(batch, xp.int64)
    pivots = xp.zeros((batch, n), xp.int32)
    info = xp.zeros(batch, xp.int32)
    for _ in range(n):
        active = k < n
        k_ = xp.minimum(k, n - 1)  # a finished matrix's steps are computed and thrown away
        column = _column(xp, A, k_)
        diagonal = _entry(xp, column, k_)
        absakk = _magnitude(xp, diagonal)
        below = index > k_[:, None]
        candidates = xp.where(below, _magnitude(xp, column), -1.0)
        imax = xp.argmax(candidates, axis=1)  # the first largest, as i?amax
        colmax = xp.maximum(xp.max(candidates, axis=1), 0.0)
        singular = (xp.maximum(absakk, colmax) == 0) | xp.isnan(absakk)
        row = _row(xp, A, imax)  # row imax of the trailing matrix, past its diagonal
        off = (index >= k_[:, None]) & (index != imax[:, None])
        rowmax = xp.max(xp.where(off, _magnitude(xp, row), 0.0), axis=1)
        diagonal_imax = _entry(xp, row, imax)
        aimax = _magnitude(xp, diagonal_imax)
        keep = (absakk >= _ALPHA * colmax) | (
            absakk >= _ALPHA * colmax * (colmax / _nonzero(xp, rowmax)))
        keep = keep | singular
        one = keep | (aimax >= _ALPHA * rowmax)
        kp = xp.where(keep, k_, imax)
        step = xp.where(one, 1, 2)
        kk = k_ + step - 1
        # swap kk and kp in the trailing matrix (rows and columns k on), as sytf2's interchange
        order = xp.where(index == kk[:, None], kp[:, None],
                         xp.where(index == kp[:, None], kk[:, None], index))
        swapped = xp.take_along_axis(xp.take_along_axis(A, order[:, :, None], axis=1),
                                     order[:, None, :], axis=2)
        trailing = index >= k_[:, None]
        inside = trailing[:, :, None] & trailing[:, None, :] & active[:, None, None]
        A = xp.where(inside, swapped, A)
        A = _eliminate(xp, A, k_, step, active & ~singular, index)
        first = xp.where(step == 1, kp + 1, -(kp + 1)).astype(xp.int32)
        at_k = (index == k_[:, None]) | ((index == k_[:, None] + 1) & (step == 2)[:, None])
        pivots = xp.where(at_k & active[:, None], first[:, None], pivots)
        info = xp.where(active & singular & (info == 0), (k_ + 1).astype(xp.int32), info)
        k = xp.where(active, k + step, k)
    LD = xp.tril(A)
    return LD, pivots, info


def _nonzero(xp, values):
    """values, with 1 for 0: both steps' formulas run for every matrix and are kept only where
    that step is taken (whose pivots are not 0), so no division by 0 meanwhile."""
    return xp.where(values == 0, 1, values)


def _eliminate(xp, A, k, step, active, index):
    """One elimination step of sytf2 at column k[b] (a 1 x 1 pivot) or columns k[b], k[b] + 1
    (2 x 2) of the active matrices: the trailing matrix's update and L's columns; the result
    mirrored, so its rows stay its columns."""
    k1 = xp.minimum(k + 1, A.shape[-1] - 1)
    a, c = _column(xp, A, k), _column(xp, A, k1)
    akk = _entry(xp, a, k)
    # 1 x 1: A -= x x^T / akk past k, and x / akk is L's column
    d11 = 1.0 / _nonzero(xp, akk)
    x = xp.where(index > k[:, None], a, 0)
    update_one = (d11[:, None, None] * x[:, :, None]) * x[:, None, :]
    # 2 x 2: A -= a wk^T + c wkp1^T past k + 1, and wk, wkp1 are L's columns
    past = index > k1[:, None]
    a2, c2 = xp.where(past, a, 0), xp.where(past, c, 0)
    wk, wkp1 = _two_by_two(xp, a2, c2, akk, _entry(xp, a, k1), _entry(xp, c, k1))
    update_two = a2[:, :, None] * wk[:, None, :] + c2[:, :, None] * wkp1[:, None, :]
    one, two = (step == 1) & active, (step == 2) & active
    A = (A - xp.where(one[:, None, None], update_one, 0)
         - xp.where(two[:, None, None], update_two, 0))
    columns = xp.swapaxes(A, -1, -2)  # L's columns are its rows
    columns = _set_row(xp, columns, k, xp.where(index > k[:, None], x * d11[:, None], a), one)
    columns = _set_row(xp, columns, k, xp.where(past, wk, a), two)
    columns = _set_row(xp, columns, k1, xp.where(past, wkp1, c), two)
    return _symmetric(xp, xp.swapaxes(columns, -1, -2))


def _two_by_two(xp, a, c, d11, d21, d22):
    """L's two columns (wk, wkp1) under the 2 x 2 block [[d11, d21], [d21, d22]] of columns
    a, c, in sytf2's arithmetic."""
    d21 = _nonzero(xp, d21)
    d11_, d22_ = d22 / d21, d11 / d21  # sytf2's names: d11 is the second diagonal over d21
    scale = 1.0 / _nonzero(xp, d11_ * d22_ - 1.0) / d21
    return (scale[:, None] * (d11_[:, None] * a - c),
            scale[:, None] * (d22_[:, None] * c - a))


def _swap_rows(xp, B, first, second, active):
    """B with rows first[b] and second[b] of each active matrix b swapped."""
    index = xp.arange(B.shape[-2])[None, :]
    order = xp.where(index == first[:, None], second[:, None],
                     xp.where(index == second[:, None], first[:, None], index))
    order = xp.where(active[:, None], order, index)
    return xp.take_along_axis(B, order[:, :, None], axis=1)


def _set_row(xp, B, k, values, where):
    """B with row k[b] replaced by values[b] where where[b]."""
    on_k = xp.arange(B.shape[-2])[None, :, None] == k[:, None, None]
    return xp.where(on_k & where[:, None, None], values[:, None, :], B)


def _combined(xp, L, k, rows):
    """The rows weighted by column k[b] of L: sum over i of L[b, i, k[b]] rows[b, i]."""
    return xp.sum(_column(xp, L, k)[:, :, None] * rows, axis=1)


def solve(xp, LD, pivots, B):
    """X with A X = B from factor's (LD, pivots) of A, as LAPACK's sytrs with lower=1: LD
    (batch, n, n), pivots (batch, n), B (batch, n, nrhs), batches alike."""
    batch, n = LD.shape[0], LD.shape[-1]
    index = xp.arange(n)[None, :]
    # forward: B <- D^-1 L^-1 P^T B, a pivot block at a time
    k = xp.zeros(batch, xp.int64)
    for _ in range(n):
        active = k < n
        k_ = xp.minimum(k, n - 1)
        pivot = _entry(xp, pivots, k_).astype(xp.int64)
        two = pivot < 0
        k1 = xp.minimum(k_ + 1, n - 1)
        B = _swap_rows(xp, B, xp.where(two, k1, k_), xp.abs(pivot) - 1, active)
        a, c = _column(xp, LD, k_), _column(xp, LD, k1)
        b_k, b_k1 = _row(xp, B, k_), _row(xp, B, k1)
        past_one = (index > k_[:, None])[:, :, None]
        past_two = (index > k1[:, None])[:, :, None]
        B = B - xp.where((active & ~two)[:, None, None] & past_one,
                         a[:, :, None] * b_k[:, None, :], 0)
        B = B - xp.where((active & two)[:, None, None] & past_two,
                         a[:, :, None] * b_k[:, None, :] + c[:, :, None] * b_k1[:, None, :], 0)
        diagonal = _entry(xp, a, k_)
        scale = 1.0 / _nonzero(xp, diagonal)
        B = _set_row(xp, B, k_, b_k * scale[:, None], active & ~two)
        # the 2 x 2 block [[d11, d21], [d21, d22]], in sytrs's arithmetic
        d21 = _nonzero(xp, _entry(xp, a, k1))
        d11, d22 = _entry(xp, a, k_) / d21, _entry(xp, c, k1) / d21
        denominator = _nonzero(xp, d11 * d22 - 1.0)[:, None]
        b1, b2 = b_k / d21[:, None], b_k1 / d21[:, None]
        B = _set_row(xp, B, k_, (d22[:, None] * b1 - b2) / denominator, active & two)
        B = _set_row(xp, B, k1, (d11[:, None] * b2 - b1) / denominator, active & two)
        k = xp.where(active, k + xp.where(two, 2, 1), k)
    # backward: X <- P L^-T B, from the last block up
    k = xp.full(batch, n - 1, xp.int64)
    for _ in range(n):
        active = k >= 0
        k_ = xp.maximum(k, 0)
        pivot = _entry(xp, pivots, k_).astype(xp.int64)
        two = (pivot < 0) & (k_ > 0)
        k0 = xp.maximum(k_ - 1, 0)
        later = xp.where((index > k_[:, None])[:, :, None], B, 0)  # B's rows past k
        B = _set_row(xp, B, k_, _row(xp, B, k_) - _combined(xp, LD, k_, later), active)
        B = _set_row(xp, B, k0, _row(xp, B, k0) - _combined(xp, LD, k0, later), active & two)
        B = _swap_rows(xp, B, k_, xp.abs(pivot) - 1, active)
        k = xp.where(active, k - xp.where(two, 2, 1), k)
    return B
