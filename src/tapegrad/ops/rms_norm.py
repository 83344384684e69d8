"""rms_norm: each sample divided by the root mean square of its trailing normalized_shape
dims, then scaled by weight. torch composes it from ordinary ops on CPU, and so does this
(its graph ends MulBackward0 <- RsqrtBackward0 <- AddBackward1 <- MeanBackward1 <-
PowBackward0, as torch's)."""
import numpy as np

from .. import _dtype
from .conv import check_float
from .pointwise import add_scalar, pow, to_copy
from .reduction import mean
from .unary import rsqrt

_HALF_PRECISION = ("float16", "bfloat16")  # computed in float32, as torch's opmath


def _check_normalized_shape(input, normalized_shape, weight):
    if isinstance(normalized_shape, int):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        "ints, not int")
    shape = tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    if input.ndim < len(shape) or tuple(input.shape[input.ndim - len(shape):]) != shape:
        # unlike layer_norm's, torch's text puts no comma after the star
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of "
                           f"size{list(input.shape)}")
    return shape


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input^2) + eps) over the trailing normalized_shape dims, times weight;
    eps defaults to the machine epsilon of input's dtype."""
    shape = _check_normalized_shape(input, normalized_shape, weight)
    if not input.dtype.is_complex:  # complex input is computed as it is, as torch's
        check_float("rms_norm", input)
    if eps is None:
        eps = float(np.finfo(input.dtype.numpy).eps)
    compute = input
    if input.dtype.name in _HALF_PRECISION:
        compute = to_copy(input, _dtype.float32)
    dims = tuple(range(-len(shape), 0))
    result = compute * rsqrt(add_scalar(mean(pow(compute, 2), dims, keepdim=True), eps))
    if weight is not None:
        result = result * weight
    return result if result.dtype is input.dtype else to_copy(result, input.dtype)


FUNCTIONS = ["rms_norm"]
NN_FUNCTIONS = FUNCTIONS
