"""torch.finfo and torch.iinfo: the numerical limits of a floating or integer dtype."""
from __future__ import annotations

import numpy as np

from . import _dtype


def _require_dtype(name: str, value: object) -> None:
    if not isinstance(value, _dtype.dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(value).__name__}")


class finfo:
    """Limits of a floating dtype (a complex dtype gives its real parts'): bits, eps, max,
    min, tiny (= smallest_normal) and resolution; dtype is the name."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: _dtype.dtype | None = None) -> None:
        type = _dtype.get_default_dtype() if type is None else type
        _require_dtype("finfo", type)
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        if type is _dtype.bfloat16:  # 8 exponent bits, as float32; 8 bits of precision
            self.bits, self.eps, self.resolution = 16, 2.0 ** -7, 0.01
            self.max, self.tiny = (2 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126
        else:
            info = np.finfo(type.numpy)
            self.bits, self.eps = info.bits, float(info.eps)
            self.resolution = 10.0 ** -info.precision  # a double, not rounded to the dtype
            self.max, self.tiny = float(info.max), float(info.smallest_normal)
        self.min, self.smallest_normal = -self.max, self.tiny
        self.dtype = {"complex64": "float32", "complex128": "float64"}.get(type.name,
                                                                          type.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: bits, max, min; dtype is the name."""

    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type: _dtype.dtype) -> None:
        _require_dtype("iinfo", type)
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits, self.max, self.min = info.bits, int(info.max), int(info.min)
        self.dtype = type.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
