"""The transforms that act on a whole vector or matrix, or on slices of a tensor, as those of
torch.distributions.transforms (re-exported there)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor
from tapegrad.nn.functional import logsigmoid, pad, softplus

from . import constraints
from .transforms import Transform, _clipped_sigmoid
from .utils import _sum_rightmost, finfo, lazy_property, tril_matrix_to_vec, vec_to_tril_matrix

if TYPE_CHECKING:
    from .distribution import Distribution


def _need_dims(shape: Size, count: int) -> None:
    if len(shape) < count:
        raise ValueError("Too few dimensions on input")


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals to the Cholesky factor of a D x D correlation matrix
    (tanh to (-1, 1), then stick-breaking on the squares of each row)."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        x = tapegrad.tanh(x)
        eps = float(finfo(x.dtype).eps)
        r = vec_to_tril_matrix(x.clamp(min=-1 + eps, max=1 - eps), diag=-1)
        remaining = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + tapegrad.eye(r.shape[-1], dtype=r.dtype)  # unit diagonal before scaling
        return r * pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        remaining = 1 - tapegrad.cumsum(y * y, dim=-1)
        shifted = pad(remaining[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor,
                             intermediates: None = None) -> Tensor:
        # of x and y's strictly lower triangle (the two spaces differ in dimension)
        remaining = tril_matrix_to_vec(1 - (y * y).cumsum(dim=-1), diag=-2)
        stick_breaking = 0.5 * remaining.log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking + tanh

    def forward_shape(self, shape: Size) -> Size:
        _need_dims(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape: Size) -> Size:
        _need_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class SoftmaxTransform(Transform):
    """Reals to the simplex by softmax; not bijective (its inverse is one of many)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Size) -> Size:
        _need_dims(shape, 1)
        return shape

    def inverse_shape(self, shape: Size) -> Size:
        _need_dims(shape, 1)
        return shape


def _stick_offset(x: Tensor) -> Tensor:
    # log(K - k) centres each break so that x = 0 maps to the uniform point of the simplex
    return x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)


class StickBreakingTransform(Transform):
    """K-1 reals to the K-simplex by breaking off sigmoid fractions of what remains."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    def _call(self, x: Tensor) -> Tensor:
        z = _clipped_sigmoid(x - _stick_offset(x).log())
        return pad(z, [0, 1], value=1) * pad((1 - z).cumprod(-1), [1, 0], value=1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        # what is left of the stick can round to zero or below
        remaining = tapegrad.clamp(1 - y_crop.cumsum(-1), min=float(finfo(y.dtype).tiny))
        return y_crop.log() - remaining.log() + offset.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x = x - _stick_offset(x).log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)  # 1 - s(x) = e^-x s(x)

    def forward_shape(self, shape: Size) -> Size:
        _need_dims(shape, 1)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape: Size) -> Size:
        _need_dims(shape, 1)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive (exponentiated) diagonal."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones, L L^T of their LowerCholeskyTransform."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x: Tensor) -> Tensor:
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(tapegrad.linalg.cholesky(y))


def _check_along(tensor: Tensor, name: str, dim: int, size: int, what: str,
                 applying: bool = True) -> None:
    """torch's checks that tensor (x or y) has dim and size entries along it; applying
    the transform, torch's range message calls it 'tensor'."""
    if not -tensor.dim() <= dim < tensor.dim():
        raise AssertionError(f"dim {dim} out of range for {'tensor' if applying else name} "
                             f"with {tensor.dim()} dimensions")
    if tensor.size(dim) != size:
        raise AssertionError(f"{name}.size({dim}) = {tensor.size(dim)} must equal {what} "
                             f"{size}")


class CatTransform(Transform):
    """The transforms tseq applied to consecutive slices (of lengths) along dim."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0,
                 lengths: Sequence[int] | None = None, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, tensor: Tensor) -> Iterator[Tensor]:
        start = 0
        for length in self.lengths:
            yield tensor.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x: Tensor) -> Tensor:
        _check_along(x, "x", self.dim, self.length, "length")
        return tapegrad.cat([t(part) for t, part in zip(self.transforms, self._slices(x))],
                            dim=self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        _check_along(y, "y", self.dim, self.length, "length")
        return tapegrad.cat([t.inv(part) for t, part in zip(self.transforms, self._slices(y))],
                            dim=self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _check_along(x, "x", self.dim, self.length, "length", applying=False)
        _check_along(y, "y", self.dim, self.length, "length", applying=False)
        terms = []
        for t, x_part, y_part in zip(self.transforms, self._slices(x), self._slices(y)):
            term = t.log_abs_det_jacobian(x_part, y_part)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        # dim inside the event: the pieces add up; in the batch: they sit side by side
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return tapegrad.cat(terms, dim=dim)
        total: Tensor = sum(terms)  # type: ignore[assignment]  # sum types 0 + Tensors as 0 too
        return total

    @property
    def bijective(self) -> bool:
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """The i-th transform of tseq applied to the i-th index along dim."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z: Tensor) -> list[Tensor]:
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _apply(self, tensor: Tensor, label: str,
               method: Callable[[Transform], Callable[[Tensor], Tensor]]) -> Tensor:
        _check_along(tensor, label, self.dim, len(self.transforms), "len(transforms)")
        parts = [method(t)(part) for part, t in zip(self._slice(tensor), self.transforms)]
        return tapegrad.stack(parts, dim=self.dim)

    def _call(self, x: Tensor) -> Tensor:
        return self._apply(x, "x", lambda t: t)

    def _inverse(self, y: Tensor) -> Tensor:
        return self._apply(y, "y", lambda t: t.inv)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        count = len(self.transforms)
        _check_along(x, "x", self.dim, count, "len(transforms)", applying=False)
        _check_along(y, "y", self.dim, count, "len(transforms)", applying=False)
        terms = [t.log_abs_det_jacobian(x_part, y_part) for x_part, y_part, t in
                 zip(self._slice(x), self._slice(y), self.transforms)]
        return tapegrad.stack(terms, dim=self.dim)

    @property
    def bijective(self) -> bool:
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """A distribution's cdf, from its support to the unit interval."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Distribution, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
