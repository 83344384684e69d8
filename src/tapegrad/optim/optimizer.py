"""Optimizer: parameter groups, per-parameter state and their state_dict, as torch.optim has them.

Subclasses implement `_update_param(param, group)`, which the shared `step` calls under
`no_grad` for every parameter that has a gradient. The argument checks and the small update
helpers that several optimizers share live here too.
"""
import copy
import functools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, cast, overload

import tapegrad
from .._tensor import Tensor
from ..autograd.graph import RemovableHandle
from .._warnings import warn

__all__ = ["Optimizer", "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook",
           "required"]

# What an optimizer takes as params: tensors, parameter groups (dicts holding "params"), or
# (name, tensor) pairs, as torch's ParamsT.
ParamsT: TypeAlias = (Iterable[Tensor] | Iterable[dict[str, Any]]
                      | Iterable[tuple[str, Tensor]])
Args: TypeAlias = tuple[Any, ...]
Kwargs: TypeAlias = dict[str, Any]
StateDict: TypeAlias = dict[str, Any]
OptimizerPreHook: TypeAlias = Callable[["Optimizer", Args, Kwargs], tuple[Args, Kwargs] | None]
OptimizerPostHook: TypeAlias = Callable[["Optimizer", Args, Kwargs], None]
StateDictHook: TypeAlias = Callable[["Optimizer", StateDict], StateDict | None]
OptimizerHook: TypeAlias = Callable[["Optimizer"], None]

# hooks run around every optimizer's step, before and after the optimizer's own
_global_step_pre_hooks: OrderedDict[int, OptimizerPreHook] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, OptimizerPostHook] = OrderedDict()
_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def register_optimizer_step_pre_hook(hook: OptimizerPreHook) -> RemovableHandle:
    """hook(optimizer, args, kwargs) before every optimizer's step; it may return new
    (args, kwargs)."""
    return RemovableHandle(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: OptimizerPostHook) -> RemovableHandle:
    """hook(optimizer, args, kwargs) after every optimizer's step."""
    return RemovableHandle(_global_step_post_hooks, hook)


def _with_step_hooks(step):
    """step, with the global and the optimizer's own pre- and post-hooks around it."""
    @functools.wraps(step)
    def hooked_step(self, *args, **kwargs):
        args = (self, *args)
        for hook in (*_global_step_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in (*self._optimizer_step_post_hooks.values(),
                     *_global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    hooked_step.hooked = True
    return hooked_step


def _registered(hooks, hook, prepend):
    handle = RemovableHandle(hooks, hook)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class _RequiredParameter:
    """Marks a default that every parameter group must set itself."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers: holds param_groups and per-parameter state."""

    defaults: dict[str, Any]
    state: defaultdict[Tensor, dict[str, Any]]
    param_groups: list[dict[str, Any]]
    _optimizer_step_pre_hooks: OrderedDict[int, OptimizerPreHook]
    _optimizer_step_post_hooks: OrderedDict[int, OptimizerPostHook]
    _optimizer_state_dict_pre_hooks: OrderedDict[int, OptimizerHook]
    _optimizer_state_dict_post_hooks: OrderedDict[int, StateDictHook]
    _optimizer_load_state_dict_pre_hooks: OrderedDict[int, StateDictHook]
    _optimizer_load_state_dict_post_hooks: OrderedDict[int, OptimizerHook]

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        cls = type(self)
        if not getattr(cls.step, "hooked", False):  # once per class, as torch patches it
            setattr(cls, "step", _with_step_hooks(cls.step))
        if isinstance(params, tapegrad.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups: list[Any] = list(params)  # groups, or the params of one group
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        # A scheduler may have wrapped `step` on the instance; only these three are the state.
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in _HOOK_DICTS:  # an unpickled optimizer has no hooks
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def register_step_pre_hook(self, hook: OptimizerPreHook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) before each step; it may return new (args, kwargs)."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: OptimizerPostHook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) after each step."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: OptimizerHook,
                                     prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) before state_dict() builds the dict."""
        return _registered(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: StateDictHook,
                                      prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) after state_dict(); it may return a new dict."""
        return _registered(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: StateDictHook,
                                          prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) before loading; it may return the dict to load."""
        return _registered(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: OptimizerHook,
                                           prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) after loading."""
        return _registered(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for index, group in enumerate(self.param_groups):
            # Each group ends with a newline and the next starts with one: a blank line between.
            text += f"\nParameter Group {index}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                            if key != "params")
        return text + ")"

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradient of every parameter: to None, or to zeros in place."""
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                    continue
                if param.grad.grad_fn is not None:
                    param.grad.detach_()
                else:
                    param.grad.requires_grad_(False)
                param.grad.zero_()

    # torch's refusal of a sparse gradient; None where the optimizer takes them (or checks)
    sparse_refusal: str | None = "{} does not support sparse gradients"

    @overload
    def step(self, closure: None = None) -> None: ...

    @overload
    def step(self, closure: Callable[[], float]) -> float: ...

    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """Update every parameter that has a gradient; returns the closure's loss, if given."""
        loss = None
        if closure is not None:
            with tapegrad.enable_grad():
                loss = closure()
        with tapegrad.no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        if self.sparse_refusal and param.grad.is_sparse:
                            raise RuntimeError(self.sparse_refusal.format(type(self).__name__))
                        self._update_param(param, group)
        return loss

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters, with its own options, to the optimizer."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        _collect_params(param_group)
        for param in param_group["params"]:
            if not isinstance(param, tapegrad.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        _check_new_group(param_group, self.param_groups)
        self.param_groups.append(param_group)

    def state_dict(self) -> StateDict:
        """The optimizer's state, with parameters replaced by their index in group order."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        state_dict = self._packed_state()
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def _packed_state(self):
        index_of = {}
        packed_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            start = sum(len(g["params"]) for g in packed_groups)
            for index, param in enumerate(group["params"], start):
                index_of.setdefault(id(param), index)
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            packed_groups.append(packed)
        packed_state = {(index_of[id(key)] if isinstance(key, tapegrad.Tensor) else key): value
                        for key, value in self.state.items()}
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Restore state and group options saved by `state_dict` onto this optimizer's params."""
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        self._load_packed_state(state_dict)
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def _load_packed_state(self, state_dict):
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(group["params"]) != len(saved["params"])
               for group, saved in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        param_of = {index: param for group, saved in zip(self.param_groups, saved_groups)
                    for index, param in zip(saved["params"], group["params"])}
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                group = _group_holding(key, state_dict["param_groups"])
                state[param_of[key]] = _cast_state(param_of[key], value, group)
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _typename(value):
    """torch.typename: the qualified name of a value's type (a Tensor's legacy type name)."""
    if isinstance(value, tapegrad.Tensor):
        return f"torch.{value.dtype.legacy_name}Tensor"
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if qualname is None:
        module, qualname = type(value).__module__ or "", type(value).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _collect_params(param_group):
    """Turn the group's params into a list, splitting (name, tensor) pairs into param_names."""
    params = param_group["params"]
    if isinstance(params, tapegrad.Tensor):
        params = [params]
    elif isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                        "the ordering of tensors in sets will change between runs. Please use a "
                        "list instead.")
    params = list(params)
    names = [param[0] for param in params if isinstance(param, tuple)]
    param_group["params"] = [param[1] if isinstance(param, tuple) else param for param in params]
    if names and len(names) != len(params):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing")
    if names:
        param_group["param_names"] = names


def _check_new_group(param_group, existing_groups):
    """torch's checks of a new group against itself and the groups already added."""
    params = param_group["params"]
    if len({id(param) for param in params}) != len(params):
        warn("optimizer contains a parameter group with duplicate parameters; in "
             "future, this will cause an error; see github.com/pytorch/pytorch/issues/"
             "40967 for more information")
    seen = set()
    for group in existing_groups:
        seen.update(id(param) for param in group["params"])
        if ("param_names" in param_group) != ("param_names" in group):
            kind = "with names" if "param_names" in param_group else "without names"
            raise ValueError("all optimizer param groups should be with/without names. "
                             f"cannot add param group {kind} to the optimizer")
    if any(id(param) in seen for param in params):
        raise ValueError("some parameters appear in more than one parameter group")


def _group_holding(index, saved_groups):
    return next((group for group in saved_groups if index in group["params"]), {})


def _cast_state(param, value, group, key=None):
    """Match loaded state to its parameter: floating tensors take the parameter's dtype.

    `step` keeps its own dtype (float32 when fused or capturable), as torch does; a tensor
    that already has the right dtype is kept, not copied.
    """
    if isinstance(value, tapegrad.Tensor):
        if key == "step":
            fixed = group.get("fused", False) or group.get("capturable", False)
            return value.to(dtype=tapegrad.float32) if fixed else value
        return value.to(dtype=param.dtype) if param.is_floating_point() else value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, group, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, group) for v in value)
    return value


# Helpers shared by the optimizers in this package.

def check_nonnegative(label: str, value: float | Tensor) -> None:
    """torch's "Invalid <label>: <value>" check for options that must be >= 0."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label}: {value}")


def check_lr(lr: float | Tensor) -> None:
    if isinstance(lr, tapegrad.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_nonnegative("learning rate", lr)


def check_betas(betas: tuple[float | Tensor, ...]) -> None:
    for index, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def check_adam_options(lr: float | Tensor, betas: tuple[float | Tensor, ...], eps: float,
                       weight_decay: float) -> None:
    """The checks shared by the Adam family, in torch's order."""
    check_lr(lr)
    check_nonnegative("epsilon value", eps)
    check_betas(betas)
    check_nonnegative("weight_decay value", weight_decay)


def check_fused(fused: bool | None, foreach: bool | None, differentiable: bool) -> None:
    """fused kernels are accepted and ignored, but torch's conflicting-flag errors remain."""
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def new_step() -> Tensor:
    """A fresh `step` counter: a 0-d float tensor, float64 only when that is the default."""
    dtype = tapegrad.get_default_dtype()
    return tapegrad.tensor(0.0, dtype=dtype if dtype == tapegrad.float64 else tapegrad.float32)


def init_state(state: dict[str, Any], param: Tensor, buffers: Iterable[str],
               counters: Iterable[str] = ()) -> None:
    """On a parameter's first step, create its step count, counters at 1 and zero buffers."""
    if state:
        return
    state["step"] = new_step()
    for name in counters:
        state[name] = new_step().add_(1)
    for name in buffers:
        state[name] = tapegrad.zeros_like(param)


def advance_step(state: dict[str, Any]) -> float:
    """Count one more step in state["step"] and return the new count as a float."""
    state["step"].add_(1)
    return state["step"].item()


def grad_of(param: Tensor) -> Tensor:
    """param.grad, typed as set: step() updates only the parameters that have one."""
    return cast(Tensor, param.grad)


def signed_grad(param: Tensor, group: dict[str, Any]) -> Tensor:
    """The gradient to descend: negated when the group maximizes."""
    grad = grad_of(param)
    return -grad if group["maximize"] else grad


def step_grad(param: Tensor, group: dict[str, Any],
              state: dict[str, Any]) -> tuple[Tensor, float]:
    """Count the step; return (gradient with sign and weight decay applied, step number)."""
    grad = signed_grad(param, group)
    step = advance_step(state)
    return decayed_grad(param, grad, group), step


def decayed_grad(param: Tensor, grad: Tensor, group: dict[str, Any]) -> Tensor:
    """Apply weight decay: shrink the parameter when decoupled, else add L2 to the gradient."""
    weight_decay = group["weight_decay"]
    if weight_decay == 0:
        return grad
    if group.get("decoupled_weight_decay", False):
        param.mul_(1 - float(group["lr"]) * weight_decay)
        return grad
    return grad.add(param, alpha=weight_decay)


def blend_(average: Tensor, value: Tensor, weight: float | Tensor) -> Tensor:
    """average <- average + weight * (value - average), in place (torch's lerp_)."""
    return average.copy_(average.lerp(value, weight))


def decay_square_(average: Tensor, grad: Tensor, decay: float) -> Tensor:
    """average <- decay * average + (1 - decay) * grad**2, in place, in torch's order."""
    return average.copy_(average.mul_(decay).addcmul(grad, grad, value=1 - decay))
