"""nn.utils.stateless: the deprecated home of functional_call (now tapegrad.func's)."""
from __future__ import annotations

from typing import Any

from ... import func
from ..._tensor import Tensor
from ..._warnings import warn
from ..modules.module import Module

__all__ = ["functional_call"]


def functional_call(module: Module,
                    parameters_and_buffers: dict[str, Tensor] | tuple[dict[str, Tensor], ...],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """tapegrad.func.functional_call, with torch's deprecation warning."""
    warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
         "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
         "instead which is a drop-in replacement.", FutureWarning)
    return func.functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)
