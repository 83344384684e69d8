"""tapegrad.nn.utils.weight_norm: torch's deprecated hook form of weight normalization
(weight_g and weight_v parameters, weight recomputed by a forward pre-hook)."""
from __future__ import annotations

from typing import Any, TypeVar

from tapegrad import _warnings
from tapegrad._tensor import Tensor

from ..modules.lazy import UninitializedParameter
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_ModuleT = TypeVar("_ModuleT", bound=Module)


def _norm_except_dim(v, p, dim):
    """torch.norm_except_dim: the p-norm over every dim but dim, kept as size-1 dims;
    over everything (a 0-d result) when dim is -1."""
    if dim == -1:
        return v.norm(p)
    last = v.dim() - 1
    if dim not in (0, last):
        return _norm_except_dim(v.transpose(0, dim), p, 0).transpose(0, dim)
    kept = [1] * v.dim()
    kept[dim] = v.size(dim)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(p, 1).view(kept)
    return v.contiguous().view(-1, v.size(dim)).norm(p, 0).view(kept)


def _weight_norm(v, g, dim):
    """torch._weight_norm: v scaled to norm g over every dim but dim.

    Differs from torch: torch records one WeightNormInterfaceBackward0 node when dim is the
    first or last dim; this composes ops (the same values and gradients)."""
    return v * (g / _norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes module.<name> from <name>_g and <name>_v."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        _warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                       "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: _ModuleT, name: str = "weight", dim: int | None = 0) -> _ModuleT:
    """Split module.<name> into a magnitude <name>_g and a direction <name>_v (deprecated in
    torch for nn.utils.parametrizations.weight_norm, with its FutureWarning)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: _ModuleT, name: str = "weight") -> _ModuleT:
    """Make module.<name> a plain parameter again, with its current value."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
