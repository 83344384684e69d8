"""Counting: histc, histogram, histogramdd and bincount.

torch records a NotImplemented node for histogram, histogramdd and weighted bincount (their
results require grad when an input does, and backward raises); histc records none."""
import numbers

import numpy as np

from .._tensor import Tensor
from ._define import defop
from .pointwise import not_implemented_in_torch
from .reduction import return_type
from .shape import reshape

histogram_return = return_type("histogram", ("hist", "bin_edges"))
histogramdd_return = return_type("histogramdd", ("hist", "bin_edges"))


def _histogram_backward(ctx):
    # torch.histogram records its own node; histogramdd's hist comes from a helper op
    name = "histogram" if ctx.flat else "_histogramdd_from_bin_cts"
    raise RuntimeError(f"derivative for aten::{name} is not implemented")


def _linspace(xp, start, end, steps, dtype):
    """torch's linspace in dtype: the first half counted up from start, the rest down from end,
    so both ends are exact."""
    start, end = dtype.type(start), dtype.type(end)
    step = (end - start) / dtype.type(max(steps - 1, 1))
    positions = xp.arange(steps)
    halfway = steps // 2
    # the arrays lead (the same IEEE sums and products), so NumPy's scalars meet any device's
    return xp.where(positions < halfway, positions.astype(dtype) * step + start,
                    -((steps - 1 - positions).astype(dtype) * step) + end).astype(dtype)


def _bin_positions(xp, column, edges):
    """The bin of each value (-1 outside [first edge, last edge]); the last bin is closed."""
    bins = len(edges) - 1
    positions = xp.searchsorted(edges, column, side="right") - 1
    positions = xp.where(column == edges[-1], bins - 1, positions)
    inside = (column >= edges[0]) & (column <= edges[-1])
    return xp.where(inside, positions, -1)


def _count(xp, points, edges, weight, density):
    """The D-dimensional histogram of the rows of points (N, D) over the given bin edges."""
    shape = tuple(len(e) - 1 for e in edges)
    flat = xp.zeros(points.shape[0], xp.int64)
    inside = xp.ones(points.shape[0], bool)
    for d, column_edges in enumerate(edges):
        positions = _bin_positions(xp, points[:, d], column_edges)
        inside &= positions >= 0
        flat = flat * shape[d] + xp.maximum(positions, 0)
    weights = None if weight is None else weight.reshape(-1)[inside]
    counts = xp.bincount(flat[inside], weights=weights, minlength=int(np.prod(shape)))
    hist = counts.astype(points.dtype).reshape(shape)
    if density:
        hist = hist / points.dtype.type(hist.sum())
        for d, column_edges in enumerate(edges):
            along_d = [-1 if k == d else 1 for k in range(len(shape))]
            hist = hist / xp.diff(column_edges).reshape(along_d)
    return hist.astype(points.dtype)


def _outer_edges(xp, points, range, d):
    """(leftmost, rightmost) edge of dim d: range, or the data's, widened if they coincide."""
    if range is not None:
        low, high = float(range[2 * d]), float(range[2 * d + 1])
    elif points.shape[0]:
        low, high = float(points[:, d].min()), float(points[:, d].max())
    else:
        return 0.0, 1.0
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{low:g}, {high:g}] is not "
                           "finite")
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} "
                           f"max {high:g} for dimension {d}")
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _edges(xp, points, bins, range):
    """One array of bin edges per dim, from bin counts or given edges."""
    edges = []
    for d, spec in enumerate(bins):
        if isinstance(spec, numbers.Integral):
            low, high = _outer_edges(xp, points, range, d)
            edges.append(_linspace(xp, low, high, int(spec) + 1, points.dtype))
        else:
            edges.append(spec)
    return edges


def _histogramdd_forward(xp, input, weight, bins, range, density, flat):
    """(hist, edges...); flat: input holds 1-D samples (histogram), else rows of points."""
    points = input.reshape(-1, 1 if flat else input.shape[-1])
    weight = None if weight is None else weight.reshape(-1)
    edges = _edges(xp, points, bins, range)
    return (_count(xp, points, edges, weight, density),) + tuple(xp.array(e) for e in edges)


# torch's node has an edge to the weight only when a weight is given: two declarations
@defop("NotImplemented", save=("flat",), name="_histogramdd")
def _histogramdd(xp, input: Tensor, bins, range, density, flat):
    return _histogramdd_forward(xp, input, None, bins, range, density, flat)


@defop("NotImplemented", save=("flat",), name="_weighted_histogramdd")
def _weighted_histogramdd(xp, input: Tensor, weight: Tensor, bins, range, density, flat):
    return _histogramdd_forward(xp, input, weight, bins, range, density, flat)


_histogramdd.derivatives(input=_histogram_backward)
_weighted_histogramdd.derivatives(input=_histogram_backward, weight=_histogram_backward)


def _check_histogram(input, bins, range, weight):
    """torch's checks, in its order; bins is a list (one entry per dim)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = input.shape[-1]
    if len(bins) != dims:
        raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for a "
                           f"{dims}-dimensional histogram but got {len(bins)}")
    for d, spec in enumerate(bins):
        _check_bins(input, spec, d)
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    if weight is not None:
        if weight.dtype is not input.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor "
                               "and weight tensor should have the same dtype, but got "
                               f"input({_c_name(input.dtype)}), and "
                               f"weight({_c_name(weight.dtype)})")
        if weight.shape != input.shape[:-1]:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(input.shape)} and weight with shape {list(weight.shape)}")


def _check_bins(input, spec, d):
    if isinstance(spec, Tensor):
        if spec.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {spec.ndim} dimensions in the bins tensor for dimension {d}")
        if spec.dtype is not input.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {_c_name(input.dtype)} and bins for dimension {d} "
                f"with dtype {_c_name(spec.dtype)}")
    elif spec <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {spec} for "
                           f"dimension {d}")


def _c_name(dtype):
    """The C type name torch's histogram errors print."""
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "float16": "c10::Half", "bool": "bool"}.get(dtype.name, dtype.name)


def _run_histogram(input, bins, range, weight, density, flat=False):
    """(hist, edges...) of the rows of input (..., D), or of its values if flat; bins has one
    entry per dim. Differs from torch: given bin edges that require grad do not make the
    results require grad."""
    points, checked_weight = input, weight
    if flat:  # torch checks the samples as a column of points, and a weight of input's shape
        points = reshape(input, (-1, 1))
        if weight is not None and weight.shape == input.shape:
            checked_weight = reshape(weight, (-1,))
    _check_histogram(points, bins, range, checked_weight)
    bins = [b._data if isinstance(b, Tensor) else int(b) for b in bins]
    if weight is None:
        return _histogramdd(input, bins, range, density, flat)
    return _weighted_histogramdd(input, weight, bins, range, density, flat)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of the points in the rows of input (..., D): bins is a count for every
    dim, a count per dim, or a sequence of bin edges per dim."""
    dims = input.shape[-1] if input.ndim else 0
    if isinstance(bins, numbers.Integral):
        bins = [bins] * dims
    elif isinstance(bins, Tensor):
        bins = [bins]
    elif bins and not isinstance(bins[0], Tensor) and len(bins) != dims and input.ndim >= 2:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    hist, *edges = _run_histogram(input, list(bins), range, weight, density)
    return histogramdd_return(hist, tuple(edges))


def histogram(input, bins, *, range=None, weight=None, density=False):
    """The histogram of input's values: bins is a count or the bin edges."""
    hist, edges = _run_histogram(input, [bins], range, weight, density, flat=True)
    return histogram_return(hist, edges)


@defop(None)
def _histc(xp, input: Tensor, bins, min, max):
    values = input.ravel()
    low, high = input.dtype.type(min), input.dtype.type(max)
    positions = ((values - low) * input.dtype.type(bins) / (high - low)).astype(xp.int64)
    positions = xp.where(positions == bins, bins - 1, positions)  # the last bin is closed
    inside = (values >= low) & (values <= high)
    return xp.bincount(positions[inside], minlength=bins).astype(input.dtype)


def histc(input, bins=100, min=0, max=0):
    """Counts of input's values in `bins` equal bins over [min, max] (the data's range when
    min == max); values outside are not counted."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    low, high = float(min), float(max)
    if low == high and input.numel():
        low, high = float(input._data.min()), float(input._data.max())
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    if low == high:
        low, high = low - 1, high + 1
    return _histc(input, bins, low, high)


@defop(None)
def _bincount(xp, input: Tensor, minlength):
    return xp.bincount(input, minlength=minlength).astype(xp.int64)


@defop("NotImplemented")
def _weighted_bincount(xp, input, weights: Tensor, minlength):
    dtype = weights.dtype if weights.dtype == xp.float32 else xp.float64
    return xp.bincount(input, weights=weights, minlength=minlength).astype(dtype)


not_implemented_in_torch(_weighted_bincount, "bincount")


def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs in the 1-D input (summing weights instead of
    ones if given); a float32 sum for float32 weights, else float64."""
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype.name == "bool":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    if input.ndim != 1 or input.numel() and bool((input < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return _bincount(input, minlength)
    return _weighted_bincount(input._data, weights, minlength)


FUNCTIONS = ["bincount", "histc", "histogram", "histogramdd"]
METHODS = ["bincount", "histc", "histogram"]
