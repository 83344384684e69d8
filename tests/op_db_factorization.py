"""op_db rows of the factorization family (tapegrad/ops/factorization.py and
factorization_householder.py): LU (linalg.lu, lu_factor, lu_factor_ex, lu_solve, torch.lu,
torch.lu_solve, lu_unpack), triangular and Cholesky solves (solve_triangular,
triangular_solve, cholesky_solve, cholesky_inverse, cholesky_ex), inv_ex and solve_ex, the
Householder family (householder_product / orgqr, ormqr, geqrf) and LDL.

Inputs are drawn so that LAPACK makes no free choice that a small step could change: LU's
pivots come from one dominant entry per column (in rows permuted at random, so that pivoting
swaps rows), Householder vectors and scales are NumPy's QR of a random matrix, and factors that
the solvers read one triangle of are made triangular inside the row. A packed LU or its
pivots given as a constant is any unit-lower/upper pair with valid LAPACK row swaps.

geqrf and LDL have no derivative in torch (GeqrfBackward0 raises NotImplementedError, LDL's
node is NotImplemented and raises RuntimeError): their rows compare the forward only."""
import warnings

import numpy as np

from op_db import K, OpRow, S, T, each
from op_db_linalg import INVERTIBLE, _positive_definite, _symmetric


# ---- domains -------------------------------------------------------------------------------

def _pivoted(rng, shape):
    """Matrices with one dominant entry per column, in rows permuted at random: partial
    pivoting picks those rows, with no near-ties (the column stays dominant in every Schur
    complement). Other inputs (right-hand sides) are uniform draws."""
    values = rng.uniform(-1.0, 1.0, shape)
    if len(shape) < 2:
        return values
    m, n = shape[-2:]
    values = values + (max(m, n) + 1.0) * np.eye(m, n)
    return values[..., rng.permutation(m), :]


def _reflectors(rng, shapes):
    """(Householder vectors, their scales): NumPy's QR ('raw', LAPACK's geqrf) of random
    matrices, the scales cut to shapes[1]'s count; further inputs are uniform draws."""
    (*batch, m, n), (k,) = shapes[0], shapes[1][-1:]
    vectors, scales = np.empty(shapes[0]), np.empty(tuple(batch) + (k,))
    for index in np.ndindex(*batch):
        if m * n == 0:
            break
        h, tau = np.linalg.qr(rng.normal(size=(m, n)), mode="raw")
        vectors[index], scales[index] = h.T, tau[:k]
    return [vectors, scales] + [rng.uniform(-1.0, 1.0, s) for s in shapes[2:]]


PIVOTED = each(_pivoted)
# triangular_solve's right-hand side first (square in some samples), then its coefficient
RHS_THEN_INVERTIBLE = each(lambda rng, shape: rng.uniform(-1.0, 1.0, shape),
                           lambda rng, shape: rng.uniform(-1.0, 1.0, shape) + 3.0 * np.eye(
                               shape[-1]))


def _pivots(*rows):
    """A constant of LAPACK's 1-based int32 row swaps (row i swapped with rows[i] >= i + 1)."""
    return np.array(rows, dtype=np.int32)


def _quiet(fn):
    """A row calling torch.lu, torch.lu_solve or torch.triangular_solve: both libraries warn
    that they are deprecated (test_factorization compares the warnings); silenced here."""
    def quiet(lib, *args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "torch.(lu|lu_solve|triangular_solve) is "
                                    "deprecated", UserWarning)
            return fn(lib, *args, **kwargs)
    return quiet


# ---- known differences ---------------------------------------------------------------------

# Not tapegrad bugs: torch has no derivative here, and backward raises in both libraries; only
# the forward (values, pivots, dtypes, graph) is compared. geqrf raises NotImplementedError (the
# forward-mode test expects it), LDL's NotImplemented node RuntimeError.
GEQRF_NO_DERIVATIVE = {check: "torch has no derivative for geqrf either: backward raises "
                       "NotImplementedError" for check in ("gradcheck", "gradgrad", "torch")}
LDL_NO_DERIVATIVE = {check: "no derivative in torch either: LDL's node is NotImplemented, "
                     "backward raises RuntimeError"
                     for check in ("gradcheck", "gradgrad", "forward_ad", "torch")}
# A factor with both triangles given: LAPACK solves with (or inverts) tril(F) tril(F)^T (or the
# upper form), while torch's gradient (cholesky_solve's -(G X^T + X G^T) F) is that of the full
# F F^T; ours is torch's, so these samples are compared with torch only.
FULL_FACTOR = {check: "not a bug: LAPACK reads one triangle of the factor F, and torch's "
               "gradient is that of the full F F^T" for check in ("gradcheck", "gradgrad")}


# ---- LU ------------------------------------------------------------------------------------

# U has a zero on its diagonal: lu_factor_ex's info is 2, not an error
_SINGULAR = [[1.0, 2.0], [2.0, 4.0]]

# square, wide, tall, batched, transposed: _lu_backward's three cases
LU_SHAPES = (S((3, 3)), S((3, 4), label="wide"), S((4, 3), label="tall"),
             S((2, 3, 3), label="batch"), S((2, 2, 4), label="batch-wide"),
             T((3, 3)), T((4, 3), label="tall-t"))


def _lu_row(name, fn, samples=LU_SHAPES, **options):
    return OpRow(name, fn, samples, PIVOTED, **options)


def _L_times_U(L, U):
    """A function of both factors whose gradient reaches each one separately."""
    return L.sum(-1, keepdim=True) * U.sum(-2, keepdim=True)


LU_ROWS = (
    _lu_row("linalg_lu_L", lambda lib, a: lib.linalg.lu(a).L, ops=("lu",)),
    _lu_row("linalg_lu_U", lambda lib, a: lib.linalg.lu(a)[2], ops=("lu",)),
    _lu_row("linalg_lu_P_L_U", lambda lib, a: (lambda P, L, U: _L_times_U(P @ L, U))(
        *lib.linalg.lu(a)), ops=("lu",)),
    # L and U straight into a product: their output numbers show in its next_functions
    _lu_row("linalg_lu_L_U", lambda lib, a: (lambda P, L, U: L @ U)(*lib.linalg.lu(a)),
            LU_SHAPES[:3], ops=("lu",)),
    _lu_row("linalg_lu_empty", lambda lib, a: lib.linalg.lu(a).U,
            (S((0, 0), label="0x0"), S((0, 3, 3), label="empty-batch")), ops=("lu",)),
    _lu_row("linalg_lu_factor", lambda lib, a: lib.linalg.lu_factor(a),
            LU_SHAPES + (S((0, 0), label="0x0"),), ops=("lu_factor",)),
    _lu_row("linalg_lu_factor_ex", lambda lib, a: lib.linalg.lu_factor_ex(a),
            LU_SHAPES + (K(_SINGULAR, label="singular"),
                         K([_SINGULAR, [[1.0, 2.0], [3.0, 4.0]]], label="batch-one-singular")),
            ops=("lu_factor_ex",)),
    _lu_row("torch_lu", _quiet(lambda lib, a, **options: lib.lu(a, **options)), (
        S((3, 3)), S((2, 3, 4), label="batch-wide"),
        S((4, 3), constants={"get_infos": True}, label="get-infos")), ops=("lu",)),
    _lu_row("torch_lu_method", _quiet(lambda lib, a: a.lu(get_infos=True)), (S((3, 3)),),
            ops=("lu",)),
    # the packed LU itself as the input: its gradient through L and U, any pivots
    OpRow("linalg_lu_solve", lambda lib, LU, b, pivots, **options: lib.linalg.lu_solve(
        LU, pivots, b, **options), (
        S((3, 3), (3, 2), constants={"pivots": _pivots(2, 3, 3)}),
        S((3, 3), (3, 2), constants={"pivots": _pivots(3, 2, 3), "adjoint": True},
          label="adjoint"),
        S((3, 3), (2, 3), constants={"pivots": _pivots(2, 2, 3), "left": False},
          label="right"),
        S((3, 3), (2, 3), constants={"pivots": _pivots(3, 3, 3), "left": False,
                                     "adjoint": True}, label="right-adjoint"),
        S((2, 3, 3), (3, 1), constants={"pivots": _pivots([1, 3, 3], [2, 2, 3])},
          label="batch-LU"),
        S((3, 3), (2, 3, 2), constants={"pivots": _pivots(2, 3, 3)}, label="batch-B"),
        S((3, 3), (3, 2), constants={"pivots": _pivots(2, 3, 3)}, layouts=("t", None),
          label="t"),
        S((3, 3), (3, 2), constants={"pivots": _pivots(2, 3, 3)},
          requires_grad=(False, True), label="B-only"),
        S((0, 0), (0, 2), constants={"pivots": _pivots()}, label="empty"),
    ), INVERTIBLE, ops=("lu_solve",)),
    OpRow("linalg_lu_solve_of_factor", lambda lib, a, b, **options: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(a), b, **options), (
        S((3, 3), (3, 2)), S((2, 3, 3), (2, 3, 1), label="batch"),
        S((3, 3), (2, 3), constants={"left": False}, label="right"),
        S((3, 3), (3, 2), constants={"adjoint": True}, label="adjoint")),
        PIVOTED, ops=("lu_solve", "lu_factor")),
    OpRow("torch_lu_solve", _quiet(lambda lib, LU, b, pivots: lib.lu_solve(b, LU, pivots)), (
        S((3, 3), (3, 2), constants={"pivots": _pivots(2, 3, 3)}),
        S((2, 3, 3), (2, 3, 2), constants={"pivots": _pivots([3, 2, 3], [1, 3, 3])},
          label="batch")), INVERTIBLE, ops=("lu_solve",)),
    OpRow("torch_lu_solve_method", _quiet(lambda lib, LU, b, pivots: b.lu_solve(LU, pivots)),
          (S((3, 3), (3, 1), constants={"pivots": _pivots(3, 3, 3)}),), INVERTIBLE,
          ops=("lu_solve",)),
    OpRow("lu_unpack_L", lambda lib, LU, pivots: lib.lu_unpack(LU, pivots).L, (
        S((3, 3), constants={"pivots": _pivots(2, 3, 3)}),
        S((3, 4), constants={"pivots": _pivots(3, 2, 3)}, label="wide"),
        S((4, 3), constants={"pivots": _pivots(4, 2, 3)}, label="tall"),
        T((3, 3), constants={"pivots": _pivots(1, 2, 3)})), ops=("lu_unpack",)),
    OpRow("lu_unpack_U", lambda lib, LU, pivots: lib.lu_unpack(LU, pivots)[2], (
        S((3, 3), constants={"pivots": _pivots(2, 3, 3)}),
        S((3, 4), constants={"pivots": _pivots(3, 2, 3)}, label="wide"),
        S((4, 3), constants={"pivots": _pivots(4, 2, 3)}, label="tall")), ops=("lu_unpack",)),
    OpRow("lu_unpack_P_L_U", lambda lib, LU, pivots: (
        lambda P, L, U: P @ L @ U)(*lib.lu_unpack(LU, pivots)), (
        S((3, 3), constants={"pivots": _pivots(2, 3, 3)}),
        S((3, 4), constants={"pivots": _pivots(3, 2, 3)}, label="wide"),
        S((4, 3), constants={"pivots": _pivots(4, 2, 3)}, label="tall"),
        # a batched product's graph starts with a view (matmul's fold), which hides the numbers
        S((2, 3, 3), constants={"pivots": _pivots([3, 3, 3], [1, 2, 3])}, label="batch")),
        ops=("lu_unpack",)),
    # each part alone: P without the data (its L and U empty; of a detached LU, as forward
    # mode cannot give the empty L and U tangents, in torch either), L without the pivots
    OpRow("lu_unpack_parts", lambda lib, LU, pivots: lib.lu_unpack(
        LU.detach(), pivots, unpack_data=False).P @ lib.lu_unpack(
            LU, pivots, unpack_pivots=False).L, (
        S((3, 3), constants={"pivots": _pivots(2, 3, 3)}),
        S((4, 3), constants={"pivots": _pivots(4, 4, 3)}, label="tall")), ops=("lu_unpack",)),
    _lu_row("lu_unpack_of_factor", lambda lib, a: (
        lambda P, L, U: _L_times_U(P @ L, U))(*lib.lu_unpack(*lib.linalg.lu_factor(a))),
        (S((3, 3)), S((3, 4), label="wide"), S((2, 4, 3), label="batch-tall")),
        ops=("lu_unpack", "lu_factor")),
)


# ---- triangular and Cholesky solves --------------------------------------------------------

TRIANGULAR_ROWS = (
    OpRow("solve_triangular", lambda lib, a, b, **options: lib.linalg.solve_triangular(
        a, b, **options), (
        S((3, 3), (3, 2), constants={"upper": True}, label="upper"),
        S((3, 3), (3, 2), constants={"upper": False}, label="lower"),
        S((3, 3), (2, 3), constants={"upper": True, "left": False}, label="upper-right"),
        S((3, 3), (2, 3), constants={"upper": False, "left": False}, label="lower-right"),
        S((3, 3), (3, 2), constants={"upper": True, "unitriangular": True},
          label="upper-unit"),
        S((3, 3), (2, 3), constants={"upper": False, "left": False, "unitriangular": True},
          label="lower-right-unit"),
        S((2, 3, 3), (3, 1), constants={"upper": False}, label="batch-A"),
        S((3, 3), (2, 3, 2), constants={"upper": True}, label="batch-B"),
        S((2, 1, 3, 3), (3, 3, 2), constants={"upper": False}, label="broadcast-batches"),
        S((3, 3), (3, 2), constants={"upper": True}, layouts=("t", "t"), label="t"),
        S((3, 3), (3, 2), constants={"upper": False}, requires_grad=(False, True),
          label="B-only"),
        S((0, 0), (0, 2), constants={"upper": True}, label="empty"),
    ), INVERTIBLE, ops=("solve_triangular",)),
    OpRow("triangular_solve", _quiet(lambda lib, b, a, **options: lib.triangular_solve(
        b, a, **options).solution), (
        S((3, 2), (3, 3)),
        S((3, 2), (3, 3), constants={"upper": False}, label="lower"),
        S((3, 2), (3, 3), constants={"transpose": True}, label="transpose"),
        S((3, 2), (3, 3), constants={"upper": False, "transpose": True,
                                     "unitriangular": True}, label="lower-transpose-unit"),
        S((2, 3, 2), (3, 3), label="batch-b"),
        S((3, 1), (2, 3, 3), constants={"upper": False}, label="batch-A"),
        S((3, 2), (3, 3), layouts=(None, "t"), label="t"),
    ), RHS_THEN_INVERTIBLE, ops=("triangular_solve",)),
    # the coefficient's copy (broadcast to the solution's batch) takes a gradient too
    OpRow("triangular_solve_both", _quiet(lambda lib, b, a, **options: (
        lambda X, M: X.sum(-1, keepdim=True) * M.sum(-2, keepdim=True))(
            *b.triangular_solve(a, **options))), (
        S((3, 2), (3, 3)), S((2, 3, 2), (3, 3), constants={"upper": False},
                             label="batch-b-lower")),
        RHS_THEN_INVERTIBLE, ops=("triangular_solve",)),
    OpRow("cholesky_solve", lambda lib, b, f, upper=False: lib.cholesky_solve(
        b, f.triu() if upper else f.tril(), upper), (
        S((3, 2), (3, 3)), S((3, 2), (3, 3), constants={"upper": True}, label="upper"),
        S((2, 3, 1), (3, 3), label="batch-b"), S((3, 2), (2, 3, 3), label="batch-factor"),
        S((3, 2), (3, 3), layouts=("t", None), label="t"),
        S((3, 2), (3, 3), requires_grad=(True, False), label="b-only"),
        S((0, 2), (0, 0), label="empty")), INVERTIBLE, ops=("cholesky_solve",)),
    OpRow("cholesky_solve_full_factor", lambda lib, b, f, **options: b.cholesky_solve(
        f, **options), (
        S((3, 2), (3, 3), label="lower"),
        S((3, 2), (3, 3), constants={"upper": True}, label="upper")), INVERTIBLE,
        ops=("cholesky_solve",), bugs=FULL_FACTOR),
    OpRow("cholesky_solve_of_cholesky", lambda lib, b, a: lib.cholesky_solve(
        b, lib.linalg.cholesky(_positive_definite(lib, a))), (
        S((3, 2), (3, 3)), S((2, 3, 2), (2, 3, 3), label="batch")), ops=("cholesky_solve",)),
    OpRow("cholesky_inverse", lambda lib, f, upper=False: lib.cholesky_inverse(
        f.triu() if upper else f.tril(), upper), (
        S((3, 3)), S((3, 3), constants={"upper": True}, label="upper"),
        S((2, 3, 3), label="batch"), S((1, 1)), T((3, 3)), S((0, 0), label="empty")),
        INVERTIBLE, ops=("cholesky_inverse",)),
    OpRow("cholesky_inverse_full_factor", lambda lib, f, **options: lib.cholesky_inverse(
        f, **options), (
        S((3, 3), label="lower"), S((3, 3), constants={"upper": True}, label="upper")),
        INVERTIBLE, ops=("cholesky_inverse",), bugs=FULL_FACTOR),
    OpRow("cholesky_inverse_method", lambda lib, f: f.tril().cholesky_inverse(),
          (S((2, 2)),), INVERTIBLE, ops=("cholesky_inverse",)),
    OpRow("cholesky_ex", lambda lib, a, **options: lib.linalg.cholesky_ex(
        _positive_definite(lib, a), **options), (
        S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)),
        S((3, 3), constants={"upper": True}, label="upper"),
        S((3, 3), constants={"check_errors": True}, label="check-errors"),
        S((0, 0), label="empty")), ops=("cholesky_ex",)),
    # of a + a^T: positive-definite where a's diagonal dominates; else (the values at kinks,
    # halves of the matrices factored) info is the failing minor's order and L LAPACK's
    # partial factor
    OpRow("cholesky_ex_symmetric", lambda lib, a: lib.linalg.cholesky_ex(_symmetric(lib, a)), (
        S((3, 3)),
        K([[2.0, 1.0, 0.0], [1.0, 0.5, 0.5], [0.0, 0.5, 1.5]], label="minor-2"),
        K([[[2.0, 1.0], [1.0, 0.5]], [[2.0, 1.0], [1.0, 2.5]]], label="batch-one-singular")),
        INVERTIBLE, ops=("cholesky_ex",)),
    OpRow("inv_ex", lambda lib, a, **options: lib.linalg.inv_ex(a, **options), (
        S((3, 3)), S((2, 3, 3), label="batch"), S((1, 1)), T((3, 3)),
        S((3, 3), constants={"check_errors": True}, label="check-errors"),
        S((0, 0), label="empty"), K(_SINGULAR, label="singular")), INVERTIBLE,
        ops=("inv_ex",)),
    OpRow("solve_ex", lambda lib, a, b, **options: lib.linalg.solve_ex(a, b, **options), (
        S((3, 3), (3,), label="vector"),
        S((3, 3), (3, 2), label="matrix"),
        S((2, 3, 3), (2, 3), label="batch-of-vectors"),
        S((2, 3, 3), (4, 1, 3, 2), label="broadcast-batches"),
        S((3, 3), (2, 3), constants={"left": False}, label="right"),
        S((3, 3), (3, 2), constants={"check_errors": True}, label="check-errors"),
        S((3, 3), (3, 2), layouts=("t", None), label="t"),
        S((3, 3), (3,), requires_grad=(True, False), label="A-only"),
        S((0, 0), (0,), label="empty"),
        K(_SINGULAR, [1.0, 2.0], label="singular"),
    ), INVERTIBLE, ops=("solve_ex",)),
)


# ---- Householder ---------------------------------------------------------------------------

HOUSEHOLDER_ROWS = (
    OpRow("householder_product", lambda lib, v, tau: lib.linalg.householder_product(v, tau), (
        S((3, 3), (3,)), S((4, 3), (3,), label="tall"),
        S((4, 3), (2,), label="fewer-scales"), S((2, 4, 2), (2, 2), label="batch"),
        S((4, 3), (3,), requires_grad=(False, True), label="tau-only"),
        S((4, 3), (0,), label="no-scales"), S((0, 0), (0,), label="empty"),
        S((4, 3), (3,), layouts=("t", None), label="t")),
        _reflectors, ops=("householder_product",)),
    OpRow("orgqr", lambda lib, v, tau: lib.orgqr(v, tau) + v.orgqr(tau),
          (S((4, 3), (3,)),), _reflectors, ops=("orgqr",)),
    OpRow("ormqr", lambda lib, v, tau, c, **options: lib.ormqr(v, tau, c, **options), (
        S((4, 3), (3,), (4, 2), label="left"),
        S((4, 3), (3,), (4, 2), constants={"transpose": True}, label="left-transpose"),
        S((4, 3), (3,), (2, 4), constants={"left": False}, label="right"),
        S((4, 3), (3,), (2, 4), constants={"left": False, "transpose": True},
          label="right-transpose"),
        S((3, 3), (3,), (3, 3), label="square"),
        S((2, 4, 2), (2, 2), (2, 4, 3), label="batch"),
        S((4, 3), (3,), (4, 2), requires_grad=(False, False, True), label="other-only"),
        S((4, 3), (3,), (4, 2), layouts=("t", None, "t"), label="t"),
    ), _reflectors, ops=("ormqr",)),
    OpRow("ormqr_method", lambda lib, v, tau, c: v.ormqr(tau, c, transpose=True),
          (S((3, 2), (2,), (3, 2)),), _reflectors, ops=("ormqr",)),
    OpRow("householder_product_of_geqrf", lambda lib, a: lib.linalg.householder_product(
        *lib.geqrf(a)), (S((4, 3)),), bugs=GEQRF_NO_DERIVATIVE,
        ops=("householder_product", "geqrf")),
    # R and the vectors, and the scales, each alone (the second-order check takes one output)
    OpRow("geqrf", lambda lib, a: lib.geqrf(a).a, (
        S((3, 3)), S((4, 3), label="tall"), S((3, 4), label="wide"),
        S((2, 3, 2), label="batch"), T((3, 3)), S((0, 3), label="empty")),
        bugs=GEQRF_NO_DERIVATIVE, ops=("geqrf",)),
    OpRow("geqrf_tau", lambda lib, a: a.geqrf()[1], (
        S((3, 2)), S((2, 4, 3), label="batch"), S((3, 4), label="wide")),
        bugs=GEQRF_NO_DERIVATIVE, ops=("geqrf",)),
)


# ---- LDL -----------------------------------------------------------------------------------

# A symmetric indefinite matrix whose Bunch-Kaufman factorization takes a 2 x 2 pivot block
_TWO_BY_TWO = [[0.0, 2.0, 1.0], [2.0, 0.0, -1.0], [1.0, -1.0, 3.0]]

LDL_ROWS = (
    OpRow("ldl_factor", lambda lib, a: lib.linalg.ldl_factor(_symmetric(lib, a)), (
        S((3, 3)), S((2, 3, 3), label="batch"), S((0, 0), label="empty"),
        K(_TWO_BY_TWO, label="2x2-pivot")), INVERTIBLE, ops=("ldl_factor",),
        bugs=LDL_NO_DERIVATIVE),
    OpRow("ldl_factor_ex", lambda lib, a, **options: lib.linalg.ldl_factor_ex(a, **options), (
        S((3, 3), label="lower-triangle-read"),
        S((3, 3), constants={"hermitian": True}, label="hermitian"),
        S((3, 3), constants={"check_errors": True}, label="check-errors")), INVERTIBLE,
        ops=("ldl_factor_ex",), bugs=LDL_NO_DERIVATIVE),
    OpRow("ldl_solve", lambda lib, a, b, **options: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(_symmetric(lib, a)), b, **options), (
        S((3, 3), (3, 2)), S((2, 3, 3), (3, 1), label="batch"),
        S((3, 3), (3, 2), requires_grad=(False, True), label="B-only"),
        K(_TWO_BY_TWO, [[1.0], [2.0], [3.0]], label="2x2-pivot")), INVERTIBLE,
        ops=("ldl_solve", "ldl_factor"),
        bugs=LDL_NO_DERIVATIVE),
)

ROWS = LU_ROWS + TRIANGULAR_ROWS + HOUSEHOLDER_ROWS + LDL_ROWS
