"""Adam, with optional AMSGrad and decoupled (AdamW-style) weight decay."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, blend_, check_adam_options, check_fused,
                        decay_square_, init_state, step_grad)

__all__ = ["Adam"]


class Adam(Optimizer):
    """torch.optim.Adam; `foreach`, `fused` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, tapegrad.Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        check_adam_options(lr, betas, eps, weight_decay)
        if isinstance(betas[0], tapegrad.Tensor) != isinstance(betas[1], tapegrad.Tensor):
            raise ValueError("betas must be either both floats or both Tensors")
        for index, beta in enumerate(betas):
            if isinstance(beta, tapegrad.Tensor):
                if foreach and not capturable:
                    raise ValueError(f"betas[{index}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{index}] must be 1-element")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    sparse_refusal = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        peak_name = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        init_state(state, param, ("exp_avg", "exp_avg_sq") + peak_name)
        grad, step = step_grad(param, group, state)
        lr, beta1, beta2 = (float(v) for v in (group["lr"], *group["betas"]))
        blend_(state["exp_avg"], grad, 1 - beta1)
        second_moment = decay_square_(state["exp_avg_sq"], grad, beta2)
        if group["amsgrad"]:
            peak = state["max_exp_avg_sq"]
            second_moment = peak.copy_(tapegrad.maximum(peak, second_moment))
        step_size = lr / (1 - beta1 ** step)
        denom = (second_moment.sqrt() / (1 - beta2 ** step) ** 0.5).add_(group["eps"])
        param.copy_(param.addcdiv(state["exp_avg"], denom, value=-step_size))
