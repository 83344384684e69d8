"""skip_init, as torch.nn.utils's: a module built without initialising its parameters."""
from __future__ import annotations

import inspect
from typing import Any, TypeVar

from ... import _random
from ..modules.module import Module

_ModuleT = TypeVar("_ModuleT", bound=Module)

__all__ = ["skip_init"]


def skip_init(module_cls: type[_ModuleT], *args: Any, **kwargs: Any) -> _ModuleT:
    """module_cls(*args, **kwargs) with uninitialised parameters and buffers. torch builds it
    on the meta device; here it is built as usual, then its tensors are emptied and the
    random generator set back, so nothing of the initialisation remains."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    return module.to_empty(device=device)
