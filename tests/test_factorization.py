"""The factorizations of torch.linalg and their legacy names (ops/factorization.py) beyond the
op database's samples: LU, LDL, triangular and Cholesky solves, the *_ex forms, geqrf,
householder_product and ormqr against torch (values, pivots, infos, result types, grad_fn
names, gradients) in both precisions, batched and broadcast; float64 gradcheck and
gradgradcheck; empty batches and 0 x 0 matrices; singular and indefinite matrices (infos,
infinities, partial factors); torch's error texts and deprecation warnings."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip

lapack = pytest.importorskip("scipy.linalg.lapack")  # the forwards are SciPy's LAPACK

RNG = np.random.default_rng(13)


def general(*shape):
    """Well-conditioned matrices (a dominant diagonal where square)."""
    values = RNG.standard_normal(shape)
    if len(shape) > 1 and shape[-1] == shape[-2]:
        values = values + 3 * np.eye(shape[-1])
    return values


def spd(*shape):
    a = general(*shape)
    return a @ a.swapaxes(-1, -2) + np.eye(shape[-1])


def lower(*shape):
    return np.tril(general(*shape))


def upper(*shape):
    return np.triu(general(*shape))


def factor(*shape):
    return np.linalg.cholesky(spd(*shape))


def _each(routine, matrices):
    """routine's results for each matrix of a batch, stacked."""
    flat = matrices.reshape((-1,) + matrices.shape[-2:])
    results = [routine(matrix) for matrix in flat]
    return [np.stack(parts).reshape(matrices.shape[:-2] + parts[0].shape)
            for parts in zip(*results)]


def lu_data(*shape):
    """(LU, 1-based int32 pivots) of well-conditioned matrices, by LAPACK's getrf."""
    LU, pivots = _each(lambda a: lapack.dgetrf(a)[:2], general(*shape))
    return LU, (pivots + 1).astype(np.int32)


def qr_data(*shape):
    """geqrf's (a, tau): Householder vectors and scales."""
    return _each(lambda a: lapack.dgeqrf(a)[:2], general(*shape))


def symmetric(*shape):
    a = RNG.standard_normal(shape)
    return a + a.swapaxes(-1, -2)


def _tensors(value):
    if hasattr(value, "grad_fn"):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return []


def _typed(array, dtype):
    """array in dtype; a complex dtype adds imaginary parts off the diagonal where array is
    not 0, so triangles stay triangles and factors keep their real diagonals (the same parts
    for both libraries)."""
    if np.dtype(dtype).kind != "c":
        return array.astype(dtype)
    place = array != 0
    if array.ndim >= 2:
        place &= np.eye(*array.shape[-2:]) == 0
    noise = np.random.default_rng(array.size).uniform(-0.2, 0.2, array.shape)
    return (array + 1j * noise * place).astype(dtype)


def run(lib, fn, arrays, dtype, cotangents=None):
    """fn(lib, *leaves): floating arrays become leaves requiring grad, integer ones (pivots)
    plain tensors; with cotangents, the gradients of the differentiable outputs too."""
    leaves = [lib.tensor(_typed(a, dtype), requires_grad=True) if a.dtype.kind == "f"
              else lib.tensor(a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fn(lib, *leaves)
    if cotangents is None:
        return result, None
    outputs = [t for t in _tensors(result) if t.requires_grad]
    wrt = [leaf for leaf in leaves if leaf.requires_grad]
    grads = lib.autograd.grad(outputs, wrt, [lib.tensor(c) for c in cotangents],
                              allow_unused=True)
    return result, [None if g is None else g.resolve_conj().numpy() for g in grads]


def assert_close(ours, theirs):
    if theirs.dtype.kind not in "fc":  # pivots, infos
        np.testing.assert_array_equal(ours, theirs)
        return
    tolerance = 1e-4 if theirs.dtype in (np.float32, np.complex64) else 1e-9
    finite = np.abs(theirs[np.isfinite(theirs)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance * scale)


def assert_like_torch(fn, *arrays, dtype=np.float64, grads=True):
    """fn on both libraries: result type, and per output dtype, shape, values,
    requires_grad and grad_fn name; then the gradients of random cotangents."""
    torch = torch_or_skip()
    expected, _ = run(torch, fn, arrays, dtype)
    result, _ = run(tapegrad, fn, arrays, dtype)
    assert type(result).__name__ == type(expected).__name__
    pairs = list(zip(_tensors(result), _tensors(expected)))
    assert len(pairs) == len(_tensors(expected))
    for ours, theirs in pairs:
        assert str(ours.dtype) == str(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        assert_close(ours.detach().resolve_conj().numpy(),
                     theirs.detach().resolve_conj().numpy())
    if not grads:
        return
    cotangents = [_typed(RNG.uniform(-1, 1, t.shape), dtype) for t in _tensors(expected)
                  if t.requires_grad]
    _, expected_grads = run(torch, fn, arrays, dtype, cotangents)
    _, our_grads = run(tapegrad, fn, arrays, dtype, cotangents)
    for ours, theirs in zip(our_grads, expected_grads):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert ours.dtype == theirs.dtype
            assert_close(ours, theirs)


# ---- values and gradients against torch ----------------------------------------------------

def _lu_solve_case(left, adjoint, shape_B):
    LU, pivots = lu_data(2, 4, 4)
    return (lambda lib, LU, pivots, B: lib.linalg.lu_solve(LU, pivots, B, left=left,
                                                            adjoint=adjoint),
            LU, pivots, general(*shape_B))


CASES = {
    "lu_factor": (lambda lib, A: lib.linalg.lu_factor(A), general(2, 4, 4)),
    "lu_factor_wide": (lambda lib, A: lib.linalg.lu_factor(A), general(3, 5)),
    "lu_factor_tall": (lambda lib, A: lib.linalg.lu_factor(A), general(2, 5, 3)),
    "lu_factor_ex": (lambda lib, A: lib.linalg.lu_factor_ex(A), general(3, 3)),
    "lu": (lambda lib, A: lib.linalg.lu(A), general(2, 4, 4)),
    "lu_wide": (lambda lib, A: lib.linalg.lu(A), general(3, 5)),
    "lu_tall": (lambda lib, A: lib.linalg.lu(A), general(2, 5, 3)),
    "torch.lu": (lambda lib, A: lib.lu(A), general(2, 3, 3)),
    "torch.lu_infos": (lambda lib, A: lib.lu(A, get_infos=True), general(3, 4)),
    "Tensor.lu": (lambda lib, A: A.lu(get_infos=True), general(3, 3)),
    "lu_unpack": (lambda lib, LU, pivots: lib.lu_unpack(LU, pivots), *lu_data(2, 4, 4)),
    "lu_unpack_data_only": (lambda lib, LU, pivots: lib.lu_unpack(LU, pivots, True, False),
                            *lu_data(4, 4)),
    "lu_unpack_pivots_only": (lambda lib, LU, pivots: lib.lu_unpack(LU, pivots, False)[0],
                              *lu_data(4, 4)),
    "lu_solve": _lu_solve_case(True, False, (2, 4, 3)),
    "lu_solve_adjoint": _lu_solve_case(True, True, (2, 4, 3)),
    "lu_solve_right": _lu_solve_case(False, False, (2, 3, 4)),
    "lu_solve_right_adjoint": _lu_solve_case(False, True, (2, 3, 4)),
    "lu_solve_broadcast": _lu_solve_case(True, False, (3, 1, 4, 2)),
    "torch.lu_solve": (lambda lib, LU, pivots, B: lib.lu_solve(B, LU, pivots),
                       *lu_data(2, 3, 3), general(2, 3, 2)),
    "Tensor.lu_solve": (lambda lib, LU, pivots, B: B.lu_solve(LU, pivots),
                        *lu_data(3, 3), general(3, 2)),
    "solve_triangular": (lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True),
                         upper(2, 4, 4), general(2, 4, 3)),
    "solve_triangular_lower_right": (
        lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=False, left=False),
        lower(4, 4), general(2, 3, 4)),
    "solve_triangular_unit": (
        lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=False, unitriangular=True),
        general(3, 3), general(3, 2)),
    "triangular_solve": (lambda lib, B, A: lib.triangular_solve(B, A), general(2, 4, 2),
                         upper(4, 4)),
    "triangular_solve_transposed_unit": (
        lambda lib, B, A: lib.triangular_solve(B, A, False, True, True), general(4, 2),
        general(2, 4, 4)),
    "Tensor.triangular_solve": (lambda lib, B, A: B.triangular_solve(A, upper=False),
                                general(3, 1), lower(3, 3)),
    "cholesky_solve": (lambda lib, B, L: lib.cholesky_solve(B, L), general(2, 4, 3),
                       factor(2, 4, 4)),
    "cholesky_solve_upper": (lambda lib, B, L: B.cholesky_solve(L.mT, upper=True),
                             general(4, 3), factor(4, 4)),
    "cholesky_inverse": (lambda lib, L: lib.cholesky_inverse(L), factor(2, 4, 4)),
    "cholesky_inverse_upper": (lambda lib, L: L.mT.cholesky_inverse(upper=True), factor(3, 3)),
    "cholesky_ex": (lambda lib, A: lib.linalg.cholesky_ex(A), spd(2, 4, 4)),
    "cholesky_ex_upper": (lambda lib, A: lib.linalg.cholesky_ex(A, upper=True), spd(3, 3)),
    "inv_ex": (lambda lib, A: lib.linalg.inv_ex(A), general(2, 4, 4)),
    "solve_ex": (lambda lib, A, B: lib.linalg.solve_ex(A, B), general(2, 4, 4),
                 general(2, 4, 2)),
    "solve_ex_vector": (lambda lib, A, B: lib.linalg.solve_ex(A, B), general(2, 3, 3),
                        general(3)),
    "solve_ex_right": (lambda lib, A, B: lib.linalg.solve_ex(A, B, left=False),
                       general(3, 3), general(2, 3)),
    "ldl_factor": (lambda lib, A: lib.linalg.ldl_factor(A), symmetric(2, 5, 5)),
    "ldl_factor_ex": (lambda lib, A: lib.linalg.ldl_factor_ex(A, hermitian=True),
                      symmetric(4, 4)),
    "geqrf": (lambda lib, A: lib.geqrf(A), general(2, 5, 3)),
    "geqrf_wide": (lambda lib, A: A.geqrf(), general(3, 5)),
    "householder_product": (lambda lib, a, tau: lib.linalg.householder_product(a, tau),
                            *qr_data(2, 5, 3)),
    "orgqr": (lambda lib, a, tau: lib.orgqr(a, tau[..., :2]), *qr_data(4, 4)),
    "Tensor.orgqr": (lambda lib, a, tau: a.orgqr(tau), *qr_data(4, 3)),
    "ormqr": (lambda lib, a, tau, C: lib.ormqr(a, tau, C), *qr_data(2, 5, 3),
              general(2, 5, 2)),
    "ormqr_transposed": (lambda lib, a, tau, C: a.ormqr(tau, C, transpose=True),
                         *qr_data(4, 4), general(4, 3)),
    "ormqr_right": (lambda lib, a, tau, C: lib.ormqr(a, tau, C, left=False), *qr_data(5, 3),
                    general(2, 5)),
    "ormqr_right_transposed": (lambda lib, a, tau, C: lib.ormqr(a, tau, C, False, True),
                               *qr_data(2, 4, 4), general(2, 3, 4)),
}
NOT_DIFFERENTIABLE = {"ldl_factor", "ldl_factor_ex", "geqrf", "geqrf_wide"}


# geqrf refuses complex inputs that require grad: test_geqrf_complex_like_torch
DTYPE_CASES = [(name, dtype) for name in sorted(CASES)
               for dtype in (np.float64, np.float32, np.complex128, np.complex64)
               if not (name.startswith("geqrf") and np.dtype(dtype).kind == "c")]


@pytest.mark.parametrize("name,dtype", DTYPE_CASES)
def test_like_torch(name, dtype):
    """Complex matrices too: A^H where real matrices have A^T (LAPACK's conjugate solves,
    Hermitian LDL, unitary Householder products), gradients by torch's conjugate Wirtinger
    convention."""
    fn, *arrays = CASES[name]
    assert_like_torch(fn, *arrays, dtype=dtype, grads=name not in NOT_DIFFERENTIABLE)


def test_geqrf_complex_like_torch():
    a = _typed(general(2, 4, 3), np.complex128)
    assert_like_torch(lambda lib, a: lib.geqrf(a.detach()), a, dtype=np.complex128,
                      grads=False)
    same_error(lambda lib: lib.geqrf(lib.tensor(a, requires_grad=True)))


def test_ldl_solve_like_torch():
    torch = torch_or_skip()
    A, B = symmetric(2, 4, 4), general(2, 4, 3)
    LD, pivots = torch.linalg.ldl_factor(torch.tensor(A))
    assert_like_torch(lambda lib, LD, pivots, B: lib.linalg.ldl_solve(LD, pivots, B),
                      LD.numpy(), pivots.numpy(), B, grads=False)
    X = tapegrad.linalg.ldl_solve(tapegrad.tensor(LD.numpy()), tapegrad.tensor(pivots.numpy()),
                                  tapegrad.tensor(B))
    np.testing.assert_allclose(A @ X.numpy(), B, atol=1e-10)


# ---- numerical gradients -------------------------------------------------------------------

def _sym(x):
    return (x + x.mT) / 2


GRADCHECK = {
    "lu_factor": (lambda A: tapegrad.linalg.lu_factor(A).LU, general(2, 3, 3)),
    "lu_factor_wide": (lambda A: tapegrad.linalg.lu_factor_ex(A).LU, general(3, 5)),
    "lu_tall": (lambda A: tuple(tapegrad.linalg.lu(A))[1:], general(5, 3)),
    "lu_wide": (lambda A: tuple(tapegrad.linalg.lu(A))[1:], general(2, 3, 4)),
    "lu_unpack": (lambda LU: tuple(tapegrad.lu_unpack(LU, tapegrad.tensor(
        np.array([2, 3, 3], np.int32))))[1:], general(3, 4)),
    "lu_solve_LU": (lambda LU, B: tapegrad.linalg.lu_solve(
        LU, tapegrad.tensor(np.array([3, 2, 3], np.int32)), B), general(3, 3), general(3, 2)),
    "lu_solve_adjoint_right": (lambda LU, B: tapegrad.linalg.lu_solve(
        LU, tapegrad.tensor(np.array([2, 2, 3], np.int32)), B, left=False, adjoint=True),
        general(2, 3, 3), general(2, 3)),
    "solve_triangular": (lambda A, B: tapegrad.linalg.solve_triangular(A, B, upper=True),
                         upper(2, 3, 3), general(2, 3, 2)),
    "solve_triangular_right_unit": (lambda A, B: tapegrad.linalg.solve_triangular(
        A, B, upper=False, left=False, unitriangular=True), lower(3, 3), general(2, 3)),
    "triangular_solve": (lambda B, A: tuple(tapegrad.triangular_solve(B, A, True, True)),
                         general(3, 2), upper(2, 3, 3)),
    # Cholesky factors and symmetric inputs: only one triangle is read
    "cholesky_solve": (lambda B, L: tapegrad.cholesky_solve(B, L.tril()), general(2, 3, 2),
                       factor(3, 3)),
    "cholesky_solve_upper": (lambda B, U: tapegrad.cholesky_solve(B, U.triu(), upper=True),
                             general(3, 2), factor(3, 3).T),
    "cholesky_inverse": (lambda L: tapegrad.cholesky_inverse(L.tril()), factor(2, 3, 3)),
    "cholesky_inverse_upper": (lambda U: tapegrad.cholesky_inverse(U.triu(), True),
                               factor(3, 3).T),
    "cholesky_ex": (lambda A: tapegrad.linalg.cholesky_ex(_sym(A)).L, spd(2, 3, 3)),
    "inv_ex": (lambda A: tapegrad.linalg.inv_ex(A).inverse, general(2, 3, 3)),
    "solve_ex": (lambda A, B: tapegrad.linalg.solve_ex(A, B, left=False).result,
                 general(3, 3), general(2, 3)),
    "householder_product": (lambda a, tau: tapegrad.linalg.householder_product(a, tau),
                            *qr_data(2, 4, 3)),
    "orgqr_fewer_reflectors": (lambda a, tau: tapegrad.orgqr(a, tau[..., :1]),
                               *qr_data(4, 3)),
    "ormqr": (lambda a, tau, C: tapegrad.ormqr(a, tau, C, True, True), *qr_data(4, 3),
              general(4, 2)),
    "ormqr_right": (lambda a, tau, C: tapegrad.ormqr(a, tau, C, False, False),
                    *qr_data(2, 4, 2), general(2, 3, 4)),
}


def _leaves(arrays):
    return [tapegrad.tensor(a, requires_grad=True) for a in arrays]


DEPRECATED = "ignore:torch.triangular_solve is deprecated"


@pytest.mark.filterwarnings(DEPRECATED)
@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, *arrays = GRADCHECK[name]
    assert tapegrad.autograd.gradcheck(fn, _leaves(arrays))


@pytest.mark.filterwarnings(DEPRECATED)
@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradgradcheck(name):
    fn, *arrays = GRADCHECK[name]
    assert tapegrad.autograd.gradgradcheck(fn, _leaves(arrays))


@pytest.mark.parametrize("name", ["lu_factor", "lu_solve", "solve_triangular",
                                  "householder_product", "ormqr", "cholesky_inverse"])
def test_second_derivative_like_torch(name):
    torch = torch_or_skip()
    fn, *arrays = CASES[name]
    weights = None

    def hessian_vector(lib):
        nonlocal weights
        leaves = [lib.tensor(a, requires_grad=True) if a.dtype.kind == "f" else lib.tensor(a)
                  for a in arrays]
        result = fn(lib, *leaves)
        loss = sum((t ** 3).sum() for t in _tensors(result) if t.requires_grad)
        wrt = [leaf for leaf in leaves if leaf.requires_grad]
        grads = lib.autograd.grad(loss, wrt, create_graph=True)
        if weights is None:
            weights = [RNG.uniform(-1, 1, g.shape) for g in grads]
        total = sum((g * lib.tensor(w)).sum() for g, w in zip(grads, weights))
        return [g.detach().numpy() for g in grads] + [
            s.numpy() for s in lib.autograd.grad(total, wrt)]

    for ours, theirs in zip(hessian_vector(tapegrad), hessian_vector(torch)):
        assert_close(ours, theirs)


# ---- batches, empty batches and 0 x 0 matrices --------------------------------------------

def test_batched_matches_one_by_one():
    A, B = general(3, 4, 4), general(3, 4, 2)
    LU, pivots = tapegrad.linalg.lu_factor(tapegrad.tensor(A))
    X = tapegrad.linalg.lu_solve(LU, pivots, tapegrad.tensor(B))
    for i in range(3):
        one_LU, one_pivots = tapegrad.linalg.lu_factor(tapegrad.tensor(A[i]))
        np.testing.assert_array_equal(LU[i].numpy(), one_LU.numpy())
        np.testing.assert_array_equal(pivots[i].numpy(), one_pivots.numpy())
        np.testing.assert_allclose(X[i].numpy(), np.linalg.solve(A[i], B[i]), atol=1e-12)
    P, L, U = tapegrad.linalg.lu(tapegrad.tensor(A))
    np.testing.assert_allclose((P @ L @ U).numpy(), A, atol=1e-12)


EMPTY = {
    "lu_factor_ex": lambda lib, A: lib.linalg.lu_factor_ex(A),
    "lu": lambda lib, A: lib.linalg.lu(A),
    "lu_unpack": lambda lib, A: lib.lu_unpack(*lib.linalg.lu_factor(A)),
    "lu_solve": lambda lib, A: lib.linalg.lu_solve(*lib.linalg.lu_factor(A), A),
    "solve_triangular": lambda lib, A: lib.linalg.solve_triangular(A, A, upper=True),
    "triangular_solve": lambda lib, A: lib.triangular_solve(A, A),
    "cholesky_solve": lambda lib, A: lib.cholesky_solve(A, A),
    "cholesky_inverse": lambda lib, A: lib.cholesky_inverse(A),
    "cholesky_ex": lambda lib, A: lib.linalg.cholesky_ex(A),
    "inv_ex": lambda lib, A: lib.linalg.inv_ex(A),
    "solve_ex": lambda lib, A: lib.linalg.solve_ex(A, A),
    "ldl_factor_ex": lambda lib, A: lib.linalg.ldl_factor_ex(A),
    "geqrf": lambda lib, A: lib.geqrf(A),
    "householder_product": lambda lib, A: lib.linalg.householder_product(A, A.sum(-2)),
    "ormqr": lambda lib, A: lib.ormqr(A, A.sum(-2), A),
}


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (0, 0)])
@pytest.mark.parametrize("name", sorted(EMPTY))
def test_empty_like_torch(name, shape):
    differentiable = name not in ("ldl_factor_ex", "geqrf")
    assert_like_torch(EMPTY[name], np.zeros(shape), grads=differentiable)


def test_empty_rectangular_lu():
    assert_like_torch(lambda lib, A: lib.linalg.lu_factor_ex(A), np.zeros((2, 0, 3)))
    assert_like_torch(lambda lib, A: lib.linalg.lu(A), np.zeros((3, 0)))
    assert_like_torch(lambda lib, A: lib.geqrf(A), np.zeros((2, 3, 0)), grads=False)


# ---- singular and indefinite matrices ------------------------------------------------------

SINGULAR = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
INDEFINITE = np.array([[[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])


@pytest.mark.parametrize("call", [
    lambda lib, S, N: lib.linalg.inv_ex(S),
    lambda lib, S, N: lib.linalg.solve_ex(S, S[..., 0]),
    lambda lib, S, N: lib.linalg.lu_factor_ex(S),
    lambda lib, S, N: lib.lu(S, get_infos=True),
    lambda lib, S, N: lib.lu(S),
    lambda lib, S, N: lib.linalg.lu(S),
    lambda lib, S, N: lib.linalg.cholesky_ex(N),
    lambda lib, S, N: lib.linalg.solve_triangular(S - S.triu(), S, upper=True),
    lambda lib, S, N: lib.triangular_solve(S, S.tril(-1), upper=False),
    lambda lib, S, N: lib.cholesky_solve(S, S.triu(1)),
    lambda lib, S, N: lib.linalg.lu_solve(*lib.linalg.lu_factor_ex(S)[:2], S),
    lambda lib, S, N: lib.linalg.ldl_factor_ex(S - S),
    lambda lib, S, N: lib.linalg.ldl_factor_ex(N),
])
def test_failed_matrices_like_torch(call):
    """The *_ex forms report LAPACK's info, keep its partial factors; solves with a zero on the
    diagonal give torch's infinities and NaN."""
    assert_like_torch(lambda lib, S, N: call(lib, S, N), SINGULAR, INDEFINITE, grads=False)


@pytest.mark.parametrize("call", [
    lambda lib, S, N: lib.linalg.cholesky_ex(N).L,
    lambda lib, S, N: lib.linalg.solve_ex(S[:1], S[:1, 0]).result,
    lambda lib, S, N: lib.linalg.inv_ex(S[:1]).inverse,
    lambda lib, S, N: lib.linalg.solve_triangular(S - S.triu(), S, upper=True),
])
def test_gradients_of_failed_matrices_like_torch(call):
    """torch's backward of a failed factor or a singular matrix solves without checking: the
    gradient is infinite or NaN, not an error."""
    assert_like_torch(lambda lib, S, N: call(lib, S, N), SINGULAR, INDEFINITE)


@pytest.mark.parametrize("call", [
    lambda lib, S, N: lib.linalg.inv_ex(S, check_errors=True),
    lambda lib, S, N: lib.linalg.inv_ex(S[0], check_errors=True),
    lambda lib, S, N: lib.linalg.solve_ex(S, S, check_errors=True),
    lambda lib, S, N: lib.linalg.solve_ex(S[0], S[0], check_errors=True),
    lambda lib, S, N: lib.linalg.cholesky_ex(N, check_errors=True),
    lambda lib, S, N: lib.linalg.cholesky_ex(N[0], upper=True, check_errors=True),
    lambda lib, S, N: lib.linalg.lu_factor(S),
    lambda lib, S, N: lib.linalg.lu_factor(S[0]),
    lambda lib, S, N: lib.linalg.lu_factor_ex(S[0], check_errors=True),
    lambda lib, S, N: lib.cholesky_inverse(lib.stack([S[1], S[0].triu(1)])),
    lambda lib, S, N: lib.cholesky_inverse(S[0].tril(-1)),
])
def test_failure_errors_like_torch(call):
    same_error(lambda lib: call(lib, lib.tensor(SINGULAR), lib.tensor(INDEFINITE)))


def test_ldl_factor_of_a_singular_matrix():
    """ldl_factor_ex reports a zero block of D in info; ldl_factor raises, in the words of
    torch's internal assertion."""
    LD, pivots, info = tapegrad.linalg.ldl_factor_ex(tapegrad.zeros(2, 3, 3))
    assert info.tolist() == [1, 1] and LD.abs().sum().item() == 0
    with pytest.raises(RuntimeError, match="torch.linalg.ldl_factor: Unknown error code: 1"):
        tapegrad.linalg.ldl_factor(tapegrad.zeros(3, 3))


def test_linalg_error_is_a_runtime_error():
    with pytest.raises(tapegrad.linalg.LinAlgError):
        tapegrad.linalg.inv_ex(tapegrad.tensor(SINGULAR), check_errors=True)
    with pytest.raises(RuntimeError):
        tapegrad.linalg.cholesky_ex(tapegrad.tensor(INDEFINITE), check_errors=True)


# ---- bad arguments -------------------------------------------------------------------------

A3 = general(3, 3)
PIVOTS = np.array([1, 2, 3], np.int32)


@pytest.mark.parametrize("call", [
    lambda lib, A, p: lib.linalg.lu(A, pivot=False),
    lambda lib, A, p: lib.linalg.lu_factor(A, pivot=False),
    lambda lib, A, p: lib.linalg.lu_factor_ex(A, pivot=False),
    lambda lib, A, p: lib.lu(A, pivot=False),
    lambda lib, A, p: lib.linalg.lu(A[0]),
    lambda lib, A, p: lib.linalg.lu_factor(A[0]),
    lambda lib, A, p: lib.linalg.lu(A.long()),
    lambda lib, A, p: lib.linalg.lu_factor(A.long()),
    lambda lib, A, p: lib.linalg.lu_solve(A, p, A[0]),
    lambda lib, A, p: lib.linalg.lu_solve(A, p, A[:2, :2]),
    lambda lib, A, p: lib.linalg.lu_solve(A, p.long(), A),
    lambda lib, A, p: lib.linalg.lu_solve(A, p, A.float()),
    lambda lib, A, p: lib.linalg.lu_solve(A, p[:2], A),
    lambda lib, A, p: lib.linalg.lu_solve(A[:, :2], p, A),
    lambda lib, A, p: lib.linalg.lu_solve(A, p, A[:, :2], left=False),
    lambda lib, A, p: lib.lu_unpack(A, p.long()),
    lambda lib, A, p: lib.lu_unpack(A, p + 5),
    lambda lib, A, p: lib.lu_unpack(A[0], p),
    lambda lib, A, p: lib.linalg.solve_triangular(A, A[0], upper=True),
    lambda lib, A, p: lib.linalg.solve_triangular(A[0], A, upper=True),
    lambda lib, A, p: lib.linalg.solve_triangular(A, A[:2], upper=True),
    lambda lib, A, p: lib.linalg.solve_triangular(A, A[:, :2], upper=True, left=False),
    lambda lib, A, p: lib.linalg.solve_triangular(A[:, :2], A, upper=True),
    lambda lib, A, p: lib.linalg.solve_triangular(A.long(), A.long(), upper=True),
    lambda lib, A, p: lib.triangular_solve(A[0], A),
    lambda lib, A, p: lib.triangular_solve(A[:2], A),
    lambda lib, A, p: lib.triangular_solve(A, A[:, :2]),
    lambda lib, A, p: lib.triangular_solve(A.float(), A),
    lambda lib, A, p: lib.cholesky_solve(A[0], A),
    lambda lib, A, p: lib.cholesky_solve(A[:2], A),
    lambda lib, A, p: lib.cholesky_solve(A, A[:, :2]),
    lambda lib, A, p: lib.cholesky_solve(A.float(), A),
    lambda lib, A, p: lib.cholesky_solve(A, A[0]),
    lambda lib, A, p: lib.cholesky_solve(A.long(), A.long()),
    lambda lib, A, p: lib.triangular_solve(A, A[0]),
    lambda lib, A, p: lib.triangular_solve(A.long(), A.long()),
    lambda lib, A, p: lib.linalg.solve_ex(A, A[0], left=False),
    lambda lib, A, p: lib.linalg.lu_solve(A.long(), p, A.long()),
    lambda lib, A, p: lib.cholesky_inverse(A[0]),
    lambda lib, A, p: lib.cholesky_inverse(A[:, :2]),
    lambda lib, A, p: lib.cholesky_inverse(A.long()),
    lambda lib, A, p: lib.linalg.cholesky_ex(A[:, :2]),
    lambda lib, A, p: lib.linalg.cholesky_ex(A.long()),
    lambda lib, A, p: lib.linalg.inv_ex(A[:, :2]),
    lambda lib, A, p: lib.linalg.inv_ex(A[0]),
    lambda lib, A, p: lib.linalg.inv_ex(A.long()),
    lambda lib, A, p: lib.linalg.solve_ex(A[0], A[0]),
    lambda lib, A, p: lib.linalg.solve_ex(A, A[:2]),
    lambda lib, A, p: lib.linalg.solve_ex(A, A.float()),
    lambda lib, A, p: lib.linalg.ldl_factor(A[0]),
    lambda lib, A, p: lib.linalg.ldl_factor(A[:, :2]),
    lambda lib, A, p: lib.linalg.ldl_factor_ex(A.long()),
    lambda lib, A, p: lib.linalg.ldl_solve(A, p, A[:2]),
    lambda lib, A, p: lib.linalg.ldl_solve(A, p, A.float()),
    lambda lib, A, p: lib.linalg.ldl_solve(A, p[:2], A),
    lambda lib, A, p: lib.linalg.ldl_solve(A, p.float(), A),
    lambda lib, A, p: lib.geqrf(A[0]),
    lambda lib, A, p: lib.geqrf(A.long()),
    lambda lib, A, p: lib.linalg.householder_product(A[0], A[0]),
    lambda lib, A, p: lib.linalg.householder_product(A[:2], A[0, :1]),
    lambda lib, A, p: lib.linalg.householder_product(A[:, :2], A[0]),
    lambda lib, A, p: lib.linalg.householder_product(A.expand(2, 3, 3), A[0]),
    lambda lib, A, p: lib.linalg.householder_product(A, A[0].float()),
    lambda lib, A, p: lib.linalg.householder_product(A.long(), A[0].long()),
    lambda lib, A, p: lib.orgqr(A[:, :2], A[0]),
    lambda lib, A, p: lib.ormqr(A, A[0], A[:2]),
    lambda lib, A, p: lib.ormqr(A, A[0], A[:, :2], left=False),
    lambda lib, A, p: lib.ormqr(A[0], A[0], A),
    lambda lib, A, p: lib.ormqr(A, A[0], A[0]),
    lambda lib, A, p: lib.ormqr(A.expand(2, 3, 3), A[0], A.expand(2, 3, 3)),
    lambda lib, A, p: lib.ormqr(A, A[0], A.expand(2, 3, 3)),
    lambda lib, A, p: lib.ormqr(A.expand(2, 3, 3), A[:1], A.expand(2, 3, 3)),
    lambda lib, A, p: lib.ormqr(A.expand(2, 3, 3), A[:2], A.expand(1, 3, 3)),
    lambda lib, A, p: lib.ormqr(A, A[0], A.float()),
    lambda lib, A, p: lib.ormqr(A, A[0].float(), A),
    lambda lib, A, p: lib.ormqr(A[:, :2], A[0], A),
    lambda lib, A, p: lib.ormqr(A, A[0, :2], A),
    lambda lib, A, p: lib.ormqr(A.long(), A[0].long(), A.long()),
])
def test_errors_like_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: call(lib, lib.tensor(A3), lib.tensor(PIVOTS)))


@pytest.mark.parametrize("call", [
    lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True),
    lambda lib, A, B: lib.linalg.lu_solve(A, lib.ones(2, 3, dtype=lib.int32), B),
    lambda lib, A, B: lib.linalg.solve_ex(A, B),
    lambda lib, A, B: lib.cholesky_solve(B, A),
    lambda lib, A, B: lib.triangular_solve(B, A),
    lambda lib, A, B: lib.linalg.ldl_solve(A, lib.ones(2, 3, dtype=lib.int32), B),
])
def test_batches_that_do_not_broadcast_like_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: call(lib, lib.tensor(general(2, 3, 3)),
                                    lib.tensor(general(4, 3, 1))))


def test_lu_unpack_without_data_refuses_backward_like_torch():
    """L and U not unpacked are empty tensors that require grad; torch's backward of them
    fails in triu."""
    LU, pivots = lu_data(3, 3)

    def backward(lib):
        leaf = lib.tensor(LU, requires_grad=True)
        _, L, U = lib.lu_unpack(leaf, lib.tensor(pivots), False)
        lib.autograd.grad([L, U], [leaf], [lib.ones(0, dtype=lib.float64)] * 2)
    same_error(backward)


def test_not_differentiable_like_torch():
    """geqrf's and LDL's results require grad, with a node that refuses backward."""
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        A = lib.tensor(symmetric(3, 3), requires_grad=True)
        a, tau = lib.geqrf(A)
        LD, pivots = lib.linalg.ldl_factor(A)
        assert a.requires_grad and LD.requires_grad and not pivots.requires_grad
    same_error(lambda lib: lib.geqrf(lib.tensor(A3, requires_grad=True))[0].sum().backward())
    same_error(lambda lib: lib.linalg.ldl_factor(
        lib.tensor(symmetric(3, 3), requires_grad=True))[0].sum().backward())


# ---- warnings, result types, SciPy ---------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda A, p: tapegrad.lu(A),
    lambda A, p: A.lu(),
    lambda A, p: tapegrad.lu_solve(A, A, p),
    lambda A, p: tapegrad.triangular_solve(A, A),
])
def test_legacy_names_warn(call):
    with pytest.warns(UserWarning, match="is deprecated in favor of torch.linalg") as record:
        call(tapegrad.tensor(A3), tapegrad.tensor(PIVOTS))
    assert record[0].filename == __file__  # the warning points at the caller


def test_result_types_print_like_torch():
    torch = torch_or_skip()
    for name, call in (("lu", lambda lib, A: lib.linalg.lu(A)),
                       ("lu_factor_ex", lambda lib, A: lib.linalg.lu_factor_ex(A)),
                       ("triangular_solve", lambda lib, A: lib.triangular_solve(A, A)),
                       ("geqrf", lambda lib, A: lib.geqrf(A))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = call(tapegrad, tapegrad.tensor(np.eye(2)))
            theirs = call(torch, torch.tensor(np.eye(2)))
        assert repr(ours) == repr(theirs), name
    assert tapegrad.return_types.linalg_ldl_factor_ex._fields == ("LD", "pivots", "info")


def test_without_scipy_names_the_extra(monkeypatch):
    import tapegrad._scipy as scipy_module

    def missing(name):
        raise ImportError(name)
    monkeypatch.setattr(scipy_module.importlib, "import_module", missing)
    with pytest.raises(ImportError, match=r"tapegrad\[scipy\]"):
        tapegrad.linalg.lu_factor(tapegrad.tensor(A3))


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_solve_triangular_solves_in_the_dtype_of_a(dtype):
    torch = torch_or_skip()

    def scenario(lib):
        A = lib.tensor([[2.0, 0.0], [1.0, 3.0]], dtype=lib.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            X = lib.linalg.solve_triangular(A, lib.ones(2, 1, dtype=getattr(lib, dtype)),
                                            upper=False)
        return (str(X.dtype), X.flatten().tolist()), [str(w.message) for w in caught]
    (ours, warned), (theirs, _) = scenario(tapegrad), scenario(torch)
    assert ours == theirs
    # torch warns once per process (so only the first run of its own tells)
    assert warned == (["Casting complex values to real discards the imaginary part"]
                      if dtype == "complex64" else [])
