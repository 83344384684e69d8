"""Resampling: interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear; area
through adaptive average pooling) and the deprecated upsample functions, each a linear map along
the trailing axes (pooling.py) whose gradient is the transposed map.
"""

import numpy as np

from . import reduction
from .conv import check_float
from .pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_axis, apply_map,
                      axis_map, check_nonempty_planes, linear_map)
from .._warnings import warn

# ---- resampling maps: which input elements each output element takes, with what weight -----

_upsample_nearest1d = linear_map("UpsampleNearest1D", "_upsample_nearest1d")
_upsample_nearest2d = linear_map("UpsampleNearest2D", "_upsample_nearest2d")
_upsample_nearest_exact1d = linear_map("UpsampleNearestExact1D", "_upsample_nearest_exact1d")
_upsample_nearest_exact2d = linear_map("UpsampleNearestExact2D", "_upsample_nearest_exact2d")
_upsample_linear1d = linear_map("UpsampleLinear1D", "_upsample_linear1d")
_upsample_bilinear2d = linear_map("UpsampleBilinear2D", "_upsample_bilinear2d")
_upsample_bicubic2d = linear_map("UpsampleBicubic2D", "_upsample_bicubic2d")
_upsample_nearest3d = linear_map("UpsampleNearest3D", "_upsample_nearest3d")
_upsample_nearest_exact3d = linear_map("UpsampleNearestExact3D", "_upsample_nearest_exact3d")
_upsample_trilinear3d = linear_map("UpsampleTrilinear3D", "_upsample_trilinear3d")
_adaptive_avg_pool3d = linear_map("AdaptiveAvgPool3D", "_adaptive_avg_pool3d", pooling=True)


def _source_scale(size, out, scale_factor, dtype):
    """Input positions per output position, as torch computes it (in dtype's precision)."""
    if scale_factor is not None and scale_factor > 0:
        return dtype.type(1.0 / scale_factor)
    return dtype.type(size) / dtype.type(out)


def _nearest_axis(size, out, scale_factor, exact, shortcuts):
    """shortcuts: torch's 2-d nearest kernel copies when out == size and halves indices when
    out == 2 * size, whatever the scale factor (its 1-d kernel does not)."""
    outputs = np.arange(out)
    if shortcuts and out == size:
        sources = outputs
    elif shortcuts and out == 2 * size:
        sources = outputs // 2
    else:
        scale = _source_scale(size, out, scale_factor, np.dtype(np.float32))
        offset = np.float32(0.5 if exact else 0)
        sources = np.minimum(np.floor((outputs.astype(np.float32) + offset) * scale)
                             .astype(np.int64), size - 1)
    return axis_map(outputs, sources, np.ones(out), out, size)


def _linear_axis(size, out, scale_factor, align_corners, dtype):
    outputs = np.arange(out)
    if out == size:  # whatever the scale factor, torch weighs each input 1 and itself again 0
        weights = np.concatenate([np.ones(out, dtype), np.zeros(out, dtype)])  # so inf -> NaN
        return axis_map(np.tile(outputs, 2), np.tile(outputs, 2), weights, out, size)
    if align_corners:
        scale = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        sources = scale * outputs.astype(dtype)
    else:
        scale = _source_scale(size, out, scale_factor, dtype)
        sources = np.maximum(scale * (outputs.astype(dtype) + dtype.type(0.5)) - dtype.type(0.5),
                             dtype.type(0))
    first = np.minimum(np.floor(sources).astype(np.int64), size - 1)
    fraction = np.clip(sources - first, 0, 1).astype(dtype)
    second = first + (first < size - 1)
    return axis_map(np.concatenate([outputs, outputs]), np.concatenate([first, second]),
                     np.concatenate([dtype.type(1) - fraction, fraction]), out, size)


# torch's cubic convolution kernel (Keys, with A = -0.75), for |x| <= 1 and for 1 < |x| < 2
_CUBIC_A = -0.75


def _cubic_near(x):
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far(x):
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _cubic_axis(size, out, scale_factor, align_corners, dtype):
    """Each output from the 4 inputs around its source position, the indices clamped to the
    edges (so an edge element may appear several times)."""
    outputs = np.arange(out)
    if align_corners:
        scale = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        sources = scale * outputs.astype(dtype)
    else:  # unlike linear, cubic does not clamp negative source positions to 0
        scale = _source_scale(size, out, scale_factor, dtype)
        sources = scale * (outputs.astype(dtype) + dtype.type(0.5)) - dtype.type(0.5)
    first = np.minimum(np.floor(sources).astype(np.int64), size - 1)
    fraction = np.clip(sources - first, 0, 1).astype(dtype)
    one = dtype.type(1)
    weights = [_cubic_far(fraction + one), _cubic_near(fraction), _cubic_near(one - fraction),
               _cubic_far(2 * one - fraction)]
    inputs = [np.clip(first + offset, 0, size - 1) for offset in (-1, 0, 1, 2)]
    return axis_map(np.tile(outputs, 4), np.concatenate(inputs),
                    np.concatenate(weights).astype(dtype), out, size)


# ---- interpolate ---------------------------------------------------------------------------

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_INTERPOLATING = "linear | bilinear | bicubic | trilinear"
# (mode, spatial dims) that torch resamples
_TORCH_RESAMPLERS = {(mode, nd) for mode in ("nearest", "nearest-exact", "area")
                     for nd in (1, 2, 3)} | {("linear", 1), ("bilinear", 2), ("bicubic", 2),
                                             ("trilinear", 3)}
# the kernel torch's error for an integer input names
_KERNEL_NAMES = {("nearest", 1): "compute_indices_weights_nearest",
                 ("nearest-exact", 1): "compute_indices_weights_nearest",
                 ("nearest", 2): "upsample_nearest2d_channels_last",
                 ("nearest-exact", 2): "upsample_nearest2d_channels_last",
                 ("nearest", 3): "compute_indices_weights_nearest",
                 ("nearest-exact", 3): "compute_indices_weights_nearest",
                 ("linear", 1): "compute_indices_weights_linear",
                 ("bilinear", 2): "upsample_bilinear2d_channels_last",
                 ("trilinear", 3): "compute_indices_weights_linear",
                 ("bicubic", 2): "compute_indices_weights_cubic"}
_RESAMPLERS = {("nearest", 1): _upsample_nearest1d, ("nearest", 2): _upsample_nearest2d,
               ("nearest", 3): _upsample_nearest3d,
               ("nearest-exact", 1): _upsample_nearest_exact1d,
               ("nearest-exact", 2): _upsample_nearest_exact2d,
               ("nearest-exact", 3): _upsample_nearest_exact3d,
               ("linear", 1): _upsample_linear1d, ("bilinear", 2): _upsample_bilinear2d,
               ("trilinear", 3): _upsample_trilinear3d, ("bicubic", 2): _upsample_bicubic2d}


def _interpolation_sizes(input, size, scale_factor, recompute_scale_factor):
    """(output sizes, scale factors given to the kernel or None), as torch's interpolate."""
    nd = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if not isinstance(size, (list, tuple)):
            return [size] * nd, None
        if len(size) != nd:
            raise ValueError("Input and output must have the same number of spatial dimensions,"
                             f" but got input with spatial dimensions of {spatial} and output "
                             f"size of {size}. Please provide input tensor in (N, C, d1, d2, "
                             "...,dK) format and output size in (o1, o2, ...,oK) format.")
        if not all(isinstance(s, int) for s in size):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            "Tuple[int, int, int], but got size with types "
                            f"{[type(s) for s in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != nd:
            raise ValueError("Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {spatial} "
                             f"and scale_factor of shape {scale_factor}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                             "s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * nd
    sizes = [int(n * s) for n, s in zip(spatial, scales)]
    return sizes, None if recompute_scale_factor else scales


def _check_output_sizes(input, sizes):
    if min(sizes) > 0 and min(input.shape[2:]) > 0:
        return
    names = ("D", "H", "W")[-len(sizes):]
    given, wanted = (", ".join(f"{name}: {value}" for name, value in zip(names, values))
                     for values in (input.shape[2:], sizes))
    joint = " and" if len(sizes) == 1 else ""  # torch's 1-d message says "and"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                       f"({given}){joint} output ({wanted})")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resampling of (N, C, L), (N, C, H, W) or (N, C, D, H, W) input. Differs from torch:
    antialias is not supported (NotImplementedError)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             f"modes: {_INTERPOLATING}")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _interpolation_sizes(input, size, scale_factor, recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    nd = input.ndim - 2
    if mode == "area" and nd in (1, 2):
        pool = adaptive_avg_pool1d if nd == 1 else adaptive_avg_pool2d
        return pool(input, sizes[0] if nd == 1 else sizes)
    if mode == "area" and nd == 3:
        return _adaptive_average_3d(input, sizes)
    wanted = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if wanted is not None and nd in (1, 2, 3) and nd != wanted:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{wanted + 2}D input")
    op = _RESAMPLERS.get((mode, nd))
    if op is None or antialias:
        if (mode, nd) in _TORCH_RESAMPLERS:
            raise NotImplementedError(f"tapegrad: interpolate(mode={mode!r}, antialias="
                                      f"{antialias}) of {input.ndim}-d input is not supported")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: {_MODES} (got {mode})")
    _check_output_sizes(input, sizes)
    check_float(_KERNEL_NAMES[mode, nd], input)
    # torch computes the positions and weights of half precision in float32 (its opmath)
    table_dtype = np.dtype(np.float32) if input.dtype.itemsize == 2 else input.dtype.numpy
    return apply_map(op, input, [
        _resampling_axis(mode, nd, n, out, scale, align_corners, table_dtype)
        for n, out, scale in zip(input.shape[2:], sizes, scales or [None] * nd)])


def _adaptive_average_3d(input, sizes):
    """torch's adaptive_avg_pool3d of 5-d input, as interpolate's area mode uses it."""
    if sizes == [1, 1, 1]:
        return reduction.mean(input, (-1, -2, -3), keepdim=True)
    check_nonempty_planes("adaptive_avg_pool3d", input)
    check_float("adaptive_avg_pool3d_cpu", input)
    return apply_map(_adaptive_avg_pool3d, input, [
        adaptive_axis(size, out, input.dtype.numpy) for size, out in zip(input.shape[2:], sizes)])


def _resampling_axis(mode, nd, size, out, scale_factor, align_corners, dtype):
    if mode in ("linear", "bilinear", "trilinear"):
        return _linear_axis(size, out, scale_factor, align_corners, dtype)
    if mode == "bicubic":
        return _cubic_axis(size, out, scale_factor, align_corners, dtype)
    exact = mode == "nearest-exact"
    return _nearest_axis(size, out, scale_factor, exact, shortcuts=not exact and nd == 2)


def _deprecated(name):
    warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
         "instead.")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate, under its deprecated name (with torch's warning)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """interpolate(mode='nearest'), deprecated (with torch's warning)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """interpolate(mode='bilinear', align_corners=True), deprecated (with torch's warning)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


NN_FUNCTIONS = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]
