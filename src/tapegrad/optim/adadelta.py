"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""
from typing import Any

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, check_lr, check_nonnegative, decay_square_,
                        init_state, step_grad)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """torch.optim.Adadelta; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative("epsilon value", eps)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        init_state(state, param, ("square_avg", "acc_delta"))
        grad, _ = step_grad(param, group, state)
        rho, eps = group["rho"], group["eps"]
        std = decay_square_(state["square_avg"], grad, rho).add(eps).sqrt()
        delta = state["acc_delta"].add(eps).sqrt().div(std).mul(grad)
        decay_square_(state["acc_delta"], delta, rho)
        param.add_(delta, alpha=-float(group["lr"]))
