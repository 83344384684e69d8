from __future__ import annotations

from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Tensor

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform, Transform
from .utils import _size, broadcast_all, euler_constant

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Weibull"]


def _transforms(scale: Tensor, concentration_reciprocal: Tensor) -> list[Transform]:
    return [PowerTransform(exponent=concentration_reciprocal), AffineTransform(loc=0, scale=scale)]


class Weibull(TransformedDistribution):
    """The Weibull distribution: scale * E ** (1 / concentration) for E ~ Exponential(1)."""
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Tensor | float, concentration: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(tapegrad.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, _transforms(self.scale, self.concentration_reciprocal),
                         validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        super(Weibull, new).__init__(self.base_dist.expand(batch_shape),
                                     _transforms(new.scale, new.concentration_reciprocal),
                                     validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * tapegrad.exp(tapegrad.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration.reciprocal())

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (
            tapegrad.exp(tapegrad.lgamma(1 + 2 * self.concentration_reciprocal))
            - tapegrad.exp(2 * tapegrad.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self) -> Tensor:
        return (euler_constant * (1 - self.concentration_reciprocal)
                + tapegrad.log(self.scale * self.concentration_reciprocal) + 1)
