"""SGD: stochastic gradient descent with optional momentum, dampening and Nesterov."""
from typing import Any

from .._tensor import Tensor
from .optimizer import (Optimizer, ParamsT, check_fused, check_lr, check_nonnegative,
                        decayed_grad, signed_grad)

__all__ = ["SGD"]


class SGD(Optimizer):
    """torch.optim.SGD; `foreach` and `fused` are accepted and stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float | Tensor = 0, nesterov: bool = False,
                 *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_lr(lr)
        check_nonnegative("momentum value", momentum)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    sparse_refusal = None  # sparse gradients update only their rows

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        grad = decayed_grad(param, signed_grad(param, group), group)
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[param]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                # The first step seeds the buffer with the gradient itself, undampened.
                buffer = state["momentum_buffer"] = grad.detach().clone()
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buffer, alpha=momentum) if group["nesterov"] else buffer
        param.add_(grad, alpha=-float(group["lr"]))
