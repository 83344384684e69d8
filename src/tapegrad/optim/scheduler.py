"""LRScheduler and the per-epoch schedulers that rescale each group's current lr.

These schedulers are "chainable": each step multiplies the group's current lr rather than
recomputing it from base_lr, exactly as torch does, so the floating-point sequences agree
bit for bit. `step(epoch)` (deprecated in torch too) uses the closed form where one exists.
A scheduler's state_dict is its __dict__ without the optimizer, so attribute names and the
order they are first set in match torch's. tapegrad.optim.lr_scheduler is the public module.
"""
import functools
import math
import types
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer
from .._warnings import warn

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR",
           "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate your "
    "use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _copy_value(value: Any) -> Any:
    return value.clone() if isinstance(value, tapegrad.Tensor) else value


def group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """group[key] of every param group, tensors cloned so callers never alias them."""
    return [_copy_value(group[key]) for group in optimizer.param_groups]


def set_group_value(group: dict[str, Any], key: str, value: float | Tensor) -> None:
    """Store value in group[key]; a tensor entry is filled in place, never replaced."""
    if isinstance(group[key], tapegrad.Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """One value per param group: a list/tuple of the right length, or a single repeated one."""
    count = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {count}.")
    else:
        value = [value] * count
    return [_copy_value(v) for v in value]


def check_optimizer(optimizer: object) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _track_optimizer_steps(optimizer):
    """Wrap optimizer.step once so schedulers can tell whether it ran before their step."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step = optimizer.step.__func__
    optimizer_ref = weakref.ref(optimizer)  # the wrapper lives on the optimizer: no cycle

    @functools.wraps(step)
    def tracked_step(*args, **kwargs):
        tracked_step.called = True
        return step(optimizer_ref(), *args, **kwargs)

    tracked_step._wrapped_by_lr_sched = True
    tracked_step.called = False
    optimizer.step = tracked_step


class LRScheduler:
    """Base class of the schedulers: sets each group's lr from get_lr() on every step()."""

    optimizer: Optimizer
    base_lrs: list[float | Tensor]
    last_epoch: int
    _last_lr: list[float | Tensor]
    _step_count: int
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy_value(group["lr"]))
        else:
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(_MISSING_INITIAL_LR.format(index=index))
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take the first step, which sets the starting lr."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Everything in the scheduler's __dict__ except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float | Tensor]:
        """The learning rates set by the latest step, one per param group."""
        return self._last_lr

    def get_lr(self) -> list[float | Tensor]:
        raise NotImplementedError

    def _warn_if_called_directly(self) -> None:
        if not self._get_lr_called_within_step:
            warn("To get the last learning rate computed by the scheduler, please use "
                 "`get_last_lr()`.", UserWarning)

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to `epoch`, deprecated) and update the groups' lr."""
        if self._step_count == 1:
            _warn_on_step_order(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", self.get_lr)
                values = closed_form()
        finally:
            self._get_lr_called_within_step = False
        self._apply_lrs(values)

    def _apply_lrs(self, values: Iterable[float | Tensor]) -> None:
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")


_MISSING_INITIAL_LR = (
    "param 'initial_lr' is not specified in param_groups[{index}] when resuming scheduler "
    "with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training "
    "from a checkpoint but haven't properly loaded the optimizer state\n2. You're using "
    "last_epoch >= 0 for a fresh training run (not recommended)")


def _warn_on_step_order(optimizer):
    """torch's warnings when optimizer.step was replaced, or not called before the scheduler."""
    if not hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        warn(
            "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
            "initialization. Please, make sure to call `optimizer.step()` before "
            "`lr_scheduler.step()`. See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
            UserWarning)
    elif not optimizer.step.called:
        warn(
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
            "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
            "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping "
            "the first value of the learning rate schedule. See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
            UserWarning)


class _LambdaScheduler(LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: one function of the epoch per group."""

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        count = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(f"Expected {count} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * count
        self._check_lambdas()
        super().__init__(optimizer, last_epoch)

    def _check_lambdas(self) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        """As LRScheduler's, with plain functions saved as None and callables as their __dict__."""
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        lambda_states = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambda_states  # torch leaves the caller's dict as it was
        for fn, saved in zip(self.lr_lambdas, lambda_states):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = base_lr * lr_lambda(epoch)."""

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr <- lr * lr_lambda(epoch) on every step after the first."""

    def _check_lambdas(self) -> None:
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply lr by gamma every step_size epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply lr by gamma at each milestone epoch (once per repetition of the milestone)."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale lr by factor until epoch total_iters, then restore it."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        finished = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + finished * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Move the lr factor linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        change = self.end_factor - self.start_factor
        # The ratio of this epoch's factor to the previous one's.
        ratio = 1.0 + change / (self.total_iters * self.start_factor
                                + (self.last_epoch - 1) * change)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) * progress)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply lr by gamma every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay lr to zero over total_iters epochs along (1 - t/T) ** power."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        remaining = 1.0 - self.last_epoch / self.total_iters
        factor = (remaining / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * remaining ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from base_lr to eta_min over T_max epochs, by torch's recursion."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return self._get_closed_form_lr()
        groups, eta_min, t_max = self.optimizer.param_groups, self.eta_min, self.T_max
        if (self.last_epoch - 1 - t_max) % (2 * t_max) == 0:
            # At the bottom of a cycle the ratio below is 0/0; step up by the first increment.
            rise = (1 - math.cos(math.pi / t_max)) / 2
            return [group["lr"] + (base_lr - eta_min) * rise
                    for base_lr, group in zip(self.base_lrs, groups)]
        ratio = ((1 + math.cos(math.pi * self.last_epoch / t_max))
                 / (1 + math.cos(math.pi * (self.last_epoch - 1) / t_max)))
        return [ratio * (group["lr"] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]
