"""tapegrad.save and tapegrad.load: PyTorch's .pt files, and safetensors files.

A safetensors file keeps every tensor as a native entry, named by its place in the object
("state.0.exp_avg"), and the rest of the object (dicts, lists, numbers...) as JSON in the
header's metadata, so loading one parses data and never runs code.
"""
import collections
import json
import math
import os
import struct
from typing import IO, Any, Union

import numpy as np

import tapegrad

from ._torch_format import (PlacementError, WeightsOnlyError, placed, read_torch_zip,
                            write_torch_zip)

FileLike = Union[str, os.PathLike, IO[bytes]]  # a path, or a binary file object
STRUCTURE_KEY = "tapegrad"  # the safetensors metadata entry holding the JSON structure
_FORMATS = ("safetensors", "torch")
_DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
           "complex64", "complex128")


def _safetensors_numpy() -> Any:
    try:
        from safetensors import numpy as safetensors_numpy
    except ImportError as error:
        raise ImportError("tapegrad.save and tapegrad.load need the 'safetensors' package for "
                          "the safetensors format: pip install tapegrad[io] (or save with "
                          "format='torch')") from error
    return safetensors_numpy


# ---- object <-> (JSON structure, named arrays) ----------------------------------------------

class _Encoder:
    """Splits an object into a JSON-ready structure and a dict of named contiguous arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.names: dict[int, str] = {}  # id(tensor) -> name: a tensor met twice is stored once

    def encode(self, obj: Any, path: str = "") -> Any:
        if isinstance(obj, tapegrad.Tensor):
            return self.encode_tensor(obj, path)
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"kind": "float", "value": repr(obj)}
        if isinstance(obj, tapegrad.dtype):
            return {"kind": "dtype", "name": obj.name}
        if isinstance(obj, tapegrad.Size):
            return {"kind": "Size", "items": list(obj)}
        if isinstance(obj, tuple):
            return {"kind": "tuple", "items": [self.encode(v, f"{path}.{i}".lstrip("."))
                                               for i, v in enumerate(obj)]}
        if isinstance(obj, list):
            return [self.encode(v, f"{path}.{i}".lstrip(".")) for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            return self.encode_dict(obj, path)
        raise TypeError(f"tapegrad.save cannot store an object of type {type(obj).__name__}: "
                        "only tensors, numbers, strings, None, dtypes, and tuples, lists and "
                        "dicts of these")

    def encode_dict(self, mapping: dict[Any, Any], path: str) -> dict[str, Any]:
        is_ordered = isinstance(mapping, collections.OrderedDict)
        node: dict[str, Any] = {"kind": "OrderedDict" if is_ordered else "dict",
                "items": [[self.encode(k), self.encode(v, f"{path}.{k}".lstrip("."))]
                          for k, v in mapping.items()]}
        metadata = getattr(mapping, "_metadata", None) if is_ordered else None
        if metadata is not None:  # a Module state dict's version table, as torch.save keeps
            node["metadata"] = self.encode(metadata)
        return node

    def encode_tensor(self, tensor: tapegrad.Tensor, path: str) -> dict[str, Any]:
        from .nn import Parameter
        name = self.names.get(id(tensor))
        if name is None:
            base = name = path or "tensor"
            suffix = 1
            while name in self.arrays:  # two paths can spell one name ("a.b" and a -> b)
                name, suffix = f"{base}#{suffix}", suffix + 1
            array = tensor.detach().cpu().numpy()  # a device tensor's data, copied
            if not array.flags.c_contiguous:  # safetensors reads raw memory: it must be dense
                array = array.copy(order="C")
            if array.dtype == np.complex128:  # safetensors has no complex128: store pairs
                array = array[..., None].view(np.float64)
            self.arrays[name] = array
            self.names[id(tensor)] = name
        node: dict[str, Any] = {"kind": "tensor", "name": name, "dtype": tensor.dtype.name,
                "requires_grad": tensor.requires_grad,
                "parameter": isinstance(tensor, Parameter)}
        if tensor.device.type != "cpu":
            node["device"] = str(tensor.device)  # load puts it back there, as torch's
        return node


class _Decoder:
    """Rebuilds an object from its JSON structure and the arrays of a safetensors file."""

    def __init__(self, arrays: dict[str, np.ndarray], map_location: Any = None) -> None:
        self.arrays, self.map_location = arrays, map_location
        # name -> Tensor: two references to one name give one object
        self.tensors: dict[str, tapegrad.Tensor] = {}

    def decode(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.decode(item) for item in node]
        if not isinstance(node, dict):
            return node
        kind = node.get("kind")
        if kind == "tensor":
            return self.decode_tensor(node)
        if kind == "float":
            return float(node["value"])
        if kind == "dtype" and node["name"] in _DTYPES:
            return getattr(tapegrad, node["name"])
        if kind in ("Size", "tuple"):
            items = tuple(self.decode(item) for item in node["items"])
            return tapegrad.Size(items) if kind == "Size" else items
        if kind in ("dict", "OrderedDict"):
            return self.decode_dict(node, kind)
        raise ValueError(f"unknown node in the structure: {node!r}")

    def decode_dict(self, node: dict[str, Any], kind: str) -> dict[Any, Any]:
        pairs = ((self.decode(key), self.decode(value)) for key, value in node["items"])
        mapping = collections.OrderedDict(pairs) if kind == "OrderedDict" else dict(pairs)
        if "metadata" in node:
            # a state dict's version table, an attribute of its OrderedDict as in torch
            mapping._metadata = self.decode(node["metadata"])  # type: ignore[attr-defined]
        return mapping

    def decode_tensor(self, node: dict[str, Any]) -> tapegrad.Tensor:
        name = node["name"]
        if name not in self.tensors:
            array = self.arrays[name]
            if node["dtype"] == "complex128":
                array = array.view(np.complex128)[..., 0]
            tensor = tapegrad.from_numpy(array)
            if node["dtype"] != tensor.dtype.name:
                raise ValueError(f"tensor {name!r} is {tensor.dtype.name}, the structure "
                                 f"says {node['dtype']}")
            tensor = placed(tensor, node.get("device", "cpu"), self.map_location)
            if node.get("parameter"):
                from .nn import Parameter
                tensor = Parameter(tensor, node["requires_grad"])
            elif node.get("requires_grad"):
                tensor.requires_grad_(True)
            self.tensors[name] = tensor
        return self.tensors[name]


# ---- files ------------------------------------------------------------------------------------

def _read_bytes(f: FileLike) -> tuple[bytes, str]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            return handle.read(), os.fspath(f)
    return f.read(), getattr(f, "name", "the file object")


def _safetensors_header(data: bytes) -> dict[str, Any]:
    """The JSON header of a safetensors file (8-byte little-endian length, then JSON)."""
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + length].decode("utf-8"))


def _load_safetensors(data: bytes, map_location: Any = None) -> Any:
    safetensors_numpy = _safetensors_numpy()
    arrays = safetensors_numpy.load(data)
    metadata = _safetensors_header(data).get("__metadata__") or {}
    if STRUCTURE_KEY not in metadata:
        # Written by another tool: its tensors by name.
        return {name: placed(tapegrad.from_numpy(array), "cpu", map_location)
                for name, array in arrays.items()}
    return _Decoder(arrays, map_location).decode(json.loads(metadata[STRUCTURE_KEY]))


def _detect_format(data: bytes, name: str) -> str:
    if data[:4] == b"PK\x03\x04":
        return "torch"
    if len(data) >= 9 and data[8:9] == b"{":
        return "safetensors"
    if not data:
        raise ValueError(f"tapegrad.load: {name} is empty")
    if data[:1] == b"\x80":
        raise ValueError(f"tapegrad.load: {name} is in PyTorch's legacy (pre-1.6) pickle "
                         "format, which is not supported; re-save it with a recent torch.save")
    raise ValueError(f"tapegrad.load: {name} is neither a safetensors file nor a PyTorch zip "
                     f"archive (it starts with {data[:8]!r})")


def _save_format(f: FileLike, format: str | None) -> str:
    """The format asked for, else the one a path's extension names: .safetensors is
    safetensors; .pt, .pth, any other name and file objects get torch's zip format, as
    torch.save writes them (it needs no optional package)."""
    if format is not None:
        if format not in _FORMATS:
            raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
        return format
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).lower().endswith(".safetensors"):
        return "safetensors"
    return "torch"


def save(obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: int = 2, *,
         format: str | None = None) -> None:
    """Save tensors, state dicts and optimizer states to a path or binary file object.

    The format follows the path's extension unless format= names it: "model.safetensors"
    writes safetensors (needs the safetensors package: pip install tapegrad[io]);
    "model.pt", "model.pth", other names and file objects write PyTorch's zip format,
    readable by torch.load(weights_only=True). pickle_module and pickle_protocol are
    accepted for torch compatibility and ignored.
    """
    if _save_format(f, format) == "torch":
        write_torch_zip(obj, f)
        return
    safetensors_numpy = _safetensors_numpy()
    encoder = _Encoder()
    structure = json.dumps(encoder.encode(obj), allow_nan=False)
    data = safetensors_numpy.save(encoder.arrays, metadata={STRUCTURE_KEY: structure})
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            handle.write(data)
    else:
        f.write(data)


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool = True, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Load what tapegrad.save or torch.save wrote, telling the formats apart by their bytes.

    Nothing in the file is ever executed: PyTorch files go through a restricted unpickler
    whatever weights_only says. Tensors go back to the device they were saved from, or where
    map_location (a device, a string, a dict of locations, a function) puts them, as torch's.
    A safetensors file written by another tool loads as a dict of its tensors.
    """
    data, name = _read_bytes(f)
    file_format = _detect_format(data, name)
    try:
        if file_format == "torch":
            return read_torch_zip(data, map_location)
        return _load_safetensors(data, map_location)
    except (WeightsOnlyError, ImportError, PlacementError):
        raise
    except Exception as error:  # damaged bytes can fail anywhere: zip, pickle, JSON, header
        raise ValueError(f"tapegrad.load: {name} is corrupt or truncated "
                         f"({type(error).__name__}: {error})") from error
