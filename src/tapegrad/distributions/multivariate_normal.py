from __future__ import annotations

import math
from typing import TYPE_CHECKING

import tapegrad
from tapegrad._tensor import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _size, _standard_normal, lazy_property

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    return tapegrad.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """x^T (L L^T)^-1 x for lower-triangular L batched over a (broadcastable) prefix of x's
    batch dims: the x's sharing one L are gathered into the columns of one triangular solve,
    so L is never expanded."""
    n = bx.size(-1)
    bx_batch_shape = bx.shape[:-1]
    l_dims = bL.dim() - 2
    outer_dims = len(bx_batch_shape) - l_dims
    # bx as (outer..., x/L_1, L_1, x/L_2, L_2, ..., n), then the L sizes moved last
    split_shape = bx.shape[:outer_dims]
    for size_l, size_x in zip(bL.shape[:-2], bx.shape[outer_dims:-1]):
        split_shape += (size_x // size_l, size_l)
    bx = bx.reshape(split_shape + (n,))
    last = outer_dims + 2 * l_dims
    order = (list(range(outer_dims)) + list(range(outer_dims, last, 2))
             + list(range(outer_dims + 1, last, 2)) + [last])
    bx = bx.permute(order)
    flat_L = bL.reshape(-1, n, n)
    columns = bx.reshape(-1, flat_L.size(0), n).permute(1, 2, 0)  # one block of columns per L
    squares = tapegrad.linalg.solve_triangular(flat_L, columns, upper=False).pow(2).sum(-2)
    permuted = squares.t().reshape(bx.shape[:-1])
    inverse = list(range(outer_dims))
    for i in range(l_dims):
        inverse += [outer_dims + i, outer_dims + l_dims + i]
    return permuted.permute(inverse).reshape(bx_batch_shape)


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    # the Cholesky factor of P's inverse through the Cholesky factor of P with its rows and
    # columns reversed, which is upper triangular once flipped back
    Lf = tapegrad.linalg.cholesky(tapegrad.flip(P, (-2, -1)))
    L_inv = tapegrad.transpose(tapegrad.flip(Lf, (-2, -1)), -2, -1)
    identity = tapegrad.eye(P.shape[-1], dtype=P.dtype)
    return tapegrad.linalg.solve_triangular(L_inv, identity, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution with mean loc, given by exactly one of its
    covariance matrix, precision matrix or lower Cholesky factor (scale_tril)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: value for name, value in (("covariance_matrix", covariance_matrix),
                                                 ("precision_matrix", precision_matrix),
                                                 ("scale_tril", scale_tril))
                 if value is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = tapegrad.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = tapegrad.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        matrix_shape = batch_shape + self.event_shape + self.event_shape
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return tapegrad.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return tapegrad.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return (self._unbroadcasted_scale_tril.pow(2).sum(-1)
                .expand(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape: _size = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return (-0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M)
                - self._half_log_det())

    def entropy(self) -> Tensor:
        H = (0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi))
             + self._half_log_det())
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
