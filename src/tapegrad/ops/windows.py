"""Window functions: torch's factories hann_window, hamming_window, bartlett_window,
blackman_window and kaiser_window, the windows of torch.signal.windows (tapegrad.signal.windows
re-exports them), and the constants torch.pi, torch.e, torch.inf and torch.nan.

torch's *_window factories are native: they compute in the window's dtype, step by step (a
float32 Blackman window ends in -2.98e-08, not 0), and return a leaf. torch.signal.windows
composes ordinary ops (linspace, cos, exp, i0, ...) instead, so with requires_grad=True its
windows carry a grad_fn; they are composed here the same way.
"""
import math
from collections.abc import Iterable

import numpy as np

from .. import _creation, _dtype
from .._device import tensor_device
from .._layout import strided
from ._checks import is_number, overload_error, type_name
from .pointwise import minimum
from .special_unary import bessel_i_array, i0
from .unary import cos, exp, sin, sqrt


# ---- torch.*_window: native factories -----------------------------------------------------

_KEYWORDS = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
             "None, bool pin_memory = False, bool requires_grad = False")


def _window_dtype(name, window_length, periodic, floats, dtype, layout, device, pin_memory):
    """dtype, resolved, after torch's checks of the factory's arguments, in torch's order.
    floats: the window's float parameters (alpha, beta) as (name, value, default)."""
    if type(window_length) is not int:
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type_name(window_length)}")
    if type(periodic) is not bool or any(not is_number(value) or type(value) is bool
                                         for _, value, _ in floats):
        # the parameters given by position, as far as torch's error can tell them
        given = [window_length, periodic]
        given += [value for _, value, default in floats if value != default]
        parameters = ["int window_length", "bool periodic"]
        parameters += [f"float {parameter}" for parameter, _, _ in floats]
        raise overload_error(name, [", ".join(parameters[:i] + [_KEYWORDS])
                                    for i in range(1, len(parameters) + 1)], given)
    tensor_device(device, pin_memory=pin_memory)
    dtype = dtype or _dtype.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        from .._legacy_tensor_types import _C10_NAMES  # it imports the ops: not at load
        layout_text = "Strided (default)" if layout is None else "Strided"
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_C10_NAMES[dtype.name]}, device=cpu, layout={layout_text}, requires_grad=false "
            "(default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    return dtype


def _native_window(name, values, window_length, periodic, floats, dtype, layout, device,
                   pin_memory, requires_grad):
    """The window of `values(k, n, scalar)` at the points k = 0 .. n - 1 of arange(n), in the
    dtype's arithmetic (scalar makes a number of the dtype). A periodic window is the
    symmetric one of length + 1 without its last point; lengths 0 and 1 give [] and [1]."""
    dtype = _window_dtype(name, window_length, periodic, floats, dtype, layout, device,
                          pin_memory)
    if window_length <= 1:
        return _creation.ones(window_length, dtype=dtype, requires_grad=requires_grad)
    if dtype.is_complex:  # torch counts the points with arange, which has no complex kernel
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.legacy_name}'")
    n = window_length + 1 if periodic else window_length
    with np.errstate(all="ignore"):
        window = values(np.arange(n, dtype=dtype.numpy), n, dtype.numpy.type)
    return _creation.tensor(window[:window_length], dtype=dtype, requires_grad=requires_grad)


def _cosine_sum(alpha, beta):
    """alpha - beta cos(2 pi k / (n - 1))."""
    return lambda k, n, scalar: np.cos(k * scalar(2 * math.pi / (n - 1))) * scalar(-beta) \
        + scalar(alpha)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    return _native_window("hann_window", _cosine_sum(0.5, 0.5), window_length, periodic, (),
                          dtype, layout, device, pin_memory, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    floats = (("alpha", alpha, 0.54), ("beta", beta, 0.46))
    return _native_window("hamming_window", _cosine_sum(alpha, beta), window_length, periodic,
                          floats, dtype, layout, device, pin_memory, requires_grad)


def _bartlett_values(k, n, scalar):
    """1 - |2k / (n - 1) - 1|: the rising half, then 2 minus it."""
    window = k * scalar(2 / (n - 1))
    first_half = (n - 1) // 2 + 1
    window[first_half:] = window[first_half:] * scalar(-1) + scalar(2)
    return window


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _native_window("bartlett_window", _bartlett_values, window_length, periodic, (),
                          dtype, layout, device, pin_memory, requires_grad)


def _blackman_values(k, n, scalar):
    angle = k * scalar(math.pi / (n - 1))
    return (np.cos(angle * scalar(4)) * scalar(0.08) - np.cos(angle * scalar(2)) * scalar(0.5)
            + scalar(0.42))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _native_window("blackman_window", _blackman_values, window_length, periodic, (),
                          dtype, layout, device, pin_memory, requires_grad)


def _kaiser_values(beta):
    """I0(beta sqrt(1 - ((k - alpha) / alpha)^2)) / I0(beta), alpha = (n - 1) / 2; float16 in
    float32 (torch's kernel computes in its opmath type), the Bessel function in float64, as
    tapegrad's i0 computes it."""
    def values(k, n, scalar):
        if k.dtype.itemsize < 4:
            k, scalar = k.astype(np.float32), np.float32
        alpha = scalar((n - 1) / 2.0)
        argument = scalar(beta) * np.sqrt(scalar(1) - ((k - alpha) / alpha) ** 2)
        return (bessel_i_array(np, 0, argument.astype(np.float64))
                / bessel_i_array(np, 0, np.array([float(beta)])))
    return values


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    return _native_window("kaiser_window", _kaiser_values(beta), window_length, periodic,
                          (("beta", beta, 12.0),), dtype, layout, device, pin_memory,
                          requires_grad)


# ---- torch.signal.windows: composed of ops ------------------------------------------------

def _checked(name, M, dtype, layout):
    """dtype, resolved, after torch.signal.windows' checks of the common arguments."""
    dtype = dtype or _dtype.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _linspace(start, end, M, dtype, device, requires_grad):
    return _creation.linspace(start, end, M, dtype=dtype, device=device,
                              requires_grad=requires_grad)


def _symmetric_length(M, sym):
    """The length of the symmetric window a periodic one of M points is cut from."""
    return M if not sym and M > 1 else M - 1


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _creation.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if center is None:
        center = _symmetric_length(M, sym) / 2.0
    step = 1 / tau
    k = _linspace(-center * step, (-center + (M - 1)) * step, M, dtype, device, requires_grad)
    return exp(-abs(k))


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = _checked("cosine", M, dtype, layout)
    if M == 0:
        return _creation.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return sin(_linspace(0.5 * step, (0.5 + (M - 1)) * step, M, dtype, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _creation.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    start, step = -_symmetric_length(M, sym) / 2.0, 1 / (std * math.sqrt(2))
    k = _linspace(start * step, (start + (M - 1)) * step, M, dtype, device, requires_grad)
    return exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _creation.ones(M, dtype=dtype, device=device, requires_grad=requires_grad)
    beta = _creation.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * beta / (M if not sym else M - 1)
    # the last point may not pass beta, where the square root below would be nan
    end = minimum(beta, -beta + (M - 1) * step)
    k = _linspace(-beta, end, M, dtype, device, requires_grad)
    return i0(sqrt(beta * beta - k ** 2)) / i0(beta)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """sum_i (-1)^i a[i] cos(2 pi i k / (M - 1)) over the points k of the window."""
    dtype = _checked("general_cosine", M, dtype, layout)
    if M <= 1:
        return _creation.ones(M, dtype=dtype, device=device, requires_grad=requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * step, M, dtype, device, requires_grad)
    weights = _creation.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                               device=device, requires_grad=requires_grad)
    orders = _creation.arange(weights.shape[0], dtype=dtype, device=device,
                              requires_grad=requires_grad)
    return (weights.unsqueeze(-1) * cos(orders.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = _checked("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = _checked("bartlett", M, dtype, layout)
    if M <= 1:
        return _creation.ones(M, dtype=dtype, device=device, requires_grad=requires_grad)
    k = _linspace(-1, -1 + (M - 1) * (2 / (M if not sym else M - 1)), M, dtype, device,
                  requires_grad)
    return 1 - abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


SIGNAL_WINDOWS = ("bartlett blackman cosine exponential gaussian general_cosine general_hamming "
                  "hamming hann kaiser nuttall").split()
FUNCTIONS = {"hann_window": hann_window, "hamming_window": hamming_window,
             "bartlett_window": bartlett_window, "blackman_window": blackman_window,
             "kaiser_window": kaiser_window,
             "pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}
