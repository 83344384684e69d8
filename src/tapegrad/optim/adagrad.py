"""Adagrad: per-coordinate steps scaled by the root of the summed squared gradients."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, check_fused, check_lr, check_nonnegative, grad_of,
                        new_step, step_grad)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """torch.optim.Adagrad; `foreach` and `fused` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_lr(lr)
        check_nonnegative("lr_decay value", lr_decay)
        check_nonnegative("weight_decay value", weight_decay)
        check_nonnegative("initial_accumulator_value value", initial_accumulator_value)
        check_nonnegative("epsilon value", eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        # Unlike the other optimizers, torch's Adagrad creates its state eagerly, from the
        # constructor's initial_accumulator_value for every group.
        for group in self.param_groups:
            for param in group["params"]:
                self.state[param].update(self._initial_state(param))

    def _initial_state(self, param: Tensor) -> dict[str, Any]:
        return {"step": new_step(),
                "sum": tapegrad.full_like(param, self.defaults["initial_accumulator_value"])}

    sparse_refusal = None  # sparse gradients update only their rows

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        if grad_of(param).is_sparse and group["weight_decay"] != 0:
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        state = self.state[param]
        if not state:
            state.update(self._initial_state(param))
        grad, step = step_grad(param, group, state)
        step_lr = float(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]
        state_sum.copy_(state_sum.addcmul(grad, grad, value=1))
        std = state_sum.sqrt().add_(group["eps"])
        param.copy_(param.addcdiv(grad, std, value=-step_lr))
