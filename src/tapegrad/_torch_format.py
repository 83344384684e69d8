"""PyTorch's .pt/.pth zip format, read and written without torch.

An archive holds `<root>/data.pkl`, a protocol-2 pickle of the object in which every tensor
is a call to `torch._utils._rebuild_tensor_v2` on a storage named by a persistent id, and
`<root>/data/<key>`, the raw little-endian bytes of each storage. Reading goes through an
unpickler that resolves only an allow-list of globals, so a file cannot run code.
"""
from __future__ import annotations

import builtins
import collections
import functools
import io
import pickle
import struct
import zipfile
from typing import IO, TYPE_CHECKING, Any, Callable, ClassVar

import numpy as np

import tapegrad
from ._warnings import warn

if TYPE_CHECKING:
    import os

    from ._tensor import Tensor

# torch's storage class names and the dtypes they hold. BFloat16 is read as float32 (below).
_STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
}
_STORAGE_NAMES = {dtype: name for name, dtype in _STORAGE_DTYPES.items()}
_DTYPE_NAMES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",
                "bool", "complex64", "complex128")
BFLOAT16_WARNING = "tapegrad has no bfloat16 dtype: bfloat16 tensors were loaded as float32"


class WeightsOnlyError(pickle.UnpicklingError):
    """The file asks for something the restricted unpickler does not build."""


class _StorageType:
    """What the unpickler hands out for torch.FloatStorage and its kin: a dtype tag."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


# ---- reading ------------------------------------------------------------------------------

def _strided_view(storage, offset, size, stride):
    """torch's (offset, size, stride) view of a flat storage, refused if it reads outside it."""
    size, stride = tuple(size), tuple(stride)
    numbers = (offset,) + size + stride
    if len(size) != len(stride) or not all(type(n) is int and n >= 0 for n in numbers):
        raise ValueError(f"invalid tensor geometry: offset {offset}, size {size}, "
                         f"stride {stride}")
    last = offset + sum((n - 1) * s for n, s in zip(size, stride))
    if 0 not in size and last >= storage.size:
        raise ValueError(f"tensor of size {size} and stride {stride} at offset {offset} "
                         f"reads past its storage of {storage.size} elements")
    base = storage[offset:] if 0 not in size else storage[:0]
    strides = tuple(s * storage.itemsize for s in stride)
    return np.lib.stride_tricks.as_strided(base, size, strides)


def _as_parameter(tensor, requires_grad):
    from .nn import Parameter  # nn imports the tensor core: resolve at call time
    return Parameter(tensor, requires_grad)


class _Storage(collections.namedtuple("_Storage", "array location")):
    """A storage record read from the archive: its flat host array and where torch kept it."""


CUDA_WITHOUT_GPU = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
    "False. If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU.")


class PlacementError(RuntimeError):
    """A tensor of the file cannot go where it is to be loaded (torch raises RuntimeError)."""


def placed(tensor: Tensor, location: str, map_location: Any) -> Tensor:
    """tensor (read on the host) on the device torch.load would put it: its saved location,
    or what map_location (a device, a string, a dict of locations, a function) makes of it."""
    if callable(map_location) and not isinstance(map_location, (str, tapegrad.device)):
        moved = map_location(tensor, location)
        return tensor if moved is None else moved
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
    else:
        target = location if map_location is None else map_location
    target = tapegrad.device(target)
    if target.type == "cpu":
        return tensor
    if target.type == "cuda" and not tapegrad.cuda.is_available():
        raise PlacementError(CUDA_WITHOUT_GPU)
    try:
        return tensor.to(target)
    except (RuntimeError, AssertionError) as error:  # a device this build lacks, say
        raise PlacementError(str(error)) from error


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None, map_location=None):
    tensor = tapegrad.from_numpy(_strided_view(storage.array, storage_offset, size, stride))
    tensor = placed(tensor, storage.location, map_location)
    return tensor.requires_grad_(True) if requires_grad else tensor


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    return _as_parameter(data, requires_grad)


def _latin1_bytes(text, encoding):
    # Protocol 2 stores bytes as _codecs.encode(text, "latin1"); no other codec is needed.
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise WeightsOnlyError(f"refused _codecs.encode with encoding {encoding!r}")
    return text.encode("latin1")




@functools.cache
def allowed_globals() -> dict[tuple[str, str], Any]:
    """The globals a weights-only file may name, as (module, name) -> object."""
    allowed: dict[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
        ("torch", "Size"): tapegrad.Size,
        ("torch", "device"): tapegrad.device,
        ("_codecs", "encode"): _latin1_bytes,
    }
    for name in ("set", "frozenset", "complex", "bytearray", "slice"):
        allowed["builtins", name] = allowed["__builtin__", name] = getattr(builtins, name)
    for name in list(_STORAGE_DTYPES) + ["BFloat16Storage"]:
        allowed["torch", name] = _StorageType(name)
    for name in _DTYPE_NAMES:
        allowed["torch", name] = getattr(tapegrad, name)
    return allowed


class _WeightsUnpickler(pickle._Unpickler):
    """A pickle reader that builds tensors and plain containers, and nothing else.

    Built on the pure-Python unpickler because it lets BUILD be restricted too: the C one
    would let a file set attributes on any object it can name (a dtype, a function).
    """

    # the opcode table, with BUILD replaced below by a method of this class
    dispatch: ClassVar[dict[int, Callable[[Any], None]]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, data, read_storage, map_location=None):
        super().__init__(io.BytesIO(data))
        self.read_storage, self.map_location = read_storage, map_location
        self.storages = {}
        self.storage_types = set()

    def find_class(self, module, name):
        allowed = allowed_globals()
        if (module, name) not in allowed:
            raise WeightsOnlyError(
                f"tapegrad.load refused the global '{module}.{name}': only tensors, "
                "parameters, dtypes, sizes and plain containers are loaded from a PyTorch "
                "file (as torch.load(weights_only=True) does), because unpickling anything "
                "else could run code. Re-save the object as a state dict of tensors.")
        if allowed[module, name] is _rebuild_tensor:  # it places tensors as map_location says
            return functools.partial(_rebuild_tensor, map_location=self.map_location)
        return allowed[module, name]

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str)):
            raise WeightsOnlyError(f"unexpected persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if key not in self.storages:
            self.storage_types.add(storage_type.name)
            self.storages[key] = _Storage(self.read_storage(key, storage_type.name, numel),
                                          str(location))
        return self.storages[key]

    def load_build(self):
        # torch pickles a state dict's version table as an attribute of its OrderedDict; that
        # is the only object a weights-only file may set attributes on.
        state = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not collections.OrderedDict or not isinstance(state, dict):
            raise WeightsOnlyError(f"refused to set state on a {type(target).__name__}")
        vars(target).update({str(name): value for name, value in state.items()})

    dispatch[pickle.BUILD[0]] = load_build


def _storage_reader(archive, root, byteorder):
    """read_storage(key, name, numel): the flat array of one storage record."""
    def read_storage(key, name, numel):
        raw = archive.read(f"{root}/data/{key}")
        dtype = np.dtype(np.uint16 if name == "BFloat16Storage" else _STORAGE_DTYPES[name])
        if len(raw) != numel * dtype.itemsize:
            raise ValueError(f"storage {key} holds {len(raw)} bytes, expected {numel} "
                             f"elements of {dtype.itemsize} bytes")
        array = np.frombuffer(raw, dtype.newbyteorder("<" if byteorder == "little" else ">"))
        if name == "BFloat16Storage":  # the top half of a float32: widening is exact
            return (array.astype(np.uint32) << 16).view(np.float32)
        return array.astype(dtype)  # a writable copy in native byte order
    return read_storage


def read_torch_zip(data: bytes, map_location: Any = None) -> Any:
    """The object stored in the bytes of a torch.save zip archive, its tensors placed as
    torch.load places them (`placed`)."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    pickles = [name for name in archive.namelist()
               if name.endswith("/data.pkl") and name.count("/") == 1]
    if not pickles:
        raise ValueError("the zip archive has no <root>/data.pkl record")
    root = pickles[0].split("/")[0]
    names = set(archive.namelist())
    byteorder = "little"
    if f"{root}/byteorder" in names:
        byteorder = archive.read(f"{root}/byteorder").decode()
        if byteorder not in ("little", "big"):
            raise ValueError(f"unknown byte order {byteorder!r}")
    unpickler = _WeightsUnpickler(archive.read(pickles[0]),
                                  _storage_reader(archive, root, byteorder), map_location)
    result = unpickler.load()
    if "BFloat16Storage" in unpickler.storage_types:
        warn(BFLOAT16_WARNING, UserWarning)
    return result


# ---- writing ------------------------------------------------------------------------------

def _memory_owner(array):
    """The outermost ndarray behind array's memory: views of one buffer share it."""
    owner, link = array, array.base
    while link is not None:
        if isinstance(link, np.ndarray):
            owner = link
        link = getattr(link, "base", None)
    return owner


def _storage_geometry(array):
    """(owner, offset, strides) in elements if array can be written as a view of its owner."""
    owner = _memory_owner(array)
    itemsize = array.itemsize
    shift = array.ctypes.data - owner.ctypes.data
    fits = (owner.dtype == array.dtype and owner.flags.c_contiguous and array.size > 0
            and shift >= 0 and shift % itemsize == 0
            and all(s >= 0 and s % itemsize == 0 for s in array.strides))
    if not fits:
        if array.size:  # an empty array keeps its strides: NumPy's copy would zero them
            array = array.copy(order="C")  # a storage of its own
        return array, 0, tuple(s // itemsize for s in array.strides)
    return owner, shift // itemsize, tuple(s // itemsize for s in array.strides)


class _PickleWriter:
    """Writes data.pkl by hand: torch's globals must be named without importing torch."""

    def __init__(self):
        self.out = bytearray(b"\x80\x02")  # PROTO 2
        self.storages = {}  # id(owner) -> (key, owner)
        self.memo = {}  # id(tensor) -> memo index, so a repeated tensor loads as one object

    def result(self):
        return bytes(self.out + b".")  # STOP

    def put_global(self, module, name):
        self.out += b"c" + f"{module}\n{name}\n".encode()

    def put_int(self, value):
        if 0 <= value < 256:
            self.out += b"K" + bytes([value])
        elif 0 <= value < 65536:
            self.out += b"M" + struct.pack("<H", value)
        elif -2**31 <= value < 2**31:
            self.out += b"J" + struct.pack("<i", value)
        else:
            size = value.bit_length() // 8 + 1
            self.out += b"\x8a" + bytes([size]) + value.to_bytes(size, "little", signed=True)

    def put_str(self, value):
        encoded = value.encode("utf-8", "surrogatepass")
        self.out += b"X" + struct.pack("<I", len(encoded)) + encoded

    def put_tuple(self, items):
        self.out += b"("  # MARK
        for item in items:
            self.save(item)
        self.out += b"t"  # TUPLE

    def put_call(self, module, name, args):
        self.put_global(module, name)
        self.put_tuple(args)
        self.out += b"R"  # REDUCE

    def save(self, obj):
        if isinstance(obj, tapegrad.Tensor):
            self.save_tensor(obj)
        elif obj is None or isinstance(obj, bool):
            self.out += {None: b"N", True: b"\x88", False: b"\x89"}[obj]
        elif isinstance(obj, int):
            self.put_int(obj)
        elif isinstance(obj, float):
            self.out += b"G" + struct.pack(">d", obj)
        elif isinstance(obj, str):
            self.put_str(obj)
        elif isinstance(obj, tapegrad.dtype):
            self.put_global("torch", obj.name)
        elif isinstance(obj, tapegrad.Size):
            self.put_call("torch", "Size", (tuple(obj),))
        elif isinstance(obj, tuple):
            self.put_tuple(obj)
        elif isinstance(obj, list):
            self.save_list(obj)
        elif isinstance(obj, dict):
            self.save_dict(obj)
        else:
            raise TypeError(f"tapegrad.save(format='torch') cannot store an object of type "
                            f"{type(obj).__name__}: only tensors, numbers, strings, None, "
                            "dtypes, and tuples, lists and dicts of these")

    def save_list(self, items):
        self.out += b"]("  # EMPTY_LIST, MARK
        for item in items:
            self.save(item)
        self.out += b"e"  # APPENDS

    def save_dict(self, mapping):
        is_ordered = isinstance(mapping, collections.OrderedDict)
        if is_ordered:
            self.put_call("collections", "OrderedDict", ())
        else:
            self.out += b"}"  # EMPTY_DICT
        self.out += b"("
        for key, value in mapping.items():
            self.save(key)
            self.save(value)
        self.out += b"u"  # SETITEMS
        metadata = getattr(mapping, "_metadata", None) if is_ordered else None
        if metadata is not None:  # a Module state dict's version table, as torch keeps it
            self.save({"_metadata": metadata})
            self.out += b"b"  # BUILD

    def save_tensor(self, tensor):
        if id(tensor) in self.memo:
            self.out += b"j" + struct.pack("<I", self.memo[id(tensor)])  # LONG_BINGET
            return
        from .nn import Parameter
        if isinstance(tensor, Parameter):
            self.put_global("torch._utils", "_rebuild_parameter")
            self.out += b"("
        self.put_global("torch._utils", "_rebuild_tensor_v2")
        self.out += b"("
        array = tensor.detach().cpu().numpy()  # a device tensor's data, copied to the host
        owner, offset, strides = _storage_geometry(array)
        self.put_storage_id(owner, tensor.dtype.name, str(tensor.device))
        self.put_int(offset)
        self.put_tuple(array.shape)
        self.put_tuple(strides)
        self.save(tensor.requires_grad and not isinstance(tensor, Parameter))
        self.put_call("collections", "OrderedDict", ())  # no backward hooks
        self.out += b"tR"
        if isinstance(tensor, Parameter):
            self.save(tensor.requires_grad)
            self.put_call("collections", "OrderedDict", ())
            self.out += b"tR"
        self.memo[id(tensor)] = len(self.memo)
        self.out += b"r" + struct.pack("<I", self.memo[id(tensor)])  # LONG_BINPUT

    def put_storage_id(self, owner, dtype_name, location):
        key, _ = self.storages.setdefault(id(owner), (str(len(self.storages)), owner))
        self.out += b"("
        self.put_str("storage")
        self.put_global("torch", _STORAGE_NAMES[dtype_name])
        self.put_str(key)
        self.put_str(location)
        self.put_int(owner.size)
        self.out += b"tQ"  # TUPLE, BINPERSID


def write_torch_zip(obj: Any, file: str | os.PathLike[str] | IO[bytes]) -> None:
    """Write obj as a torch.save zip archive to a path or a binary file object."""
    writer = _PickleWriter()
    writer.save(obj)
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", writer.result())
        archive.writestr("archive/.format_version", "1")
        archive.writestr("archive/byteorder", "little")
        for key, owner in writer.storages.values():
            archive.writestr(f"archive/data/{key}", owner.astype(owner.dtype.newbyteorder("<"),
                                                                 copy=False).tobytes())
        archive.writestr("archive/version", "3\n")
