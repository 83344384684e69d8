"""The Householder family (geqrf, householder_product / orgqr, ormqr), linalg.lstsq and LDL on
the device double against the cpu and torch. On the device geqrf is CuPy's 'raw' QR, Q and its
products apply the reflectors with array ops, lstsq is torch's CUDA gels (its only driver
there), and LDL is Bunch-Kaufman in array ops (_bunch_kaufman): each case is one where these
could part from LAPACK's (pivots, 2 x 2 blocks, singular columns, batches, complex, both
precisions)."""
import numpy as np
import pytest

import tapegrad
from compare import error_of
from test_device_double import gpu  # noqa: F401 (a fixture)
from test_device_factorization import DTYPES, RNG, matrices, on_both, with_torch

pytestmark = pytest.mark.usefixtures("gpu")  # every test runs on the double (or a GPU)


def draw(*shape, dtype="float64"):
    values = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * RNG.standard_normal(shape)
    return values.astype(dtype)


def reflectors(*shape, dtype="float64"):
    """geqrf's vectors and scales of a random matrix (NumPy's 'raw' QR: LAPACK's geqrf)."""
    vectors, tau = np.linalg.qr(draw(*shape, dtype=dtype), mode="raw")
    return np.swapaxes(vectors, -1, -2).copy(), tau


def symmetric(*shape, dtype="float64", hermitian=False, zero_diagonal=False):
    """Symmetric (Hermitian) indefinite matrices; a zero diagonal forces 2 x 2 pivot blocks."""
    a = matrices(*shape, dtype=dtype)
    a = a + (a.conj() if hermitian else a).swapaxes(-1, -2)
    if zero_diagonal:
        a[..., np.arange(shape[-1]), np.arange(shape[-1])] = 0
    return a


# ---- Householder ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 5, 2)])
def test_geqrf_is_lapacks(dtype, shape):
    got = on_both(lambda lib, a: tuple(lib.geqrf(a)), matrices(*shape, dtype=dtype),
                  dtype=dtype)
    for want, have in zip(with_torch(lambda lib, a: tuple(lib.geqrf(a)),
                                     matrices(*shape, dtype=dtype)), got):
        assert want.dtype == have.dtype and want.shape == have.shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,count", [((5, 3), 3), ((5, 3), 2), ((2, 4, 4), 4), ((4, 2), 0)])
def test_householder_product_and_its_gradient(dtype, shape, count):
    vectors, tau = reflectors(*shape, dtype=dtype)
    on_both(lambda lib, v, t: lib.linalg.householder_product(v, t), vectors,
            tau[..., :count].copy(), grad=count > 0 and dtype in ("float64", "complex128"),
            dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_every_side_and_transpose(dtype, left, transpose):
    vectors, tau = reflectors(2, 5, 3, dtype=dtype)
    other = matrices(2, 5, 4, dtype=dtype) if left else matrices(2, 4, 5, dtype=dtype)
    on_both(lambda lib, v, t, c: lib.ormqr(v, t, c, left=left, transpose=transpose),
            vectors, tau, other, grad=dtype in ("float64", "complex128"), dtype=dtype)


def test_q_of_geqrf_on_the_device_is_orthogonal_and_rebuilds_the_matrix():
    a = matrices(3, 6, 4)
    device = tapegrad.tensor(a, device="cuda")
    vectors, tau = tapegrad.geqrf(device)
    Q = tapegrad.linalg.householder_product(vectors, tau)
    R = vectors.triu()[..., :4, :]
    assert Q.device == device.device
    np.testing.assert_allclose((Q @ R).cpu().numpy(), a, atol=1e-12)
    np.testing.assert_allclose((Q.mT @ Q).cpu().numpy(), np.broadcast_to(np.eye(4), (3, 4, 4)),
                               atol=1e-12)


# ---- least squares ---------------------------------------------------------------------------

def lstsq_gels(lib, a, b):
    result = lib.linalg.lstsq(a, b, driver="gels")
    return result.solution, result.residuals


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 3), (3, 2)), ((3, 5), (3, 2)),
                                    ((5, 3), (5,)), ((2, 5, 3), (1, 5, 2)),
                                    ((2, 3, 5), (1, 3, 1)), ((2, 1, 3, 5), (2, 4, 3, 2))])
def test_lstsq_on_the_device_is_the_cpus_gels(dtype, shapes):
    """Tall (with residuals), square and wide (the least-norm solution), a vector right-hand
    side, broadcast batches: the cpu's gels, and torch's, with the gradients."""
    a, b = matrices(*shapes[0], dtype=dtype), draw(*shapes[1], dtype=dtype)
    got = on_both(lstsq_gels, a, b, grad=dtype in ("float64", "complex128"), dtype=dtype)
    tolerance = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    for want, have in zip(with_torch(lstsq_gels, a, b), got):
        assert (want.dtype, want.shape) == (have.dtype, have.shape)
        np.testing.assert_allclose(have, want, rtol=tolerance, atol=tolerance)


def test_lstsq_on_cuda_defaults_to_gels_with_no_rank_or_singular_values():
    """torch's CUDA default is gels (the cpu's gelsy), whose rank and singular values are
    empty; residuals come for a tall matrix, as gels reports them."""
    a, b = matrices(5, 3), matrices(5, 2)
    result = tapegrad.linalg.lstsq(tapegrad.tensor(a, device="cuda"),
                                   tapegrad.tensor(b, device="cuda"))
    gels = tapegrad.linalg.lstsq(tapegrad.tensor(a), tapegrad.tensor(b), driver="gels")
    for got, want in zip(result, gels):
        assert got.device.type == "cuda" and (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    assert result.rank.dtype == tapegrad.int64 and result.rank.shape == (0,)
    assert result.singular_values.shape == (0,)
    assert result.singular_values.dtype == tapegrad.float64


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "fictitious"])
def test_lstsq_on_cuda_refuses_other_drivers_in_torchs_words(driver):
    a = tapegrad.tensor(matrices(4, 3), device="cuda")
    b = tapegrad.tensor(matrices(4, 2), device="cuda")
    assert error_of(lambda: tapegrad.linalg.lstsq(a, b, driver=driver)) == (
        "RuntimeError", "torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA")


def test_lstsq_reads_the_driver_in_lower_case_as_torch():
    a, b = matrices(4, 3), matrices(4, 2)
    on_cuda = tapegrad.linalg.lstsq(tapegrad.tensor(a, device="cuda"),
                                    tapegrad.tensor(b, device="cuda"), driver="GELS")
    on_cpu = tapegrad.linalg.lstsq(tapegrad.tensor(a), tapegrad.tensor(b), driver="GelsD")
    np.testing.assert_allclose(on_cuda.solution.cpu().numpy(), on_cpu.solution.numpy(),
                               atol=1e-12)
    assert on_cpu.rank.item() == 3


def test_lstsq_of_a_rank_deficient_matrix_gives_infinities_on_cuda():
    """torch's CPU gels refuses a matrix without full rank; its CUDA gels (no check, cuBLAS's
    trsm) gives infinities and NaN."""
    a, b = matrices(2, 4, 3), matrices(2, 4, 2)
    a[1, :, 1] = 0
    cpu = error_of(lambda: tapegrad.linalg.lstsq(tapegrad.tensor(a), tapegrad.tensor(b),
                                                 driver="gels"))
    assert cpu == ("_LinAlgError", "torch.linalg.lstsq: (Batch element 1): The least squares "
                   "solution could not be computed because the input matrix does not have "
                   "full rank (error code: 2).")
    solution = tapegrad.linalg.lstsq(tapegrad.tensor(a, device="cuda"),
                                     tapegrad.tensor(b, device="cuda")).solution.cpu().numpy()
    assert np.isfinite(solution[0]).all() and not np.isfinite(solution[1]).all()
    torch = pytest.importorskip("torch")
    assert cpu == error_of(lambda: torch.linalg.lstsq(torch.tensor(a), torch.tensor(b),
                                                      driver="gels"))


@pytest.mark.parametrize("shape", [(4, 3), (1, 4, 3), (3, 3, 5)])
def test_lstsq_gels_refuses_a_matrix_without_full_rank_on_the_cpu_in_torchs_words(shape):
    a = matrices(*shape)
    a[..., 1, :] = a[..., :, 1] = 0
    b = matrices(*shape[:-1], 2)
    cpu = error_of(lambda: tapegrad.linalg.lstsq(tapegrad.tensor(a), tapegrad.tensor(b),
                                                 driver="gels"))
    torch = pytest.importorskip("torch")
    assert cpu == error_of(lambda: torch.linalg.lstsq(torch.tensor(a), torch.tensor(b),
                                                      driver="gels"))


@pytest.mark.parametrize("shapes", [((4, 0), (4, 2)), ((0, 3), (0, 2)), ((4, 3), (4, 0)),
                                    ((0, 4, 3), (0, 4, 2))])
def test_lstsq_of_empty_matrices_on_the_device(shapes):
    on_both(lstsq_gels, draw(*shapes[0]), draw(*shapes[1]))


# ---- LDL -------------------------------------------------------------------------------------

LDL_CASES = [  # (dtype, hermitian): a real matrix is Hermitian and symmetric alike
    ("float64", False), ("float32", False), ("complex128", False), ("complex64", False),
    ("float64", True)]


@pytest.mark.parametrize("dtype,hermitian", LDL_CASES)
@pytest.mark.parametrize("shape,zero_diagonal", [((4, 4), False), ((4, 4), True),
                                                 ((3, 6, 6), True), ((2, 2, 5, 5), False),
                                                 ((1, 1), False), ((0, 3, 3), False)])
def test_ldl_factor_ex_gives_lapacks_pivots_and_factor(dtype, hermitian, shape, zero_diagonal):
    a = symmetric(*shape, dtype=dtype, hermitian=hermitian, zero_diagonal=zero_diagonal)
    LD, pivots, info = on_both(lambda lib, a: tuple(lib.linalg.ldl_factor_ex(
        a, hermitian=hermitian)), a, dtype=dtype)
    assert pivots.dtype == info.dtype == np.int32
    if zero_diagonal:
        assert (pivots < 0).any()  # 2 x 2 blocks were taken
    for want, have in zip(with_torch(lambda lib, a: tuple(lib.linalg.ldl_factor_ex(
            a, hermitian=hermitian)), a), (LD, pivots, info)):
        assert want.dtype == have.dtype and want.shape == have.shape
        if want.dtype.kind == "i":
            np.testing.assert_array_equal(have, want)


def test_ldl_factor_of_a_large_batch_with_mixed_pivots():
    """70 x 70: many 1 x 1 and 2 x 2 blocks, different in each matrix of the batch."""
    a = symmetric(3, 70, 70)
    a[1, np.arange(70), np.arange(70)] = 0
    on_both(lambda lib, a: tuple(lib.linalg.ldl_factor_ex(a)), a)


def test_ldl_factor_reads_only_the_lower_triangle():
    a = matrices(5, 5)  # not symmetric: the upper triangle is ignored, as LAPACK's
    on_both(lambda lib, a: tuple(lib.linalg.ldl_factor_ex(a)), a)


def test_complex_hermitian_ldl_is_refused_on_cuda_as_torchs_cusolver_refuses_it():
    a = symmetric(2, 4, 4, dtype="complex128", hermitian=True)
    message = ("torch.linalg.ldl_factor: complex tensors with hermitian=True flag are not "
               "supported with cuSOLVER backend. Currently preferred backend is "
               "at::LinalgBackend::Default, please set 'default' or 'magma' backend with "
               "torch.backends.cuda.preferred_linalg_library")
    for factor in (tapegrad.linalg.ldl_factor, tapegrad.linalg.ldl_factor_ex):
        assert error_of(lambda: factor(tapegrad.tensor(a, device="cuda"), hermitian=True)) == (
            "RuntimeError", message)
    LD, pivots = tapegrad.linalg.ldl_factor(tapegrad.tensor(a), hermitian=True)
    b = tapegrad.tensor(matrices(2, 4, 1, dtype="complex128"), device="cuda")
    assert error_of(lambda: tapegrad.linalg.ldl_solve(LD.cuda(), pivots.cuda(), b,
                                                      hermitian=True)) == (
        "RuntimeError", "torch.linalg.ldl_solve: complex tensors with hermitian=True flag are "
        "not supported on CUDA.")
    # nothing to factor: torch returns before its kernel's check
    empty = tapegrad.zeros(0, 3, 3, dtype=tapegrad.complex128, device="cuda")
    assert tapegrad.linalg.ldl_factor_ex(empty, hermitian=True).LD.shape == (0, 3, 3)


def test_ldl_factor_ex_reports_a_zero_pivot_in_info_and_ldl_factor_raises():
    a = symmetric(3, 4, 4)
    a[1, :, 2] = a[1, 2, :] = 0  # a zero row and column: a zero pivot
    a[2] = 0  # the first column already: info 1
    LD, pivots, info = on_both(lambda lib, a: tuple(lib.linalg.ldl_factor_ex(a)), a)
    assert info[0] == 0 and info[1] > 0 and info[2] == 1
    cpu = error_of(lambda: tapegrad.linalg.ldl_factor(tapegrad.tensor(a)))
    device = error_of(lambda: tapegrad.linalg.ldl_factor(tapegrad.tensor(a, device="cuda")))
    assert device == cpu


@pytest.mark.parametrize("dtype,hermitian", LDL_CASES)
@pytest.mark.parametrize("shapes,zero_diagonal", [(((4, 4), (4, 2)), False),
                                                  (((4, 4), (4, 2)), True),
                                                  (((2, 6, 6), (6, 3)), True),
                                                  (((1, 5, 5), (3, 5, 1)), False)])
def test_ldl_solve_is_lapacks(dtype, hermitian, shapes, zero_diagonal):
    a = symmetric(*shapes[0], dtype=dtype, hermitian=hermitian, zero_diagonal=zero_diagonal)
    b = matrices(*shapes[1], dtype=dtype)

    def solve(lib, a, b):
        LD, pivots = lib.linalg.ldl_factor(a, hermitian=hermitian)
        return lib.linalg.ldl_solve(LD, pivots, b, hermitian=hermitian)

    X = on_both(solve, a, b, dtype=dtype)[0]
    tolerance = 1e-3 if dtype in ("float32", "complex64") else 1e-9
    np.testing.assert_allclose(a @ X, np.broadcast_to(b, X.shape), rtol=tolerance,
                               atol=tolerance)
    if a.shape[:-2] == b.shape[:-2]:  # torch's ldl_solve reads past LD when batches broadcast
        np.testing.assert_allclose(X, with_torch(solve, a, b)[0], rtol=tolerance,
                                   atol=tolerance)
