from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import tapegrad
from tapegrad._tensor import Size, Tensor
from tapegrad.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _probs_and_logits, _set_one_of, _size, broadcast_all

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """1 with probability probs (or sigmoid(logits)), else 0."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        self._param, batch_shape = _set_one_of(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    probs, logits = _probs_and_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with tapegrad.no_grad():
            return tapegrad.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = tapegrad.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (tapegrad.logit(self.probs),)

    def _log_normalizer(self, x):
        return tapegrad.log1p(tapegrad.exp(x))
