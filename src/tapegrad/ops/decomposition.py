"""Matrix functions and decompositions: inv, det, slogdet, solve, cholesky, qr, eigh, svd, pinv
and the matrix norms. Forwards run NumPy's batched linalg over (..., m, n) inputs; gradients
are torch's formulas written in tapegrad ops, so they differentiate again."""
import math

import numpy as np

from .. import _dtype, _random
from .._tensor import Tensor
from ..autograd.grad_mode import is_recording
from ._checks import broadcast_shapes, wrap_dim
from ._define import defop
from .complex_parts import conj_of, imag, real
from .joining import cat, stack
from .linalg import matmul
from .pointwise import where
from .reduction import amax, amin, prod, return_type, sum, vector_norm
from .reordering import diag_embed, diagonal, tril
from .shape import constant_beside, permute, transpose, unsqueeze, zeros_of
from .unary import log
from .._warnings import warn


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the factorization cannot handle (singular, not
    positive-definite). torch's class is torch._C._LinAlgError."""


LinAlgError = _LinAlgError

# torch.linalg's results and those of the older top-level spellings (torch.slogdet, ...)
linalg_slogdet_return = return_type("linalg_slogdet", ("sign", "logabsdet"))
slogdet_return = return_type("slogdet", ("sign", "logabsdet"))
linalg_qr_return = return_type("linalg_qr", ("Q", "R"))
qr_return = return_type("qr", ("Q", "R"))
linalg_eigh_return = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd_return = return_type("linalg_svd", ("U", "S", "Vh"))
svd_return = return_type("svd", ("U", "S", "V"))


# ---- shared checks and helpers -------------------------------------------------------------

def _check_matrices(name, A, square=True, dtype=None, low_precision=True):
    """Batches of (square) float matrices; dtype: the one A will be computed in, if not A's;
    low_precision: whether float16 and bfloat16 pass (torch's linalg checks say when not)."""
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    dtype = dtype or A.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{dtype.legacy_name}")
    if not (low_precision or is_lapack_dtype(dtype)):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {dtype.legacy_name}")


def is_lapack_dtype(dtype):
    """Whether LAPACK computes in dtype: float32, float64, complex64 or complex128."""
    return dtype in _LAPACK_DTYPES


_LAPACK_DTYPES = (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128)


def check_lapack(kernel, *tensors, empty_passes=False):
    """Tensors of dtypes LAPACK takes, or torch's error naming the CPU kernel that refuses
    the first other one (integers, bool, float16, bfloat16); empty_passes: the op returns
    before its kernel for an empty input, as torch's (any dtype then passes)."""
    for tensor in tensors:
        if not (is_lapack_dtype(tensor.dtype) or (empty_passes and tensor.numel() == 0)):
            raise _random.not_implemented(kernel, tensor.dtype)


def _any_dtype_if_empty(xp, forward, A, *others):
    """forward(A, *others) by NumPy's linalg, which takes LAPACK's dtypes only: matrices of
    other dtypes come here only when empty (torch returns before its kernel refuses them),
    and are computed in float32 and given back in A's dtype."""
    if A.dtype.char in "fdFD":  # float32, float64, complex64, complex128
        return forward(A, *others)
    results = forward(*(array.astype(xp.float32) for array in (A,) + others))
    if isinstance(results, tuple):
        return tuple(result.astype(A.dtype) for result in results)
    return results.astype(A.dtype)


def _failure(xp, name, batched, info, problem):
    """torch's LinAlgError for the first failing matrix; info: LAPACK's per-matrix code."""
    flat = info.reshape(-1)
    first = int(xp.argmax(flat > 0))
    prefix = f"{name}: (Batch element {first}): " if batched else f"{name}: "
    return _LinAlgError(prefix + problem.format(int(flat[first])))


def _mT(matrices):  # the plain transpose (factorization.py's formulas use it)
    return transpose(matrices, -2, -1)


def _mH(matrices):
    """The conjugate transpose, A^H in torch's formulas (the transpose of real matrices)."""
    return conj_of(transpose(matrices, -2, -1))


def _is_complex(value):
    """Whether a formula's value is a complex tensor (arrays of a formula on arrays are real)."""
    return isinstance(value, Tensor) and value.dtype.is_complex


def _swap(array):
    return array.swapaxes(-1, -2)


def _adjoint(array):
    """An array's conjugate transpose (A^H in a forward)."""
    swapped = array.swapaxes(-1, -2)
    return swapped.conj() if swapped.dtype.kind == "c" else swapped


def _identity(n, like):
    """The n x n identity matrix in like's dtype (a constant)."""
    return constant_beside(like, np.eye(n, dtype=like.dtype.numpy))


def _as_matrix(vector):
    return unsqueeze(unsqueeze(vector, -1), -1)


# ---- inverse -------------------------------------------------------------------------------

def _zero_pivots(xp, matrices):
    """LAPACK getrf's info per matrix: the 1-based position of the first zero pivot of LU with
    partial pivoting, 0 when there is none. Runs only to word an error, one column at a time."""
    n = matrices.shape[-1]
    lu = matrices.reshape(-1, n, n).astype(xp.float64)
    batch = xp.arange(lu.shape[0])
    info = xp.zeros(lu.shape[0], xp.int64)
    for k in range(n):
        pivot = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)
        lu[batch, k], lu[batch, pivot] = lu[batch, pivot], lu[batch, k].copy()
        diagonal = lu[:, k, k]
        info[(diagonal == 0) & (info == 0)] = k + 1
        factors = lu[:, k + 1:, k] / xp.where(diagonal == 0, 1.0, diagonal)[:, None]
        lu[:, k + 1:, k:] -= factors[:, :, None] * lu[:, None, k, k:]
    return info.reshape(matrices.shape[:-2])


def _singular(xp, name, A, problem):
    return _failure(xp, name, A.ndim > 2, _zero_pivots(xp, A), problem)


@defop("LinalgInvExBackward0", save=("result",))
def _inv(xp, A: Tensor):
    try:  # column-major, as LAPACK's (torch's) inverse: a reshape of it is then torch's
        return _swap(xp.linalg.inv(_swap(A)))
    except xp.linalg.LinAlgError:
        raise _singular(xp, "linalg.inv", A, "The diagonal element {} is zero, the inversion could "
                        "not be completed because the input matrix is singular.") from None


_inv.derivatives(A=lambda ctx: -matmul(_mH(ctx.result), matmul(ctx.grad, _mH(ctx.result))))


def inv(A, *, out=None):
    """The inverse of each square matrix in A."""
    _check_matrices("linalg.inv", A, low_precision=False)
    return _inv(A)


def inverse(input, *, out=None):
    return inv(input)


# ---- determinants --------------------------------------------------------------------------

@defop("LinalgDetBackward0", save=("A", "result"))
def _det(xp, A: Tensor):
    return _any_dtype_if_empty(xp, xp.linalg.det, A)


def _det_backward(ctx):
    """grad * conj(det(A)) * A^-H. A singular matrix has no inverse: there torch's first-order
    backward gives 0 (grad * det), and its differentiable (create_graph) one the cofactors; so
    do we."""
    A, grad, det = ctx.A, ctx.grad, ctx.result
    if A.numel() == 0:
        return zeros_of(A)
    if A.shape[-1] == 1:  # det is the entry itself: torch's 1 also at 0, inf and NaN
        return _as_matrix(grad)
    singular = det._data == 0
    if not singular.any():
        return _as_matrix(grad * conj_of(det)) * _mH(inv(A))
    singular, invertible = _singular_and_invertible(A, singular)
    gradient = _as_matrix(grad * conj_of(det)) * _mH(inv(invertible))
    if not is_recording():
        return gradient
    return where(singular, _as_matrix(grad) * _cofactors(A), gradient)


def _singular_and_invertible(A, singular):
    """The mask of singular matrices (as a tensor) and A with those replaced by identities."""
    singular = Tensor._make(singular[..., None, None])
    return singular, where(singular, _identity(A.shape[-1], A), A)


def _cofactors(A):
    """det(A) A^-T, defined for singular A too, through the SVD: A = U S Vh gives
    det(U) det(Vh) U diag(prod of the other S_j) Vh (torch's singular-case formula)."""
    U, S, Vh = _svd(A, False)
    on_diagonal = _identity(S.shape[-1], S) == 1
    others = prod(where(on_diagonal, 1.0, unsqueeze(S, -2)), -1)
    return _as_matrix(_det(U) * _det(Vh)) * matmul(U * unsqueeze(others, -2), Vh)


_det.derivatives(A=_det_backward)


def det(A, *, out=None):
    """The determinant of each square matrix in A."""
    _check_matrices("linalg.det", A)
    check_lapack("lu_cpu", A, empty_passes=True)
    return _det(A)


@defop("LinalgSlogdetBackward0", save=("A", "result0"))
def _slogdet(xp, A: Tensor):
    sign, logabsdet = xp.linalg.slogdet(A)
    # torch's sign is the product of its LU pivots' signs, 0 where one is NaN
    return xp.where(xp.isnan(logabsdet), 0, sign).astype(sign.dtype), logabsdet


def _slogdet_backward(ctx):
    """g A^-H from logabsdet's g (the sign is locally constant for real matrices; a complex
    sign's phase adds torch's i Im(conj(sign) g_sign) to g). For a singular A it is infinite,
    as torch's: the cofactors over a zero determinant (the signs of the infinities can differ
    from torch's, which come out of its LU solve)."""
    (grad_sign, grad), A = ctx.grads, ctx.A
    if grad_sign is not None and _is_complex(A):
        phase = imag(conj_of(ctx.result0) * grad_sign)
        grad = phase * 1j if grad is None else grad + phase * 1j
    if grad is None:
        return None
    singular = ctx.result0._data == 0
    if not singular.any():
        return _as_matrix(grad) * _mH(inv(A))
    singular, invertible = _singular_and_invertible(A, singular)
    return where(singular, _as_matrix(grad) * _cofactors(A) / 0.0,
                 _as_matrix(grad) * _mH(inv(invertible)))


_slogdet.derivatives(A=_slogdet_backward)


def slogdet(A, *, out=None):
    """(sign, log|det|) of each square matrix: log|det| without overflow."""
    _check_matrices("linalg.slogdet", A, low_precision=False)
    return linalg_slogdet_return(*_slogdet(A))


def torch_slogdet(input):
    """torch.slogdet: linalg.slogdet under another result type name."""
    return slogdet_return(*slogdet(input))


def logdet(input):
    """log det(input): nan for a negative determinant, as torch; complex: log(sign) + log|det|."""
    _check_matrices("logdet", input, low_precision=False)
    sign, logabsdet = slogdet(input)
    if input.dtype.is_complex:
        return log(sign) + logabsdet
    return where(sign == -1, math.nan, logabsdet)


# ---- solve ---------------------------------------------------------------------------------

def _is_vector_rhs(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


@defop("LinalgSolveExBackward0", save=("A", "result", "left"))
def _solve(xp, A: Tensor, B: Tensor, left=True):
    return _any_dtype_if_empty(xp, lambda A, B: _lapack_solve(xp, A, B, left), A, B)


def _lapack_solve(xp, A, B, left):
    vector = _is_vector_rhs(A, B)
    rhs = B[..., None] if vector else B
    try:
        X = xp.linalg.solve(A, rhs) if left else _swap(xp.linalg.solve(_swap(A), _swap(rhs)))
    except xp.linalg.LinAlgError:
        raise _singular(xp, "torch.linalg.solve", A, "The solver failed because the input matrix "
                        "is singular.") from None
    return X[..., 0] if vector else X


def _solve_grad_B(ctx):
    """A^-T grad (left) or grad A^-T (right): the gradient of B, which A's also uses."""
    return _solve(_mH(ctx.A), ctx.grad, ctx.left)


def _solve_grad_A(ctx):
    grad_B, X = _solve_grad_B(ctx), ctx.result
    if _is_vector_rhs(ctx.A, X):
        grad_B, X = unsqueeze(grad_B, -1), unsqueeze(X, -1)
    return -matmul(grad_B, _mH(X)) if ctx.left else -matmul(_mH(X), grad_B)


_solve.derivatives(A=_solve_grad_A, B=_solve_grad_B)


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left) or X A = B; B may be a vector or a batch of vectors."""
    check_solve(A, B, left)
    return _solve(A, B, left)


def check_solve(A, B, left):
    """torch's checks of linalg.solve's arguments (solve_ex's too)."""
    _check_matrices("linalg.solve", A)
    if B.ndim < 1:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A.dtype is not B.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {A.dtype.legacy_name} and B of type {B.dtype.legacy_name} "
                           "instead")
    rhs = B.shape + (1,) if _is_vector_rhs(A, B) else B.shape
    broadcast_shapes(rhs[:-2], A.shape[:-2])  # torch's error for batches that do not match
    if rhs[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{rhs[-2]}x{rhs[-1]})")
    check_lapack("lu_cpu", A, empty_passes=True)


# ---- cholesky ------------------------------------------------------------------------------

def _non_positive_minors(xp, matrices):
    """LAPACK potrf's info per matrix: the order of the first leading minor that is not
    positive-definite, 0 when there is none. Runs only to word an error."""
    n = matrices.shape[-1]
    a = matrices.reshape(-1, n, n).astype(xp.float64)
    factor = xp.zeros_like(a)
    info = xp.zeros(a.shape[0], xp.int64)
    for j in range(n):
        pivot = a[:, j, j] - xp.sum(factor[:, j, :j] ** 2, axis=1)
        info[~(pivot > 0) & (info == 0)] = j + 1
        root = xp.sqrt(xp.where(pivot > 0, pivot, 1.0))
        factor[:, j, j] = root
        below = a[:, j + 1:, j] - xp.einsum("bik,bk->bi", factor[:, j + 1:, :j], factor[:, j, :j])
        factor[:, j + 1:, j] = below / root[:, None]
    return info.reshape(matrices.shape[:-2])


def _cholesky_forward(xp, A, upper, name):
    # torch reads one triangle only; NumPy may read both, so mirror the one torch reads.
    lower = _adjoint(A) if upper else A
    symmetric = xp.tril(lower) + _adjoint(xp.tril(lower, -1))
    try:
        factor = xp.linalg.cholesky(symmetric)
    except xp.linalg.LinAlgError:
        factor = None
    # NumPy gives NaN where a pivot is NaN; LAPACK's potrf (torch's) refuses the matrix
    if factor is None or xp.isnan(xp.diagonal(factor, 0, -2, -1)).any():
        raise _failure(xp, name, A.ndim > 2, _non_positive_minors(xp, symmetric),
                       "The factorization could not be completed because the input is not "
                       "positive-definite (the leading minor of order {} is not "
                       "positive-definite).") from None
    return _adjoint(factor) if upper else factor


def _cholesky_backward(ctx):
    """L^-T Phi L^-1 with Phi the symmetrised lower triangle of L^T grad, halved on the
    diagonal (torch's cholesky_backward)."""
    L, grad = ctx.result, ctx.grad
    if ctx.upper:
        L, grad = _mH(L), _mH(grad)
    phi = tril(matmul(_mH(L), grad))
    phi = 0.5 * (phi + _mH(tril(phi, -1)))
    return _solve(L, _solve(_mH(L), phi), False)


@defop("LinalgCholeskyExBackward0", save=("result", "upper"))
def _cholesky(xp, A: Tensor, upper=False):
    return _any_dtype_if_empty(xp, lambda A: _cholesky_forward(xp, A, upper, "linalg.cholesky"),
                               A)


@defop("CholeskyBackward0", save=("result", "upper"))
def _legacy_cholesky(xp, A: Tensor, upper=False):
    return _any_dtype_if_empty(xp, lambda A: _cholesky_forward(xp, A, upper, "cholesky"), A)


_cholesky.derivatives(A=_cholesky_backward)
_legacy_cholesky.derivatives(A=_cholesky_backward)


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (A = L L^T) of each symmetric positive-definite matrix, or U = L^T
    with upper=True; reads only the lower (upper) triangle of A."""
    _check_matrices("linalg.cholesky", A)
    check_lapack("cholesky_cpu", A, empty_passes=True)
    return _cholesky(A, upper)


CHOLESKY_DEPRECATION = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs.")


def torch_cholesky(input, upper=False, *, out=None):
    """torch.cholesky: deprecated by torch for linalg.cholesky (and warns so); its own node."""
    warn(CHOLESKY_DEPRECATION, UserWarning)
    # torch checks the shape only; its kernel, not the linalg check, refuses the dtype
    _check_matrices("cholesky", input, dtype=_dtype.float64)
    check_lapack("cholesky_cpu", input, empty_passes=True)
    return _legacy_cholesky(input, upper)


# ---- qr ------------------------------------------------------------------------------------

@defop("LinalgQrBackward0", save=("result0", "result1", "mode"))
def _qr(xp, A: Tensor, mode="reduced"):
    if mode == "r":
        return xp.empty(0, A.dtype), xp.linalg.qr(A, mode="r")
    Q, R = xp.linalg.qr(A, mode=mode)
    return Q, R


def _qr_backward(ctx):
    """A = QR: (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q for m >= n; for m < n the
    square left block X = QU takes gQ + Y gV^T and the rest gets Q gV (A = [X | Y])."""
    (Q, R), (grad_Q, grad_R) = (ctx.result0, ctx.result1), ctx.grads
    if ctx.mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if ctx.mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    grad_Q = zeros_of(Q) if grad_Q is None else grad_Q
    grad_R = zeros_of(R) if grad_R is None else grad_R
    if m >= n:
        return _qr_square_backward(Q, R, grad_Q, grad_R)
    U, V = R[..., :m], R[..., m:]
    grad_U, grad_V = grad_R[..., :m], grad_R[..., m:]
    grad_X = _qr_square_backward(Q, U, grad_Q + matmul(matmul(Q, V), _mH(grad_V)), grad_U)
    return cat((grad_X, matmul(Q, grad_V)), -1)


def _qr_square_backward(Q, R, grad_Q, grad_R):
    M = matmul(R, _mH(grad_R)) - matmul(_mH(grad_Q), Q)
    lower = tril(M, -1)
    on_diagonal = diagonal(M, 0, -2, -1)
    # torch's copyltu: the Hermitian matrix with M's lower part and the real part of its diagonal
    symmetric = lower + _mH(lower) + diag_embed(real(on_diagonal) if _is_complex(M)
                                                else on_diagonal)
    if (R._data.diagonal(0, -2, -1) == 0).any():  # a rank-deficient A
        return _substitute_right(R, grad_Q + matmul(Q, symmetric))
    return _solve(_mH(R), grad_Q + matmul(Q, symmetric), False)


def _substitute_right(R, B):
    """X with X R^T = B for upper triangular R, column by column from the last, as torch's
    triangular solve: a zero on R's diagonal gives inf and NaN where LU solve would refuse."""
    columns = []
    for j in reversed(range(R.shape[-1])):
        column = B[..., j]
        if columns:
            solved = stack(columns[::-1], -1)
            column = column - matmul(solved, unsqueeze(R[..., j, j + 1:], -1))[..., 0]
        columns.append(column / unsqueeze(R[..., j, j], -1))
    return stack(columns[::-1], -1)


_qr.derivatives(A=_qr_backward)


def qr(A, mode="reduced", *, out=None):
    """A = QR with orthonormal columns in Q and upper-triangular R; mode 'reduced', 'complete'
    or 'r' (R only, Q empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _check_matrices("linalg.qr", A, square=False)
    check_lapack("geqrf_cpu", A)
    return linalg_qr_return(*_qr(A, mode))


QR_DEPRECATION = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
    "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\n"
    "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")


def torch_qr(input, some=True, *, out=None):
    """torch.qr: deprecated by torch for linalg.qr (and warns so); some=False is 'complete'."""
    warn(QR_DEPRECATION, UserWarning)
    return qr_return(*qr(input, "reduced" if some else "complete"))


# ---- eigh ----------------------------------------------------------------------------------

def _lapack_eigh(xp, A, UPLO="L"):
    """NumPy's eigh, with torch's error for a matrix it cannot diagonalise (a NaN in it). The
    error code, LAPACK's count of entries that did not converge, is not known here: 1."""
    try:
        return xp.linalg.eigh(A, UPLO=UPLO)
    except xp.linalg.LinAlgError:
        failed = xp.isnan(A).any(axis=(-2, -1)).astype(int)
        raise _failure(xp, "linalg.eigh", A.ndim > 2, failed, (
            "The algorithm failed to converge because the input matrix is ill-conditioned or "
            "has too many repeated eigenvalues (error code: 1).")) from None


@defop("LinalgEighBackward0", save=("result0", "result1"))
def _eigh(xp, A: Tensor, UPLO="L"):
    return _any_dtype_if_empty(xp, lambda A: tuple(_lapack_eigh(xp, A, UPLO)), A)


def _eigh_backward(ctx):
    """V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i (torch's linalg_eig_backward
    for Hermitian input); assumes distinct eigenvalues."""
    (L, V), (grad_L, grad_V) = (ctx.result0, ctx.result1), ctx.grads
    if grad_V is None:
        return matmul(V * unsqueeze(grad_L, -2), _mH(V))
    VtgV = matmul(_mH(V), grad_V)
    # 1 on the diagonal, where the skew part is 0: its quotient stays 0
    gaps = unsqueeze(L, -2) - unsqueeze(L, -1) + _identity(L.shape[-1], L)
    inner = (0.5 * (VtgV - _mH(VtgV))) / gaps
    if grad_L is not None:
        inner = inner + diag_embed(grad_L)
    return matmul(V, matmul(inner, _mH(V)))


_eigh.derivatives(A=_eigh_backward)


def _check_eigh(A, UPLO):
    _check_matrices("linalg.eigh", A, dtype=_dtype.float64)  # its kernel refuses integers
    check_lapack("linalg_eigh_cpu", A, empty_passes=True)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices, read from
    the UPLO triangle. Eigenvector signs are LAPACK's (NumPy's), which may differ from torch's
    (MKL's): each column is determined up to sign."""
    _check_eigh(A, UPLO)
    return linalg_eigh_return(*_eigh(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    _check_eigh(A, UPLO)
    return _eigh(A, UPLO)[0]


# ---- svd -----------------------------------------------------------------------------------

def _lapack_svd(xp, A, full_matrices=False):
    """NumPy's SVD, which never returns from a matrix holding an infinity: as torch's, a matrix
    with a NaN is refused, and one with an infinity gets NaN factors (torch's LAPACK returns
    NaN singular values, and vectors that are part NaN)."""
    finite = xp.isfinite(A).all(axis=(-2, -1))
    if finite.all():
        return xp.linalg.svd(A, full_matrices=full_matrices)
    has_nan = xp.isnan(A).any(axis=(-2, -1))
    if has_nan.any():
        raise _failure(xp, "linalg.svd", A.ndim > 2, has_nan.astype(int), (
            "The algorithm failed to converge because the input matrix contained non-finite "
            "values."))
    factors = xp.linalg.svd(xp.where(finite[..., None, None], A, 0), full_matrices=full_matrices)
    nan = xp.asarray(xp.nan, A.dtype)
    return (xp.where(finite[..., None, None], factors[0], nan),
            xp.where(finite[..., None], factors[1], nan),
            xp.where(finite[..., None, None], factors[2], nan))


@defop("LinalgSvdBackward0", save=("result0", "result1", "result2", "full_matrices"))
def _svd(xp, A: Tensor, full_matrices=True):
    return _any_dtype_if_empty(xp, lambda A: tuple(_lapack_svd(xp, A, full_matrices)), A)


def _svd_backward(ctx):
    """torch's svd_backward for distinct singular values (full_matrices keeps only the first
    k = min(m, n) columns of U and rows of Vh, as torch)."""
    (U, S, Vh), (grad_U, grad_S, grad_Vh) = (ctx.result0, ctx.result1, ctx.result2), ctx.grads
    k = S.shape[-1]
    if ctx.full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        grad_U = None if grad_U is None else grad_U[..., :k]
        grad_Vh = None if grad_Vh is None else grad_Vh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    if grad_U is None and grad_Vh is None:
        return matmul(U * unsqueeze(grad_S, -2), Vh)
    inner = _svd_inner_grad(U, S, Vh, grad_U, grad_S, grad_Vh)
    if m > n and grad_U is not None:
        projected = grad_U / unsqueeze(S, -2)
        outer = matmul(U, inner) + projected - matmul(U, matmul(_mH(U), projected))
        return matmul(outer, Vh)
    if m < n and grad_Vh is not None:
        projected = grad_Vh / unsqueeze(S, -1)
        outer = matmul(inner, Vh) + projected - matmul(matmul(projected, _mH(Vh)), Vh)
        return matmul(U, outer)
    return matmul(U, matmul(inner, Vh))


def _svd_inner_grad(U, S, Vh, grad_U, grad_S, grad_Vh):
    """The k x k core: skew(U^H gU) S / E + S skew(V^H gV) / E + diag(gS), E_ij = S_j^2 - S_i^2
    (1 on the diagonal, where the skew parts of real matrices vanish); complex ones add torch's
    diag(skew(U^H gU)) / 2S, for the phase a column of U shares with one of V."""
    squares = S * S
    gaps = unsqueeze(squares, -2) - unsqueeze(squares, -1) + _identity(S.shape[-1], S)
    inner = zeros_of(gaps)
    if grad_U is not None:
        UtgU = matmul(_mH(U), grad_U)
        skew_U = UtgU - _mH(UtgU)
        inner = inner + skew_U * unsqueeze(S, -2)
    if grad_Vh is not None:
        VtgV = matmul(Vh, _mH(grad_Vh))
        inner = inner + unsqueeze(S, -1) * (VtgV - _mH(VtgV))
    inner = inner / gaps
    if grad_U is not None and grad_Vh is not None and _is_complex(U):
        inner = inner + diag_embed(diagonal(skew_U, 0, -2, -1) / (2 * S))
    return inner if grad_S is None else inner + diag_embed(grad_S)


_svd.derivatives(A=_svd_backward)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """A = U diag(S) Vh, singular values descending."""
    _check_matrices("linalg.svd", A, square=False)
    check_lapack("linalg_svd_cpu", A, empty_passes=True)
    return linalg_svd_return(*_svd(A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    _check_matrices("linalg.svd", A, square=False)  # torch's texts name svd
    check_lapack("linalg_svd_cpu", A, empty_passes=True)
    return _svd(A, False)[1]


def torch_svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) with V = Vh^T; without compute_uv, U and V are zeros."""
    U, S, Vh = svd(input, not some)
    if not compute_uv:
        return svd_return(zeros_of(U, input.shape[:-1] + (input.shape[-2],)), S,
                          zeros_of(Vh, input.shape[:-2] + (input.shape[-1],) * 2))
    return svd_return(U, S, _mH(Vh))


# ---- pseudoinverse -------------------------------------------------------------------------

@defop("LinalgPinvBackward0", save=("A", "result"))
def _pinv(xp, A: Tensor, atol=None, rtol=None, hermitian=False):
    m, n = A.shape[-2:]
    if A.size == 0:
        return xp.zeros(A.shape[:-2] + (n, m), A.dtype)
    if rtol is None:
        eps = float(xp.finfo(A.dtype).eps)  # a Python number, which meets any device's arrays
        rtol = 0.0 if atol is not None and atol > 0 else eps * max(m, n)
    if hermitian:
        values, vectors = _lapack_eigh(xp, A)
        largest = xp.max(xp.abs(values), axis=-1, keepdims=True)
        left, right = vectors, _adjoint(vectors)
    else:
        left, values, right = _lapack_svd(xp, A)
        largest = values[..., :1]
        left, right = _adjoint(right), _adjoint(left)
    # Singular values at or below the tolerance count as zero.
    tolerance = xp.maximum(atol or 0.0, rtol * largest)
    kept = xp.abs(values) > tolerance
    reciprocal = xp.where(kept, 1 / xp.where(kept, values, 1), 0).astype(A.dtype)
    return xp.matmul(left * reciprocal[..., None, :], right)


def pinv_backward(grad, pinv_A, A):
    """torch's pinv_backward, arranged so the inner products are the smaller side's."""
    pinv_At, grad_t = _mH(pinv_A), _mH(grad)
    if A.shape[-2] <= A.shape[-1]:
        K = matmul(grad_t, pinv_A)
        K_pinv_At = matmul(K, pinv_At)
        return (-_mH(matmul(pinv_A, K)) + K_pinv_At - matmul(matmul(A, pinv_A), K_pinv_At)
                + matmul(matmul(pinv_At, pinv_A), grad_t - matmul(K, A)))
    K = matmul(pinv_A, grad_t)
    pinv_At_K = matmul(pinv_At, K)
    return (-_mH(matmul(K, pinv_A)) + matmul(matmul(grad_t - matmul(A, K), pinv_A), pinv_At)
            + pinv_At_K - matmul(matmul(pinv_At_K, pinv_A), A))


_pinv.derivatives(A=lambda ctx: pinv_backward(ctx.grad, ctx.result, ctx.A))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudoinverse; singular values <= max(atol, rtol * largest) count as 0
    (rcond is rtol's older name)."""
    if A.ndim < 2 or not is_lapack_dtype(A.dtype):
        raise RuntimeError(f"linalg.pinv({A.dtype.legacy_name}{{{list(A.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble "
                           "types")
    # tolerances given as tensors reach the NumPy forward as arrays
    atol, rtol = (value._data if isinstance(value, Tensor) else value
                  for value in (atol, rtol if rcond is None else rcond))
    return _pinv(A, atol, rtol, hermitian)


def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


# ---- norms ---------------------------------------------------------------------------------

_INF = float("inf")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norms over the two dims: 'fro', 'nuc' (sum of singular values), 2 / -2 (largest /
    smallest singular value), 1 / -1 (max / min column sum) and inf / -inf (row sums)."""
    if ord not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        shown = int(ord) if isinstance(ord, float) and ord.is_integer() else ord
        raise RuntimeError(f"linalg.matrix_norm: Order {shown} not supported.")
    # torch: A's dtype even with a float dtype given; half only where no SVD is needed
    _check_matrices("linalg.matrix_norm", A, square=False,
                    low_precision=ord not in ("nuc", 2, -2))
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(map(str, dim)))
    dims = (wrap_dim(dim[0], A.ndim), wrap_dim(dim[1], A.ndim))
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got {dims}")
    if dtype is not None:
        _check_norm_dtype("linalg.matrix_norm", A.dtype, dtype)
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        return _spectral_norm(A if dtype is None else A.to(dtype), ord, dims, keepdim)
    # 1 / -1: the extreme column sum; inf / -inf: the extreme row sum
    summed, extreme = dims if abs(ord) == 1 else dims[::-1]
    if not keepdim and summed < extreme:
        extreme -= 1
    select = amax if ord > 0 else amin
    return select(vector_norm(A, 1, summed, keepdim, dtype=dtype), extreme, keepdim)


def _check_norm_dtype(name, input_dtype, dtype):
    """A norm's dtype argument: floating or complex as the input, and not narrower than it."""
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype.legacy_name}")
    if input_dtype.is_complex != dtype.is_complex:
        kind = "complex" if input_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                           f"{dtype.legacy_name}")
    if _dtype.promote_types(input_dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({input_dtype.legacy_name}) should "
                           "be convertible without narrowing to the specified dtype "
                           f"({dtype.legacy_name})")


def _spectral_norm(A, ord, dims, keepdim):
    """'nuc', 2 or -2: a function of the singular values of the (dims) matrices."""
    order = [d for d in range(A.ndim) if d not in dims] + list(dims)
    singular_values = svdvals(permute(A, order))
    if ord == 2 and singular_values.shape[-1] == 0:  # torch: zeros for empty matrices, no graph
        result = zeros_of(singular_values, singular_values.shape[:-1] + (1,) * keepdim)
    elif ord == "nuc":
        result = sum(singular_values, -1, keepdim)
    else:
        result = (amax if ord > 0 else amin)(singular_values, -1, keepdim)
    if not keepdim:
        return result
    restore = sorted(range(A.ndim), key=order.__getitem__)
    return permute(unsqueeze(result, -1), restore)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """linalg.norm: a vector norm, or a matrix norm when ord is given for two dims (a 2-D
    input without dim included)."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)}")
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str) or (ord is not None and (len(dim) == 2 if dim else A.ndim == 2)):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# torch.linalg.cholesky, qr, svd and slogdet keep their names here; the top-level spellings
# differ (arguments, node, result type) and are published under theirs.
FUNCTIONS = {"cholesky": torch_cholesky, "det": det, "inverse": inverse, "logdet": logdet,
             "pinverse": pinverse, "qr": torch_qr, "slogdet": torch_slogdet, "svd": torch_svd}
METHODS = FUNCTIONS
LINALG_FUNCTIONS = ("LinAlgError cholesky det eigh eigvalsh inv matrix_norm norm pinv qr slogdet "
                    "solve svd svdvals").split()
