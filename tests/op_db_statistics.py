"""op_db rows of the statistics family: NaN-ignoring reductions, aminmax, std_mean/var_mean,
quantiles, cov/corrcoef, running extrema and logcumsumexp, finite differences and integrals,
distances, mode/nanmedian/msort, unique_consecutive, searching and counting, and NumPy's
axis=/keepdims= spellings.

Ops with integer or bool results (searchsorted, isin, histc, ...) appear next to a
differentiable companion in the same row, so that torch's values and dtypes are compared too."""
import numpy as np

from op_db import DISTINCT, NONZERO, REAL, STEP, K, OpRow, S, Sample, T

_NAN = float("nan")

# torch records a node for these and its backward raises, in torch as in tapegrad: only the
# forward (values, dtypes, requires_grad) can be compared. unique_consecutive raises
# NotImplementedError (which the forward-mode test expects); the histograms and bincount
# raise RuntimeError, so forward mode fails too.
NO_DERIVATIVE = {check: "torch has no derivative here either: backward raises"
                 for check in ("gradcheck", "gradgrad", "torch")}
NOT_IMPLEMENTED = {check: "no derivative in torch either: backward raises RuntimeError"
                   for check in ("gradcheck", "gradgrad", "forward_ad", "torch")}


def _dims(shape, dim, keepdim=False, label=""):
    return S(shape, constants={"dim": dim, "keepdim": keepdim},
             label=label or f"{shape}-{dim}-{keepdim}")


_REDUCING = (
    S((3, 4), label="all"), _dims((3, 4), 1, label="dim1"),
    _dims((3, 4), -2, True, label="dim-2-keepdim"), _dims((2, 3, 2), (0, 2), label="dims02"),
    _dims((), 0, label="0d"), _dims((0, 3), 1, label="empty"), T((3, 4), constants={"dim": 0}),
    STEP((3, 2), constants={"dim": 1}),
)
_WITH_NAN = [[1.0, _NAN, -2.0], [_NAN, _NAN, 0.5]]


def _quantile_draw(rng, shapes):
    """Distinct values to take quantiles of, and quantiles away from 0 and 1."""
    return [DISTINCT(rng, shapes[:1])[0]] + [rng.uniform(0.1, 0.9, s) for s in shapes[1:]]


def _quantile_fn(name):
    def fn(lib, x, q=None, *, scalar=0.3, **options):
        return getattr(lib, name)(x, scalar if q is None else q, **options)
    return fn


_QUANTILE = (
    S((3, 4), label="scalar-q"),
    S((3, 4), (2,), constants={"dim": 1}, requires_grad=(True, False), label="q-dim1"),
    S((2, 3, 2), (3,), constants={"dim": -2, "keepdim": True}, requires_grad=(True, False),
      label="q-dim-keepdim"),
    S((5,), (2,), constants={"keepdim": True}, requires_grad=(True, False),
      label="q-all-keepdim"),
    S((3, 4), constants={"dim": 0, "interpolation": "lower"}, label="lower"),
    S((3, 4), constants={"dim": 0, "interpolation": "higher"}, label="higher"),
    S((3, 4), constants={"dim": 1, "interpolation": "midpoint"}, label="midpoint"),
    S((3, 4), constants={"dim": 1, "interpolation": "nearest"}, label="nearest"),
    S((), constants={"dim": 0}, label="0d"),
    T((3, 4), constants={"dim": 1}),
)


def _cov_draw(rng, shapes):
    return [REAL(rng, shapes[:1])[0]] + [rng.uniform(0.5, 2.0, s) for s in shapes[1:]]


def _trapezoid_draw(rng, shapes):
    """y anywhere, x increasing along the last dim."""
    y = REAL(rng, shapes[:1])[0]
    return [y] + [np.cumsum(rng.uniform(0.2, 1.0, s), axis=-1) for s in shapes[1:]]


_RUNNING = (
    S((3, 4), constants={"dim": 1}, label="dim1"),
    S((3, 4), constants={"dim": -2}, label="dim-2"),
    S((2, 3, 2), constants={"dim": 1}, label="3d"),
    S((), constants={"dim": 0}, label="0d"),
    S((0, 3), constants={"dim": 0}, label="empty"),
    T((3, 4), constants={"dim": 1}),
)


def _unique_sample(values, label, **constants):
    return Sample(values=(np.asarray(values, dtype=np.float64),), constants=constants,
                  label=label, bugs=NO_DERIVATIVE)


def _histogram_sample(values, label, **constants):
    return Sample(values=(np.asarray(values, dtype=np.float64),), constants=constants,
                  label=label, bugs=NOT_IMPLEMENTED)


def _low_and_high(result):
    """aminmax's two results in one output that stays piecewise linear."""
    return result.min - 2 * result.max


def _product(pair):
    """std_mean's or var_mean's two results in one output (second-order checks want one)."""
    return pair[0] * pair[1]


def _total(*results):
    """Several reductions in one float output (second-order checks want one)."""
    return sum(result.sum() for result in results)


def _companion(name):
    """A row function: the differentiable x * 2 next to lib.<name>(...)'s integer result."""
    def fn(lib, x, *args, **options):
        return x * 2, getattr(lib, name)(x, *args, **options)
    return fn


_SEQUENCE = np.array([-1.5, -0.5, 0.0, 0.75, 1.5])

ROWS = (
    # ---- NaN-ignoring reductions ---------------------------------------------------------
    OpRow("nansum", lambda lib, x, **options: x.nansum(**options), _REDUCING + (
        K(_WITH_NAN, constants={"dim": 1}, label="nan"), K(_WITH_NAN, label="nan-all")),
          ops=("nansum",)),
    OpRow("nansum_fn_dtype", lambda lib, x: lib.nansum(x, 0, dtype=lib.float64),
          (S((3, 4)),), ops=("nansum",)),
    OpRow("nanmean", lambda lib, x, **options: x.nanmean(**options), _REDUCING + (
        K(_WITH_NAN, constants={"dim": 1, "keepdim": True}, label="nan"),
        K(_WITH_NAN, label="nan-all")), ops=("nanmean",)),

    # ---- aminmax, trace ------------------------------------------------------------------
    OpRow("aminmax", lambda lib, x, **options: _low_and_high(lib.aminmax(x, **options)), (
        S((3, 4), label="all"), S((3, 4), constants={"dim": 1}, label="dim1"),
        S((3, 4), constants={"dim": -2, "keepdim": True}, label="dim-2-keepdim"),
        S((), constants={"dim": 0}, label="0d"), S((0, 3), constants={"dim": 1}, label="empty"),
        T((3, 4), constants={"dim": 0}),
        K([[1.0, 3.0, 3.0], [-1.0, -1.0, 2.0]], constants={"dim": 1}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("aminmax",)),
    OpRow("aminmax_min_only", lambda lib, x: x.aminmax(dim=0).min, (S((3, 4)),),
          domain=DISTINCT, smooth=False, ops=("aminmax",)),
    OpRow("trace", lambda lib, x: x.trace(), (S((3, 3)), S((2, 4)), S((4, 2)), S((0, 0)),
                                             T((3, 4))), ops=("trace",)),

    # ---- std_mean, var_mean --------------------------------------------------------------
    OpRow("std_mean", lambda lib, x, **options: _product(lib.std_mean(x, **options)), (
        S((3, 4), label="all"), S((3, 4), constants={"dim": 1}, label="dim1"),
        S((2, 3, 2), constants={"dim": (0, 2), "keepdim": True}, label="dims-keepdim"),
        S((3, 4), constants={"dim": 0, "correction": 0}, label="correction0"),
        S((3, 4), constants={"unbiased": False}, label="biased"),
        T((3, 4), constants={"dim": 1}),
        K([[2.0, 2.0], [1.0, 3.0]], constants={"dim": 1}, label="constant-row")),
          ops=("std_mean",)),
    OpRow("std_mean_std_only", lambda lib, x: lib.std_mean(x, 1)[0], (S((3, 4)),),
          ops=("std_mean",)),
    OpRow("var_mean", lambda lib, x, **options: _product(lib.var_mean(x, **options)), (
        S((3, 4), label="all"), S((3, 4), constants={"dim": -1, "keepdim": True}, label="dim"),
        S((3, 4), constants={"dim": 0, "correction": 2}, label="correction2"),
        S((5,), label="1d"), STEP((3, 2), constants={"dim": 0})), ops=("var_mean",)),
    OpRow("var_mean_mean_only", lambda lib, x: lib.var_mean(x, 0)[1], (S((3, 4)),),
          ops=("var_mean",)),

    # ---- quantiles -----------------------------------------------------------------------
    OpRow("quantile", _quantile_fn("quantile"), _QUANTILE + (
        K([[1.0, _NAN, 3.0], [2.0, 1.0, 0.5]], constants={"dim": 1}, label="nan"),),
          domain=_quantile_draw, smooth=False, ops=("quantile",)),
    OpRow("nanquantile", _quantile_fn("nanquantile"), _QUANTILE + (
        K([[1.0, _NAN, 3.0], [_NAN, _NAN, _NAN]], constants={"dim": 1}, label="nan"),),
          domain=_quantile_draw, smooth=False, ops=("nanquantile",)),
    # in q alone, the linear interpolation is linear between integer ranks
    OpRow("quantile_q_grad", lambda lib, x, q: lib.quantile(x, q, dim=0), (
        S((4, 3), (3,), requires_grad=(False, True), label="q"),),
          domain=_quantile_draw, smooth=False, ops=("quantile",)),
    OpRow("quantile_method", lambda lib, x: x.quantile(0.75, 0) + x.nanquantile(0.25, 0),
          (S((3, 4)),), domain=DISTINCT, smooth=False, ops=("quantile", "nanquantile")),

    # ---- cov and corrcoef ----------------------------------------------------------------
    OpRow("cov", lambda lib, x, *weights, **options: lib.cov(
        x, **options, **dict(zip(("aweights",), weights))), (
        S((3, 5), label="rows"), S((5,), label="1d"),
        S((2, 4), constants={"correction": 0}, label="correction0"),
        S((3, 4), (4,), label="aweights"),
        S((3, 4), (4,), constants={"fweights": np.array([1, 2, 1, 3])}, label="both-weights"),
        S((2, 4), constants={"fweights": np.array([2, 0, 1, 1]), "correction": 2},
          label="fweights"),
        T((4, 3))), domain=_cov_draw, ops=("cov",)),
    OpRow("corrcoef", lambda lib, x: x.corrcoef(), (S((3, 5)), S((2, 4)), S((5,))),
          ops=("corrcoef",)),

    # ---- running extrema, logcumsumexp ---------------------------------------------------
    OpRow("cummax", lambda lib, x, dim: tuple(x.cummax(dim)), _RUNNING + (
        K([1.0, 3.0, 3.0, 2.0, 4.0], constants={"dim": 0}, label="ties"),
        K([1.0, _NAN, 3.0, _NAN], constants={"dim": 0}, label="nan")),
          domain=DISTINCT, smooth=False, ops=("cummax",)),
    OpRow("cummin", lambda lib, x, dim: tuple(lib.cummin(x, dim)), _RUNNING + (
        K([3.0, 1.0, 1.0, 2.0], constants={"dim": 0}, label="ties"),),
          domain=DISTINCT, smooth=False, ops=("cummin",)),
    OpRow("logcumsumexp", lambda lib, x, dim: x.logcumsumexp(dim), _RUNNING + (
        K([1000.0, 1000.5, -1000.0], constants={"dim": 0}, label="large"),),
          ops=("logcumsumexp",)),

    # ---- diff, gradient, trapezoid -------------------------------------------------------
    OpRow("diff", lambda lib, x, *parts, **options: x.diff(
        **options, **dict(zip(("prepend", "append"), parts))), (
        S((5,), label="1d"), S((3, 4), constants={"n": 2, "dim": 0}, label="n2-dim0"),
        S((3, 4), constants={"n": 0}, label="n0"),
        S((3, 4), constants={"n": 5}, label="n5"),
        S((3, 4), (3, 2), constants={"dim": 1}, label="prepend"),
        S((3, 4), (1, 4), (2, 4), constants={"dim": 0, "n": 2}, label="prepend-append"),
        T((3, 4), constants={"dim": 0})), ops=("diff",)),
    OpRow("diff_fn_bool", lambda lib, x: (lib.diff(x), lib.diff(x > 0)), (S((2, 5)),),
          ops=("diff",)),
    OpRow("gradient", lambda lib, x, **options: lib.stack(lib.gradient(x, **options)), (
        S((5,), label="1d"), S((4, 3), constants={"spacing": 2.0}, label="spacing"),
        S((4, 3), constants={"spacing": [2.0, 0.5], "edge_order": 2}, label="edge2"),
        S((3, 4, 3), constants={"dim": 1}, label="one-dim"),
        S((3, 3), constants={"dim": (0, -1), "spacing": (np.array([0.0, 0.5, 2.0]),
                                                         np.array([1.0, 1.5, 3.0]))},
          label="coordinates"),
        S((4, 3), constants={"dim": 0, "spacing": (np.array([0.0, 0.5, 2.0, 2.2]),),
                             "edge_order": 2}, label="coordinates-edge2")),
          ops=("gradient",)),
    OpRow("trapezoid", lambda lib, y, *x, **options: lib.trapezoid(y, *x, **options), (
        S((5,), label="unit"), S((3, 4), constants={"dx": 0.5, "dim": 0}, label="dx"),
        S((3, 4), (4,), label="x-1d"), S((3, 4), (3, 4), constants={"dim": 1}, label="x"),
        S((2, 3, 4), (3, 4), label="x-broadcast")), domain=_trapezoid_draw,
          ops=("trapezoid",)),
    OpRow("trapz", lambda lib, y, *x, **options: lib.trapz(y, *x, **options), (
        S((3, 4), constants={"dx": 2.0}, label="dx"), S((3, 4), (4,), label="x")),
          domain=_trapezoid_draw, ops=("trapz",)),
    OpRow("cumulative_trapezoid", lambda lib, y, *x, **options: lib.cumulative_trapezoid(
        y, *x, **options), (
        S((5,), label="unit"), S((3, 4), constants={"dx": 0.5, "dim": 0}, label="dx"),
        S((3, 4), (4,), label="x-1d"), S((3, 4), (3, 4), label="x"),
        S((3, 0), label="empty")), domain=_trapezoid_draw, ops=("cumulative_trapezoid",)),

    # ---- distances -----------------------------------------------------------------------
    OpRow("dist", lambda lib, a, b, **options: lib.dist(a, b, **options), (
        S((3, 4), (3, 4)), S((3, 4), (3, 4), constants={"p": 3.5}, label="p3.5"),
        S((2, 3), (3,), label="broadcast"), S((), (), label="0d")), domain=DISTINCT,
          ops=("dist",)),
    OpRow("dist_piecewise", lambda lib, a, b, **options: lib.dist(a, b, **options), (
        S((3, 4), (4,), constants={"p": 1}, label="p1-broadcast"),
        S((2, 3), (2, 3), constants={"p": float("inf")}, label="inf")), domain=DISTINCT,
          smooth=False, ops=("dist",)),
    OpRow("dist_method", lambda lib, a, b: a.dist(b, 1.5), (S((3, 4), (3, 4)),),
          domain=DISTINCT, ops=("dist",)),
    OpRow("cdist", lambda lib, a, b, **options: lib.cdist(a, b, **options), (
        S((3, 2), (4, 2)), S((2, 3, 4), (2, 5, 4), label="batched"),
        S((2, 1, 3, 2), (4, 2), constants={"p": 3.0}, label="broadcast-p3"),
        S((0, 2), (3, 2), label="empty"), S((3, 2), (1, 2), label="one-row")),
          domain=DISTINCT, ops=("cdist",)),
    OpRow("cdist_piecewise", lambda lib, a, b, **options: lib.cdist(a, b, **options), (
        S((2, 3, 4), (2, 5, 4), constants={"p": 1}, label="batched-p1"),
        S((3, 2), (4, 2), constants={"p": float("inf")}, label="inf"),
        S((3, 2), (4, 2), constants={"p": 0}, label="p0")),
          domain=DISTINCT, smooth=False, ops=("cdist",)),
    OpRow("renorm", lambda lib, x, **options: x.renorm(**options), (
        S((3, 4), constants={"p": 2, "dim": 0, "maxnorm": 1.0}, label="p2-dim0"),
        S((3, 4), constants={"p": 1, "dim": 1, "maxnorm": 2.0}, label="p1-dim1"),
        S((2, 3, 2), constants={"p": 3, "dim": -1, "maxnorm": 1.5}, label="p3-3d"),
        S((3, 4), constants={"p": 2, "dim": 0, "maxnorm": 100.0}, label="no-rescale")),
          domain=NONZERO, ops=("renorm",)),

    # ---- mode, nanmedian, msort ----------------------------------------------------------
    OpRow("nanmedian", lambda lib, x, **options: x.nanmedian(**options), (
        S((3, 4), label="all"), S((3, 4), constants={"dim": 1}, label="dim1"),
        S((2, 3, 2), constants={"dim": -2, "keepdim": True}, label="dim-keepdim"),
        S((), constants={"dim": 0}, label="0d"), T((3, 4), constants={"dim": 0}),
        K(_WITH_NAN, constants={"dim": 1}, label="nan"), K(_WITH_NAN, label="nan-all"),
        K([[2.0, 1.0, 1.0, 2.0, _NAN]], constants={"dim": 1}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("nanmedian",)),
    OpRow("mode", lambda lib, x, *args, **options: tuple(x.mode(*args, **options)), (
        S((3, 4), label="last"), S((3, 4), constants={"dim": 0, "keepdim": True},
                                   label="dim0-keepdim"),
        S((), label="0d"), S((2, 0), constants={"dim": 0}, label="empty"),
        K([[3.0, 1.0, 3.0, 1.0, 2.0], [2.0, 2.0, 5.0, 5.0, 5.0]], label="ties"),
        K([1.0, _NAN, _NAN, 2.0], label="nan")), domain=DISTINCT, smooth=False,
          ops=("mode",)),
    OpRow("msort", lambda lib, x: lib.msort(x), (S((4, 3)), S((5,)), S(()), T((3, 2))),
          domain=DISTINCT, smooth=False, ops=("msort",)),

    # ---- unique_consecutive --------------------------------------------------------------
    OpRow("unique_consecutive", lambda lib, x, **options: lib.unique_consecutive(x, **options), (
        _unique_sample([1.0, 1.0, 2.0, 2.0, 2.0, 1.0], "1d", return_inverse=True,
                          return_counts=True),
        _unique_sample([[1.0, 2.0], [1.0, 2.0], [0.0, 3.0]], "dim0", dim=0,
                          return_counts=True),
        _unique_sample([1.0, _NAN, _NAN], "nan"),
        _unique_sample(2.0, "0d", return_inverse=True),
        _unique_sample(np.zeros((2, 0, 3)), "empty-dim", dim=1, return_inverse=True)),
          smooth=False, ops=("unique_consecutive",)),

    # ---- searching and counting ----------------------------------------------------------
    OpRow("searchsorted", lambda lib, x, sequence, **options: (
        x * 2, lib.searchsorted(sequence, x, **options)), (
        S((3, 4), constants={"sequence": _SEQUENCE}, label="1d"),
        S((3, 4), constants={"sequence": _SEQUENCE, "right": True, "out_int32": True},
          label="right-int32"),
        S((2, 3), constants={"sequence": np.sort(np.random.default_rng(1).normal(size=(2, 5))),
                             "side": "right"}, label="batched"),
        S((4,), constants={"sequence": _SEQUENCE[::-1].copy(),
                           "sorter": np.arange(4, -1, -1)}, label="sorter")),
          ops=("searchsorted",)),
    OpRow("bucketize", _companion("bucketize"), (
        S((3, 4), constants={"boundaries": _SEQUENCE}, label="left"),
        S((), constants={"boundaries": _SEQUENCE, "right": True}, label="0d-right")),
          ops=("bucketize",)),
    OpRow("isin", lambda lib, x, test, **options: (x * 2, lib.isin(x.round(), test, **options)), (
        S((3, 4), constants={"test": np.array([-1.0, 1.0])}, label="tensor"),
        S((3, 4), constants={"test": 1.0, "invert": True}, label="number-invert")),
          ops=("isin",)),
    OpRow("histc", lambda lib, x, **options: (x * 2, lib.histc(x, **options).long()), (
        S((3, 4), constants={"bins": 5}, label="data-range"),
        S((10,), constants={"bins": 4, "min": -1, "max": 1}, label="range"),
        S((0,), constants={"bins": 3}, label="empty")), ops=("histc",)),
    OpRow("histogram", lambda lib, x, bins, **options: tuple(lib.histogram(
        x, bins if isinstance(bins, int) else bins.to(x.dtype), **options)), (
        _histogram_sample([0.5, 1.5, 1.5, 3.0], "count", bins=3),
        _histogram_sample([0.5, 1.5, 1.5, 3.0], "edges", bins=np.array([0.0, 1.0, 2.5])),
        _histogram_sample([0.5, 1.5, 2.0], "range-density", bins=2, range=(0.0, 4.0),
                          density=True)),
          smooth=False, ops=("histogram",)),
    OpRow("histogram_weighted", lambda lib, x, w: tuple(x.histogram(3, weight=w)), (
        Sample(values=(np.array([0.5, 1.5, 3.0]), np.array([1.0, 2.0, 0.5])),
               label="weights", bugs=NOT_IMPLEMENTED),), smooth=False, ops=("histogram",)),
    OpRow("histogramdd", lambda lib, x, **options: (
        lambda result: (result.hist, *result.bin_edges))(lib.histogramdd(x, **options)), (
        _histogram_sample([[0.5, 1.0], [1.5, 2.0], [1.5, 0.0]], "counts", bins=[2, 3]),
        _histogram_sample([[0.5, 1.0], [1.5, 2.0]], "one-count", bins=2, density=True),
        _histogram_sample([[0.5, 1.0], [1.5, 2.0]], "range", bins=2,
                          range=[0.0, 2.0, 0.0, 4.0])),
          smooth=False, ops=("histogramdd",)),
    OpRow("hash_tensor", lambda lib, x, **options: (x * 2, lib.hash_tensor(x, **options),
                                                    x.hash_tensor(**options) == 0), (
        S((3, 4), label="all"), S((3, 4), constants={"dim": 1, "keepdim": True}, label="dim1"),
        S((2, 3, 2), constants={"dim": (0, 2)}, label="dims"), S((), label="0d"),
        S((2, 0), constants={"dim": 0}, label="empty")), ops=("hash_tensor",)),
    OpRow("bincount", lambda lib, w, *, index: (w * 2, lib.bincount(index),
                                                lib.bincount(index, w, minlength=6)), (
        Sample(values=(np.array([0.5, 1.0, 2.0, 1.5]),),
               constants={"index": np.array([1, 3, 1, 0])}, label="weights",
               bugs=NOT_IMPLEMENTED),), smooth=False, ops=("bincount",)),

    # ---- NumPy's spellings of dim and keepdim --------------------------------------------
    OpRow("numpy_keywords", lambda lib, x: (_total(
        x.sum(axis=1, keepdims=True), lib.mean(x, axis=0), x.amax(axis=1),
        x.amin(axis=0, keepdims=True), x.max(axis=1).values,
        lib.min(x, axis=0, keepdims=True).values, x.nansum(axis=0), x.nanmean(axis=1),
        x.cumsum(axis=0), x.median(axis=0).values, x.sort(axis=0).values,
        x.cummax(axis=1).values, x.quantile(0.5, axis=1)),
        x.argmax(axis=1), (x > 0).any(axis=0), (x > 0).all(axis=1, keepdims=True)),
          (S((3, 4)),), domain=DISTINCT, smooth=False,
          ops=("sum", "mean", "amax", "amin", "max", "min", "nansum", "nanmean", "cumsum",
               "argmax", "any", "all", "median", "sort", "cummax", "quantile")),
    OpRow("numpy_keywords_smooth", lambda lib, x: _total(
        x.std(axis=1), x.var(axis=0, keepdims=True), x.prod(axis=1), x.logsumexp(axis=1)),
          (S((3, 4)),), domain=NONZERO, ops=("std", "var", "prod", "logsumexp")),
    OpRow("norm_nuc", lambda lib, x, **options: x.norm("nuc", **options), (
        S((3, 4)), S((2, 3, 4), constants={"dim": (1, 2)}, label="batched"),
        S((3, 4), constants={"keepdim": True}, label="keepdim")), ops=("norm",)),
    OpRow("sum_to_size_empty", lambda lib, x: x.sum_to_size(()), (S((3, 4)), S(())),
          ops=("sum_to_size",)),
)
