from __future__ import annotations

from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from ._sampling import StandardGamma
from .exp_family import ExponentialFamily
from .utils import _batch_shape, _size, broadcast_all, finfo

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution with shape concentration and inverse scale rate."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape(self.concentration, concentration, rate),
                         validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        # in place on the data, outside the graph, as torch
        value.detach().clamp_(min=float(finfo(value.dtype).tiny))
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        value = tapegrad.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (tapegrad.xlogy(self.concentration, self.rate)
                + tapegrad.xlogy(self.concentration - 1, value)
                - self.rate * value - tapegrad.lgamma(self.concentration))

    def entropy(self) -> Tensor:
        return (self.concentration - tapegrad.log(self.rate) + tapegrad.lgamma(self.concentration)
                + (1.0 - self.concentration) * tapegrad.digamma(self.concentration))

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return tapegrad.lgamma(x + 1) + (x + 1) * tapegrad.log(-y.reciprocal())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return tapegrad.special.gammainc(self.concentration, self.rate * value)
