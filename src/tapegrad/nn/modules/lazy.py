"""Lazy modules, as torch.nn's: their parameters are UninitializedParameters until the first
forward, which infers the missing size (in_features, in_channels, num_features) from the input,
creates the parameters, initialises them as the eager module would, and turns the module into
that eager class (LazyLinear becomes Linear)."""
import numpy as np

import tapegrad
from tapegrad._tensor import Tensor  # Tensor is bound after nn is imported

from ..parameter import Parameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .linear import Linear
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear",
           "LazyModuleMixin", "UninitializedBuffer", "UninitializedParameter"]


class _Uninitialized:
    """A placeholder tensor with no elements until materialize(shape) gives it storage."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        with tapegrad.no_grad():
            self._data = np.empty(tuple(shape), dtype.numpy)
        self.__class__ = self.cls_to_become

    def to(self, *args, **kwargs):
        """A placeholder moved or cast is a placeholder of the new dtype (Module.to)."""
        cast = Tensor.to(self, *args, **kwargs)
        return type(self)(requires_grad=self.requires_grad, dtype=cast.dtype)

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter whose shape is not known yet (a lazy module's weight)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, tapegrad.empty(0, device=device, dtype=dtype),
                                 requires_grad)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape is not known yet (a lazy norm's running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        data = tapegrad.empty(0, device=device, dtype=dtype)
        return Tensor._make_subclass(cls, data, requires_grad)


def is_lazy(value):
    return isinstance(value, _Uninitialized)


class LazyModuleMixin:
    """Infers the parameters at the first forward (a forward pre-hook), then becomes
    cls_to_become; loading a state_dict materialises the placeholders it has values for."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def has_uninitialized_params(self):
        return any(is_lazy(value) for value in (*self._parameters.values(),
                                                *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        for name, value in (*self._parameters.items(), *self._buffers.items()):
            given = state_dict.get(prefix + name)
            if is_lazy(value) and given is not None and not is_lazy(given):
                value.materialize(given.shape)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _lazy_reset_parameters(self, size):
        """The eager reset_parameters, once the inferred size is known (the constructor's
        call on zero-element placeholders initialises nothing)."""
        if not self.has_uninitialized_params() and size != 0:
            super().reset_parameters()


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        self._lazy_reset_parameters(self.in_features)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """A convolution whose in_channels is its first input's channel count."""

    spatial_dims = None

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        self._lazy_reset_parameters(self.in_channels)

    def initialize_parameters(self, input, *args, **kwargs):
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


def _lazy_conv(name, eager, spatial_dims):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups,
                                 False, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)
    return type(name, (_LazyConvMixin, eager), {
        "__init__": __init__, "cls_to_become": eager,
        "spatial_dims": spatial_dims, "__doc__": f"{eager.__name__} with lazy in_channels."})


def _lazy_conv_transpose(name, eager, spatial_dims):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                 groups, False, dilation, padding_mode, device=device,
                                 dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)
    return type(name, (_LazyConvMixin, eager), {
        "__init__": __init__, "cls_to_become": eager,
        "spatial_dims": spatial_dims, "__doc__": f"{eager.__name__} with lazy in_channels."})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, 1)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, 2)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d, 3)


class _LazyNormMixin(LazyModuleMixin):
    """A norm layer whose num_features is its first input's channel count."""

    def reset_parameters(self):
        self._lazy_reset_parameters(self.num_features)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                value = getattr(self, name)
                if is_lazy(value):
                    value.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, eager):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        LazyModuleMixin.__init__(self, 0, eps, momentum, False, False, device=device,
                                 dtype=dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tapegrad.tensor(0, dtype=tapegrad.long, device=device)
    return type(name, (_LazyNormMixin, eager), {
        "__init__": __init__, "cls_to_become": eager,
        "__doc__": f"{eager.__name__} with lazy num_features."})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d)
