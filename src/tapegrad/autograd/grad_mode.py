"""Thread-local grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode."""
from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import Self

# A decorated function keeps its own signature: `@no_grad()` returns the same type it gets.
F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    grad_mode = True  # what is_grad_enabled() reports
    inference = False  # inside inference_mode: nothing records, whatever the grad mode
    recording = True  # ops record graph nodes: grad mode on and not in inference mode
    raw = False  # a derivative formula runs on arrays (ops/_define.py, Note [Formulas on arrays])


_state = _State()


def _set(grad_mode: bool, inference: bool) -> None:
    _state.grad_mode, _state.inference = grad_mode, inference
    _state.recording = grad_mode and not inference


def is_grad_enabled() -> bool:
    return _state.grad_mode


def is_recording() -> bool:
    """Whether ops record the graph now (is_grad_enabled() can be True in inference mode)."""
    return _state.recording


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _GradModeContext:
    """Base for the mode classes: sets a mode on enter, restores the previous one on exit,
    and doubles as a decorator."""

    enabled: bool
    prev: tuple[bool, bool]

    @overload
    def __new__(cls) -> Self: ...

    @overload
    def __new__(cls, func: F, /) -> F: ...  # type: ignore[misc]  # bare @no_grad: the function

    def __new__(cls, *args: Any) -> Any:
        # `@no_grad` without parentheses decorates directly, as torch allows.
        self = super().__new__(cls)
        if len(args) == 1 and callable(args[0]) and cls is not set_grad_enabled:
            return self(args[0])
        return self

    def __enter__(self) -> None:
        self.prev = (_state.grad_mode, _state.inference)
        _set(self.enabled, _state.inference)

    def __exit__(self, *exc_info: object) -> None:
        _set(*self.prev)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__(*self._args()):
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]  # wraps keeps func's signature

    def _args(self) -> tuple[bool, ...]:
        return ()


class no_grad(_GradModeContext):
    enabled = False


class enable_grad(_GradModeContext):
    enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets the mode at construction, like torch, so it also works as a plain function call."""

    if TYPE_CHECKING:
        def __new__(cls, mode: bool) -> Self: ...

    def __init__(self, mode: bool) -> None:
        self.prev = (_state.grad_mode, _state.inference)
        self.enabled = bool(mode)
        _set(self.enabled, _state.inference)

    def __enter__(self) -> None:
        pass

    def _args(self) -> tuple[bool, ...]:
        return (self.enabled,)

    def __call__(self, func: F) -> F:
        _set(*self.prev)
        return super().__call__(func)


class inference_mode(_GradModeContext):
    """no_grad that also marks every tensor made inside as an inference tensor, which
    autograd refuses to save later; inference_mode(False) changes nothing, as in torch."""

    mode: bool

    @overload
    def __new__(cls, mode: bool = True) -> Self: ...

    @overload
    def __new__(cls, mode: F, /) -> F: ...  # type: ignore[misc]  # bare @inference_mode

    def __new__(cls, mode: Any = True) -> Any:
        self = object.__new__(cls)
        self.mode = True if callable(mode) else bool(mode)
        return self(mode) if callable(mode) else self

    def __enter__(self) -> None:
        self.prev = (_state.grad_mode, _state.inference)
        if self.mode:
            _set(False, True)

    def _args(self) -> tuple[bool, ...]:
        return (self.mode,)
