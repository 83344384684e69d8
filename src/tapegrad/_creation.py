"""Tensor factories (never differentiable): tensor, zeros, ones, arange, randn, ..., the *_like
factories and the Tensor.new_* methods.

Every factory first resolves its device= (None: the default device) and refuses a device
without a backend with torch's error (_device.tensor_device), as torch checks the device first.
Factories build their values on the host and `_placed` moves the result, once, to its device;
the random ones draw on their device with its generator (_random.py), and the *_like ones
start from an array made there, so neither crosses from the host."""
from __future__ import annotations

import builtins
import functools
import inspect
from typing import Any, Optional

import numpy as np

from . import _backend, _device, _dtype, _random
from ._device import tensor_device
from ._layout import laid_out, preserve_format
from ._tensor import Tensor
from .ops._checks import as_int, int_list, is_number, overload_error, type_name
from ._warnings import warn

SCALAR_OF_GRAD_TENSOR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first.")
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "{}(sourceTensor).")
_LIKE_KERNEL = "empty_strided"  # the kernel torch names when a *_like factory lacks a device


def _new(array, dtype=None, requires_grad=False, out=None):
    if dtype is not None and array.dtype != dtype.numpy:
        with np.errstate(all="ignore"):  # torch's cast overflows to inf without a word
            array = array.astype(dtype.numpy)
    if out is not None:
        return _write_out(out, array)
    result = Tensor._make(array)
    if requires_grad:
        if not (result.dtype.is_floating_point or result.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result._requires_grad = True
    return result


def _write_out(out, array):
    """A factory's out=: out takes the result's shape and values, in its own dtype."""
    out._data = array.astype(out.dtype.numpy, copy=False)
    out._bump_version()
    return out


def _size(sizes, name, keyword=None, varargs=True, position=1):
    """zeros(2, 3), zeros((2, 3)), zeros([2, 3]), zeros(torch.Size) and zeros(size=(2, 3)) all
    mean shape (2, 3); varargs=False: size must be one sequence (full(), empty_strided()).
    Sizes torch refuses raise its errors."""
    if keyword is not None:
        if sizes:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = int_list(keyword, name, "size", keyword=True)
    elif varargs and not sizes and name in _SIZE_REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    elif name in ("rand", "randn") and (not sizes or len(sizes) > 1
                                        and as_int(sizes[0]) is None):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(map(type_name, sizes))}), but expected one of:\n"
                        + _RANDOM_OVERLOADS)
    else:
        size = int_list(sizes, name, "size", position, varargs)
    for s in size:
        if s < 0:
            if name == "zeros":  # torch's zeros checks its sizes itself
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return size


_FACTORY_KEYWORDS = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                     "torch.device device = None, bool pin_memory = False, "
                     "bool requires_grad = False")
_RANDOM_OVERLOADS = (f" * (tuple of ints size, *, torch.Generator generator, {_FACTORY_KEYWORDS})"
                     f"\n * (tuple of ints size, *, {_FACTORY_KEYWORDS})\n")
# the factories whose size torch requires (rand() and randn() name their overloads instead)
_SIZE_REQUIRED = frozenset({"zeros", "ones", "empty", "new_zeros", "new_ones", "new_empty"})


def _unwrap_nested(data):
    """Nested lists that may hold tensors, as plain Python numbers/arrays."""
    if isinstance(data, Tensor):
        if data._requires_grad:
            warn(SCALAR_OF_GRAD_TENSOR_WARNING, UserWarning)
        if data._data.size != 1:  # a tensor inside a list is one number there
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.item()
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(item) for item in data]
    return data


def _inferred_dtype(array, data, plain):
    """torch's dtype inference: Python floats -> default dtype, ints -> int64, NumPy arrays
    and scalars keep theirs (also inside lists), and a list promotes over its elements."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dtype.from_numpy_dtype(array.dtype)
    if array.dtype.kind in "US":
        if isinstance(data, (list, tuple)):
            raise ValueError(f"too many dimensions '{type(array.flat[0].item()).__name__}'")
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if array.dtype.kind == "u" and array.itemsize == 8:  # Python ints from 2**63 on
        raise ValueError("Overflow when unpacking long long")
    if isinstance(plain, list):
        leaf_types = _leaf_types(plain)
        if any(issubclass(kind, np.generic) for kind in leaf_types):
            return _promoted_leaf_dtype(leaf_types)
    return _dtype.from_numpy_dtype(array.dtype) if array.dtype.kind == "b" else (
        _LIST_DTYPES[array.dtype.kind]())


def _promoted_leaf_dtype(leaf_types):
    """torch's dtype for a list mixing NumPy scalars (their own dtypes) with Python numbers."""
    result = None
    for kind in leaf_types:
        kind_dtype = (_dtype.from_numpy_dtype(np.dtype(kind)) if issubclass(kind, np.generic)
                      else _dtype.scalar_dtype(kind()))
        result = kind_dtype if result is None else _dtype.promote_types(result, kind_dtype)
    return result


# the dtype of a list of Python numbers, by the kind of NumPy's array of them
_LIST_DTYPES = {"f": _dtype.get_default_dtype,
                "c": lambda: _dtype.get_default_dtype().to_complex(),
                "i": lambda: _dtype.int64, "u": lambda: _dtype.int64}


def _leaf_types(data):
    """The set of types of the numbers in nested lists (C-speed per innermost list); an
    ndarray inside counts as its dtype's scalar type."""
    if isinstance(data, np.ndarray):
        return {data.dtype.type}
    if not isinstance(data, list):
        return {type(data)}
    if data and isinstance(data[0], (list, np.ndarray)):
        return set().union(*map(_leaf_types, data))
    return set(map(type, data))


def _array_of(plain, dtype):
    """np.array(plain), with torch's errors for ragged lists and values no dtype holds."""
    try:
        array = np.array(plain)
    except ValueError:
        shape = _nested_shape(plain)
        if 0 in shape:  # torch reads the shape along the first elements, and has no values
            return _empty_of_leaves(plain, shape)
        integral = all(isinstance(leaf, int) for leaf in _leaves(plain))
        _check_nested_lengths(plain, shape, 0, TypeError(
            "'list' object cannot be interpreted as an integer" if integral
            else "must be real number, not list"))
        raise
    if array.dtype.kind != "O":
        return array
    for value in _leaves(plain):
        if not isinstance(value, (int, float, complex)):
            raise RuntimeError(f"Could not infer dtype of {type(value).__name__}")
        if type(value) is int and not -2**63 <= value < 2**63 and not (
                dtype is not None and (dtype.is_floating_point or dtype.is_complex)):
            raise ValueError("Overflow when unpacking long long")
    return np.array(plain, dtype=np.float64)


def _nested_shape(data):
    shape = []
    while isinstance(data, list):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    if isinstance(data, np.ndarray):
        shape.extend(data.shape)
    return shape


def _empty_of_leaves(plain, shape):
    """tensor([[], [1]]): torch's empty tensor of the shape read along the first elements,
    its dtype still inferred from every number (an empty list counts as a float)."""
    kind = np.float64
    for leaf in _leaves(plain):
        if isinstance(leaf, np.ndarray):
            continue
        if isinstance(leaf, str):
            raise TypeError(f"new(): invalid data type '{type(leaf).__name__}'")
        if not isinstance(leaf, (int, float, complex, np.generic)):
            raise RuntimeError(f"Could not infer dtype of {type(leaf).__name__}")
        if isinstance(leaf, complex):
            kind = np.complex128
    return _allocated(shape, np.dtype(kind))


def _check_nested_lengths(data, shape, dim, list_as_number):
    """torch's errors for ragged lists: shape is read along the first elements."""
    if dim == len(shape):
        if isinstance(data, list):
            raise list_as_number
        return
    if not isinstance(data, list):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                         f"(got {len(data)})")
    for item in data:
        _check_nested_lengths(item, shape, dim + 1, list_as_number)


def _leaves(data):
    if not isinstance(data, list):
        return [data]
    return [leaf for item in data for leaf in _leaves(item)]


def _check_fits(array, dtype, type_name):
    """torch refuses numbers an integer dtype cannot hold (NaN and inf too); an unsigned
    dtype takes negative numbers down to -max and wraps them."""
    if not array.size or dtype.is_differentiable or dtype is _dtype.bool:
        return
    limits = np.iinfo(dtype.numpy)
    low = -limits.max if limits.min == 0 else limits.min
    values = array.real if array.dtype.kind == "c" else array
    fits = (array.dtype.kind == "b" or np.isfinite(values).all()
            and low <= values.min() and values.max() <= limits.max)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {type_name} without overflow")


def _copy_of(data, dtype, device, requires_grad, pin_memory, warn_as):
    if isinstance(data, Tensor):
        warn(COPY_CONSTRUCT_WARNING.format(warn_as), UserWarning)
        tensor_device(device, None, pin_memory)
        if data.numel() == 0 and type(data._data) is np.ndarray:  # its strides, as torch's
            return _new(_empty_with_strides(data.shape, data.stride(), (dtype or data.dtype).numpy),
                        None, requires_grad)
        return _new(data._data.copy(), dtype, requires_grad)
    plain = _unwrap_nested(data)
    array = _array_of(plain, dtype)
    if dtype is None:
        dtype = _inferred_dtype(array, data, plain)
    elif not isinstance(data, (np.ndarray, np.generic)):
        if array.dtype.kind == "c" and not (dtype.is_complex or dtype is _dtype.bool):
            raise TypeError("must be real number, not complex" if dtype.is_floating_point
                            else "'complex' object cannot be interpreted as an integer")
        _check_fits(array, dtype, dtype.name)
    tensor_device(device, None, pin_memory)  # torch reads the data first
    if array.size == 0 and not isinstance(data, np.ndarray):
        # nested lists: torch's contiguous strides, which NumPy zeroes (an ndarray's are kept)
        array = _allocated(array.shape, dtype.numpy)
    return _new(array, dtype, requires_grad)


def tensor(data: Any, *, dtype: Optional[_dtype.dtype] = None, device: Any = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of data."""
    return _copy_of(data, dtype, device, requires_grad, pin_memory, "torch.tensor")


def as_tensor(data: Any, dtype: Optional[_dtype.dtype] = None, device: Any = None) -> Tensor:
    """Share memory with an ndarray or tensor when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(device, dtype)
    if isinstance(data, np.ndarray):
        tensor_device(device, None)
        return _new(_writable(data), dtype or _dtype.from_numpy_dtype(data.dtype))
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ndarray."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return Tensor._make(_writable(ndarray))


READ_ONLY_ARRAY_WARNING = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor.")


def _writable(array):
    """torch warns and shares a read-only array's memory, writes into it being undefined; we
    warn and take a copy, so that writes into the tensor work as torch lets them."""
    if array.flags.writeable:
        return array
    warn(READ_ONLY_ARRAY_WARNING, UserWarning)
    return array.copy()


NOT_WRITABLE_BUFFER_WARNING = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
    "You may want to copy the buffer to protect its data or make it writable before converting "
    "it to a tensor. This type of warning will be suppressed for the rest of this program.")


def frombuffer(buffer: Any, *, dtype: Optional[_dtype.dtype] = None, count: int = -1,
               offset: int = 0, requires_grad: builtins.bool = False) -> Tensor:
    """A 1-D tensor over count elements of buffer's bytes from offset, sharing them (its
    storage is those bytes). Unlike torch, a read-only buffer is copied, with torch's warning:
    tapegrad's rule for read-only memory (see _writable)."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    length, itemsize = view.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    # over the memoryview, so that the storage is these bytes alone, as torch's
    array = np.frombuffer(view.cast("B"), dtype.numpy, count, offset)
    if view.readonly:
        warn(NOT_WRITABLE_BUFFER_WARNING, UserWarning)
        array = array.copy()
    return _new(array, None, requires_grad)


def _filled(size, value, dtype, requires_grad, out=None):
    dtype = dtype or (out.dtype if out is not None else _dtype.get_default_dtype())
    array = _allocated(size, dtype.numpy)
    array.fill(value)
    return _new(array, None, requires_grad, out)


def _allocated(size, numpy_dtype):
    """np.empty(size), refused with torch's errors when it cannot be made."""
    count = 1
    for n in size:
        count *= n
    nbytes = count * numpy_dtype.itemsize
    if nbytes >= 2**63 or count >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    if count == 0:
        from .ops.strided import contiguous_strides  # (ops load after this module)
        return _empty_with_strides(tuple(size), contiguous_strides(size), numpy_dtype)
    try:
        return np.empty(size, numpy_dtype)
    except (MemoryError, ValueError):
        raise RuntimeError(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate "
            "memory)") from None


def _empty_with_strides(size, stride, numpy_dtype):
    """A zero-size array with torch's element strides: NumPy gives a new one zero strides."""
    buffer = np.empty(0, numpy_dtype)
    return np.ndarray(size, buffer.dtype, buffer, strides=[s * buffer.itemsize for s in stride])


# torch names the C++ type a fill value does not fit
_FILL_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                    "float64": "double", "int32": "int", "bool": "bool"}
_FILL_TYPE_NAMES.update({"complex64": "c10::complex<float>", "complex128": "c10::complex<double>"})
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
              "float32": 3.4028234663852886e38, "float64": np.inf,
              "complex64": 3.4028234663852886e38, "complex128": np.inf}


def assigned_value(tensor: Tensor, value: Any) -> Any:
    """value of tensor[key] = value, as torch takes it: a tensor, or a number the dtype can
    hold; torch's errors for anything else (lists, arrays, None, NumPy complex numbers)."""
    if isinstance(value, Tensor):
        return value
    if (not isinstance(value, (int, float, complex, np.integer, np.floating, np.bool_))
            or isinstance(value, np.complexfloating)):
        raise TypeError(f"can't assign a {type_name(value)} to a "
                        f"torch.{tensor.dtype.legacy_name}Tensor")
    dtype = tensor.dtype
    if dtype is _dtype.bool or dtype.is_complex or (dtype.is_floating_point
                                                    and not isinstance(value, complex)):
        return value
    return _fill_value(value, dtype, "setitem")


def _fill_value(value, dtype, name):
    """full()'s fill_value: a number (a 0-d tensor's item) that dtype can hold."""
    if isinstance(value, Tensor):
        value = value.item()
    if not isinstance(value, (int, float, complex, np.number, np.bool_)):
        raise TypeError(f"{name}(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(value).__name__}")
    if isinstance(value, int) and not -2**63 <= value < 2**64:
        raise OverflowError("int too big to convert")
    type_name = _FILL_TYPE_NAMES.get(dtype.name, dtype.name + "_t")
    if isinstance(value, complex) and not dtype.is_complex:
        raise RuntimeError(f"value cannot be converted to type {type_name} without overflow")
    value = np.asarray(value)
    _check_fits(value, dtype, type_name)
    largest = _FLOAT_MAX.get(dtype.name)
    if largest is not None and np.isfinite(value) and abs(value) > largest:
        # torch refuses a finite number beyond the dtype's largest, though the cast would round
        raise RuntimeError(f"value cannot be converted to type {type_name} without overflow")
    return value.astype(dtype.numpy)[()]  # wrapping as torch does (-1 in uint8 is 255)


def check_fill_number(value: Any, dtype: _dtype.dtype) -> Any:
    """value for the fills that take a number (fill_, masked_fill, index_fill): cast to dtype
    as torch casts it (-1 in uint8 is 255), or torch's refusal of one that dtype cannot hold;
    NumPy would refuse, or cast to inf. Anything else is returned as it is."""
    if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        return _fill_value(value, dtype, "fill_")
    return value


def zeros(*sizes: Any, size: Any = None, out: Optional[Tensor] = None,
          dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
          pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    return _filled(_size(sizes, "zeros", keyword=size), 0, dtype, requires_grad, out)


def ones(*sizes: Any, size: Any = None, out: Optional[Tensor] = None,
         dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
         pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    return _filled(_size(sizes, "ones", keyword=size), 1, dtype, requires_grad, out)


def empty(*sizes: Any, size: Any = None, out: Optional[Tensor] = None,
          dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
          pin_memory: bool = False, requires_grad: bool = False,
          memory_format: Any = None) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    dtype = dtype or _dtype.get_default_dtype()
    size = _size(sizes, "empty", keyword=size)
    array = laid_out(_allocated(size, dtype.numpy), memory_format)
    return _new(array, None, requires_grad, out)


def _strided_array(size, stride, dtype):
    """An uninitialised array of size with element strides stride, over its own buffer."""
    if len(stride) != len(size):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    extent = 0 if 0 in size else 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride))
    buffer = np.empty(extent, dtype.numpy)
    byte_strides = tuple(s * buffer.itemsize for s in stride)
    return np.lib.stride_tricks.as_strided(buffer, size, byte_strides)


def empty_strided(size: Any, stride: Any, *, dtype: Optional[_dtype.dtype] = None,
                  layout: Any = None, device: Any = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    tensor_device(device, "empty_strided", pin_memory)
    dtype = dtype or _dtype.get_default_dtype()
    stride = tuple(int(s) for s in stride)
    return _new(_strided_array(_size(size, "empty_strided", varargs=False), stride, dtype), None,
                requires_grad)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Optional[_dtype.dtype] = None,
                   layout: Any = None, device: Any = None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of size whose dims lie in memory in physical_layout's order."""
    tensor_device(device, pin_memory=pin_memory)
    size, order = _size(size, "empty_permuted", varargs=False), tuple(physical_layout)
    if len(order) != len(size):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, dim in enumerate(order):
        if not 0 <= dim < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {dim} at index {i}).  NB: negative "
                               "dims not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    dtype = dtype or _dtype.get_default_dtype()
    physical = _allocated([size[dim] for dim in order], dtype.numpy)
    return _new(physical.transpose(np.argsort(order)), None, requires_grad)


def full(size: Any, fill_value: Any, *, out: Optional[Tensor] = None,
         dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
         pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = out.dtype if out is not None else _dtype.scalar_dtype(fill_value)
    fill_value = _fill_value(fill_value, dtype, "full")
    return _filled(_size(size, "full", varargs=False), fill_value, dtype, requires_grad, out)


def eye(n: int, m: Optional[int] = None, *, out: Optional[Tensor] = None,
        dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
        pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    m = n if m is None else m
    for name, value in (("n", n), ("m", m)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    dtype = dtype or _dtype.get_default_dtype()
    array = np.eye(n, m, dtype=dtype.numpy) if n and m else _allocated((n, m), dtype.numpy)
    return _new(array, None, requires_grad, out)


_NO_END = object()  # arange(end): an end of None is refused, as torch
_ARANGE_OVERLOADS = (f"Number end, *, {_FACTORY_KEYWORDS}",  # (its second takes no out=)
                     "Number start, Number end, *, " + _FACTORY_KEYWORDS.partition(", ")[2],
                     f"Number start, Number end, Number step = 1, *, {_FACTORY_KEYWORDS}")


def arange(start: Any, end: Any = _NO_END, step: Any = 1, *, out: Optional[Tensor] = None,
           dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
           pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    if end is _NO_END:
        start, end = 0, start
        if not isinstance(end, (Tensor, int, float, complex, np.number)):
            raise TypeError("arange(): argument 'end' (position 1) must be Number, not "
                            f"{type(end).__name__}")
    elif not all(isinstance(v, Tensor) or is_number(v) for v in (start, end, step)):
        given = (start, end) if step == 1 else (start, end, step)
        raise overload_error("arange", _ARANGE_OVERLOADS, given)
    values: list[Any] = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if any(isinstance(v, complex) for v in values):
        raise RuntimeError("value cannot be converted to type double without overflow")
    if dtype is not None and dtype.is_complex:
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{dtype.legacy_name}\'')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if any(isinstance(v, float) and not np.isfinite(v) for v in values[:2]):
        raise RuntimeError(f"unsupported range: {values[0]} -> {values[1]}")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in values)
        dtype = _dtype.get_default_dtype() if is_float else _dtype.int64
    if dtype.is_floating_point:
        # torch computes the length in double precision, then fills start + i * step
        count = builtins.max(0, int(np.ceil((values[1] - values[0]) / values[2])))
        array = (values[0] + np.arange(count, dtype=np.float64) * values[2]).astype(dtype.numpy)
    else:
        array = np.arange(*values, dtype=dtype.numpy)
    return _new(array, None, requires_grad, out)


def _endpoints(name, start, end, steps):
    """start, end and steps as Python numbers; torch's errors for tensors that are not 0-d,
    and for arguments none of its overloads takes."""
    if (not all(isinstance(v, Tensor) or is_number(v) for v in (start, end))
            or as_int(steps) is None):
        tail = f", {'float base = 10.0, ' if name == 'logspace' else ''}*, {_FACTORY_KEYWORDS}"
        overloads = [f"{a} start, {b} end, int steps{tail}" for a, b in (
            ("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number"))]
        raise overload_error(name, overloads, (start, end, steps))
    for which, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.ndim:
            raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but "
                               f"got {which} with {value.ndim} dimension(s).")
    steps = steps.item() if isinstance(steps, Tensor) else steps
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    return start, end, steps


def _evenly_spaced(start, end, steps, dtype):
    """torch's linspace values: the first half counted up from start, the second down from end.
    torch fuses each multiply-add (one rounding), so they are computed in a wider type."""
    if dtype.is_complex:
        wide = np.clongdouble if dtype is _dtype.complex128 else np.complex128
    else:
        wide = np.longdouble if dtype is _dtype.float64 else np.float64
    narrow = dtype.numpy if dtype.is_differentiable else np.dtype(np.float64)
    start, end = narrow.type(start), narrow.type(end)
    if steps == 1:
        return np.full(1, start, wide)
    i = np.arange(steps).astype(wide)
    with np.errstate(all="ignore"):  # an infinite end makes NaN steps, silently as torch
        step = (end - start) / narrow.type(builtins.max(steps - 1, 1))
        up = wide(start) + wide(step) * i
        down = wide(end) - wide(step) * (steps - 1 - i)
    return np.where(i < steps // 2, up, down)


def _spaced_dtype(dtype, name, start, end):
    """The dtype of linspace/logspace: complex ends make a complex one (the default complex
    dtype unless given; torch refuses a real one)."""
    if isinstance(start, complex) or isinstance(end, complex):
        inferred = _dtype.get_default_dtype().to_complex()
        if dtype is not None and not dtype.is_complex:
            raise RuntimeError(f"torch.{name}(): inferred dtype {_FILL_TYPE_NAMES[inferred.name]}"
                               f" can't be safely cast to passed dtype "
                               f"{dtype.legacy_name}")
        dtype = dtype or inferred
    dtype = dtype or _dtype.get_default_dtype()
    if dtype is _dtype.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    return dtype


def _check_endpoints_fit(start, end, dtype):
    """torch converts start and end to dtype first: its overflow error for one it cannot hold."""
    for value in (start, end):
        check_fill_number(value, dtype)


def linspace(start: Any, end: Any, steps: int, *, out: Optional[Tensor] = None,
             dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
             pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    start, end, steps = _endpoints("linspace", start, end, steps)
    dtype = _spaced_dtype(dtype, "linspace", start, end)
    _check_endpoints_fit(start, end, dtype)
    values = _evenly_spaced(start, end, steps, dtype)
    return _new(values.astype(dtype.numpy), None, requires_grad, out)


def logspace(start: Any, end: Any, steps: int, base: Any = 10.0, *, out: Optional[Tensor] = None,
             dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
             pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    start, end, steps = _endpoints("logspace", start, end, steps)
    base = base.item() if isinstance(base, Tensor) else base
    dtype = _spaced_dtype(dtype, "logspace", start, end)
    _check_endpoints_fit(start, end, dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        start, end = int(start), int(end)  # torch casts the exponents' ends to the dtype
    exponents = _evenly_spaced(start, end, steps, dtype)
    with np.errstate(all="ignore"):  # a power beyond the dtype is inf, as torch's
        values = np.power(exponents.dtype.type(base), exponents).astype(dtype.numpy)
    return _new(values, None, requires_grad, out)


def _float_dtype(dtype, name):
    dtype = dtype or _dtype.get_default_dtype()
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f'"{name}" not implemented for \'{dtype.legacy_name}\'')
    return dtype


def rand(*sizes: Any, size: Any = None, generator: Optional[_random.Generator] = None,
         out: Optional[Tensor] = None, dtype: Optional[_dtype.dtype] = None, layout: Any = None,
         device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    target = tensor_device(device, pin_memory=pin_memory)
    dtype = _float_dtype(dtype, "check_uniform_bounds")
    size = _size(sizes, "rand", keyword=size)
    array = _random.uniform_array(generator, size, dtype, 0.0, 1.0, device=target)
    return _new(array, None, requires_grad, out)


def randn(*sizes: Any, size: Any = None, generator: Optional[_random.Generator] = None,
          out: Optional[Tensor] = None, dtype: Optional[_dtype.dtype] = None, layout: Any = None,
          device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    target = tensor_device(device, pin_memory=pin_memory)
    dtype = _float_dtype(dtype, "normal_kernel_cpu")
    size = _size(sizes, "randn", keyword=size)
    array = _random.normal_array(generator, size, dtype, 0.0, 1.0, device=target)
    return _new(array, None, requires_grad, out)


def randint(low: int = 0, high: Optional[int] = None, size: Any = None, *,
            generator: Optional[_random.Generator] = None, out: Optional[Tensor] = None,
            dtype: Optional[_dtype.dtype] = None, layout: Any = None, device: Any = None,
            pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    target = tensor_device(device, pin_memory=pin_memory)
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    _random.check_long_arguments(low, high)
    if dtype is not None and dtype.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    shape = _size(size, "randint", varargs=False, position=2)
    # torch draws in the result's dtype: its checks and its rounded bounds (update_from and
    # update_to) are that dtype's, and a float's range then differs from int64's
    dtype = dtype or (out.dtype if out is not None else _dtype.int64)
    drawn = Tensor._make(_backend.empty(shape, dtype.numpy, target), dtype)
    _random.random_(drawn, low, high, generator=generator)
    return _new(drawn._data, None, requires_grad, out)


def randperm(n: int, *, generator: Optional[_random.Generator] = None,
             out: Optional[Tensor] = None, dtype: Optional[_dtype.dtype] = None,
             layout: Any = None, device: Any = None, pin_memory: bool = False,
             requires_grad: bool = False) -> Tensor:
    target = tensor_device(device, pin_memory=pin_memory)
    if not isinstance(n, (int, np.integer)):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    _size((n,), "randperm")  # torch's error for a negative n
    return _new(_random.permutation(generator, n, target), dtype or _dtype.int64,
                requires_grad, out)


def scalar_tensor(s: Any, *, dtype: Optional[_dtype.dtype] = None, layout: Any = None,
                  device: Any = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    tensor_device(device, pin_memory=pin_memory)
    dtype = dtype or _dtype.get_default_dtype()
    if isinstance(s, complex):  # torch's refusal of a complex number for a real dtype
        s = _fill_value(s, dtype, "scalar_tensor")
    return _filled((), s, dtype, requires_grad)


# ---- *_like: input's shape, dtype, device and (by default) memory layout --------------------

def _like_array(input, dtype, device, memory_format, pin_memory, name):
    """An uninitialised array laid out as input (torch's preserve_format) or as asked, on the
    device the result gets (a device array has no layout to copy)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    target = tensor_device(input.device if device is None else device, _LIKE_KERNEL, pin_memory)
    dtype = dtype or input.dtype
    if target.type != "cpu" or _backend.on_device(input._data):
        return _backend.empty(input._data.shape, dtype.numpy, target), dtype
    if input._data.size == 0 and memory_format in (None, preserve_format):
        # torch keeps an empty input's strides, which NumPy's empty_like would zero
        return _empty_with_strides(input.shape, input.stride(), dtype.numpy), dtype
    array = np.empty_like(input._data, dtype=dtype.numpy)
    return laid_out(array, memory_format), dtype


def _like(fill):
    def like(input: Tensor, *, dtype: Optional[_dtype.dtype] = None, layout: Any = None,
             device: Any = None, pin_memory: bool = False, requires_grad: bool = False,
             memory_format: Any = None) -> Tensor:
        array, dtype = _like_array(input, dtype, device, memory_format, pin_memory,
                                   like.__name__)
        fill(array, dtype)
        return _new(array, None, requires_grad)
    return like


def _random_fill(draw, name):
    def fill(array, dtype):
        _float_dtype(dtype, name)
        array[...] = draw(None, array, dtype)  # array's layout says the order of the draws
    return fill


empty_like = _like(lambda array, dtype: None)
zeros_like = _like(lambda array, dtype: array.fill(0))
ones_like = _like(lambda array, dtype: array.fill(1))
rand_like = _like(_random_fill(lambda generator, array, dtype: _random.uniform_array(
    generator, array.shape, dtype, 0.0, 1.0, array), "check_uniform_bounds"))
randn_like = _like(_random_fill(lambda generator, array, dtype: _random.normal_array(
    generator, array.shape, dtype, 0.0, 1.0, array), "normal_kernel_cpu"))
for _name, _factory in (("empty", empty_like), ("zeros", zeros_like), ("ones", ones_like),
                        ("rand", rand_like), ("randn", randn_like)):
    _factory.__name__ = _factory.__qualname__ = _name + "_like"
    _factory.__doc__ = f"{_name} with input's shape and, by default, its dtype and layout."


def full_like(input: Tensor, fill_value: Any, *, dtype: Optional[_dtype.dtype] = None,
              layout: Any = None, device: Any = None, pin_memory: bool = False,
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    array, dtype = _like_array(input, dtype, device, memory_format, pin_memory, "full_like")
    array.fill(_fill_value(fill_value, dtype, "full_like"))
    return _new(array, None, requires_grad)


_RANDINT_LIKE_OVERLOADS = tuple(
    f" * (Tensor input, {first}, *, {generator}torch.memory_format memory_format = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
    "pin_memory = False, bool requires_grad = False)"
    for first in ("int low, int high", "Tensor high", "int high")
    for generator in ("torch.Generator generator, ", ""))
_RANDINT_LIKE_OPTIONS = ("generator", "dtype", "layout", "device", "pin_memory",
                         "requires_grad", "memory_format")


def randint_like(*args: Any, **kwargs: Any) -> Tensor:
    """Integers uniform on [low, high) with input's shape, layout and (by default) dtype:
    random_(low, high) on an empty_like, so its bound checks are random_'s."""
    options = {key: kwargs[key] for key in _RANDINT_LIKE_OPTIONS if key in kwargs}
    input, low, high = _randint_like_bounds(args, kwargs)
    array, dtype = _like_array(input, options.get("dtype"), options.get("device"),
                               options.get("memory_format"), options.get("pin_memory", False),
                               "randint_like")
    _random.random_(Tensor._make(array, dtype), low, high, generator=options.get("generator"))
    return _new(array, None, options.get("requires_grad", False))


def _randint_like_bounds(args, kwargs):
    """(input, low, high) from randint_like's overloads (high alone may be a tensor)."""
    plain = {key: value for key, value in kwargs.items() if key not in _RANDINT_LIKE_OPTIONS}
    with_low = len(args) == 3 or (len(args) == 2 and "high" in plain)
    bound = dict(zip(("input", "low", "high") if with_low else ("input", "high"), args))
    valid = len(args) <= 3 and not set(bound) & set(plain) and set(plain) <= {
        "input", "low", "high"}
    bound.update(plain)
    input, low, high = bound.get("input"), bound.get("low", 0), bound.get("high")
    if isinstance(high, Tensor) and "low" not in bound:
        high = int(high.item())
    valid = (valid and isinstance(input, Tensor) and _random.is_int(low)
             and _random.is_int(high) and _random.is_generator(kwargs.get("generator")))
    if not valid:
        raise _random.invalid_combination("randint_like", args, kwargs, _RANDINT_LIKE_OVERLOADS)
    return input, low, high


# ---- Tensor.new_*: self's dtype and device unless given ------------------------------------

def _new_options(self, dtype, device, pin_memory):
    tensor_device(self.device if device is None else device, pin_memory=pin_memory)
    return dtype or self.dtype


def new_tensor(self, data: Any, *, dtype: Optional[_dtype.dtype] = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    return _copy_of(data, dtype or self.dtype, self.device if device is None else device,
                    requires_grad, False, "tensor.new_tensor")


def new_empty(self, *sizes: Any, size: Any = None, dtype: Optional[_dtype.dtype] = None,
              device: Any = None, requires_grad: bool = False, layout: Any = None,
              pin_memory: bool = False) -> Tensor:
    dtype = _new_options(self, dtype, device, pin_memory)
    size = _size(sizes, "new_empty", keyword=size)
    return _new(_allocated(size, dtype.numpy), None, requires_grad)


def new_empty_strided(self, size: Any, stride: Any, *, dtype: Optional[_dtype.dtype] = None,
                      device: Any = None, requires_grad: bool = False, layout: Any = None,
                      pin_memory: bool = False) -> Tensor:
    return empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad,
                         device=self.device if device is None else device,
                         pin_memory=pin_memory)


def new_zeros(self, *sizes: Any, size: Any = None, dtype: Optional[_dtype.dtype] = None,
              device: Any = None, requires_grad: bool = False, layout: Any = None,
              pin_memory: bool = False) -> Tensor:
    dtype = _new_options(self, dtype, device, pin_memory)
    return _filled(_size(sizes, "new_zeros", keyword=size), 0, dtype, requires_grad)


def new_ones(self, *sizes: Any, size: Any = None, dtype: Optional[_dtype.dtype] = None,
             device: Any = None, requires_grad: bool = False, layout: Any = None,
             pin_memory: bool = False) -> Tensor:
    dtype = _new_options(self, dtype, device, pin_memory)
    return _filled(_size(sizes, "new_ones", keyword=size), 1, dtype, requires_grad)


def new_full(self, size: Any, fill_value: Any, *, dtype: Optional[_dtype.dtype] = None,
             device: Any = None, requires_grad: bool = False, layout: Any = None,
             pin_memory: bool = False) -> Tensor:
    dtype = _new_options(self, dtype, device, pin_memory)
    return _filled(_size(size, "new_full", varargs=False),
                   _fill_value(fill_value, dtype, "new_full"), dtype, requires_grad)


for _method in (new_tensor, new_empty, new_empty_strided, new_zeros, new_ones, new_full):
    setattr(Tensor, _method.__name__, _method)


def _placed(factory):
    """factory, moving what it builds to the device asked for: device=, else for the *_like
    factories and Tensor.new_* the input's, else the default device."""
    signature = inspect.signature(factory)
    of_input = factory.__name__.endswith("_like") or factory.__name__.startswith("new_")

    @functools.wraps(factory)
    def make(*args: Any, **kwargs: Any) -> Tensor:
        result = factory(*args, **kwargs)
        if not _backend.active:  # the cpu-only build: nothing to place
            return result
        target = kwargs.get("device")
        if target is None and "device" in signature.parameters and "device" not in kwargs:
            bound = signature.bind_partial(*args)
            target = bound.arguments.get("device")
        if target is None:
            target = args[0].device if of_input and args else _device._default[0]
        if target is None or _device.as_device(target).type == "cpu":
            return result
        result._data = _backend.to_device(result._data, _device.tensor_device(target))
        return result
    return make


for _name in ("tensor as_tensor zeros ones empty empty_strided empty_permuted full eye arange "
              "linspace logspace rand randn randint randperm scalar_tensor empty_like "
              "zeros_like ones_like rand_like randn_like full_like randint_like new_tensor "
              "new_empty new_empty_strided new_zeros new_ones new_full").split():
    globals()[_name] = _placed(globals()[_name])
    if _name.startswith("new_"):
        setattr(Tensor, _name, globals()[_name])
