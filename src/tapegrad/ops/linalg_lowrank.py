"""Randomized low-rank SVD and PCA (Halko, Martinsson and Tropp 2009), torch.svd_lowrank and
torch.pca_lowrank. They are compositions of randn, matmul, qr and svd in torch's order, so under
one seed they draw the same random matrix as torch and differentiate through those ops."""
from .. import _dtype
from .._creation import randn
from .decomposition import qr, svd
from .linalg import matmul
from .reduction import mean
from .shape import adjoint


def _floating(dtype):
    """The random start's dtype, torch's: bfloat16 and integers get float32 (bfloat16 A then
    meets it in matmul's dtype error, as in torch)."""
    if dtype.is_complex or dtype in (_dtype.float16, _dtype.float32, _dtype.float64):
        return dtype
    return _dtype.float32


def _approximate_basis(A, q, niter, M):
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M, by subspace
    iteration from a random start, without forming A - M."""
    R = randn(A.shape[-1], q, dtype=_floating(A.dtype))

    def product(factor):  # (A - M) factor, or its adjoint's
        X = matmul(A, factor)
        return X if M is None else X - matmul(M, factor)

    def adjoint_product(factor):
        X = matmul(adjoint(A), factor)
        return X if M is None else X - matmul(adjoint(M), factor)

    Q = qr(product(R)).Q
    for _ in range(niter):
        Q = qr(adjoint_product(Q)).Q
        Q = qr(product(Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work on the tall side
        A = adjoint(A)
        M = None if M is None else adjoint(M)
    Q = _approximate_basis(A, q, 2 if niter is None else niter, M)
    B = matmul(adjoint(Q), A)
    if M is not None:
        B = B - matmul(adjoint(Q), M)
    U, S, Vh = svd(B, full_matrices=False)
    U, V = matmul(Q, U), adjoint(Vh)
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^H of rank q, from a random subspace (tapegrad's
    generator, drawn as torch draws from its own)."""
    return _svd_lowrank(A, 6 if q is None else q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A with its column means subtracted (center), q = min(6, m, n) by
    default."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - mean(A, (-2,), keepdim=True), q, niter, None)


FUNCTIONS = ("pca_lowrank", "svd_lowrank")
