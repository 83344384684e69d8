"""LDL by Bunch-Kaufman pivoting in array ops, for a device (CuPy has no sytrf or sytrs): the
steps of LAPACK's unblocked sytf2 / hetf2 and sytrs / hetrs (lower triangle), so the pivots and
LD come out as torch's LAPACK gives them. Every matrix of the batch takes its own steps (1 x 1 or
2 x 2 pivot blocks), all at once: step t works on column k[b] of matrix b, masked where a matrix
is done, so the loop runs n times whatever the pivots and never reads a device value on the host.

Hermitian (complex, hermitian=True) factors A = P L D L^H P^H, else A = P L D L^T P^T; real
matrices are both."""
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


def _full(xp, A, conjugate):
    """The lower triangle mirrored above the diagonal (conjugated if Hermitian, whose diagonal
    is real): pivots and swaps then read whole rows and columns."""
    lower = xp.tril(A, -1)
    upper = xp.swapaxes(xp.conj(lower) if conjugate else lower, -1, -2)
    diagonal = xp.diagonal(A, 0, -2, -1)
    return lower + upper + _diag(xp, diagonal.real if conjugate else diagonal, A.dtype)


def _diag(xp, diagonal, dtype):
    n = diagonal.shape[-1]
    return diagonal.astype(dtype)[..., None] * xp.eye(n, dtype=dtype)


def factor(xp, A, hermitian):
    """(LD, pivots, info) of LAPACK's sytrf (hetrf if Hermitian) with lower=1, for a batch of
    n x n matrices A (batch, n, n); pivots 1-based, negative for 2 x 2 blocks, as LAPACK's."""
    batch, n = A.shape[0], A.shape[-1]
    conjugate = hermitian and A.dtype.kind == "c"
    cj = xp.conj if conjugate else (lambda values: values)
    A = _full(xp, A, conjugate)
    index = xp.arange(n)
    k = xp.zeros(batch, xp.int64)
    pivots = xp.zeros((batch, n), xp.int32)
    info = xp.zeros(batch, xp.int32)
    for _ in range(n):
        active = k < n
        k_ = xp.minimum(k, n - 1)  # a finished matrix's steps are computed and thrown away
        column = _column(xp, A, k_)
        diagonal = _entry(xp, column, k_)
        absakk = xp.abs(diagonal.real) if conjugate else _magnitude(xp, diagonal)
        below = index > k_[:, None]
        candidates = xp.where(below, _magnitude(xp, column), -1.0)
        imax = xp.argmax(candidates, axis=1)  # the first largest, as i?amax
        colmax = xp.maximum(xp.max(candidates, axis=1), 0.0)
        singular = (xp.maximum(absakk, colmax) == 0) | xp.isnan(absakk)
        row = _row(xp, A, imax)  # row imax of the trailing matrix, past its diagonal
        off = (index >= k_[:, None]) & (index != imax[:, None])
        rowmax = xp.max(xp.where(off, _magnitude(xp, row), 0.0), axis=1)
        diagonal_imax = _entry(xp, row, imax)
        aimax = xp.abs(diagonal_imax.real) if conjugate else _magnitude(xp, diagonal_imax)
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
        A = _eliminate(xp, A, k_, step, active & ~singular, conjugate, cj, index)
        first = xp.where(step == 1, kp + 1, -(kp + 1)).astype(xp.int32)
        at_k = (index == k_[:, None]) | ((index == k_[:, None] + 1) & (step == 2)[:, None])
        pivots = xp.where(at_k & active[:, None], first[:, None], pivots)
        info = xp.where(active & singular & (info == 0), (k_ + 1).astype(xp.int32), info)
        k = xp.where(active, k + step, k)
    LD = xp.tril(A)
    return LD, pivots, info


def _nonzero(xp, values):
    """values, with 1 for 0: the 2 x 2 formulas run for every matrix and are kept only where
    the block is one (whose determinant is not 0); no division by 0 meanwhile."""
    return xp.where(values == 0, 1, values)


def _eliminate(xp, A, k, step, active, conjugate, cj, index):
    """One elimination step of sytf2 / hetf2 at column k[b] (a 1 x 1 pivot) or columns k[b],
    k[b] + 1 (2 x 2): the trailing matrix's update and the columns of L, for the active
    matrices; the result mirrored, so its rows stay its columns' (conjugates)."""
    a = _column(xp, A, k)
    akk = _entry(xp, a, k)
    # 1 x 1: A -= x x^H / akk past k, and x / akk is L's column
    pivot = akk.real if conjugate else akk
    d11 = 1.0 / xp.where(pivot == 0, 1, pivot)  # 0: a zero column, not eliminated
    x = xp.where(index > k[:, None], a, 0)
    update_one = (d11[:, None, None] * x[:, :, None]) * cj(x)[:, None, :]
    column_one = x * d11[:, None]
    # 2 x 2 with columns k and k + 1
    k1 = xp.minimum(k + 1, A.shape[-1] - 1)
    c = _column(xp, A, k1)
    past = index > k1[:, None]
    a2, c2 = xp.where(past, a, 0), xp.where(past, c, 0)
    d21 = _entry(xp, a, k1)
    d22_entry = _entry(xp, c, k1)
    safe = _nonzero(xp, d21)
    if conjugate:  # hetf2's scaling by |d21|
        size = xp.abs(safe)
        d11_2, d22_2 = d22_entry.real / size, akk.real / size
        unit = safe / size
        scale = 1.0 / _nonzero(xp, d11_2 * d22_2 - 1.0) / size
        wk = scale[:, None] * (d11_2[:, None] * a2 - unit[:, None] * c2)
        wkp1 = scale[:, None] * (d22_2[:, None] * c2 - xp.conj(unit)[:, None] * a2)
    else:
        d11_2, d22_2 = d22_entry / safe, akk / safe
        scale = 1.0 / _nonzero(xp, d11_2 * d22_2 - 1.0) / safe
        wk = scale[:, None] * (d11_2[:, None] * a2 - c2)
        wkp1 = scale[:, None] * (d22_2[:, None] * c2 - a2)
    update_two = a2[:, :, None] * cj(wk)[:, None, :] + c2[:, :, None] * cj(wkp1)[:, None, :]
    one = (step == 1) & active
    two = (step == 2) & active
    A = A - xp.where(one[:, None, None], update_one, 0) - xp.where(two[:, None, None],
                                                                     update_two, 0)
    on_k = index[None, :, None] == k[:, None, None]  # (batch, 1, n) selector of column k
    on_k1 = index[None, :, None] == k1[:, None, None]
    columns = xp.swapaxes(A, -1, -2)  # rows of the transpose: column j is row j there
    columns = xp.where(on_k & one[:, None, None], xp.where(index > k[:, None], column_one,
                                                           a)[:, None, :], columns)
    columns = xp.where(on_k & two[:, None, None], xp.where(past, wk, a)[:, None, :], columns)
    columns = xp.where(on_k1 & two[:, None, None], xp.where(past, wkp1, c)[:, None, :],
                       columns)
    A = xp.swapaxes(columns, -1, -2)
    return _full(xp, A, conjugate)


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


def solve(xp, LD, pivots, B, hermitian):
    """X with A X = B from factor's (LD, pivots) of A, as LAPACK's sytrs (hetrs) with lower=1:
    LD (batch, n, n), pivots (batch, n), B (batch, n, nrhs), batches alike."""
    batch, n = LD.shape[0], LD.shape[-1]
    conjugate = hermitian and LD.dtype.kind == "c"
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
        scale = 1.0 / _nonzero(xp, diagonal.real if conjugate else diagonal)
        B = _set_row(xp, B, k_, b_k * scale[:, None], active & ~two)
        # the 2 x 2 block [[d11, conj(d21)], [d21, d22]] (d21 unconjugated if symmetric)
        d21 = _nonzero(xp, _entry(xp, a, k1))
        d21_up = xp.conj(d21) if conjugate else d21
        d11, d22 = _entry(xp, a, k_) / d21_up, _entry(xp, c, k1) / d21
        denominator = _nonzero(xp, d11 * d22 - 1.0)[:, None]
        b1, b2 = b_k / d21_up[:, None], b_k1 / d21[:, None]
        B = _set_row(xp, B, k_, (d22[:, None] * b1 - b2) / denominator, active & two)
        B = _set_row(xp, B, k1, (d11[:, None] * b2 - b1) / denominator, active & two)
        k = xp.where(active, k + xp.where(two, 2, 1), k)
    # backward: X <- P L^-T B (L^-H if Hermitian), from the last block up
    L = xp.conj(LD) if conjugate else LD
    k = xp.full(batch, n - 1, xp.int64)
    for _ in range(n):
        active = k >= 0
        k_ = xp.maximum(k, 0)
        pivot = _entry(xp, pivots, k_).astype(xp.int64)
        two = (pivot < 0) & (k_ > 0)
        k0 = xp.maximum(k_ - 1, 0)
        later = xp.where(index > k_[:, None], 1, 0).astype(B.dtype)[:, :, None] * B
        done = xp.swapaxes(L, -1, -2) @ later  # row j: sum over i > k of L[i, j] B[i]
        B = _set_row(xp, B, k_, _row(xp, B, k_) - _row(xp, done, k_), active)
        B = _set_row(xp, B, k0, _row(xp, B, k0) - _row(xp, done, k0), active & two)
        B = _swap_rows(xp, B, k_, xp.abs(pivot) - 1, active)
        k = xp.where(active, k - xp.where(two, 2, 1), k)
    return B
