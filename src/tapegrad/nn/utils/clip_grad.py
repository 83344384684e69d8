"""Gradient clipping by total norm or by value, as torch.nn.utils.clip_grad."""
from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeAlias, TypeVar

import tapegrad
from ..._tensor import Tensor
from ..._warnings import warn

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

_tensor_or_tensors: TypeAlias = "Tensor | Iterable[Tensor]"
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _no_grad(function: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with tapegrad.no_grad():
            return function(*args, **kwargs)
    return wrapper


def _as_list(tensors: _tensor_or_tensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, tapegrad.Tensor) else list(tensors)


@_no_grad
def get_total_norm(tensors: _tensor_or_tensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The norm of the norms of `tensors` (the norm of all of them as one vector)."""
    tensor_list = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensor_list:
        return tapegrad.tensor(0.0)
    norms = [tapegrad.linalg.vector_norm(t, norm_type) for t in tensor_list]
    total_norm = tapegrad.linalg.vector_norm(tapegrad.stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters: _tensor_or_tensors, max_norm: float,
                          total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    clip_coef = tapegrad.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    for grad in grads:
        grad.mul_(clip_coef)


@_no_grad
def clip_grad_norm_(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale gradients in place to a total norm of at most max_norm; returns the old norm."""
    # `foreach` is accepted for torch's signature; there is a single code path.
    is_generator = isinstance(parameters, types.GeneratorType)
    parameter_list = _as_list(parameters)
    if is_generator and not parameter_list:
        warn("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p.grad for p in parameter_list if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameter_list, max_norm, total_norm)
    return total_norm


@_no_grad
def clip_grad_value_(parameters: _tensor_or_tensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for param in _as_list(parameters):
        if param.grad is not None:
            param.grad.clamp_(min=-clip_value, max=clip_value)


def clip_grad_norm(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The deprecated name of clip_grad_norm_."""
    warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
         "`torch.nn.utils.clip_grad_norm_`.", FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
