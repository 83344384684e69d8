"""op_db rows of the composite linear algebra family (tapegrad/ops/linalg_extra.py and
linalg_lowrank.py): vecdot, linalg.diagonal, vander, multi_dot, matrix_power, tensorinv,
tensorsolve, cond, matrix_rank, matrix_exp, eig, eigvals, lstsq, svd_lowrank and pca_lowrank.

eig's results are complex, in an order of geev's choosing, and LAPACK fixes each eigenvector
only up to a phase: rows compare sorted real views of the eigenvalues and |V|^2 (which no phase
changes) with its columns in that sorted order. matrix_rank's integer result enters as a factor of its input. The low-rank
rows seed each library's generator inside the row, so that both draw the same random
subspace, and compare S and U diag(S) V^H (free of the singular vectors' signs)."""
import math

import numpy as np

from op_db import STEP, K, OpRow, S, Sample, T, each
from op_db_linalg import FULL_RANK, INVERTIBLE

INF = float("inf")


# ---- domains -------------------------------------------------------------------------------

def _real_spectrum(rng, shape):
    """Square matrices S D S^-1 with real eigenvalues at least 0.6 apart (a small step keeps
    them real and distinct, so their real parts are differentiable) and a well-conditioned S."""
    n = shape[-1]
    values = (np.arange(n) - n / 2.0) + rng.uniform(-0.2, 0.2, shape[:-1])
    values = np.take_along_axis(values, np.argsort(rng.random(shape[:-1]), -1), -1)
    basis = np.eye(n) + 0.3 * rng.uniform(-1.0, 1.0, shape)
    return basis @ (values[..., None] * np.linalg.inv(basis))


def _invertible_as_matrix(rng, shape):
    """Tensors that are a well-conditioned matrix once their first dims are read as rows: the
    first k dims with prod(shape[:k]) == prod(shape[k:]), as tensorinv and tensorsolve read
    them. Other inputs are uniform draws."""
    splits = [k for k in range(1, len(shape)) if math.prod(shape[:k]) == math.prod(shape[k:])]
    values = rng.uniform(-1.0, 1.0, shape)
    if splits:
        size = math.prod(shape[:splits[0]])
        values = values + 3.0 * np.eye(size).reshape(shape)
    return values


def _scaled(rng, shape):
    """Entries in [-0.6, 0.6]: powers and exponentials of moderate size."""
    return rng.uniform(-0.6, 0.6, shape)


REAL_SPECTRUM = each(_real_spectrum)
TENSOR_INVERTIBLE = each(_invertible_as_matrix)
SCALED = each(_scaled)


def _seeded(fn):
    """A row drawing random numbers: both libraries' generators start from the same seed."""
    def row(lib, *args, **kwargs):
        lib.manual_seed(1234)
        return fn(lib, *args, **kwargs)
    return row


def _reconstruction(usv):
    """U diag(S) V^H: the same whatever signs the singular vectors get."""
    U, S, V = usv
    return (U * S.unsqueeze(-2)) @ V.mH


# ---- known differences ---------------------------------------------------------------------

TORCH_COND_BACKWARD = {"torch": "bug in torch, not tapegrad: torch 2.13's own backward of "
                       "cond with p in (fro, 1, -1, inf, -inf) raises 'one of the variables "
                       "needed for gradient computation has been modified by an inplace "
                       "operation' (its inverse, output 0 of LinalgInvEx, is written in place); "
                       "values and graphs are compared by the float32 check, gradients by "
                       "gradcheck (the fuzz, which skips known bugs against torch, leaves "
                       "these samples out)"}
DETACHED = {check: "not a bug: lstsq's singular values carry no gradient (torch detaches "
            "them), so finite differences see a derivative that backward does not"
            for check in ("gradcheck", "gradgrad")}


# ---- rows ----------------------------------------------------------------------------------

PRODUCT_ROWS = (
    OpRow("linalg_vecdot", lambda lib, x, y, **options: lib.linalg.vecdot(x, y, **options), (
        S((3, 4), (3, 4)), S((2, 3), (3,), label="broadcast"),
        S((3, 4), (3, 1), constants={"dim": 0}, label="dim0"),
        S((4,), (4,), label="vectors"), S((0, 3), (0, 3), label="empty"),
        S((3, 4), (3, 4), layouts=("t", None), label="t"), STEP((3, 2), (3, 2))),
        ops=("vecdot",)),
    OpRow("linalg_vecdot_complex_input", lambda lib, a, b, c, d: lib.view_as_real(
        lib.linalg.vecdot(lib.complex(a, b), lib.complex(c, d))),
          (S((2, 3), (2, 3), (2, 3), (2, 3)), S((3,), (3,), (3,), (3,), label="vectors")),
          ops=("vecdot", "complex")),
    OpRow("linalg_diagonal", lambda lib, a, **options: lib.linalg.diagonal(a, **options), (
        S((3, 4)), S((2, 3, 3), label="batch"),
        S((3, 4), constants={"offset": 1}, label="offset1"),
        S((3, 4), constants={"offset": -2}, label="offset-2"),
        S((2, 3, 4), constants={"dim1": 0, "dim2": 2, "offset": -1}, label="dims"),
        T((3, 4))), ops=("diagonal",)),
    OpRow("linalg_vander", lambda lib, x, **options: lib.linalg.vander(x, **options), (
        S((3,)), S((2, 4), label="batch"), S((3,), constants={"N": 5}, label="N5"),
        S((4,), constants={"N": 2}, label="N2"), S((), label="0d", constants={"N": 3}),
        S((0,), constants={"N": 3}, label="empty"), STEP((3,))), ops=("vander",)),
    OpRow("linalg_multi_dot", lambda lib, *tensors: lib.linalg.multi_dot(list(tensors)), (
        S((2, 3), (3, 4), label="two"),
        S((2, 3), (3, 5), (5, 2), label="three-left-first"),
        S((5, 2), (2, 6), (6, 3), label="three-right-first"),
        S((3,), (3, 4), (4, 2), label="row-vector-first"),
        S((2, 3), (3, 4), (4,), label="column-vector-last"),
        S((3,), (3, 4), (4,), label="vectors-both-ends"),
        S((2, 3), (3, 1), (1, 4), (4, 2), label="four"),
        S((2, 0), (0, 3), label="empty-inner"),
        S((2, 3), (3, 4), layouts=("t", None), label="t")), ops=("multi_dot",)),
)

MATRIX_FUNCTION_ROWS = (
    OpRow("linalg_matrix_power", lambda lib, a, n: lib.linalg.matrix_power(a, n), (
        S((3, 3), constants={"n": 2}, label="square"),
        S((3, 3), constants={"n": 3}, label="cube"),
        S((3, 3), constants={"n": 5}, label="5"),
        S((3, 3), constants={"n": 8}, label="8"),
        S((3, 3), constants={"n": 1}, label="1"),
        S((3, 3), constants={"n": 0}, label="0"),
        S((2, 3, 3), constants={"n": 3}, label="batch"),
        S((0, 0), constants={"n": 2}, label="empty"),
        T((3, 3), constants={"n": 2})), SCALED, ops=("matrix_power",)),
    OpRow("linalg_matrix_power_negative", lambda lib, a, n: lib.linalg.matrix_power(a, n), (
        S((3, 3), constants={"n": -1}, label="-1"),
        S((3, 3), constants={"n": -2}, label="-2"),
        S((3, 3), constants={"n": -5}, label="-5"),
        S((2, 3, 3), constants={"n": -3}, label="batch")), INVERTIBLE, ops=("matrix_power",)),
    OpRow("matrix_power", lambda lib, a: lib.matrix_power(a, 3) + a.matrix_power(2),
          (S((3, 3)), S((2, 2, 2), label="batch")), SCALED, ops=("matrix_power",)),
    OpRow("linalg_matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), (
        S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)), S((0, 0), label="empty"),
        S((4, 4)), T((3, 3))), ops=("matrix_exp",)),
    OpRow("matrix_exp", lambda lib, a: lib.matrix_exp(a) + a.matrix_exp(), (S((3, 3)),),
          ops=("matrix_exp",)),
    OpRow("linalg_matrix_exp_complex_input", lambda lib, a, b: lib.view_as_real(
        lib.linalg.matrix_exp(lib.complex(a, b))), (S((3, 3), (3, 3)),),
          ops=("matrix_exp", "complex")),
    OpRow("linalg_tensorinv", lambda lib, a, **options: lib.linalg.tensorinv(a, **options), (
        S((4, 2, 2, 4), label="ind2"), S((6, 2, 3), constants={"ind": 1}, label="ind1"),
        S((2, 2, 4), constants={"ind": 2}, label="ind2-3d"),
        S((3, 3), constants={"ind": 1}, label="matrix")), TENSOR_INVERTIBLE,
        ops=("tensorinv",)),
    OpRow("linalg_tensorsolve", lambda lib, a, b, **options: lib.linalg.tensorsolve(
        a, b, **options), (
        S((2, 3, 6), (2, 3)), S((6, 2, 3), (6,), label="one-dim-rhs"),
        S((4, 2, 2, 4), (4, 2), label="4d"),
        S((6, 2, 3), (2, 3), constants={"dims": (0,)}, label="dims"),
        S((2, 3, 6), (2, 3), requires_grad=(False, True), label="b-only")),
        each(_invertible_as_matrix, _scaled), ops=("tensorsolve",)),
)


def _cond_row(name, p, domain, samples=(S((3, 3)), S((2, 3, 3), label="batch"), T((3, 3))),
              bugs=None):
    return OpRow(name, lambda lib, a, **options: lib.linalg.cond(a, p, **options), samples,
                 domain, ops=("cond",), bugs=bugs or {})



def _times_rank(a, rank):
    """a times its rank: the rank is locally constant, so this has the gradient rank, and
    its value is compared with torch's."""
    return a * rank[..., None, None]


COND_ROWS = (
    _cond_row("linalg_cond", None, FULL_RANK,
              (S((3, 3)), S((4, 3), label="tall"), S((3, 4), label="wide"),
               S((2, 3, 3), label="batch"), T((3, 3)))),
    _cond_row("linalg_cond_2", 2, FULL_RANK, (S((3, 3)), S((4, 3), label="tall"))),
    _cond_row("linalg_cond_-2", -2, FULL_RANK, (S((3, 3)), S((3, 4), label="wide"))),
    _cond_row("linalg_cond_nuc", "nuc", FULL_RANK),
    _cond_row("linalg_cond_fro", "fro", INVERTIBLE, (S((3, 3)), S((2, 3, 3), label="batch"),
                                                     T((3, 3))), TORCH_COND_BACKWARD),
    _cond_row("linalg_cond_1", 1, INVERTIBLE, bugs=TORCH_COND_BACKWARD),
    _cond_row("linalg_cond_-1", -1, INVERTIBLE, bugs=TORCH_COND_BACKWARD),
    _cond_row("linalg_cond_inf", INF, INVERTIBLE, bugs=TORCH_COND_BACKWARD),
    _cond_row("linalg_cond_-inf", -INF, INVERTIBLE, bugs=TORCH_COND_BACKWARD),
    OpRow("linalg_cond_singular", lambda lib, a, p: lib.linalg.cond(a, p), (
        K([[1.0, 2.0], [2.0, 4.0]], constants={"p": "fro"}, label="fro"),
        K([[1.0, 2.0], [2.0, 4.0]], constants={"p": 1}, label="1"),
        K([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]], constants={"p": INF},
          label="batch-one-singular"),
        # an invertible matrix beside them: every row has an ordinary sample
        S((3, 3), constants={"p": "fro"}, label="invertible")), INVERTIBLE,
        ops=("cond",), bugs=TORCH_COND_BACKWARD),
    # an empty matrix's cond is a new zero tensor, in torch without a graph: compared only
    OpRow("linalg_cond_empty", lambda lib, a, p: lib.linalg.cond(a, p), tuple(
        Sample(shapes=((0, 0),), constants={"p": p}, at_kink=True, label=f"empty-{p}")
        for p in (None, "fro", "nuc", 1, -INF)) + (
        S((3, 3), constants={"p": None}, label="invertible"),), FULL_RANK,
        ops=("cond",)),
    OpRow("linalg_matrix_rank", lambda lib, a, **options: _times_rank(
        a, lib.linalg.matrix_rank(a, **options)), (
        S((3, 3)), S((4, 3), label="tall"), S((2, 3, 4), label="batch"),
        S((3, 3), constants={"hermitian": True}, label="hermitian"),
        S((3, 4), constants={"atol": 2.5}, label="atol-drops-one"),
        S((3, 4), constants={"rtol": 0.4}, label="rtol-drops-one"),
        S((3, 4), constants={"atol": 1.5, "rtol": 0.1}, label="atol-and-rtol"),
        S((3, 4), constants={"tol": 1.5}, label="tol"),
        S((0, 3), label="empty")), FULL_RANK, ops=("matrix_rank",)),
    OpRow("linalg_matrix_rank_deficient", lambda lib, a, b: _times_rank(
        a @ b, lib.linalg.matrix_rank(a @ b)),
        (S((3, 2), (2, 4)), S((2, 4, 1), (2, 1, 3), label="batch-rank1")),
        ops=("matrix_rank",)),
)


def _order(lib, eigenvalues):
    """Indices that sort eigenvalues by real part, a conjugate pair by imaginary part: geev's
    order is its own (and tapegrad's float32 eig runs in float64, NumPy's, where torch's runs
    sgeev), so rows compare sorted results."""
    return lib.argsort(eigenvalues.real + 0.125 * eigenvalues.imag, dim=-1)


def _sorted_values(lib, eigenvalues):
    """(real, imaginary) pairs of the eigenvalues, sorted."""
    order = _order(lib, eigenvalues).unsqueeze(-1)
    return lib.take_along_dim(lib.view_as_real(eigenvalues), order, -2)


def _sorted_vectors(lib, eig):
    """|V|^2 entrywise, columns in the eigenvalues' sorted order: unchanged when a column of
    V is multiplied by e^{i phi}."""
    eigenvalues, vectors = eig
    return lib.take_along_dim((vectors * vectors.conj()).real,
                              _order(lib, eigenvalues).unsqueeze(-2), -1)


EIG_ROWS = (
    OpRow("linalg_eigvals", lambda lib, a: _sorted_values(lib, lib.linalg.eigvals(a)), (
        S((3, 3)), S((4, 4)), S((2, 3, 3), label="batch"), S((1, 1)), T((3, 3))),
        ops=("eigvals",)),
    OpRow("linalg_eigvals_real_spectrum", lambda lib, a: lib.sort(
        lib.linalg.eigvals(a).real).values, (S((3, 3)), S((2, 4, 4), label="batch")),
        REAL_SPECTRUM, ops=("eigvals",)),
    OpRow("linalg_eig_eigenvalues", lambda lib, a: _sorted_values(lib, lib.linalg.eig(
        a).eigenvalues), (S((3, 3)), S((2, 2, 2), label="batch")), ops=("eig",)),
    OpRow("linalg_eig_eigenvectors", lambda lib, a: _sorted_vectors(lib, lib.linalg.eig(a)), (
        S((3, 3)), S((2, 3, 3), label="batch"), T((4, 4))), REAL_SPECTRUM, ops=("eig",)),
    OpRow("linalg_eig_complex_eigenvectors", lambda lib, a: _sorted_vectors(
        lib, lib.linalg.eig(a)), (S((3, 3)), S((4, 4))), ops=("eig",)),
    OpRow("linalg_eig_both", lambda lib, a: _sorted_vectors(lib, lib.linalg.eig(a))
          * lib.sort(lib.linalg.eig(a).eigenvalues.real).values.unsqueeze(-2), (S((3, 3)),),
          REAL_SPECTRUM, ops=("eig",)),
    # complex matrices: geev's complex driver, and the complex branch of the gradient
    OpRow("linalg_eigvals_complex_input", lambda lib, a, b: _sorted_values(
        lib, lib.linalg.eigvals(lib.complex(a, b))), (S((3, 3), (3, 3)),
                                                      S((2, 2, 2), (2, 2, 2), label="batch")),
          ops=("eigvals", "complex")),
    OpRow("linalg_eig_complex_input", lambda lib, a, b: _sorted_vectors(
        lib, lib.linalg.eig(lib.complex(a, b))), (S((3, 3), (3, 3)),), ops=("eig", "complex")),
)


def _lstsq_row(name, fn, samples, **options):
    return OpRow(name, fn, samples, FULL_RANK, ops=("lstsq",), **options)


LSTSQ_SHAPES = (
    S((4, 3), (4, 2), label="tall"), S((3, 3), (3, 2), label="square"),
    S((3, 4), (3, 2), label="wide"), S((4, 3), (4,), label="vector"),
    S((2, 4, 3), (2, 4, 2), label="batch"), S((2, 4, 3), (1, 4, 2), label="broadcast-rhs"),
    S((4, 3), (4, 2), layouts=("t", None), label="t"),
    S((4, 3), (4, 2), requires_grad=(False, True), label="b-only"),
    S((4, 3), (4, 2), requires_grad=(True, False), label="a-only"))

LSTSQ_ROWS = (
    _lstsq_row("linalg_lstsq", lambda lib, a, b: lib.linalg.lstsq(a, b).solution,
               LSTSQ_SHAPES),
    *(_lstsq_row(f"linalg_lstsq_{driver}", lambda lib, a, b, driver=driver: lib.linalg.lstsq(
        a, b, driver=driver)[0], LSTSQ_SHAPES[:5]) for driver in ("gels", "gelsd", "gelss")),
    _lstsq_row("linalg_lstsq_complex_input", lambda lib, a, b, c, d: lib.view_as_real(
        lib.linalg.lstsq(lib.complex(a, b), lib.complex(c, d)).solution),
        (S((4, 3), (4, 3), (4, 2), (4, 2)), S((3, 4), (3, 4), (3,), (3,), label="wide-vector"))),
    _lstsq_row("linalg_lstsq_rcond", lambda lib, a, b: lib.linalg.lstsq(a, b, 1e-3).solution,
               (S((4, 3), (4, 2)),)),
    _lstsq_row("linalg_lstsq_residuals", lambda lib, a, b, driver: lib.linalg.lstsq(
        a, b, driver=driver).residuals, (
        S((4, 3), (4, 2), constants={"driver": "gelsd"}, label="gelsd"),
        S((4, 3), (4, 2), constants={"driver": "gelss"}, label="gelss"),
        S((4, 3), (4,), constants={"driver": "gels"}, label="gels-vector"),
        S((2, 5, 3), (2, 5, 2), constants={"driver": "gelsd"}, label="batch"))),
    _lstsq_row("linalg_lstsq_rank", lambda lib, a, b, driver: (
        lib.linalg.lstsq(a, b, driver=driver).solution, lib.linalg.lstsq(a, b).rank), (
        S((4, 3), (4, 2), constants={"driver": "gelsy"}, label="gelsy"),
        S((2, 4, 3), (1, 4, 2), constants={"driver": "gelsd"}, label="gelsd-batch"))),
    _lstsq_row("linalg_lstsq_singular_values", lambda lib, a, b: lib.linalg.lstsq(
        a, b, driver="gelsd").singular_values, (S((4, 3), (4, 2)),), bugs=DETACHED),
)


def _low_rank_row(name, fn, samples, **options):
    return OpRow(name, _seeded(fn), samples, FULL_RANK, **options)


LOW_RANK_ROWS = (
    _low_rank_row("svd_lowrank_S", lambda lib, a, **options: lib.svd_lowrank(a, **options)[1], (
        S((5, 4), constants={"q": 2}, label="q2"), S((4, 5), constants={"q": 3}, label="wide"),
        S((5, 4), constants={"q": 2, "niter": 0}, label="niter0"),
        S((2, 5, 4), constants={"q": 2}, label="batch")), ops=("svd_lowrank",)),
    _low_rank_row("svd_lowrank_USV", lambda lib, a, **options: _reconstruction(
        lib.svd_lowrank(a, **options)), (
        S((5, 4), constants={"q": 2}, label="q2"), S((4, 6), constants={"q": 3}, label="wide"),
        S((5, 4), constants={"q": 4}, label="full")), ops=("svd_lowrank",)),
    _low_rank_row("svd_lowrank_M", lambda lib, a, m: lib.svd_lowrank(a, q=2, M=m)[1], (
        S((5, 4), (5, 4)), S((5, 4), (4,), label="broadcast-M"),
        S((4, 5), (4, 5), label="wide")), ops=("svd_lowrank",)),
    _low_rank_row("pca_lowrank_S", lambda lib, a, **options: lib.pca_lowrank(a, **options)[1], (
        S((6, 4)), S((6, 4), constants={"q": 2}, label="q2"),
        S((4, 6), constants={"q": 2, "center": False}, label="not-centered"),
        S((6, 4), constants={"q": 3, "niter": 1}, label="niter1"),
        S((2, 6, 4), constants={"q": 2}, label="batch")), ops=("pca_lowrank",)),
    _low_rank_row("pca_lowrank_USV", lambda lib, a, **options: _reconstruction(
        lib.pca_lowrank(a, **options)), (
        S((6, 4), constants={"q": 2}, label="q2"),
        S((6, 4), constants={"q": 3, "center": False}, label="not-centered")),
        ops=("pca_lowrank",)),
)

ROWS = (PRODUCT_ROWS + MATRIX_FUNCTION_ROWS + COND_ROWS + EIG_ROWS + LSTSQ_ROWS
        + LOW_RANK_ROWS)
