from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from ._sampling import binomial
from .distribution import Distribution
from .utils import _probs_and_logits, _set_count_and_one_of, _size

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Binomial"]


def _clamp_by_zero(x: Tensor) -> Tensor:
    # clamp(x, min=0) with gradient 1/2 at 0
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in total_count Bernoulli(probs) trials."""
    total_count: Tensor  # set, with _param, by _set_count_and_one_of
    _param: Tensor
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Tensor | int = 1, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        batch_shape = _set_count_and_one_of(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(Binomial, batch_shape, _instance,
                              ("total_count", "probs", "logits"))

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    probs, logits = _probs_and_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with tapegrad.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = tapegrad.lgamma(self.total_count + 1)
        log_factorial_k = tapegrad.lgamma(value + 1)
        log_factorial_nmk = tapegrad.lgamma(self.total_count - value + 1)
        # n log(1 - p) as -n max(logit, 0) - n log1p(exp(-|logit|)), stable for either sign
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * tapegrad.log1p(tapegrad.exp(-tapegrad.abs(
                              self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(tapegrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_count("enumerate_support")
        values = tapegrad.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
