"""CTCLoss, the connectionist temporal classification loss layer, as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """F.ctc_loss with the layer's blank, reduction and zero_infinity."""

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
