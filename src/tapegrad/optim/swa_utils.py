"""Stochastic weight averaging, as torch.optim.swa_utils: AveragedModel keeps a running average
(equal weights, or exponential) of a model's parameters, SWALR anneals each group's lr to a
fixed SWA lr, and update_bn recomputes batch-norm statistics for the averaged weights."""
import copy
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, TypeAlias

import tapegrad

from .._device import device as Device
from .._dtype import dtype as DType
from .._tensor import Tensor
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .optimizer import Optimizer
from .scheduler import LRScheduler, per_group

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


# avg_fn(average, current, num_averaged) -> new average; multi_avg_fn updates lists in place
PARAM_LIST: TypeAlias = tuple[Tensor, ...] | list[Tensor]
AvgFn: TypeAlias = Callable[[Tensor, Tensor, Tensor | int], Tensor]
MultiAvgFn: TypeAlias = Callable[[PARAM_LIST, PARAM_LIST, Tensor | int], None]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """An update of a list of averages in place: exponential, with this decay."""
    _check_decay(decay)

    def ema_update(averages: PARAM_LIST, currents: PARAM_LIST, _: Tensor | int) -> None:
        with tapegrad.no_grad():
            for average, current in zip(averages, currents):
                if average.is_floating_point() or average.is_complex():
                    average.lerp_(current, 1 - decay)
                else:
                    average.copy_(average * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """An update of a list of averages in place: the running mean of every model seen."""
    def swa_update(averages: PARAM_LIST, currents: PARAM_LIST,
                   num_averaged: Tensor | int) -> None:
        with tapegrad.no_grad():
            for average, current in zip(averages, currents):
                if average.is_floating_point() or average.is_complex():
                    average.lerp_(current, float(1 / (num_averaged + 1)))
                elif isinstance(num_averaged, tapegrad.Tensor):
                    average.addcdiv_(current - average, num_averaged + 1)
                else:
                    average.add_(current - average, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """avg_fn(average, current, n): the exponential moving average with this decay."""
    _check_decay(decay)

    def ema_update(average: Tensor, current: Tensor, num_averaged: Tensor | int) -> Tensor:
        with tapegrad.no_grad():
            return decay * average + (1 - decay) * current
    return ema_update


def get_swa_avg_fn() -> AvgFn:
    """avg_fn(average, current, n): the mean of n + 1 models from that of n."""
    def swa_update(average: Tensor, current: Tensor, num_averaged: Tensor | int) -> Tensor:
        with tapegrad.no_grad():
            return average + (current - average) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of model whose parameters (and buffers, with use_buffers) are averaged over the
    models given to update_parameters; forward runs the copy."""

    n_averaged: Tensor

    def __init__(self, model: Module, device: int | Device | None = None,
                 avg_fn: AvgFn | None = None, multi_avg_fn: MultiAvgFn | None = None,
                 use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tapegrad.tensor(0, dtype=tapegrad.long,
                                                           device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _averaged(self, module: Module) -> Iterator[Tensor]:
        if self.use_buffers:
            return itertools.chain(module.parameters(), module.buffers())
        return module.parameters()

    def update_parameters(self, model: Module) -> None:
        """Average model's parameters into this one's (the first call copies them)."""
        averages = [p.detach() for p in self._averaged(self.module)]
        currents = [p.detach().to(a.device) for a, p in zip(averages, self._averaged(model))]
        with tapegrad.no_grad():
            if int(self.n_averaged) == 0:
                for average, current in zip(averages, currents):
                    average.copy_(current)
            elif self.multi_avg_fn is not None:  # one call per dtype, as torch groups them
                groups: dict[DType, tuple[list[Tensor], list[Tensor]]] = {}
                for average, current in zip(averages, currents):
                    group = groups.setdefault(average.dtype, ([], []))
                    group[0].append(average)
                    group[1].append(current)
                for group_averages, group_currents in groups.values():
                    self.multi_avg_fn(group_averages, group_currents, self.n_averaged)
            else:  # on the CPU torch averages tensor by tensor
                avg_fn = self.avg_fn or get_swa_avg_fn()
                for average, current in zip(averages, currents):
                    average.copy_(avg_fn(average, current, self.n_averaged))
            if not self.use_buffers:  # buffers follow the latest model
                for mine, theirs in zip(self.module.buffers(), model.buffers()):
                    mine.copy_(theirs.detach().to(mine.device))
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: int | Device | None = None) -> None:
    """One pass over loader in training mode to recompute every batch norm's running
    statistics as plain means (momentum None), then the model's mode and momenta back."""
    momenta: dict[_BatchNorm, float | None] = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with tapegrad.no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            model(input if device is None else input.to(device))
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr from its value to swa_lr over anneal_epochs (cosine or
    linear), then holds it."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float], anneal_epochs: int = 10,
                 anneal_strategy: Literal["cos", "linear"] = "cos", last_epoch: int = -1) -> None:
        for lr, group in zip(per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        if self._anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    def get_lr(self) -> list[float | Tensor]:
        self._warn_if_called_directly()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        previous = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        # the lr the annealing started from, recovered from the current one
        starts = [group["swa_lr"] if previous == 1
                  else (group["lr"] - previous * group["swa_lr"]) / (1 - previous)
                  for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + start * (1 - alpha)
                for group, start in zip(self.optimizer.param_groups, starts)]
