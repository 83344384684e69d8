from __future__ import annotations

from typing import TYPE_CHECKING

import tapegrad
from tapegrad.nn.functional import one_hot

from tapegrad._tensor import Tensor

from . import constraints
from ._sampling import _Dirichlet
from .exp_family import ExponentialFamily
from .utils import _size

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, with concentration along the last dim."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",),
                              self.event_shape)

    def rsample(self, sample_shape: _size = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (tapegrad.xlogy(self.concentration - 1.0, value).sum(-1)
                + tapegrad.lgamma(self.concentration.sum(-1))
                - tapegrad.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # with every concentration below 1 the density peaks at a vertex
        corner = (self.concentration < 1).all(dim=-1)
        mode[corner] = one_hot(mode[corner].argmax(dim=-1), shifted.shape[-1]).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        total = self.concentration.sum(-1)
        return (tapegrad.lgamma(self.concentration).sum(-1) - tapegrad.lgamma(total)
                - (k - total) * tapegrad.digamma(total)
                - ((self.concentration - 1.0) * tapegrad.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - tapegrad.lgamma(x.sum(-1))
