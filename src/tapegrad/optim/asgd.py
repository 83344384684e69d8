"""ASGD: SGD with a decaying step and a running average `ax` of the iterates, averaging from
step t0 on."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, advance_step, check_lr, check_nonnegative,
                        decayed_grad, new_step, signed_grad)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """torch.optim.ASGD; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        if not state:  # in torch's order: step, eta, mu, ax
            state["step"] = new_step()
            state["eta"] = new_step().add_(float(group["lr"]))
            state["mu"] = new_step().add_(1)
            state["ax"] = tapegrad.zeros_like(param)
        step = advance_step(state)
        grad = decayed_grad(param, signed_grad(param, group), group)
        lr, lambd = float(group["lr"]), group["lambd"]
        eta = state["eta"].item()
        param.mul_(1 - lambd * eta).add_(grad, alpha=-eta)
        if state["mu"].item() != 1:
            state["ax"].add_(param.sub(state["ax"]).mul_(state["mu"].item()))
        else:
            state["ax"].copy_(param)
        # through a tensor of the default dtype, as torch's: a float64 eta loaded from a
        # state_dict still takes float32-rounded values
        state["eta"].copy_(tapegrad.as_tensor(lr / (1 + lambd * lr * step) ** group["alpha"]))
        state["mu"].copy_(tapegrad.as_tensor(1 / max(1, step - group["t0"])))
