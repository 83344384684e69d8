"""Lazy modules, as torch.nn's: their parameters are UninitializedParameters until the first
forward, which infers the missing size (in_features, in_channels, num_features) from the input,
creates the parameters, initialises them as the eager module would, and turns the module into
that eager class (LazyLinear becomes Linear)."""
from __future__ import annotations

import sys
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard

import numpy as np

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad import _backend
from tapegrad._tensor import Size, Tensor  # Tensor is bound after nn is imported
from tapegrad.ops._define import Op

from ..common_types import DeviceLikeType, _size_1_t, _size_2_t, _size_3_t
from ..parameter import Parameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .linear import Linear
from .module import Module
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear",
           "LazyModuleMixin", "UninitializedBuffer", "UninitializedParameter"]

# The mixins are used with a Tensor or a Module class after them; type checkers see them
# derive from it, so that what they call on self is known.
if TYPE_CHECKING:
    _TensorMixinBase = Tensor
    _ModuleMixinBase = Module
else:
    _TensorMixinBase = _ModuleMixinBase = object


_DATA: Any = Tensor._data  # the slot that _Uninitialized._data guards
_SHAPE_OF_PLACEHOLDER = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes.")


def _computing_with(placeholder: type) -> NoReturn:
    """torch's ValueError for an op given a placeholder, naming the op: the outermost
    tapegrad function on the stack (the one the program called: an Op by its name, a
    function wrapped by ops._checks.diagnosed by the torch name it was exported under)."""
    name = "an op"
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("tapegrad."):
            name, owner = frame.f_code.co_name, frame.f_locals.get("self")
            if isinstance(owner, Op):
                name = owner.__name__.lstrip("_")
            elif name == "call":
                name = frame.f_locals.get("name", name)
        frame = frame.f_back
    name = name.strip("_").removeprefix("r") if name.startswith("__") else name
    raise ValueError(
        f"Attempted to use an uninitialized parameter in <method '{name}' of "
        "'torch._C.TensorBase' objects>. This error happens when you are using a `LazyModule` "
        f"or explicitly manipulating `torch.nn.parameter.{placeholder.__name__}` objects. "
        "When using LazyModules Call `forward` with a dummy batch to initialize the "
        "parameters before calling torch functions")


class _Uninitialized(_TensorMixinBase):
    """A placeholder tensor with no elements until materialize(shape) gives it storage. Its
    data is out of reach, so an op computing with it raises torch's ValueError; its dtype,
    device and requires_grad are there, as torch's placeholders have them."""

    cls_to_become: type[Tensor]  # each subclass's: what materialize() turns it into

    @property  # over Tensor's slot, which it guards
    def _data(self) -> Any:
        _computing_with(type(self))

    @_data.setter
    def _data(self, array: Any) -> None:
        _DATA.__set__(self, array)

    @property
    def device(self) -> tapegrad.device:
        return _backend.device_of(_DATA.__get__(self))

    @property
    def data(self) -> Tensor:  # torch's: the empty storage
        return Tensor._make(_DATA.__get__(self), self.dtype)

    @data.setter
    def data(self, value: Tensor) -> None:  # Module.to's: a cast placeholder's (empty) data
        # Tensor's setter, given what a placeholder can hand over: its .data, not its _data
        handed = value.data if isinstance(value, Tensor) else value
        Tensor.data.fset(self, handed)  # type: ignore[attr-defined]  # mypy sees no fset here

    @property
    def shape(self) -> Size:
        raise RuntimeError(_SHAPE_OF_PLACEHOLDER)

    def size(self, dim: int | None = None) -> Any:
        return Size((0,)) if dim is None else Size((0,))[dim]

    def materialize(self, shape: tuple[int, ...], device: DeviceLikeType | None = None,
                    dtype: _dtype | None = None) -> None:
        dtype = self.dtype if dtype is None else dtype
        with tapegrad.no_grad():
            self._data = np.empty(tuple(shape), dtype.numpy)
        self.__class__ = self.cls_to_become  # type: ignore[assignment]  # now eager

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """A placeholder moved or cast is a placeholder of the new dtype (Module.to)."""
        cast = Tensor.to(tapegrad.empty(0, dtype=self.dtype, device=self.device), *args,
                         **kwargs)
        return type(self)(requires_grad=self.requires_grad, dtype=cast.dtype)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter whose shape is not known yet (a lazy module's weight)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: DeviceLikeType | None = None,
                dtype: _dtype | None = None) -> UninitializedParameter:
        return Parameter.__new__(cls, tapegrad.empty(0, device=device, dtype=dtype),
                                 requires_grad)

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        # torch copies a placeholder parameter as a new one (a placeholder buffer it refuses)
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape is not known yet (a lazy norm's running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: DeviceLikeType | None = None,
                dtype: _dtype | None = None) -> UninitializedBuffer:
        data = tapegrad.empty(0, device=device, dtype=dtype)
        return Tensor._make_subclass(cls, data, requires_grad)


def is_lazy(value: Any) -> TypeGuard[_Uninitialized]:
    return isinstance(value, _Uninitialized)


class LazyModuleMixin(_ModuleMixinBase):
    """Infers the parameters at the first forward (a forward pre-hook), then becomes
    cls_to_become; loading a state_dict materialises the placeholders it has values for."""

    cls_to_become: type[Module] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(value) for value in (*self._parameters.values(),
                                                *self._buffers.values()))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _infer_parameters(self, module: Any, args: tuple[Any, ...],
                          kwargs: dict[str, Any] | None = None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        # a placeholder has no data to detach: it is saved as itself, as torch's are
        super()._save_to_state_dict(destination, prefix, True)
        for name in (*self._parameters, *self._buffers):
            value = destination.get(prefix + name)
            if not keep_vars and value is not None and not is_lazy(value):
                destination[prefix + name] = value.detach()

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any,
                              **kwargs: Any) -> None:
        for name, value in (*self._parameters.items(), *self._buffers.items()):
            given = state_dict.get(prefix + name)
            if is_lazy(value) and given is not None and not is_lazy(given):
                value.materialize(given.shape)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _lazy_reset_parameters(self, size: int) -> None:
        """The eager reset_parameters, once the inferred size is known (the constructor's
        call on zero-element placeholders initialises nothing)."""
        if not self.has_uninitialized_params() and size != 0:
            super().reset_parameters()  # type: ignore[misc]  # the eager class's, next in the MRO


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of its first input."""

    cls_to_become = Linear
    weight: Any  # UninitializedParameters until the first forward
    bias: Any

    def __init__(self, out_features: int, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        self._lazy_reset_parameters(self.in_features)

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """A convolution whose in_channels is its first input's channel count."""

    spatial_dims: int  # each class's
    # the eager class's; weight and bias are UninitializedParameters until the first forward
    weight: Any
    bias: Any
    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: tuple[int, ...]

    def _lazy_init(self, out_channels: int, bias: bool, device: DeviceLikeType | None,
                   dtype: _dtype | None) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        self._lazy_reset_parameters(self.in_channels)

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if not self.has_uninitialized_params():
            return
        unbatched = self.spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        self.in_channels = input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                    else (self.out_channels, self.in_channels // self.groups))
        self.weight.materialize((*channels, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    """Conv1d with lazy in_channels."""

    cls_to_become = Conv1d
    spatial_dims = 1

    def __init__(self, out_channels: int, kernel_size: _size_1_t, stride: _size_1_t = 1,
                 padding: str | _size_1_t = 0, dilation: _size_1_t = 1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    """Conv2d with lazy in_channels."""

    cls_to_become = Conv2d
    spatial_dims = 2

    def __init__(self, out_channels: int, kernel_size: _size_2_t, stride: _size_2_t = 1,
                 padding: str | _size_2_t = 0, dilation: _size_2_t = 1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv3d(_LazyConvMixin, Conv3d):
    """Conv3d with lazy in_channels."""

    cls_to_become = Conv3d
    spatial_dims = 3

    def __init__(self, out_channels: int, kernel_size: _size_3_t, stride: _size_3_t = 1,
                 padding: str | _size_3_t = 0, dilation: _size_3_t = 1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    """ConvTranspose1d with lazy in_channels."""

    cls_to_become = ConvTranspose1d
    spatial_dims = 1

    def __init__(self, out_channels: int, kernel_size: _size_1_t, stride: _size_1_t = 1,
                 padding: _size_1_t = 0, output_padding: _size_1_t = 0, groups: int = 1,
                 bias: bool = True, dilation: _size_1_t = 1, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    """ConvTranspose2d with lazy in_channels."""

    cls_to_become = ConvTranspose2d
    spatial_dims = 2

    def __init__(self, out_channels: int, kernel_size: _size_2_t, stride: _size_2_t = 1,
                 padding: _size_2_t = 0, output_padding: _size_2_t = 0, groups: int = 1,
                 bias: bool = True, dilation: _size_2_t = 1, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConvTranspose3d(_LazyConvMixin, ConvTranspose3d):
    """ConvTranspose3d with lazy in_channels."""

    cls_to_become = ConvTranspose3d
    spatial_dims = 3

    def __init__(self, out_channels: int, kernel_size: _size_3_t, stride: _size_3_t = 1,
                 padding: _size_3_t = 0, output_padding: _size_3_t = 0, groups: int = 1,
                 bias: bool = True, dilation: _size_3_t = 1, padding_mode: str = "zeros",
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyNormMixin(LazyModuleMixin):
    """A norm layer whose num_features is its first input's channel count."""

    # the eager class's; Uninitialized placeholders until the first forward
    weight: Any
    bias: Any
    running_mean: Any
    num_batches_tracked: Tensor | None
    running_var: Any
    num_features: int

    def reset_parameters(self) -> None:
        self._lazy_reset_parameters(self.num_features)

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                value = getattr(self, name)
                if is_lazy(value):
                    value.materialize((self.num_features,))
            self.reset_parameters()

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tapegrad.tensor(0, dtype=tapegrad.long, device=device)


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """BatchNorm1d with lazy num_features."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """BatchNorm2d with lazy num_features."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """BatchNorm3d with lazy num_features."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """InstanceNorm1d with lazy num_features."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """InstanceNorm2d with lazy num_features."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """InstanceNorm3d with lazy num_features."""

    cls_to_become = InstanceNorm3d
