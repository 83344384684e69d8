"""torch.memory_format and torch.layout values: tapegrad tensors are always strided."""
from numpy.lib.stride_tricks import as_strided


class _NamedConstant:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
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


def laid_out(array, value):
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


def _strides_in_order(shape, order, itemsize):
    """Byte strides of shape laid out dim by dim in order (the last innermost), as torch
    computes them: a dim of size 0 or 1 counts as size 1."""
    strides = [0] * len(shape)
    step = itemsize
    for dim in reversed(order):
        strides[dim] = step
        step *= max(shape[dim], 1)
    return tuple(strides)
