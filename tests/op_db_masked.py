"""op_db rows of torch.masked (tapegrad/ops/masked.py): reductions and normalisations over
the elements a fixed boolean mask keeps, with masks of the input's shape and broadcast ones,
and no mask. Slices that the mask leaves empty are sampled where the result is still
differentiable (sum 0, prod 1, cumsum, cumprod, norm 0, normalize 0); where it is nan or
-inf (mean, var, amax, softmax, ...) finite differences are undefined, so those rows keep
at least one element (two for var and std) in every slice. log_softmax is -inf at the
masked-out elements: its rows compare the kept ones (zeros elsewhere)."""
import numpy as np

from op_db import DISTINCT, NONZERO, POSITIVE, OpRow, S, Sample

_rng = np.random.default_rng(20261202)


def _mask(shape):
    mask = _rng.random(shape) < 0.5
    mask.flat[0], mask.flat[-1] = True, False  # never all True or all False
    return mask


def _rows_keep(kept, width=4):
    """A (len(kept), width) mask keeping kept[i] elements of row i, at random places."""
    mask = np.zeros((len(kept), width), bool)
    for row, count in enumerate(kept):
        mask[row, _rng.permutation(width)[:count]] = True
    return mask


_M34 = _mask((3, 4))
_M234 = _mask((2, 3, 4))
_KEEP_ONE = _rows_keep((1, 3, 2))      # every row of 4 keeps one element or more
_KEEP_TWO = _rows_keep((2, 3, 2))      # ... two or more (var and std with correction 1)
_KEEP_ONE_PER_COLUMN = _rows_keep((1, 2, 1, 3), width=3).T
_EMPTY_ROW = _rows_keep((2, 0, 3))     # row 1 fully masked out
_NONE_KEPT = np.zeros((3, 4), bool)


def _masked(name):
    return lambda lib, x, **options: getattr(lib.masked, name)(x, **options)


def _row(name, samples, domain=DISTINCT, **options):
    return OpRow(f"masked_{name}", _masked(name), samples, domain, ops=(f"masked.{name}",),
                 **options)


def _reduction_samples(mask, masked_out=()):
    """Samples of a reduction over every dim, one dim, kept dims, several dims; a broadcast
    mask, no mask, a transposed input; and `masked_out`, those with fully masked slices."""
    return (
        S((3, 4), constants={"mask": mask}, label="all-dims"),
        S((3, 4), constants={"mask": mask, "dim": 1}, label="dim1"),
        S((3, 4), constants={"mask": mask, "dim": -1, "keepdim": True}, label="dim-1-keepdim"),
        S((2, 3, 4), constants={"mask": _M234, "dim": (0, 2)}, label="dims0,2"),
        S((2, 3, 4), constants={"mask": mask, "dim": 2}, label="mask-broadcast"),
        S((3, 4), constants={"mask": None, "dim": 1}, label="no-mask"),
        S((3, 4), constants={"mask": mask, "dim": 1}, layouts=("t",), label="t"),
    ) + masked_out


def _fully_masked(dim_options=None):
    return (
        S((3, 4), constants={"mask": _EMPTY_ROW, "dim": 1, **(dim_options or {})},
          label="row-masked-out"),
        S((3, 4), constants={"mask": _NONE_KEPT, "dim": 1, **(dim_options or {})},
          label="all-masked-out"),
    )


def _along_samples(mask, masked_out=()):
    """Samples of a normalisation or scan along one dim."""
    return (
        S((3, 4), constants={"mask": mask, "dim": 1}, label="dim1"),
        S((3, 4), constants={"mask": _KEEP_ONE_PER_COLUMN, "dim": 0}, label="dim0"),
        S((2, 3, 4), constants={"mask": mask, "dim": -1}, label="mask-broadcast"),
        S((3, 4), constants={"mask": None, "dim": 1}, label="no-mask"),
        S((3, 4), constants={"mask": mask, "dim": 1}, layouts=("t",), label="t"),
    ) + masked_out


def _log_softmax_kept(lib, x, mask, **options):
    result = lib.masked.log_softmax(x, mask=mask, **options)
    return result if mask is None else lib.where(mask, result, 0.0)


# Not a tapegrad bug: torch's double backward gives the same nan (checked against torch).
_LOGADDEXP_AT_MINUS_INF = {"gradgrad": (
    "as in torch: at a masked-out element (-inf), logaddexp's double backward computes "
    "exp(b - a) / (1 + exp(b - a))**2 = inf / inf = nan for the other side's second "
    "derivative, where it is 0")}
_COMPLEX_MASK = np.array([True, False, True, True])


def _complex_masked(name):
    """A masked op on a complex input made from (real, imag) pairs; a complex result as its
    real view."""
    def fn(lib, x, **options):
        result = getattr(lib.masked, name)(lib.view_as_complex(x), **options)
        return lib.view_as_real(result) if result.is_complex() else result
    return fn


def _complex_row(name, samples=None, **options):
    samples = samples or (S((3, 4, 2), constants={"mask": _COMPLEX_MASK, "dim": 1},
                            label="dim1"),
                          S((3, 4, 2), constants={"mask": _M34}, label="all-dims"))
    return OpRow(f"masked_{name}_complex", _complex_masked(name), samples,
                 ops=(f"masked.{name}", "view_as_complex", "view_as_real"), **options)


_ALONG_COMPLEX = (S((3, 4, 2), constants={"mask": _COMPLEX_MASK, "dim": 1}, label="dim1"),
                  S((3, 4, 2), constants={"mask": _M34, "dim": 0}, label="dim0"))

_KEPT = np.array([[True, False, True, True], [False, True, True, False],
                  [True, True, False, True]])

ROWS = (
    _row("sum", _reduction_samples(_M34, _fully_masked() + (
        S((3, 4), constants={"mask": _NONE_KEPT}, label="nothing-kept-all-dims"),
        S((0, 4), constants={"mask": np.zeros((0, 4), bool), "dim": 1}, label="empty"),
        S((), constants={"mask": np.array(True)}, label="0d")))),
    _row("prod", _reduction_samples(_M34, _fully_masked()) + (
        Sample(values=(np.array([[0.0, 1.5, -2.0, 0.5], [1.0, 0.0, 0.0, 2.0]]),),
               constants={"mask": np.array([True, True, False, True]), "dim": 1},
               label="zeros-kept"),), domain=NONZERO),
    _row("amax", _reduction_samples(_KEEP_ONE), smooth=False),
    _row("amin", _reduction_samples(_KEEP_ONE), smooth=False),
    _row("mean", _reduction_samples(_KEEP_ONE)),
    _row("median", (
        S((3, 4), constants={"mask": _KEEP_ONE, "dim": 1}, label="dim1"),
        S((3, 4), constants={"mask": _KEEP_ONE, "dim": -1, "keepdim": True},
          label="dim-1-keepdim"),
        S((2, 3, 4), constants={"mask": _KEEP_ONE, "dim": 2}, label="mask-broadcast"),
        S((3, 4), constants={"mask": None, "dim": 0}, label="no-mask"),
        S((3, 4), constants={"mask": _KEEP_ONE, "dim": 1}, layouts=("t",), label="t")),
        smooth=False),
    _row("logsumexp", _reduction_samples(_KEEP_ONE)),
    _row("norm", _reduction_samples(_M34, _fully_masked())),
    OpRow("masked_norm_ord", _masked("norm"), (
        S((3, 4), constants={"mask": _KEEP_ONE, "ord": 1.0, "dim": 1}, label="ord1"),
        S((3, 4), constants={"mask": _KEEP_ONE, "ord": float("inf"), "dim": 1},
          label="ord-inf"),
        S((3, 4), constants={"mask": _KEEP_ONE, "ord": -float("inf"), "dim": 1},
          label="ord-minus-inf"),
        S((3, 4), constants={"mask": _M34, "ord": 1.0}, label="ord1-all-dims"),
    ), DISTINCT, smooth=False, ops=("masked.norm",)),
    OpRow("masked_norm_ord3", _masked("norm"), (
        S((3, 4), constants={"mask": _KEEP_ONE, "ord": 3.0, "dim": 1}, label="ord3"),
        S((3, 4), constants={"mask": _M34, "ord": 0.5}, label="ord0.5-all-dims"),
    ), DISTINCT, ops=("masked.norm",)),
    _row("var", _reduction_samples(_KEEP_TWO) + (
        S((3, 4), constants={"mask": _KEEP_ONE, "dim": 1, "correction": 0},
          label="correction0"),
        S((3, 4), constants={"mask": _KEEP_TWO, "dim": 1, "unbiased": False},
          label="biased"),
        S((3, 4), constants={"mask": _KEEP_TWO, "dim": 1, "correction": 1.5},
          label="correction1.5"))),
    _row("std", _reduction_samples(_KEEP_TWO) + (
        S((3, 4), constants={"mask": _KEEP_TWO, "dim": 1, "correction": 0},
          label="correction0"),)),
    _row("cumsum", _along_samples(_M34, _fully_masked()), domain=POSITIVE),
    _row("cumprod", _along_samples(_M34, _fully_masked()), domain=NONZERO),
    _row("softmax", _along_samples(_KEEP_ONE)),
    _row("softmin", _along_samples(_KEEP_ONE)),
    OpRow("masked_log_softmax", _log_softmax_kept, _along_samples(_KEEP_ONE),
          ops=("masked.log_softmax", "where")),
    _row("normalize", (
        S((3, 4), constants={"mask": _M34, "ord": 2.0, "dim": 1}, label="ord2-dim1"),
        S((3, 4), constants={"mask": _M34, "ord": 3.0, "dim": 0}, label="ord3-dim0"),
        S((2, 3, 4), constants={"mask": _KEEP_ONE, "ord": 2.0, "dim": -1},
          label="mask-broadcast"),
        S((3, 4), constants={"mask": None, "ord": 2.0, "dim": 1}, label="no-mask"),
        S((3, 4), constants={"mask": _EMPTY_ROW, "ord": 2.0, "dim": 1},
          label="row-masked-out"),
        S((3, 4), constants={"mask": _M34, "ord": 2.0, "dim": 1}, layouts=("t",), label="t"),
    )),
    # complex inputs
    _complex_row("sum"), _complex_row("mean"), _complex_row("var"),
    _complex_row("norm", (S((3, 4, 2), constants={"mask": _COMPLEX_MASK, "ord": 2.0, "dim": 1},
                            label="dim1"),)),
    _complex_row("cumsum", _ALONG_COMPLEX),
    _complex_row("prod"), _complex_row("cumprod", _ALONG_COMPLEX),
    # an element is -inf where its mask is False: the masks never drop both sides at once
    OpRow("masked_logaddexp", lambda lib, a, b, **masks: lib.masked.logaddexp(a, b, **masks), (
        S((3, 4), (3, 4), constants={"input_mask": _KEPT, "other_mask": ~_KEPT},
          label="complementary", bugs=_LOGADDEXP_AT_MINUS_INF),
        S((3, 4), (3, 4), constants={"input_mask": _KEPT}, label="input-mask-only",
          bugs=_LOGADDEXP_AT_MINUS_INF),
        S((3, 4), (4,), constants={"other_mask": _KEPT[0]}, label="broadcast-other-mask",
          bugs=_LOGADDEXP_AT_MINUS_INF),
        S((3, 4), (3, 4), label="no-masks"),
    ), ops=("masked.logaddexp",)),
)
