"""Muon: momentum whose update is orthogonalised by a bfloat16 Newton-Schulz iteration."""
import math
from collections.abc import Sequence
from typing import Any

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, blend_, grad_of

__all__ = ["Muon"]

# Keller Jordan's quintic coefficients and settings, torch's defaults
DEFAULT_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
EPS = 1e-7
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    """torch.optim.Muon, for 2-d parameters only."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = DEFAULT_NS_COEFFICIENTS,
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, tapegrad.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                if param.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {param.size()}")

    sparse_refusal = None  # refused below, after complex parameters, in torch's order

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        grad = grad_of(param)
        if param.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if grad.is_sparse:
            raise RuntimeError("Muon does not support sparse gradients")
        state = self.state[param]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = tapegrad.zeros_like(grad)
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        momentum, lr = group["momentum"], float(group["lr"])
        buffer = blend_(state["momentum_buffer"], grad, 1 - momentum)
        update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
        update = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-adjusted_lr(lr, group["adjust_lr_fn"], param.shape))


def orthogonalize(matrix: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int,
                  eps: float) -> Tensor:
    """Newton-Schulz iterations, in bfloat16, towards the orthogonal factor of `matrix`: its
    singular values are pushed into roughly [0.5, 1.5] rather than to exactly 1."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if matrix.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = matrix.size(0) > matrix.size(1)
    # iterate on the wide orientation: its Gram matrix is the smaller one
    ortho = matrix.bfloat16().T if tall else matrix.bfloat16()
    ortho = ortho / ortho.norm().clamp(min=eps)  # spectral norm at most 1
    for _ in range(ns_steps):
        gram = ortho @ ortho.T
        gram_update = tapegrad.addmm(gram, gram, gram, beta=b, alpha=c)
        ortho = tapegrad.addmm(ortho, gram_update, ortho, beta=a)
    return ortho.T if tall else ortho


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: Sequence[int]) -> float:
    """The learning rate scaled so that updates of rectangular matrices have comparable RMS."""
    rows, columns = shape[:2]
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, columns))
    return lr * math.sqrt(max(1, rows / columns))
