"""tapegrad.nn.utils.spectral_norm: torch's hook form of spectral normalization (weight_orig,
the power-iteration vectors weight_u and weight_v, weight recomputed by a forward pre-hook)."""
from __future__ import annotations

from typing import Any, TypeVar

import tapegrad
from tapegrad._tensor import Tensor

from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.lazy import UninitializedParameter
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]

_ModuleT = TypeVar("_ModuleT", bound=Module)


def _output_dim(module: Module, dim: int | None) -> int:
    """The default dim of spectral_norm: the output channels (dim 1 of a transposed conv)."""
    if dim is not None:
        return dim
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre-hook that sets module.<name> = <name>_orig / sigma."""

    _version = 1  # state_dicts before version 1 stored the weight instead of weight_v

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with tapegrad.no_grad():
                # u and v are updated in place (they are the module's buffers), then cloned so
                # that the next in-place update cannot touch what backward saved
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(tapegrad.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(tapegrad.mv(weight_mat, v), dim=0, eps=self.eps))
                u = u.clone(memory_format=tapegrad.contiguous_format)
                v = v.clone(memory_format=tapegrad.contiguous_format)
        sigma = tapegrad.dot(u, tapegrad.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with tapegrad.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor,
                             target_sigma: Tensor) -> Tensor:
        # v with u = W v / |W v| as closely as possible, scaled to u^T W v = target_sigma
        v = tapegrad.linalg.multi_dot([weight_mat.t().mm(weight_mat).pinverse(),
                                       weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / tapegrad.dot(u, tapegrad.mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization")
        with tapegrad.no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).size()
            # random starting vectors, drawn as torch draws them (u first)
            u = F.normalize(weight.new_empty(height).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(width).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward: module.weight is not in state_dict
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Reads the state_dicts of version 0 (weight and weight_u, no weight_v)."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any],
                 strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                 error_msgs: list[str]) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and weight_key not in state_dict
                and all(weight_key + suffix in state_dict for suffix in ("_orig", "_u", "_v"))):
            return  # a current state_dict saved without metadata
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            if weight_key + suffix not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(weight_key + suffix)
        if has_missing_keys:
            return
        with tapegrad.no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records the format version in the state_dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: dict[str, Any], prefix: str,
                 local_metadata: dict[str, Any]) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module: _ModuleT, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> _ModuleT:
    """Divide module.<name> by its largest singular value, estimated by power iteration
    before every forward (one more step each call in training mode)."""
    SpectralNorm.apply(module, name, n_power_iterations, _output_dim(module, dim), eps)
    return module


def remove_spectral_norm(module: _ModuleT, name: str = "weight") -> _ModuleT:
    """Make module.<name> a plain parameter again, with its current value."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[key]
            break
    # The load pre-hook stays: torch looks for it by type too, but Module stores it wrapped
    # (_WrappedHook), so torch never finds it and a later load_state_dict asks for weight_orig
    # and weight_u
    return module
