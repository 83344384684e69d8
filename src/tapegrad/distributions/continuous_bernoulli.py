from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import tapegrad
from tapegrad._tensor import Size, Tensor
from tapegrad.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (_size, _set_one_of, broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                    probs_to_logits)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (density proportional to
    probs^x (1 - probs)^(1 - x)); within lims around probs = 1/2, where the closed forms
    cancel, Taylor expansions are used, as torch."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        self._param, batch_shape = _set_one_of(self, probs, logits)
        if probs is not None:
            # checked before clamping, when validation is asked for explicitly
            if validate_args is not None and not self.arg_constraints["probs"].check(
                    self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self) -> Tensor:
        return tapegrad.le(self.probs, self._lims[0]) | tapegrad.gt(self.probs, self._lims[1])

    def _cut_probs(self) -> Tensor:
        return tapegrad.where(self._outside_unstable_region(), self.probs,
                              self._lims[0] * tapegrad.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        """The log normalising constant."""
        cut = self._cut_probs()
        below_half = tapegrad.where(tapegrad.le(cut, 0.5), cut, tapegrad.zeros_like(cut))
        above_half = tapegrad.where(tapegrad.ge(cut, 0.5), cut, tapegrad.ones_like(cut))
        log_norm = tapegrad.log(tapegrad.abs(tapegrad.log1p(-cut) - tapegrad.log(cut))) - \
            tapegrad.where(tapegrad.le(cut, 0.5), tapegrad.log1p(-2.0 * below_half),
                           tapegrad.log(2.0 * above_half - 1.0))
        x = tapegrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return tapegrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (tapegrad.log1p(-cut) - tapegrad.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * tapegrad.pow(x, 2)) * x
        return tapegrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return tapegrad.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / tapegrad.pow(1.0 - 2.0 * cut, 2)
                     + 1.0 / tapegrad.pow(tapegrad.log1p(-cut) - tapegrad.log(cut), 2))
        x = tapegrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return tapegrad.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = tapegrad.rand(shape, dtype=self.probs.dtype)
        with tapegrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.icdf(tapegrad.rand(shape, dtype=self.probs.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((tapegrad.pow(cut, value) * tapegrad.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = tapegrad.where(self._outside_unstable_region(), cdfs, value)
        return tapegrad.where(tapegrad.le(value, 0.0), tapegrad.zeros_like(value),
                              tapegrad.where(tapegrad.ge(value, 1.0),
                                             tapegrad.ones_like(value), unbounded))

    def icdf(self, value: Tensor) -> Tensor:
        cut = self._cut_probs()
        inverse = ((tapegrad.log1p(-cut + value * (2.0 * cut - 1.0)) - tapegrad.log1p(-cut))
                   / (tapegrad.log(cut) - tapegrad.log1p(-cut)))
        return tapegrad.where(self._outside_unstable_region(), inverse, value)

    def entropy(self) -> Tensor:
        log_probs0 = tapegrad.log1p(-self.probs)
        log_probs1 = tapegrad.log(self.probs)
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, x):
        unstable_low, unstable_high = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = tapegrad.le(x, unstable_low) | tapegrad.gt(x, unstable_high)
        cut = tapegrad.where(outside, x, unstable_low * tapegrad.ones_like(x))
        log_norm = (tapegrad.log(tapegrad.abs(tapegrad.special.expm1(cut)))
                    - tapegrad.log(tapegrad.abs(cut)))
        taylor = 0.5 * x + tapegrad.pow(x, 2) / 24.0 - tapegrad.pow(x, 4) / 2880.0
        return tapegrad.where(outside, log_norm, taylor)
