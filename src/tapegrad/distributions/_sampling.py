"""The samplers that tapegrad's ops lack (standard gamma, Dirichlet, binomial), with the implicit
reparameterisation gradients of the gamma and Dirichlet draws.

On the cpu they are torch's CPU kernels, drawn element by element from the cpu generator in
torch's order, so that a shared seed gives torch's numbers. On a cuda device there is no torch
stream to equal (torch's CUDA kernels draw otherwise too), so the same methods are written as
vectorized rejection on the device's array module, drawing from the device's generator
(_random.py, Note [Two sources]): each round draws for the elements still open only, and the
loop runs over rounds, not elements."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import tapegrad
from tapegrad import _backend, _mt, _random
from tapegrad.ops._scipy_of import scipy_of
from tapegrad._tensor import Tensor
from tapegrad.autograd import Function, once_differentiable

_F32 = np.float32
_Array = np.ndarray[Any, Any]


def _uniform(generator: Any) -> float:
    return float(_mt._standard_uniform(generator, 1, np.dtype(np.float64))[0])


def _normal(generator: Any) -> float:
    return float(_mt._scalar_normals(generator, 1)[0])


def _gamma_one(generator: Any, alpha: float, single: bool) -> float:
    """One draw of torch's sample_gamma: Marsaglia and Tsang's rejection in double, with
    alpha < 1 boosted by a uniform power; for float32 (single) the kernel's float steps on
    alpha are kept (alpha + 1, alpha - 1/3 and 1/alpha are float arithmetic there)."""
    real = _F32 if single else float
    alpha, scale = real(alpha), 1.0
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        scale *= (1 - _uniform(generator)) ** float(real(1.0) / alpha)
        alpha = real(alpha + real(1.0))
    d = float(alpha - real(_F32(1.0) / _F32(3.0)))  # the kernel's 1.0f / 3.0f
    c = 1.0 / math.sqrt(9.0 * d)
    squeeze = float(_F32(0.0331))  # a float constant in the kernel
    while True:
        x = _normal(generator)
        y = 1.0 + c * x
        if y <= 0:
            continue
        v = y * y * y
        u = 1 - _uniform(generator)
        xx = x * x
        if u < 1.0 - squeeze * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma_array(alpha: _Array) -> _Array:
    """Gamma(alpha, 1) draws for the array alpha (C order), as torch._standard_gamma: at least
    the dtype's smallest normal number."""
    if _backend.on_device(alpha):
        drawn = _device_gamma(_device_source(alpha), alpha.astype(np.float64).reshape(-1))
        return _backend.array_module(alpha).maximum(
            drawn.astype(alpha.dtype).reshape(alpha.shape), np.finfo(alpha.dtype).tiny)
    generator = _random.torch_generator(None)  # the default one, as distributions draw
    single = alpha.dtype == np.float32
    flat = [_gamma_one(generator, a, single) for a in alpha.reshape(-1).tolist()]
    drawn = np.array(flat, dtype=np.float64).astype(alpha.dtype).reshape(alpha.shape)
    return np.maximum(drawn, np.finfo(alpha.dtype).tiny)


def dirichlet_array(concentration: _Array) -> _Array:
    """torch._sample_dirichlet: gammas drawn in double, normalised along the last dim, then
    kept inside (0, 1) in the concentration's dtype."""
    xp = _backend.array_module(concentration)
    if xp is np:
        generator = _random.torch_generator(None)  # the default one, as distributions draw
        flat = np.array([_gamma_one(generator, a, False)
                         for a in concentration.reshape(-1).tolist()])
    else:
        flat = _device_gamma(_device_source(concentration),
                             concentration.astype(np.float64).reshape(-1))
    gammas = xp.maximum(flat.reshape(concentration.shape), np.finfo(np.float64).tiny)
    ratios = (gammas / gammas.sum(-1, keepdims=True)).astype(concentration.dtype)
    dtype = concentration.dtype.type
    return xp.clip(ratios, np.finfo(dtype).tiny, np.nextafter(dtype(1), dtype(0)))


def _device_source(array: Any) -> Any:
    """The draws of the default generator of array's device."""
    return _random.draws(None, _backend.device_of(array))


_SQUEEZE = float(_F32(0.0331))  # Marsaglia and Tsang's squeeze, a float constant in torch


def _device_gamma(source: Any, alpha: Any) -> Any:
    """Gamma(alpha, 1) draws in float64 for the flat float64 array alpha on a device:
    Marsaglia and Tsang's rejection with alpha < 1 boosted by a uniform power, as _gamma_one,
    vectorized (nearly every round accepts over 95% of those still open)."""
    xp, double = source.xp, np.dtype(np.float64)
    small = alpha < 1
    d = xp.where(small, alpha + 1, alpha) - 1 / 3
    c = 1 / xp.sqrt(9 * d)
    samples = xp.zeros_like(alpha)  # alpha = 0 draws 0
    open_ = xp.flatnonzero(alpha != 0)
    with np.errstate(all="ignore"):  # rejected draws (y <= 0) pass through the logarithm
        while open_.size:
            x = source.standard_normal(open_.size, double)
            u = 1 - source.unit(open_.size, double)  # in (0, 1]: its logarithm is finite
            d_open = d[open_]
            y = 1 + c[open_] * x
            v, xx = y * y * y, x * x
            # not `y > 0`: a NaN alpha is accepted by the squeeze (and draws NaN), as on the cpu
            accepted = ~(y <= 0) & ((u < 1 - _SQUEEZE * xx * xx)
                                    | (xp.log(u) < 0.5 * xx + d_open * (1 - v + xp.log(v))))
            samples[open_[accepted]] = (d_open * v)[accepted]
            open_ = open_[~accepted]
        if bool(small.any()):
            boost = (1 - source.unit(alpha.size, double)) ** (1 / alpha)
            samples = xp.where(small, samples * boost, samples)
    return samples


def _step(xp: Any, a: Any) -> Any:
    # central differences in a: the regularised incomplete functions are smooth in it
    return 1e-5 * xp.maximum(a, 1e-3)


def standard_gamma_grad(alpha: Any, x: Any) -> Any:
    """dx/dalpha for x = F^-1(u; alpha) held at fixed u: -dF/dalpha / density (arrays of any
    device; SciPy's special functions there)."""
    xp = _backend.array_module(alpha)
    special = scipy_of(xp, "special", alpha, "Gamma.rsample's gradient",
                       "the gradient of Gamma.rsample")
    alpha, x = alpha.astype(np.float64), x.astype(np.float64)
    h = _step(xp, alpha)
    dcdf = (special.gammainc(alpha + h, x) - special.gammainc(alpha - h, x)) / (2 * h)
    log_density = (alpha - 1) * xp.log(x) - x - special.gammaln(alpha)
    return -dcdf / xp.exp(log_density)


def dirichlet_grad(x: Any, alpha: Any, total: Any) -> Any:
    """torch._dirichlet_grad: dx/dalpha for x ~ Beta(alpha, total - alpha) held at its
    quantile with beta fixed, divided by 1 - x (Dirichlet's backward then couples the
    components); arrays of any device."""
    xp = _backend.array_module(alpha)
    special = scipy_of(xp, "special", alpha, "Dirichlet.rsample's gradient",
                       "the gradient of Dirichlet.rsample")
    x, alpha, total = (v.astype(np.float64) for v in (x, alpha, total))
    h = _step(xp, alpha)
    beta = total - alpha
    dcdf = (special.betainc(alpha + h, beta, x) - special.betainc(alpha - h, beta, x)) / (2 * h)
    log_density = ((alpha - 1) * xp.log(x) + (beta - 1) * xp.log1p(-x)
                   - special.betaln(alpha, beta))
    return -dcdf / xp.exp(log_density) / (1 - x)


_CUDA_DTYPES = (tapegrad.float16, tapegrad.float32, tapegrad.float64)


def check_kernel(kernel: str, like: Tensor) -> None:
    """torch's CPU samplers exist for float and double only, its CUDA ones for half too (they
    compute in float or double, as these do in double)."""
    if like.device.type == "cpu":
        if like.dtype not in (tapegrad.float32, tapegrad.float64):
            raise _random.not_implemented(kernel, like.dtype)
    elif like.dtype not in _CUDA_DTYPES:
        raise _random.not_implemented(kernel.replace("_cpu", "_cuda"), like.dtype)


def _array(tensor: Tensor) -> Any:
    return tensor.detach()._data


def _as_tensor(array: Any, like: Tensor) -> Tensor:
    """array (of like's device) as a new tensor of like's dtype."""
    return Tensor._make(array.astype(like._data.dtype, copy=False), like.dtype)


class StandardGamma(Function):
    """torch._standard_gamma with its reparameterisation gradient."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        check_kernel("gamma_cpu", concentration)
        x = _as_tensor(standard_gamma_array(_array(concentration)), concentration)
        ctx.save_for_backward(concentration, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        concentration, x = ctx.saved_tensors
        grad = standard_gamma_grad(_array(concentration), _array(x))
        return grad_output * _as_tensor(grad, x)


# torch's _standard_gamma is a native op with a generated node
StandardGamma._backward_cls.__name__ = StandardGamma._backward_cls.__qualname__ = (
    "StandardGammaBackward0")


class _Dirichlet(Function):
    """torch._sample_dirichlet with the gradient torch's Dirichlet.rsample gives."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        check_kernel("dirichlet", concentration)
        x = _as_tensor(dirichlet_array(_array(concentration)), concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _as_tensor(dirichlet_grad(_array(x), _array(concentration), _array(total)), x)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


def _stirling_tail(k: float) -> float:
    """log k! minus its Stirling approximation (torch tabulates k < 10 to the same values)."""
    if k < 10:
        return math.lgamma(k + 1) - (k + 0.5) * math.log(k + 1) + (k + 1) - 0.5 * math.log(
            2 * math.pi)
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(generator: Any, count: float, prob: float) -> float:
    # counts geometric waiting times until they pass count
    log_q, total, successes = math.log1p(-prob), 0.0, 0
    while True:
        total += math.ceil(math.log(_uniform(generator)) / log_q)
        if total > count:
            return successes
        successes += 1


def _binomial_btrs(generator: Any, count: float, prob: float) -> float:
    """Hoermann's transformed rejection (BTRS), with torch's variant of the bound."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = _uniform(generator) - 0.5
        v = _uniform(generator)
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _binomial_one(generator: Any, count: float, prob: float) -> float:
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        sampler = _binomial_btrs if count * prob >= 10.0 else _binomial_inversion
        return sampler(generator, count, prob)
    if prob > 0.5:
        q = 1.0 - prob
        sampler = _binomial_btrs if count * q >= 10.0 else _binomial_inversion
        return count - sampler(generator, count, q)
    return math.nan


def binomial_array(count: Any, prob: Any, generator: Any = None) -> Any:
    """torch.binomial's draws for arrays count and prob of one shape (C order), of any
    device, from generator (None: the device's default one, as distributions draw)."""
    if _backend.on_device(count):
        source = _random.draws(generator, _backend.device_of(count))
        drawn = _device_binomial(source, count.astype(np.float64).reshape(-1),
                                 prob.astype(np.float64).reshape(-1))
        return drawn.astype(count.dtype).reshape(count.shape)
    generator = _random.torch_generator(generator)
    flat = [_binomial_one(generator, n, p)
            for n, p in zip(count.reshape(-1).tolist(), prob.reshape(-1).tolist())]
    return np.array(flat, dtype=np.float64).astype(count.dtype).reshape(count.shape)


def binomial(count: Tensor, prob: Tensor) -> Tensor:
    """Binomial(count, prob) draws (tensors of one shape and device) in count's dtype, after
    torch's dtype check."""
    check_kernel("binomial_cpu", count)
    return _as_tensor(binomial_array(_array(count), _array(prob)), count)


def _device_binomial(source: Any, count: Any, prob: Any) -> Any:
    """_binomial_one vectorized over the flat float64 arrays count and prob on a device: 0
    for count <= 0 or prob <= 0, count for prob >= 1, otherwise a draw at q = min(prob,
    1 - prob) (by inversion below count * q = 10, BTRS from there) turned round for
    prob > 0.5; NaN where count or prob is NaN, and where count is infinite (the cpu's loop
    would not end)."""
    xp = source.xp
    flip = prob > 0.5
    q = xp.where(flip, 1 - prob, prob)
    drawing = (count > 0) & (prob > 0) & (prob < 1) & xp.isfinite(count)
    drawn = xp.zeros_like(count)
    _device_binomial_inversion(source, count, q, xp.flatnonzero(drawing & (count * q < 10)),
                               drawn)
    _device_binomial_btrs(source, count, q, xp.flatnonzero(drawing & (count * q >= 10)), drawn)
    drawn = xp.where(flip, count - drawn, drawn)
    nan = xp.full_like(count, math.nan)
    fixed = xp.where((count <= 0) | (prob <= 0), 0.0, xp.where(prob >= 1, count, nan))
    return xp.where(drawing, drawn, fixed)


def _device_binomial_inversion(source: Any, count: Any, prob: Any, open_: Any,
                               samples: Any) -> None:
    """samples[open_]: the successes before the geometric waiting times pass count, as
    _binomial_inversion."""
    xp, double = source.xp, np.dtype(np.float64)
    log_q, total = xp.log1p(-prob[open_]), xp.zeros_like(prob[open_])
    with np.errstate(divide="ignore"):  # a uniform 0 waits forever: that element is done
        while open_.size:
            total += xp.ceil(xp.log(source.unit(open_.size, double)) / log_q)
            still = ~(total > count[open_])
            open_, log_q, total = open_[still], log_q[still], total[still]
            samples[open_] += 1


def _device_binomial_btrs(source: Any, count: Any, prob: Any, open_: Any,
                          samples: Any) -> None:
    """samples[open_] by Hoermann's BTRS with torch's bound, as _binomial_btrs: the constants
    of each element (a row) travel with it while it is open."""
    xp, double = source.xp, np.dtype(np.float64)
    n, p = count[open_], prob[open_]
    stddev = xp.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * stddev
    r = p / (1 - p)
    m = xp.floor((n + 1) * p)
    # the part of the bound that does not depend on the draw k
    at_mode = ((m + 0.5) * xp.log((m + 1) / (r * (n - m + 1)))
               + _stirling_tails(xp, m) + _stirling_tails(xp, n - m))
    constants = xp.stack([n, -0.0873 + 0.0248 * b + 0.01 * p, b, n * p + 0.5, 0.92 - 4.2 / b,
                          r, (2.83 + 5.1 / b) * stddev, m, at_mode], axis=1)
    with np.errstate(all="ignore"):  # draws outside [0, n] pass through the logarithms
        while open_.size:
            n, a, b, c, v_r, r, alpha, m, at_mode = constants.T
            u = source.unit(open_.size, double) - 0.5
            v = source.unit(open_.size, double)
            us = 0.5 - xp.abs(u)
            k = xp.floor((2 * a / us + b) * u + c)
            inside = (k >= 0) & (k <= n)
            squeezed = (us >= 0.07) & (v <= v_r)
            whole = xp.clip(k, 0, n)  # a k outside is rejected: its tails need not be right
            bound = (at_mode + (n + 1) * xp.log((n - m + 1) / (n - k + 1))
                     + (k + 0.5) * xp.log(r * (n - k + 1) / (k + 1))
                     - _stirling_tails(xp, whole) - _stirling_tails(xp, n - whole))
            accepted = inside & (squeezed | (xp.log(v * alpha / (a / (us * us) + b)) <= bound))
            samples[open_[accepted]] = k[accepted]
            still = ~accepted
            open_, constants = open_[still], constants[still]


def _stirling_tails(xp: Any, k: Any) -> Any:
    """_stirling_tail of an array of whole k >= 0 on xp's device (its table of k < 10 copied
    there)."""
    table = _backend.beside(k, np.array([_stirling_tail(i) for i in range(10)]))
    square = (k + 1) * (k + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)
    return xp.where(k < 10, table[xp.clip(k, 0, 9).astype(np.int64)], series)
