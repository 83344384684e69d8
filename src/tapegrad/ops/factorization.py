"""The factorizations of torch.linalg and the solvers built on them: LU (lu, lu_factor,
lu_solve, lu_unpack), LDL, triangular and Cholesky solves and the *_ex forms that report
LAPACK's info instead of raising, with torch's legacy names (the Householder family is in
factorization_householder.py). Forwards run SciPy's LAPACK and BLAS routines matrix by matrix,
as torch calls LAPACK, so pivots, partial factors of failed matrices and infinities of singular
solves come out as torch's; on a device, SciPy's twin (CuPy's cupyx.scipy.linalg) and array ops
give the same answers (LDL by sytf2's steps in array ops, _bunch_kaufman.py: CuPy has no sytrf).
Gradients are torch's formulas written in tapegrad ops. Complex matrices take the conjugate
transpose where real ones take the transpose (A^H in the formulas, LAPACK's conjugate solves,
Hermitian LDL unless hermitian=False)."""
import math
import warnings

import numpy as np

from .. import _dtype
from .._scipy import scipy
from .._tensor import Tensor
from .._warnings import warn
from . import _bunch_kaufman
from ._checks import broadcast_shapes
from ._define import array_of, defop
from ._scipy_of import scipy_of
from .complex_parts import conj_of
from .decomposition import _check_matrices, _failure, _is_vector_rhs, _mH, _mT, check_lapack
from .joining import cat
from .linalg import matmul
from .reduction import return_type
from .reordering import tril, triu
from .shape import unsqueeze, zeros_of

linalg_lu_return = return_type("linalg_lu", ("P", "L", "U"))
lu_unpack_return = return_type("lu_unpack", ("P", "L", "U"))
linalg_lu_factor_return = return_type("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex_return = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_with_info_return = return_type("_lu_with_info", ("LU", "pivots", "info"))
linalg_ldl_factor_return = return_type("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex_return = return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
triangular_solve_return = return_type("triangular_solve", ("solution", "cloned_coefficient"))
linalg_cholesky_ex_return = return_type("linalg_cholesky_ex", ("L", "info"))
linalg_inv_ex_return = return_type("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex_return = return_type("linalg_solve_ex", ("result", "info"))


# ---- LAPACK, matrix by matrix --------------------------------------------------------------

_PREFIXES = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
_UNITARY = {"orgqr": "ungqr", "ormqr": "unmqr", "sytrf": "hetrf", "sytrs": "hetrs"}


def _routine(name, like, needed_by, hermitian=True):
    """SciPy's LAPACK (or BLAS) routine `name` for like's dtype: s, d, c or z..., and for
    complex matrices the unitary and Hermitian forms (orgqr: ungqr, sytrf: hetrf unless not
    hermitian)."""
    linalg = scipy("linalg", needed_by)
    module = linalg.blas if name == "trsm" else linalg.lapack
    if like.dtype.kind == "c" and hermitian:
        name = _UNITARY.get(name, name)
    return getattr(module, _PREFIXES[like.dtype.name] + name)


def _batch(*arrays, cores=None, xp=np):
    """The broadcast batch shape of arrays (their dims before the last `cores[i]`, 2 by
    default), and each array broadcast to it."""
    cores = cores or (2,) * len(arrays)
    batch = np.broadcast_shapes(*(a.shape[:a.ndim - c] for a, c in zip(arrays, cores)))
    return batch, [xp.broadcast_to(a, batch + a.shape[a.ndim - c:])
                   for a, c in zip(arrays, cores)]


def _check_info(info, routine):
    if (info < 0).any():  # an illegal argument: a bug here, not in the user's input
        raise RuntimeError(f"{routine}: LAPACK's argument {-int(info.min())} was illegal")


def _trsm(xp, A, B, upper, left, transpose, unitriangular):
    """op(A) X = B (left) or X op(A) = B for triangular A, op(A) = A or A^T, by BLAS's trsm:
    no check for a zero on A's diagonal, which gives infinities and NaN as torch's."""
    if xp is not np:
        return _device_trsm(xp, A, B, upper, left, transpose, unitriangular)
    batch, (A, B) = _batch(A, B)
    X = xp.empty(B.shape, B.dtype)
    if X.size == 0:
        return X
    if not unitriangular and _inexact_reciprocals(xp, A):
        return _by_substitution(xp, A, B, upper, left, transpose)
    trsm = _routine("trsm", X, "torch.linalg.solve_triangular")
    for index in xp.ndindex(batch):
        X[index] = trsm(1.0, A[index], B[index], side=int(not left), lower=int(not upper),
                        trans_a=int(transpose), diag=int(unitriangular))
    return X


def _getrf(xp, A, name):
    """LU with partial pivoting of each matrix: (LU, 1-based int32 pivots, info)."""
    if xp is not np:
        return _device_getrf(xp, A, name)
    m, n = A.shape[-2:]
    LU = A.copy()
    pivots = xp.zeros(A.shape[:-2] + (min(m, n),), xp.int32)
    info = xp.zeros(A.shape[:-2], xp.int32)
    if A.size:
        getrf = _routine("getrf", A, name)
        for index in xp.ndindex(A.shape[:-2]):
            LU[index], pivots_0, info[index] = getrf(A[index])
            pivots[index] = pivots_0 + 1
    _check_info(info, name)
    return LU, pivots, info


def _getrs(xp, LU, pivots, B, left, adjoint):
    """X with A X = B, A^T X = B (adjoint), X A = B or X A^T = B from A's LU factors, a matrix
    at a time: LAPACK's getrs, or on a device the twin's lu_solve (cuSOLVER's getrs on CuPy)."""
    batch, (LU, pivots, B) = _batch(LU, pivots, B, cores=(2, 1, 2), xp=xp)
    X = xp.empty(B.shape, B.dtype)
    if X.size == 0:
        return X
    if xp is np:
        getrs = _routine("getrs", B, "torch.linalg.lu_solve")

        def solve(lu, rows, b, trans):
            return getrs(lu, rows, b, trans=trans)[0]
    else:
        lu_solve = _twin(xp, LU, "torch.linalg.lu_solve").lu_solve

        def solve(lu, rows, b, trans):
            return lu_solve((lu, rows), b, trans=trans, check_finite=False)
    conjugate = 2 if B.dtype.kind == "c" else 1  # LAPACK's trans for A^H
    for index in np.ndindex(batch):
        lu, rows, b = LU[index], pivots[index] - 1, B[index]
        if left:
            X[index] = solve(lu, rows, b, conjugate if adjoint else 0)
        elif not adjoint:  # X A = B is A^T X^T = B^T
            X[index] = solve(lu, rows, b.T, 1).T
        else:  # X A^H = B is A X^H = B^H
            X[index] = solve(lu, rows, b.conj().T, 0).conj().T
    return X


# ---- the same on a device: SciPy's twin (CuPy's cupyx.scipy.linalg) and array ops ---------
# Only what CuPy's twin and SciPy's (the test double's) do alike is called; where they differ
# (a zero on a triangular diagonal, a matrix that is not positive-definite), array ops give
# LAPACK's answer on both.

def _twin(xp, array, name):
    return scipy_of(xp, "linalg", array, name.removeprefix("torch."), name)


def _device_trsm(xp, A, B, upper, left, transpose, unitriangular):
    """_trsm on a device: the twin's solve_triangular over the whole batch (cuBLAS's batched
    trsm on CuPy). A zero on a diagonal makes SciPy's raise where cuBLAS's (and torch's) give
    infinities: such a batch is solved by substitution instead."""
    batch, (A, B) = _batch(A, B, xp=xp)
    if B.size == 0:
        return xp.empty(B.shape, B.dtype)
    if not unitriangular and (bool((xp.diagonal(A, 0, -2, -1) == 0).any())
                              or _inexact_reciprocals(xp, A)):
        return _by_substitution(xp, A, B, upper, left, transpose)
    # X A = B is A^T X^T = B^T (and X A^T = B is A X^T = B^T): the twin solves from the left
    trans = int(transpose) if left else int(not transpose)
    X = _twin(xp, A, "torch.linalg.solve_triangular").solve_triangular(
        A, B if left else B.swapaxes(-1, -2), trans=trans, lower=not upper,
        unit_diagonal=unitriangular, check_finite=False)
    return X if left else X.swapaxes(-1, -2)


def _inexact_reciprocals(xp, A):
    """Whether a nonzero diagonal element's reciprocal overflows: trsm multiplies by the
    reciprocals, and so does torch's (MKL's) except where one overflows, where it divides
    (5e-324 / 5e-324 is 1, not inf; a huge pivot's subnormal reciprocal it keeps)."""
    magnitudes = xp.abs(xp.diagonal(A, 0, -2, -1))
    return bool(((magnitudes != 0) & (magnitudes < 1 / xp.finfo(magnitudes.dtype).max)).any())


def _by_substitution(xp, A, B, upper, left, transpose):
    """op(A) X = B or X op(A) = B by substitution, transposed to a solve from the left."""
    trans = transpose if left else not transpose
    X = _substitute(xp, A.swapaxes(-1, -2) if trans else A, B if left else B.swapaxes(-1, -2),
                    upper != trans)
    return X if left else X.swapaxes(-1, -2)


def _substitute(xp, A, B, upper):
    """X with A X = B for triangular A with no unit diagonal, a row of X at a time, so a zero
    pivot gives BLAS's infinities and NaN (inf, then 0 * inf in the rows after)."""
    n = A.shape[-1]
    X = xp.empty(B.shape, B.dtype)
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        known = slice(i + 1, n) if upper else slice(0, i)
        row = B[..., i, :] - (A[..., i:i + 1, known] @ X[..., known, :])[..., 0, :]
        X[..., i, :] = row / A[..., i, i, None]
    return X


def _first_zero(xp, diagonal):
    """LAPACK's info from each matrix's diagonal: the 1-based position of its first zero, or 0."""
    info = xp.zeros(diagonal.shape[:-1], xp.int32)
    if diagonal.shape[-1]:
        zero = diagonal == 0
        info = xp.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(xp.int32)
    return info


def _device_getrf(xp, A, name):
    """_getrf on a device: the twin's lu_factor (cuSOLVER's getrf on CuPy), a matrix at a
    time as it takes one. Neither returns info (both warn of a singular matrix instead): it is
    the first zero on U's diagonal, as LAPACK's."""
    m, n = A.shape[-2:]
    LU = A.copy()
    pivots = xp.zeros(A.shape[:-2] + (min(m, n),), xp.int32)
    if A.size:
        lu_factor = _twin(xp, A, name).lu_factor
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the singular matrix's warning: info tells it
            for index in np.ndindex(A.shape[:-2]):
                LU[index], pivots_0 = lu_factor(A[index], check_finite=False)
                pivots[index] = pivots_0 + 1
    return LU, pivots, _first_zero(xp, xp.diagonal(LU, 0, -2, -1))


def _device_potrf(xp, A, upper):
    """potrf on a device by array ops over the batch, a column at a time (LAPACK's unblocked
    potf2): CuPy's cholesky gives garbage for a matrix that is not positive-definite and
    NumPy's raises, where torch wants LAPACK's info and partial factor. A failed matrix keeps
    its columns done, the failing pivot's value, and A's own entries after it. (factor, info)"""
    if upper:  # U^H U = A from A's upper triangle is L L^H = A^H from A^H's lower one
        L, info = _device_potrf(xp, A.conj().swapaxes(-1, -2), False)
        return L.conj().swapaxes(-1, -2), info
    L = xp.tril(A)
    info = xp.zeros(A.shape[:-2], xp.int32)
    going = xp.ones(A.shape[:-2], bool)
    for j in range(A.shape[-1]):
        row = L[..., j, :j]
        pivot = L[..., j, j].real - (row * row.conj()).real.sum(-1)
        fine = going & (pivot > 0)  # not positive (NaN included): the matrix fails here
        info = xp.where(going & ~fine, j + 1, info).astype(xp.int32)
        root = xp.sqrt(xp.where(fine, pivot, 1))
        column = (L[..., j + 1:, j] - (L[..., j + 1:, :j] @ row.conj()[..., None])[..., 0])
        L[..., j + 1:, j] = xp.where(fine[..., None], column / root[..., None],
                                     L[..., j + 1:, j])
        L[..., j, j] = xp.where(fine, root, xp.where(going, pivot, L[..., j, j]))
        going = fine
    return L, info


def _device_potrs(xp, factor, B, upper):
    """potrs on a device: A = L L^H (or U^H U) solved by two triangular solves."""
    adjoint = factor.conj().swapaxes(-1, -2)
    if upper:
        return _device_trsm(xp, factor, _device_trsm(xp, adjoint, B, False, True, False, False),
                            True, True, False, False)
    return _device_trsm(xp, adjoint, _device_trsm(xp, factor, B, False, True, False, False),
                        True, True, False, False)


def _check_same_dtype(b, A):
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{b.dtype.legacy_name} and A of type {A.dtype.legacy_name} instead.")


# ---- triangular solves ---------------------------------------------------------------------

@defop("LinalgSolveTriangularBackward0", save=("A", "result", "upper", "left", "unitriangular"))
def _solve_triangular(xp, A: Tensor, B: Tensor, upper, left=True, unitriangular=False):
    # torch solves in A's dtype: B of any dtype is cast to it (a complex one loses its imag)
    B = B.real if A.dtype.kind != "c" and B.dtype.kind == "c" else B
    return _trsm(xp, A, B.astype(A.dtype, copy=False), upper, left, False, unitriangular)


def _solve_triangular_grad_B(ctx):
    """A^-T grad (left) or grad A^-T: A^T is triangular the other way."""
    return _solve_triangular(_mH(ctx.A), ctx.grad, not ctx.upper, ctx.left, ctx.unitriangular)


def _solve_triangular_grad_A(ctx):
    """-G_B X^H (left) or -X^H G_B, kept to A's triangle (without the diagonal when it is
    taken as ones)."""
    grad_B, X = _solve_triangular_grad_B(ctx), ctx.result
    grad = -matmul(grad_B, _mH(X)) if ctx.left else -matmul(_mH(X), grad_B)
    unit = int(ctx.unitriangular)
    return triu(grad, unit) if ctx.upper else tril(grad, -unit)


_solve_triangular.derivatives(A=_solve_triangular_grad_A, B=_solve_triangular_grad_B)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (left) or X A = B for triangular A (its other triangle is not read; with
    unitriangular its diagonal is taken as ones)."""
    name = "linalg.solve_triangular"
    for label, tensor in (("A", A), ("B", B)):
        if tensor.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor {label} must have at least 2 "
                               "dimensions.")
    check_lapack("triangular_solve_cpu", A)
    _check_matrices(name, A)
    if B.shape[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    broadcast_shapes(B.shape[:-2], A.shape[:-2])  # torch's error for batches that do not match
    if B.dtype.is_complex and not A.dtype.is_complex:
        warn("Casting complex values to real discards the imaginary part")
    return _solve_triangular(A, B, upper, left, unitriangular)


@defop("TriangularSolveBackward0", save=("A", "result0", "upper", "transpose",
                                         "unitriangular"))
def _triangular_solve(xp, input: Tensor, A: Tensor, upper=True, transpose=False,
                      unitriangular=False):
    X = _trsm(xp, A, input, upper, True, transpose, unitriangular)
    return X, xp.broadcast_to(A, X.shape[:-2] + A.shape[-2:]).copy()


def _triangular_solve_grad_input(ctx):
    grad = ctx.grads[0]
    if grad is None:
        return zeros_of(ctx.result0)
    return _triangular_solve(grad, conj_of(ctx.A), ctx.upper, not ctx.transpose,
                             ctx.unitriangular)[0]


def _triangular_solve_grad_A(ctx):
    """-grad_b X^H (or -conj(X) grad_b^T for the transposed system) in A's triangle, plus the
    gradient of the coefficient's copy."""
    grad_X, grad_copy = ctx.grads
    grad = None
    if grad_X is not None:
        grad_b, X = _triangular_solve_grad_input(ctx), ctx.result0
        grad = (-matmul(conj_of(X), _mT(grad_b)) if ctx.transpose
                else -matmul(grad_b, _mH(X)))
        unit = int(ctx.unitriangular)
        grad = triu(grad, unit) if ctx.upper else tril(grad, -unit)
    if grad_copy is None:
        return grad
    return grad_copy if grad is None else grad + grad_copy


_triangular_solve.derivatives(input=_triangular_solve_grad_input, A=_triangular_solve_grad_A)

TRIANGULAR_SOLVE_DEPRECATION = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
    "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
    "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
    "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).")


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve: (X, a copy of A) with op(A) X = input, op(A) = A or A^T."""
    warn(TRIANGULAR_SOLVE_DEPRECATION, UserWarning)
    if input.ndim < 2:
        raise RuntimeError("torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {input.ndim} dimensions instead")
    if A.ndim < 2:
        raise RuntimeError("torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.ndim} dimensions instead")
    _check_same_dtype(input, A)
    _check_solve_shapes("triangular_solve", input, A)
    check_lapack("triangular_solve_cpu", A)
    return triangular_solve_return(*_triangular_solve(input, A, upper, transpose, unitriangular))


def _check_solve_shapes(name, b, A):
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")


# ---- Cholesky: cholesky_ex, cholesky_solve, cholesky_inverse --------------------------------

NOT_POSITIVE_DEFINITE = ("The factorization could not be completed because the input is not "
                         "positive-definite (the leading minor of order {} is not "
                         "positive-definite).")


@defop("LinalgCholeskyExBackward0", save=("result", "upper"))
def _cholesky_ex(xp, A: Tensor, upper=False, check_errors=False):
    factor = xp.zeros_like(A)
    info = xp.zeros(A.shape[:-2], xp.int32)
    if A.size and xp is not np:
        factor, info = _device_potrf(xp, A, upper)
    elif A.size:
        potrf = _routine("potrf", A, "torch.linalg.cholesky_ex")
        for index in xp.ndindex(A.shape[:-2]):
            # a failed matrix keeps LAPACK's partial factor (the failing pivot included)
            factor[index], info[index] = potrf(A[index], lower=int(not upper), clean=1)
    if check_errors and info.any():
        raise _failure(xp, "linalg.cholesky_ex", A.ndim > 2, info, NOT_POSITIVE_DEFINITE)
    return factor, info


def _cholesky_ex_backward(ctx):
    """L^-H Phi L^-1, Phi the lower triangle of L^H grad made Hermitian (its diagonal halved),
    by triangular solves as torch's: a failed factor's zero pivot gives infinities, not an
    error."""
    L, grad = ctx.result, ctx.grad
    if ctx.upper:
        L, grad = _mH(L), _mH(grad)
    phi = tril(matmul(_mH(L), grad))
    phi = 0.5 * (phi + _mH(tril(phi, -1)))
    return _solve_triangular(L, _solve_triangular(_mH(L), phi, True), False, False)


_cholesky_ex.derivatives(A=_cholesky_ex_backward)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): the Cholesky factor and LAPACK's info per matrix (the order of the first
    leading minor that is not positive-definite, 0 for success) instead of an error."""
    _check_matrices("linalg.cholesky", A)
    check_lapack("cholesky_cpu", A, empty_passes=True)
    return linalg_cholesky_ex_return(*_cholesky_ex(A, upper, check_errors))


@defop("CholeskySolveBackward0", save=("input2", "result", "upper"))
def _cholesky_solve(xp, input: Tensor, input2: Tensor, upper=False):
    if xp is not np:
        return _device_potrs(xp, input2, input, upper)
    batch, (B, factor) = _batch(input, input2)
    X = xp.empty(B.shape, B.dtype)
    if X.size:
        potrs = _routine("potrs", X, "torch.cholesky_solve")
        for index in xp.ndindex(batch):
            X[index], _ = potrs(factor[index], B[index], lower=int(not upper))
    return X


def _cholesky_solve_grad_input(ctx):
    return _cholesky_solve(ctx.grad, ctx.input2, ctx.upper)


def _cholesky_solve_grad_input2(ctx):
    """A = L L^H gives grad_A = -grad_B X^H, and L's gradient (grad_A + grad_A^H) L."""
    common = matmul(_cholesky_solve_grad_input(ctx), _mH(ctx.result))
    common = common + _mH(common)
    return -matmul(ctx.input2, common) if ctx.upper else -matmul(common, ctx.input2)


_cholesky_solve.derivatives(input=_cholesky_solve_grad_input, input2=_cholesky_solve_grad_input2)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """X with A X = input for A = L L^T given L (input2), or A = U^T U with upper=True."""
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} "
                           "dimensions instead")
    if input2.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.ndim} "
                           "dimensions instead")
    _check_same_dtype(input, input2)
    _check_solve_shapes("cholesky_solve", input, input2)
    check_lapack("cholesky_solve_cpu", input2)
    return _cholesky_solve(input, input2, upper)


@defop("CholeskyInverseBackward0", save=("input", "result", "upper"))
def _cholesky_inverse(xp, input: Tensor, upper=False):
    inverse = xp.zeros_like(input)
    info = xp.zeros(input.shape[:-2], xp.int32)
    if xp is not np:  # potri's info (a zero on the factor's diagonal), then a solve of A X = I
        info = _first_zero(xp, xp.diagonal(input, 0, -2, -1))
        if not info.any():
            identity = xp.broadcast_to(xp.eye(input.shape[-1], dtype=input.dtype), input.shape)
            inverse = _device_potrs(xp, input, identity, upper)
    elif input.size:
        potri = _routine("potri", input, "torch.cholesky_inverse")
        for index in xp.ndindex(input.shape[:-2]):
            half, info[index] = potri(input[index], lower=int(not upper))
            # potri fills one triangle of the symmetric inverse
            half = xp.triu(half) if upper else xp.tril(half)
            inverse[index] = half + half.conj().T - xp.diag(xp.diag(half))
    if info.any():
        raise _failure(xp, "cholesky_inverse", input.ndim > 2, info, (
            "The diagonal element {} is zero, the inversion could not be completed because the "
            "input matrix is singular."))
    return inverse


def _cholesky_inverse_backward(ctx):
    """-inv (grad + grad^H) inv L (or -U inv (grad + grad^H) inv)."""
    inverse, factor = ctx.result, ctx.input
    common = matmul(inverse, matmul(ctx.grad + _mH(ctx.grad), inverse))
    return -matmul(factor, common) if ctx.upper else -matmul(common, factor)


_cholesky_inverse.derivatives(input=_cholesky_inverse_backward)


def cholesky_inverse(input, upper=False, *, out=None):
    """(L L^T)^-1 from the Cholesky factor L, or (U^T U)^-1 with upper=True."""
    check_lapack("cholesky_inverse_out_cpu", input)
    _check_matrices("cholesky_inverse", input)
    return _cholesky_inverse(input, upper)


# ---- inv_ex, solve_ex ----------------------------------------------------------------------

SINGULAR_INVERSE = ("The diagonal element {} is zero, the inversion could not be completed "
                    "because the input matrix is singular.")


def _nan_spread(xp, A, X):
    """X with NaN throughout for each matrix of A holding a NaN: torch's LAPACK carries a NaN
    pivot through the whole factor, where SciPy's may leave some rows of X finite."""
    has_nan = xp.isnan(A).any(axis=(-2, -1))
    return xp.where(has_nan[..., None, None], xp.nan, X) if has_nan.any() else X


@defop("LinalgInvExBackward0", save=("result",))
def _inv_ex(xp, A: Tensor, check_errors=False):
    LU, pivots, info = _getrf(xp, A, "torch.linalg.inv_ex")
    if check_errors and info.any():
        raise _failure(xp, "linalg.inv_ex", A.ndim > 2, info, SINGULAR_INVERSE)
    # as torch, the solve of A X = I: a singular matrix gives infinities, not an error
    identity = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    return _nan_spread(xp, A, _getrs(xp, LU, pivots, identity, True, False)), info


_inv_ex.derivatives(A=lambda ctx: -matmul(_mH(ctx.result), matmul(ctx.grad, _mH(ctx.result))))


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): info is LAPACK's per matrix, the position of a zero pivot or 0."""
    _check_matrices("linalg.inv", A, low_precision=False)
    return linalg_inv_ex_return(*_inv_ex(A, check_errors))


@defop("LinalgSolveExBackward0", save=("A", "result", "left"))
def _solve_ex(xp, A: Tensor, B: Tensor, left=True, check_errors=False):
    LU, pivots, info = _getrf(xp, A, "torch.linalg.solve_ex")
    if check_errors and info.any():
        raise _failure(xp, "torch.linalg.solve_ex", A.ndim > 2, info,
                       "The solver failed because the input matrix is singular.")
    vector = _is_vector_rhs(A, B)
    X = _nan_spread(xp, A, _getrs(xp, LU, pivots, B[..., None] if vector else B, left, False))
    return X[..., 0] if vector else X, info


def _solve_ex_grad_B(ctx):
    """A^-H grad (left) or grad A^-H, by LAPACK as the forward: infinities for a singular A
    (torch's backward solves with the saved LU), where linalg.solve would raise."""
    return _solve_ex(_mH(ctx.A), ctx.grad, ctx.left)[0]


def _solve_ex_grad_A(ctx):
    grad_B, X = _solve_ex_grad_B(ctx), ctx.result
    if _is_vector_rhs(ctx.A, X):
        grad_B, X = unsqueeze(grad_B, -1), unsqueeze(X, -1)
    return -matmul(grad_B, _mH(X)) if ctx.left else -matmul(_mH(X), grad_B)


_solve_ex.derivatives(A=_solve_ex_grad_A, B=_solve_ex_grad_B)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(X, info) with A X = B (left) or X A = B; info as inv_ex's."""
    _check_matrices("linalg.solve", A)
    if B.ndim < 1:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A.dtype is not B.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {A.dtype.legacy_name} and B of type {B.dtype.legacy_name} "
                           "instead")
    rhs = B.shape + (1,) if _is_vector_rhs(A, B) else B.shape
    if rhs[-2 if left else -1] != A.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{rhs[-2]}x{rhs[-1]})")
    broadcast_shapes(rhs[:-2], A.shape[:-2])
    check_lapack("lu_cpu", A, empty_passes=True)
    return linalg_solve_ex_return(*_solve_ex(A, B, left, check_errors))


# ---- LU ------------------------------------------------------------------------------------

def _check_lu_input(name, A):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    check_lapack("lu_cpu", A, empty_passes=True)


def _check_pivot(pivot):
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _permutations(xp, pivots, m, dtype):
    """P of A = P L U from LAPACK's pivots (row i was swapped with row pivots[i] - 1, in
    turn): P[perm[r], r] = 1 for the rows perm that the swaps make of 0 .. m-1."""
    batch = pivots.shape[:-1]
    rows = pivots.reshape(math.prod(batch), pivots.shape[-1]).astype(xp.int64) - 1
    perm = xp.tile(xp.arange(m), (rows.shape[0], 1))
    matrices = xp.arange(rows.shape[0])
    for i in range(rows.shape[1]):
        j = rows[:, i]
        perm[matrices, i], perm[matrices, j] = perm[matrices, j], perm[matrices, i].copy()
    P = perm[:, None, :] == xp.arange(m)[None, :, None]
    return P.reshape(batch + (m, m)).astype(dtype)


@defop("LinalgLuFactorExBackward0", save=("result0", "result1"))
def _lu_factor_ex(xp, A: Tensor, pivot=True, check_errors=False, name="linalg.lu_factor_ex"):
    LU, pivots, info = _getrf(xp, A, "torch." + name)
    if check_errors and info.any():
        flat = info.reshape(-1)
        first = int(xp.argmax(flat > 0))
        prefix = f"(Batch element {first}): " if A.ndim > 2 else ""
        raise RuntimeError(
            f"torch.{name}: {prefix}U[{int(flat[first])},{int(flat[first])}] is zero and using it on "
            "lu_solve would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
            "pivot)")
    return LU, pivots, info


def _lu_factor_ex_backward(ctx):
    """LU packs L below its diagonal and U on and above it: their gradients are the
    corresponding parts of the incoming one."""
    LU, grad = ctx.result0, ctx.grad
    k = min(LU.shape[-2:])
    L, U, P = _lu_unpack(LU, array_of(ctx.result1))
    return _lu_backward(grad[..., :, :k], grad[..., :k, :], P, L, U)


_lu_factor_ex.derivatives(A=_lu_factor_ex_backward)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): L (unit diagonal, not stored) and U packed in one matrix, LAPACK's
    1-based int32 row swaps, and info (the 1-based position of a zero on U's diagonal, or 0)."""
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    return linalg_lu_factor_ex_return(*_lu_factor_ex(A, pivot, check_errors))


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots) as lu_factor_ex's; a singular matrix raises."""
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    LU, pivots, _ = _lu_factor_ex(A, pivot, True, "linalg.lu_factor")
    return linalg_lu_factor_return(LU, pivots)


LU_DEPRECATION = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


def torch_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots), with info too if get_infos; it never raises for a singular
    matrix (torch's kernel does not check)."""
    warn(LU_DEPRECATION, UserWarning)
    _check_lu_input("torch.lu_factor", A)
    _check_pivot(pivot)
    LU, pivots, info = _lu_factor_ex(A, pivot, False)
    return lu_with_info_return(LU, pivots, info) if get_infos else (LU, pivots)


def _tensor_lu(self, pivot=True, get_infos=False):
    """Tensor.lu: torch.lu as a method, its results a plain tuple."""
    return tuple(torch_lu(self, pivot, get_infos))


# lu and lu_unpack give (L, U, P): the differentiable outputs first, numbered 0 and 1 as
# torch numbers them (it leaves P, which has no gradient, out of its node's outputs)
@defop("LinalgLuBackward0", save=("result0", "result1", "result2"))
def _lu(xp, A: Tensor, pivot=True):
    LU, pivots, _ = _getrf(xp, A, "torch.linalg.lu")
    P, L, U = _unpack(xp, LU, pivots, True, True)
    return L, U, P


_lu.derivatives(A=lambda ctx: _lu_backward(ctx.grads[0], ctx.grads[1], ctx.result2,
                                           ctx.result0, ctx.result1))


def lu(A, *, pivot=True, out=None):
    """A = P L U: P a permutation (m x m), L unit lower-trapezoidal (m x k), U upper (k x n)."""
    _check_lu_input("linalg.lu", A)
    _check_pivot(pivot)
    L, U, P = _lu(A, pivot)
    return linalg_lu_return(P.detach(), L, U)  # torch: P is not differentiable


def _unpack(xp, LU, pivots, unpack_data, unpack_pivots):
    m, n = LU.shape[-2:]
    k = min(m, n)
    empty = xp.empty(0, LU.dtype)
    L = U = P = empty
    if unpack_data:
        L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=LU.dtype)
        U = xp.triu(LU[..., :k, :])
    if unpack_pivots:
        P = _permutations(xp, pivots, m, LU.dtype)
    return P, L, U


@defop("LuUnpackBackward0")
def _lu_unpack(xp, LU_data: Tensor, LU_pivots, unpack_data=True, unpack_pivots=True):
    """LU_pivots: an int32 array (an attribute, so the node has no edge for it)."""
    P, L, U = _unpack(xp, LU_data, LU_pivots, unpack_data, unpack_pivots)
    return L, U, P


def _lu_unpack_backward(ctx):
    """L's strict lower part and U's upper part, where they sit in LU."""
    grad_L, grad_U = ctx.grads[:2]
    m, n = ctx.LU_data_shape[-2:]
    k = min(m, n)
    grad = None
    # U's part first: with L and U not unpacked (empty), torch's error is triu's
    if grad_U is not None:  # k x n: zero rows past k
        grad = triu(grad_U)
        if k < m:
            grad = cat((grad, zeros_of(grad, grad.shape[:-2] + (m - k, n))), -2)
    if grad_L is not None:  # m x k: zero columns past k
        lower = tril(grad_L, -1)
        if k < n:
            lower = cat((lower, zeros_of(lower, lower.shape[:-1] + (n - k,))), -1)
        grad = lower if grad is None else lower + grad
    return grad


_lu_unpack.derivatives(LU_data=_lu_unpack_backward)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's packed result; a part not unpacked is an empty tensor."""
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    if unpack_pivots:
        if LU_pivots.dtype is not _dtype.int32:
            raise RuntimeError(
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                "dtype.\nNote: this function is intended to be used with the output produced by "
                "torch.linalg.lu_factor")
        m, n = LU_data.shape[-2:]
        pivots = LU_pivots._data
        if pivots.shape[-1:] != (min(m, n),) or pivots.size and (
                pivots.min() < 1 or pivots.max() > m):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                               "inclusive.Did you properly pass the result of lu_factor?")
    L, U, P = _lu_unpack(LU_data, LU_pivots._data, unpack_data, unpack_pivots)
    return lu_unpack_return(P.detach(), L, U)


def _lu_backward(grad_L, grad_U, P, L, U):
    """torch's linalg_lu_backward: A = P L U with L m x k, U k x n."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        grad = None if grad_L is None else tril(matmul(_mH(L), grad_L), -1)
        if grad_U is not None:
            upper = triu(matmul(grad_U, _mH(U)))
            grad = upper if grad is None else grad + upper
        grad = _solve_triangular(_mH(U), grad, False, False)
        grad = _solve_triangular(_mH(L), grad, True, True, True)
    elif m < n:
        # A = (A1 | A2) with A1 square: U = (U1 | U2)
        grad = None if grad_L is None else matmul(_mH(L), grad_L)
        if grad_U is not None:
            upper = -matmul(triu(grad_U), _mH(U))
            grad = upper if grad is None else grad + upper
        grad = _solve_triangular(_mH(U[..., :k]), tril(grad, -1), False, False)
        if grad_U is not None:
            grad = cat((grad + triu(grad_U[..., :k]), grad_U[..., k:]), -1)
        grad = _solve_triangular(_mH(L), grad, True, True, True)
        if grad_U is None:
            grad = cat((grad, zeros_of(grad, grad.shape[:-1] + (n - k,))), -1)
    else:
        # A = (A1 ; A2) with A1 square: L = (L1 ; L2)
        grad = None if grad_U is None else matmul(grad_U, _mH(U))
        if grad_L is not None:
            lower = -matmul(_mH(L), tril(grad_L, -1))
            grad = lower if grad is None else grad + lower
        grad = _solve_triangular(_mH(L[..., :k, :]), triu(grad), True, True, True)
        if grad_L is not None:
            grad = cat((grad + tril(grad_L[..., :k, :], -1), grad_L[..., k:, :]), -2)
        grad = _solve_triangular(_mH(U), grad, False, False)
        if grad_L is None:
            grad = cat((grad, zeros_of(grad, grad.shape[:-2] + (m - k, n))), -2)
    return matmul(P, grad)


@defop("LinalgLuSolveBackward0", save=("LU", "pivots", "result", "left", "adjoint"))
def _lu_solve(xp, LU: Tensor, pivots, B: Tensor, left=True, adjoint=False):
    """pivots: an int32 array (an attribute, so the node has no edge for it)."""
    return _getrs(xp, LU, pivots, B, left, adjoint)


def _lu_solve_grad_LU(ctx):
    """torch's linalg_lu_solve_LU: the gradient of LU through the L and U it packs."""
    grad, X, left, adjoint = ctx.grad, ctx.result, ctx.left, ctx.adjoint
    L, U, P = _lu_unpack(ctx.LU, ctx.pivots, True, left == adjoint)
    if left != adjoint:
        grad_R = _solve_triangular(_mH(U), -matmul(grad if left else _mH(grad),
                                                   _mH(X) if left else X), False)
        grad_L = _solve_triangular(_mH(L), matmul(grad_R, _mH(U)), True, True, True)
        return tril(grad_L, -1) + triu(grad_R)
    grad_R = -matmul(matmul(matmul(_mT(P), X if left else _mH(X)),
                            _mH(grad) if left else grad), P)
    grad_R = _solve_triangular(_mH(L), grad_R, True, False, True)
    grad_U = _solve_triangular(_mH(U), matmul(_mH(L), grad_R), False, False)
    return tril(grad_R, -1) + triu(grad_U)


_lu_solve.derivatives(LU=_lu_solve_grad_LU,
                      B=lambda ctx: _lu_solve(ctx.LU, ctx.pivots, ctx.grad, ctx.left,
                                              not ctx.adjoint))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (A^T X = B with adjoint; X A = B or X A^T = B with left=False) from
    lu_factor's (LU, pivots) of A."""
    name = "linalg.lu_solve"
    if LU.ndim < 2:
        raise RuntimeError(f"torch.{name}: The input tensor A must have at least 2 dimensions.")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    _check_matrices("torch." + name, LU, square=False)
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.shape[-2 if left else -1] != LU.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({LU.shape[-2]}x{LU.shape[-1]} "
                           f"and {B.shape[-2]}x{B.shape[-1]})")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {LU.dtype.legacy_name} and B of type {B.dtype.legacy_name} "
                           "instead")
    if pivots.dtype is not _dtype.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.shape[-1:] != LU.shape[-1:]:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    broadcast_shapes(B.shape[:-2], LU.shape[:-2])
    check_lapack("linalg.lu_solve_cpu", LU, empty_passes=True)
    return _lu_solve(LU, pivots._data, B, left, adjoint)


LU_SOLVE_DEPRECATION = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)")


def torch_lu_solve(input, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(b, LU, pivots): linalg.lu_solve with its arguments reversed."""
    warn(LU_SOLVE_DEPRECATION, UserWarning)
    return lu_solve(LU_data, LU_pivots, input)


# ---- LDL -----------------------------------------------------------------------------------

def _not_implemented(aten_name):
    def formula(ctx):
        raise RuntimeError(f"derivative for aten::{aten_name} is not implemented")
    return formula


# torch's words on CUDA, whose preferred backend tapegrad does not let one change
_CUSOLVER_HERMITIAN = (
    "torch.linalg.ldl_factor: complex tensors with hermitian=True flag are not supported with "
    "cuSOLVER backend. Currently preferred backend is at::LinalgBackend::Default, please set "
    "'default' or 'magma' backend with torch.backends.cuda.preferred_linalg_library")


@defop("NotImplemented")
def _ldl_factor_ex(xp, A: Tensor, hermitian=False, check_errors=False,
                   name="torch.linalg.ldl_factor_ex"):
    LD = xp.zeros_like(A)
    pivots = xp.zeros(A.shape[:-1], xp.int32)
    info = xp.zeros(A.shape[:-2], xp.int32)
    if A.size and xp is not np:  # CuPy has no sytrf: its steps in array ops
        if hermitian and A.dtype.kind == "c":  # torch's CUDA has cuSOLVER's sytrf only
            raise RuntimeError(_CUSOLVER_HERMITIAN)
        n = A.shape[-1]
        found = _bunch_kaufman.factor(xp, A.reshape(-1, n, n))
        LD, pivots, info = (array.reshape(shape) for array, shape in
                            zip(found, (A.shape, A.shape[:-1], A.shape[:-2])))
    elif A.size:
        sytrf = _routine("sytrf", A, name, hermitian)
        for index in xp.ndindex(A.shape[:-2]):
            factor, pivots[index], info[index] = sytrf(A[index], lower=1)
            LD[index] = xp.tril(factor)  # sytrf leaves the upper triangle as it was
    if check_errors and info.any():
        # torch reports a singular D (info > 0) through an internal assertion, in these words
        raise RuntimeError(f"{name}: Unknown error code: {int(info[info != 0].reshape(-1)[0])}.")
    return LD, pivots, info


_ldl_factor_ex.derivatives(A=_not_implemented("linalg_ldl_factor_ex"))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): A = P L D L^T P^T by Bunch-Kaufman pivoting (LAPACK's sytrf), L
    and the block-diagonal D packed in LD's lower triangle; pivots as LAPACK's (1-based,
    negative for the 2 x 2 blocks of D)."""
    _check_matrices("torch.linalg.ldl_factor_ex", A)
    check_lapack("ldl_factor_kernel_cpu", A, empty_passes=True)
    return linalg_ldl_factor_ex_return(*_ldl_factor_ex(A, hermitian, check_errors))


def ldl_factor(A, *, hermitian=False, out=None):
    _check_matrices("torch.linalg.ldl_factor_ex", A)
    check_lapack("ldl_factor_kernel_cpu", A, empty_passes=True)
    LD, pivots, _ = _ldl_factor_ex(A, hermitian, True, "torch.linalg.ldl_factor")
    return linalg_ldl_factor_return(LD, pivots)


@defop("NotImplemented")
def _ldl_solve(xp, LD: Tensor, pivots, B: Tensor, hermitian=False):
    """pivots: an int32 array (an attribute, so the node has no edge for it)."""
    batch, (LD, pivots, B) = _batch(LD, pivots, B, cores=(2, 1, 2), xp=xp)
    X = xp.empty(B.shape, B.dtype)
    if LD.size and xp is not np and hermitian and LD.dtype.kind == "c":
        raise RuntimeError("torch.linalg.ldl_solve: complex tensors with hermitian=True flag are "
                           "not supported on CUDA.")
    if X.size and xp is not np:  # CuPy has no sytrs: its steps in array ops
        count, n = math.prod(batch), LD.shape[-1]
        X = _bunch_kaufman.solve(xp, LD.reshape(count, n, n), pivots.reshape(count, n),
                                 B.reshape(count, n, -1)).reshape(B.shape)
    elif X.size:
        sytrs = _routine("sytrs", X, "torch.linalg.ldl_solve", hermitian)
        for index in xp.ndindex(batch):
            X[index], _ = sytrs(LD[index], pivots[index], B[index], lower=1)
    return X


_ldl_solve.derivatives(LD=_not_implemented("linalg_ldl_solve"),
                       B=_not_implemented("linalg_ldl_solve"))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B from ldl_factor's (LD, pivots) of A."""
    name = "torch.linalg.ldl_solve"
    if LD.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LD must have at least 2 dimensions.")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    _check_matrices(name, LD)
    if pivots.shape != LD.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(pivots.shape)} instead")
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or pivots.dtype.name == "bool":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got "
                           f"{pivots.dtype.legacy_name}")
    _check_same_dtype(B, LD)
    _check_solve_shapes(name, B, LD)
    broadcast_shapes(B.shape[:-2], LD.shape[:-2])
    check_lapack("ldl_solve_kernel_cpu", LD, empty_passes=True)
    return _ldl_solve(LD, pivots.to(_dtype.int32)._data, B, hermitian)


FUNCTIONS = {"cholesky_inverse": cholesky_inverse, "cholesky_solve": cholesky_solve,
             "lu": torch_lu, "lu_solve": torch_lu_solve, "lu_unpack": lu_unpack,
             "triangular_solve": triangular_solve}
METHODS = {"cholesky_inverse": cholesky_inverse, "cholesky_solve": cholesky_solve,
           "lu": _tensor_lu, "lu_solve": torch_lu_solve, "triangular_solve": triangular_solve}
LINALG_FUNCTIONS = ("cholesky_ex inv_ex ldl_factor ldl_factor_ex ldl_solve lu lu_factor "
                    "lu_factor_ex lu_solve solve_ex solve_triangular").split()
