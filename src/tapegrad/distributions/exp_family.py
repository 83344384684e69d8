"""ExponentialFamily, as torch.distributions.exp_family."""
from __future__ import annotations

from typing import Any

import tapegrad
from tapegrad._tensor import Tensor

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution p(x) = h(x) exp(<t(x), theta> - F(theta)); subclasses give the natural
    parameters theta, the log normaliser F and E[log h]. Entropy (and the KL between two
    members of one family) then follow from F's gradient, a Bregman divergence."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        gradients = tapegrad.autograd.grad(log_normalizer.sum(), params, create_graph=True)
        result += log_normalizer
        for param, gradient in zip(params, gradients):
            result -= (param * gradient).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
