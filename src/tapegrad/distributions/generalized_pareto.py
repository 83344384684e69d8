from __future__ import annotations

import math
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, _size, broadcast_all

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalised Pareto distribution with location loc, scale scale and shape
    concentration (exponential at concentration 0, bounded above when negative)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, concentration: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(_batch_shape(self.loc, loc, scale, concentration),
                         validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              ("loc", "scale", "concentration"))

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.icdf(tapegrad.rand(shape, dtype=self.loc.dtype))

    def _safe_concentration(self, zero: Tensor) -> Tensor:
        # concentration 0 takes the exponential branch; 1 only keeps the other finite
        return tapegrad.where(zero, tapegrad.ones_like(self.concentration), self.concentration)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero = tapegrad.isclose(self.concentration, tapegrad.tensor(0.0))
        safe = self._safe_concentration(zero)
        y = 1 / safe + tapegrad.ones_like(z)
        nonzero = tapegrad.where(y == 0, y, y * tapegrad.log1p(safe * z))
        return -self.scale.log() - tapegrad.where(zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero = tapegrad.isclose(self.concentration, tapegrad.tensor(0.0))
        safe = self._safe_concentration(zero)
        return tapegrad.where(zero, -z, -tapegrad.log1p(safe * z) / safe)

    def log_cdf(self, value: Tensor) -> Tensor:
        return tapegrad.log1p(-tapegrad.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return tapegrad.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        zero = tapegrad.isclose(self.concentration, tapegrad.zeros_like(self.concentration))
        safe = self._safe_concentration(zero)
        logu = tapegrad.log1p(-value)
        nonzero = self.loc + self.scale / safe * tapegrad.expm1(-safe * logu)
        return tapegrad.where(zero, self.loc - self.scale * logu, nonzero)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        safe = tapegrad.where(valid, self.concentration, 0.5)
        return tapegrad.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        safe = tapegrad.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return tapegrad.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        return tapegrad.broadcast_to(tapegrad.log(self.scale) + self.concentration + 1,
                                     self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        upper = tapegrad.where(self.concentration < 0,
                               self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
