"""torch's legacy constructors and type objects: torch.Tensor(2, 3), torch.FloatTensor([1, 2]),
isinstance(x, torch.LongTensor), and torch.cuda.FloatTensor, which exists but cannot be used
without CUDA."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _device, _dtype
from ._tensor import Size, Tensor  # first: loading it loads ops, which import _creation
from ._creation import empty, tensor  # noqa: I001
from ._device import as_device

_LEGACY_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n"
                      " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
                      " * (object data, *, torch.device device = None)\n")


# c10's names of the scalar types, as the legacy constructor's dtype error prints them
_C10_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
              "int32": "int", "int64": "long int", "bool": "bool",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _options(dtype: _dtype.dtype) -> str:
    return (f"TensorOptions(dtype={_C10_NAMES[dtype.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def legacy_new(dtype: _dtype.dtype, args: tuple[Any, ...], kwargs: dict[str, Any],
               any_tensor: bool = False, home: _device.device = _device.CPU) -> Any:
    """A tensor of dtype from torch's legacy constructor forms: sizes give an uninitialised
    tensor, a sequence or array its data, a tensor (of dtype unless any_tensor) itself.
    home: the device it is made on (Tensor.new: the tensor's), the only one device= may name.
    Typed Any, not Tensor: Tensor.__new__ returns it as its Self when cls is Tensor."""
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] +
                        [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                        f"expected one of:\n{_LEGACY_SIGNATURES}")
    if device is not None and as_device(device).type != home.type:
        raise RuntimeError(f"legacy constructor expects device type: {home.type} but device "
                           f"type: {as_device(device).type} was passed")
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return empty(*args or (0,), dtype=dtype, device=home)
    data = args[0]
    if len(args) == 1 and isinstance(data, Size):
        return empty(data, dtype=dtype, device=home)
    if len(args) == 1 and isinstance(data, Tensor):
        if data.dtype is not dtype and not any_tensor:
            raise TypeError(f"expected {_options(dtype)} (got {_options(data.dtype)})")
        return data.detach()  # torch's legacy constructor aliases the tensor
    if len(args) == 1 and isinstance(data, (list, tuple, np.ndarray)):
        return tensor(data, dtype=dtype, device=home)
    if len(args) == 1 and not isinstance(data, str):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


class _LegacyTensorType(type):
    """torch.FloatTensor and its kin: callable as constructors, isinstance by dtype."""

    dtype: _dtype.dtype
    device_type: str
    torch_name: str

    def __instancecheck__(cls, instance: Any) -> bool:
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and instance.device.type == cls.device_type)

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        if cls.device_type != "cpu":
            raise TypeError(f"type {cls.torch_name} not available. Torch not compiled with CUDA "
                            "enabled.")
        return legacy_new(cls.dtype, args, kwargs)

    def __repr__(cls) -> str:
        return f"<class '{cls.torch_name}'>"


def _legacy_type(module: str, dtype: _dtype.dtype, device_type: str) -> _LegacyTensorType:
    name = f"{dtype.legacy_name}Tensor"
    torch_name = module.replace("tapegrad", "torch") + "." + name
    return _LegacyTensorType(name, (), {"__module__": module, "dtype": dtype,
                                        "device_type": device_type, "torch_name": torch_name})


_LEGACY_DTYPES = (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.uint8, _dtype.int8,
                  _dtype.int16, _dtype.int32, _dtype.int64, _dtype.bool)
CPU_TYPES = {f"{d.legacy_name}Tensor": _legacy_type("tapegrad", d, "cpu")
             for d in _LEGACY_DTYPES}
CUDA_TYPES = {f"{d.legacy_name}Tensor": _legacy_type("tapegrad.cuda", d, "cuda")
              for d in _LEGACY_DTYPES}
