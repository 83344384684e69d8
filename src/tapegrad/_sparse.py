"""Sparse COO tensors: the minimum that sparse gradients need (Embedding(sparse=True) and
optim.SparseAdam), as torch's sparse_coo layout.

A sparse tensor holds `indices` (int64, sparse_dim x nnz) and `values` (nnz x dense dims),
uncoalesced (repeated or unsorted indices, which add up) until `coalesce()`. Differs from
torch: an op without a sparse rule here (anything but the methods below, `+` and `-`)
computes on the dense equivalent and gives a dense result, with the right numbers and
gradients; a sparse gradient's own graph is not recorded (no double backward through it).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from . import _backend, _dtype, _layout, _printing
from ._tensor import Size, Tensor
from .autograd import grad_mode
from .autograd.graph import Node

if TYPE_CHECKING:
    from ._device import device as _device
    from ._tensor import _Operand

__all__ = ["sparse_coo", "sparse_coo_tensor"]

sparse_coo = _layout.layout("sparse_coo")


class SparseTensor(Tensor):
    """A tensor in the sparse_coo layout."""
    is_sparse = True
    layout = sparse_coo

    @classmethod
    def _make(cls, array, dtype=None):
        return Tensor._make(array, dtype)  # what dense arithmetic on a sparse tensor gives

    @property
    def _data(self):
        """The dense equivalent, read-only, for the ops that have no sparse rule."""
        dense = self.__dict__.get("_dense")
        if dense is None:
            dense = self.__dict__["_dense"] = _densified(self)
            dense.flags.writeable = False
        return dense

    _size: Size
    _sparse_indices: np.ndarray  # int64, sparse_dim x nnz
    _sparse_values: np.ndarray  # nnz x the dense dims
    _coalesced: bool

    @property
    def shape(self) -> Size:
        return self._size

    @overload
    def size(self, dim: None = None) -> Size: ...

    @overload
    def size(self, dim: int) -> int: ...

    def size(self, dim: int | None = None) -> Size | int:
        return self._size if dim is None else self._size[self._wrap_dim(dim)]

    def dim(self) -> int:
        return len(self._size)

    @property
    def ndim(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        return self._size.numel()

    def _wrap_dim(self, dim):
        from .ops._checks import wrap_dim
        return wrap_dim(dim, len(self._size))

    def sparse_dim(self) -> int:
        return self._sparse_indices.shape[0]

    def dense_dim(self) -> int:
        return len(self._size) - self.sparse_dim()

    def _nnz(self):
        return self._sparse_indices.shape[1]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def _indices(self):
        return Tensor._make(self._sparse_indices)

    def _values(self):
        return Tensor._make(self._sparse_values, self.dtype)

    def indices(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._indices()

    def values(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        indices, size = self._sparse_indices, self._size
        return _recorded(self._values(), "ValuesBackward0", (self,), lambda grad: (
            _new(indices, grad._data, size, coalesced=True),))

    def coalesce(self) -> SparseTensor:
        """Indices sorted (row-major) and unique, the values of repeated ones summed."""
        if self._coalesced:
            return self
        indices, values = self._sparse_indices, self._sparse_values
        xp = _module(values)
        keys = _keys(self)
        order = xp.argsort(keys, kind="stable")
        keys = keys[order]
        # a segment sum by scatter-add (CuPy has add.at but no reduceat): each entry adds into
        # the slot of its run of equal keys
        first = xp.ones(keys.shape, bool)
        first[1:] = keys[1:] != keys[:-1]
        slot = xp.cumsum(first) - 1
        starts = xp.flatnonzero(first)
        summed = xp.zeros((starts.size,) + values.shape[1:], values.dtype)
        xp.add.at(summed, slot, values[order])
        result = _new(indices[:, order[starts]], summed, self._size, coalesced=True)
        # the gradient of a sum of entries reaches each of them: the same sparse gradient
        return _recorded(result, "CoalesceBackward0", (self,), lambda grad: (grad,))

    def detach(self) -> SparseTensor:
        return _new(self._sparse_indices, self._sparse_values, self._size, self._coalesced)

    def numpy(self, *, force: bool = False) -> np.ndarray:
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def to_dense(self, dtype: _dtype.dtype | None = None, *,
                 masked_grad: bool | None = None) -> Tensor:
        dense = Tensor._make(self._data.copy(), self.dtype)
        mask = self.detach().coalesce()  # the entries' places, not the graph
        dense = _recorded(dense, "ToDenseBackward0", (self,), lambda grad: (
            sparse_mask(grad, mask),))
        return dense if dtype is None else dense.to(dtype)

    def zero_(self) -> SparseTensor:
        """No entries left (optimizer.zero_grad(set_to_none=False) on a sparse gradient)."""
        self.__dict__.update(_sparse_indices=self._sparse_indices[:, :0],
                             _sparse_values=self._sparse_values[:0], _coalesced=True)
        self.__dict__.pop("_dense", None)
        return self

    def __add__(self, other: _Operand) -> Tensor:
        if isinstance(other, SparseTensor):
            return add(self, other)
        return super().__add__(other)

    def __radd__(self, other: _Operand) -> Tensor:
        return other + self.to_dense() if isinstance(other, Tensor) else super().__radd__(other)

    def __neg__(self) -> SparseTensor:
        negated = _new(self._sparse_indices, -self._sparse_values, self._size, self._coalesced)
        return _recorded(negated, "NegBackward0", (self,), lambda grad: (-grad,))

    def __repr__(self) -> str:
        """torch's: the indices, the values, then size, nnz, dtype if not default, layout."""
        default = _dtype.get_default_dtype().name

        def inner(prefix, array, dtype):  # torch names no dtype inside
            name = dtype.name if array.size and dtype.is_floating_point is False else default
            size = ("size=(0,)",) if array.shape == (0,) else ()  # which torch spells out here
            return _printing.format_tensor(array, name, default, size, prefix)
        tail = [f"size={tuple(self._size)}", f"nnz={self._nnz()}"]
        if self.dtype.name not in (default, "int64", "bool"):  # as a dense tensor's suffix
            tail.append(f"dtype=torch.{self.dtype.name}")
        tail.append("layout=torch.sparse_coo")
        if self.grad_fn is not None:
            tail.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            tail.append("requires_grad=True")
        # torch's suffix layout: the first on its own line, the others joined while the line
        # stays within the print width
        text, width = "", _printing.get_printoptions()["linewidth"]
        line = width  # forces the first onto a new line
        for item in tail:
            if line + len(item) + 2 > width:
                text, line = text + ",\n       " + item, 7 + len(item)
            else:
                text, line = text + ", " + item, line + len(item) + 2
        return (inner("tensor(indices=tensor(", self._sparse_indices, _dtype.int64) + ",\n"
                + inner("       values=tensor(", self._sparse_values, self.dtype) + text + ")")


def _new(indices: np.ndarray, values: np.ndarray, size: Sequence[int],
         coalesced: bool) -> SparseTensor:
    # the dense slot holds an empty array on the values' device: what the storage says until
    # an op asks for the dense equivalent
    tensor = Tensor._make(_module(values).empty(0, values.dtype))
    tensor.__class__ = SparseTensor
    tensor.__dict__.update(_sparse_indices=indices, _sparse_values=values, _size=Size(size),
                           _coalesced=coalesced)
    return cast(SparseTensor, tensor)  # its class is SparseTensor now


def _module(array):
    """numpy, or the device's array module for a device array."""
    return _backend.module_of((array,))[0]


class _SparseNode(Node):
    """A node of the sparse layout's own ops: `backward(grad)` gives its inputs' gradients
    (its closure holds index arrays, never the output)."""
    __slots__ = ("backward",)

    def apply(self, grad_outputs):
        return self.backward(grad_outputs[0])


_NODE_TYPES: dict[str, type[_SparseNode]] = {}


def _recorded(result, name, sources, backward):
    """result with a node named as torch's when grad mode is on and a source requires grad."""
    if not grad_mode.is_grad_enabled() or not any(t.requires_grad for t in sources):
        return result
    from .ops._define import edge_of
    kind = _NODE_TYPES.get(name)
    if kind is None:
        kind = _NODE_TYPES[name] = type(name, (_SparseNode,), {"__slots__": ()})
    node = kind(tuple(edge_of(t) for t in sources),
                tuple((tuple(t.shape), t.dtype) for t in sources))
    node.backward = backward
    result._requires_grad, result._grad_fn = True, node
    return result


def _gathered(grad, indices):
    """A gradient's (dense or sparse) entries at indices, one row per index: recorded when
    the gradient is, through tapegrad's indexing."""
    dense = grad.to_dense() if isinstance(grad, SparseTensor) else grad
    return dense[tuple(Tensor._make(row) for row in indices)]


def sparse_mask(tensor: Tensor, mask: SparseTensor) -> SparseTensor:
    """tensor's entries at mask's indices, as stored (repeated ones repeat)."""
    if tuple(tensor.shape) != tuple(mask._size):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(tensor.shape)} but mask has size {list(mask._size)}")
    indices = mask._sparse_indices
    return _new(indices, _gathered(tensor, indices)._data, mask._size, mask._coalesced)


def _densified(tensor):
    values = tensor._sparse_values
    xp = _module(values)
    dense = xp.zeros(tensor._size, values.dtype)
    xp.add.at(dense, tuple(tensor._sparse_indices), values)
    return dense


def sparse_coo_tensor(indices: Tensor | Any, values: Tensor | Any,
                      size: Sequence[int] | None = None, *, dtype: _dtype.dtype | None = None,
                      device: _device | str | int | None = None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A sparse COO tensor from indices (sparse_dim x nnz) and values (nnz x dense dims); size
    defaults to the smallest that holds the indices; with requires_grad it is a leaf."""
    from ._creation import tensor as as_tensor
    indices = indices if isinstance(indices, Tensor) else as_tensor(indices, device=device)
    values = values if isinstance(values, Tensor) else as_tensor(values, dtype=dtype,
                                                                  device=device)
    if dtype is not None:
        values = values.to(dtype)
    if device is not None:
        indices, values = indices.to(device), values.to(device)
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    index_array = indices._data.astype(np.int64)  # torch casts the indices too
    value_array = values._data.copy()
    if index_array.shape[1] != value_array.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{index_array.shape[1]}, nnz from values: {value_array.shape[0]}")
    sparse_dim, dense_dim = index_array.shape[0], value_array.ndim - 1
    if size is None:
        size = [int(m) + 1 for m in index_array.max(axis=1)] if index_array.size else \
            [0] * sparse_dim
        size += list(value_array.shape[1:])
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    _check_indices(index_array, size)
    result = _new(index_array, value_array, size, coalesced=bool(is_coalesced)
                  or index_array.shape[1] <= 1)
    if requires_grad:
        if not result.dtype.is_floating_point and not result.dtype.is_complex:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result._requires_grad = True  # a leaf: its gradient is sparse
        return result
    # every value's gradient is the gradient's entry at its index (repeated ones each get it)
    return _recorded(result, "SparseCooTensorWithDimsAndTensorsBackward0", (values,),
                     lambda grad: (_gathered(grad, index_array),))


def _check_indices(indices, size):
    """torch's invariant checks (which it runs only when asked: here always, as an index out
    of range would otherwise fail later)."""
    if not indices.size:
        return
    for dim, (low, high) in enumerate(zip(indices.min(axis=1), indices.max(axis=1))):
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {dim}")
        if high >= size[dim]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is "
                               f"{size[dim]} but found index {high}")


def add(first: SparseTensor, second: SparseTensor) -> SparseTensor:
    """sparse + sparse, as torch's CPU kernel: one merge pass over both entry lists in their
    stored order, taking the smaller index first and summing equal ones; coalesced only if
    both were."""
    if first._size != second._size:
        raise RuntimeError("add: expected sizes of 'self' and 'other' to match, but "
                           f"{list(first._size)} != {list(second._size)}")
    dtype = _dtype.promote_types(first.dtype, second.dtype).numpy
    # the merge runs on the host over the keys (a sequential pass); only its plan goes back
    keys = [_backend.to_host(_keys(first)).tolist(), _backend.to_host(_keys(second)).tolist()]
    sources = []  # per result entry: (entry of first or -1, entry of second or -1)
    i = j = 0
    while i < len(keys[0]) or j < len(keys[1]):
        if j == len(keys[1]) or i < len(keys[0]) and keys[0][i] < keys[1][j]:
            sources.append((i, -1))
            i += 1
        elif i == len(keys[0]) or keys[1][j] < keys[0][i]:
            sources.append((-1, j))
            j += 1
        else:
            sources.append((i, j))
            i, j = i + 1, j + 1
    plan = _backend.beside(first._sparse_values, np.array(sources, np.int64).reshape(-1, 2))
    from_first, from_second = plan.T
    xp = _module(first._sparse_values)
    values = xp.zeros((len(sources),) + first._sparse_values.shape[1:], dtype)
    indices = xp.empty((first.sparse_dim(), len(sources)), np.int64)
    for part, picks in ((first, from_first), (second, from_second)):
        taken = picks >= 0
        values[taken] += part._sparse_values[picks[taken]]
        indices[:, taken] = part._sparse_indices[:, picks[taken]]
    result = _new(indices, values, first._size, first._coalesced and second._coalesced)
    return _recorded(result, "AddBackward0", (first, second), lambda grad: (grad, grad))


def _keys(tensor):
    """Each entry's position in the row-major order of the sparse dims."""
    indices = tensor._sparse_indices
    xp = _module(indices)
    keys = xp.zeros(indices.shape[1], np.int64)
    for row, length in zip(indices, tensor._size[:tensor.sparse_dim()]):
        keys = keys * length + row
    return keys


def to_sparse(tensor: Tensor, sparse_dim: int | None = None, *,
              layout: _layout.layout | None = None, blocksize: tuple[int, int] | None = None,
              dense_dim: int | None = None) -> SparseTensor:
    """The nonzero entries of a dense tensor (over its first sparse_dim dims), coalesced."""
    if layout not in (None, sparse_coo) or blocksize is not None or dense_dim is not None:
        raise NotImplementedError("to_sparse: only the sparse_coo layout is implemented")
    array = tensor._data
    given, sparse_dim = sparse_dim, array.ndim if sparse_dim is None else sparse_dim
    occupied = (array != 0).reshape(array.shape[:sparse_dim] + (-1,)).any(-1)
    xp = _module(array)
    indices = xp.stack(xp.nonzero(occupied)).astype(np.int64).reshape(sparse_dim, -1)
    result = _new(indices, array[tuple(indices)].copy(), array.shape, coalesced=True)
    return _recorded(result, "ToSparseBackward1" if given is None else "ToSparseBackward0",
                     (tensor,), lambda grad: (grad.to_dense(),))


def embedding_grad(grad: Tensor, indices: np.ndarray, num_weights: int, padding_idx: int,
                   scale_grad_by_freq: bool) -> SparseTensor:
    """torch's embedding_sparse_backward: one gradient row per index read (the padding index
    left out), uncoalesced."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    rows = indices.reshape(-1).astype(np.int64)
    values = grad._data.reshape(rows.size, grad.shape[-1])
    kept = rows != padding_idx
    return _new(rows[kept][None], values[kept].astype(grad._data.dtype, copy=True),
                (num_weights, grad.shape[-1]), coalesced=False)


def accumulated(total: Tensor | None, grad: Tensor) -> Tensor:
    """AccumulateGrad with a sparse side: sparse + sparse stays sparse (concatenated), a dense
    side makes the sum dense."""
    if total is None:
        return grad
    if isinstance(total, SparseTensor) and isinstance(grad, SparseTensor):
        return add(total, grad)
    return Tensor._make(total._data + grad._data, total.dtype)
