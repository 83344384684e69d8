"""Helpers shared by the distributions, as torch.distributions.utils."""
from __future__ import annotations

from functools import update_wrapper
from numbers import Number
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeAlias, TypeVar, overload

import numpy as np

import tapegrad
from tapegrad._tensor import Size, Tensor

if TYPE_CHECKING:
    from tapegrad._device import device as _device_t
    from tapegrad._dtype import dtype as _dtype_t

T = TypeVar("T")
R = TypeVar("R")
P = TypeVar("P", bound="Tensor | float")  # a probs or logits argument
# a shape as torch.types._size: a Size, or the ints as a tuple or a list
_size: TypeAlias = Size | list[int] | tuple[int, ...]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def finfo(dtype: _dtype_t) -> np.finfo[Any]:
    """eps, tiny, min and max of a floating dtype (tapegrad has no torch.finfo yet)."""
    return np.finfo(np.dtype(dtype.numpy))


def broadcast_all(*values: Tensor | float) -> tuple[Tensor, ...]:
    """Tensors and numbers broadcast to one shape; numbers become tensors of the first
    tensor's dtype and device, or of the defaults when all are numbers."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = tapegrad.get_default_dtype() if first is None else first.dtype
    device = None if first is None else first.device
    tensors = [v if isinstance(v, Tensor) else tapegrad.tensor(v, dtype=dtype, device=device)
               for v in values]
    return tapegrad.broadcast_tensors(*tensors)


def _batch_shape(tensor: Tensor, *given: Tensor | float) -> Size:
    """A distribution's batch shape: none when its parameters were all given as numbers."""
    return tapegrad.Size() if all(isinstance(v, Number) for v in given) else tensor.size()


def _standard_normal(shape: _size, dtype: _dtype_t, device: _device_t) -> Tensor:
    # torch draws in place with normal_(), which fixes the stream's order
    return tapegrad.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """value summed over its dim rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return tapegrad.sigmoid(logits)
    return tapegrad.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    if is_binary:
        return tapegrad.log(clamped) - tapegrad.log1p(-clamped)
    return tapegrad.log(clamped)


class lazy_property(Generic[T, R]):
    """A property computed once (with grad enabled, as torch) and then stored on the
    instance, so that a parameter given either way (probs or logits) is derived on demand."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        # update_wrapper is typed for function wrappers; this instance takes the name and doc
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> _lazy_property_and_property[T, R]:
        ...

    @overload
    def __get__(self, instance: T, obj_type: Any = None) -> R: ...

    def __get__(self, instance: T | None,
                obj_type: Any = None) -> R | _lazy_property_and_property[T, R]:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with tapegrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property[T, R], property):
    """What the class attribute reads as: both kinds, so that documentation tools see a
    property."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    index = tapegrad.arange(n)
    return index < index.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle of mat (from diagonal diag) as a vector, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of tril_matrix_to_vec: a square matrix zero above diagonal diag."""
    # n solves n**2 + (1 + 2 diag) n - |diag| (diag + 1) - 2 len(vec) = 0
    linear = 1 + 2 * diag
    n = (-linear + (linear ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(finfo(vec.dtype).eps):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + tapegrad.Size((n, n)))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def _one_of(probs: P | None, logits: P | None) -> tuple[P, str]:
    """The parameter given of a probs-or-logits pair, and its name."""
    given = probs if logits is None else logits
    if given is None or (probs is not None and logits is not None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return given, "probs" if logits is None else "logits"


def _set_one_of(instance: object, probs: Tensor | float | None,
                logits: Tensor | float | None) -> tuple[Tensor, Size]:
    """Store the one of probs and logits given (a number becomes a tensor) on instance;
    return it and the batch shape (none for a number)."""
    given, name = _one_of(probs, logits)
    (tensor,) = broadcast_all(given)
    setattr(instance, name, tensor)
    return tensor, _batch_shape(tensor, given)


def _set_count_and_one_of(instance: Any, total_count: Tensor | float,
                          probs: Tensor | float | None, logits: Tensor | float | None) -> Size:
    """Store total_count (in the parameter's dtype) and the one of probs and logits given,
    broadcast together, on instance (as _param too); return their shape."""
    given, name = _one_of(probs, logits)
    total_count, instance._param = broadcast_all(total_count, given)
    instance.total_count = total_count.type_as(instance._param)
    setattr(instance, name, instance._param)
    return instance._param.size()


def _probs_and_logits(is_binary: bool) -> tuple[lazy_property[Any, Tensor],
                                                lazy_property[Any, Tensor]]:
    """lazy probs and logits properties, each derived from the other when not given."""
    def probs(self: Any) -> Tensor:
        return logits_to_probs(self.logits, is_binary=is_binary)

    def logits(self: Any) -> Tensor:
        return probs_to_logits(self.probs, is_binary=is_binary)
    return lazy_property(probs), lazy_property(logits)
