"""torch.memory_format and torch.layout values: tapegrad tensors are always strided."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from numpy.lib.stride_tricks import as_strided


class _NamedConstant:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class memory_format(_NamedConstant):
    __slots__ = ()


class layout(_NamedConstant):
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")

# channels_last keeps the channel dimension (1) innermost: NCHW data laid out as NHWC.
_CHANNELS_LAST_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def laid_out(array: Any, value: memory_format | None) -> Any:
    """array in memory format value (None or preserve_format: as it is), copied if it moves."""
    if value is None or value is preserve_format:
        return array
    if value is contiguous_format:
        return array if array.flags.c_contiguous else array.copy()
    order = _CHANNELS_LAST_ORDER.get(value)
    if order is None:
        raise TypeError(f"memory_format must be torch.memory_format, not {type(value).__name__}")
    if array.ndim != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {value._name} format")
    strides = _strides_in_order(array.shape, order, array.itemsize)
    if array.strides == strides:
        return array
    physical = array.transpose(order).copy()
    return as_strided(physical, array.shape, strides)


def _strides_in_order(shape: tuple[int, ...], order: tuple[int, ...],
                      itemsize: int) -> tuple[int, ...]:
    """Byte strides of shape laid out dim by dim in order (the last innermost), as torch
    computes them: a dim of size 0 or 1 counts as size 1."""
    strides = [0] * len(shape)
    step = itemsize
    for dim in reversed(order):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return tuple(strides)


def _over_flat_memory(array: Any) -> Any:
    """array itself when C- or F-ordered; else (permuted strides) the same over a 1-D buffer,
    which storage-reading ops (resize_, as_strided, untyped_storage) can address."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return array
    result = as_strided(np.empty(array.size, array.dtype), array.shape, array.strides)
    result[...] = array
    return result


def copied_as(array: Any, value: memory_format) -> Any:
    """A copy of array in memory format value. preserve_format keeps the order of the strides
    (torch's dense strides in the input's order), except that broadcast (stride 0) dims keep
    their place in a row-major layout, as torch's do."""
    if value is preserve_format:
        broadcast = any(s == 0 and n > 1 for s, n in zip(array.strides, array.shape))
        return _over_flat_memory(array.copy(order="C" if broadcast else "K"))
    arranged = laid_out(array, value)
    return arranged.copy() if arranged is array else arranged


def suggested(array: Any) -> memory_format:
    """torch's suggest_memory_format: channels_last(_3d) for strides laid out so (and not
    row-major as well), else contiguous_format."""
    for value, order in _CHANNELS_LAST_ORDER.items():
        if array.ndim == len(order) and not array.flags.c_contiguous \
                and is_laid_out(array, value):
            return value
    return contiguous_format


def is_laid_out(array: Any, value: memory_format) -> bool:
    """Tensor.is_contiguous(memory_format=value): whether array's strides are value's (the
    strides of size-1 dims do not count)."""
    order = _CHANNELS_LAST_ORDER.get(value)
    if order is None:  # contiguous_format, and preserve_format as torch reads it here
        return array.flags.c_contiguous
    if array.ndim != len(order):
        return False
    expected = array.itemsize
    for dim in reversed(order):  # innermost first: channels, then the spatial dims, batch
        if array.shape[dim] != 1:
            if array.strides[dim] != expected:
                return False
            expected *= array.shape[dim]
    return True


def memory_format_argument(function: str, args: tuple[object, ...], kwargs: Mapping[str, Any],
                           default: memory_format, optional: bool = False) -> memory_format:
    """The memory format of a method whose only parameter is the keyword memory_format
    (float(), contiguous(), ...), with torch's errors for anything else; an optional one
    takes None for the default."""
    if args:
        raise TypeError(f"{function}() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")
    for name in kwargs:
        if name != "memory_format":
            raise TypeError(f"{function}() got an unexpected keyword argument '{name}'")
    value = kwargs.get("memory_format", default)
    if value is None and optional:
        return default
    check_memory_format(function, value)
    return value


def check_memory_format(function: str, value: object) -> None:
    """torch's TypeError for a memory_format= argument that is not a memory format."""
    if not isinstance(value, memory_format):
        from ._random import type_name
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type_name(value)}")
