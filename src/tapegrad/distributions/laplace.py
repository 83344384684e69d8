from __future__ import annotations

from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, _size, broadcast_all, finfo

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution with location loc and scale scale."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape(self.loc, loc, scale), validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # u in (-1, 1): eps - 1 keeps log1p(-|u|) finite
        u = self.loc.new(shape).uniform_(float(finfo(self.loc.dtype).eps) - 1, 1)
        return self.loc - self.scale * u.sign() * tapegrad.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -tapegrad.log(2 * self.scale) - tapegrad.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        centred = value - self.loc
        return 0.5 - 0.5 * centred.sign() * tapegrad.expm1(-centred.abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * tapegrad.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + tapegrad.log(2 * self.scale)
