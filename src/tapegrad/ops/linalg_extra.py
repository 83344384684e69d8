"""The rest of torch.linalg. vecdot, diagonal, vander, multi_dot, matrix_power, tensorinv,
tensorsolve, cond and matrix_rank are compositions of other ops, built as torch builds them
(LinearAlgebra.cpp), so their graphs end in torch's nodes (MmBackward0, CatBackward0,
NanToNumBackward0...); matrix_exp, eig and lstsq are ops of their own, with torch's nodes and
formulas, their forwards from SciPy (expm, LAPACK's least-squares drivers) and NumPy (geev)."""
import math

import numpy as np

from .. import _backend, _dtype
from .._creation import eye, zeros
from .._scipy import scipy
from .._tensor import Tensor
from ._checks import broadcast_shapes
from ._define import defop
from ._scipy_of import scipy_of
from .decomposition import (_check_matrices, _failure, _lapack_eigh, _lapack_svd, _LinAlgError,
                            _mH, _singular_and_invertible, _zero_pivots, inv, matrix_norm, pinv,
                            check_lapack, pinv_backward, solve, svdvals)
from .complex_parts import real
from .factorization import _trsm
from .factorization_householder import _device_geqrf, _reflected
from .joining import cat, narrow
from .linalg import matmul, mm, vdot
from .pointwise import clone, mul, nan_to_num
from .reduction import cumprod, return_type, sum
from ._inplace import copy_
from .reordering import diag_embed, flip
from .reordering import diagonal as torch_diagonal
from .shape import constant_beside, movedim, reshape, squeeze, unsqueeze, view, zeros_of

_INF = float("inf")


# ---- products ------------------------------------------------------------------------------

def vecdot(x, y, *, dim=-1, out=None):
    """The dot product of x and y along dim (x conjugated), broadcasting the other dims; two
    vectors go to vdot whatever dim says, as in torch."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.legacy_name}")
    if x.dtype is not y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {x.dtype.legacy_name} and y of type {y.dtype.legacy_name} "
                           "instead")
    if x.ndim == 1 and y.ndim == 1:
        return vdot(x, y)
    return sum(mul(x.conj() if x.dtype.is_complex else x, y), dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.diagonal with the last two dims as defaults."""
    return torch_diagonal(A, offset, dim1, dim2)


def vander(x, *, N=None):
    """Columns x^0, x^1, ..., x^(N-1) (N: x's length by default), as cumulative products."""
    if x.dtype is _dtype.bool or x.dtype in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, "
                           f"but got {x.dtype.legacy_name}")
    if x.ndim == 0:  # torch reads a number as one element
        x = reshape(x, (1,))
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(unsqueeze(x, -1).expand(*x.shape, n - 1), -1)
    ones = constant_beside(x, np.ones(x.shape + (1,), powers.dtype.numpy))
    return cat((ones, powers), -1)


def torch_vander(x, N=None, increasing=False):
    """torch.vander: columns x^(N-1), ..., x^1, x^0 (increasing: the other way round), made as
    torch makes them: ones, x copied into all but the first column, that block replaced by
    its cumulative product, then flipped (integers and bool count in int64). Its graph is
    torch's, whose backward refuses: cumprod's saved input is overwritten by the copy of its
    result."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = _dtype.promote_types(x.dtype, _dtype.int64)
    result = constant_beside(x, np.empty((x.shape[0], n), dtype.numpy))
    result.fill_(1)  # (a version, as torch's: its backward fails on the versions it counts)
    if n > 1:
        copy_(result[:, 1:], unsqueeze(x, 1))
        copy_(result[:, 1:], cumprod(result[:, 1:], 1))
    return result if increasing else flip(result, (1,))


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices in the cheapest order; the first may be a row and the
    last a column vector (their dims are dropped from the result)."""
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")
    first, last = tensors[0], tensors[-1]
    for tensor, which in ((first, "first"), (last, "last")):
        if tensor.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{tensor.ndim}D")
    for i in range(1, count - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    out_shape = first.shape[:1] if first.ndim == 2 else ()
    out_shape += last.shape[1:] if last.ndim == 2 else ()
    matrices = [unsqueeze(first, 0) if first.ndim == 1 else first, *tensors[1:-1],
                unsqueeze(last, -1) if last.ndim == 1 else last]
    for i in range(1, count):
        if matrices[i].dtype is not first.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {first.dtype.legacy_name.lower()} and tensor {i} "
                               f"{matrices[i].dtype.legacy_name.lower()}")
        if matrices[i - 1].shape[-1] != matrices[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} "
                               "cannot be multiplied")
    return view(_chain_product(matrices, _chain_order(matrices), 0, count - 1), out_shape)


def _chain_order(matrices):
    """split[i][j]: where the cheapest product of matrices i..j splits, by dynamic programming
    over the chain (a p x q by q x r product costs p q r)."""
    sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    count = len(matrices)
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                candidate = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if candidate < cost[i][j]:
                    cost[i][j], split[i][j] = candidate, k
    return split


def _chain_product(matrices, split, i, j):
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_chain_product(matrices, split, i, k), _chain_product(matrices, split, k + 1, j))


def matrix_power(A, n, *, out=None):
    """A^n for integer n by repeated squaring; A^-n is inv(A)^n."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    _check_matrices("linalg.matrix_power", A, dtype=_dtype.float64)  # integers too
    if n == 0:  # the identity, still in the graph as torch's copy into a clone
        return clone(A).copy_(eye(A.shape[-1], dtype=A.dtype))
    if n == 1:
        return clone(A)
    base = inv(A) if n < 0 else A
    n = abs(n)
    if n == 1:
        return base
    if n <= 3:
        square = matmul(base, base)
        return square if n == 2 else matmul(square, base)
    # the bits of n from the lowest: base^(2^k) multiplied in where bit k is set
    power = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        power = base if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


# ---- tensor equations ----------------------------------------------------------------------

def tensorinv(A, ind=2, *, out=None):
    """The inverse of A read as a matrix from its first ind dims to the others, shaped
    A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, columns = A.shape[:ind], A.shape[ind:]
    size, other = math.prod(columns), math.prod(rows)
    if size != other:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {size} != {other}")
    try:
        inverse = inv(reshape(A, (size, size)))
    except _LinAlgError as error:  # torch words it as inv's, not linalg.inv's
        raise _LinAlgError("inv" + str(error)[len("linalg.inv"):]) from None
    return reshape(inverse, columns + rows)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B; dims: A's dims moved to the end first."""
    if dims is not None:
        A = movedim(A, dims, tuple(range(A.ndim - len(dims), A.ndim)))
    result_shape = A.shape[B.ndim:]
    size, other = math.prod(result_shape), math.prod(B.shape)
    if size != other:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {size} != {other}")
    return reshape(solve(reshape(A, (size, size)), B.flatten()), result_shape)


# ---- condition number and rank -------------------------------------------------------------

def cond(A, p=None, *, out=None):
    """The condition number |A| |A^-1| in the norm p (None: 2, the ratio of the extreme singular
    values); inf for a singular matrix, 0 for an empty one."""
    if isinstance(p, str):
        _check_square(A, p)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        p = 2 if p is None else p
        if abs(p) not in (1, 2, _INF):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {_shown(p)}")
    if A.numel() == 0:
        return zeros(A.shape[:-2], dtype=A.dtype.to_real())
    if p in (2, -2):
        singular_values = svdvals(A)
        largest, smallest = narrow(singular_values, -1, 0, 1), narrow(singular_values, -1, -1, 1)
        ratio = smallest / largest if p == -2 else largest / smallest
        return squeeze(ratio, -1)
    if p == "nuc":  # from the singular values: matrix_norm refuses infinities
        singular_values = svdvals(A)
        return sum(singular_values, -1) * sum(singular_values.reciprocal(), -1)
    if not isinstance(p, str):
        _check_square(A, p)
    inverse = _inverse_or_inf(A)  # first, as torch: its dtype error is inv's
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return nan_to_num(result, _INF, _INF, -_INF)  # 0 * inf: inf, as NumPy


def _shown(p):
    """An order as torch's C++ prints it (std::to_string of a double: 1.000000, inf)."""
    if isinstance(p, float):
        return "inf" if p == _INF else "-inf" if p == -_INF else f"{p:.6f}"
    return str(p)


def _check_square(A, p):
    # the shape only: the dtype is refused by the ops cond goes on to (svd, inv)
    _check_matrices(f"linalg.cond(ord={_shown(p)})", A, dtype=_dtype.float64)


def _inverse_or_inf(A):
    """inv(A), with the singular matrices (LAPACK's zero pivot) all inf, as torch's cond."""
    singular = _zero_pivots(_backend.array_module(A._data), A._data) > 0
    if not singular.any():
        return inv(A)
    singular, invertible = _singular_and_invertible(A, singular)
    return inv(invertible).masked_fill(singular, _INF)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values (absolute eigenvalues if hermitian) above
    max(atol, rtol * the largest); tol is the older spelling of atol (with rtol 0)."""
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_matrix_rank() received an invalid combination of arguments")
        atol, rtol = tol, 0.0
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    if A.dtype not in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.numel() == 0:
        return zeros(A.shape[:-2], dtype=_dtype.int64)
    atol, rtol = (value._data if isinstance(value, Tensor) else value for value in (atol, rtol))
    matrices = A._data
    xp = _backend.array_module(matrices)
    if rtol is None:  # the default, unless a positive atol is given
        default = np.finfo(matrices.dtype).eps * max(matrices.shape[-2:])
        rtol = default if atol is None else xp.where(xp.asarray(atol) > 0, 0.0, default)
    atol = 0.0 if atol is None else atol
    if hermitian:
        values = xp.abs(_lapack_eigh(xp, matrices)[0])
    else:
        values = _lapack_svd(xp, matrices)[1]
    largest = values.max(axis=-1, keepdims=True)
    tolerance = xp.maximum(xp.asarray(atol, xp.float64)[..., None],
                           xp.asarray(rtol, xp.float64)[..., None] * largest)
    return Tensor._make(xp.sum(values > tolerance, axis=-1).astype(xp.int64))


# ---- matrix exponential -------------------------------------------------------------------

@defop("LinalgMatrixExpBackward0", save=("A",))
def _matrix_exp(xp, A: Tensor):
    if A.shape[-1] == 0:
        return A.copy()
    linalg = scipy_of(xp, "linalg", A, "matrix_exp", "torch.linalg.matrix_exp")
    if xp is np:  # SciPy's expm takes a batch of matrices, CuPy's one matrix
        return linalg.expm(A).astype(A.dtype, copy=False)
    n = A.shape[-1]
    result = xp.stack([linalg.expm(matrix) for matrix in A.reshape(-1, n, n)])
    return result.reshape(A.shape).astype(A.dtype, copy=False)


def _matrix_exp_backward(ctx):
    """The upper right block of exp([[A^H, grad], [0, A^H]]) (torch's; the exponential's
    Frechet derivative at A^H applied to grad)."""
    A_h, n = _mH(ctx.A), ctx.A.shape[-1]
    block = cat((cat((A_h, ctx.grad), -1), cat((zeros_of(A_h), A_h), -1)), -2)
    return _matrix_exp(block)[..., :n, n:]


_matrix_exp.derivatives(A=_matrix_exp_backward)


def matrix_exp(A):
    """exp(A) = sum of A^k / k! for square matrices (SciPy's expm: Pade with scaling and
    squaring, where torch uses Taylor polynomials; they agree to rounding)."""
    _check_matrices("linalg.matrix_exp", A)
    return _matrix_exp(A)


# ---- eigenvalues of general matrices -------------------------------------------------------

linalg_eig_return = return_type("linalg_eig", ("eigenvalues", "eigenvectors"))


@defop("LinalgEigBackward0", save=("A", "result0", "result1"))
def _eig(xp, A: Tensor):
    if not xp.isfinite(A).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    values, vectors = xp.linalg.eig(A)
    # complex whatever the spectrum (NumPy returns real arrays for a real one)
    dtype = xp.result_type(A.dtype, xp.complex64)
    return values.astype(dtype), vectors.astype(dtype)


def _eig_backward(ctx):
    """torch's linalg_eig_backward: V^-H (diag(gL) + (V^H gV - V^H V diag(re(V^H gV))) / E*) V^H
    with E_ij = L_j - L_i; its real part for a real A. The columns of V are unit vectors fixed
    up to a phase, so a loss that depends on the phase has no gradient (torch's error)."""
    (L, V), (grad_L, grad_V) = (ctx.result0, ctx.result1), ctx.grads
    V_h = _mH(V)
    if grad_V is None:
        inner = diag_embed(grad_L)
    else:
        projected = matmul(V_h, grad_V)
        on_diagonal = torch_diagonal(projected, 0, -2, -1)
        xp = _backend.array_module(on_diagonal._data)
        if not xp.allclose(on_diagonal._data.imag, 0, rtol=1e-2, atol=1e-2):
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified loss "
                               "function depends on this quantity, so it is ill-defined.")
        projected = projected - matmul(V_h, V * unsqueeze(real(on_diagonal), -2))
        conjugate = L.conj()
        identity = constant_beside(L, np.eye(L.shape[-1], dtype=L.dtype.numpy))
        inner = projected / (unsqueeze(conjugate, -2) - unsqueeze(conjugate, -1) + identity)
        if grad_L is not None:
            inner = inner + diag_embed(grad_L)
    grad_A = solve(V_h, matmul(inner, V_h))
    return grad_A if ctx.A.dtype.is_complex else real(grad_A)


_eig.derivatives(A=_eig_backward)


def _check_eig(A):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype.legacy_name}")
    _check_matrices("linalg.eig", A)
    check_lapack("linalg_eig_out_cpu", A)


def eig(A, *, out=None):
    """Eigenvalues and unit eigenvectors of square matrices, complex always, in LAPACK's order
    and phases (geev's, as torch's)."""
    _check_eig(A)
    return linalg_eig_return(*_eig(A))


def eigvals(A, *, out=None):
    _check_eig(A)
    return _eig(A)[0]


# ---- least squares ------------------------------------------------------------------------

linalg_lstsq_return = return_type("linalg_lstsq", ("solution", "residuals", "rank",
                                                   "singular_values"))
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@defop("LinalgLstsqBackward0", save=("A", "B", "result0"))
def _lstsq(xp, A: Tensor, B: Tensor, rcond=None, driver="gelsy"):
    """(solution, residuals, rank, singular values) as LAPACK's driver gives them, one matrix
    at a time. torch's residuals (squared norms of AX - B) exist only for tall A, drivers that
    report them, and full rank throughout; rank and singular values only for the drivers that
    compute them, over A's own batch. On a device, torch's CUDA gels (_device_gels)."""
    vector = B.ndim == A.ndim - 1
    rhs = B[..., None] if vector else B
    (m, n), k = A.shape[-2:], rhs.shape[-1]
    batch = np.broadcast_shapes(A.shape[:-2], rhs.shape[:-2])
    if xp is not np:
        return _device_gels(xp, A, rhs, batch, vector)
    lapack = scipy("linalg", "torch.linalg.lstsq")
    count = math.prod(batch)
    A_all = xp.broadcast_to(A, batch + (m, n)).reshape(count, m, n)
    rhs_all = xp.broadcast_to(rhs, batch + (m, k)).reshape(count, m, k)
    if rcond is None:
        rcond = xp.finfo(A.dtype).eps * max(m, n)
    real_dtype = xp.finfo(A.dtype).dtype  # of the residuals and singular values
    solution = xp.zeros((count, n, k), A.dtype)
    residuals = xp.zeros((count, k), real_dtype)
    rank = xp.zeros(count, xp.int64)
    singular_values = xp.zeros((count, min(m, n)), real_dtype)
    info = xp.zeros(count, xp.int32)  # gels's: the first zero on R's diagonal
    for i, (matrix, right) in enumerate(zip(A_all, rhs_all)):
        if matrix.size == 0 or right.size == 0:
            continue
        if driver == "gels":
            solution[i], residuals[i], info[i] = _gels(xp, lapack, matrix, right)
            continue
        solution[i], found, rank[i], values = lapack.lstsq(
            matrix, right, cond=rcond, check_finite=False, lapack_driver=driver)
        residuals[i] = found if xp.size(found) else xp.nan  # nan: not reported
        if values is not None:
            singular_values[i] = values
    if info.any():
        batched = math.prod(A.shape[:-2]) > 1  # as torch's: a lone matrix is not named
        raise _failure(xp, "torch.linalg.lstsq", batched, info, "The least squares solution "
                       "could not be computed because the input matrix does not have full "
                       "rank (error code: {}).")
    solution = solution.reshape(batch + (n, k))
    has_residuals = m > n and driver != "gelsy" and not xp.isnan(residuals).any()
    residuals = residuals.reshape(batch + (k,)) if has_residuals else xp.zeros(0, real_dtype)
    own = tuple(slice(None) if size == full else slice(0, 1)  # A's batch, not the broadcast
                for size, full in zip(A.shape[:-2], batch))
    rank = rank.reshape(batch)[own] if driver != "gels" else xp.zeros(0, xp.int64)
    singular_values = (singular_values.reshape(batch + (min(m, n),))[own]
                       if driver in ("gelsd", "gelss") else xp.zeros(0, real_dtype))
    if vector:
        solution = solution[..., 0]
    return solution, residuals, rank, singular_values


def _gels(xp, lapack, matrix, right):
    """LAPACK's QR (or LQ) least squares for a full-rank matrix: the solution, the squared
    norms of the rows beyond n of its output (the residuals, for a tall matrix) and LAPACK's
    info (> 0: A has not full rank)."""
    (m, n), k = matrix.shape, right.shape[-1]
    gels, = lapack.get_lapack_funcs(("gels",), (matrix, right))
    padded = xp.zeros((max(m, n), k), matrix.dtype)
    padded[:m] = right
    _, output, info = gels(matrix, padded)
    return output[:n], xp.sum(xp.abs(output[n:]) ** 2, axis=0), info


def _device_gels(xp, A, rhs, batch, vector):
    """_lstsq's outputs as torch's CUDA gels gives them, over the whole batch: for m >= n,
    A = QR and R X = (Q^H B)[:n], the squared norms of Q^H B's other rows being the residuals
    (of tall A); for m < n, A^H = QR, R^H Z = B and X = Q [Z; 0], the least-norm solution. No
    rank or singular values, and (cuBLAS's trsm) a zero on R's diagonal gives infinities, not
    torch's cpu error."""
    (m, n), k = A.shape[-2:], rhs.shape[-1]
    real_dtype = xp.finfo(A.dtype).dtype
    rhs = xp.broadcast_to(rhs, batch + (m, k))
    residuals = xp.zeros(batch + (k,) if m > n else 0, real_dtype)
    if A.size == 0 or rhs.size == 0:  # as the cpu's: zeros
        solution = xp.zeros(batch + (n, k), A.dtype)
    elif m >= n:
        vectors, tau = _device_geqrf(xp, A)
        projected = _reflected(xp, vectors, tau, rhs, left=True, transpose=True)
        solution = _trsm(xp, vectors[..., :n, :], projected[..., :n, :], upper=True, left=True,
                         transpose=False, unitriangular=False)
        if m > n:
            residuals = xp.sum(xp.abs(projected[..., n:, :]) ** 2, axis=-2)
    else:
        vectors, tau = _device_geqrf(xp, xp.conj(xp.swapaxes(A, -1, -2)))
        R_h = xp.conj(xp.swapaxes(vectors[..., :m, :], -1, -2))  # its lower triangle: R^H
        padded = xp.zeros(batch + (n, k), A.dtype)
        padded[..., :m, :] = _trsm(xp, R_h, rhs, upper=False, left=True, transpose=False,
                                   unitriangular=False)
        solution = _reflected(xp, vectors, tau, padded, left=True, transpose=False)
    if vector:
        solution = solution[..., 0]
    return solution, residuals, xp.zeros(0, xp.int64), xp.zeros(0, real_dtype)


def _lstsq_backward(ctx):
    """torch's linalg_lstsq_backward: the solution is pinv(A) B, and a residual |AX - B|^2
    has the gradients 2 (AX - B) X^H and -2 (AX - B) (X being optimal)."""
    if "lstsq_grads" in vars(ctx):
        return ctx.lstsq_grads
    grad_X, grad_residuals = ctx.grads[0], ctx.grads[1]
    A, B, X = ctx.A, ctx.B, ctx.result0
    vector = B.ndim == A.ndim - 1
    if vector:
        B, X = unsqueeze(B, -1), unsqueeze(X, -1)
        grad_X = None if grad_X is None else unsqueeze(grad_X, -1)
    grad_A = grad_B = 0
    if grad_X is not None:
        pinv_A = pinv(A)
        grad_A = pinv_backward(matmul(grad_X, _mH(B)), pinv_A, A)
        grad_B = matmul(_mH(pinv_A), grad_X)
    if grad_residuals is not None and grad_residuals.numel():
        weighted = (matmul(A, X) - B) * unsqueeze(grad_residuals, -2)
        grad_A = grad_A + 2 * matmul(weighted, _mH(X))
        grad_B = grad_B - 2 * weighted
    if isinstance(grad_B, Tensor) and vector:
        grad_B = squeeze(grad_B, -1)
    ctx.lstsq_grads = tuple(None if isinstance(g, int) else g for g in (grad_A, grad_B))
    return ctx.lstsq_grads


_lstsq.derivatives(A=lambda ctx: _lstsq_backward(ctx)[0],
                   B=lambda ctx: _lstsq_backward(ctx)[1])


def lstsq(A, B, rcond=None, *, driver=None):
    """A least-squares solution X of A X = B, with LAPACK's driver (torch's CPU default
    'gelsy'; on cuda 'gels', the only one there, as torch's); rank and singular values are not
    differentiable."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype is not B.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {A.dtype.legacy_name} and other's dtype "
                           f"{B.dtype.legacy_name}")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = B.ndim == A.ndim - 1
    if B.shape[-1 if vector else -2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if A.dtype not in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    on_cuda = A.device.type == "cuda"
    driver = ("gels" if on_cuda else "gelsy") if driver is None else driver.lower()
    if on_cuda and driver != "gels":
        raise RuntimeError("torch.linalg.lstsq: `driver` other than `gels` is not supported on "
                           "CUDA")
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    broadcast_shapes(A.shape[:-2], B.shape[:-1 if vector else -2])  # torch's error text
    solution, residuals, rank, singular_values = _lstsq(A, B, rcond, driver)
    return linalg_lstsq_return(solution, residuals, rank, singular_values.detach())


LINALG_FUNCTIONS = ("cond diagonal eig eigvals lstsq matrix_exp matrix_power matrix_rank multi_dot "
                    "tensorinv tensorsolve vander vecdot").split()
METHODS = {"matrix_exp": matrix_exp, "matrix_power": matrix_power}
FUNCTIONS = {**METHODS, "vander": torch_vander}
