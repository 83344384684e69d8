"""Moving tensors between tapegrad, NumPy, DLPack consumers and PyTorch.

NumPy and DLPack share memory (no copy); from_torch and to_torch copy, so the two libraries'
tensors never change behind each other's autograd.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import tapegrad

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from ._tensor import Tensor

NO_GRAD_EXPORT = "Can't export tensors that require gradient, use tensor.detach()"
COPY_NEEDED = "Unable to avoid copy while creating an array as requested."


def tensor_array(tensor: Tensor, dtype: DTypeLike | None = None,
                 copy: bool | None = None) -> np.ndarray:
    """Tensor.__array__ by NumPy 2's protocol: copy=True always copies, copy=False never does."""
    array = tensor.numpy()  # refuses a tensor that requires grad, as torch does
    if dtype is not None and np.dtype(dtype) != array.dtype:
        if copy is False:
            raise ValueError(COPY_NEEDED)
        return array.astype(dtype)
    return array.copy() if copy else array


def tensor_dlpack(tensor: Tensor, stream: Any = None, max_version: tuple[int, int] | None = None,
                  dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """Tensor.__dlpack__: a DLPack capsule over the tensor's memory (through NumPy's)."""
    if tensor.requires_grad:
        raise BufferError(NO_GRAD_EXPORT)
    # NumPy before 2.0 knows only `stream`: pass the newer arguments only when they are set.
    options: dict[str, Any] = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    options = {name: value for name, value in options.items() if value is not None}
    return tensor.numpy().__dlpack__(stream=stream, **options)


def tensor_dlpack_device(tensor: Tensor) -> tuple[int, int]:
    """Tensor.__dlpack_device__: (kDLCPU, 0), the only device tapegrad has."""
    return tensor.detach().numpy().__dlpack_device__()


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing memory with any object that exports DLPack (NumPy, torch, JAX...)."""
    return tapegrad.from_numpy(np.from_dlpack(ext_tensor))


def _import_torch(caller: str) -> Any:
    try:
        import torch
    except ImportError as error:
        raise ImportError(f"{caller} needs PyTorch installed: pip install torch") from error
    return torch


def from_torch(tensor: Any) -> Tensor:  # a torch.Tensor: torch is optional, hence Any
    """A tapegrad copy of a torch tensor: same values, shape, dtype and requires_grad.

    A torch.nn.Parameter becomes a tapegrad.nn.Parameter. The copy is contiguous.
    """
    torch = _import_torch("tapegrad.from_torch")
    if tensor.dtype == torch.bfloat16:
        raise TypeError("tapegrad has no bfloat16 dtype: convert the tensor with .float() "
                        "before tapegrad.from_torch")
    array = tensor.detach().cpu().resolve_conj().resolve_neg().numpy().copy()
    result = tapegrad.from_numpy(array)
    if isinstance(tensor, torch.nn.Parameter):
        return tapegrad.nn.Parameter(result, tensor.requires_grad)
    return result.requires_grad_(tensor.requires_grad)


def to_torch(tensor: Tensor) -> Any:
    """Tensor.to_torch: a torch copy of a tapegrad tensor, keeping dtype and requires_grad.

    A tapegrad.nn.Parameter becomes a torch.nn.Parameter.
    """
    torch = _import_torch("Tensor.to_torch")
    result = torch.from_numpy(tensor.detach().numpy().copy())
    if isinstance(tensor, tapegrad.nn.Parameter):
        return torch.nn.Parameter(result, tensor.requires_grad)
    return result.requires_grad_(tensor.requires_grad)
