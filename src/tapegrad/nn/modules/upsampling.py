"""Upsample and its fixed-mode variants, as torch.nn."""
from __future__ import annotations

from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import _ratio_2_t, _ratio_any_t, _size_2_t, _size_any_t
from .module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    """Resizes by `size` or `scale_factor` with F.interpolate's `mode`."""

    def __init__(self, size: _size_any_t | None = None,
                 scale_factor: _ratio_any_t | None = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor: _ratio_any_t | None
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            text = f"scale_factor={self.scale_factor!r}"
        else:
            text = f"size={self.size!r}"
        return text + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-d upsampling."""

    def __init__(self, size: _size_2_t | None = None,
                 scale_factor: _ratio_2_t | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-d upsampling with align_corners=True."""

    def __init__(self, size: _size_2_t | None = None,
                 scale_factor: _ratio_2_t | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
