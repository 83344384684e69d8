"""torch.device, the default device, and torch's errors for devices this build lacks.

Every device string torch parses is a valid `device`. Tensors live on the cpu, or on a device
whose backend is registered (CuPy's arrays behind "cuda", _backend.py); for any other device,
making a tensor raises the error a CPU-only torch build raises.
"""
from __future__ import annotations

import re
from typing import Any, NoReturn, TypeAlias, Union

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")
_BACKEND_NAMES = {"lazy": "Lazy", "vulkan": "Vulkan", "privateuseone": "PrivateUse1"}
# The accelerators whose absence a CPU-only torch reports with an assertion.
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
    "mtia": "Torch not compiled with MTIA enabled. Ensure you have `import "
            "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
            "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!",
}
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_PINNED_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                    "memory allocator is available on this system.")
# What torch's CPU build says when something needs its CUDA library, after "Cannot ... ".
CUDA_LIBRARY_MISSING = (
    "without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some "
    "CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some "
    "reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from "
    "the CUDA library! One common culprit is a lack of -Wl,--no-as-needed in your link "
    "arguments; many dynamic linkers will delete dynamic library dependencies if you don't "
    "depend on any of their symbols.  You can check if this has occurred by using ldd on your "
    "binary to see if there is a dependency on *_cuda.so library.")
_NO_GENERATOR = {
    "cuda": "Cannot get CUDA generator " + CUDA_LIBRARY_MISSING,
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "xla": "Cannot get XLA generator without torch_xla library. This error has occurred because "
           "you are trying to use some XLA functionality, but the XLA library has not been "
           "loaded by the dynamic linker. You must load xla libraries by `import torch_xla`",
    "meta": "META device type not an accelerator.",
}
CUDA_NOT_COMPILED = _NOT_COMPILED["cuda"]
_MISSING: Any = object()  # an argument not given (None is a value here)


def _invalid_combination(args: tuple[object, ...]) -> TypeError:
    got = ", ".join(type(arg).__name__ for arg in args)
    detail = ""
    if len(args) == 1:
        detail = ("      didn't match because some of the arguments have invalid types: "
                  f"(!{got}!)\n")
    return TypeError(f"device() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n * (torch.device device)\n{detail}"
                     " * (str type, int index = -1)\n")


def _parse_string(text: str) -> tuple[str, int | None]:
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    kind, index = match.groups()
    if kind not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {kind}")
    if index is not None and int(index) >= 2 ** 31:
        raise RuntimeError(f"Could not parse device index '{index}' in device string '{text}'")
    return kind, None if index is None else int(index)


def _is_index(value: object) -> bool:
    return hasattr(value, "__index__") and not isinstance(value, bool)


def _check_index(index: Any) -> int:
    if not _is_index(index):
        raise TypeError("device(): argument 'index' (position 2) must be int, not "
                        f"{type(index).__name__}")
    if index < 0:
        raise RuntimeError("Device index must not be negative")
    return int(index)


class device:
    """torch.device: a device type and an optional index; also a context manager that makes
    itself the default device inside a `with` block."""

    __slots__ = ("_type", "_index")
    _type: str
    _index: int | None

    def __init__(self, type: str | bytes | int | device = _MISSING,
                 index: int | None = _MISSING) -> None:
        if isinstance(type, device) and index is _MISSING:
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, bytes):
            type = type.decode()
        if _is_index(type) and index is _MISSING:  # an index alone names the accelerator's
            from ._backend import backend_for
            index, type = _check_index(type), "cuda"
            if backend_for("cuda") is None:
                raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            if index is not _MISSING:
                raise TypeError("device(): argument 'type' (position 1) must be str, not "
                                f"{_type_name(type)}")
            raise _invalid_combination(() if type is _MISSING else (type,))
        kind, parsed = _parse_string(type)
        if index is not _MISSING:
            if parsed is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            parsed = None if index is None else _check_index(index)
        self._type, self._index = kind, parsed

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self) -> int | None:
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented  # torch: device("cpu") == "cpu" is False
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self._type,) if self._index is None else (self._type, self._index))

    def __enter__(self) -> device:
        _DEFAULT_STACK.append(_default[0])
        _default[0] = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        _default[0] = _DEFAULT_STACK.pop()


# What torch takes where a device is expected (None: the default device).
DeviceLike: TypeAlias = Union[device, str, int]


def _type_name(value: object) -> str:
    return "torch.device" if isinstance(value, device) else type(value).__name__


CPU = device("cpu")
# the device set by set_default_device or a `with device(...)` block
_default: list[device | None] = [None]
_DEFAULT_STACK: list[device | None] = []


# parsed device strings: factories and .to() see the same few again and again
_BY_STRING: dict[str, device] = {}


def as_device(value: DeviceLike | bytes) -> device:
    """A device from what torch accepts as one: a device, a string, an index."""
    if type(value) is device:
        return value
    if type(value) is str:
        parsed = _BY_STRING.get(value)
        if parsed is None:
            parsed = _BY_STRING[value] = device(value)
        return parsed
    return device(value)


def _refuse(target: device, aten_op: str | None) -> NoReturn:
    """Raise what a CPU-only torch raises for a tensor on target (cpu never gets here).
    aten_op names the kernel a factory dispatches to; None means a copy (tensor(), .to())."""
    kind = target._type
    if kind in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[kind])
    if kind == "meta":
        raise NotImplementedError("tapegrad has no meta tensors (tensors without data): "
                                  "use a cpu tensor")
    if kind in ("hpu", "privateuseone"):  # torch looks for their Python module
        raise ModuleNotFoundError(f"No module named 'torch.{kind}'")
    if aten_op is None:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    backend = _BACKEND_NAMES.get(kind, kind.upper())
    raise NotImplementedError(
        f"Could not run 'aten::{aten_op}' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build).")


def tensor_device(value: DeviceLike | bytes | None, aten_op: str | None = "empty.memory_format",
                  pin_memory: bool = False) -> device:
    """The device a new tensor gets for a factory's device= argument (None: the default).
    Raises torch's error unless that device is the cpu or has a backend, or if pinned memory
    is asked for without a device to pin for."""
    if value is None:
        value = _default[0] or CPU
    elif type(value) is not device:
        if not isinstance(value, (str, bytes)) and not _is_index(value):
            raise TypeError("argument 'device' must be torch.device, not "
                            f"{type(value).__name__}")
        value = as_device(value)
    if value._type != "cpu":
        return _on_backend(value, aten_op)
    if pin_memory:
        from ._backend import backend_for
        if backend_for("cuda") is None:
            raise RuntimeError(NO_PINNED_MEMORY)
    return CPU


def _on_backend(target: device, aten_op: str | None) -> device:
    """target with its index (the backend's current device when it has none), or torch's
    error when no backend serves its type."""
    from ._backend import backend_for
    backend = backend_for(target._type)
    if backend is None:
        _refuse(target, aten_op)
    if target._index is None:
        return device(target._type, backend.current_index())
    if target._index >= backend.device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    return target


def set_default_device(device: DeviceLike | None) -> None:
    """Make device the default of every factory (None: back to the cpu)."""
    _default[0] = None if device is None else as_device(device)


def get_default_device() -> device:
    """The default device; without an index, torch finds it by making a tensor there, so one
    this build lacks raises."""
    current = _default[0]
    if current is None:
        return CPU
    # torch resolves a device without an index by making a tensor there (meta always works)
    if current._type not in ("cpu", "meta") and current._index is None:
        return _on_backend(current, None)
    return current


def generator_device(value: DeviceLike) -> device:
    """The device of torch.Generator(device=value): the cpu, or torch's error for the others."""
    target = as_device(value)
    if target._type != "cpu":
        raise RuntimeError(_NO_GENERATOR.get(target._type,
                                             "Backend doesn`t support getNewGenerator()"))
    return CPU
