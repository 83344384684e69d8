from __future__ import annotations

import math
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Tensor

from . import constraints
from .cauchy import Cauchy
from .half_normal import _Folded
from .transforms import AbsTransform
from .utils import _size

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """|X| for X ~ Cauchy(0, scale)."""
    base_dist: Cauchy
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return tapegrad.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # torch's HalfCauchy (not its HalfNormal) takes numbers as values
        value = tapegrad.as_tensor(value, dtype=self.base_dist.scale.dtype)
        return super().log_prob(value)
