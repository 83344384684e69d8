"""Tensor factories (never differentiable): tensor, zeros, ones, arange, randn, ..."""
import builtins
import warnings

import numpy as np

from . import _dtype
from ._random import numpy_generator
from ._tensor import Tensor

SCALAR_OF_GRAD_TENSOR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first.")
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor).")


def _new(array, dtype=None, requires_grad=False):
    if dtype is not None and array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    result = Tensor._make(array)
    if requires_grad:
        if not (result.dtype.is_floating_point or result.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result._requires_grad = True
    return result


def _size(size):
    """zeros(2, 3), zeros((2, 3)), zeros([2, 3]) and zeros(torch.Size) all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers, got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return tuple(int(s) for s in size)


def _unwrap_nested(data):
    """Nested lists that may hold tensors, as plain Python numbers/arrays."""
    if isinstance(data, Tensor):
        if data._requires_grad:
            warnings.warn(SCALAR_OF_GRAD_TENSOR_WARNING, UserWarning, stacklevel=4)
        return data._data.tolist() if data.ndim else data._data.item()
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(item) for item in data]
    return data


def _inferred_dtype(array, data):
    """torch's dtype inference: Python floats -> default dtype, ints -> int64, arrays keep."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dtype.from_numpy_dtype(array.dtype)
    if array.dtype.kind == "f":
        return _dtype.get_default_dtype()
    if array.dtype.kind == "c":
        return _dtype.get_default_dtype().to_complex()
    if array.dtype.kind in "iu":
        return _dtype.int64
    if array.dtype.kind == "b":
        return _dtype.bool
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of data."""
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
        return _new(data._data.copy(), dtype, requires_grad)
    plain = _unwrap_nested(data)
    array = np.array(plain)
    if array.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return _new(array, dtype or _inferred_dtype(array, data), requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Share memory with an ndarray or tensor when no conversion is needed."""
    if isinstance(data, Tensor):
        return data if dtype in (None, data.dtype) else data.to(dtype)
    if isinstance(data, np.ndarray):
        return _new(data, dtype or _dtype.from_numpy_dtype(data.dtype))
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """A tensor sharing memory with ndarray."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return Tensor._make(ndarray)


def _filled(size, value, dtype, requires_grad):
    dtype = dtype or _dtype.get_default_dtype()
    return _new(np.full(_size(size), value, dtype=dtype.numpy), None, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _filled(size, 0, dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    return _filled(size, 1, dtype, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None, out=None):
    dtype = dtype or _dtype.get_default_dtype()
    return _new(np.empty(_size(size), dtype=dtype.numpy), None, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    if dtype is None:
        dtype = _dtype.scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor)
                                    else fill_value)
    return _filled((size,) if isinstance(size, int) else (tuple(size),), fill_value, dtype,
                   requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    dtype = dtype or _dtype.get_default_dtype()
    return _new(np.eye(n, n if m is None else m, dtype=dtype.numpy), None, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in values)
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    if dtype.is_floating_point:
        # torch computes the length in double precision, then fills start + i * step
        count = builtins.max(0, int(np.ceil((values[1] - values[0]) / values[2])))
        array = (values[0] + np.arange(count, dtype=np.float64) * values[2]).astype(dtype.numpy)
    else:
        array = np.arange(*values, dtype=dtype.numpy)
    return _new(array, None, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    dtype = dtype or _dtype.get_default_dtype()
    return _new(np.linspace(start, end, steps, dtype=np.float64).astype(dtype.numpy), None,
                requires_grad)


def _float_dtype(dtype, name):
    dtype = dtype or _dtype.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f'"{name}" not implemented for \'{dtype.legacy_name}\'')
    return dtype


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    dtype = _float_dtype(dtype, "check_uniform_bounds")
    array = numpy_generator(generator).random(_size(size), dtype=np.float64)
    return _new(array.astype(dtype.numpy), None, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    dtype = _float_dtype(dtype, "normal_kernel_cpu")
    array = numpy_generator(generator).standard_normal(_size(size))
    return _new(array.astype(dtype.numpy), None, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False, out=None):
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    array = numpy_generator(generator).integers(low, high, _size((size,)))
    return _new(array, dtype or _dtype.int64, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    return _new(numpy_generator(generator).permutation(n), dtype or _dtype.int64, requires_grad)


def _like(factory):
    def like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
        return factory(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
    like.__name__ = factory.__name__ + "_like"
    like.__doc__ = f"{factory.__name__} with input's shape and, by default, its dtype."
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
rand_like, randn_like = _like(rand), _like(randn)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return full((), s, dtype=dtype or _dtype.get_default_dtype(), requires_grad=requires_grad)
