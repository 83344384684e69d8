"""The statistics family beyond its op_db rows: torch's errors for bad arguments, its named
tuples, warnings, NumPy's keyword spellings, and backward raising where torch's does."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same, same_error, torch_or_skip


NAN = float("nan")


def X(lib, *shape, dtype="float32"):
    values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) % 7 - 3
    return lib.tensor(values, dtype=getattr(lib, dtype))


def V(lib, values, dtype=None):
    return lib.tensor(values, dtype=None if dtype is None else getattr(lib, dtype))


ERRORS = {
    # NaN-ignoring reductions, aminmax, trace
    "nanmean-int": lambda lib: V(lib, [1, 2]).nanmean(),
    "nanmean-int-dtype": lambda lib: X(lib, 2).nanmean(dtype=lib.int64),
    "nansum-int-dtype-grad": lambda lib: lib.ones(2, requires_grad=True).nansum(dtype=lib.int64),
    "nansum-dim-out-of-range": lambda lib: X(lib, 2, 3).nansum(2),
    "aminmax-empty": lambda lib: lib.zeros(0).aminmax(),
    "aminmax-empty-dim": lambda lib: lib.zeros(2, 0).aminmax(dim=1),
    "aminmax-dim-out-of-range": lambda lib: X(lib, 2, 3).aminmax(dim=2),
    "trace-3d": lambda lib: X(lib, 2, 3, 4).trace(),
    "trace-bool": lambda lib: V(lib, [[True]]).trace(),
    # std_mean, var_mean
    "std_mean-int": lambda lib: lib.std_mean(V(lib, [1, 2]), 0),
    "var_mean-dim-out-of-range": lambda lib: lib.var_mean(X(lib, 2, 3), 3),
    # quantile, nanquantile
    "quantile-q-above-1": lambda lib: X(lib, 2, 3).quantile(1.5),
    "quantile-q-tensor-out-of-range": lambda lib: X(lib, 2, 3).quantile(V(lib, [0.5, 2.0])),
    "quantile-q-2d": lambda lib: X(lib, 2, 3).quantile(V(lib, [[0.5]])),
    "quantile-q-dtype": lambda lib: X(lib, 2, 3).quantile(V(lib, [0.5], "float64")),
    "quantile-interpolation": lambda lib: X(lib, 2, 3).quantile(0.5, interpolation="foo"),
    "quantile-int": lambda lib: V(lib, [1, 2]).quantile(0.5),
    "quantile-empty": lambda lib: lib.zeros(2, 0).quantile(0.5, dim=0),
    "nanquantile-empty": lambda lib: lib.zeros(0).nanquantile(0.5),
    "quantile-dim-out-of-range": lambda lib: X(lib, 2, 3).quantile(0.5, dim=2),
    # cov, corrcoef
    "cov-3d": lambda lib: X(lib, 2, 2, 2).cov(),
    "cov-bool": lambda lib: V(lib, [[True, False]]).cov(),
    "cov-fweights-float": lambda lib: X(lib, 2, 3).cov(fweights=V(lib, [1.0, 2.0, 1.0])),
    "cov-fweights-2d": lambda lib: X(lib, 2, 3).cov(fweights=V(lib, [[1, 2, 1]])),
    "cov-fweights-numel": lambda lib: X(lib, 2, 3).cov(fweights=V(lib, [1, 2])),
    "cov-fweights-negative": lambda lib: X(lib, 2, 3).cov(fweights=V(lib, [1, -2, 1])),
    "cov-aweights-int": lambda lib: X(lib, 2, 3).cov(aweights=V(lib, [1, 2, 1])),
    "cov-aweights-negative": lambda lib: X(lib, 2, 3).cov(aweights=V(lib, [1.0, -2.0, 1.0])),
    "cov-weights-sum-zero": lambda lib: X(lib, 2, 3).cov(fweights=V(lib, [0, 0, 0])),
    "corrcoef-3d": lambda lib: X(lib, 2, 2, 2).corrcoef(),
    # cummax, cummin, logcumsumexp
    "cummax-dim-out-of-range": lambda lib: X(lib, 2, 3).cummax(2),
    "logcumsumexp-dim-out-of-range": lambda lib: X(lib, 2, 3).logcumsumexp(-3),
    "logcumsumexp-int": lambda lib: V(lib, [1, 3]).logcumsumexp(0),
    "logcumsumexp-bool": lambda lib: V(lib, [True]).logcumsumexp(0),
    # diff, gradient, trapezoid
    "diff-negative-n": lambda lib: X(lib, 5).diff(n=-1),
    "diff-0d": lambda lib: lib.diff(V(lib, 1.0)),
    "diff-prepend-ndim": lambda lib: X(lib, 2, 3).diff(prepend=X(lib, 3)),
    "diff-append-shape": lambda lib: X(lib, 2, 3).diff(dim=0, append=X(lib, 1, 4)),
    "gradient-edge-order": lambda lib: lib.gradient(X(lib, 5), edge_order=3),
    "gradient-too-short": lambda lib: lib.gradient(X(lib, 2, 5), edge_order=2),
    "gradient-spacing-length": lambda lib: lib.gradient(X(lib, 3, 3), spacing=[1.0, 2.0, 3.0]),
    "gradient-spacing-dim-length": lambda lib: lib.gradient(X(lib, 3, 3), spacing=[1.0],
                                                            dim=[0, 1]),
    "gradient-spacing-0d-tensor": lambda lib: lib.gradient(X(lib, 3, 3), spacing=(V(lib, 2.0),),
                                                           dim=0),
    "trapezoid-bool": lambda lib: lib.trapezoid(V(lib, [True, False])),
    "trapezoid-x-length": lambda lib: lib.trapezoid(X(lib, 3, 4), X(lib, 3)),
    "trapezoid-0d": lambda lib: lib.trapezoid(V(lib, 1.0)),
    "cumulative_trapezoid-x-length": lambda lib: lib.cumulative_trapezoid(X(lib, 4), X(lib, 3)),
    # dist, cdist, renorm
    "dist-int": lambda lib: lib.dist(V(lib, [1, 2]), V(lib, [1, 3])),
    "dist-broadcast": lambda lib: lib.dist(X(lib, 3, 4), X(lib, 5)),
    "cdist-1d": lambda lib: lib.cdist(X(lib, 3), X(lib, 3)),
    "cdist-columns": lambda lib: lib.cdist(X(lib, 2, 3), X(lib, 4, 2)),
    "cdist-negative-p": lambda lib: lib.cdist(X(lib, 2, 3), X(lib, 4, 3), p=-1),
    "cdist-int": lambda lib: lib.cdist(V(lib, [[1, 2]]), V(lib, [[1, 2]])),
    "cdist-dtypes": lambda lib: lib.cdist(X(lib, 2, 3), X(lib, 4, 3, dtype="float64")),
    "cdist-batch": lambda lib: lib.cdist(X(lib, 2, 2, 3), X(lib, 3, 4, 3)),
    "cdist-compute-mode": lambda lib: lib.cdist(X(lib, 2, 3), X(lib, 4, 3), compute_mode="foo"),
    "renorm-dim-out-of-range": lambda lib: X(lib, 3, 4).renorm(2, 2, 1.0),
    "renorm-p": lambda lib: X(lib, 3, 4).renorm(-1, 0, 1.0),
    "renorm-maxnorm": lambda lib: X(lib, 3, 4).renorm(2, 0, -1.0),
    "renorm-1d": lambda lib: X(lib, 3).renorm(2, 0, 1.0),
    "renorm-int": lambda lib: V(lib, [[1, 2]]).renorm(2, 0, 1.0),
    # nanmedian, mode
    "nanmedian-bool": lambda lib: V(lib, [True]).nanmedian(),
    "nanmedian-empty-dim": lambda lib: lib.zeros(2, 0).nanmedian(1),
    "mode-empty-dim": lambda lib: lib.zeros(2, 0).mode(1),
    "mode-dim-out-of-range": lambda lib: X(lib, 2, 3).mode(2),
    # unique_consecutive
    "unique_consecutive-0d-dim": lambda lib: lib.unique_consecutive(V(lib, 1.0), dim=0),
    # searchsorted, bucketize
    "searchsorted-side": lambda lib: lib.searchsorted(V(lib, [1, 3, 5]), 3, side="foo"),
    "searchsorted-side-and-right": lambda lib: lib.searchsorted(V(lib, [1, 3, 5]), 3,
                                                                side="left", right=True),
    "searchsorted-batch-shape": lambda lib: lib.searchsorted(V(lib, [[1, 3, 5], [2, 4, 6]]),
                                                             V(lib, [3, 4])),
    "searchsorted-0d-sequence": lambda lib: lib.searchsorted(V(lib, 1), V(lib, [3])),
    "searchsorted-sorter-size": lambda lib: lib.searchsorted(V(lib, [5, 1, 3]), V(lib, [3]),
                                                             sorter=V(lib, [1, 2])),
    "bucketize-2d-boundaries": lambda lib: lib.bucketize(V(lib, [3, 4]), V(lib, [[1, 3, 5]])),
    # histc, histogram, histogramdd, bincount
    "histc-int": lambda lib: V(lib, [1, 2]).histc(bins=3),
    "histc-bins": lambda lib: X(lib, 4).histc(bins=0),
    "histc-min-above-max": lambda lib: X(lib, 4).histc(bins=3, min=3, max=1),
    "histc-infinite": lambda lib: V(lib, [1.0, float("inf")]).histc(bins=3),
    "histogram-int": lambda lib: lib.histogram(V(lib, [1, 2]), 3),
    "histogram-bins": lambda lib: lib.histogram(X(lib, 4), 0),
    "histogram-bins-2d": lambda lib: lib.histogram(X(lib, 4), V(lib, [[1.0, 2.0]])),
    "histogram-bins-dtype": lambda lib: lib.histogram(X(lib, 4), V(lib, [1.0, 2.0], "float64")),
    "histogram-range-order": lambda lib: lib.histogram(X(lib, 4), 3, range=(3.0, 1.0)),
    "histogram-range-infinite": lambda lib: lib.histogram(X(lib, 4), 2,
                                                          range=(0.0, float("inf"))),
    "histogram-weight-shape": lambda lib: lib.histogram(X(lib, 4), 3, weight=lib.ones(3)),
    "histogram-weight-dtype": lambda lib: lib.histogram(X(lib, 2), 2, weight=V(lib, [1, 2])),
    "histogramdd-1d": lambda lib: lib.histogramdd(X(lib, 2), 2),
    "histogramdd-bins-size": lambda lib: lib.histogramdd(X(lib, 3, 2), [2]),
    "histogramdd-range-size": lambda lib: lib.histogramdd(X(lib, 3, 2), 2, range=[0.0, 1.0]),
    "histogramdd-edges-count": lambda lib: lib.histogramdd(X(lib, 3, 2), [V(lib, [0.0, 1.0])]),
    "bincount-negative": lambda lib: lib.bincount(V(lib, [1, -3, 1])),
    "bincount-float": lambda lib: lib.bincount(V(lib, [1.0, 3.0])),
    "bincount-2d": lambda lib: lib.bincount(V(lib, [[1, 3]])),
    "bincount-minlength": lambda lib: lib.bincount(V(lib, [1, 2]), minlength=-1),
    "bincount-weights-length": lambda lib: lib.bincount(V(lib, [1, 2]), weights=lib.ones(3)),
    "hash_tensor-empty": lambda lib: lib.zeros(0).hash_tensor(),
    "hash_tensor-empty-dim": lambda lib: lib.zeros(2, 0).hash_tensor(1),
    "hash_tensor-mode": lambda lib: X(lib, 2, 3).hash_tensor(mode=1),
    "uint64-promotion": lambda lib: lib.promote_types(lib.uint64, lib.int64),
    # NumPy's keyword spellings, where torch takes them and where it does not
    "sum-dim-and-axis": lambda lib: X(lib, 2, 3).sum(dim=1, axis=1),
    "sum-positional-and-axis": lambda lib: X(lib, 2, 3).sum(1, axis=1),
    "sum-keepdim-and-keepdims": lambda lib: X(lib, 2, 3).sum(1, keepdim=True, keepdims=True),
    "cumsum-keepdims": lambda lib: X(lib, 2, 3).cumsum(axis=1, keepdims=True),
    "cummax-keepdims": lambda lib: X(lib, 2, 3).cummax(dim=1, keepdims=True),
    # backward through the nodes whose derivative torch does not implement
    "unique_consecutive-backward": lambda lib: lib.unique_consecutive(
        lib.ones(3, requires_grad=True)).sum().backward(),
    "histogram-backward": lambda lib: lib.histogram(
        lib.ones(3, requires_grad=True), 2).hist.sum().backward(),
    "histogramdd-backward": lambda lib: lib.histogramdd(
        lib.ones(3, 2, requires_grad=True), 2).hist.sum().backward(),
    "bincount-backward": lambda lib: lib.bincount(
        V(lib, [0, 1, 1]), lib.ones(3, requires_grad=True)).sum().backward(),
}


@pytest.mark.parametrize("name", ERRORS)
def test_statistics_errors_match_torch(name):
    same_error(ERRORS[name])


VALUES_AND_INDICES = ("values", "indices")
NAMED_TUPLES = {
    "aminmax": (("min", "max"), lambda lib: X(lib, 2, 3).aminmax(dim=1)),
    "cummax": (VALUES_AND_INDICES, lambda lib: X(lib, 2, 3).cummax(0)),
    "cummin": (VALUES_AND_INDICES, lambda lib: lib.cummin(X(lib, 2, 3), 1)),
    "mode": (VALUES_AND_INDICES, lambda lib: X(lib, 2, 3).mode()),
    "nanmedian": (VALUES_AND_INDICES, lambda lib: X(lib, 2, 3).nanmedian(0)),
    "histogram": (("hist", "bin_edges"), lambda lib: X(lib, 6).histogram(3)),
    "histogramdd": (("hist", "bin_edges"), lambda lib: lib.histogramdd(X(lib, 3, 2), 2)),
}


@pytest.mark.parametrize("name", NAMED_TUPLES)
def test_statistics_named_tuples_match_torch(name):
    fields, scenario = NAMED_TUPLES[name]

    def shape_of(lib):
        result = scenario(lib)
        by_name = [getattr(result, field) is result[i] for i, field in enumerate(fields)]
        return type(result).__name__, len(result), by_name, repr(result).split("(")[0]
    same(shape_of)


def test_histogramdd_bin_edges_are_a_tuple():
    same(lambda lib: type(lib.histogramdd(X(lib, 3, 2), [2, 3]).bin_edges).__name__)


def _values(result):
    if isinstance(result, tuple):
        return [_values(r) for r in result]
    return str(result.dtype), repr(result.detach().numpy().tolist())  # repr: nan == nan


VALUES = {
    # ties, NaNs and edge cases the op_db rows compare less directly
    "mode-ties": lambda lib: V(lib, [3.0, 1.0, 3.0, 1.0, 2.0]).mode(),
    "mode-nan": lambda lib: V(lib, [NAN, NAN]).mode(),
    "mode-bool": lambda lib: V(lib, [True, False, True]).mode(),
    "cummax-ties-and-nan": lambda lib: V(lib, [1.0, 1.0, NAN, 3.0, NAN]).cummax(0),
    "nanmedian-all-nan-row": lambda lib: V(lib, [[NAN, NAN], [1.0, NAN]]).nanmedian(1),
    "nanmedian-int": lambda lib: V(lib, [1, 2, 3]).nanmedian(),
    "quantile-nearest-half-even": lambda lib: V(lib, [1.0, 2.0, 3.0, 4.0]).quantile(
        V(lib, [0.25, 0.5, 0.9]), interpolation="nearest"),
    "unique_consecutive-all": lambda lib: lib.unique_consecutive(
        V(lib, [1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 1.0]), return_inverse=True, return_counts=True),
    "histogram-equal-values": lambda lib: lib.histogram(V(lib, [2.0, 2.0]), 2),
    "histogram-empty": lambda lib: lib.histogram(lib.zeros(0), 2),
    "histc-equal-values": lambda lib: lib.histc(V(lib, [2.0, 2.0]), 2),
    "bincount-weights-dtypes": lambda lib: (
        lib.bincount(V(lib, [1, 3, 1]), V(lib, [0.5, 1.0, 2.0])),
        lib.bincount(V(lib, [1, 3, 1]), V(lib, [1, 2, 3]), 6)),
    "bincount-empty": lambda lib: lib.bincount(V(lib, [], "int64")),
    "hash_tensor-dtypes": lambda lib: (
        lib.hash_tensor(V(lib, [True, False, True])), lib.hash_tensor(V(lib, [-1, 3], "int8")),
        lib.hash_tensor(V(lib, [1.5, 2.5], "float16")), lib.hash_tensor(lib.zeros(2, 0), 0)),
    "diff-n0-with-prepend": lambda lib: lib.diff(X(lib, 2, 3), n=0, prepend=X(lib, 2, 1)),
    "diff-int-promotes-prepend": lambda lib: lib.diff(V(lib, [1, 5, 2]), prepend=V(lib, [0.5])),
    "gradient-int": lambda lib: lib.gradient(V(lib, [1, 4, 9])),
    "gradient-0d": lambda lib: lib.gradient(V(lib, 1.0)),
    "trapezoid-int": lambda lib: (lib.trapezoid(V(lib, [1, 2, 3])),
                                  lib.trapezoid(V(lib, [1, 2, 3]), dx=2)),
    "trapezoid-empty": lambda lib: (lib.trapezoid(lib.zeros(2, 0)),
                                    lib.cumulative_trapezoid(lib.zeros(2, 0))),
    "isin-numbers": lambda lib: (lib.isin(V(lib, [1, 2, 3]), 2), lib.isin(2, V(lib, [1, 2]))),
    "bucketize-number": lambda lib: lib.bucketize(3, V(lib, [1, 3, 5])),
    "searchsorted-number-right": lambda lib: lib.searchsorted(V(lib, [1, 3, 5]), 3,
                                                              side="right"),
    "norm-nuc-keepdim": lambda lib: X(lib, 2, 3, dtype="float64").norm("nuc", keepdim=True),
    "sum-to-size-0d": lambda lib: V(lib, 2.5).sum_to_size(()),
    "numpy-keywords": lambda lib: (
        X(lib, 2, 3).sum(axis=1, keepdims=True), X(lib, 2, 3).max(axis=0, keepdims=True),
        lib.argmin(X(lib, 2, 3), axis=1), X(lib, 2, 3).cumprod(axis=1),
        X(lib, 2, 3).count_nonzero(axis=0), lib.std_mean(X(lib, 2, 3), axis=1, keepdims=True),
        X(lib, 2, 3).aminmax(axis=0, keepdims=True), X(lib, 2, 3).kthvalue(1, axis=1)),
}


@pytest.mark.parametrize("name", VALUES)
def test_statistics_values_match_torch(name):
    same(lambda lib: _values(VALUES[name](lib)))


def _degrees_of_freedom_warning(lib, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(lib)
    return [str(w.message).split(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.std_mean(lib.ones(1), 0),
    lambda lib: lib.var_mean(lib.ones(2, 3), 1, correction=3),
    lambda lib: lib.cov(lib.ones(2, 1)),
], ids=["std_mean", "var_mean", "cov"])
def test_statistics_warnings_match_torch(scenario):
    same(lambda lib: _degrees_of_freedom_warning(lib, scenario))


def test_var_mean_warning_points_at_the_caller():
    with pytest.warns(UserWarning, match="degrees of freedom") as record:
        tapegrad.var_mean(tapegrad.ones(1))
    assert record[0].filename == __file__


def test_grad_fn_names_match_torch():
    torch_or_skip()

    def names(lib):
        x = lib.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], requires_grad=True)
        y = lib.tensor([[0.5, 1.0, 1.5]], requires_grad=True)
        results = [x.nansum(), x.nanmean(), x.aminmax().min, lib.std_mean(x)[0],
                   lib.var_mean(x, 1)[1], x.cummax(1).values, x.cummin(0).values,
                   x.logcumsumexp(1), x.trace(), x.diff(), lib.gradient(x)[0],
                   lib.trapezoid(x), lib.trapezoid(x, dx=2.0), lib.cumulative_trapezoid(x),
                   x.cov(), x.corrcoef(), lib.dist(x, y), lib.cdist(x, y), x.renorm(2, 0, 1.0),
                   x.nanmedian(), x.nanmedian(0).values, x.mode().values, x.msort(),
                   x.quantile(0.5), lib.unique_consecutive(x), x.norm("nuc")]
        return [type(r.grad_fn).__name__ for r in results]
    same(names)
