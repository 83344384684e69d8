"""Parameter and Buffer: the Tensor kinds that a Module registers when they are assigned."""
from __future__ import annotations

from typing import Any, TypeVar

import tapegrad
# tapegrad/__init__ imports nn before it binds tapegrad.Tensor, and a subclass needs its base
# at class creation, so the class comes from its defining module.
from tapegrad._tensor import Tensor

__all__ = ["Buffer", "Parameter"]

_ParameterT = TypeVar("_ParameterT", bound="Parameter")


class Parameter(Tensor):
    """A Tensor that a Module lists among its parameters when assigned as an attribute."""

    def __new__(cls: type[_ParameterT], data: Tensor | None = None,
                requires_grad: bool = True) -> _ParameterT:
        if data is None:
            data = tapegrad.empty(0)
        # Shares data's storage and version counter, as torch's Parameter does.
        return Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    # torch's Buffer returns a plain Tensor flagged as a buffer; isinstance looks at the flag.
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a Tensor as a buffer, so that assigning it to a Module registers it."""

    persistent: bool
    _is_buffer: bool

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = tapegrad.empty(0)
        # a plain Tensor, which the flag makes a Buffer to isinstance
        tensor: Buffer = data.detach()  # type: ignore[assignment]
        tensor.requires_grad_(data.requires_grad)
        tensor.persistent = persistent
        tensor._is_buffer = True
        return tensor
