"""RAdam: Adam whose adaptive step is switched on once its variance is tractable."""
from typing import Any

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, blend_, check_adam_options, decay_square_,
                        init_state, step_grad)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """torch.optim.RAdam; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        init_state(state, param, ("exp_avg", "exp_avg_sq"))
        grad, step = step_grad(param, group, state)
        lr, (beta1, beta2) = float(group["lr"]), group["betas"]
        exp_avg = blend_(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = decay_square_(state["exp_avg_sq"], grad, beta2)
        bias_correction2 = 1 - beta2 ** step
        corrected_avg = exp_avg / (1 - beta1 ** step)
        # rho: the length of the simple moving average that the adaptive term approximates.
        rho_inf = 2 / (1 - beta2) - 1
        rho = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho > 5.0:
            rectification = ((rho - 4) * (rho - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho)) ** 0.5
            adaptive_lr = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(corrected_avg * lr * adaptive_lr * rectification, alpha=-1.0)
        else:
            param.add_(corrected_avg * lr, alpha=-1.0)
