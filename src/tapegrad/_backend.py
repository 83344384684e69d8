"""Where a tensor's array lives: NumPy's on the cpu, another array module's on a device.

Every op's forward and backward receives the array module (`xp`) of its inputs, so the op
table is written once for all devices. A device backend (CuPy for "cuda") registers its array
type here; until one does, `active` stays False and the cpu path pays one global read per op.
A backend object has: `type` ("cuda"), `array_type`, `xp` (the array module), `device_count()`,
`current_index()`, `set_current(index)`, `selected(index)` (a context in which xp makes its
arrays on device index), `index_of(array)`, `to_device(array, index)` (a copy onto a device of
a NumPy array or one of its own on any device), `to_host(array)` (a copy into a NumPy array),
and for torch.cuda `synchronize(index)`, `device_name(index)`, `memory_allocated(index)` and
`empty_cache()`; optionally `scipy(submodule)`, SciPy's submodule for its arrays (CuPy's
cupyx.scipy; ops/_scipy_of.py). Random numbers need nothing more: each device's generator
(_random.py) draws with xp on that device. tests/device_double.py implements the protocol on NumPy for the tests.
"""
from typing import Any, Sequence

import numpy as np

from ._device import CPU, device

active = False  # True once a device backend is registered: the cpu-only path skips the rest
ARRAY_TYPES: dict[type, Any] = {}  # array type -> backend
_BY_DEVICE_TYPE: dict[str, Any] = {}  # "cuda" -> backend
# (type, index) -> device, so a tensor's device is looked up, not built
_DEVICES: dict[tuple[str, int], device] = {}


def register(backend: Any) -> None:
    """Put backend's arrays behind its device type (CuPy's behind "cuda")."""
    global active
    ARRAY_TYPES[backend.array_type] = _BY_DEVICE_TYPE[backend.type] = backend
    active = True


def unregister(device_type: str) -> None:
    """Take a backend away again (the test double's fixture does)."""
    global active
    backend = _BY_DEVICE_TYPE.pop(device_type, None)
    if backend is not None:
        del ARRAY_TYPES[backend.array_type]
    active = bool(_BY_DEVICE_TYPE)


def backend_for(device_type: str) -> Any:
    """The backend of a device type, loading CuPy for "cuda" on first use; None without one."""
    backend = _BY_DEVICE_TYPE.get(device_type)
    if backend is None and device_type == "cuda" and not _tried_cupy:
        _load_cupy()
        backend = _BY_DEVICE_TYPE.get(device_type)
    return backend


_tried_cupy = False


def _load_cupy():
    global _tried_cupy
    _tried_cupy = True
    try:
        from ._cupy_backend import CupyBackend
        backend = CupyBackend()
    except ImportError:  # no CuPy, or no CUDA driver/device for it: torch's CPU-build answers
        return
    register(backend)


def on_device(array: Any) -> bool:
    """Whether array lives on a device (not NumPy's: an ndarray or a NumPy scalar)."""
    return active and type(array) in ARRAY_TYPES


def device_of(array: Any) -> device:
    """The device of an array: the cpu for NumPy's."""
    if type(array) is np.ndarray or not active:
        return CPU
    backend = ARRAY_TYPES.get(type(array))
    if backend is None:
        return CPU
    key = (backend.type, backend.index_of(array))
    found = _DEVICES.get(key)
    if found is None:
        found = _DEVICES[key] = device(*key)
    return found


def module_of(arrays: Sequence[Any]) -> tuple[Any, Sequence[Any]]:
    """The array module of an op's arrays (numbers and None pass), and the arrays, with 0-d
    cpu arrays moved to the others' device as torch lets a cpu scalar tensor join a device op.
    Raises torch's error when arrays of two devices meet."""
    first, moved = None, None
    for array in arrays:
        kind = type(array)
        if kind is np.ndarray or kind in ARRAY_TYPES:
            where = device_of(array)
            if first is None:
                first = where
            elif where != first:
                if where is CPU and not array.ndim:
                    moved = True
                elif first is CPU and all(type(a) is not np.ndarray or not a.ndim
                                          for a in arrays):
                    first, moved = where, True
                else:
                    raise RuntimeError("Expected all tensors to be on the same device, but found "
                                       f"at least two devices, {first} and {where}!")
    if first is None or first is CPU:
        return np, arrays
    backend = _BY_DEVICE_TYPE[first.type]
    if moved:
        arrays = [backend.to_device(a, first.index) if type(a) is np.ndarray else a
                  for a in arrays]
    return backend.xp, arrays


def in_module(xp: Any, function: Any) -> Any:
    """NumPy's function (or ufunc) as xp has it: ops that close over a NumPy function use it."""
    return function if xp is np else getattr(xp, function.__name__)


# What CuPy (and the test double) say when handed a host array or asked to become one: an op
# that meets them calls a NumPy-only function on device data.
_REFUSALS = ("Implicit conversion to a NumPy array is not allowed", "Unsupported type")


def refused(error: BaseException) -> bool:
    """Whether error is a device backend refusing NumPy's arrays or functions."""
    return any(text in str(error) for text in _REFUSALS)


def first_device_array(arrays: Sequence[Any]) -> Any:
    return next((a for a in arrays if type(a) in ARRAY_TYPES), None)


def array_module(array: Any) -> Any:
    """The array module of one array."""
    backend = ARRAY_TYPES.get(type(array)) if active else None
    return np if backend is None else backend.xp


def to_device(array: Any, target: device) -> Any:
    """array copied onto target (a device), or array itself when it is there already."""
    here = device_of(array)
    if here == target:
        return array
    if target.type == "cpu":
        return _BY_DEVICE_TYPE[here.type].to_host(array)
    # a backend copies host arrays and its own from any of its devices: no trip via the host
    return _BY_DEVICE_TYPE[target.type].to_device(array, target.index)


def beside(array: Any, host: np.ndarray) -> Any:
    """host (a NumPy array: indices or positions the host computed) copied onto array's
    device."""
    return host if type(array) is np.ndarray or not active else to_device(host,
                                                                           device_of(array))


def empty(shape: tuple[int, ...], dtype: Any, target: device) -> Any:
    """An uninitialised array of shape and dtype on target (a device, the cpu included)."""
    if target.type == "cpu":
        return np.empty(shape, dtype)
    backend = _BY_DEVICE_TYPE[target.type]
    with backend.selected(target.index):
        return backend.xp.empty(shape, dtype)


def to_host(array: Any) -> np.ndarray:
    """array as a NumPy array (a copy when it lives on a device)."""
    return array if type(array) is np.ndarray else to_device(array, CPU)
