"""Linear algebra beyond its op_db rows: torch's errors and their texts, return types,
deprecation warnings, singular and non-positive-definite inputs, second derivatives through
det at a singular matrix, and the sign freedom of eigen- and singular vectors."""
import warnings

import numpy as np
import pytest

import tapegrad
from test_ops import assert_raises_like_torch, compare_scenario, labelled_params, leaf_of

pytestmark = [
    pytest.mark.filterwarnings("ignore:torch.(cholesky|qr) is deprecated:UserWarning"),
    pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning"),
]


def M(lib, values, dtype="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def Z(lib, *shape, dtype="float64"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SINGULAR_3 = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
# Rank 2 with a zero row: its LU has an exact zero pivot on every LAPACK, so the determinant is
# exactly 0 in both libraries (SINGULAR_3's comes out as 1e-16 or 0 depending on the kernel).
ZERO_ROW_3 = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
NOT_POSITIVE_DEFINITE = [[1.0, 2.0], [2.0, 1.0]]


def _batch(lib, *matrices):
    return lib.stack([M(lib, m) for m in matrices])


ERRORS = {
    # inverse, determinants, solve
    "inv-singular": lambda lib: lib.linalg.inv(M(lib, SINGULAR)),
    "inv-singular-third-pivot": lambda lib: lib.linalg.inv(M(lib, SINGULAR_3)),
    "inv-singular-batch": lambda lib: lib.linalg.inv(_batch(lib, np.eye(2), SINGULAR)),
    "inverse-singular": lambda lib: lib.inverse(M(lib, SINGULAR)),
    "inv-not-square": lambda lib: lib.linalg.inv(Z(lib, 2, 3)),
    "inv-1d": lambda lib: lib.linalg.inv(Z(lib, 3)),
    "inv-int": lambda lib: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64)),
    "det-not-square": lambda lib: lib.linalg.det(Z(lib, 2, 3)),
    "det-1d": lambda lib: lib.det(Z(lib, 3)),
    "det-int": lambda lib: lib.det(lib.ones(2, 2, dtype=lib.int64)),
    "slogdet-not-square": lambda lib: lib.linalg.slogdet(Z(lib, 2, 3)),
    "slogdet-int": lambda lib: lib.slogdet(lib.ones(2, 2, dtype=lib.int64)),
    "solve-singular": lambda lib: lib.linalg.solve(M(lib, SINGULAR), Z(lib, 2)),
    "solve-singular-batch": lambda lib: lib.linalg.solve(_batch(lib, np.eye(2), SINGULAR),
                                                         Z(lib, 2, 2)),
    "solve-not-square": lambda lib: lib.linalg.solve(Z(lib, 2, 3), Z(lib, 2)),
    "solve-1d-A": lambda lib: lib.linalg.solve(Z(lib, 3), Z(lib, 3)),
    "solve-0d-B": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64), M(lib, 1.0)),
    "solve-shapes": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64), Z(lib, 2)),
    "solve-shapes-matrix": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64),
                                                        Z(lib, 2, 4)),
    "solve-shapes-right": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64), Z(lib, 3),
                                                       left=False),
    "solve-batch-shapes": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64).expand(
        2, 3, 3), Z(lib, 4, 3)),
    "solve-batches": lambda lib: lib.linalg.solve(Z(lib, 3, 2, 2), Z(lib, 4, 2, 2)),
    "solve-dtypes": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.float64),
                                                 Z(lib, 3, dtype="float32")),
    # cholesky
    "cholesky-not-pd": lambda lib: lib.linalg.cholesky(M(lib, NOT_POSITIVE_DEFINITE)),
    "cholesky-not-pd-order-3": lambda lib: lib.linalg.cholesky(
        M(lib, [[1.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 2.0, 1.0]])),
    "cholesky-not-pd-batch": lambda lib: lib.linalg.cholesky(
        _batch(lib, np.eye(2), NOT_POSITIVE_DEFINITE)),
    "cholesky-upper-reads-upper": lambda lib: lib.linalg.cholesky(
        M(lib, [[4.0, 1e3], [2.0, 3.0]]), upper=True),
    "cholesky-not-square": lambda lib: lib.linalg.cholesky(Z(lib, 2, 3)),
    "cholesky-int": lambda lib: lib.linalg.cholesky(lib.ones(2, 2, dtype=lib.int64)),
    "torch.cholesky-not-pd": lambda lib: lib.cholesky(M(lib, NOT_POSITIVE_DEFINITE)),
    # qr, eigh, svd, pinv
    "qr-1d": lambda lib: lib.linalg.qr(Z(lib, 3)),
    "qr-mode": lambda lib: lib.linalg.qr(Z(lib, 3, 3), mode="bad"),
    "qr-int": lambda lib: lib.linalg.qr(lib.ones(3, 3, dtype=lib.int64)),
    "eigh-not-square": lambda lib: lib.linalg.eigh(Z(lib, 2, 3)),
    "eigh-UPLO": lambda lib: lib.linalg.eigh(Z(lib, 2, 2), UPLO="X"),
    "eigh-int": lambda lib: lib.linalg.eigh(lib.ones(2, 2, dtype=lib.int64)),
    "eigvalsh-1d": lambda lib: lib.linalg.eigvalsh(Z(lib, 3)),
    "svd-1d": lambda lib: lib.linalg.svd(Z(lib, 3)),
    "svd-int": lambda lib: lib.linalg.svd(lib.ones(3, 3, dtype=lib.int64)),
    "pinv-1d": lambda lib: lib.linalg.pinv(Z(lib, 3)),
    "pinv-int": lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.int64)),
    # norms
    "norm-int": lambda lib: lib.linalg.norm(lib.ones(3, 3, dtype=lib.int64)),
    "norm-3d-ord": lambda lib: lib.linalg.norm(Z(lib, 2, 3, 3), 2),
    "norm-3d-fro": lambda lib: lib.linalg.norm(Z(lib, 2, 3, 3), "fro"),
    "norm-three-dims": lambda lib: lib.linalg.norm(Z(lib, 2, 3, 3), 2, dim=(0, 1, 2)),
    "norm-three-dims-no-ord": lambda lib: lib.linalg.norm(Z(lib, 2, 3, 3), dim=(0, 1, 2)),
    "norm-fro-one-dim": lambda lib: lib.linalg.norm(Z(lib, 2, 3, 3), "fro", dim=1),
    "norm-nuc-vector": lambda lib: lib.linalg.norm(Z(lib, 3), "nuc"),
    "norm-matrix-ord-0": lambda lib: lib.linalg.norm(Z(lib, 3, 3), 0),
    "norm-vector-two-dims": lambda lib: lib.linalg.norm(Z(lib, 3), 2, dim=(0, 1)),
    "matrix_norm-1d": lambda lib: lib.linalg.matrix_norm(Z(lib, 3)),
    "matrix_norm-ord3": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), 3),
    "matrix_norm-ord3.0": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), 3.0),
    "matrix_norm-ord2.5": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), 2.5),
    "matrix_norm-ord-string": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), "foo"),
    "matrix_norm-one-dim": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), dim=(1,)),
    "matrix_norm-three-dims": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3, 3),
                                                                 dim=(0, 1, 2)),
    "matrix_norm-same-dims": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), dim=(1, -1)),
    "matrix_norm-dim-range": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), dim=(0, 2)),
    "matrix_norm-int": lambda lib: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.int64)),
    "matrix_norm-int-dtype": lambda lib: lib.linalg.matrix_norm(Z(lib, 3, 3), dtype=lib.int64),
    # products
    "outer-2d": lambda lib: lib.outer(Z(lib, 2, 3), Z(lib, 3)),
    "outer-2d-vec2": lambda lib: lib.ger(Z(lib, 3), Z(lib, 2, 3)),
    "outer-0d": lambda lib: lib.outer(M(lib, 1.0), Z(lib, 3)),
    "kron-transposed": lambda lib: lib.kron(Z(lib, 3, 2).t(), Z(lib, 2, 2)),
    "vdot-2d": lambda lib: lib.vdot(Z(lib, 2, 3), Z(lib, 2, 3)),
    "vdot-sizes": lambda lib: lib.vdot(Z(lib, 3), Z(lib, 2)),
    "vdot-dtypes": lambda lib: lib.vdot(Z(lib, 3), Z(lib, 3, dtype="float32")),
    "inner-sizes": lambda lib: lib.inner(Z(lib, 2, 3), Z(lib, 2)),
    "inner-dtypes": lambda lib: lib.inner(Z(lib, 3), Z(lib, 3, dtype="float32")),
    "tensordot-negative": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), -1),
    "tensordot-too-many": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 3), 2),
    "tensordot-lengths": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), ([0, 1], [0])),
    "tensordot-sizes": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), ([1], [0])),
    "tensordot-dtypes": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 3, 2, dtype="float32"),
                                                  1),
    "tensordot-dims-type": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), "a"),
    "tensordot-int-pair": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), (1, 1)),
    "tensordot-dim-range": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3), ([2], [1])),
    "tensordot-repeated": lambda lib: lib.tensordot(Z(lib, 2, 3), Z(lib, 2, 3),
                                                    ([1, 1], [1, 1])),
    "addmm-shapes": lambda lib: lib.addmm(Z(lib, 2), Z(lib, 2, 3), Z(lib, 2, 2)),
    "addmm-input": lambda lib: lib.addmm(Z(lib, 3), Z(lib, 2, 3), Z(lib, 3, 2)),
    "addmm-1d": lambda lib: lib.addmm(Z(lib, 2), Z(lib, 3), Z(lib, 3, 2)),
    "addmm-mat2-1d": lambda lib: lib.addmm(Z(lib, 2), Z(lib, 2, 3), Z(lib, 3)),
    "addmm-dtypes": lambda lib: lib.addmm(Z(lib, 2), Z(lib, 2, 3), Z(lib, 3, 2, dtype="float32")),
    "addmm-input-dtype": lambda lib: lib.addmm(Z(lib, 2, dtype="float32"), Z(lib, 2, 3),
                                               Z(lib, 3, 2)),
    "addmm-mat1-dtype": lambda lib: lib.addmm(Z(lib, 2), Z(lib, 2, 3, dtype="float32"),
                                              Z(lib, 3, 2)),
    "addmm-3d-input": lambda lib: lib.addmm(Z(lib, 2, 2, 2), Z(lib, 2, 3), Z(lib, 3, 2)),
    "addmm-number-input": lambda lib: lib.addmm(2.0, Z(lib, 2, 3), Z(lib, 3, 2)),
    "addmv-shapes": lambda lib: lib.addmv(Z(lib, 3), Z(lib, 2, 3), Z(lib, 3)),
    "addmv-2d-vec": lambda lib: lib.addmv(Z(lib, 2), Z(lib, 2, 3), Z(lib, 2, 3)),
    "addmv-2d-input": lambda lib: lib.addmv(Z(lib, 2, 2), Z(lib, 2, 3), Z(lib, 3)),
    "addmv-vec-size": lambda lib: lib.addmv(Z(lib, 2), Z(lib, 2, 3), Z(lib, 2)),
    "addmv-dtypes": lambda lib: lib.addmv(Z(lib, 2), Z(lib, 2, 3), Z(lib, 3, dtype="float32")),
    "baddbmm-input": lambda lib: lib.baddbmm(Z(lib, 3), Z(lib, 2, 2, 3), Z(lib, 2, 3, 4)),
    "baddbmm-2d": lambda lib: lib.baddbmm(Z(lib, 4), Z(lib, 2, 3), Z(lib, 2, 3, 4)),
    "baddbmm-2d-batch2": lambda lib: lib.baddbmm(Z(lib, 4), Z(lib, 2, 2, 3), Z(lib, 2, 3)),
    "baddbmm-sizes": lambda lib: lib.baddbmm(Z(lib, 4), Z(lib, 2, 2, 3), Z(lib, 2, 2, 4)),
    "baddbmm-batches": lambda lib: lib.baddbmm(Z(lib, 4), Z(lib, 2, 2, 3), Z(lib, 3, 3, 4)),
    "baddbmm-batch2-dtype": lambda lib: lib.baddbmm(Z(lib, 4), Z(lib, 2, 2, 3),
                                                    Z(lib, 2, 3, 4, dtype="float32")),
    "baddbmm-input-dtype": lambda lib: lib.baddbmm(Z(lib, 4, dtype="float32"), Z(lib, 2, 2, 3),
                                                   Z(lib, 2, 3, 4)),
}

EINSUM_ERRORS = {
    "fewer-operands": "ij,jk,kl", "more-operands": "ij", "bad-subscript": "i1,jk",
    "lone-dot": "i.j,jk", "two-ellipses": "...i...,jk", "subscript-count": "ijk,jk",
    "subscript-count-ellipsis": "ijk...,jk", "output-repeated": "ij,jk->ii",
    "output-unknown": "ij,jk->iz", "output-bad-subscript": "ij,jk->i1",
    "output-lone-dot": "ij,jk->i.", "output-two-ellipses": "...j,jk->......",
    "sizes": "ij,ik->jk",
}


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


@pytest.mark.parametrize("equation", labelled_params(EINSUM_ERRORS))
def test_einsum_error_matches_torch(equation):
    assert_raises_like_torch(lambda lib: lib.einsum(equation, Z(lib, 2, 3), Z(lib, 3, 4)))


def test_einsum_argument_errors_match_torch():
    assert_raises_like_torch(lambda lib: lib.einsum("ii->i", Z(lib, 2, 3)))
    assert_raises_like_torch(lambda lib: lib.einsum("...j,...j->...", Z(lib, 2, 3),
                                                    Z(lib, 4, 3)))
    assert_raises_like_torch(lambda lib: lib.einsum("ij"))
    assert_raises_like_torch(lambda lib: lib.einsum("ij,jk->ik", Z(lib, 2, 3, dtype="float32"),
                                                    Z(lib, 3, 4)))
    assert_raises_like_torch(lambda lib: lib.einsum(Z(lib, 2), [60]))


def test_singular_and_factorization_errors_are_linalg_errors():
    with pytest.raises(tapegrad.linalg.LinAlgError) as caught:
        tapegrad.linalg.inv(tapegrad.tensor(SINGULAR))
    assert isinstance(caught.value, RuntimeError)
    assert type(caught.value).__name__ == "_LinAlgError"
    with pytest.raises(tapegrad.linalg.LinAlgError):
        tapegrad.linalg.cholesky(tapegrad.tensor(NOT_POSITIVE_DEFINITE))


# ---- results: values, return types, graphs -------------------------------------------------

RESULTS = {
    "slogdet": lambda lib: lib.linalg.slogdet(M(lib, [[2.0, 1.0], [1.0, -3.0]])),
    "slogdet-singular": lambda lib: lib.slogdet(M(lib, SINGULAR)),
    "slogdet-empty": lambda lib: lib.linalg.slogdet(Z(lib, 0, 0)),
    "det-empty-batch": lambda lib: lib.linalg.det(Z(lib, 2, 0, 0)),
    "det-singular": lambda lib: lib.det(M(lib, SINGULAR_3)),
    "logdet-negative": lambda lib: lib.logdet(-lib.eye(3, dtype=lib.float64)),
    "logdet-singular": lambda lib: M(lib, SINGULAR).logdet(),
    "cholesky-reads-lower": lambda lib: lib.linalg.cholesky(M(lib, [[4.0, 1e3], [2.0, 3.0]])),
    "qr-r": lambda lib: lib.linalg.qr(M(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), mode="r"),
    "qr-empty": lambda lib: lib.linalg.qr(Z(lib, 0, 3)),
    "svd-empty": lambda lib: lib.linalg.svd(Z(lib, 2, 0)),
    "svd-no-uv": lambda lib: lib.svd(M(lib, [[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]]),
                                     compute_uv=False),
    "eigh-empty": lambda lib: lib.linalg.eigh(Z(lib, 0, 0)),
    "eigh-upper": lambda lib: lib.linalg.eigh(M(lib, [[2.0, 100.0], [1.0, 3.0]]), UPLO="U")[0],
    "pinv-rank-deficient": lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.float64)),
    "pinv-hermitian": lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.float64),
                                                  hermitian=True),
    "pinverse-rcond": lambda lib: lib.pinverse(lib.ones(3, 3, dtype=lib.float64), 0.5),
    "matrix_norm-empty-fro": lambda lib: lib.linalg.matrix_norm(Z(lib, 0, 3)),
    "matrix_norm-empty-nuc": lambda lib: lib.linalg.matrix_norm(Z(lib, 0, 3), "nuc"),
    "matrix_norm-dtype": lambda lib: lib.linalg.matrix_norm(lib.ones(3, 3), dtype=lib.float64),
    "norm-vector-ord0": lambda lib: lib.linalg.norm(M(lib, [1.0, 0.0, 2.0]), 0),
    "addmm-beta0-ignores-nan": lambda lib: lib.addmm(lib.full((2, 2), float("nan")),
                                                     lib.ones(2, 3), lib.ones(3, 2), beta=0),
    "einsum-int": lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3, dtype=lib.int64),
                                         lib.ones(3, 4, dtype=lib.int64)),
    "outer-promotes": lambda lib: lib.outer(lib.ones(2, dtype=lib.int64), lib.ones(2)),
    "kron-promotes": lambda lib: lib.kron(Z(lib, 2), lib.ones(2)),
}


@pytest.mark.parametrize("fn", labelled_params(RESULTS))
def test_result_matches_torch(fn):
    def scenario(lib):
        result = fn(lib)
        return {"result": tuple(result) if isinstance(result, tuple) else result,
                "type": type(result).__name__}
    compare_scenario(scenario)


def test_return_types_print_like_torch():
    torch = pytest.importorskip("torch")
    for lib in (tapegrad, torch):
        matrix = M(lib, [[2.0, 1.0], [1.0, 3.0]])
        printed = [repr(result) for result in (
            lib.linalg.slogdet(matrix), lib.slogdet(matrix), lib.linalg.eigh(matrix))]
        if lib is tapegrad:
            ours = printed
    assert ours == printed


def test_deprecated_spellings_warn_like_torch():
    torch = pytest.importorskip("torch")
    messages = {}
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch warns once per process otherwise
    try:
        for lib in (tapegrad, torch):
            matrix = M(lib, [[2.0, 1.0], [1.0, 3.0]])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.cholesky(matrix)
                lib.qr(matrix)
            # torch appends where in its C++ sources the warning was raised
            messages[lib] = [(w.category, str(w.message).split(" (Triggered internally")[0])
                             for w in caught]
    finally:
        torch.set_warn_always(always)
    assert messages[tapegrad] == messages[torch]


# ---- gradients beyond the op_db rows -------------------------------------------------------

def _gradient(output, leaf, create_graph=False):
    """d output.sum() / d leaf, leaving leaf.grad as it was."""
    output.sum().backward(create_graph=create_graph)
    grad, leaf.grad = leaf.grad, None
    return grad


def test_det_gradient_at_a_singular_matrix_matches_torch():
    # torch: zero in first-order backward, the cofactors with create_graph (through the SVD)
    def scenario(lib):
        observed = {}
        for name, values in (("rank-1", SINGULAR), ("rank-2", ZERO_ROW_3)):
            A = leaf_of(lib, values)
            observed[name] = _gradient(lib.linalg.det(A), A)
            first = _gradient(lib.linalg.det(A), A, create_graph=True)
            observed[name + " create_graph"] = first.detach()
            observed[name + " second"] = _gradient((first * first).sum(), A)
        return observed
    compare_scenario(scenario)


def test_slogdet_gradient_at_a_singular_matrix_is_infinite_like_torch():
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (tapegrad, torch):
        A = leaf_of(lib, SINGULAR)
        lib.linalg.slogdet(A).logabsdet.backward()
        grads.append(A.grad.numpy())
    # the signs of the infinities come out of torch's LU solve (see _slogdet_backward)
    np.testing.assert_array_equal(np.abs(grads[0]), np.abs(grads[1]))


def test_second_derivatives_of_inv_solve_and_cholesky_match_torch():
    def scenario(lib):
        observed = {}
        for name, fn in SECOND_ORDER.items():
            A = leaf_of(lib, [[3.0, 1.0, 0.5], [0.2, 2.5, -1.0], [0.4, 0.3, 4.0]])
            out = fn(lib, A)
            weights = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)
            first = _gradient(out * weights, A, create_graph=True)
            observed[name] = _gradient((first * first).sum(), A)
        return observed
    compare_scenario(scenario)


SECOND_ORDER = {
    "inv": lambda lib, A: lib.linalg.inv(A),
    "solve": lambda lib, A: lib.linalg.solve(A, M(lib, [[1.0, -2.0], [0.5, 1.5], [2.0, 0.0]])),
    "solve-right": lambda lib, A: lib.linalg.solve(A, M(lib, [[1.0, -2.0, 0.5]]), left=False),
    "cholesky": lambda lib, A: lib.linalg.cholesky(A @ A.mT),
    "det": lambda lib, A: lib.linalg.det(A),
    "slogdet": lambda lib, A: lib.linalg.slogdet(A)[1],
    "pinv": lambda lib, A: lib.linalg.pinv(A[:, :2]),
    "qr": lambda lib, A: lib.linalg.qr(A).Q ** 2 + lib.linalg.qr(A).R,
    "eigh": lambda lib, A: lib.linalg.eigh(A + A.mT).eigenvectors ** 2,
    "svd": lambda lib, A: lib.linalg.svd(A).S,
}


def test_backward_through_one_output_of_a_multi_output_decomposition():
    def scenario(lib):
        A = leaf_of(lib, [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
        sign, logabsdet = lib.linalg.slogdet(A)
        observed = {}
        sign.sum().backward(retain_graph=True)
        observed["sign only"] = A.grad
        logabsdet.backward()
        observed["logabsdet"] = A.grad
        U, S, Vh = lib.linalg.svd(A)
        A.grad = None
        S.sum().backward()
        observed["S only"] = A.grad
        return observed
    compare_scenario(scenario)


def test_qr_backward_errors_match_torch():
    def backward(mode):
        def fn(lib):
            A = leaf_of(lib, [[1.0, 2.0, 0.0], [3.0, 4.0, 1.0], [5.0, 6.0, 2.0], [0.0, 1.0, 7.0]])
            Q, R = lib.linalg.qr(A, mode=mode)
            R.sum().backward()
        return fn
    assert_raises_like_torch(backward("complete"))
    assert_raises_like_torch(backward("r"))


# ---- sign freedom of eigenvectors and singular vectors --------------------------------------

def _aligned_signs(ours, theirs):
    """Our vectors (columns) flipped to the signs of theirs."""
    signs = np.sign(np.sum(ours * theirs, axis=-2, keepdims=True))
    return ours * signs


def test_eigenvectors_match_torch_up_to_sign():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.uniform(-2.0, 2.0, (4, 5, 5))
    symmetric = x + np.swapaxes(x, -1, -2)
    ours = tapegrad.linalg.eigh(tapegrad.tensor(symmetric))
    theirs = torch.linalg.eigh(torch.tensor(symmetric))
    np.testing.assert_allclose(ours.eigenvalues.numpy(), theirs.eigenvalues.numpy(), rtol=1e-10)
    np.testing.assert_allclose(_aligned_signs(ours.eigenvectors.numpy(),
                                              theirs.eigenvectors.numpy()),
                               theirs.eigenvectors.numpy(), atol=1e-10)


def test_singular_vectors_match_torch_up_to_sign():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    A = rng.uniform(-2.0, 2.0, (3, 5, 4))
    U, S, Vh = tapegrad.linalg.svd(tapegrad.tensor(A), full_matrices=False)
    tU, tS, tVh = torch.linalg.svd(torch.tensor(A), full_matrices=False)
    np.testing.assert_allclose(S.numpy(), tS.numpy(), rtol=1e-10)
    np.testing.assert_allclose(_aligned_signs(U.numpy(), tU.numpy()), tU.numpy(), atol=1e-10)
    np.testing.assert_allclose(_aligned_signs(Vh.mT.numpy(), tVh.mT.numpy()), tVh.mT.numpy(),
                               atol=1e-10)


# ---- the public names ----------------------------------------------------------------------

def test_names_are_exported_where_torch_has_them():
    torch = pytest.importorskip("torch")
    top_level = "addmm addmv baddbmm cholesky det einsum ger inner inverse kron logdet outer " \
                "pinverse qr slogdet svd tensordot vdot".split()
    methods = [name for name in top_level if name not in ("einsum", "tensordot")]
    linalg = ("LinAlgError cholesky det eigh eigvalsh inv matmul matrix_norm norm pinv qr "
              "slogdet solve svd svdvals").split()
    for name in top_level:
        assert hasattr(torch, name) and hasattr(tapegrad, name), name
    for name in methods:
        assert hasattr(torch.Tensor, name) and hasattr(tapegrad.Tensor, name), name
    for name in linalg:
        assert hasattr(torch.linalg, name) and hasattr(tapegrad.linalg, name), name
    assert not hasattr(tapegrad.Tensor, "einsum") and not hasattr(torch.Tensor, "einsum")


@pytest.mark.parametrize("rows", [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                  [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                  [[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]],
                                  [[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_backward_of_a_rank_deficient_matrix_gives_inf_and_nan_as_torch(rows, mode):
    """A zero on R's diagonal: torch's triangular solve divides by it, LU solve refused."""
    if mode == "complete" and len(rows) > len(rows[0]):
        pytest.skip("not differentiable (torch's error, tested elsewhere)")

    def scenario(lib):
        x = leaf_of(lib, rows)
        q, r = lib.linalg.qr(x, mode=mode)
        weights = lib.arange(1.0, r.numel() + 1, dtype=lib.float64).view(r.shape)
        (r * weights).sum().add(q.sum()).backward()
        return {"grad": x.grad}
    compare_scenario(scenario)


def test_bfloat16_products_stay_bfloat16_as_torch():
    """NumPy multiplies ml_dtypes' bfloat16 in float32; the products give bfloat16 back."""
    pytest.importorskip("ml_dtypes")
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tapegrad, torch):
        a = lib.tensor([[1.0, 2.5], [-3.0, 4.0]]).bfloat16()
        v, batch = a[0], a[None]
        products = [a @ a, lib.mm(a, a), lib.mv(a, v), lib.dot(v, v), lib.vdot(v, v),
                    lib.bmm(batch, batch), lib.addmm(a, a, a, beta=0.5, alpha=2.0),
                    lib.addmv(v, a, v), lib.baddbmm(batch, batch, batch),
                    lib.addbmm(a, batch, batch)]
        results.append([(str(p.dtype), p.float().tolist()) for p in products])
    assert results[0] == results[1]
