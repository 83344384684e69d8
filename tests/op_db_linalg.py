"""op_db rows of the linear algebra family: products (outer, kron, einsum, tensordot, vdot,
inner, addmm, addmv, baddbmm; tapegrad/ops/linalg.py) and matrix functions and decompositions
(inv, det, slogdet, solve, cholesky, qr, eigh, svd, pinv, matrix norms; decomposition.py).

Decompositions are checked through functions of their outputs that do not depend on LAPACK's
free choices: eigenvectors and singular vectors are determined up to sign only (NumPy's
OpenBLAS and torch's MKL pick different signs), so rows use V * V, U @ Vh and the like, and
cholesky and eigh get symmetric inputs built inside the row (they read one triangle only)."""
import warnings

import numpy as np

from op_db import DISTINCT, STEP, K, OpRow, S, T, bug, each

INF = float("inf")

# ---- domains -------------------------------------------------------------------------------


def _square_well_conditioned(rng, shape):
    """Square matrices with a dominant diagonal (invertible, not close to singular); other
    inputs (vectors, right-hand sides) are plain uniform draws."""
    values = rng.uniform(-1.0, 1.0, shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        values = values + 3.0 * np.eye(shape[-1])
    return values


def _full_rank(rng, shape):
    """Matrices whose singular values are well apart (distinct, away from 0): orthogonal
    factors around a diagonal of 1, 2, 3, ...; vectors are uniform draws."""
    if len(shape) < 2:
        return rng.uniform(-2.0, 2.0, shape)
    m, n = shape[-2:]
    k = min(m, n)
    left = np.linalg.qr(rng.normal(size=shape[:-2] + (m, m)))[0][..., :k]
    right = np.linalg.qr(rng.normal(size=shape[:-2] + (n, n)))[0][..., :k, :]
    return (left * (1.0 + np.arange(k))) @ right


INVERTIBLE = each(_square_well_conditioned)
FULL_RANK = each(_full_rank)


def _symmetric(lib, x):
    return x + x.transpose(-2, -1)


def _deprecated(fn):
    """A row calling torch.cholesky or torch.qr, whose deprecation warning (both libraries
    give it; test_linalg compares them) is silenced here."""
    def quiet(lib, *args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "torch.(cholesky|qr) is deprecated", UserWarning)
            return fn(lib, *args, **kwargs)
    return quiet


def _positive_definite(lib, x):
    n = x.shape[-1]
    return x @ x.transpose(-2, -1) + n * lib.eye(n, dtype=x.dtype)


# ---- known differences ---------------------------------------------------------------------

# Not tapegrad bugs: torch's own gradient differs from finite differences there, and ours is
# torch's; these samples are compared with torch only.
ONE_TRIANGLE = {check: "not a bug: the result reads one triangle of A, and torch's gradient is "
                "the symmetric one (it assumes A symmetric)" for check in ("gradcheck", "gradgrad")}
CUT_OFF = {check: "not a bug: torch's pinv_backward differentiates A's pseudoinverse as if no "
           "singular value were cut off by atol/rtol" for check in ("gradcheck", "gradgrad")}
VECTOR_NORM_DTYPE_BUG = bug("vector_norm(dtype=) records ToCopyBackward0 before "
                            "LinalgVectorNormBackward0 (reduction.vector_norm); torch converts "
                            "inside the node", ("float32",))


# ---- products ------------------------------------------------------------------------------

def _einsum_row(name, equation, samples, **options):
    return OpRow(name, lambda lib, *operands: lib.einsum(equation, *operands), samples,
                 ops=("einsum",), **options)


PRODUCT_ROWS = (
    OpRow("outer", lambda lib, a, b: lib.outer(a, b), (
        S((3,), (4,)), S((0,), (2,)),
        STEP((3,), (2,))), ops=("outer",)),
    OpRow("ger_method", lambda lib, a, b: a.ger(b) + a.outer(b), (S((3,), (2,)),),
          ops=("ger", "outer")),
    OpRow("kron", lambda lib, a, b: lib.kron(a, b), (
        S((2, 2), (3, 2)), S((3,), (2,)), S((), (2, 3)), S((2, 1, 2), (2, 3)), S((2, 3), (2,)),
        S((0, 2), (2, 2)), STEP((2, 2), (2, 2))), ops=("kron",)),
    OpRow("kron_method", lambda lib, a, b: a.kron(b), (S((2,), (2, 2)),), ops=("kron",)),
    _einsum_row("einsum_mm", "ij,jk->ik", (
        S((2, 3), (3, 4)), S((0, 3), (3, 2)), S((2, 0), (0, 3)),
        S((2, 3), (3, 4), layouts=("t", None), label="t"))),
    _einsum_row("einsum_implicit", "ij,kj", (S((2, 3), (4, 3)),)),
    _einsum_row("einsum_transpose", "ij->ji", (S((2, 3)),)),
    _einsum_row("einsum_diagonal", "ii->i", (S((3, 3)), S((0, 0)))),
    _einsum_row("einsum_trace", "ii", (S((3, 3)),)),
    _einsum_row("einsum_repeated_in_3d", "iji->j", (S((2, 3, 2)),)),
    _einsum_row("einsum_dot", "i,i->", (S((3,), (3,)), STEP((3,), (3,)))),
    _einsum_row("einsum_outer", "i,j->ij", (S((3,), (4,)),)),
    _einsum_row("einsum_batch", "bij,bjk->bik", (S((2, 2, 3), (2, 3, 4)),)),
    _einsum_row("einsum_elementwise", "ij,ij->ij", (S((2, 3), (2, 3)),)),
    _einsum_row("einsum_sum", "ij->", (S((2, 3)),)),
    _einsum_row("einsum_sum_dim", "ij->j", (S((2, 3)),)),
    _einsum_row("einsum_ellipsis", "...ij,...jk->...ik", (S((2, 2, 3), (3, 4)),
                                                         S((2, 3), (3, 2)))),
    _einsum_row("einsum_ellipsis_broadcast", "i...,i...->...", (S((3, 2), (3, 1)),)),
    _einsum_row("einsum_three", "ij,jk,kl->il", (S((2, 3), (3, 4), (4, 2)),)),
    _einsum_row("einsum_bilinear", "bn,anm,bm->ba", (S((2, 3), (4, 3, 5), (2, 5)),)),
    _einsum_row("einsum_broadcast_dims", "ab,cd->abcd", (S((2, 1), (1, 3)),)),
    _einsum_row("einsum_contract_broadcast", "ij,kj->", (S((1, 3), (2, 3)),)),
    _einsum_row("einsum_0d", ",->", (S((), ()),)),
    _einsum_row("einsum_scale", "ij,->ij", (S((2, 3), ()),)),
    _einsum_row("einsum_upper_case", "Ab,bA->A", (S((2, 3), (3, 2)),)),
    OpRow("einsum_operand_list", lambda lib, a, b: lib.einsum("ij,jk", [a, b]),
          (S((2, 3), (3, 2)),), ops=("einsum",)),
    OpRow("einsum_sublists", lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]),
          (S((2, 3), (3, 2)),), ops=("einsum",)),
    OpRow("tensordot", lambda lib, a, b, dims: lib.tensordot(a, b, dims=dims), (
        S((2, 3, 4), (3, 4, 2), constants={"dims": 2}, label="dims2"),
        S((2, 3), (3, 4), constants={"dims": 1}, label="dims1"),
        S((3,), (3,), constants={"dims": 1}, label="vectors"),
        S((2, 3), (2, 3), constants={"dims": 2}, label="full"),
        S((2, 3), (3, 2), constants={"dims": ([0, 1], [1, 0])}, label="full-permuted"),
        S((2,), (3,), constants={"dims": 0}, label="outer"),
        S((2, 3, 4), (4, 3), constants={"dims": ([-1, 1], [0, -1])}, label="lists"),
        S((1, 3), (2, 3), constants={"dims": ([0, 1], [0, 1])}, label="broadcast-dim"),
        S((0, 3), (3, 2), constants={"dims": 1}, label="empty"),
        S((2, 3), (3, 4), constants={"dims": 1}, layouts=("t", None), label="t"),
    ), ops=("tensordot",)),
    OpRow("tensordot_default", lambda lib, a, b: lib.tensordot(a, b), (S((2, 3, 4), (3, 4)),),
          ops=("tensordot",)),
    OpRow("vdot", lambda lib, a, b: lib.vdot(a, b) + a.vdot(b), (
        S((3,), (3,)), S((0,), (0,)), STEP((3,), (3,))), ops=("vdot",)),
    OpRow("inner", lambda lib, a, b: lib.inner(a, b), (
        S((3,), (3,)), S((2, 3), (4, 3)), S((), (2, 3)), S((2, 3), ()), S((2, 2, 3), (3,)),
        S((2, 3), (3,), layouts=("t", None), label="t")), ops=("inner",)),
    OpRow("inner_method", lambda lib, a, b: a.inner(b), (S((2, 3), (3,)),), ops=("inner",)),
    OpRow("addmm", lambda lib, i, a, b, **scales: lib.addmm(i, a, b, **scales), (
        S((2, 4), (2, 3), (3, 4)),
        S((4,), (2, 3), (3, 4), constants={"beta": 0.5, "alpha": -2}, label="broadcast-scaled"),
        S((), (2, 3), (3, 4), label="0d-input"),
        S((2, 4), (2, 3), (3, 4), constants={"beta": 0}, label="beta0"),
        S((2, 4), (2, 3), (3, 4), layouts=("t", "t"), label="t"),
        S((2, 4), (2, 3), (3, 4), requires_grad=(False, True, False), label="mat1-only"),
    ), ops=("addmm",)),
    OpRow("addmm_method", lambda lib, i, a, b: i.addmm(a, b, alpha=3), (S((1, 1), (2, 3),
                                                                          (3, 4)),),
          ops=("addmm",)),
    OpRow("addmv", lambda lib, i, a, b, **scales: lib.addmv(i, a, b, **scales), (
        S((2,), (2, 3), (3,)),
        S((), (2, 3), (3,), constants={"beta": 2, "alpha": 0.5}, label="0d-scaled"),
        S((1,), (2, 3), (3,), constants={"beta": 0}, label="beta0"),
        S((2,), (2, 3), (3,), layouts=(None, "t", None), label="t-mat"),
    ), ops=("addmv",)),
    OpRow("addmv_method", lambda lib, i, a, b: i.addmv(a, b), (S((2,), (2, 3), (3,)),),
          ops=("addmv",)),
    OpRow("baddbmm", lambda lib, i, a, b, **scales: lib.baddbmm(i, a, b, **scales), (
        S((2, 2, 4), (2, 2, 3), (2, 3, 4)),
        S((4,), (2, 2, 3), (2, 3, 4), constants={"beta": -1, "alpha": 3},
          label="broadcast-scaled"),
        S((2, 1, 4), (2, 2, 3), (2, 3, 4), constants={"beta": 0}, label="beta0"),
        S((0, 2, 2), (0, 2, 3), (0, 3, 2), label="empty"),
    ), ops=("baddbmm",)),
    OpRow("baddbmm_method", lambda lib, i, a, b: i.baddbmm(a, b), (S((2, 2, 2), (2, 2, 3),
                                                                     (2, 3, 2)),),
          ops=("baddbmm",)),
)


# ---- matrix functions and decompositions ---------------------------------------------------

SQUARE = (S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)), T((3, 3)))


def _svd_row(name, fn, samples=(S((4, 3)), S((3, 3)), S((3, 4)), S((2, 4, 3), label="batch"),
                                 T((3, 4))), ops=("svd",), **options):
    return OpRow(name, fn, samples, FULL_RANK, ops=ops, **options)


def _qr_row(name, fn):
    return OpRow(name, fn, (S((4, 3)), S((3, 3)), S((3, 5)), S((2, 4, 3), label="batch"),
                            S((2, 2, 4), label="batch-wide"), T((3, 4))), FULL_RANK, ops=("qr",))


MATRIX_NORM_SAMPLES = (
    S((4, 3)), S((2, 3, 3), label="batch"), T((3, 4)),
    S((4, 2, 3), constants={"dim": (2, 0), "keepdim": True}, label="dims-keepdim"),
    S((4, 2, 3), constants={"dim": (-1, 0)}, label="dims"))


DECOMPOSITION_ROWS = (
    OpRow("linalg_inv", lambda lib, a: lib.linalg.inv(a),
          SQUARE + (S((0, 0), label="empty"),), INVERTIBLE, ops=("inv",)),
    OpRow("inverse", lambda lib, a: lib.inverse(a) + a.inverse(), SQUARE[:2], INVERTIBLE,
          ops=("inverse",)),
    OpRow("det", lambda lib, a: lib.linalg.det(a) + lib.det(a) + a.det(),
          SQUARE + (S((0, 0), label="empty"),), INVERTIBLE, ops=("det",)),
    OpRow("det_any", lambda lib, a: lib.det(a), (S((3, 3)), S((2, 2))), ops=("det",)),
    OpRow("det_singular", lambda lib, a: lib.det(a), (
        K([[1.0, 2.0], [2.0, 4.0]], label="rank-1"),
        # a zero row: det exactly 0 on every LAPACK (see ZERO_ROW_3 in test_linalg.py)
        K([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]], label="rank-2"),
        K([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]], label="batch-one-singular"),
        S((2, 2))), ops=("det",)),
    OpRow("slogdet_logabsdet", lambda lib, a: lib.linalg.slogdet(a).logabsdet, SQUARE,
          INVERTIBLE, ops=("slogdet",)),
    OpRow("slogdet_sign", lambda lib, a: lib.slogdet(a)[0] * a.slogdet().sign, SQUARE[:2],
          INVERTIBLE, ops=("slogdet",)),
    OpRow("slogdet", lambda lib, a: lib.slogdet(a)[1], (S((3, 3)), S((2, 2))), ops=("slogdet",)),
    OpRow("logdet", lambda lib, a: lib.logdet(a) + a.logdet(), SQUARE[:2], INVERTIBLE,
          ops=("logdet",)),
    OpRow("solve", lambda lib, a, b, **options: lib.linalg.solve(a, b, **options), (
        S((3, 3), (3,), label="vector"),
        S((3, 3), (3, 2), label="matrix"),
        S((2, 3, 3), (2, 3), label="batch-of-vectors"),
        S((2, 3, 3), (3,), label="one-vector"),
        S((2, 3, 3), (4, 1, 3, 2), label="broadcast-batches"),
        S((3, 3), (2, 3), constants={"left": False}, label="right"),
        S((3, 3), (3, 2), layouts=("t", None), label="t"),
        S((3, 3), (3,), requires_grad=(False, True), label="b-only"),
        S((3, 3), (3, 2), requires_grad=(True, False), label="a-only"),
        S((0, 0), (0,), label="empty"),
    ), INVERTIBLE, ops=("solve",)),
    OpRow("linalg_cholesky", lambda lib, a, **options: lib.linalg.cholesky(
        _positive_definite(lib, a), **options), (
        S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)),
        S((3, 3), constants={"upper": True}, label="upper"),
        S((0, 0), label="empty")), ops=("cholesky",)),
    OpRow("linalg_cholesky_one_triangle", lambda lib, a, **options: lib.linalg.cholesky(
        a, **options), (
        S((3, 3), label="lower"), S((3, 3), constants={"upper": True}, label="upper")),
        INVERTIBLE, ops=("cholesky",), bugs=ONE_TRIANGLE),
    OpRow("cholesky", _deprecated(lambda lib, a, **options: lib.cholesky(
        _positive_definite(lib, a), **options)), (
        S((3, 3)), S((3, 3), constants={"upper": True}, label="upper")), ops=("cholesky",)),
    OpRow("cholesky_method", _deprecated(lambda lib, a: _positive_definite(lib, a).cholesky()),
          (S((2, 2)),), ops=("cholesky",)),
    _qr_row("linalg_qr_Q", lambda lib, a: lib.linalg.qr(a).Q),
    _qr_row("linalg_qr_R", lambda lib, a: lib.linalg.qr(a)[1]),
    _qr_row("linalg_qr_both", lambda lib, a: lib.linalg.qr(a).Q.sum(-1, keepdim=True)
            * lib.linalg.qr(a).R.sum(-2, keepdim=True)),
    OpRow("linalg_qr_complete", lambda lib, a: lib.linalg.qr(a, mode="complete").Q,
          (S((3, 3)), S((3, 4))), FULL_RANK, ops=("qr",)),
    OpRow("qr", _deprecated(lambda lib, a, **options: lib.qr(a, **options)[1]), (
        S((4, 3)), S((3, 3), constants={"some": False}, label="not-some")), FULL_RANK,
        ops=("qr",)),
    OpRow("qr_method", _deprecated(lambda lib, a: a.qr().Q), (S((3, 2)),), FULL_RANK,
          ops=("qr",)),
    OpRow("eigh_eigenvalues", lambda lib, a, **options: lib.linalg.eigh(
        _symmetric(lib, a), **options).eigenvalues, (
        S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)), T((3, 3)),
        S((3, 3), constants={"UPLO": "U"}, label="upper"), S((0, 0), label="empty")),
        DISTINCT, ops=("eigh",)),
    OpRow("eigh_eigenvectors", lambda lib, a: lib.linalg.eigh(_symmetric(lib, a))[1] ** 2, (
        S((3, 3)), S((2, 3, 3), label="batch"), S((4, 4))), DISTINCT, ops=("eigh",)),
    OpRow("eigh_one_triangle", lambda lib, a, **options: lib.linalg.eigh(a, **options)[0], (
        S((3, 3), label="lower"), S((3, 3), constants={"UPLO": "U"}, label="upper")),
        DISTINCT, ops=("eigh",), bugs=ONE_TRIANGLE),
    OpRow("eigvalsh", lambda lib, a: lib.linalg.eigvalsh(_symmetric(lib, a)),
          (S((3, 3)), S((2, 2, 2), label="batch")), DISTINCT, ops=("eigvalsh",)),
    _svd_row("svd_S", lambda lib, a: lib.linalg.svd(a).S),
    _svd_row("svd_U", lambda lib, a: lib.linalg.svd(a, full_matrices=False).U ** 2),
    _svd_row("svd_Vh", lambda lib, a: lib.linalg.svd(a, full_matrices=False)[2] ** 2),
    _svd_row("svd_U_Vh", lambda lib, a: _product_of_singular_vectors(
        lib.linalg.svd(a, full_matrices=False))),
    _svd_row("svd_full_matrices", lambda lib, a: _product_of_singular_vectors(
        lib.linalg.svd(a))),
    _svd_row("svdvals", lambda lib, a: lib.linalg.svdvals(a), ops=("svdvals",)),
    _svd_row("svd_legacy", lambda lib, a: lib.svd(a).V ** 2 * lib.svd(a)[1].unsqueeze(-2),
             ops=("svd",)),
    _svd_row("svd_legacy_method", lambda lib, a, **options: a.svd(**options)[1],
             (S((3, 2)), S((2, 3), constants={"compute_uv": False}, label="no-uv"),
              S((3, 2), constants={"some": False}, label="not-some")), ops=("svd",)),
    _svd_row("linalg_pinv", lambda lib, a: lib.linalg.pinv(a), (
        S((4, 3)), S((3, 3)), S((3, 4)), S((2, 4, 3), label="batch"), T((3, 4)),
        S((0, 3), label="empty")), ops=("pinv",)),
    OpRow("linalg_pinv_options", lambda lib, a, **options: lib.linalg.pinv(a, **options), (
        S((3, 4), constants={"atol": 1.5}, label="atol-drops-one"),
        S((3, 4), constants={"rtol": 0.4}, label="rtol-drops-one")), FULL_RANK,
        ops=("pinv",), bugs=CUT_OFF),
    OpRow("linalg_pinv_hermitian", lambda lib, a: lib.linalg.pinv(_symmetric(lib, a),
                                                                  hermitian=True),
          (S((3, 3)),), DISTINCT, ops=("pinv",)),
    _svd_row("pinverse", lambda lib, a: lib.pinverse(a) + a.pinverse(), (S((4, 3)),),
             ops=("pinverse",)),
)


def _product_of_singular_vectors(usv):
    """U[:, :k] @ Vh[:k]: the same whatever signs LAPACK gives the singular vectors."""
    U, S, Vh = usv
    k = S.shape[-1]
    # Slice only what full_matrices added: a slice over a whole dim is torch's AliasBackward0
    U = U if U.shape[-1] == k else U[..., :k]
    return U @ (Vh if Vh.shape[-2] == k else Vh[..., :k, :])


def _norm_row(name, ord, smooth, samples=None, **options):
    return OpRow(name, lambda lib, a, **kwargs: lib.linalg.matrix_norm(a, ord, **kwargs),
                 samples or MATRIX_NORM_SAMPLES, FULL_RANK if smooth else DISTINCT,
                 smooth=smooth, ops=("matrix_norm",), **options)


NORM_ROWS = (
    _norm_row("matrix_norm_fro", "fro", True, MATRIX_NORM_SAMPLES + (
        S((0, 3), label="empty"),)),
    _norm_row("matrix_norm_nuc", "nuc", True),
    _norm_row("matrix_norm_2", 2, True),
    _norm_row("matrix_norm_-2", -2, True),
    _norm_row("matrix_norm_1", 1, False),
    _norm_row("matrix_norm_-1", -1, False),
    _norm_row("matrix_norm_inf", INF, False),
    _norm_row("matrix_norm_-inf", -INF, False),
    OpRow("matrix_norm_dtype", lambda lib, a, ord: lib.linalg.matrix_norm(
        a, ord, dtype=lib.float64), (
        S((2, 3), constants={"ord": "fro"}, label="fro", bugs=VECTOR_NORM_DTYPE_BUG),
        S((2, 3), constants={"ord": "nuc"}, label="nuc")), FULL_RANK,
        ops=("matrix_norm",)),
    OpRow("linalg_norm", lambda lib, a, **kwargs: lib.linalg.norm(a, **kwargs), (
        S((3, 4), label="matrix-default"),
        S((4,), label="vector-default"),
        S((2, 3, 4), label="3d-default"),
        S((2, 3, 4), constants={"ord": 3, "dim": 1}, label="vector-ord3"),
        S((2, 3, 4), constants={"dim": (0, 2)}, label="two-dims-no-ord"),
        S((3, 4), constants={"ord": "fro"}, label="fro"),
        S((2, 3, 4), constants={"ord": 2, "dim": (0, 2), "keepdim": True},
          label="spectral-dims-keepdim"),
        S((3, 4), constants={"ord": "nuc"}, label="nuc"),
        S((3, 4), constants={"ord": 2, "dim": -1}, label="vector-dim"),
        T((3, 4), constants={"ord": -2}, label="t-ord-2"),
    ), FULL_RANK, ops=("norm",)),
    OpRow("linalg_norm_piecewise", lambda lib, a, **kwargs: lib.linalg.norm(a, **kwargs), (
        S((3, 4), constants={"ord": 1}, label="ord1"),
        S((3, 4), constants={"ord": -INF}, label="ord-inf"),
        S((4,), constants={"ord": INF}, label="vector-inf"),
    ), DISTINCT, smooth=False, ops=("norm",)),
)

ROWS = PRODUCT_ROWS + DECOMPOSITION_ROWS + NORM_ROWS
