"""tapegrad.nn.utils.parametrize: a parameter or buffer computed from others on every access.

As torch's: the module's class becomes a `Parametrized<Name>` subclass holding one property per
parametrized tensor, and the unconstrained tensors live in module.parametrizations[name]
(`original`, or `original0`, `original1`, ... when right_inverse returns a sequence)."""
from __future__ import annotations

import collections.abc
import copy
import copyreg
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import tapegrad
from tapegrad._tensor import Tensor

from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_depth = 0  # nesting of cached() blocks
# (id(module), tensor name) -> the value computed inside the outermost block
_cache: dict[tuple[int, str], Tensor] = {}
_ModuleT = TypeVar("_ModuleT", bound=Module)


@contextmanager
def cached() -> Iterator[None]:
    """Compute each parametrized tensor once inside the block and reuse it."""
    global _cache, _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _parametrizations_of(module: Module) -> Any:
    """A parametrized module's ModuleDict of ParametrizationLists (set at run time, so Any
    to type checkers)."""
    return module.parametrizations


def _register_parameter_or_buffer(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _set_keeping_identity(dest, src):
    # torch's dest.set_(src): dest takes src's data but stays the same object, so an optimizer
    # that holds it keeps working
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and the original tensor(s) they start from."""

    original: Tensor  # or original0, original1... when right_inverse gives a sequence
    unsafe: bool
    is_tensor: bool
    ntensors: int

    def __init__(self, modules: Sequence[Module], original: Tensor,
                 unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with tapegrad.no_grad():
            new = original
            module: Any  # a parametrization, which may define right_inverse
            for module in reversed(self):
                # no right_inverse (or one that raises NotImplementedError) is the identity
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}")
            with tapegrad.no_grad():
                _set_keeping_identity(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, tensor in enumerate(new):
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(tensor).__name__}.")
                # new parameters: the user adds them to an optimizer made before (as torch)
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor, original.requires_grad)
                tensor.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", tensor)
        if not self.unsafe:
            self._check_forward(original_shape, original_dtype)

    def _check_forward(self, original_shape, original_dtype):
        # forward(right_inverse(original)) must look like original
        result = self()
        if not isinstance(result, Tensor):
            raise ValueError(
                f"A parametrization must return a tensor. Got {type(result).__name__}.")
        if result.dtype != original_dtype:
            raise ValueError(
                "Registering a parametrization may not change the dtype of the tensor, unless "
                "`unsafe` flag is enabled.\n"
                f"unparametrized dtype: {original_dtype}\n"
                f"parametrized dtype: {result.dtype}")
        if result.shape != original_shape:
            raise ValueError(
                "Registering a parametrization may not change the shape of the tensor, unless "
                "`unsafe` flag is enabled.\n"
                f"unparametrized shape: {original_shape}\n"
                f"parametrized shape: {result.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store right_inverse(value) of every parametrization, last first, in the originals."""
        with tapegrad.no_grad():
            module: Any  # a parametrization, which must define right_inverse here
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_keeping_identity(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. "
                                 f"Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     "reference-type opaques. Got element "
                                     f"{i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original_i.dtype}")
                _set_keeping_identity(original_i, tensor)

    def forward(self) -> Tensor:
        if self.is_tensor:
            result = self[0](self.original)
        else:
            result = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            result = module(result)
        return result


def _deepcopy_parametrized(self, memo):
    # deepcopy as if the class had no __deepcopy__: its __getstate__ refuses pickling
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(type(self)):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module):
    """Give module a class of its own (a subclass of its class) to hold the properties."""
    cls = type(module)
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_parametrized
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """module.<tensor_name> reads the parametrization and assigning to it sets its originals."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: _ModuleT, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> _ModuleT:
    """Make module.<tensor_name> the output of parametrization on the original tensor(s);
    a second registration on the same tensor chains after the first."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        chain = _parametrizations_of(module)[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe  # unsafe once, unsafe for good
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built before anything changes, so that its checks leave module untouched
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        _parametrizations_of(module)[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_chained(module, tensor_name, parametrization):
    """A parametrization added to a parametrized tensor must keep its dtype and shape."""
    current = getattr(module, tensor_name)
    result = parametrization(current)
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    _check_like(current, result, tensor_name,
                "Registering a parametrization may not change the {} of the tensor, unless the "
                "`unsafe` flag is enabled.\n", f"parametrization(module.{tensor_name}).{{}}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(inverse).__name__}")
    _check_like(current, inverse, tensor_name,
                "The tensor returned by parametrization.right_inverse must have the same {} "
                f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n", "returned {}")


def _check_like(current, other, tensor_name, message, other_label):
    for what in ("dtype", "shape"):
        if getattr(other, what) != getattr(current, what):
            raise ValueError(message.format(what)
                             + f"module.{tensor_name}.{what}: {getattr(current, what)}\n"
                             + f"{other_label.format(what)}: {getattr(other, what)}")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether module has a parametrization (on tensor_name, or on anything when None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: _ModuleT, tensor_name: str,
                            leave_parametrized: bool = True) -> _ModuleT:
    """Undo the parametrizations of tensor_name, keeping its current value
    (leave_parametrized) or its single original tensor."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = _parametrizations_of(module)[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with tapegrad.no_grad():
                _set_keeping_identity(original, getattr(module, tensor_name))
    elif leave_parametrized:
        # the value decides whether it becomes a parameter (one of the originals required grad)
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del _parametrizations_of(module)[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type[Module]:
    """The module's class as it was before any parametrization was registered."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: _ModuleT,
                                         tensor_name: str | None = None) -> _ModuleT:
    """Register from_module's parametrizations (of tensor_name, or all) on to_module and give
    to_module the same original tensors; missing tensors are created first."""
    if not is_parametrized(from_module):
        return to_module
    names = list(_parametrizations_of(from_module)) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = _parametrizations_of(from_module)[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = _parametrizations_of(to_module)[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            index = 0
            while hasattr(source, f"original{index}"):
                setattr(target, f"original{index}", getattr(source, f"original{index}"))
                index += 1
    return to_module
