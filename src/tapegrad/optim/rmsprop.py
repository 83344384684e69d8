"""RMSprop: divide the gradient by a running root mean square, optionally centered."""
from typing import Any

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, blend_, check_lr, check_nonnegative, decay_square_,
                        init_state, step_grad)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """torch.optim.RMSprop; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        check_nonnegative("epsilon value", eps)
        check_nonnegative("momentum value", momentum)
        check_nonnegative("weight_decay value", weight_decay)
        check_nonnegative("alpha value", alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        buffers = (("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ())
                   + (("grad_avg",) if group["centered"] else ()))
        init_state(state, param, buffers)
        grad, _ = step_grad(param, group, state)
        alpha, lr = group["alpha"], float(group["lr"])
        square_avg = decay_square_(state["square_avg"], grad, alpha)
        if group["centered"]:
            grad_avg = blend_(state["grad_avg"], grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            buffer = state["momentum_buffer"]
            buffer.copy_(buffer.mul_(group["momentum"]).addcdiv(grad, avg))
            param.add_(buffer, alpha=-lr)
        else:
            param.copy_(param.addcdiv(grad, avg, value=-lr))
