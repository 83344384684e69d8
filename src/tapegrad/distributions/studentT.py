from __future__ import annotations

import math
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _size, _standard_normal, broadcast_all

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with df degrees of freedom, location loc and scale scale."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Tensor | float, loc: Tensor | float = 0.0, scale: Tensor | float = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        m = self.loc.clone(memory_format=tapegrad.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        m = self.df.clone(memory_format=tapegrad.contiguous_format)
        finite = self.df > 2
        m[finite] = self.scale[finite].pow(2) * self.df[finite] / (self.df[finite] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        # X / sqrt(Z / df) for X ~ Normal(0, 1), Z ~ Chi2(df)
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (X * tapegrad.rsqrt(Z / self.df))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + tapegrad.lgamma(0.5 * self.df) - tapegrad.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * tapegrad.log1p(y ** 2.0 / self.df) - Z

    def entropy(self) -> Tensor:
        lbeta = (tapegrad.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - tapegrad.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (tapegrad.digamma(0.5 * (self.df + 1))
                                         - tapegrad.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
