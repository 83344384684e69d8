"""make_tensor: torch.testing's random test inputs, drawn as torch draws them (the same values
for the same seed)."""
from __future__ import annotations

import collections.abc
import math
import warnings

from .. import Size, Tensor, _dtype, empty, finfo, iinfo, randint, view_as_real
from .. import device as _device
from .. import memory_format as _memory_format

_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64, _dtype.uint64)
_FLOATING = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)
_COMPLEX = (_dtype.complex64, _dtype.complex128)


def make_tensor(*shape: int | Size | list[int] | tuple[int, ...], dtype: _dtype.dtype,
                device: str | _device, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: _memory_format | None = None) -> Tensor:
    """A tensor of the shape, dtype and device, its values drawn uniformly from [low, high)
    (bounds clamped to the dtype's finite range; by default [-9, 9) for floating and complex
    dtypes, [-9, 10) for integers, [0, 10) unsigned, [0, 2) for bool)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    sizes: tuple[int, ...] = tuple(shape)  # type: ignore[arg-type]
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous!r} and "
                         f"memory_format={memory_format!r}")
    exact = dtype is _dtype.bool or dtype in _INTEGRAL
    if requires_grad and exact:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype!r}")
    if not exact and dtype not in _FLOATING + _COMPLEX:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    noncontiguous = noncontiguous and math.prod(sizes) > 1
    if noncontiguous:  # twice the last size, to keep every other element (different values)
        sizes = (*sizes[:-1], 2 * sizes[-1])
    low, high = _value_range(dtype, low, high)
    if exact:
        result = randint(int(low), int(high), sizes, device=device, dtype=dtype)
    else:
        result = empty(sizes, device=device, dtype=dtype)
        real = view_as_real(result) if dtype in _COMPLEX else result
        if high - low >= finfo(dtype).max:  # uniform_ refuses a range wider than the dtype's
            real.uniform_(low / 2, high / 2).mul_(2)
        else:
            real.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]  # starting at 1, to catch offset bugs too
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if exact else finfo(dtype).tiny
    if not exact:
        result.requires_grad = requires_grad
    return result


def _value_range(dtype: _dtype.dtype, low: float | None,
                 high: float | None) -> tuple[float, float]:
    """[low, high) from the defaults, checked, clamped to the dtype and, for integers, ceiled
    (randint's high is exclusive, so ceiling both keeps the draw inside the interval)."""
    lowest: float
    highest: float
    if dtype is _dtype.bool:
        lowest, highest, default = 0, 2, (0, 2)
    elif dtype in _INTEGRAL:
        # randint takes int64 bounds, so it cannot draw int64's maximum
        lowest, highest = iinfo(dtype).min, iinfo(dtype).max + (dtype is not _dtype.int64)
        default = (-9, 10)  # clamped to 0 below for unsigned dtypes
    else:
        lowest, highest, default = finfo(dtype).min, finfo(dtype).max, (-9, 9)
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. "
                      "Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = (min(max(value, lowest), highest) for value in (low, high))
    if dtype is _dtype.bool or dtype in _INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high
