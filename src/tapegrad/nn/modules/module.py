"""Module: the base class of every layer, with torch's registration, traversal and state rules."""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar, overload

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor, parse_to_arguments
from tapegrad.autograd.graph import RemovableHandle

from .. import _backward_hook
from ..common_types import DeviceLikeType
from ..parameter import Buffer, Parameter

__all__ = ["Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
T = TypeVar("T", bound="Module")


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; prints as torch's when every key matched."""

    __slots__ = ()

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _ModuleHookHandle(RemovableHandle):
    """A hook handle that also forgets the hook's flags (with_kwargs) on remove()."""

    def __init__(self, hooks: dict[int, Callable[..., Any]], hook: Callable[..., Any],
                 flag_dicts: tuple[dict[int, bool], ...] = ()) -> None:
        super().__init__(hooks, hook)
        self._flag_dicts = flag_dicts

    def remove(self) -> None:
        super().remove()
        for flags in self._flag_dicts:
            flags.pop(self.id, None)


class _WrappedHook:
    """A load_state_dict pre-hook as torch stores it: wrapped, holding its module weakly.

    The wrapper is visible: torch's remove_spectral_norm looks for its hook by type among the
    stored ones and so never finds this one; the hook stays, as in torch."""

    def __init__(self, hook: Callable[..., Any], module: Module | None = None) -> None:
        self.hook = hook
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args: Any) -> Any:
        if self.module is None:
            return self.hook(*args)
        return self.hook(self.module(), *args)

    def __getstate__(self) -> dict[str, Any]:  # a weakref does not deepcopy: keep the module
        return {"hook": self.hook, "module": None if self.module is None else self.module()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.hook = state["hook"]
        self.module = None if state["module"] is None else weakref.ref(state["module"])


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (blank lines stay empty, as torch's Module prints)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])


def typename(obj: Any) -> str:
    """torch.typename: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, tapegrad.Tensor):
        return f"torch.{obj.dtype.legacy_name}Tensor"
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("", "builtins") else f"{module}.{cls.__qualname__}"


def _forward_unimplemented(self: Module, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class of all neural-network modules: subclass it and define forward()."""

    training: bool
    # Set in __init__ with object.__setattr__ (they exist before its routing rules can run)
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: OrderedDict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: OrderedDict[int, bool]
    _forward_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _forward_pre_hooks_with_kwargs: OrderedDict[int, bool]
    _backward_hooks: OrderedDict[int, Callable[..., Any]]
    _backward_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]]
    _state_dict_hooks: OrderedDict[int, Callable[..., Any]]
    _load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _version: int = 1
    # forward is Callable[..., Any] as in torch, so that subclasses may give it any signature
    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # object.__setattr__: these exist before __setattr__'s registration rules can run
        state = {"training": True, "_parameters": {}, "_buffers": {},
                 "_non_persistent_buffers_set": set(), "_modules": {}}
        for name in ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_pre_hooks",
                     "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks",
                     "_load_state_dict_post_hooks", "_state_dict_hooks",
                     "_load_state_dict_pre_hooks"):
            state[name] = OrderedDict()
        for name, value in state.items():
            object.__setattr__(self, name, value)

    # ---- registration ---------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state saved in state_dict (unless not persistent) but not trained."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_member_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, tapegrad.Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (a Parameter or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_member_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        self._parameters[name] = param

    def _check_member_name(self, name: str, kind: str, members: Mapping[str, Any]) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in members:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name` (None keeps the slot empty)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path `target` ('' is self)."""
        module: Any = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The Parameter at the dotted path `target`."""
        return self._get_member(target, lambda module, name: isinstance(
            getattr(module, name), Parameter), "is not an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path `target`."""
        return self._get_member(target, lambda module, name: name in module._buffers,
                                "is not a buffer")

    def _get_member(self, target: str, is_kind: Callable[[Module, str], bool],
                    not_kind: str) -> Any:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if not is_kind(module, name):
            raise AttributeError(f"`{name}` {not_kind}")
        return getattr(module, name)

    def get_extra_state(self) -> Any:
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    # ---- attribute protocol -----------------------------------------------------------------
    def __getattr__(self, name: str) -> Tensor | Module:
        # Only reached when normal lookup fails: parameters, buffers and submodules live in
        # their own dicts so that assignment can route them.
        members = self.__dict__
        for kind in ("_parameters", "_buffers", "_modules"):
            if kind in members and name in members[kind]:
                return members[kind][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, self.__dict__, buffers, modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, self.__dict__, params, buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, tapegrad.Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = (value.persistent if isinstance(value, Buffer)
                          else name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _forget(name: str, *containers: Any) -> None:
        for container in containers:
            if isinstance(container, dict):
                container.pop(name, None)
            else:
                container.discard(name)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    # ---- traversal --------------------------------------------------------------------------
    def _named_members(self, get_members: Callable[[Module], Any], prefix: str = "",
                       recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        seen = set()
        modules: Iterator[tuple[str, Module]] | list[tuple[str, Module]] = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or value in seen:
                    continue
                if remove_duplicate:
                    seen.add(value)
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members(lambda module: module._parameters.items(), prefix,
                                       recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda module: module._buffers.items(), prefix,
                                       recurse, remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """Every module in the tree, depth first, with its dotted name (each once by default)."""
        memo = set() if memo is None else memo
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                                remove_duplicate)

    # ---- modes and gradients ----------------------------------------------------------------
    def train(self: T, mode: bool = True) -> T:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: T) -> T:
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if param.grad.grad_fn is not None:
                    param.grad.detach_()
                else:
                    param.grad.requires_grad_(False)
                param.grad.zero_()

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Call fn on every submodule (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversions ------------------------------------------------------------------------
    def _apply(self: T, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> T:
        """Replace each parameter's and buffer's data by fn(tensor), in place."""
        # Parameters stay the same objects (torch's `param.data = ...` path), so an optimizer
        # built before .double() still updates the module's parameters.
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with tapegrad.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self

    @overload
    def to(self: T, device: DeviceLikeType | None = ..., dtype: _dtype | None = ...,
           non_blocking: bool = ...) -> T: ...

    @overload
    def to(self: T, dtype: _dtype, non_blocking: bool = ...) -> T: ...

    @overload
    def to(self: T, tensor: Tensor, non_blocking: bool = ...) -> T: ...

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """Move parameters and buffers to a device and/or cast the floating-point ones to a
        dtype; Tensor.to's arguments except copy."""
        device, dtype, non_blocking, copy, memory_format = parse_to_arguments(args, kwargs)
        if copy:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            # torch applies a memory format only to 4-d and 5-d tensors
            layout = memory_format if memory_format is not None and t.dim() in (4, 5) else None
            return t.to(device, dtype if _is_float_like(t) else None, non_blocking,
                        memory_format=layout)
        return self._apply(convert)

    def type(self: T, dst_type: _dtype | str) -> T:
        return self._apply(lambda t: t.type(dst_type))

    def float(self: T) -> T:
        return self._apply(lambda t: t.float() if _is_float_like(t) else t)

    def double(self: T) -> T:
        return self._apply(lambda t: t.double() if _is_float_like(t) else t)

    def half(self: T) -> T:
        return self._apply(lambda t: t.half() if _is_float_like(t) else t)

    def cpu(self: T) -> T:
        return self._apply(lambda t: t.cpu())

    def to_empty(self: T, *, device: DeviceLikeType | None, recurse: bool = True) -> T:
        """Parameters and buffers replaced by uninitialised tensors on device."""
        return self._apply(lambda t: tapegrad.empty_like(t, device=device), recurse=recurse)

    def cuda(self: T, device: DeviceLikeType | None = None) -> T:
        return self._apply(lambda t: t.cuda(device))

    # ---- state dict ------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        """Write this module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """An OrderedDict of every parameter and persistent buffer, keyed by dotted name."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]  # torch's too
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            replaced = hook(self, destination, prefix, local_metadata)
            if replaced is not None:
                destination = replaced
        return destination

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str,
                              local_metadata: dict[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        """Copy this module's own entries from state_dict, recording what is off."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {name: value for name, value in itertools.chain(
            self._parameters.items(),
            ((k, v) for k, v in self._buffers.items()
             if k not in self._non_persistent_buffers_set)) if value is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                error = self._load_entry(name, param, key, state_dict[key], assign)
                if error:
                    error_msgs.append(error)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, *rest = key[len(prefix):].split(".", 1)
                    if head not in (self._modules if rest else local_state):
                        unexpected_keys.append(key)

    def _load_entry(self, name: str, param: Tensor, key: str, value: Any,
                    assign: bool) -> str | None:
        """Copy (or assign) one checkpoint value; returns torch's error text or None."""
        if not isinstance(value, tapegrad.Tensor):
            return (f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}")
        if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
            value = value[0]  # torch accepts a 1-element checkpoint entry for a 0-d one
        if value.shape != param.shape:
            return (f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}.")
        try:
            with tapegrad.no_grad():
                if not assign:
                    param.copy_(value)
                elif isinstance(param, Parameter):
                    setattr(self, name, value if isinstance(value, Parameter)
                            else Parameter(value, param.requires_grad))
                else:
                    setattr(self, name, value)
        except Exception as error:  # torch reports any copy failure as a load error
            return (f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{value.size()}, an exception occurred : {error.args}.")
        return None

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from state_dict; returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)

        def load(module: Module, local_state: dict[str, Any], prefix: str = "") -> None:
            local_metadata = dict({} if metadata is None else metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, _IncompatibleKeys(missing_keys, unexpected_keys))

        load(self, OrderedDict(state_dict))
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call hook(module, state_dict, prefix, local_metadata) after state_dict is filled;
        a returned dict replaces it."""
        return RemovableHandle(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                           with_module: bool = False) -> RemovableHandle:
        """Call hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) before this module's entries are loaded (the module first if with_module)."""
        return RemovableHandle(self._load_state_dict_pre_hooks,
                               _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call hook(module, state_dict, prefix, ...) before this module's entries are loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call hook(module, incompatible_keys) after this module's entries are loaded."""
        return RemovableHandle(self._load_state_dict_post_hooks, hook)

    # ---- hooks and calling ---------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call hook(module, args) (or (module, args, kwargs)) before forward."""
        return self._add_hook(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs,
                              hook, prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """Call hook(module, args, output) after forward; a returned value replaces output."""
        return self._add_hook(self._forward_hooks, self._forward_hooks_with_kwargs, hook,
                              prepend, with_kwargs)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """Call hook(module, grad_output) when the gradients of the outputs are ready."""
        return self._add_hook(self._backward_pre_hooks, {}, hook, prepend, False)

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Call hook(module, grad_input, grad_output) once the input gradients are known."""
        return self._add_hook(self._backward_hooks, {}, hook, prepend, False)

    @staticmethod
    def _add_hook(hooks: OrderedDict[int, Callable[..., Any]], kwargs_flags: dict[int, bool],
                  hook: Callable[..., Any], prepend: bool,
                  with_kwargs: bool) -> RemovableHandle:
        handle = _ModuleHookHandle(hooks, hook, (kwargs_flags,))
        if with_kwargs:
            kwargs_flags[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                replaced = hook(self, args, kwargs)
                if replaced is not None:
                    if not (isinstance(replaced, tuple) and len(replaced) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {replaced}.")
                    args, kwargs = replaced
            else:
                replaced = hook(self, args)
                if replaced is not None:
                    args = replaced if isinstance(replaced, tuple) else (replaced,)
        backward_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hook = _backward_hook.BackwardHook(
                self, list(self._backward_hooks.values()),
                list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                replaced = hook(self, args, kwargs, result)
            else:
                replaced = hook(self, args, result)
            if replaced is not None:
                result = replaced
        if backward_hook is not None:
            result = backward_hook.setup_output_hook(result)
        return result

    # ---- printing -------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, printed inside its parentheses (override it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(module), 2)}"
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _is_float_like(tensor: Tensor) -> bool:
    return tensor.is_floating_point() or tensor.dtype.is_complex
