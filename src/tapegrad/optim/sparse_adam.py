"""SparseAdam: Adam whose moments and parameters move only where the sparse gradient is set."""
import math
from typing import Any

import tapegrad

from .._sparse import SparseTensor
from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """torch.optim.SparseAdam, for dense parameters with sparse COO gradients
    (nn.Embedding(sparse=True))."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if isinstance(lr, tapegrad.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for index in range(2):
            if not 0.0 <= betas[index] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse: list[list[int]] = []
        complex_: list[list[int]] = []
        for index, group in enumerate(self.param_groups):
            for position, param in enumerate(group["params"]):
                if param.is_sparse:
                    sparse.append([index, position])
                if param.is_complex():
                    complex_.append([index, position])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense "
                             "parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not "
                             "support complex parameters")

    sparse_refusal = None  # it takes nothing else (refused below)

    def _update_param(self, param: Tensor, group: dict[str, Any]) -> None:
        grad = param.grad
        if not isinstance(grad, SparseTensor):  # the sparse layout's class
            raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                               "Adam instead")
        state = self.state[param]
        if not state:
            state.update(step=0, exp_avg=tapegrad.zeros_like(param),
                         exp_avg_sq=tapegrad.zeros_like(param))
        state["step"] += 1
        grad = (-grad if group["maximize"] else grad).coalesce()  # the update needs unique rows
        if grad._nnz() == 0:
            return
        rows = tuple(grad._indices())
        values = grad._values()
        beta1, beta2 = group["betas"]
        # the moments move toward the gradient only at its rows; elsewhere nothing changes
        old_avg, old_avg_sq = state["exp_avg"][rows], state["exp_avg_sq"][rows]
        avg_update = values.sub(old_avg).mul_(1 - beta1)
        avg_sq_update = values.pow(2).sub_(old_avg_sq).mul_(1 - beta2)
        state["exp_avg"][rows] = old_avg + avg_update
        state["exp_avg_sq"][rows] = old_avg_sq + avg_sq_update
        numerator = avg_update.add_(old_avg)
        denominator = avg_sq_update.add_(old_avg_sq).sqrt_().add_(group["eps"])
        step = state["step"]
        step_size = float(group["lr"]) * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param[rows] = param[rows] + (-step_size * numerator.div_(denominator))
