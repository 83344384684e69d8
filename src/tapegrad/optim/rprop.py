"""Rprop: per-element step sizes that grow while the gradient keeps its sign and shrink when it
flips; only the gradient's sign moves the parameter."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, advance_step, check_lr, init_state, signed_grad

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """torch.optim.Rprop; `foreach` and `capturable` are stored but change nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        if not state:
            init_state(state, param, ("prev",))
            state["step_size"] = tapegrad.full_like(param, float(group["lr"]))
        advance_step(state)
        grad = signed_grad(param, group)
        shrink, grow = group["etas"]
        smallest, largest = group["step_sizes"]
        agreement = grad.mul(state["prev"]).sign()
        flipped = agreement < 0
        factor = (agreement.masked_fill(agreement > 0, grow).masked_fill(flipped, shrink)
                  .masked_fill(agreement == 0, 1))  # in the parameter's dtype, as torch's
        state["step_size"].mul_(factor).clamp_(smallest, largest)
        # after a sign flip the step is skipped, and the next one compares with zero
        grad = grad.masked_fill(flipped, 0)
        param.addcmul_(grad.sign(), state["step_size"], value=-1)
        state["prev"].copy_(grad)
