"""LocalResponseNorm, as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from .module import Module

__all__ = ["LocalResponseNorm"]


class LocalResponseNorm(Module):
    """Normalise each channel by the mean square of its `size` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
