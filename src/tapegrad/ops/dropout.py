"""Dropout: elementwise, channel-wise (dropout1d/2d/3d) and alpha dropout; and the other
random nn function, gumbel_softmax.

Each is composed as ATen's _dropout_impl composes it: the input times a random mask
(MulBackward0), plus a constant shift for alpha dropout (AddBackward0). The masks are drawn
as torch's bernoulli_(1 - p) draws them, by the input's device's generator: on the cpu, after
manual_seed, torch's masks.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _random
from .._tensor import Tensor
from ._inplace import inplace as _in_place
from .pointwise import add, mul, require_tensors
from .shape import squeeze, unsqueeze
from .._warnings import warn

# Alpha dropout sets dropped units to -SELU_SCALE * SELU_ALPHA, SELU's limit at -infinity.
_ALPHA = 1.7580993408473766


def _check_probability(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, training, inplace, feature=False, alpha=False):
    """ATen's _dropout_impl. feature: one mask entry per (sample, channel), shared over the
    remaining dims. alpha: the result keeps the input's mean and variance for SELU nets."""
    _check_probability(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return _multiply(input, Tensor._make(np.zeros((), input.dtype.numpy)), inplace)
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not input.dtype.is_floating_point:
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy_name}")
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    dtype = np.dtype(input.dtype.numpy)
    kept = _random.bernoulli_mask(None, shape, 1 - p, input.device)  # bernoulli_(1 - p)
    # each step rounds to the input's dtype; its number is applied in float (double for
    # float64), as torch's kernels do for float16 and bfloat16
    number = np.float64 if dtype == np.float64 else np.float32
    kept = kept.astype(number)
    if not alpha:
        return _multiply(input, Tensor._make((kept / number(1 - p)).astype(dtype)), inplace)
    # scale and shift so that mean and variance survive
    scale = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    shift = ((kept - 1) * number(_ALPHA * scale)).astype(dtype).astype(number)
    shift = (shift + number(_ALPHA * scale * p)).astype(dtype)
    product = _multiply(input, Tensor._make((kept * number(scale)).astype(dtype)), inplace)
    return _in_place(add, product, Tensor._make(shift))


def _multiply(input, noise, inplace):
    return _in_place(mul, input, noise) if inplace else mul(input, noise)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1 / (1 - p)."""
    require_tensors("dropout", input=input)  # as torch, even where nothing is dropped
    return _dropout_impl(input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's negative limit, then an affine map
    restores the input's mean and variance."""
    require_tensors("alpha_dropout", input=input)
    return _dropout_impl(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels."""
    require_tensors("feature_alpha_dropout", input=input)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def _channel_dropout(input, p, training, inplace, batched):
    """Channel-wise dropout, run on a batch of one when the input has no batch dim."""
    if batched:
        return _dropout_impl(input, p, training, inplace, feature=True)
    if inplace:
        input.unsqueeze_(0)
        return _dropout_impl(input, p, training, True, feature=True).squeeze_(0)
    return squeeze(_dropout_impl(unsqueeze(input, 0), p, training, False, feature=True), 0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input."""
    _check_probability(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channel_dropout(input, p, training, inplace, batched=input.ndim == 3)


def _warn_unusual_dims(name, input, spatial):
    if input.ndim not in (spatial + 1, spatial + 2):
        warn(
            f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            f"warning, please use dropout instead. Note that {name} exists to provide "
            f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
            f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D "
            "inputs).")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) input. A 3-D input is taken as (N, C, L), as torch
    still does, with its warning."""
    _check_probability(p)
    _warn_unusual_dims("dropout2d", input, 2)
    if input.ndim == 3:
        warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.")
    return _dropout_impl(input, p, training, inplace, feature=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _check_probability(p)
    _warn_unusual_dims("dropout3d", input, 3)
    return _channel_dropout(input, p, training, inplace, batched=input.ndim == 5)


def _torch_variant(feature, alpha, inplace):
    """torch.dropout and its siblings: (input, p, train), positional as torch's."""
    def variant(input, p, train):
        return _dropout_impl(input, p, train, inplace, feature=feature, alpha=alpha)
    return variant


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau) along dim; with hard, the one-hot of its
    argmax in the forward and the soft sample's gradient (straight-through), as torch's."""
    from .._creation import empty_like, zeros_like
    from .._layout import contiguous_format
    if eps != 1e-10:
        warn("`eps` parameter is deprecated and has no effect.", UserWarning)
    # torch's draw, in its order: filling a contiguous tensor, whatever the logits' layout
    gumbels = -empty_like(logits, memory_format=contiguous_format).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    return (zeros_like(logits, memory_format=contiguous_format).scatter_(dim, index, 1.0)
            - soft.detach() + soft)


NN_FUNCTIONS = ("alpha_dropout dropout dropout1d dropout2d dropout3d "
                "feature_alpha_dropout gumbel_softmax").split()
FUNCTIONS = {f"{name}{'_' if inplace else ''}": _torch_variant(feature, alpha, inplace)
             for name, feature, alpha in (("dropout", False, False),
                                          ("alpha_dropout", False, True),
                                          ("feature_dropout", True, False),
                                          ("feature_alpha_dropout", True, True))
             for inplace in (False, True)}
