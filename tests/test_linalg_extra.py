"""The rest of torch.linalg beyond the op database's samples: lstsq (every driver, its result
fields), matrix_power, matrix_exp, matrix_rank, cond, multi_dot, vander, vecdot, diagonal,
tensorinv, tensorsolve, eig/eigvals, svd_lowrank/pca_lowrank and the nuclear norm, against torch
(values, dtypes, grad_fn names, gradients), with float64 gradcheck and gradgradcheck, empty
batches and 0 x 0 matrices (also for the decompositions), and torch's error texts."""
import importlib.util
import math

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip

RNG = np.random.default_rng(21)
INF = math.inf
# lstsq's LAPACK drivers and matrix_exp come from SciPy, the optional extra
needs_scipy = pytest.mark.skipif(importlib.util.find_spec("scipy") is None,
                                 reason="SciPy (tapegrad[scipy]) is not installed")


def matrix(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def well_conditioned(*shape, dtype=np.float64):
    """Square matrices near 3 I: invertible, with distinct eigenvalues."""
    n = shape[-1]
    return (matrix(*shape) + 3 * np.eye(n)).astype(dtype)


def as_array(tensor):
    return tensor.detach().resolve_conj().numpy()


def _tensors(value):
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return [value]


def run(lib, fn, arrays, cotangents=None):
    """fn(lib, *leaves): (its tensors, the gradients of the leaves for the cotangents of the
    outputs that require grad)."""
    leaves = [lib.tensor(a, requires_grad=a.dtype.kind in "fc") for a in arrays]
    outputs = _tensors(fn(lib, *leaves))
    if cotangents is None:
        return outputs, None
    pairs = [(out, lib.tensor(c)) for out, c in zip(outputs, cotangents) if out.requires_grad]
    differentiable = [leaf for leaf in leaves if leaf.requires_grad]
    if not pairs or not differentiable:
        return outputs, None
    grads = lib.autograd.grad([o for o, _ in pairs], differentiable, [c for _, c in pairs],
                              allow_unused=True)
    return outputs, [None if g is None else as_array(g) for g in grads]


def assert_close(ours, theirs):
    tolerance = 1e-4 if theirs.dtype in (np.float32, np.complex64) else 1e-9
    if theirs.dtype.kind in "biu":
        np.testing.assert_array_equal(ours, theirs)
        return
    finite = np.abs(theirs[np.isfinite(theirs)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance * scale)


def assert_like_torch(fn, *arrays, grads=True):
    """fn on both libraries: for every output its dtype, shape, requires_grad, grad_fn name and
    values, and the gradients of random cotangents, agree."""
    torch = torch_or_skip()
    expected, _ = run(torch, fn, arrays)
    cotangents = [RNG.uniform(-1, 1, tuple(t.shape)).astype(as_array(t).dtype)
                  for t in expected]
    expected, expected_grads = run(torch, fn, arrays, cotangents if grads else None)
    result, result_grads = run(tapegrad, fn, arrays, cotangents if grads else None)
    assert len(result) == len(expected)
    for ours, theirs in zip(result, expected):
        assert str(ours.dtype) == str(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.requires_grad == theirs.requires_grad
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        assert_close(as_array(ours), as_array(theirs))
    for ours, theirs in zip(result_grads or (), expected_grads or ()):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert ours.dtype == theirs.dtype
            assert_close(ours, theirs)


def check_gradients(fn, *arrays, second_order=True):
    """float64 gradcheck (and gradgradcheck) of fn on leaves made from arrays."""
    leaves = [tapegrad.tensor(a, requires_grad=True) for a in arrays]
    assert tapegrad.autograd.gradcheck(fn, leaves)
    if second_order:
        assert tapegrad.autograd.gradgradcheck(fn, leaves)


L = tapegrad.linalg


# ---- vecdot, diagonal, vander, multi_dot ---------------------------------------------------

@pytest.mark.parametrize("shapes,kwargs", [
    (((5,), (5,)), {}), (((5,), (5,)), {"dim": 0}), (((2, 3, 4), (3, 4)), {}),
    (((2, 3, 4), (2, 1, 4)), {"dim": 0}), (((4, 1), (4, 3)), {"dim": -2}),
    (((0, 3), (0, 3)), {}), (((3, 0), (3, 0)), {}), (((4,), (1, 4)), {})])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vecdot_like_torch(shapes, kwargs, dtype):
    assert_like_torch(lambda lib, x, y: lib.linalg.vecdot(x, y, **kwargs),
                      *(matrix(*shape, dtype=dtype) for shape in shapes))


def test_vecdot_gradients():
    check_gradients(lambda x, y: L.vecdot(x, y), matrix(3, 4), matrix(2, 1, 4))
    check_gradients(lambda x, y: L.vecdot(x, y), matrix(4), matrix(4))


@pytest.mark.parametrize("kwargs", [{}, {"offset": 1}, {"offset": -2}, {"dim1": 0, "dim2": 2},
                                    {"offset": 1, "dim1": 2, "dim2": 0}])
def test_diagonal_like_torch(kwargs):
    assert_like_torch(lambda lib, A: lib.linalg.diagonal(A, **kwargs), matrix(3, 4, 5))


@pytest.mark.parametrize("shape,N", [((4,), None), ((4,), 6), ((2, 3), None), ((2, 3), 2),
                                     ((), 2), ((0,), 3), ((2, 0), 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vander_like_torch(shape, N, dtype):
    assert_like_torch(lambda lib, x: lib.linalg.vander(x, N=N), matrix(*shape, dtype=dtype))


def test_vander_of_integers_like_torch():
    for dtype in (np.int64, np.int32, np.int8):
        assert_like_torch(lambda lib, x: lib.linalg.vander(x, N=4),
                          RNG.integers(-3, 4, (2, 3)).astype(dtype))


def test_vander_gradients():
    check_gradients(lambda x: L.vander(x, N=4), matrix(2, 3))


@pytest.mark.parametrize("shapes", [
    ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)),
    ((5, 2), (2, 6), (6, 3)), ((2, 6), (6, 5), (5, 1)), ((4,), (4, 3), (3,)),
    ((3, 4), (4, 7), (7, 2), (2, 5), (5, 6)), ((6,), (6, 2), (2, 8), (8, 3), (3,)),
    ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((2, 3), (3, 0), (0, 4))])
def test_multi_dot_like_torch(shapes):
    assert_like_torch(lambda lib, *tensors: lib.linalg.multi_dot(tensors),
                      *(matrix(*shape) for shape in shapes))


def test_multi_dot_gradients():
    check_gradients(lambda *t: L.multi_dot(t), matrix(3), matrix(3, 4), matrix(4, 2),
                    matrix(2, 5))


# ---- matrix_power, matrix_exp ----------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 6, 11, -1, -2, -3, -6])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (0, 3, 3), (0, 0), (1, 1)])
def test_matrix_power_like_torch(n, shape):
    if n < 0 and shape == (0, 0):
        pytest.skip("torch's inverse of a 0 x 0 matrix has no node to compare")
    assert_like_torch(lambda lib, A: lib.linalg.matrix_power(A, n),
                      well_conditioned(*shape) / 3)


def test_matrix_power_spellings_and_integers():
    A = RNG.integers(-2, 3, (2, 2, 2))
    assert_like_torch(lambda lib, x: lib.matrix_power(x, 3), A)
    assert_like_torch(lambda lib, x: x.matrix_power(5), A)
    assert_like_torch(lambda lib, x: lib.linalg.matrix_power(x, 0), A)


def test_matrix_power_gradients():
    for n in (0, 1, 2, 5, -1, -3):
        check_gradients(lambda A: L.matrix_power(A, n), well_conditioned(2, 3, 3) / 3)


@needs_scipy
@pytest.mark.parametrize("shape,scale", [((3, 3), 1.0), ((3, 3), 0.01), ((4, 4), 20.0),
                                         ((2, 3, 3), 1.0), ((1, 1), 2.0), ((0, 0), 1.0),
                                         ((0, 3, 3), 1.0), ((2, 0, 0), 1.0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matrix_exp_like_torch(shape, scale, dtype):
    for exp in (lambda lib, A: lib.linalg.matrix_exp(A), lambda lib, A: lib.matrix_exp(A),
                lambda lib, A: A.matrix_exp()):
        assert_like_torch(exp, (matrix(*shape) * scale).astype(dtype))


@needs_scipy
def test_matrix_exp_of_commuting_and_nilpotent_matrices():
    diagonal = np.diag([0.5, -1.0, 2.0])
    np.testing.assert_allclose(L.matrix_exp(tapegrad.tensor(diagonal)).numpy(),
                               np.diag(np.exp([0.5, -1.0, 2.0])))
    nilpotent = np.array([[0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(L.matrix_exp(tapegrad.tensor(nilpotent)).numpy(),
                               [[1.0, 1.0], [0.0, 1.0]])


@needs_scipy
def test_matrix_exp_gradients():
    check_gradients(L.matrix_exp, matrix(2, 3, 3))
    check_gradients(L.matrix_exp, matrix(1, 1))


@needs_scipy
def test_matrix_exp_double_backward_like_torch():
    def second(lib, A):
        grad, = lib.autograd.grad(lib.linalg.matrix_exp(A).sin().sum(), A, create_graph=True)
        return grad
    assert_like_torch(second, matrix(3, 3))


# ---- matrix_rank, cond -------------------------------------------------------------------------

def rank_two(*batch, dtype=np.float64):
    return (matrix(*batch, 4, 2) @ matrix(*batch, 2, 5)).astype(dtype)


@pytest.mark.parametrize("kwargs", [
    {}, {"hermitian": True}, {"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.5, "rtol": 0.1},
    {"atol": 0.0}, {"tol": 2.0}, {"tol": 0.0, "hermitian": True}])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matrix_rank_like_torch(kwargs, dtype):
    values = rank_two(3, dtype=dtype)
    if kwargs.get("hermitian"):
        values = values[..., :4] + values[..., :4].swapaxes(-1, -2)
    assert_like_torch(lambda lib, A: lib.linalg.matrix_rank(A, **kwargs), values, grads=False)


def test_matrix_rank_tensor_tolerances_and_empty_like_torch():
    A = rank_two(3)
    tolerances = np.array([0.1, 1e3, 0.5])
    assert_like_torch(lambda lib, A, t: lib.linalg.matrix_rank(A, atol=t), A, tolerances,
                      grads=False)
    assert_like_torch(lambda lib, A, t: lib.linalg.matrix_rank(A, rtol=t), A, tolerances,
                      grads=False)
    for shape in ((0, 3, 3), (2, 0), (3, 0, 4)):
        assert_like_torch(lambda lib, A: lib.linalg.matrix_rank(A), matrix(*shape), grads=False)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", INF, -INF, 1, -1, 1.0, 2.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cond_like_torch(p, dtype):
    # torch cannot differentiate the orders that go through the inverse (its cond writes inf
    # into inv_ex's saved result in place); the gradients of those are checked numerically
    through_inverse = p in ("fro", INF, -INF, 1, -1)
    assert_like_torch(lambda lib, A: lib.linalg.cond(A, p), well_conditioned(2, 3, 3, dtype=dtype),
                      grads=not through_inverse)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", INF, -INF, 1, -1])
def test_cond_singular_and_empty_like_torch(p):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert_like_torch(lambda lib, A: lib.linalg.cond(A, p), singular, grads=False)
    for shape in ((0, 3, 3), (2, 0, 0)):
        assert_like_torch(lambda lib, A: lib.linalg.cond(A, p), matrix(*shape))


def test_cond_of_wide_matrices_in_the_2_norm_like_torch():
    for p in (None, 2, -2):
        assert_like_torch(lambda lib, A: lib.linalg.cond(A, p), matrix(2, 3, 5))


def test_cond_gradients():
    for p in (None, -2, "fro", "nuc", INF, 1, -1):
        check_gradients(lambda A: L.cond(A, p), well_conditioned(3, 3), second_order=False)


# ---- tensorinv, tensorsolve -------------------------------------------------------------------

@pytest.mark.parametrize("shape,ind", [((4, 2, 2), 1), ((2, 3, 6), 2), ((6, 2, 3), 1),
                                       ((2, 2, 3, 12, 1), 3), ((3, 3), 1)])
def test_tensorinv_like_torch(shape, ind):
    size = math.prod(shape[:ind])
    values = well_conditioned(size, size).reshape(shape)
    assert_like_torch(lambda lib, A: lib.linalg.tensorinv(A, ind=ind), values)


@pytest.mark.parametrize("shapes,dims", [(((2, 3, 6), (2, 3)), None), (((6, 2, 3), (6,)), None),
                                         (((6, 2, 3), (2, 3)), (0,)),
                                         (((2, 3, 3, 2), (3, 2)), (0, 2))])
def test_tensorsolve_like_torch(shapes, dims):
    (A_shape, B_shape) = shapes
    size = math.prod(B_shape)
    A = well_conditioned(size, size).reshape(A_shape)
    assert_like_torch(lambda lib, A, B: lib.linalg.tensorsolve(A, B, dims=dims), A,
                      matrix(*B_shape))


def test_tensor_equations_gradients():
    check_gradients(lambda A: L.tensorinv(A, ind=1), well_conditioned(4, 4).reshape(4, 2, 2))
    check_gradients(lambda A, B: L.tensorsolve(A, B), well_conditioned(6, 6).reshape(2, 3, 6),
                    matrix(2, 3))


# ---- lstsq -------------------------------------------------------------------------------------

DRIVERS = [None, "gels", "gelsy", "gelsd", "gelss"]


@needs_scipy
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((4, 4), (4, 1)),
                                    ((2, 5, 3), (2, 5, 4)), ((5, 3), (5,)),
                                    ((2, 5, 3), (2, 5)), ((1, 5, 3), (3, 5, 2)),
                                    ((3, 5, 3), (1, 5, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lstsq_like_torch(driver, shapes, dtype):
    A, B = (matrix(*shape, dtype=dtype) for shape in shapes)
    assert_like_torch(lambda lib, A, B: tuple(lib.linalg.lstsq(A, B, driver=driver)), A, B)


@needs_scipy
@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_rank_deficient_like_torch(driver):
    # 5 x 4 with singular values 10, 1, 0, 0: the ranks at the default rcond (2) and at 0.3 (1)
    # are far from the thresholds, which gelsy estimates rather than computes
    U, _ = np.linalg.qr(matrix(5, 4))
    V, _ = np.linalg.qr(matrix(4, 4))
    A = U @ np.diag([10.0, 1.0, 0.0, 0.0]) @ V.T
    B = matrix(5, 2)
    assert_like_torch(lambda lib, A, B: tuple(lib.linalg.lstsq(A, B, driver=driver)), A, B,
                      grads=False)
    if driver == "gelsy":  # its truncated solution depends on LAPACK's pivoting: the rank only
        assert_like_torch(lambda lib, A, B: lib.linalg.lstsq(A, B, 0.3, driver=driver).rank, A,
                          B, grads=False)
        return
    assert_like_torch(lambda lib, A, B: tuple(lib.linalg.lstsq(A, B, 0.3, driver=driver)), A, B,
                      grads=False)


@needs_scipy
def test_lstsq_result_type_and_empty_like_torch():
    torch = torch_or_skip()
    result = L.lstsq(tapegrad.tensor(matrix(4, 3)), tapegrad.tensor(matrix(4, 2)))
    assert type(result).__name__ == type(torch.linalg.lstsq(torch.ones(3, 3),
                                                             torch.ones(3, 1))).__name__
    assert result._fields == ("solution", "residuals", "rank", "singular_values")
    for shapes in (((0, 3, 3), (0, 3, 2)), ((3, 0), (3, 2)), ((0, 3), (0, 2))):
        assert_like_torch(lambda lib, A, B: tuple(lib.linalg.lstsq(A, B)),
                          *(matrix(*shape) for shape in shapes))


@needs_scipy
def test_lstsq_gradients():
    for driver in ("gelsd", "gels"):
        check_gradients(lambda A, B: L.lstsq(A, B, driver=driver)[:2], matrix(5, 3),
                        matrix(5, 2))
    check_gradients(lambda A, B: L.lstsq(A, B).solution, matrix(3, 5), matrix(3, 2))
    check_gradients(lambda A, B: L.lstsq(A, B).solution, matrix(2, 4, 3), matrix(2, 4))


# ---- eig, eigvals ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1), (0, 2, 2), (2, 0, 0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eig_like_torch(shape, dtype):
    A = well_conditioned(*shape, dtype=dtype)
    # eigenvectors are fixed up to a phase: compare their moduli (torch's OpInfo does)
    assert_like_torch(lambda lib, A: (lib.linalg.eig(A)[0], lib.linalg.eig(A)[1].abs()), A)
    assert_like_torch(lambda lib, A: lib.linalg.eigvals(A), A)


def test_eig_of_a_rotation_is_complex():
    values, vectors = L.eig(tapegrad.tensor([[0.0, 1.0], [-1.0, 0.0]]))
    assert values.dtype == tapegrad.complex64 and vectors.dtype == tapegrad.complex64
    np.testing.assert_allclose(np.sort_complex(values.numpy()), [-1j, 1j], atol=1e-6)


def test_eig_phase_dependent_loss_raises_like_torch():
    A = np.array([[1.0, 2.0, 0.5], [-2.0, 1.0, 0.0], [0.3, 0.0, 4.0]])  # 1 +- 2i and about 4

    def phase_dependent(lib):
        leaf = lib.tensor(A, requires_grad=True)
        return lib.autograd.grad(lib.linalg.eig(leaf)[1].real.sum(), leaf)
    same_error(phase_dependent)


def test_eig_real_eigenvectors_have_gradients_like_torch():
    # real eigenvalues: the phases are signs, and a loss of the real part is well defined
    P = well_conditioned(3, 3)
    A = P @ np.diag([1.0, 2.0, 4.0]) @ np.linalg.inv(P)
    assert_like_torch(lambda lib, A: lib.linalg.eig(A)[1].real, A)


# ---- svd_lowrank, pca_lowrank -----------------------------------------------------------------

def _low_rank(name, seed, **kwargs):
    def fn(lib_, A, *M):
        lib_.manual_seed(seed)
        if M:
            kwargs["M"] = M[0]
        U, S, V = getattr(lib_, name)(A, **kwargs)
        return lib_.matmul(U, V.mT), S  # U and V are fixed up to signs
    return fn


@pytest.mark.parametrize("name,kwargs", [
    ("svd_lowrank", {"q": 2}), ("svd_lowrank", {"q": 3, "niter": 0}),
    ("svd_lowrank", {"q": 4, "niter": 3}), ("pca_lowrank", {"q": 2}),
    ("pca_lowrank", {"q": 2, "center": False})])
@pytest.mark.parametrize("shape", [(7, 5), (5, 7), (2, 6, 4)])
def test_low_rank_like_torch_under_one_seed(name, kwargs, shape):
    assert_like_torch(_low_rank(name, 7, **kwargs), matrix(*shape))


def test_pca_lowrank_default_rank_like_torch():
    # q = min(6, m, n), below the rank of the centred matrix (a repeated zero singular value
    # would leave U V^T undetermined)
    assert_like_torch(_low_rank("pca_lowrank", 2), matrix(9, 8))


def test_svd_lowrank_with_mean_like_torch():
    assert_like_torch(_low_rank("svd_lowrank", 3, q=2), matrix(6, 4), matrix(6, 4))


def test_low_rank_draws_from_tapegrad_generator_as_torch():
    torch = torch_or_skip()
    A = matrix(6, 4)
    tapegrad.manual_seed(5)
    torch.manual_seed(5)
    tapegrad.svd_lowrank(tapegrad.tensor(A), q=2)
    torch.svd_lowrank(torch.tensor(A), q=2)
    assert tapegrad.randn(3).tolist() == torch.randn(3).tolist()


def test_pca_lowrank_refuses_like_torch():
    same_error(lambda lib: lib.pca_lowrank(lib.ones(3, 4), q=5))
    same_error(lambda lib: lib.pca_lowrank(lib.ones(3, 4), niter=-1))


# ---- nuclear norm ------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib, A: lib.linalg.matrix_norm(A, "nuc"),
    lambda lib, A: lib.linalg.matrix_norm(A, "nuc", keepdim=True),
    lambda lib, A: lib.linalg.matrix_norm(A, "nuc", dim=(0, 2)),
    lambda lib, A: lib.linalg.norm(A, "nuc", dim=(-1, 0), keepdim=True),
    lambda lib, A: lib.linalg.norm(A[0], "nuc")])
def test_nuclear_norm_like_torch(call):
    assert_like_torch(call, matrix(3, 4, 5))


def test_nuclear_norm_gradients():
    check_gradients(lambda A: L.matrix_norm(A, "nuc"), matrix(2, 3, 4))


# ---- empty batches and 0 x 0 matrices across torch.linalg ------------------------------------

EMPTY_CALLS = {
    "inv": lambda lib, A: lib.linalg.inv(A),
    "det": lambda lib, A: lib.linalg.det(A),
    "slogdet": lambda lib, A: tuple(lib.linalg.slogdet(A)),
    "cholesky": lambda lib, A: lib.linalg.cholesky(A),
    "eigh": lambda lib, A: tuple(lib.linalg.eigh(A)),
    "eigvalsh": lambda lib, A: lib.linalg.eigvalsh(A),
    "svdvals": lambda lib, A: lib.linalg.svdvals(A),
    "pinv": lambda lib, A: lib.linalg.pinv(A),
    "pinv-hermitian": lambda lib, A: lib.linalg.pinv(A, hermitian=True),
    "qr": lambda lib, A: tuple(lib.linalg.qr(A)),
    "solve": lambda lib, A: lib.linalg.solve(A, A),
    "matrix_norm-nuc": lambda lib, A: lib.linalg.matrix_norm(A, "nuc"),
    "matrix_norm-2": lambda lib, A: lib.linalg.matrix_norm(A, 2),
    "matrix_exp": lambda lib, A: lib.linalg.matrix_exp(A),
    "matrix_power": lambda lib, A: lib.linalg.matrix_power(A, 3),
    "eigvals": lambda lib, A: lib.linalg.eigvals(A),
}


EMPTY_SHAPES = [(0, 3, 3), (2, 0, 0), (0, 0)]


def _skip_what_cannot_run(name, shape):
    if name == "matrix_exp":
        pytest.importorskip("scipy")
    if name == "matrix_norm-2" and shape[-1] == 0:
        pytest.skip("torch cannot take the max of no singular values either (amax of nothing)")


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
@pytest.mark.parametrize("name", list(EMPTY_CALLS))
def test_empty_batches_forward_and_backward_like_torch(name, shape):
    _skip_what_cannot_run(name, shape)
    assert_like_torch(EMPTY_CALLS[name], matrix(*shape))


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
@pytest.mark.parametrize("name", list(EMPTY_CALLS))
def test_empty_batches_double_backward_like_torch(name, shape):
    _skip_what_cannot_run(name, shape)
    torch = torch_or_skip()

    def second_order(lib):
        A = lib.zeros(*shape, dtype=lib.float64, requires_grad=True)
        outputs = [t for t in _tensors(EMPTY_CALLS[name](lib, A)) if t.requires_grad]
        total = sum(t.abs().sum() if t.is_complex() else t.sum() for t in outputs)
        grad, = lib.autograd.grad(total, A, create_graph=True)
        again = lib.autograd.grad(grad.sum(), A, allow_unused=True)[0] if grad.requires_grad \
            else None
        return tuple(grad.shape), grad.requires_grad, again is None or tuple(again.shape)
    assert second_order(tapegrad) == second_order(torch)


@pytest.mark.parametrize("shape", [(0, 4, 2), (3, 0), (0, 2)])
@pytest.mark.parametrize("name", ["pinv", "svdvals", "qr", "matrix_norm-nuc"])
def test_empty_rectangular_matrices_like_torch(name, shape):
    assert_like_torch(EMPTY_CALLS[name], matrix(*shape))


# ---- errors ------------------------------------------------------------------------------------

ERRORS = {
    "vecdot-int": lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=lib.int64),
                                                lib.ones(3, dtype=lib.int64)),
    "vecdot-dtypes": lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=lib.float64), lib.ones(3)),
    "vander-bool": lambda lib: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
    "vander-N": lambda lib: lib.linalg.vander(lib.ones(3), N=1),
    "vander-one": lambda lib: lib.linalg.vander(lib.ones(1)),
    "multi_dot-one": lambda lib: lib.linalg.multi_dot([lib.ones(3)]),
    "multi_dot-none": lambda lib: lib.linalg.multi_dot([]),
    "multi_dot-3d-first": lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2)]),
    "multi_dot-3d-last": lambda lib: lib.linalg.multi_dot([lib.ones(2), lib.ones(2, 2, 2)]),
    "multi_dot-middle": lambda lib: lib.linalg.multi_dot([lib.ones(2), lib.ones(2),
                                                          lib.ones(2)]),
    "multi_dot-dtypes": lambda lib: lib.linalg.multi_dot([lib.ones(2), lib.ones(
        2, 3, dtype=lib.float64)]),
    "multi_dot-shapes": lambda lib: lib.linalg.multi_dot([lib.ones(4, 3), lib.ones(2, 4)]),
    "matrix_power-not-square": lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    "matrix_power-1d": lambda lib: lib.linalg.matrix_power(lib.ones(2), 2),
    "matrix_power-float-n": lambda lib: lib.linalg.matrix_power(lib.ones(2, 2), 2.5),
    "matrix_power-int-negative": lambda lib: lib.linalg.matrix_power(
        lib.ones(2, 2, dtype=lib.int64), -1),
    "matrix_power-singular": lambda lib: lib.linalg.matrix_power(lib.zeros(2, 2), -2),
    "matrix_exp-not-square": lambda lib: lib.linalg.matrix_exp(lib.ones(2, 3)),
    "matrix_exp-int": lambda lib: lib.linalg.matrix_exp(lib.ones(2, 2, dtype=lib.int64)),
    "matrix_exp-1d": lambda lib: lib.linalg.matrix_exp(lib.ones(2)),
    "matrix_rank-1d": lambda lib: lib.linalg.matrix_rank(lib.ones(2)),
    "matrix_rank-int": lambda lib: lib.linalg.matrix_rank(lib.ones(2, 2, dtype=lib.int64)),
    "cond-1d": lambda lib: lib.linalg.cond(lib.ones(2)),
    "cond-order": lambda lib: lib.linalg.cond(lib.ones(2, 2), 3),
    "cond-order-name": lambda lib: lib.linalg.cond(lib.ones(2, 2), "abc"),
    "cond-not-square-1": lambda lib: lib.linalg.cond(lib.ones(2, 3), 1),
    "cond-not-square-float": lambda lib: lib.linalg.cond(lib.ones(2, 3), -1.0),
    "cond-not-square-inf": lambda lib: lib.linalg.cond(lib.ones(2, 3), INF),
    "cond-not-square-fro": lambda lib: lib.linalg.cond(lib.ones(2, 3), "fro"),
    "cond-int": lambda lib: lib.linalg.cond(lib.ones(2, 2, dtype=lib.int64)),
    "tensorinv-ind": lambda lib: lib.linalg.tensorinv(lib.ones(2, 2), ind=0),
    "tensorinv-shape": lambda lib: lib.linalg.tensorinv(lib.ones(2, 3), ind=1),
    "tensorinv-singular": lambda lib: lib.linalg.tensorinv(lib.zeros(2, 2), ind=1),
    "tensorsolve-shape": lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 6), lib.ones(2, 2)),
    "tensorsolve-singular": lambda lib: lib.linalg.tensorsolve(lib.zeros(2, 3, 6),
                                                               lib.ones(2, 3)),
    "lstsq-1d": lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3, 1)),
    "lstsq-0d-B": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(())),
    "lstsq-rows": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(4, 1)),
    "lstsq-dtypes": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(3, 1,
                                                                          dtype=lib.float64)),
    "lstsq-int": lambda lib: lib.linalg.lstsq(lib.ones(3, 3, dtype=lib.int64),
                                              lib.ones(3, 1, dtype=lib.int64)),
    "lstsq-driver": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(3, 1), driver="foo"),
    "lstsq-dims": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(2, 4, 2)),
    "lstsq-batches": lambda lib: lib.linalg.lstsq(lib.ones(2, 3, 3), lib.ones(4, 3, 2)),
    "eig-nan": lambda lib: lib.linalg.eig(lib.full((3, 3), math.nan)),
    "eig-inf": lambda lib: lib.linalg.eig(lib.full((3, 3), INF)),  # torch.eigvals crashes
    "eig-not-square": lambda lib: lib.linalg.eig(lib.ones(2, 3)),
    "eig-1d": lambda lib: lib.linalg.eig(lib.ones(3)),
    "eig-int": lambda lib: lib.linalg.eig(lib.ones(2, 2, dtype=lib.int64)),
    "eigvals-int": lambda lib: lib.linalg.eigvals(lib.ones(2, 2, dtype=lib.int64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_like_torch(name):
    same_error(ERRORS[name])


VANDER_CASES = [((1.0, 2.0, 3.0), {}), ((1.0, 2.0, 3.0), {"N": 4, "increasing": True}),
                ((2, -1), {"N": 3}), ((True, False), {}), ((1 + 1j, 2.0), {}),
                ((0.5,), {"N": 0}), ((0.5, 2.0), {"N": 1}), ((), {})]


@pytest.mark.parametrize("values, options", VANDER_CASES)
def test_torch_vander_matches_torch(values, options):
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        x = lib.tensor(values) if values else lib.tensor([], dtype=lib.float32)
        result = lib.vander(x, **options)
        results.append((result.numpy(), str(result.dtype).split(".")[-1]))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def test_torch_vander_graph_and_errors_match_torch():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        result = lib.vander(x)
        node = result.grad_fn
        names = [node.name()] + [n.name() for n, _ in node.next_functions[0][0].next_functions]
        errors = []
        for call in (lambda: result.sum().backward(),  # torch's own backward refuses
                     lambda: lib.vander(lib.ones(2, 2)), lambda: lib.vander(x, N=-1)):
            with pytest.raises(RuntimeError) as error:
                call()
            errors.append(str(error.value))
        seen.append((names, errors))
    assert seen[0] == seen[1]
