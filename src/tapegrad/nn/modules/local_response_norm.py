"""LocalResponseNorm and the legacy CrossMapLRN2d, as torch.nn."""
from __future__ import annotations

from typing import Any

import tapegrad
from tapegrad._tensor import Tensor

from ...autograd.function import Function
from .. import functional as F
from .module import Module

__all__ = ["CrossMapLRN2d", "LocalResponseNorm"]


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


def _window_sums(values: Tensor, first: list[int], last: list[int]) -> Tensor:
    """For each channel c, the sum of values' channels first[c] <= i < last[c] (by prefix
    sums along dim 1)."""
    prefix = F.pad(values.cumsum(1), (0, 0, 0, 0, 1, 0))
    return (prefix.index_select(1, tapegrad.tensor(last))
            - prefix.index_select(1, tapegrad.tensor(first)))


class _CrossMapLRN2dFunction(Function):
    """torch's legacy cross-channel LRN with its hand-written backward. Both keep torch's
    windows as its loops make them: a channel's scale sums the squares of channels
    c - reach + 1 .. c + reach - 1 and, from c = reach + 1 on, also channel 0 (its running sum
    never subtracts that one); the backward sums ratios over c - pad .. c + size - 1 - pad."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                k: float = 1) -> Tensor:
        if input.dim() != 4:
            raise ValueError("CrossMapLRN2d: Expected input to be 4D, got "
                             f"{input.dim()}D instead.")
        channels, reach = input.size(1), int((size - 1) / 2 + 1)
        ends = [min(c + reach, channels) for c in range(channels)]
        kept = _window_sums(input * input, [0] * channels, ends)
        dropped = _window_sums(input * input, [1] * channels,
                               [max(c - reach + 1, 1) for c in range(channels)])
        scale = (kept - dropped) * (alpha / size) + k
        output = input * scale.pow(-beta)
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        input, output = ctx.saved_tensors
        size, channels = ctx.size, input.size(1)
        pad = int(size - (size - 1) / 2)
        if pad > size - 1:  # torch's ratios, padded to channels + size - 1, have no room
            raise RuntimeError(f"start ({pad}) + length ({channels}) exceeds dimension size "
                               f"({channels + size - 1}).")
        accumulated = _window_sums(grad_output * output / ctx.scale,
                                   [max(c - pad, 0) for c in range(channels)],
                                   [min(c + size - pad, channels) for c in range(channels)])
        grad_input = (ctx.scale.pow(-ctx.beta) * grad_output
                      - (2 * ctx.alpha * ctx.beta / size) * input * accumulated)
        return grad_input, None, None, None, None


# torch's node is named after its Function class, CrossMapLRN2d, as the module is
_CrossMapLRN2dFunction._backward_cls.__name__ = "CrossMapLRN2dBackward"
_CrossMapLRN2dFunction._backward_cls.__qualname__ = "CrossMapLRN2dBackward"


class CrossMapLRN2d(Module):
    """torch's legacy local response normalisation across the channels of (N, C, H, W)
    input: x (k + alpha / size * (sum of squares over a channel window)) ^ -beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
