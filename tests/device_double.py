"""A stand-in for a GPU on any machine: NumPy arrays that claim to live on "cuda:N".

`DeviceArray` holds a NumPy array and behaves as a CuPy array does towards the rest of the
program: its own methods, operators and indexing work (results stay on its device), and
`FakeCupy` (its array module, tapegrad's `xp` for it) runs NumPy's functions on it, but NumPy
itself refuses it, as NumPy refuses CuPy's arrays: `np.asarray(a)` raises CuPy's TypeError
and a NumPy function handed one raises too. So an op or helper that calls `np.` on a device
array instead of `xp.` fails here as it would on a GPU, and so does one that mixes arrays of
two devices. Its SciPy twin (`DoubleBackend.scipy`) offers only the functions CuPy's
cupyx.scipy has. `install(count)` registers it as tapegrad's cuda backend.
"""
import contextlib
import importlib
import operator
import types
import weakref

import numpy as np

import cupyx_scipy_names
from tapegrad import _backend

IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly.")  # CuPy's words


class DeviceArray:
    """A device array as CuPy's: its `base` is None or the array owning the memory it views
    (the same object for all its views), `data` a MemoryPointer to its first element, and
    `DeviceArray(shape, dtype, memptr=..., strides=...)` an array over memory another array
    has, with no base (CuPy's as_strided makes its views so). The double's own results come
    from `_on(numpy_array, index)`."""
    __slots__ = ("array", "index", "base", "__weakref__")

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        if memptr is None:
            raise NotImplementedError("the double makes new arrays with xp's functions; "
                                      "DeviceArray(...) takes a memptr")
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if strides is None:
            strides = np.empty(shape, dtype, order=order).strides
        _check_bounds(memptr, shape, tuple(strides), dtype.itemsize)
        holder = _ArrayOver({"shape": shape, "typestr": dtype.str, "descr": dtype.descr,
                             "strides": tuple(strides), "data": (memptr.ptr, False),
                             "version": 3}, memptr.mem.allocation)
        self.array, self.index, self.base = np.asarray(holder), memptr.device_id, None
        _ROOTS[id(self.array)] = self

    # NumPy refuses device arrays, as it refuses CuPy's
    def __array__(self, *args, **kwargs):
        raise TypeError(IMPLICIT)

    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        raise TypeError(f"{IMPLICIT} (NumPy's {ufunc.__name__} was handed a device array)")

    def __array_function__(self, function, types, args, kwargs):
        raise TypeError(f"{IMPLICIT} (NumPy's {function.__name__} was handed a device array)")

    def get(self):
        return self.array.copy()

    @property
    def __cuda_array_interface__(self):  # where the data lies, as CuPy's says: no access to it
        interface = dict(self.array.__array_interface__)
        if not self.array.size:
            interface["data"] = (0, False)  # CuPy's, for an empty array
        return interface

    @property
    def data(self):
        return MemoryPointer(_Memory.of(self.array, self.index), _address(self.array))

    @property
    def flags(self):  # CuPy's three: no writeable (a device array is always writable)
        return types.SimpleNamespace(c_contiguous=self.array.flags.c_contiguous,
                                     f_contiguous=self.array.flags.f_contiguous,
                                     owndata=self.base is None)

    @property
    def shape(self):
        return self.array.shape

    @shape.setter
    def shape(self, value):  # in place, without a copy, or an error (as CuPy's)
        self.array.shape = value

    def __getattr__(self, name):
        if name.startswith("__"):  # __array_interface__ and the like would hand NumPy the data
            raise AttributeError(name)
        value = getattr(self.array, name)
        if callable(value):
            return lambda *args, **kwargs: _wrap(value(*_unwrap(args, self.index),
                                                        **_unwrap(kwargs, self.index)),
                                                  self.index)
        return _wrap(value, self.index)

    def __getitem__(self, key):
        return _wrap(self.array[_unwrap(key, self.index)], self.index)

    def __setitem__(self, key, value):
        self.array[_unwrap(key, self.index)] = _unwrap(value, self.index)

    def __len__(self):
        return len(self.array)

    def __iter__(self):
        return (_wrap(row, self.index) for row in self.array)

    def __bool__(self):
        return bool(self.array)

    def __float__(self):
        return float(self.array)

    def __int__(self):
        return int(self.array)

    def __index__(self):
        return operator.index(self.array)

    def __complex__(self):
        return complex(self.array)

    def __repr__(self):
        return f"DeviceArray({self.array!r}, cuda:{self.index})"


def _address(array):
    return array.__array_interface__["data"][0]


class _ArrayOver:
    """What NumPy makes an array over given memory from (as its own stride tricks do): the
    array's base, not an ndarray, so NumPy's views of that array keep it as their base, as
    CuPy's keep a memptr-built array."""

    def __init__(self, interface, allocation):
        self.__array_interface__, self.allocation = interface, allocation


class _Memory:
    """CuPy's BaseMemory: an allocation's first address and size, the size rounded up to
    CuPy's pool unit (512 bytes), as its pooled allocations are; one per allocation."""
    __slots__ = ("allocation", "ptr", "size", "device_id", "__weakref__")
    _known = weakref.WeakValueDictionary()  # id(allocation) -> its _Memory

    @classmethod
    def of(cls, array, index):
        allocation = _allocation(array)
        memory = cls._known.get(id(allocation))
        if memory is None:
            memory = cls._known[id(allocation)] = cls()
            memory.allocation, memory.ptr, memory.device_id = (allocation, _address(allocation),
                                                               index)
            memory.size = -(-allocation.nbytes // 512) * 512
        return memory


def _allocation(array):
    """The NumPy array owning the memory array lies in (through NumPy's and our holders)."""
    while True:
        base = array.base
        if isinstance(base, np.ndarray):
            array = base
        elif isinstance(base, _ArrayOver):
            return base.allocation
        elif isinstance(getattr(base, "base", None), np.ndarray):  # NumPy's DummyArray
            array = base.base
        else:
            return array


class MemoryPointer:
    """CuPy's MemoryPointer: `ptr` (an address), `mem` (the allocation), `device_id`; adding
    bytes moves it within the allocation."""
    __slots__ = ("mem", "ptr", "device_id")

    def __init__(self, mem, ptr):
        self.mem, self.ptr, self.device_id = mem, ptr, mem.device_id

    def __add__(self, offset):
        return MemoryPointer(self.mem, self.ptr + offset)


def _check_bounds(memptr, shape, strides, itemsize):
    # CuPy does not check; on the double a view past its allocation would read host memory
    allocation = memptr.mem.allocation
    if 0 in shape:
        return
    low = memptr.ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = memptr.ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0) + itemsize
    if low < _address(allocation) or high > _address(allocation) + allocation.nbytes:
        raise ValueError("the double: a view past the memory its pointer points into")


# id(NumPy array) -> the device array that CuPy would give no base: an allocation's owner, or
# an array built over a memory pointer. Its views hold it as their base.
_ROOTS = weakref.WeakValueDictionary()


def _on(array, index):
    """array (NumPy's) as a device array, its base the device array owning its memory."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    known = _ROOTS.get(id(root))
    if known is not None and known.index != index:
        known = None
    if root is array and known is not None:
        return known
    result = DeviceArray.__new__(DeviceArray)
    result.array, result.index = array, index
    if root is array:
        result.base = None
        _ROOTS[id(array)] = result
    else:
        result.base = known if known is not None else _on(root, index)
    return result


def _binary(name):
    def method(self, *args):
        return _wrap(getattr(self.array, name)(*_unwrap(args, self.index)), self.index)
    return method


for _name in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split()):
    for _form in ("__{}__", "__r{}__", "__i{}__"):
        setattr(DeviceArray, _form.format(_name), _binary(_form.format(_name)))
for _name in ("lt le gt ge eq ne neg pos abs invert".split()):
    setattr(DeviceArray, f"__{_name}__", _binary(f"__{_name}__"))
DeviceArray.__hash__ = None


def _unwrap(value, index):
    """NumPy's arrays from device arrays of `index` (nested in tuples, lists, dicts); a host
    ndarray or another device's array is refused, as CuPy refuses them."""
    kind = type(value)
    if kind is DeviceArray:
        if value.index != index:
            raise ValueError(f"The device where the array resides ({value.index}) is different "
                             f"from the current device ({index}).")
        return value.array
    if kind is np.ndarray:
        raise TypeError(f"Unsupported type {np.ndarray}")
    if kind in (tuple, list):
        return kind(_unwrap(v, index) for v in value)
    if kind is dict:
        return {k: _unwrap(v, index) for k, v in value.items()}
    if kind is slice:
        return slice(*(_unwrap(v, index) for v in (value.start, value.stop, value.step)))
    return value


def _wrap(value, index):
    """Arrays (and NumPy scalars, which CuPy returns as 0-d arrays) back onto the device."""
    if isinstance(value, np.ndarray):
        return _on(value, index)
    if isinstance(value, np.generic):
        return _on(np.asarray(value), index)
    if type(value) in (tuple, list):
        return type(value)(_wrap(v, index) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # NumPy's named results
        return type(value)(*(_wrap(v, index) for v in value))
    return value


def _index_of(args):
    """The device of the first device array among a call's arguments."""
    for value in args:
        if type(value) is DeviceArray:
            return value.index
        if type(value) in (tuple, list):
            found = _index_of(value)
            if found is not None:
                return found
    return None


class FakeCupy:
    """NumPy's namespace (and its submodules) run on device arrays; what it makes lands on the
    current device."""

    ndarray = DeviceArray

    def __init__(self, backend, module=np):
        self._backend, self._module = backend, module

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if value is np.lib.stride_tricks.as_strided:
            return _as_strided
        if isinstance(value, types.ModuleType):
            return FakeCupy(self._backend, value)
        if isinstance(value, np.ufunc):
            return _Ufunc(value, self._backend)
        if callable(value) and not isinstance(value, type):
            return _on_device(value, self._backend)
        return value

    def asarray(self, value, dtype=None, **kwargs):
        if type(value) is DeviceArray:
            return value if dtype is None else value.astype(dtype, copy=False)
        if type(value) is np.ndarray:
            raise TypeError(f"Unsupported type {np.ndarray}")  # a move goes through to_device
        return _on(np.asarray(value, dtype, **kwargs), self._backend.current)

    def asnumpy(self, value):
        return value.array.copy()


def _as_strided(x, shape=None, strides=None):
    """CuPy's as_strided: an array over x's memory pointer, so with no base (and no
    `writeable`: CuPy's arrays are all writable)."""
    return DeviceArray(x.shape if shape is None else tuple(shape), x.dtype, memptr=x.data,
                       strides=x.strides if strides is None else tuple(strides))


def _on_device(function, backend):
    def run(*args, **kwargs):
        index = _index_of((*args, *kwargs.values()))
        index = backend.current if index is None else index
        return _wrap(function(*_unwrap(args, index), **_unwrap(kwargs, index)), index)
    return run


class _Ufunc:
    def __init__(self, ufunc, backend):
        self._ufunc, self._backend = ufunc, backend

    def __call__(self, *args, **kwargs):
        return _on_device(self._ufunc, self._backend)(*args, **kwargs)

    def __getattr__(self, name):
        value = getattr(self._ufunc, name)
        return _on_device(value, self._backend) if callable(value) else value


class DoubleBackend:
    """tapegrad's backend protocol (_backend.py) for DeviceArrays on `count` fake devices."""
    type = "cuda"
    array_type = DeviceArray

    def __init__(self, count):
        self._count, self.current, self.xp = count, 0, FakeCupy(self)
        self.synchronized = 0

    def device_count(self):
        return self._count

    def current_index(self):
        return self.current

    def set_current(self, index):
        self.current = index

    @contextlib.contextmanager
    def selected(self, index):
        previous, self.current = self.current, index
        try:
            yield
        finally:
            self.current = previous

    def index_of(self, array):
        return array.index

    def to_device(self, array, index):
        host = array.array if type(array) is DeviceArray else array
        return _on(np.array(host, copy=True), index)

    def to_host(self, array):
        return array.array.copy()

    def synchronize(self, index):
        self.synchronized += 1

    def device_name(self, index):
        return "tapegrad test double"

    def memory_allocated(self, index):
        return 0

    def empty_cache(self):
        pass

    def scipy(self, submodule):
        """SciPy's submodule run on device arrays, offering only what CuPy's cupyx.scipy has."""
        module = importlib.import_module(f"scipy.{submodule}")
        names = getattr(cupyx_scipy_names, submodule.upper())
        return FakeCupy(self, types.SimpleNamespace(**{name: getattr(module, name)
                                                      for name in names if hasattr(module, name)}))


def install(count=2):
    backend = DoubleBackend(count)
    _backend.register(backend)
    return backend


def uninstall():
    _backend.unregister("cuda")
