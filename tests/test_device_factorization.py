"""The LU, triangular, Cholesky, inv_ex and solve_ex kernels (ops/factorization.py) on the
device double against the cpu and torch: pivots, infos, partial factors of failed matrices,
infinities of singular solves, error texts, batches and broadcasting, empty matrices, both
precisions and complex, and gradients. On the device they run SciPy's twin (CuPy's
cupyx.scipy.linalg) and array ops, not SciPy's LAPACK, so each case is one where the two could
part: the op database's samples (test_device_double.py) are the well-conditioned ones."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import error_of, torch_or_skip
from test_device_double import gpu  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("gpu")  # every test runs on the double (or a GPU)
RNG = np.random.default_rng(15)
DTYPES = ("float64", "float32", "complex128", "complex64")


def matrices(*shape, dtype="float64"):
    values = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * RNG.standard_normal(shape)
    if shape[-1] == shape[-2]:
        values = values + 3 * np.eye(shape[-1])
    return values.astype(dtype)


def hermitian(*shape, dtype="float64"):
    a = matrices(*shape, dtype=dtype)
    return (a @ a.conj().swapaxes(-1, -2) + np.eye(shape[-1])).astype(dtype)


def tolerance(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def run(lib, fn, arrays, device=None, grad=False):
    """fn's outputs (and with grad the gradients of sum(output * weight) for its floating
    outputs) for lib tensors of arrays, as NumPy arrays."""
    tensors = [lib.tensor(a, requires_grad=grad) if device is None
               else lib.tensor(a, device=device, requires_grad=grad) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the legacy names' deprecations
        outputs = fn(lib, *tensors)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    values = [o.detach().cpu().numpy() for o in outputs]
    if not grad:
        return values, []
    loss = 0
    for output, value in zip(outputs, values):
        if output.requires_grad:
            weight = np.linspace(0.5, 1.5, value.size).reshape(value.shape).astype(value.dtype)
            loss = loss + (output * lib.tensor(weight, device=output.device)).sum().abs()
    loss.backward()
    return values, [t.grad.cpu().numpy() for t in tensors]


def on_both(fn, *arrays, grad=False, dtype="float64"):
    """fn on cuda:0 gives the cpu's values, dtypes and gradients (NaN where the cpu has NaN);
    the device's outputs stay on the device. Returns the device's values."""
    want, want_grads = run(tapegrad, fn, arrays, grad=grad)
    got, got_grads = run(tapegrad, fn, arrays, "cuda", grad)
    devices = {str(o.device) for o in _outputs(fn, arrays)}
    assert devices == {"cuda:0"}
    for kind, wants, gots in (("output", want, got), ("gradient", want_grads, got_grads)):
        for i, (w, g) in enumerate(zip(wants, gots)):
            assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{kind} {i}"
            np.testing.assert_allclose(g, w, rtol=tolerance(dtype), atol=tolerance(dtype),
                                       equal_nan=True, err_msg=f"{kind} {i}")
    return got


def _outputs(fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        outputs = fn(tapegrad, *(tapegrad.tensor(a, device="cuda") for a in arrays))
    return outputs if isinstance(outputs, tuple) else (outputs,)


def device_error_is_cpus(fn, *arrays):
    """fn raises on cuda:0 what it raises on the cpu, and torch's (type and text)."""
    cpu = error_of(lambda: fn(tapegrad, *(tapegrad.tensor(a) for a in arrays)))
    device = error_of(lambda: fn(tapegrad, *(tapegrad.tensor(a, device="cuda")
                                             for a in arrays)))
    torch = torch_or_skip()
    assert device == cpu == error_of(lambda: fn(torch, *(torch.tensor(a) for a in arrays)))


def with_torch(fn, *arrays):
    """fn's outputs in torch (cpu), as NumPy arrays."""
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        outputs = fn(torch, *(torch.tensor(a) for a in arrays))
    return [o.numpy() for o in (outputs if isinstance(outputs, tuple) else (outputs,))]


def singular_batch(dtype="float64"):
    """Three 4 x 4 matrices: invertible, a zero column (U[2, 2] = 0), rank 1 (info 2)."""
    a = matrices(3, 4, 4, dtype=dtype)
    a[1, :, 2] = 0
    a[2] = np.outer(np.arange(1, 5), np.arange(2, 6)).astype(dtype)
    return a


# ---- LU -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 5), (2, 5, 3)])
def test_lu_factor_ex_pivots_info_and_gradient(dtype, shape):
    got = on_both(lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)), matrices(*shape, dtype=dtype),
                  grad=dtype == "float64", dtype=dtype)
    assert got[1].dtype == got[2].dtype == np.int32 and got[1].min() >= 1


def test_lu_factor_ex_of_singular_matrices_reports_lapacks_info():
    a = singular_batch()
    LU, pivots, info = on_both(lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)), a)
    want = with_torch(lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)), a)
    np.testing.assert_array_equal(info, want[2])
    np.testing.assert_array_equal(pivots, want[1])
    assert info.tolist() == [0, 3, 2]


@pytest.mark.parametrize("batched", [False, True])
def test_lu_factor_of_a_singular_matrix_raises_as_the_cpu(batched):
    a = singular_batch() if batched else singular_batch()[2]
    device_error_is_cpus(lambda lib, a: lib.linalg.lu_factor(a), a)


def test_lu_and_unpack_and_legacy_lu():
    a = matrices(2, 4, 3)
    on_both(lambda lib, a: tuple(lib.linalg.lu(a)), a, grad=True)
    on_both(lambda lib, a: tuple(lib.lu_unpack(*lib.linalg.lu_factor(a))), a, grad=True)
    on_both(lambda lib, a: tuple(lib.lu(a, get_infos=True)), singular_batch())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left, adjoint", [(True, False), (True, True), (False, False),
                                           (False, True)])
def test_lu_solve_broadcast_left_and_adjoint(dtype, left, adjoint):
    a = matrices(2, 1, 3, 3, dtype=dtype)
    b = matrices(4, 3, 2, dtype=dtype) if left else matrices(4, 2, 3, dtype=dtype)

    def solve(lib, a, b):
        LU, pivots = lib.linalg.lu_factor(a)
        return lib.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint)
    x = on_both(solve, a, b, grad=dtype == "float64", dtype=dtype)[0]
    assert x.shape == (2, 4, 3, 2) if left else (2, 4, 2, 3)


def test_legacy_lu_solve():
    on_both(lambda lib, b, a: lib.lu_solve(b, *lib.linalg.lu_factor(a)), matrices(3, 2),
            matrices(3, 3), grad=True)


# ---- inv_ex, solve_ex -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_ex_and_solve_ex_of_a_batch(dtype):
    a, b = matrices(2, 4, 4, dtype=dtype), matrices(2, 4, dtype=dtype)
    grad = dtype == "float64"
    on_both(lambda lib, a: tuple(lib.linalg.inv_ex(a)), a, grad=grad, dtype=dtype)
    on_both(lambda lib, a, b: tuple(lib.linalg.solve_ex(a, b)), a, b, grad=grad, dtype=dtype)
    on_both(lambda lib, a, b: tuple(lib.linalg.solve_ex(a, b, left=False)), a,
            matrices(3, 4, dtype=dtype), grad=grad, dtype=dtype)
    # the transposed LU of a row-major real matrix, as torch's: a transposed view is not one
    on_both(lambda lib, a: tuple(lib.linalg.inv_ex(a.mT)), a, grad=grad, dtype=dtype)


def singular_for_solves():
    """An invertible matrix and one with a zero last column (info 4)."""
    a = matrices(2, 4, 4)
    a[1, :, 3] = 0
    return a


def test_inv_ex_of_singular_matrices_gives_infinities_and_info():
    a = singular_for_solves()
    inverse, info = on_both(lambda lib, a: tuple(lib.linalg.inv_ex(a)), a)
    want = with_torch(lambda lib, a: tuple(lib.linalg.inv_ex(a)), a)
    assert info.tolist() == want[1].tolist() == [0, 4]
    assert not np.isfinite(inverse[1]).all() and np.isfinite(inverse[0]).all()
    x, info = on_both(lambda lib, a, b: tuple(lib.linalg.solve_ex(a, b)), a, matrices(2, 4, 1))
    assert info.tolist() == [0, 4]
    # info is that of A's LU, as torch's (lu_factor_ex's)
    assert on_both(lambda lib, a: lib.linalg.inv_ex(a).info, singular_batch())[0].tolist() == [
        0, 3, 2]


@pytest.mark.parametrize("batched", [False, True])
def test_inv_and_solve_of_singular_matrices_raise_as_the_cpu(batched):
    a = singular_for_solves() if batched else singular_for_solves()[1]
    device_error_is_cpus(lambda lib, a: lib.linalg.inv_ex(a, check_errors=True), a)
    device_error_is_cpus(lambda lib, a: lib.linalg.inv(a), a)
    device_error_is_cpus(lambda lib, a, b: lib.linalg.solve(a, b), a, matrices(4, 2))


# ---- triangular solves ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_broadcast(dtype, upper, left, unitriangular):
    a = matrices(2, 1, 3, 3, dtype=dtype)
    b = matrices(4, 3, 2, dtype=dtype) if left else matrices(4, 2, 3, dtype=dtype)
    on_both(lambda lib, a, b: lib.linalg.solve_triangular(
        a, b, upper=upper, left=left, unitriangular=unitriangular), a, b,
        grad=dtype == "float64", dtype=dtype)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_with_a_zero_pivot_gives_torchs_infinities(upper, left):
    # SciPy's solve_triangular raises here, cuBLAS's trsm and torch give inf and NaN
    a = matrices(2, 4, 4)
    a[0, 1, 1] = 0
    b = matrices(2, 4, 3) if left else matrices(2, 3, 4)
    b[0, ..., 2] = 0  # 0 / 0 as well as x / 0

    def solve(lib, a, b):
        return lib.linalg.solve_triangular(a, b, upper=upper, left=left)
    x = on_both(solve, a, b)[0]
    np.testing.assert_array_equal(np.isnan(x), np.isnan(with_torch(solve, a, b)[0]))
    assert np.isinf(x).any() and np.isfinite(x[1]).all()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("upper", [True, False])
def test_triangular_solve(transpose, upper):
    a, b = matrices(2, 3, 3), matrices(3, 2)
    on_both(lambda lib, b, a: tuple(lib.triangular_solve(b, a, upper, transpose)), b, a,
            grad=True)
    a[1, 2, 2] = 0
    x = on_both(lambda lib, b, a: tuple(lib.triangular_solve(b, a, upper, transpose)), b, a)[0]
    assert not np.isfinite(x[1]).all()


# ---- Cholesky -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_of_a_batch(dtype, upper):
    a = hermitian(2, 3, 4, 4, dtype=dtype)
    on_both(lambda lib, a: tuple(lib.linalg.cholesky_ex(a, upper=upper)), a,
            grad=dtype == "float64", dtype=dtype)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_keeps_lapacks_info_and_partial_factor(dtype, upper):
    # NumPy's cholesky raises and CuPy's gives garbage for these; torch gives LAPACK's
    # unblocked partial factor (up to 32 x 32: OpenBLAS blocks larger ones)
    a = hermitian(4, 8, 8, dtype=dtype)
    a[1, 5:, 5:] -= 100 * np.eye(3, dtype=dtype)  # fails at the 6th pivot
    a[2, 0, 0] = -1  # at the first
    a[3, 4:, 4:] -= 100 * np.eye(4, dtype=dtype)  # at the 5th
    fn = lambda lib, a: tuple(lib.linalg.cholesky_ex(a, upper=upper))  # noqa: E731
    factor, info = on_both(fn, a, dtype=dtype)
    want = with_torch(fn, a)
    assert info.tolist() == want[1].tolist() == [0, 6, 1, 5]
    np.testing.assert_allclose(factor, want[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_of_a_nan_pivot_fails_as_torchs(upper):
    # LAPACK's potrf stops at a NaN pivot (torch's info 4); SciPy's OpenBLAS potrf goes on
    # (the cpu's info 0), the device stops as torch
    a = hermitian(2, 6, 6)
    a[1, 3, 3] = np.nan
    fn = lambda lib, a: tuple(lib.linalg.cholesky_ex(a, upper=upper))  # noqa: E731
    got = run(tapegrad, fn, [a], "cuda")[0]
    want = with_torch(fn, a)
    assert got[1].tolist() == want[1].tolist() == [0, 4]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12, equal_nan=True)


def test_cholesky_ex_info_of_a_large_matrix():
    a = hermitian(2, 100, 100)
    a[1, 70:, 70:] -= 1000 * np.eye(30)
    got = run(tapegrad, lambda lib, a: lib.linalg.cholesky_ex(a).info, [a], "cuda")[0][0]
    assert got.tolist() == [0, 71]


@pytest.mark.parametrize("batched", [False, True])
def test_cholesky_of_a_matrix_not_positive_definite_raises_as_the_cpu(batched):
    a = hermitian(2, 3, 3)
    a[1, 2, 2] = -10
    a = a if batched else a[1]
    device_error_is_cpus(lambda lib, a: lib.linalg.cholesky_ex(a, check_errors=True), a)
    device_error_is_cpus(lambda lib, a: lib.linalg.cholesky(a), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_broadcast(dtype, upper):
    a = hermitian(2, 1, 3, 3, dtype=dtype)

    def solve(lib, b, a):
        return lib.cholesky_solve(b, lib.linalg.cholesky(a, upper=upper), upper)
    on_both(solve, matrices(4, 3, 2, dtype=dtype), a, grad=dtype == "float64", dtype=dtype)


def test_cholesky_solve_with_a_zero_pivot_gives_infinities():
    factor = np.tril(matrices(3, 3))
    factor[1, 1] = 0
    x = on_both(lambda lib, b, f: lib.cholesky_solve(b, f), matrices(3, 2), factor)[0]
    assert not np.isfinite(x).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(dtype, upper):
    factor = np.linalg.cholesky(hermitian(2, 4, 4, dtype=dtype))
    factor = factor.conj().swapaxes(-1, -2) if upper else factor
    inverse = on_both(lambda lib, f: lib.cholesky_inverse(f, upper), factor,
                      grad=dtype == "float64", dtype=dtype)[0]
    np.testing.assert_allclose(inverse, np.linalg.inv(hermitian_of(factor, upper)),
                               rtol=tolerance(dtype), atol=tolerance(dtype))


def hermitian_of(factor, upper):
    return factor.conj().swapaxes(-1, -2) @ factor if upper else factor @ factor.conj().swapaxes(
        -1, -2)


@pytest.mark.parametrize("batched", [False, True])
def test_cholesky_inverse_of_a_singular_factor_raises_as_the_cpu(batched):
    factor = np.tril(matrices(2, 3, 3))
    factor[1, 2, 2] = 0
    factor = factor if batched else factor[1]
    device_error_is_cpus(lambda lib, f: lib.cholesky_inverse(f), factor)


# ---- empty matrices -------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0)])
def test_empty_matrices(shape):
    a, spd = np.zeros(shape), np.broadcast_to(np.eye(shape[-1]), shape).copy()
    b = np.zeros(shape[:-1] + (2,))
    on_both(lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)), a, grad=True)
    on_both(lambda lib, a: tuple(lib.linalg.lu(a)), a, grad=True)
    on_both(lambda lib, a: tuple(lib.linalg.inv_ex(a)), spd, grad=True)
    on_both(lambda lib, a, b: tuple(lib.linalg.solve_ex(a, b)), spd, b, grad=True)
    on_both(lambda lib, a: tuple(lib.linalg.cholesky_ex(a)), spd, grad=True)
    on_both(lambda lib, b, a: lib.cholesky_solve(b, a), b, spd, grad=True)
    on_both(lambda lib, a: lib.cholesky_inverse(a), spd, grad=True)
    on_both(lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True), spd, b, grad=True)


def test_no_right_hand_sides():
    a = matrices(2, 3, 3)
    on_both(lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False), a,
            np.zeros((2, 3, 0)), grad=True)
    on_both(lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b), a,
            np.zeros((2, 3, 0)), grad=True)
