"""torch.cuda.amp and torch.cpu.amp: the device-bound spellings torch keeps with a
FutureWarning, each the torch.amp class for one device type."""
from __future__ import annotations

import functools
import sys
import types
import warnings
from typing import Any, Callable, TypeVar

from .. import _dtype
from . import autocast_mode
from .grad_scaler import GradScaler as _GradScaler


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`{old}(args...)` is deprecated. Please use `{new}` instead.",
                  FutureWarning, stacklevel=3)


class CudaAutocast(autocast_mode.autocast):
    """torch.cuda.amp.autocast: torch.amp.autocast("cuda", ...)."""

    def __init__(self, enabled: bool = True, dtype: _dtype.dtype = _dtype.float16,
                 cache_enabled: bool = True) -> None:
        _deprecated("torch.cuda.amp.autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CpuAutocast(autocast_mode.autocast):
    """torch.cpu.amp.autocast: torch.amp.autocast("cpu", ...)."""

    def __init__(self, enabled: bool = True, dtype: _dtype.dtype = _dtype.bfloat16,
                 cache_enabled: bool = True) -> None:
        _deprecated("torch.cpu.amp.autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def _scaler_for(device: str) -> type[_GradScaler]:
    class GradScaler(_GradScaler):
        __doc__ = f"torch.{device}.amp.GradScaler: torch.amp.GradScaler('{device}', ...)."

        def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                     backoff_factor: float = 0.5, growth_interval: int = 2000,
                     enabled: bool = True) -> None:
            _deprecated(f"torch.{device}.amp.GradScaler",
                        f"torch.amp.GradScaler('{device}', args...)")
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval,
                             enabled=enabled)
    return GradScaler


CudaGradScaler = _scaler_for("cuda")
CpuGradScaler = _scaler_for("cpu")


def cuda_custom_fwd(fwd: Callable[..., Any] | None = None, *,
                    cast_inputs: _dtype.dtype | None = None) -> Any:
    """torch.cuda.amp.custom_fwd: torch.amp.custom_fwd(device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_fwd",
                "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(autocast_mode.custom_fwd, device_type="cuda")(
        fwd=fwd, cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd: Callable[..., Any]) -> Any:
    """torch.cuda.amp.custom_bwd: torch.amp.custom_bwd(device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_bwd",
                "torch.amp.custom_bwd(args..., device_type='cuda')")
    return autocast_mode.custom_bwd(bwd, device_type="cuda")


def _namespace(name: str, **members: Any) -> types.ModuleType:
    """A module `name` holding members under their torch names, importable by name."""
    module = types.ModuleType(name, f"{name}: the deprecated spellings of tapegrad.amp's.")
    for member_name, member in members.items():
        if isinstance(member, type):
            member.__name__, member.__qualname__ = member_name, member_name
            member.__module__ = name
        setattr(module, member_name, member)
    module.__all__ = list(members)  # type: ignore[attr-defined]
    sys.modules[name] = module
    return module


cuda_amp = _namespace("tapegrad.cuda.amp", autocast=CudaAutocast, GradScaler=CudaGradScaler,
                      custom_fwd=cuda_custom_fwd, custom_bwd=cuda_custom_bwd)
cpu_amp = _namespace("tapegrad.cpu.amp", autocast=CpuAutocast, GradScaler=CpuGradScaler)


# torch's per-device state functions, each warning that it is deprecated
def _device_enabled_functions(device: str) -> tuple[Callable[[], bool],
                                                    Callable[[bool], None]]:
    def is_enabled() -> bool:
        warnings.warn(f"torch.is_autocast_{device}_enabled() is deprecated. Please use "
                      f"torch.is_autocast_enabled('{device}') instead.", DeprecationWarning,
                      stacklevel=2)
        return autocast_mode.is_autocast_enabled(device)

    def set_enabled(enabled: bool) -> None:
        warnings.warn(f"torch.set_autocast_{device}_enabled(enabled) is deprecated. Please "
                      f"use torch.set_autocast_enabled('{device}', enabled) instead.",
                      DeprecationWarning, stacklevel=2)
        autocast_mode.set_autocast_enabled(device, enabled)
    return _named(is_enabled, f"is_autocast_{device}_enabled"), _named(
        set_enabled, f"set_autocast_{device}_enabled")


def _device_dtype_functions(name: str, device: str) -> tuple[Callable[[], _dtype.dtype],
                                                             Callable[[_dtype.dtype], None]]:
    def get_dtype() -> _dtype.dtype:
        warnings.warn(f"torch.get_autocast_{name}_dtype() is deprecated. Please use "
                      f"torch.get_autocast_dtype('{device}') instead.", DeprecationWarning,
                      stacklevel=2)
        return autocast_mode.get_autocast_dtype(device)

    def set_dtype(dtype: _dtype.dtype) -> None:
        warnings.warn(f"torch.set_autocast_{name}_dtype(dtype) is deprecated. Please use "
                      f"torch.set_autocast_dtype('{device}', dtype) instead.",
                      DeprecationWarning, stacklevel=2)
        autocast_mode.set_autocast_dtype(device, dtype)
    return _named(get_dtype, f"get_autocast_{name}_dtype"), _named(
        set_dtype, f"set_autocast_{name}_dtype")


F = TypeVar("F", bound=Callable[..., Any])


def _named(function: F, name: str) -> F:
    """function under its torch name (as its repr and tracebacks show)."""
    function.__name__ = function.__qualname__ = name
    return function


is_autocast_cpu_enabled, set_autocast_cpu_enabled = _device_enabled_functions("cpu")
is_autocast_ipu_enabled, set_autocast_ipu_enabled = _device_enabled_functions("ipu")
is_autocast_xla_enabled, set_autocast_xla_enabled = _device_enabled_functions("xla")
get_autocast_cpu_dtype, set_autocast_cpu_dtype = _device_dtype_functions("cpu", "cpu")
get_autocast_gpu_dtype, set_autocast_gpu_dtype = _device_dtype_functions("gpu", "cuda")
get_autocast_ipu_dtype, set_autocast_ipu_dtype = _device_dtype_functions("ipu", "ipu")
get_autocast_xla_dtype, set_autocast_xla_dtype = _device_dtype_functions("xla", "xla")
