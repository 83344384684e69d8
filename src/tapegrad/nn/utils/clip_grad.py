"""Gradient clipping by total norm or by value, as torch.nn.utils.clip_grad."""
import functools
import types

import tapegrad
from ..._warnings import warn

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _no_grad(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with tapegrad.no_grad():
            return function(*args, **kwargs)
    return wrapper


def _as_list(tensors):
    return [tensors] if isinstance(tensors, tapegrad.Tensor) else list(tensors)


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (the norm of all of them as one vector)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tapegrad.tensor(0.0)
    norms = [tapegrad.linalg.vector_norm(t, norm_type) for t in tensors]
    total_norm = tapegrad.linalg.vector_norm(tapegrad.stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    clip_coef = tapegrad.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(clip_coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale gradients in place to a total norm of at most max_norm; returns the old norm."""
    # `foreach` is accepted for torch's signature; there is a single code path.
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and not parameters:
        warn("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for param in _as_list(parameters):
        if param.grad is not None:
            param.grad.clamp_(min=-clip_value, max=clip_value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """The deprecated name of clip_grad_norm_."""
    warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
         "`torch.nn.utils.clip_grad_norm_`.", FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
