"""LocalResponseNorm, as torch.nn."""
from .. import functional as F
from .module import Module

__all__ = ["LocalResponseNorm"]


class LocalResponseNorm(Module):
    """Normalise each channel by the mean square of its `size` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
