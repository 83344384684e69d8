"""torch's CPU samplers that tapegrad's ops lack (standard gamma, Dirichlet, binomial), drawn
from the generator in torch's order so that a shared seed gives torch's numbers, with the
implicit reparameterisation gradients of the gamma and Dirichlet draws."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

import tapegrad
from tapegrad import _mt, _random
from tapegrad._scipy import scipy
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
    generator = _random.torch_generator(None)  # the default one, as distributions draw
    single = alpha.dtype == np.float32
    flat = [_gamma_one(generator, a, single) for a in alpha.reshape(-1).tolist()]
    drawn = np.array(flat, dtype=np.float64).astype(alpha.dtype).reshape(alpha.shape)
    return np.maximum(drawn, np.finfo(alpha.dtype).tiny)


def dirichlet_array(concentration: _Array) -> _Array:
    """torch._sample_dirichlet: gammas drawn in double, normalised along the last dim, then
    kept inside (0, 1) in the concentration's dtype."""
    generator = _random.torch_generator(None)  # the default one, as distributions draw
    flat = [_gamma_one(generator, a, False) for a in concentration.reshape(-1).tolist()]
    gammas = np.maximum(np.array(flat).reshape(concentration.shape), np.finfo(np.float64).tiny)
    ratios = (gammas / gammas.sum(-1, keepdims=True)).astype(concentration.dtype)
    below_one = np.nextafter(concentration.dtype.type(1), concentration.dtype.type(0))
    return np.clip(ratios, np.finfo(concentration.dtype).tiny, below_one)


def _step(a: _Array) -> _Array:
    # central differences in a: the regularised incomplete functions are smooth in it
    return 1e-5 * np.maximum(a, 1e-3)


def standard_gamma_grad(alpha: _Array, x: _Array) -> _Array:
    """dx/dalpha for x = F^-1(u; alpha) held at fixed u: -dF/dalpha / density."""
    special = scipy("special", "the gradient of Gamma.rsample")
    alpha, x = alpha.astype(np.float64), x.astype(np.float64)
    h = _step(alpha)
    dcdf = (special.gammainc(alpha + h, x) - special.gammainc(alpha - h, x)) / (2 * h)
    log_density = (alpha - 1) * np.log(x) - x - special.gammaln(alpha)
    return -dcdf / np.exp(log_density)


def dirichlet_grad(x: _Array, alpha: _Array, total: _Array) -> _Array:
    """torch._dirichlet_grad: dx/dalpha for x ~ Beta(alpha, total - alpha) held at its
    quantile with beta fixed, divided by 1 - x (Dirichlet's backward then couples the
    components)."""
    special = scipy("special", "the gradient of Dirichlet.rsample")
    x, alpha, total = (v.astype(np.float64) for v in (x, alpha, total))
    h = _step(alpha)
    beta = total - alpha
    dcdf = (special.betainc(alpha + h, beta, x) - special.betainc(alpha - h, beta, x)) / (2 * h)
    log_density = ((alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x)
                   - special.betaln(alpha, beta))
    return -dcdf / np.exp(log_density) / (1 - x)


def check_kernel(kernel: str, like: Tensor) -> None:
    """torch's CPU samplers exist for float and double only; these, drawn element by element
    in torch's order, run on the cpu only."""
    if like.device.type != "cpu":
        raise NotImplementedError(f"tapegrad's {kernel.removesuffix('_cpu')} sampler does not "
                                  f"run on {like.device} yet")
    if like.dtype not in (tapegrad.float32, tapegrad.float64):
        raise _random.not_implemented(kernel, like.dtype)


def _as_tensor(array: _Array, like: Tensor) -> Tensor:
    return tapegrad.tensor(array, dtype=like.dtype)


class StandardGamma(Function):
    """torch._standard_gamma with its reparameterisation gradient."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        check_kernel("gamma_cpu", concentration)
        x = _as_tensor(standard_gamma_array(concentration.detach().numpy()), concentration)
        ctx.save_for_backward(concentration, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        concentration, x = ctx.saved_tensors
        grad = standard_gamma_grad(concentration.detach().numpy(), x.detach().numpy())
        return grad_output * _as_tensor(grad, x)


# torch's _standard_gamma is a native op with a generated node
StandardGamma._backward_cls.__name__ = StandardGamma._backward_cls.__qualname__ = (
    "StandardGammaBackward0")


class _Dirichlet(Function):
    """torch._sample_dirichlet with the gradient torch's Dirichlet.rsample gives."""

    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        check_kernel("dirichlet", concentration)
        x = _as_tensor(dirichlet_array(concentration.detach().numpy()), concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        arrays = (x.detach().numpy(), concentration.detach().numpy(), total.detach().numpy())
        grad = _as_tensor(dirichlet_grad(*arrays), x)
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


def binomial_array(count: _Array, prob: _Array) -> _Array:
    """torch.binomial's draws for arrays count and prob of one shape (C order)."""
    generator = _random.torch_generator(None)  # the default one, as distributions draw
    flat = [_binomial_one(generator, n, p)
            for n, p in zip(count.reshape(-1).tolist(), prob.reshape(-1).tolist())]
    return np.array(flat, dtype=np.float64).astype(count.dtype).reshape(count.shape)
