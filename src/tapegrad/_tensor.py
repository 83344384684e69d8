"""Tensor: an ndarray plus autograd state. Computation lives in ops/; methods delegate."""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from . import _backend, _device, _dtype, _layout, _printing, _random
from ._device import CPU, device
from .autograd import grad_mode
from .autograd.graph import (AccumulateGrad, register_post_accumulate_grad_hook,
                             register_tensor_hook)
from ._warnings import warn

if TYPE_CHECKING:
    import builtins
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from types import EllipsisType
    from typing import SupportsIndex, TypeAlias, TypeVar

    from typing_extensions import Self, TypeIs

    from .autograd.graph import Node, RemovableHandle, TensorHook
    from .storage import TypedStorage, UntypedStorage

    # Tensor's own methods bool, int, float and type hide Python's inside the class body.
    _bool = builtins.bool
    _int = builtins.int
    _float = builtins.float
    _complex = builtins.complex
    _Number: TypeAlias = "builtins.int | builtins.float | builtins.complex | builtins.bool"
    _Operand: TypeAlias = "Tensor | _Number"  # what the arithmetic operators take
    _Integral: TypeAlias = "Tensor | builtins.int | builtins.bool"  # what the bitwise ones take
    # an index: a number, slice, ..., None, a tensor or array of indices or a mask, a list of
    # these; a tuple of them indexes several dims
    _Index: TypeAlias = ("SupportsIndex | slice | EllipsisType | Tensor | np.ndarray | None | "
                         "Sequence[Any]")
    _DeviceLike: TypeAlias = "_device.device | str | builtins.int"
    _TensorT = TypeVar("_TensorT", bound="Tensor")

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


# torch names a gradient's dtype by its C++ type when refusing it as .grad
_CPP_TYPE_NAMES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>", "bool": "bool",
    "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "uint64": "unsigned long"}
GRAD_DTYPE_ADVICE = (
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can "
    "set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
    "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match.")


class Size(tuple[int, ...]):
    """torch.Size: a tuple of ints that prints as torch.Size([2, 3])."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: SupportsIndex | slice) -> int | Size:
        if isinstance(index, slice):
            return Size(super().__getitem__(index))
        return super().__getitem__(index)

    # tuple's overload for tuples of other types does not apply: Size + Size is a Size
    def __add__(self, other: Iterable[int]) -> Size:  # type: ignore[override]
        return Size(tuple(self) + tuple(other))

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))


if TYPE_CHECKING:
    # The ops' methods are attached to Tensor at import (ops/__init__.py); type checkers see
    # their signatures in a stub that tools/stubs.py generates from the op table.
    from ._tensor_methods import TensorMethods
else:
    TensorMethods = object


class Tensor(TensorMethods):
    # _view_version is set on views only (ops/_define.py _mark_view): the version their
    # _grad_fn was made at (Note [View regeneration] in ops/_inplace.py).
    # Slots for what every op reads; the rest are class-level defaults that a tensor
    # overrides in its __dict__ only when it differs, so _make sets six attributes.
    __slots__ = ("_data", "dtype", "_requires_grad", "_grad_fn", "_version_counter", "_base",
                 "_view_version", "__weakref__", "__dict__")
    _data: np.ndarray  # or a device backend's array, which has ndarray's interface
    dtype: _dtype.dtype
    _requires_grad: _bool
    _grad_fn: Node | None
    _version_counter: list[_int]  # shared by a tensor and its views and aliases
    _base: Tensor | None
    _view_version: _int
    _grad: Tensor | None = None
    _view_fn: Callable[[Any], Any] | None = None  # the view op again, on another array
    _accumulator: weakref.ref[AccumulateGrad] | None = None
    _output_nr: _int = 0
    _retains_grad: _bool = False
    _is_inference: _bool = False
    _unshared: _bool = False  # a gradient only the engine holds (Note [Unshared gradients])

    __hash__ = object.__hash__
    __array_priority__ = 1000  # make ndarray <op> Tensor defer to Tensor's reflected dunder

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """torch.Tensor(2, 3), torch.Tensor([1, 2]): the legacy constructor, default dtype."""
        from ._legacy_tensor_types import legacy_new
        result = legacy_new(_dtype.get_default_dtype(), args, kwargs, any_tensor=True)
        return result if cls is Tensor else Tensor._make_subclass(cls, result)

    @classmethod
    def _make(cls, array: Any, dtype: _dtype.dtype | None = None) -> Self:
        """The internal constructor: wraps an ndarray as is, no validation."""
        tensor = object.__new__(cls)
        tensor._data = array
        tensor.dtype = dtype or _dtype._BY_NUMPY[array.dtype]
        tensor._requires_grad = False
        tensor._grad_fn = tensor._base = None
        tensor._version_counter = [0]
        if grad_mode._state.inference:
            tensor._is_inference = True
        return tensor

    @staticmethod
    def _make_subclass(cls: builtins.type[_TensorT], data: Tensor,
                       require_grad: _bool = False) -> _TensorT:
        """torch's hook for Tensor subclasses: a cls sharing data's storage and version."""
        detached = data.detach()
        result = cls._make(detached._data, detached.dtype)
        result._version_counter = detached._version_counter
        if require_grad and not (result.dtype.is_floating_point or result.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result._requires_grad = bool(require_grad)
        return result

    # ---- metadata -------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @overload
    def size(self, dim: None = None) -> Size: ...

    @overload
    def size(self, dim: _int) -> _int: ...

    def size(self, dim: _int | None = None) -> Size | _int:
        return self.shape if dim is None else self._data.shape[self._wrap_dim(dim)]

    def dim(self) -> _int:
        return self._data.ndim

    @property
    def ndim(self) -> _int:
        return self._data.ndim

    def numel(self) -> _int:
        return self._data.size

    nelement = numel

    def _wrap_dim(self, dim: _int) -> _int:
        from .ops._checks import wrap_dim
        return wrap_dim(dim, self._data.ndim)

    @property
    def device(self) -> _device.device:
        # where the array lives: NumPy's are on the cpu, a backend's on its device
        return CPU if type(self._data) is np.ndarray else _backend.device_of(self._data)

    @property
    def is_cpu(self) -> _bool:
        return self.device.type == "cpu"

    @property
    def is_cuda(self) -> _bool:
        return self.device.type == "cuda"

    @property
    def is_meta(self) -> _bool:
        return False

    @property
    def is_mps(self) -> _bool:
        return False

    def get_device(self) -> _int:
        """The device index: -1 on the cpu."""
        where = self.device
        # a tensor's device other than the cpu always has its index
        return -1 if where.type == "cpu" else where.index  # type: ignore[return-value]

    @property
    def layout(self) -> _layout.layout:
        return _layout.strided

    def to_sparse(self, sparse_dim: _int | None = None, *, layout: _layout.layout | None = None,
                  blocksize: tuple[_int, _int] | None = None,
                  dense_dim: _int | None = None) -> Tensor:
        """This tensor's nonzero entries as a sparse COO tensor (the only layout here)."""
        from ._sparse import to_sparse
        return to_sparse(self, sparse_dim, layout=layout, blocksize=blocksize,
                         dense_dim=dense_dim)

    def sparse_mask(self, mask: Tensor) -> Tensor:
        """This tensor's entries where the sparse mask has one, as a sparse COO tensor."""
        from ._sparse import sparse_mask
        return sparse_mask(self, mask)  # type: ignore[arg-type]

    def is_pinned(self, device: _DeviceLike | None = None) -> _bool:
        return False

    def pin_memory(self, device: _DeviceLike | None = None) -> Tensor:
        raise RuntimeError(_device.NO_ACCELERATOR)  # pinning needs an accelerator to pin for

    def is_floating_point(self) -> _bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> _bool:
        return self.dtype.is_complex

    def element_size(self) -> _int:
        return self.dtype.itemsize

    def __len__(self) -> _int:
        if not self._data.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._data.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    # ---- autograd state -------------------------------------------------------------------
    @property
    def grad_fn(self) -> Node | None:
        if self._base is not None and self._view_version != self._version_counter[0]:
            from .ops._define import regenerate_view
            regenerate_view(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._grad_fn = node

    @property
    def requires_grad(self) -> _bool:
        # torch: a view requires grad whenever its base does
        return self._requires_grad or (self._base is not None and self._base._requires_grad
                                       and self.dtype.is_differentiable)

    @requires_grad.setter
    def requires_grad(self, value: _bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: _bool = True) -> Self:
        if requires_grad and self._is_inference and not grad_mode._state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> _bool:
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        if self.grad_fn is not None and not self._retains_grad:
            warn(NON_LEAF_GRAD_WARNING, UserWarning)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{_CPP_TYPE_NAMES[value.dtype.name]}' to a tensor with grad_dtype "
                    f"'{self.dtype.legacy_name}'. {GRAD_DTYPE_ADVICE}")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> _bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self.grad_fn.retain_output_grad(self._output_nr, self)
            self._retains_grad = True

    @property
    def output_nr(self) -> _int:
        return self._output_nr

    @property
    def _version(self) -> _int:
        return self._version_counter[0]

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

    def _grad_accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad, shared by every edge into it while any graph holds it."""
        node = None if self._accumulator is None else self._accumulator()
        if node is None:
            node = AccumulateGrad(self)
            self._accumulator = weakref.ref(node)
        return node

    def _accumulate_grad(self, grad: Tensor) -> None:
        """Add an incoming gradient into .grad (PyTorch's AccumulateGrad rules)."""
        if grad.is_sparse or self._grad is not None and self._grad.is_sparse:
            from ._sparse import accumulated
            self._grad = accumulated(self._grad, grad)
        elif self._grad is None:
            # A copy: the engine may hand the same gradient to several leaves, and later
            # accumulation happens in place. Recording, the copy is in the graph, as torch's.
            if grad_mode.is_recording():
                from .autograd.engine import recorded_first_grad
                self._grad = recorded_first_grad(self, grad)
            elif grad._unshared and grad._data.flags.c_contiguous:
                grad._unshared = False  # taken: whoever else gets it copies
                self._grad = Tensor._make(grad._data, grad.dtype)
            else:
                self._grad = Tensor._make(grad._data.copy())
        elif grad_mode.is_recording():
            self._grad = self._grad + grad  # keeps the graph of a create_graph backward
        else:
            _backend.array_module(grad._data).add(self._grad._data, grad._data,
                                                  out=self._grad._data, casting="unsafe")

    def detach(self) -> Tensor:
        """A tensor sharing this one's data and version counter, outside any graph."""
        result = Tensor._make(self._data, self.dtype)
        result._version_counter = self._version_counter
        if result._is_inference is not self._is_inference:  # a view: inference only if its base is
            result._is_inference = self._is_inference
        return result

    def is_inference(self) -> _bool:
        """Whether this tensor was made in inference_mode (autograd will not save it)."""
        return self._is_inference

    def detach_(self) -> Self:
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views "
                               "of DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the Optimizer."
                               "zero_grad() function in torch/optim/optimizer.py as the "
                               "solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        # Unlike detach(), .data has its own version counter: changes to it go unnoticed by
        # autograd, exactly torch's (documented) escape hatch.
        return Tensor._make(self._data, self.dtype)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data
        self.dtype = value.dtype

    def backward(self, gradient: Tensor | None = None, retain_graph: _bool | None = None,
                 create_graph: _bool = False,
                 inputs: Tensor | Sequence[Tensor] | None = None) -> None:
        from .autograd import engine
        engine.backward((self,), None if gradient is None else (gradient,), retain_graph,
                        create_graph, inputs=inputs)

    def register_hook(self, hook: TensorHook) -> RemovableHandle:
        """Call hook(grad) when this tensor's gradient is computed; it may return a new one."""
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self,
                                           hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call hook(self) after this leaf's .grad has been accumulated."""
        return register_post_accumulate_grad_hook(self, hook)

    # ---- conversion -----------------------------------------------------------------------
    def item(self) -> _Number:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:  # nested lists, or a number for a 0-d tensor
        return self._data.tolist()

    def numpy(self, *, force: _bool = False) -> np.ndarray:
        if _backend.on_device(self._data):
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                                "Tensor.cpu() to copy the tensor to host memory first.")
            return _backend.to_host(self._data)
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype: Any = None, copy: _bool | None = None) -> np.ndarray:
        from .interop import tensor_array
        return tensor_array(self, dtype, copy)

    def __array_wrap__(self, array: Any, context: Any = None,
                       return_scalar: _bool = False) -> Tensor:
        # torch's: a NumPy ufunc over a tensor (x + ndarray, once Tensor.__add__ declined the
        # ndarray) gives a tensor, 0-d for a scalar and uint8 for bools
        array = np.asarray(array)
        return Tensor._make(array.astype(np.uint8) if array.dtype == np.bool_ else array)

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[_int, _int] | None = None,
                   dl_device: tuple[_int, _int] | None = None,
                   copy: _bool | None = None) -> Any:
        from .interop import tensor_dlpack
        return tensor_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[_int, _int]:
        from .interop import tensor_dlpack_device
        return tensor_dlpack_device(self)

    def to_torch(self) -> Any:  # a torch.Tensor
        from .interop import to_torch
        return to_torch(self)

    def __bool__(self) -> _bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with "
                               f"{'no values' if not self._data.size else 'more than one value'}"
                               " is ambiguous")
        return bool(self._data.reshape(()))

    def _python_scalar(self) -> Any:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> _float:
        return float(self._python_scalar())

    def __int__(self) -> _int:
        return int(self._python_scalar())

    def __index__(self) -> _int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._python_scalar())

    def __complex__(self) -> _complex:
        return complex(self._python_scalar())

    def __format__(self, format_spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), format_spec)  # torch formats the Python number
        if format_spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __repr__(self) -> str:
        tail: tuple[str, ...] = ()
        try:
            node_name = self.grad_fn and type(self.grad_fn).__name__
        except RuntimeError:  # a view whose node may not be regenerated (ops/_inplace.py)
            node_name = "Invalid"
        if node_name:
            tail = (f"grad_fn=<{node_name}>",)
        elif self.requires_grad:
            tail = ("requires_grad=True",)
        if "_tangent" in self.__dict__:  # a dual tensor of forward-mode AD
            tail += (f"tangent={self.__dict__['_tangent']!r}",)
        if not _backend.on_device(self._data):
            return _printing.format_tensor(self._data, self.dtype.name,
                                           _dtype.get_default_dtype().name, tail)
        # a device tensor prints from a host copy, as torch's does
        return _printing.format_tensor(_backend.to_host(self._data), self.dtype.name,
                                       _dtype.get_default_dtype().name, tail,
                                       device=self.device)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict[_int, Any]) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        result = _rebuild(self._data.copy(), self._requires_grad)
        memo[id(self)] = result
        return result

    # ---- dtype conversions (torch returns self when nothing changes) ----------------------
    @overload
    def to(self, dtype: _dtype.dtype, non_blocking: _bool = False, copy: _bool = False, *,
           memory_format: _layout.memory_format | None = None) -> Tensor: ...

    @overload
    def to(self, device: _DeviceLike | None = None, dtype: _dtype.dtype | None = None,
           non_blocking: _bool = False, copy: _bool = False, *,
           memory_format: _layout.memory_format | None = None) -> Tensor: ...

    @overload
    def to(self, other: Tensor, non_blocking: _bool = False, copy: _bool = False, *,
           memory_format: _layout.memory_format | None = None) -> Tensor: ...

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        if not kwargs and len(args) == 1 and type(args[0]) is _dtype.dtype:  # the common to(dtype)
            return self if args[0] is self.dtype else ops.to_copy(self, args[0])
        target, dtype, _, copy, memory_format = parse_to_arguments(args, kwargs)
        if target is not None:
            target = _device.tensor_device(target, None)  # torch's error for a missing device
            if target != self.device:  # a move is always a copy, as torch's
                return ops.to_copy(self, dtype or self.dtype, target)
        dtype = dtype or self.dtype
        # torch returns self when memory_format is the one its strides suggest, even if they
        # are not that format's (a transposed tensor for contiguous_format)
        if not copy and dtype is self.dtype and (
                memory_format in (None, _layout.preserve_format)
                or memory_format is _layout.suggested(self._data)):
            return self
        result = ops.to_copy(self, dtype)
        result._data = _layout.laid_out(result._data, memory_format)
        return result

    @overload
    def type(self, dtype: None = None, non_blocking: _bool = False) -> str: ...

    @overload
    def type(self, dtype: str | _dtype.dtype | builtins.type,
             non_blocking: _bool = False) -> Tensor: ...

    def type(self, dtype: str | _dtype.dtype | builtins.type | None = None,
             non_blocking: _bool = False) -> str | Tensor:
        """torch.XTensor's name, or a copy as dtype (a dtype or a name such as
        'torch.IntTensor')."""
        if dtype is None:
            return f"torch.{self.dtype.legacy_name}Tensor"
        return self.to(_dtype_of_type(dtype), non_blocking)

    def type_as(self, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError("type_as(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return self.to(other.dtype)

    def _converted(self, name: str, dtype: _dtype.dtype, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Tensor:
        """float(), double(), ...: to(dtype, memory_format=...), checked as torch does."""
        if not args and not kwargs:
            return self.to(dtype)
        memory_format = _layout.memory_format_argument(name, args, kwargs,
                                                       _layout.preserve_format, optional=True)
        return self.to(dtype, memory_format=memory_format)

    def float(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("float", _dtype.float32, args, kwargs)

    def double(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("double", _dtype.float64, args, kwargs)

    def half(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("half", _dtype.float16, args, kwargs)

    def bfloat16(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("bfloat16", _dtype.bfloat16, args, kwargs)

    def long(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("long", _dtype.int64, args, kwargs)

    def int(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("int", _dtype.int32, args, kwargs)

    def short(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("short", _dtype.int16, args, kwargs)

    def char(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("char", _dtype.int8, args, kwargs)

    def byte(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("byte", _dtype.uint8, args, kwargs)

    def bool(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        return self._converted("bool", _dtype.bool, args, kwargs)

    def cpu(self, memory_format: _layout.memory_format | None = None) -> Tensor:
        return self.to("cpu", memory_format=memory_format)

    def cuda(self, device: _DeviceLike | None = None, non_blocking: _bool = False,
             memory_format: _layout.memory_format | None = None) -> Tensor:
        target = _device.as_device("cuda" if device is None else device)
        if target.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return self.to(target, non_blocking=non_blocking, memory_format=memory_format)

    def contiguous(self, *args: Any, **kwargs: Any) -> Tensor:  # memory_format=
        memory_format = _layout.contiguous_format
        if args or kwargs:
            memory_format = _layout.memory_format_argument("contiguous", args, kwargs,
                                                           memory_format)
        elif self._data.flags.c_contiguous:  # the common call, without a memory format
            return self
        if _layout.is_laid_out(self._data, memory_format):
            return self
        if memory_format is _layout.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        return ops.clone(self, memory_format=memory_format)

    def is_contiguous(self, *args: Any, **kwargs: Any) -> _bool:  # memory_format=
        if not args and not kwargs:
            return self._data.flags.c_contiguous
        return _layout.is_laid_out(self._data, _layout.memory_format_argument(
            "is_contiguous", args, kwargs, _layout.contiguous_format))

    @overload
    def stride(self, dim: None = None) -> tuple[_int, ...]: ...

    @overload
    def stride(self, dim: _int) -> _int: ...

    def stride(self, dim: _int | None = None) -> tuple[_int, ...] | _int:
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def data_ptr(self) -> _int:
        if type(self._data) is not np.ndarray:
            device_array: Any = self._data
            return device_array.data.ptr  # a device array's memory pointer (a MemoryPointer)
        return self._data.__array_interface__["data"][0]

    # ---- storage (storage.py) -------------------------------------------------------------
    def untyped_storage(self) -> UntypedStorage:
        from . import storage
        return storage.untyped_storage_of(self)

    def storage(self) -> TypedStorage:
        from . import storage
        storage._warn_typed_storage()
        return storage.TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype,
                                    _internal=True)

    def storage_type(self) -> Any:  # the legacy class: torch.FloatStorage, ...
        from . import storage
        return storage.storage_type(self)

    @overload
    def set_(self) -> Tensor: ...

    @overload
    def set_(self, source: Tensor | UntypedStorage | TypedStorage,
             storage_offset: _int = ..., size: Sequence[_int] = ...,
             stride: Sequence[_int] | None = None) -> Tensor: ...

    def set_(self, *args: Any, **kwargs: Any) -> Tensor:  # torch's argument errors: storage.py
        from . import storage
        return storage.set_(self, *args, **kwargs)

    def is_set_to(self, tensor: Tensor) -> _bool:
        from . import storage
        return storage.is_set_to(self, tensor)

    # ---- in-place -------------------------------------------------------------------------
    def zero_(self) -> Tensor:
        return ops.zero_(self)

    def fill_(self, value: _Operand) -> Tensor:
        return ops.fill_(self, value)

    # torch's parameter `from` is a Python keyword: these take torch's arguments as given
    def uniform_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.uniform_(self, *args, **kwargs)

    def normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.normal_(self, *args, **kwargs)

    def bernoulli_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.bernoulli_(self, *args, **kwargs)

    def exponential_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.exponential_(self, *args, **kwargs)

    def random_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.random_(self, *args, **kwargs)

    def cauchy_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.cauchy_(self, *args, **kwargs)

    def geometric_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.geometric_(self, *args, **kwargs)

    def log_normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _random.log_normal_(self, *args, **kwargs)

    def copy_(self, src: _Operand, non_blocking: _bool = False) -> Tensor:
        if not isinstance(src, (Tensor, int, float, complex, np.number)):
            raise TypeError("copy_(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(src).__name__}")
        return ops.copy_(self, src)

    def add_(self, other: _Operand, *, alpha: _Number = 1) -> Tensor:
        return ops.inplace(ops.add, self, other, alpha=alpha)

    def sub_(self, other: _Operand, *, alpha: _Number = 1) -> Tensor:
        return ops.inplace(ops.sub, self, other, alpha=alpha)

    def mul_(self, other: _Operand) -> Tensor:
        return ops.inplace(ops.mul, self, other)

    def div_(self, other: _Operand, *, rounding_mode: str | None = None) -> Tensor:
        return ops.inplace(ops.div, self, other, rounding_mode=rounding_mode)

    def clamp_(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:
        return ops.inplace(ops.clamp, self, min, max)

    clip_ = clamp_

    def __setitem__(self, key: _Index, value: _Operand) -> None:
        if type(value) is not float or self._data.dtype.kind not in "fc":
            value = assigned_value(self, value)  # lists, None, overflows: torch's errors
        ops.setitem(self, key, value)

    # ---- operators ------------------------------------------------------------------------
    def __add__(self, other: _Operand) -> Tensor:
        try:
            return ops.add(self, other)
        except TypeError:  # torch's operators: Python then asks the other operand
            return NotImplemented

    def __radd__(self, other: _Operand) -> Tensor:
        try:
            return ops.add(self, other)
        except TypeError:
            return NotImplemented

    def __iadd__(self, other: _Operand) -> Tensor:
        return self.add_(other)

    def __sub__(self, other: _Operand) -> Tensor:
        try:
            return ops.sub(self, other)
        except TypeError:
            return NotImplemented

    def __rsub__(self, other: _Operand) -> Tensor:
        try:
            return ops.rsub(self, other)
        except TypeError:
            return NotImplemented

    def __isub__(self, other: _Operand) -> Tensor:
        return self.sub_(other)

    def __mul__(self, other: _Operand) -> Tensor:
        try:
            return ops.mul(self, other)
        except TypeError:
            return NotImplemented

    def __rmul__(self, other: _Operand) -> Tensor:
        try:
            return ops.mul(self, other)
        except TypeError:
            return NotImplemented

    def __imul__(self, other: _Operand) -> Tensor:
        return self.mul_(other)

    def __truediv__(self, other: _Operand) -> Tensor:
        try:
            return ops.div(self, other)
        except TypeError:
            return NotImplemented

    def __rtruediv__(self, other: _Operand) -> Tensor:
        try:
            return ops.mul(ops.reciprocal(self), other)
        except TypeError:
            return NotImplemented

    def __itruediv__(self, other: _Operand) -> Tensor:
        return self.div_(other)

    def __floordiv__(self, other: _Operand) -> Tensor:
        return ops.floor_divide(self, other)

    def __rfloordiv__(self, other: _Operand) -> Tensor:
        return ops.floor_divide(other, self)

    def __ifloordiv__(self, other: _Operand) -> Tensor:
        return self.floor_divide_(other)

    def __mod__(self, other: _Operand) -> Tensor:
        return ops.remainder(self, other)

    def __rmod__(self, other: _Operand) -> Tensor:
        return ops.remainder(other, self)

    def __imod__(self, other: _Operand) -> Tensor:
        return self.remainder_(other)

    def __pow__(self, exponent: _Operand) -> Tensor:
        return ops.pow(self, exponent)

    def __rpow__(self, base: _Operand) -> Tensor:
        return ops.pow(base, self)

    def __ipow__(self, exponent: _Operand) -> Tensor:
        return self.pow_(exponent)

    def __matmul__(self, other: _Operand) -> Tensor:
        try:
            return _matmul(self, other)
        except TypeError:
            return NotImplemented

    def __rmatmul__(self, other: Tensor) -> Tensor:
        try:
            return _matmul(other, self)
        except TypeError:
            return NotImplemented

    def __neg__(self) -> Tensor:
        return ops.neg(self)

    def __pos__(self) -> Tensor:
        return ops.positive(self)

    def __abs__(self) -> Tensor:
        return ops.abs(self)

    def __invert__(self) -> Tensor:
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and "
                            "Boolean-type tensors")
        return ops.bitwise_not(self)

    def __and__(self, other: _Integral) -> Tensor:
        return ops.bitwise_and(self, other)

    def __or__(self, other: _Integral) -> Tensor:
        return ops.bitwise_or(self, other)

    def __xor__(self, other: _Integral) -> Tensor:
        return ops.bitwise_xor(self, other)

    def __rand__(self, other: _Integral) -> Tensor:
        return ops.bitwise_and(self, other)

    def __ror__(self, other: _Integral) -> Tensor:
        return ops.bitwise_or(self, other)

    def __rxor__(self, other: _Integral) -> Tensor:
        return ops.bitwise_xor(self, other)

    def __iand__(self, other: _Integral) -> Tensor:
        return self.bitwise_and_(other)

    def __ior__(self, other: _Integral) -> Tensor:
        return self.bitwise_or_(other)

    def __ixor__(self, other: _Integral) -> Tensor:
        return self.bitwise_xor_(other)

    def __lshift__(self, other: _Operand) -> Tensor:
        return ops.bitwise_left_shift(self, other)

    def __rlshift__(self, other: _Operand) -> Tensor:
        return ops.bitwise_left_shift(other, self)

    def __ilshift__(self, other: _Operand) -> Tensor:
        return self.bitwise_left_shift_(other)

    def __rshift__(self, other: _Operand) -> Tensor:
        return ops.bitwise_right_shift(self, other)

    def __rrshift__(self, other: _Operand) -> Tensor:
        return ops.bitwise_right_shift(other, self)

    def __irshift__(self, other: _Operand) -> Tensor:
        return self.bitwise_right_shift_(other)

    # x == y is a Tensor for what torch compares elementwise, and Python's bool for the rest
    # (x == None); the first overload overlaps the second on purpose, as in torch
    @overload
    def __eq__(self, other: _Operand | np.ndarray) -> Tensor: ...  # type: ignore[overload-overlap]

    @overload
    def __eq__(self, other: object) -> _bool: ...

    def __eq__(self, other: object) -> Tensor | _bool:
        try:
            return ops.eq(self, other)
        except TypeError:  # x == [1, 2] and x == None are False, as torch's (Python's answer)
            return self._compare_with_array(np.equal, other)

    @overload
    def __ne__(self, other: _Operand) -> Tensor: ...  # type: ignore[overload-overlap]

    @overload
    def __ne__(self, other: object) -> _bool: ...

    def __ne__(self, other: object) -> Tensor | _bool:
        try:
            return ops.ne(self, other)
        except TypeError:  # x != ndarray too: True, as torch's
            return NotImplemented

    def _compare_with_array(self, ufunc: Callable[..., Any], other: object) -> Tensor:
        """x == ndarray compares elementwise, as torch's; anything else is Python's to answer."""
        if not isinstance(other, np.ndarray):
            return NotImplemented
        return Tensor._make(np.asarray(ufunc(self._data, other)))

    def __lt__(self, other: _Operand) -> Tensor:
        try:
            return ops.lt(self, other)
        except TypeError:  # Python's "'<' not supported between instances of ...", as torch
            return NotImplemented

    def __le__(self, other: _Operand) -> Tensor:
        try:
            return ops.le(self, other)
        except TypeError:
            return NotImplemented

    def __gt__(self, other: _Operand) -> Tensor:
        try:
            return ops.gt(self, other)
        except TypeError:
            return NotImplemented

    def __ge__(self, other: _Operand) -> Tensor:
        try:
            return ops.ge(self, other)
        except TypeError:
            return NotImplemented

    def __getitem__(self, key: _Index) -> Tensor:
        return ops.getitem(self, key)


_TO_SIGNATURES = "".join(
    f" * ({first}, bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n" for first in ("torch.device device = None, torch.dtype dtype = None",
                                            "torch.dtype dtype", "Tensor tensor"))
_TO_SLOTS: dict[str, type | tuple[type, ...]] = {
    "device": (str, bytes, int, device), "dtype": _dtype.dtype, "tensor": Tensor,
    "non_blocking": bool, "copy": bool, "memory_format": _layout.memory_format}


def parse_to_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """(device, dtype, non_blocking, copy, memory_format) of a Tensor.to call, as torch binds
    its three overloads: to(device, dtype, ...), to(dtype, ...) and to(tensor, ...)."""
    first = args[0] if args else None
    names = (("tensor",) if isinstance(first, Tensor) else ("dtype",)
             if isinstance(first, _dtype.dtype) else ("device", "dtype")) + ("non_blocking", "copy")
    bound = dict(zip(names, args))
    if len(args) > len(names) or any(name in bound or name not in _TO_SLOTS or
                                     name not in names + ("memory_format",) for name in kwargs):
        raise _to_invalid(args, kwargs)
    bound.update(kwargs)
    for name, value in bound.items():
        if value is not None and not isinstance(value, _TO_SLOTS[name]):
            raise _to_invalid(args, kwargs)
    tensor = bound.get("tensor")
    if tensor is not None:
        bound["device"], bound["dtype"] = tensor.device, tensor.dtype
    return (bound.get("device"), bound.get("dtype"), bound.get("non_blocking", False),
            bound.get("copy", False), bound.get("memory_format"))


def _to_invalid(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    def name(value: object) -> str:
        if isinstance(value, (_dtype.dtype, device, _layout.memory_format)):
            return f"torch.{type(value).__name__}"
        return type(value).__name__
    got = ", ".join([name(arg) for arg in args] + [f"{k}={name(v)}" for k, v in kwargs.items()])
    if kwargs and not args:
        got += ", "
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n{_TO_SIGNATURES}")


def _dtype_of_type(value: Any) -> _dtype.dtype:
    """The dtype Tensor.type(value) names: a dtype, 'torch.FloatTensor', 'torch.cuda...'."""
    if isinstance(value, _dtype.dtype):
        return value
    if not isinstance(value, (str, type)):
        raise TypeError("dtype must be a type, str, or dtype object")
    if isinstance(getattr(value, "dtype", None), _dtype.dtype):  # torch.FloatTensor and kin
        value = value.torch_name  # type: ignore[union-attr]  # _legacy_tensor_types' classes
    name = value if isinstance(value, str) else value.__name__
    if name.startswith("torch.cuda.") and name.endswith("Tensor"):
        raise RuntimeError("Cannot initialize CUDA " + _device.CUDA_LIBRARY_MISSING)
    for candidate in _dtype._BY_NUMPY.values():
        if name == f"torch.{candidate.legacy_name}Tensor":
            return candidate
    raise ValueError(f"invalid type: '{name}'")


def _rebuild(array: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._make(array).requires_grad_(requires_grad)


def is_tensor(obj: object) -> TypeIs[Tensor]:
    return isinstance(obj, Tensor)


if TYPE_CHECKING:
    # ops binds its functions at import, out of a type checker's sight (their signatures, in
    # _functions.pyi, type the methods above that call them)
    ops: Any
else:
    from . import ops  # noqa: E402  (ops import Tensor: this module must exist first)
from ._creation import assigned_value  # noqa: E402  (loaded by ops)
from .ops import _checks  # noqa: E402


def _matmul(input: Tensor, other: Any) -> Tensor:
    """@: matmul, through autocast's hook while autocast is on anywhere (it casts before
    matmul's dtype check, as torch's @ is cast)."""
    hook = _checks.autocast_hook
    if hook is None:
        return ops.matmul(input, other)
    return hook("matmul", (input, other), None, ops.matmul)
