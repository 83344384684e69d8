from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tapegrad
from tapegrad._tensor import Size, Tensor
from tapegrad.nn.functional import logsigmoid

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _probs_and_logits, _set_count_and_one_of, _size, lazy_property

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes before total_count failures of Bernoulli(probs) trials
    (total_count may be any nonnegative real: a gamma-Poisson mixture)."""
    total_count: Tensor  # set, with _param, by _set_count_and_one_of
    _param: Tensor
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Tensor | float, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        batch_shape = _set_count_and_one_of(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(NegativeBinomial, batch_shape, _instance,
                              ("total_count", "probs", "logits"))

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.total_count * tapegrad.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / tapegrad.sigmoid(-self.logits)

    probs, logits = _probs_and_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(concentration=self.total_count, rate=tapegrad.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape: _size = Size()) -> Tensor:
        with tapegrad.no_grad():
            return tapegrad.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-tapegrad.lgamma(self.total_count + value)
                             + tapegrad.lgamma(1.0 + value) + tapegrad.lgamma(self.total_count))
        # no successes and no failures asked: probability one
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
