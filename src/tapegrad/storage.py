"""torch's storages over NumPy memory: UntypedStorage (the bytes a tensor's storage spans, see
ops/strided.py), the deprecated TypedStorage and its legacy classes (FloatStorage, ...), and
the tensor methods that read or replace a storage (untyped_storage, storage, set_, is_set_to).

What differs from torch: NumPy cannot move the memory under arrays that already exist, so a
storage is resizable only when tapegrad allocated it for the storage itself (the constructors,
clone, an empty set_()) and no tensor is over it yet; a tensor's storage is not resizable, and
set_ past the end of such a storage is refused where torch grows it. New bytes are zeros where
torch leaves them uninitialised.
"""
from __future__ import annotations

import sys
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend, _device, _dtype
from ._device import CPU, DeviceLike, tensor_device
from ._legacy_tensor_types import _C10_NAMES
from ._tensor import Tensor
from ._warnings import warn
from .autograd import grad_mode
from .autograd.graph import Node
from .ops import _inplace, strided
from .ops._checks import as_int, numel, type_name

if TYPE_CHECKING:
    from typing_extensions import Self

    from .autograd.graph import Grads

__all__ = ["BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage",
           "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage", "FloatStorage",
           "HalfStorage", "IntStorage", "LongStorage", "ShortStorage", "TypedStorage",
           "UntypedStorage"]

TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
NOT_RESIZABLE = "Trying to resize storage that is not resizable"

# id(the array owning a storage's memory) -> its UntypedStorage: torch gives a tensor and its
# views one storage object while it lives. The storage keeps the array, so the id stays its own.
_STORAGES: weakref.WeakValueDictionary[int, UntypedStorage] = weakref.WeakValueDictionary()
# id(memory) -> a weak reference to it, for the memory tapegrad allocated for a storage itself
# (resizable, as torch's own allocations are); the entry goes when the memory does
_ALLOCATED: dict[int, weakref.ref[Any]] = {}


def _allocated(memory: Any) -> bool:
    found = _ALLOCATED.get(id(memory))
    return found is not None and found() is memory


def _c10_name(dtype: _dtype.dtype) -> str:
    return _C10_NAMES.get(dtype.name, dtype.name)


class UntypedStorage:
    """torch.UntypedStorage: a storage's bytes, shared with every tensor over them."""

    __slots__ = ("_memory", "__weakref__")
    _memory: Any  # a 1-D uint8 array over the storage's bytes (numpy's, or a device's)

    def __init__(self, *args: Any, device: DeviceLike | None = None) -> None:
        where = CPU if device is None else tensor_device(device, None)
        if len(args) > 1:
            got = ", ".join(type(a).__name__ for a in args)
            raise TypeError(
                f"torch.UntypedStorage() received an invalid combination of arguments - got "
                f"({got}), but expected one of:\n * (*, int allocator = None, torch.device "
                "device = None)\n * (int size, *, int allocator = None, torch.device device = "
                "None)\n * (object sequence, *, int allocator = None, torch.device device = "
                "None)\n")
        values = _byte_values(args[0]) if args else np.zeros(0, np.uint8)
        self._own(_backend.to_device(values, where))

    def _own(self, memory: Any) -> None:
        """Take memory (a fresh 1-D uint8 array that only this storage holds) as its own."""
        self._memory = memory
        key = id(memory)
        _ALLOCATED[key] = weakref.ref(memory, lambda _: _ALLOCATED.pop(key, None))
        _STORAGES[key] = self

    @classmethod
    def _over(cls, memory: Any) -> UntypedStorage:
        storage = object.__new__(cls)
        storage._memory = memory
        return storage

    # ---- what it is ---------------------------------------------------------------------
    def nbytes(self) -> int:
        return int(self._memory.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> _device.device:
        return _backend.device_of(self._memory)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def get_device(self) -> int | None:
        return self.device.index

    def data_ptr(self) -> int:
        return int(strided._address(self._memory))

    @property
    def _cdata(self) -> int:  # the identity of the memory, as torch's StorageImpl pointer
        return id(strided._owner(self._memory))

    def is_shared(self) -> bool:
        return self.device.type == "cuda"  # torch: device memory counts as shared

    def is_pinned(self, device: DeviceLike | None = None) -> bool:
        return False

    def resizable(self) -> bool:
        return _allocated(self._memory)

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def untyped(self) -> Self:
        return self

    # ---- elements -----------------------------------------------------------------------
    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return UntypedStorage._over(self._memory[self._range(idx)])
        return int(self._memory[self._index(idx)])

    def __setitem__(self, idx: int | slice, value: int) -> None:
        if not isinstance(value, int):
            raise RuntimeError("can only set storage content with a int types, but got "
                               f"{_type_name(value)} instead")
        if isinstance(idx, slice):
            self._memory[self._range(idx)] = value % 256
            return
        index = as_int(idx)
        if index is None:
            raise RuntimeError(f"can't index a torch.UntypedStorage with {_type_name(idx)}")
        if not 0 <= index < self.nbytes():  # torch's setitem takes no negative index
            raise RuntimeError("out of bounds")
        self._memory[index] = value % 256

    def _index(self, idx: Any) -> int:
        index = as_int(idx)
        if index is None:
            raise TypeError(f"can't index a torch.UntypedStorage with {_type_name(idx)}")
        size = self.nbytes()
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return index

    def _range(self, idx: slice) -> slice:
        if idx.step not in (None, 1):
            raise RuntimeError(f"Trying to slice with a step of {idx.step}, but only a step of "
                               "1 is supported")
        start, stop, _ = idx.indices(self.nbytes())
        return slice(start, max(start, stop))

    def tolist(self) -> list[int]:
        return [int(b) for b in _backend.to_host(self._memory)]

    def __iter__(self) -> Iterator[int]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"
        return " " + "\n ".join(map(str, self.tolist())) + "\n" + info

    # ---- writing, copying ---------------------------------------------------------------
    def fill_(self, value: int) -> Self:
        if not isinstance(value, int):
            raise RuntimeError(f"fill_ expects int, but got {_type_name(value)}")
        self._memory[...] = value % 256
        return self

    def copy_(self, source: UntypedStorage | TypedStorage,
              non_blocking: bool | None = None) -> Self:
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        if not isinstance(source, UntypedStorage):
            raise TypeError("copy_(): argument 'src' (position 1) must be torch.Storage, not "
                            f"{_type_name(source)}")
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src "
                               f"was {source.nbytes()} bytes")
        self._memory[...] = _backend.to_device(source._memory, self.device)
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage(self.nbytes(), device=self.device).copy_(self)

    def to(self, *, device: DeviceLike, non_blocking: bool = False) -> UntypedStorage:
        """This storage on device: itself when it is there, else a copy."""
        target = tensor_device(device, None)
        if target == self.device:
            return self
        return UntypedStorage(self.nbytes(), device=target).copy_(self)

    def cpu(self) -> UntypedStorage:
        return self.to(device=CPU)

    def __copy__(self) -> UntypedStorage:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> UntypedStorage:
        return memo.setdefault(id(self), self.clone())  # type: ignore[no-any-return]

    def resize_(self, size: int) -> Self:
        """torch's resize_, where NumPy allows it: see the module's docstring."""
        if not self.resizable():
            raise RuntimeError(NOT_RESIZABLE)
        if size < 0:
            raise _negative_size(size)
        if sys.getrefcount(self._memory) > 2:  # the slot's and the call's: no view of it
            raise RuntimeError("tapegrad cannot resize a storage that tensors are over: NumPy "
                               "cannot move their memory")
        larger = _backend.array_module(self._memory).zeros(size, np.uint8)
        kept = min(size, self.nbytes())
        larger[:kept] = self._memory[:kept]
        _STORAGES.pop(id(self._memory), None)
        self._own(larger)
        return self

    def _as(self, dtype: _dtype.dtype, storage_offset: int, size: tuple[int, ...],
            stride: tuple[int, ...]) -> Any:
        """An array of dtype over this storage's bytes with the given geometry (in elements)."""
        itemsize = dtype.itemsize
        byte_strides = tuple(s * itemsize for s in stride)
        if type(self._memory) is np.ndarray and not numel(size):  # still over this storage
            start = min(storage_offset * itemsize, self.nbytes())  # NumPy's bound; any in torch
            return np.ndarray(size, dtype.numpy, buffer=self._memory, offset=start,
                              strides=byte_strides)
        return strided.strided_array(_backend.array_module(self._memory), self._memory, size,
                                     byte_strides, storage_offset * itemsize, dtype.numpy)


def _type_name(value: object) -> str:
    kind = type(value)
    if isinstance(value, (UntypedStorage, TypedStorage)):
        return f"torch.storage.{kind.__name__}"
    return type_name(value)


def _class_name(value: object) -> str:
    """type(value) as torch's messages print it (<class 'torch.Tensor'>, ...)."""
    if isinstance(value, (Tensor, UntypedStorage, TypedStorage)):
        return f"<class '{_type_name(value).replace('Tensor', 'torch.Tensor')}'>"
    return str(type(value))


def _negative_size(size: int) -> RuntimeError:
    return RuntimeError("[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. "
                        "alloc_cpu() seems to have been called with negative number: "
                        f"{size % 2**64}")  # torch's allocator reads it as unsigned


def _byte_values(data: Any) -> Any:
    """What torch.UntypedStorage(data) holds: zeros of a size, or a sequence's ints mod 256."""
    size = as_int(data)
    if size is not None:
        if size < 0:
            raise _negative_size(size)
        return np.zeros(size, np.uint8)
    if isinstance(data, (bytes, bytearray)):
        return np.frombuffer(data, np.uint8).copy()
    if not isinstance(data, Sequence) or isinstance(data, Tensor):
        raise RuntimeError("torch.UntypedStorage(): Expected a sequence type, but got "
                           f"{_type_name(data)}")
    for item in data:
        if as_int(item) is None and not isinstance(item, bool):
            raise RuntimeError(
                "torch.UntypedStorage(): tried to construct a storage from a sequence "
                f"({type(data).__name__}), but one of the items was of type "
                f"{_type_name(item)} instead of int")
    return np.array([int(item) % 256 for item in data], np.uint8)


def untyped_storage_of(tensor: Tensor) -> UntypedStorage:
    """Tensor.untyped_storage(): the one storage object of the memory tensor's array owns."""
    owner = strided._owner(tensor._data)
    storage = _STORAGES.get(id(owner))
    if storage is None:
        nbytes = strided._storage_nbytes(owner)
        if _allocated(owner):
            memory = owner
        elif not nbytes and type(owner) is np.ndarray:  # strided_array would give new memory
            memory = np.ndarray((0,), np.uint8, buffer=owner)
        else:
            memory = strided.strided_array(
                _backend.array_module(tensor._data), tensor._data, (nbytes,), (1,),
                -strided.offset_in_storage(tensor) * tensor._data.itemsize, np.dtype(np.uint8))
        storage = _STORAGES[id(owner)] = UntypedStorage._over(memory)
    return storage


# ---- TypedStorage and the legacy classes --------------------------------------------------

_warned = False


def _warn_typed_storage() -> None:
    global _warned
    if not _warned:  # torch warns once a process
        _warned = True
        warn(TYPED_STORAGE_WARNING, UserWarning)


_TYPED_EXPECTED = (
    "TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n * "
    "(*, torch.device device, torch.dtype dtype)\n * (int size, *, torch.device device, "
    "torch.dtype dtype)\n * (Sequence data, *, torch.device device, torch.dtype dtype)\n * (*, "
    "UntypedStorage wrap_storage, torch.dtype dtype)")


def _wrapping_dtype(args: tuple[Any, ...], device: Any, dtype: Any, wrap_storage: Any
                    ) -> _dtype.dtype:
    """The dtype of TypedStorage(wrap_storage=..., dtype=...), checked in torch's order."""
    if args:
        raise RuntimeError(f"{_TYPED_EXPECTED}\nNo positional arguments should be given when "
                           "using 'wrap_storage'")
    if dtype is None:
        raise RuntimeError(f"{_TYPED_EXPECTED}\nArgument 'dtype' must be specified")
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{_TYPED_EXPECTED}\nArgument 'dtype' must be torch.dtype, not "
                        f"{_class_name(dtype)}")
    if device is not None:
        raise RuntimeError(f"{_TYPED_EXPECTED}\nArgument 'device' should not be specified when "
                           "'wrap_storage' is given")
    if not isinstance(wrap_storage, UntypedStorage):
        raise TypeError(f"{_TYPED_EXPECTED}\nArgument 'wrap_storage' must be UntypedStorage, "
                        f"but got {_class_name(wrap_storage)}")
    return dtype


class TypedStorage:
    """torch.TypedStorage (deprecated, as torch warns once): an UntypedStorage read as dtype."""

    is_sparse = False
    dtype: _dtype.dtype
    _untyped_storage: UntypedStorage

    def __init__(self, *args: Any, device: DeviceLike | None = None,
                 dtype: _dtype.dtype | None = None, wrap_storage: UntypedStorage | None = None,
                 _internal: bool = False) -> None:
        if not _internal:
            _warn_typed_storage()
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
            self.dtype = _wrapping_dtype(args, device, dtype, wrap_storage)
            return
        self.dtype = _dtype.get_default_dtype() if dtype is None else dtype
        if len(args) > 1:
            raise RuntimeError(f"{_TYPED_EXPECTED}\nToo many positional arguments")
        if not args or as_int(args[0]) is not None:
            count = as_int(args[0]) if args else 0
            self._untyped_storage = UntypedStorage((count or 0) * self.dtype.itemsize,
                                                   device=device)
        elif isinstance(args[0], Sequence):
            from ._creation import tensor
            values = tensor(args[0], dtype=self.dtype, device=device)._data.reshape(-1)
            self._untyped_storage = object.__new__(UntypedStorage)
            self._untyped_storage._own(values.view(np.uint8).copy())
        else:
            raise TypeError(f"{_TYPED_EXPECTED}\nArgument type not recognized: "
                            f"{_class_name(args[0])}")

    def _tensor(self) -> Tensor:
        """A 1-D tensor over the whole storage (how torch reads and writes its elements)."""
        size = self._size()
        return Tensor._make(self._untyped_storage._as(self.dtype, 0, (size,), (1,)), self.dtype)

    def _size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def size(self) -> int:
        _warn_typed_storage()
        return self._size()

    def __len__(self) -> int:
        _warn_typed_storage()
        return self._size()

    def nbytes(self) -> int:
        _warn_typed_storage()
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage()
        return self.dtype.itemsize

    @property
    def device(self) -> _device.device:
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self._untyped_storage.is_cuda

    def data_ptr(self) -> int:
        _warn_typed_storage()
        return self._untyped_storage.data_ptr()

    @property
    def _cdata(self) -> int:
        return self._untyped_storage._cdata

    def untyped(self) -> UntypedStorage:
        _warn_typed_storage()
        return self._untyped_storage

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def resizable(self) -> bool:
        return self._untyped_storage.resizable()

    def resize_(self, size: int) -> None:
        self._untyped_storage.resize_(size * self.dtype.itemsize)

    def type(self) -> str:
        _warn_typed_storage()
        legacy = _LEGACY_BY_DTYPE.get(self.dtype)
        if legacy is None:
            return "torch.storage.TypedStorage"
        return f"torch.{'cuda.' if self.device.type == 'cuda' else ''}{legacy.__name__}"

    def _index(self, idx: Any) -> int:
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if type(idx) is not int:
            raise RuntimeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                               f"{_class_name(idx)}")
        size = self._size()
        if not -size <= idx < size:
            raise IndexError(f"index {idx} out of range for storage of size {size}")
        return idx % size

    def __getitem__(self, idx: int) -> Any:
        _warn_typed_storage()
        return self._tensor()[self._index(idx)].item()

    def __setitem__(self, idx: int | slice, value: Any) -> None:
        _warn_typed_storage()
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                               f"{_class_name(idx)}")
        self._tensor()[idx] = value

    def tolist(self) -> list[Any]:
        _warn_typed_storage()
        return self._tensor().tolist()  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        _warn_typed_storage()
        info = (f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
                f"size {self._size()}]")
        return " " + "\n ".join(map(str, self._tensor().tolist())) + "\n" + info

    def fill_(self, value: Any) -> Self:
        _warn_typed_storage()
        self._tensor().fill_(value)
        return self

    def copy_(self, source: TypedStorage | UntypedStorage,
              non_blocking: bool | None = None) -> Self:
        _warn_typed_storage()
        self._untyped_storage.copy_(source)
        return self

    def _wrapping(self, untyped: UntypedStorage, dtype: _dtype.dtype | None = None
                  ) -> TypedStorage:
        return TypedStorage(wrap_storage=untyped, dtype=dtype or self.dtype, _internal=True)

    def clone(self) -> TypedStorage:
        _warn_typed_storage()
        return self._wrapping(self._untyped_storage.clone())

    def cpu(self) -> TypedStorage:
        _warn_typed_storage()
        return self._wrapping(self._untyped_storage.cpu())

    def _to(self, dtype: _dtype.dtype) -> TypedStorage:
        """A storage of dtype holding these values: a copy even when the dtype is this one."""
        converted = self._tensor().to(dtype)
        storage = self._wrapping(untyped_storage_of(converted), dtype)
        return storage.clone() if storage.data_ptr() == self.data_ptr() else storage

    def double(self) -> TypedStorage:
        return self._to(_dtype.float64)

    def float(self) -> TypedStorage:
        return self._to(_dtype.float32)

    def half(self) -> TypedStorage:
        return self._to(_dtype.float16)

    def bfloat16(self) -> TypedStorage:
        return self._to(_dtype.bfloat16)

    def long(self) -> TypedStorage:
        return self._to(_dtype.int64)

    def int(self) -> TypedStorage:
        return self._to(_dtype.int32)

    def short(self) -> TypedStorage:
        return self._to(_dtype.int16)

    def char(self) -> TypedStorage:
        return self._to(_dtype.int8)

    def byte(self) -> TypedStorage:
        return self._to(_dtype.uint8)

    def bool(self) -> TypedStorage:
        return self._to(_dtype.bool)

    def complex_float(self) -> TypedStorage:
        return self._to(_dtype.complex64)

    def complex_double(self) -> TypedStorage:
        return self._to(_dtype.complex128)


class _LegacyStorageMeta(type):
    """torch.FloatStorage and its kin: constructors of TypedStorages of their dtype, and
    isinstance checks by dtype (torch makes no instances of them)."""

    dtype: _dtype.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"

    def __instancecheck__(cls, instance: Any) -> bool:
        return (type(instance) is TypedStorage and instance.dtype is cls.dtype
                and instance.device.type == "cpu")

    def __call__(cls, *args: Any, wrap_storage: UntypedStorage | None = None,
                 **kwargs: Any) -> TypedStorage:
        _warn_typed_storage()
        expected = (f"{cls}.__new__ received an invalid combination of arguments. Expected one "
                    "of:\n * no arguments\n * (int size)\n * (Sequence data)\n * (*, "
                    "UntypedStorage wrap_storage)")
        for keyword in ("device", "dtype"):
            if keyword in kwargs:
                raise RuntimeError(f"{expected}\nKeyword argument '{keyword}' cannot be "
                                   "specified")
        if wrap_storage is not None:
            if args:
                raise RuntimeError(f"{expected}\nNo positional arguments should be given when "
                                   "using 'wrap_storage'")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"{expected}\nArgument 'wrap_storage' must be UntypedStorage, "
                                f"but got {_class_name(wrap_storage)}")
        elif len(args) > 1:
            raise RuntimeError(f"{expected}\nToo many positional arguments")
        elif args and as_int(args[0]) is None and not isinstance(args[0], Sequence):
            raise TypeError(f"{expected}\nArgument type not recognized: "
                            f"{_class_name(args[0])}")
        return TypedStorage(*args, dtype=cls.dtype, wrap_storage=wrap_storage, _internal=True)


def _legacy(name: str, dtype: _dtype.dtype) -> _LegacyStorageMeta:
    return _LegacyStorageMeta(name, (), {"dtype": dtype, "__module__": "tapegrad"})


DoubleStorage = _legacy("DoubleStorage", _dtype.float64)
FloatStorage = _legacy("FloatStorage", _dtype.float32)
HalfStorage = _legacy("HalfStorage", _dtype.float16)
BFloat16Storage = _legacy("BFloat16Storage", _dtype.bfloat16)
LongStorage = _legacy("LongStorage", _dtype.int64)
IntStorage = _legacy("IntStorage", _dtype.int32)
ShortStorage = _legacy("ShortStorage", _dtype.int16)
CharStorage = _legacy("CharStorage", _dtype.int8)
ByteStorage = _legacy("ByteStorage", _dtype.uint8)
BoolStorage = _legacy("BoolStorage", _dtype.bool)
ComplexFloatStorage = _legacy("ComplexFloatStorage", _dtype.complex64)
ComplexDoubleStorage = _legacy("ComplexDoubleStorage", _dtype.complex128)
_LEGACY_BY_DTYPE = {legacy.dtype: legacy for legacy in (
    DoubleStorage, FloatStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage,
    ShortStorage, CharStorage, ByteStorage, BoolStorage, ComplexFloatStorage,
    ComplexDoubleStorage)}


def storage_type(tensor: Tensor) -> _LegacyStorageMeta:
    """Tensor.storage_type(): the legacy class of tensor's dtype."""
    return _LEGACY_BY_DTYPE[tensor.dtype]


# ---- set_ and is_set_to -------------------------------------------------------------------

_SET_SIGNATURES = (
    " * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, tuple of "
    "ints size, tuple of ints stride = None)\n * (Tensor source)\n * (Tensor source, int "
    "storage_offset, tuple of ints size, tuple of ints stride = None)\n")


class NotImplementedNode(Node):
    """The grad_fn torch gives a tensor set_ in a graph: differentiating it fails."""

    def name(self) -> str:
        return "torch::autograd::NotImplemented"  # as torch names its C++ node

    def apply(self, grad_outputs: Grads) -> Grads:
        raise RuntimeError("derivative for set_ is not implemented")


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"


def _set_geometry(args: tuple[Any, ...], kwargs: dict[str, Any]
                  ) -> tuple[Any, int | None, Any, Any]:
    names = ("source", "storage_offset", "size", "stride")
    if len(args) > 4 or set(kwargs) - set(names) or any(n in kwargs for n in names[:len(args)]):
        raise _set_error(args, kwargs)
    given = dict(zip(names, args), **kwargs)
    source = given.get("source")
    offset, size, stride = (given.get(name) for name in names[1:])
    if (offset is not None or stride is not None) and size is None or (
            size is not None and (as_int(offset) is None or not isinstance(size, (tuple, list))
                                  or not isinstance(stride, (tuple, list, type(None))))) or (
            source is None and given) or not isinstance(
            source, (Tensor, UntypedStorage, TypedStorage, type(None))):
        raise _set_error(args, kwargs)
    return source, offset, size, stride


def _set_error(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    return TypeError(f"set_() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{_SET_SIGNATURES}")


def set_(tensor: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.set_: tensor takes source's storage (a tensor's, a storage, or a new empty one)
    with the given geometry, or source tensor's own."""
    source, offset, size, stride = _set_geometry(args, kwargs)
    records = grad_mode.is_grad_enabled() and (
        tensor._requires_grad or isinstance(source, Tensor) and source.requires_grad)
    _check_writable(tensor)
    if isinstance(source, Tensor):
        if source.dtype is not tensor.dtype:
            raise RuntimeError(f"Could not set tensor of type {_c10_name(source.dtype)} to a "
                               f"tensor of type {_c10_name(tensor.dtype)}")
        storage = untyped_storage_of(source)
        if size is None:
            offset, size, stride = source.storage_offset(), source.shape, source.stride()
    else:
        if isinstance(source, TypedStorage):
            if source.dtype is not tensor.dtype:
                legacy = _LEGACY_BY_DTYPE[source.dtype].__name__[:-len("Storage")]
                raise RuntimeError(f"Expected a Storage of type {_c10_name(tensor.dtype)} or an "
                                   f"UntypedStorage, but got type {legacy} for argument 1 "
                                   "'storage'")
            source = source._untyped_storage
        storage = source if source is not None else UntypedStorage(device=tensor.device)
        if size is None:
            offset, size = 0, (storage.nbytes() // tensor.dtype.itemsize,)
    size = tuple(int(n) for n in size)
    stride = strided.contiguous_strides(size) if stride is None else tuple(map(int, stride))
    _check_geometry(storage, tensor.dtype, int(offset or 0), size, stride)
    tensor._data = storage._as(tensor.dtype, int(offset or 0), size, stride)
    tensor._base = None
    tensor.__dict__.pop("_view_fn", None)
    tensor._bump_version()
    if records:  # torch's node for an op it cannot differentiate
        tensor.grad_fn = NotImplementedNode()
        tensor._requires_grad = True
    return tensor


def _check_writable(tensor: Tensor) -> None:
    """torch's refusals of an in-place change to tensor (set_ is one)."""
    _inplace._check_inference(tensor)
    if grad_mode.is_recording():
        _inplace._check_leaf(tensor)


def _check_geometry(storage: UntypedStorage, dtype: _dtype.dtype, offset: int,
                    size: tuple[int, ...], stride: tuple[int, ...]) -> None:
    """torch's checks of a geometry over a storage; a storage too small for it grows where
    it can (UntypedStorage.resize_)."""
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError("numel: integer multiplication overflow")
    if numel(size):
        end = (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))) * dtype.itemsize
        if end > storage.nbytes():
            storage.resize_(end)


def is_set_to(tensor: Tensor, other: Tensor) -> bool:
    """Tensor.is_set_to: the same storage, offset, sizes and strides."""
    if not isinstance(other, Tensor):
        raise TypeError("is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{_type_name(other)}")
    return (strided._owner(tensor._data) is strided._owner(other._data)
            and tensor.data_ptr() == other.data_ptr() and tensor.shape == other.shape
            and tensor.stride() == other.stride())
