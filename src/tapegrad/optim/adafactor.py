"""Adafactor: Adam's second moment kept factored, as a row and a column average, for matrices
(a full one for vectors), with a relative step size and update clipping."""
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, advance_step, new_step, signed_grad

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """torch.optim.Adafactor; `foreach` is stored but changes nothing."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, tapegrad.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for ok, text in ((0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                         (beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: "
                                              f"{beta2_decay}"),
                         (eps[0] is None or 0.0 <= eps[0],
                          f"epsilon1 should be >= 0 but is: {eps[0]}"),
                         (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
                         (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
                         (0.0 <= weight_decay,
                          f"weight_decay should be >= 0 but is: {weight_decay}")):
            if not ok:
                raise ValueError(text)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        if param.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        state = self.state[param]
        grad = signed_grad(param, group)
        if not state:
            state["step"] = new_step()
            if grad.ndim > 1:  # one average per row and one per column
                state["row_var"] = grad.new_zeros(grad.shape[:-1] + (1,))
                state["col_var"] = grad.new_zeros(grad.shape[:-2] + (1, grad.shape[-1]))
            else:
                state["variance"] = tapegrad.zeros_like(grad)
        step = advance_step(state)
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        eps1 = tapegrad.finfo(param.dtype).eps if eps1 is None else eps1
        decay = step ** group["beta2_decay"]  # the weight of the new squared gradient
        relative_step = min(lr, 1 / step ** 0.5)
        alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * relative_step
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.ndim > 1:
            rows, cols = state["row_var"], state["col_var"]
            rows.lerp_(tapegrad.norm(grad, dim=-1, keepdim=True).square_()
                       .div_(grad.shape[-1]), decay)
            cols.lerp_(tapegrad.norm(grad, dim=-2, keepdim=True).square_()
                       .div_(grad.shape[-2]), decay)
            estimate = (rows @ cols).div_(rows.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, decay)
            estimate = state["variance"].clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        clipping = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        param.add_(update, alpha=-alpha / clipping)
