"""torch.autocast and its state functions (torch.is_autocast_enabled, get_autocast_dtype, ...),
and torch.amp.custom_fwd / custom_bwd.

Note [Autocast]
Autocast's state is thread-local, as torch's. The ops read it through one module global of
ops/_define.py, `autocast_hook`: None while no thread has autocast on, so an op then pays one
global read. Once on, declared ops pass their arguments through the hook (Op.__call__), and
public functions their whole call (ops/_checks.diagnosed), by name. An op on the policy lists
(policy.py) gets its floating inputs cast, then runs with autocast suspended: the ops it is
made of are not cast again, as torch's autocast key is excluded below its wrappers.
"""
from __future__ import annotations

import collections.abc
import functools
import threading
import warnings
from typing import Any, Callable, Literal, TypeVar

import numpy as np

from .. import _backend, _dtype
from .._device import as_device
from .._tensor import Tensor
from ..ops import _checks, _define
from . import policy as _policy

F = TypeVar("F", bound=Callable[..., Any])

# torch's device types with autocast, and each one's default lower-precision dtype
DEFAULT_DTYPES: dict[str, _dtype.dtype] = {
    "cpu": _dtype.bfloat16, "cuda": _dtype.float16, "mps": _dtype.float16,
    "xpu": _dtype.float16, "hpu": _dtype.bfloat16, "xla": _dtype.bfloat16,
    "mtia": _dtype.float16, "maia": _dtype.bfloat16, "ipu": _dtype.float16,
    "privateuseone": _dtype.float16}
SUPPORTED_DTYPES = (_dtype.bfloat16, _dtype.float16)


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled: dict[str, bool] = {}
        self.dtypes: dict[str, _dtype.dtype] = {}
        self.cache_enabled = True
        self.nesting = 0
        self.suspended = False  # inside an op autocast already cast for
        self.cache: dict[int, tuple[Tensor, Tensor]] = {}  # id(weight) -> (weight, its cast)


_state = _State()
_lock = threading.Lock()
_threads_on = 0  # threads with autocast on for some device: the hook is set while any are


def _device_type(device_type: Any, function: str) -> str:
    if not isinstance(device_type, str):
        raise TypeError(f"{function}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    as_device(device_type)  # torch's RuntimeError for a device type it does not know
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports device_type."""
    return _device_type(device_type, "_is_autocast_available") in DEFAULT_DTYPES


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for device_type in this thread (cuda when not given)."""
    return _state.enabled.get(_device_type(device_type, "is_autocast_enabled"), False)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for device_type in this thread."""
    global _threads_on
    device_type = _device_type(device_type, "set_autocast_enabled")
    was_on = any(_state.enabled.values())
    _state.enabled[device_type] = bool(enabled)
    now_on = any(_state.enabled.values())
    if was_on is not now_on:
        with _lock:
            _threads_on += 1 if now_on else -1
            hook = _hook if _threads_on else None
            # the ops' modules are not type-checked: their global reads as None there
            _define.autocast_hook = _checks.autocast_hook = hook  # type: ignore[assignment]


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    """The dtype autocast's lower-precision ops run in on device_type, in this thread."""
    device_type = _device_type(device_type, "get_autocast_dtype")
    if device_type not in DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return _state.dtypes.get(device_type, DEFAULT_DTYPES[device_type])


def set_autocast_dtype(device_type: str, dtype: _dtype.dtype) -> None:
    """Set the dtype of autocast's lower-precision ops on device_type, in this thread."""
    device_type = _device_type(device_type, "set_autocast_dtype")
    if device_type not in DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    _state.dtypes[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = bool(enabled)


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


def clear_autocast_cache() -> None:
    """Forget the casts of weights kept for reuse in this thread's autocast region."""
    _state.cache.clear()


class autocast:
    """A region (context manager or decorator) where listed ops run in a lower-precision dtype
    or in float32, by device type; see policy.py for the lists."""

    def __init__(self, device_type: str, dtype: _dtype.dtype | None = None,
                 enabled: bool = True, cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            if device_type == "cuda":
                if _backend.backend_for("cuda") is None:
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in SUPPORTED_DTYPES:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              + ", ".join(map(str, SUPPORTED_DTYPES)) + " currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc_info: object) -> Literal[False]:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: F) -> F:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)
        return decorate_autocast  # type: ignore[return-value]  # wraps keeps func's signature


# ---- the hook (Note [Autocast]) ------------------------------------------------------------

def _active_policy(name: str, values: Any) -> tuple[str, str] | None:
    """(device type, policy) of the op called `name` in this thread, if autocast is on for a
    device type some of its tensors are on (torch dispatches to that type's autocast)."""
    if _state.suspended:
        return None
    for device_type, enabled in _state.enabled.items():
        if enabled:
            kind = _policy.POLICIES.get(device_type, {}).get(name)
            if kind is not None and _on_device_type(values, device_type):
                return device_type, kind
    return None


def _on_device_type(values: Any, device_type: str) -> bool:
    """Whether a tensor among values (in lists and tuples too) is on device_type."""
    for value in values:
        if isinstance(value, Tensor):
            if value.device.type == device_type:
                return True
        elif type(value) in (list, tuple) and _on_device_type(value, device_type):
            return True
    return False


def _hook(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None,
          function: Callable[..., Any] | None = None) -> Any:
    """A declared op's arguments, cast (function None); or a public function's result, its
    arguments cast and autocast suspended while it runs."""
    found = _active_policy(name, (*args, *kwargs.values()) if kwargs else args)
    if found is None:
        return args if function is None else function(*args, **kwargs or {})
    device_type, kind = found
    if kind == _policy.BANNED:
        raise RuntimeError(_policy.BINARY_CROSS_ENTROPY_BANNED)
    kwargs = dict(kwargs or {})
    if kind == _policy.FP32_SET_OPT_DTYPE:
        first = args[0] if args else None
        if _eligible(first, device_type) and kwargs.get("dtype") is None:
            kwargs["dtype"] = _dtype.float32
    else:
        if kind == _policy.LOWER:
            target = get_autocast_dtype(device_type)
        elif kind == _policy.FP32:
            target = _dtype.float32
        else:
            target = _widest(get_autocast_dtype(device_type), (args, kwargs), device_type)
        args = tuple(_cast_value(value, target, device_type, kind == _policy.LOWER)
                     for value in args)
        kwargs = {key: _cast_value(value, target, device_type, kind == _policy.LOWER)
                  for key, value in kwargs.items()}
    if function is None:
        return args
    _state.suspended = True
    try:
        return function(*args, **kwargs)
    finally:
        _state.suspended = False


def _eligible(value: Any, device_type: str) -> bool:
    """torch's is_eligible: a floating tensor on the device type, not float64."""
    return (isinstance(value, Tensor) and value.dtype.is_floating_point
            and value.dtype is not _dtype.float64 and value.device.type == device_type)


def _widest(lower: _dtype.dtype, values: Any, device_type: str) -> _dtype.dtype:
    """The promote policy's dtype: float32 if any eligible input is float32, else lower."""
    if isinstance(values, Tensor):
        return _dtype.float32 if _eligible(values, device_type) and (
            values.dtype is _dtype.float32) else lower
    if isinstance(values, dict):
        values = values.values()
    if isinstance(values, (list, tuple, collections.abc.ValuesView)):
        for value in values:
            if _widest(lower, value, device_type) is _dtype.float32:
                return _dtype.float32
    return lower


def _cast_value(value: Any, dtype: _dtype.dtype, device_type: str, cacheable: bool) -> Any:
    """value with its eligible tensors (lists and tuples of them too) cast to dtype."""
    if isinstance(value, Tensor):
        if not _eligible(value, device_type) or value.dtype is dtype:
            return value
        # torch keeps the lower-precision cast of a float32 leaf that requires grad (a
        # weight) for the rest of the region, so a weight used twice is cast once
        if (cacheable and _state.cache_enabled and value.dtype is _dtype.float32
                and value.is_leaf and value.requires_grad and value._base is None):
            kept = _state.cache.get(id(value))
            if kept is not None and kept[0] is value:
                return kept[1]
            result = value.to(dtype)
            _state.cache[id(value)] = (value, result)
            return result
        return value.to(dtype)
    if type(value) in (list, tuple):
        return type(value)(_cast_value(item, dtype, device_type, cacheable) for item in value)
    return value


# ---- custom autograd Functions ---------------------------------------------------------------

def _cast(value: Any, device_type: str, dtype: _dtype.dtype) -> Any:
    """custom_fwd's cast: floating tensors (not float64) on device_type to dtype, through
    containers; strings and NumPy arrays pass as they are."""
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not _dtype.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd: Callable[..., Any] | None = None, *, device_type: str,
               cast_inputs: _dtype.dtype | None = None) -> Any:
    """Decorate a custom Function's forward: it runs under the caller's autocast state, or,
    with cast_inputs, with autocast off and its floating inputs cast to cast_inputs."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    forward = fwd

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return forward(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return forward(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return forward(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Decorate a custom Function's backward: it runs under the autocast state its forward
    ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    backward = bwd

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return backward(*args, **kwargs)
    return decorate_bwd
