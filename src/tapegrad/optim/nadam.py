"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule."""
from typing import Any

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, blend_, check_adam_options, check_nonnegative,
                        decay_square_, init_state, step_grad)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """torch.optim.NAdam; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_adam_options(lr, betas, eps, weight_decay)
        check_nonnegative("momentum_decay value", momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        # torch keeps the running product of momenta in the step's dtype (float32 unless
        # float64 is the default), so its rounding is part of the trajectory.
        init_state(state, param, ("exp_avg", "exp_avg_sq"), counters=("mu_product",))
        grad, step = step_grad(param, group, state)
        lr, (beta1, beta2) = float(group["lr"]), group["betas"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product = state["mu_product"].mul_(mu).item()
        blend_(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = decay_square_(state["exp_avg_sq"], grad, beta2)
        denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add_(group["eps"])
        param.copy_(param.addcdiv(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product)))
        next_weight = -lr * mu_next / (1.0 - mu_product * mu_next)
        param.copy_(param.addcdiv(state["exp_avg"], denom, value=next_weight))
