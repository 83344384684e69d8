"""tapegrad.nn.init: in-place weight initialisation with torch's fans, gains and defaults.

Every function fills its tensor in place under no_grad and returns it. Random draws are
torch's (tapegrad.manual_seed or `generator=`): after the same seed, the numbers torch's init
gives; orthogonal_ only to rounding (its QR runs in NumPy's LAPACK, torch's in MKL).
"""
from __future__ import annotations

import math

import tapegrad
from .._random import Generator
from .._tensor import Tensor
from .._warnings import warn

__all__ = ["calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_",
           "kaiming_uniform_", "normal_", "ones_", "orthogonal_", "sparse_", "trunc_normal_",
           "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_"]

_LINEAR_FUNCTIONS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                     "conv_transpose2d", "conv_transpose3d")


# ---- the two random fills (torch's Tensor.uniform_ / normal_) -------------------------------

def _check_floating(tensor, kernel):
    if not tensor.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{tensor.dtype.legacy_name}'")


def _fill_uniform(tensor, a, b, generator=None):
    _check_floating(tensor, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} "
                           f"> to={b:g}")
    with tapegrad.no_grad():  # Tensor.uniform_ draws torch's numbers
        return tensor.uniform_(a, b, generator=generator)


def _fill_normal(tensor, mean, std, generator=None):
    _check_floating(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    with tapegrad.no_grad():  # Tensor.normal_ draws torch's numbers
        return tensor.normal_(mean, std, generator=generator)


# ---- gains and fans ------------------------------------------------------------------------

def calculate_gain(nonlinearity: str, param: int | float | None = None) -> float:
    """The recommended scale for weights feeding the given nonlinearity (torch's table)."""
    if nonlinearity in _LINEAR_FUNCTIONS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): dims 1 and 0 times the receptive field (the product of dims 2+)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field_size = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---- fills ---------------------------------------------------------------------------------

def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Fill with U(a, b)."""
    return _fill_uniform(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std**2)."""
    return _fill_normal(tensor, mean, std, generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with val."""
    with tapegrad.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    with tapegrad.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with tapegrad.no_grad():
        return tensor.copy_(tapegrad.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight so that the convolution is the identity: a 1 at
    the kernel's centre for each (output, input) channel pair on the diagonal of each group."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.size(0) % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.size(0) // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with tapegrad.no_grad():
        tensor.zero_()
        for group in range(groups):
            for channel in range(min(per_group, tensor.size(1))):
                tensor[(group * per_group + channel, channel) + centre] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """Fill a 2-d tensor with N(0, std**2) and zero ceil(sparsity * rows) random rows of each
    column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with tapegrad.no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            # torch draws the rows from the default generator whatever `generator` is
            tensor[tapegrad.randperm(rows)[:zeros], column] = 0
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _fill_uniform(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _fill_normal(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """He's std, gain / sqrt(fan); None (after torch's warning) for an empty tensor."""
    if 0 in tensor.shape:
        warn("Initializing zero-element tensors is a no-op")
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return _fill_uniform(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else _fill_normal(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1,
                generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix from the QR of a normal draw, times gain."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tapegrad.randn(rows, cols, generator=generator, dtype=tensor.dtype)
    with tapegrad.no_grad():
        if rows < cols:
            flattened = flattened.t()
        q, r = tapegrad.linalg.qr(flattened)
        q = q * tapegrad.diag(r, 0).sign()  # makes the decomposition unique, as torch does
        if rows < cols:
            q = q.t()
        return tensor.copy_(q.reshape(tensor.shape) * gain)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std**2) restricted to [a, b], by rejection sampling as torch 2.13."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
             "distribution of values may be incorrect.")
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    with tapegrad.no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            result = _trunc_by_redrawing(tensor, mean, std, a, b, generator)
        else:
            result = _trunc_by_uniform_proposals(tensor, mean, std, a, b, generator)
        return tensor.copy_(result)


def _trunc_by_redrawing(tensor, mean, std, a, b, generator):
    """Redraw the out-of-range normal values until none is left (most mass is in range)."""
    result = _fill_normal(tapegrad.empty_like(tensor), mean, std, generator)
    while True:
        outside = (result < a) | (result > b)
        if not outside.any():
            return result
        redraw = _fill_normal(tapegrad.empty_like(tensor), mean, std, generator)
        result = tapegrad.where(outside, redraw, result)


def _trunc_by_uniform_proposals(tensor, mean, std, a, b, generator):
    """Uniform proposals on [a, b] accepted with the normal density over its peak in [a, b]."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(candidates):
        log_ratio = -0.5 * ((candidates - mean) / std) ** 2 - log_peak
        uniform = _fill_uniform(tapegrad.empty_like(tensor), 0.0, 1.0, generator)
        return uniform.log() > log_ratio

    result = _fill_uniform(tapegrad.empty_like(tensor), a, b, generator)
    pending = rejected(result)
    while pending.any():
        candidates = _fill_uniform(tapegrad.empty_like(tensor), a, b, generator)
        result = tapegrad.where(pending, candidates, result)
        pending = pending & rejected(candidates)
    return result
