"""Adamax: Adam with the infinity norm in place of the second moment."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, blend_, check_adam_options, init_state, step_grad

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """torch.optim.Adamax; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        init_state(state, param, ("exp_avg", "exp_inf"))
        grad, step = step_grad(param, group, state)
        beta1, beta2 = group["betas"]
        blend_(state["exp_avg"], grad, 1 - beta1)
        exp_inf = state["exp_inf"].mul_(beta2)
        exp_inf.copy_(tapegrad.maximum(exp_inf, grad.abs().add(group["eps"])))
        step_lr = float(group["lr"]) / (1 - beta1 ** step)
        param.copy_(param.addcdiv(state["exp_avg"], exp_inf, value=-step_lr))
