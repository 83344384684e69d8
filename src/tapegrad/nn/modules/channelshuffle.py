"""ChannelShuffle: interleaving groups of channels, as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Splits the channels into `groups` groups and interleaves them."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
