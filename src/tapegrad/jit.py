"""torch.jit's names for code that runs eagerly anyway.

tapegrad has no TorchScript compiler. As with tapegrad.compile, `script` and `trace` return
what they are given: a scripted function or module computes what the Python one does, so a
program that scripts its helpers runs unchanged, only without torch's graph capture (and
without its refusals of Python that TorchScript cannot compile). What needs a compiled
program (jit.save, jit.load) raises NotImplementedError instead of pretending.
"""
from __future__ import annotations

import builtins
import contextlib
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any, Final, TypeVar

from .nn.modules.module import Module

__all__ = ["Attribute", "Error", "Final", "Future", "ScriptFunction", "ScriptModule",
           "ScriptWarning", "TracerWarning", "TracingCheckError", "annotate",
           "enable_onednn_fusion", "export", "fork", "freeze", "fuser", "ignore", "interface",
           "is_scripting", "is_tracing", "isinstance", "load", "onednn_fusion_enabled",
           "optimize_for_inference", "optimized_execution", "save", "script",
           "script_if_tracing", "script_method", "set_fusion_strategy", "strict_fusion",
           "trace", "trace_module", "unused", "wait"]

T = TypeVar("T")


class ScriptModule(Module):
    """torch's compiled module type; tapegrad makes none, so isinstance checks say False."""


class ScriptFunction:
    """torch's compiled function type; tapegrad makes none."""


class Error(RuntimeError):
    """torch.jit.Error (an error raised inside a TorchScript program)."""


class TracerWarning(Warning):
    pass


class ScriptWarning(Warning):
    pass


class TracingCheckError(Exception):
    pass


def script(obj: T, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> T:
    """obj itself: its Python code is what runs (see the module's docstring)."""
    return obj


def trace(func: T, example_inputs: Any = None, *args: Any, **kwargs: Any) -> T:
    """func itself: calling it computes what a traced copy would for the traced inputs."""
    return func


def trace_module(mod: T, inputs: Any = None, *args: Any, **kwargs: Any) -> T:
    return mod


def script_if_tracing(fn: T) -> T:
    return fn


def script_method(fn: T) -> T:
    return fn


def freeze(mod: T, preserved_attrs: Any = None, optimize_numerics: bool = True) -> T:
    return mod


def optimize_for_inference(mod: T, other_methods: Any = None) -> T:
    return mod


def is_scripting() -> bool:
    """False: code always runs as Python here."""
    return False


def is_tracing() -> bool:
    return False


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """The decorator, used bare (@ignore) or with arguments (@ignore(drop=True)): the function
    is left as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: T) -> T:
    return fn


def export(fn: T) -> T:
    return fn


def interface(obj: T) -> T:
    return obj


def annotate(the_type: Any, the_value: T) -> T:
    """the_value: the type is for TorchScript's compiler."""
    return the_value


def Attribute(value: T, type: Any) -> T:  # noqa: N802  (torch's name)
    return value


def isinstance(obj: Any, target_type: Any) -> builtins.bool:
    """Whether obj is of target_type, a class or a typing form (List[int], Dict[str, Tensor],
    Tuple[int, str], Optional[T], Union[...]), elements included, as torch's eager check.
    A bare list/dict/tuple is refused as torch refuses it."""
    origin, arguments = typing.get_origin(target_type), typing.get_args(target_type)
    if origin is None:
        if target_type in (list, dict, tuple):
            raise RuntimeError(f"Attempted to use {target_type.__name__} without a contained "
                               f"type. Please add a contained type, e.g. "
                               f"{target_type.__name__}[int]")
        return builtins.isinstance(obj, target_type)
    if origin in (typing.Union, types.UnionType):
        return any(isinstance(obj, option) for option in arguments)
    if not builtins.isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(item, arguments[0]) for item in obj)
    if origin is dict:
        return all(isinstance(key, arguments[0]) and isinstance(value, arguments[1])
                   for key, value in obj.items())
    if origin is tuple:
        return len(obj) == len(arguments) and all(map(isinstance, obj, arguments))
    return True


class Future:
    """The result of fork: here the call has already run, so wait() has the value at once."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        return self._value

    def value(self) -> Any:
        return self._value

    def done(self) -> builtins.bool:
        return True


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """func(*args, **kwargs), run now (TorchScript's fork may run it in parallel; eager torch
    runs it at once too)."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    return future.wait()


_fusion = {"onednn": False, "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}


def enable_onednn_fusion(enabled: builtins.bool) -> None:
    _fusion["onednn"] = enabled


def onednn_fusion_enabled() -> builtins.bool:
    return _fusion["onednn"]


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The strategy in force before (TorchScript's fuser reads it; nothing here does)."""
    previous, _fusion["strategy"] = _fusion["strategy"], strategy
    return previous


@contextlib.contextmanager
def optimized_execution(should_optimize: builtins.bool) -> Iterator[None]:
    yield


@contextlib.contextmanager
def fuser(name: str) -> Iterator[None]:
    yield


class strict_fusion:  # noqa: N801  (torch's name)
    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        pass


def _no_compiled_programs(name: str) -> NotImplementedError:
    return NotImplementedError(f"torch.jit.{name} reads and writes compiled TorchScript "
                               "programs, which tapegrad does not make (torch.jit.script "
                               "returns the Python function or module): save the model's "
                               "state_dict with tapegrad.save instead")


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    raise _no_compiled_programs("save")


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> Any:
    raise _no_compiled_programs("load")
