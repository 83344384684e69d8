"""tapegrad.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal written as
parametrizations (nn.utils.parametrize), as torch's."""
from __future__ import annotations

from enum import Enum, auto
from typing import Any, TypeVar

import tapegrad
from tapegrad._tensor import Tensor

from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _output_dim
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_ModuleT = TypeVar("_ModuleT", bound=Module)


# ---- weight_norm -----------------------------------------------------------------------------

class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: _ModuleT, name: str = "weight", dim: int | None = 0) -> _ModuleT:
    """module.<name> = g * v / |v|, with the magnitude g in parametrizations.<name>.original0
    and the direction v in original1; loads the hook form's <name>_g/<name>_v state_dicts."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_hook_form(state_dict: dict[str, Any], prefix: str, local_metadata: dict[str, Any],
                       strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                       error_msgs: list[str]) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_hook_form)
    return module


# ---- spectral_norm ---------------------------------------------------------------------------

class _SpectralNorm(Module):
    _u: Tensor
    _v: Tensor

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # a vector is only normalized: no singular vectors to keep
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            height, width = weight_mat.size()
            u = weight_mat.new_empty(height).normal_(0, 1)
            v = weight_mat.new_empty(width).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good estimates rather than random vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # _u and _v change in place (they are buffers); forward clones them before use
        with tapegrad.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(tapegrad.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(tapegrad.mv(weight_mat.H, self._u), dim=0,
                                          eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=tapegrad.contiguous_format)
        v = self._v.clone(memory_format=tapegrad.contiguous_format)
        sigma = tapegrad.vdot(u, tapegrad.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: _ModuleT, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> _ModuleT:
    """module.<name> divided by its largest singular value, estimated by power iteration
    (one step per access in training mode); the vectors are buffers _u and _v."""
    weight = getattr(module, name, None)
    if not isinstance(weight, tapegrad.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrization = _SpectralNorm(weight, n_power_iterations, _output_dim(module, dim), eps)
    parametrize.register_parametrization(module, name, parametrization)
    return module


# ---- orthogonal ------------------------------------------------------------------------------

def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    identity = tapegrad.eye(k, dtype=Q.dtype)
    return tapegrad.allclose(Q.mH @ Q, identity, atol=10.0 * n * tapegrad.finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with the diagonal of R real and non-negative."""
    X, tau = tapegrad.geqrf(A)
    Q = tapegrad.linalg.householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    base: Tensor  # with use_trivialization: None until right_inverse sets it

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError(
                "The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            # the orthogonal matrix the parametrization moves from, set by right_inverse
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.householder:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = tapegrad.linalg.householder_product(A, tau)
            # right_inverse leaves the column signs (+1/-1) on the diagonal of X
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            Q = self._skew_map(X.tril(), n, k)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _skew_map(self, X, n, k):
        """exp(A) or the Cayley transform of the skew-Hermitian A = X - X^H (X padded to
        n x n), cut to its first k columns."""
        if n != k:
            X = tapegrad.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mH
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = tapegrad.matrix_exp(A)
        else:
            identity = tapegrad.eye(n, dtype=A.dtype)
            Q = tapegrad.linalg.solve(tapegrad.add(identity, A, alpha=-0.5),
                                      tapegrad.add(identity, A, alpha=0.5))
        return Q[..., :k] if n != k else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with tapegrad.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            # the Householder reflectors of Q, with diagonal signs that rebuild Q exactly
            A, tau = tapegrad.geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # complete the k columns to a square orthogonal base with random columns
            N = tapegrad.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(tapegrad.cat([Q, N], dim=-1))
        self.base = Q
        # the original whose image is base itself: forward(-I) = base
        neg_identity = tapegrad.zeros_like(Q_init)
        neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module: _ModuleT, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> _ModuleT:
    """Keep module.<name> (a matrix or a batch of them) orthogonal or unitary, through
    matrix_exp, cayley or householder from an unconstrained original."""
    weight = getattr(module, name, None)
    if not isinstance(weight, tapegrad.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square_or_complex = weight.size(-2) == weight.size(-1) or weight.is_complex()
        orthogonal_map = "matrix_exp" if square_or_complex else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrization = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module
