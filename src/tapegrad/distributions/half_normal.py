from __future__ import annotations

import math
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Tensor

from . import constraints
from .cauchy import Cauchy
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform
from .utils import _size

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["HalfNormal"]


class _Folded(TransformedDistribution):
    """What a distribution of |X| for X symmetric about 0 (its base_dist) computes from X's:
    the density doubled on [0, inf), the cdf and quantiles rescaled, log 2 less entropy."""
    base_dist: Normal | Cauchy

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return tapegrad.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)

    @property
    def mode(self) -> Tensor:
        return tapegrad.zeros_like(self.scale)


class HalfNormal(_Folded):
    """|X| for X ~ Normal(0, scale)."""
    base_dist: Normal
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
