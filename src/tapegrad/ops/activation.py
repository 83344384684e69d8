"""Neural-network functions: activations, linear layers, embedding, padding, distances.

Where torch composes a function from other ops (softsign, tanhshrink, linear, normalize, ...),
it is composed here the same way, so the graph shows torch's nodes.
"""
import math

import numpy as np

from .. import _backend, _dtype, _random
from .._tensor import Tensor
from ..autograd import grad_mode
from . import unary
from ._checks import broadcast_shapes, wrap_dim
from ._define import defop
from ._inplace import copy_
from ._inplace import inplace as _in_place
from .linalg import addmm, matmul
from .pointwise import _C_TYPE_NAMES, add, add_scalar, clamp_min, div_scalar, where
from .reduction import aten_norm, norm, vector_norm
from .shape import constant_beside, expand, reshape, slice_view, t, zeros_of
from .unary import abs, erf, exp, sigmoid, tanh

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715
_NEGATIVE_SLOPE_INPLACE = (
    "In-place {} backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead.")


def _check_floating(input, kernel):
    """torch's CPU kernels of most activations exist for floating dtypes only."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.legacy_name}'")


# ---- rectifiers ----------------------------------------------------------------------------

def relu(input, inplace=False):
    """F.relu: torch.relu with an `inplace` flag."""
    return relu_(input) if inplace else unary.relu(input)


def relu_(input):
    return _in_place(unary.relu, input)


@defop("LeakyReluBackward0", save=("input", "negative_slope"))
def _leaky_relu(xp, input: Tensor, negative_slope=0.01):
    return xp.where(input > 0, input, input * negative_slope)


_leaky_relu.derivatives(input=lambda ctx: _leaky_relu_backward(
    ctx.grad, ctx.input, ctx.negative_slope, False))


# Note [Backward ops] in unary.py: torch's backward kernels are ops with nodes of their own.
@defop("LeakyReluBackwardBackward0", save=("input", "negative_slope"))
def _leaky_relu_backward(xp, grad_output: Tensor, input: Tensor, negative_slope, self_is_result):
    return xp.where(input > 0, grad_output, grad_output * negative_slope)


_leaky_relu_backward.derivatives(
    grad_output=lambda ctx: _leaky_relu_backward(ctx.grad, ctx.input, ctx.negative_slope, False),
    input=lambda ctx: zeros_of(ctx.grad))


# in place, torch differentiates through the result (x > 0 exactly where the result is > 0)
@defop("LeakyReluBackward1", save=("result", "negative_slope"))
def _leaky_relu_result(xp, input: Tensor, negative_slope=0.01):
    return _leaky_relu.forward(xp, input, negative_slope)


def _leaky_relu_grad_from_result(grad, result, negative_slope):
    _check_slope_from_result(negative_slope)
    return _leaky_relu_backward(grad, result, negative_slope, True)


def _check_slope_from_result(negative_slope):
    if negative_slope < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format("leakyReLu") + " File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting "
                           "in-place leakRelu backward calculation with negative slope")


_leaky_relu_result.derivatives(input=lambda ctx: _leaky_relu_grad_from_result(
    ctx.grad, ctx.result, ctx.negative_slope))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _check_floating(input, "leaky_relu_cpu")
    if inplace:
        return _in_place(_leaky_relu_result, input, negative_slope)
    return _leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


# ---- learned and random slopes: prelu, rrelu ------------------------------------------------

@defop("PreluKernelBackward0", save=("input", "weight"))
def _prelu_kernel(xp, input: Tensor, weight: Tensor):
    return xp.where(input > 0, input, weight * input)


def _prelu_grads(ctx):
    """Both gradients from one _prelu_kernel_backward call, shared by the two formulas."""
    grads = ctx.__dict__.get("prelu_grads")
    if grads is None:
        grads = ctx.prelu_grads = _prelu_kernel_backward(ctx.grad, ctx.input, ctx.weight)
    return grads


_prelu_kernel.derivatives(input=lambda ctx: _prelu_grads(ctx)[0],
                          weight=lambda ctx: _prelu_grads(ctx)[1])


@defop("PreluKernelBackwardBackward0", save=("grad_output", "input", "weight"))
def _prelu_kernel_backward(xp, grad_output: Tensor, input: Tensor, weight: Tensor):
    positive = input > 0
    return (xp.where(positive, grad_output, weight * grad_output),
            xp.where(positive, 0, input * grad_output))


def _prelu_grad_output_grad(ctx):
    # torch's: the kernel's gradients again, each from its own output's gradient
    input_grad, weight_grad = ctx.grads
    negative = 0.0
    if input_grad is not None:
        negative = input_grad * ctx.weight
    if weight_grad is not None:
        negative = negative + weight_grad * ctx.input
    return where(ctx.input >= 0, 0.0 if input_grad is None else input_grad, negative)


_prelu_kernel_backward.derivatives(
    grad_output=_prelu_grad_output_grad,
    input=lambda ctx: zeros_of(ctx.input) if ctx.grads[1] is None else where(
        ctx.input >= 0, 0.0, ctx.grad_output * ctx.grads[1]),
    weight=lambda ctx: zeros_of(ctx.input) if ctx.grads[0] is None else where(
        ctx.input >= 0, 0.0, ctx.grad_output * ctx.grads[0]))


def prelu(input, weight):
    """Leaky ReLU with learned slopes: a single one, or one per channel (dim 1)."""
    for position, (name, value) in enumerate((("input", input), ("weight", weight)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"prelu(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.legacy_name} "
                           f"and {weight.dtype.legacy_name}")
    _check_prelu_shapes(input, weight)
    _check_floating(input, "prelu_cpu")
    if input.ndim != weight.ndim:  # slopes along dim 1, broadcast over the others
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = reshape(weight, shape)
    return _prelu_kernel(input, weight)


def _check_prelu_shapes(input, weight):
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight.ndim}")


def _rrelu_forward(xp, input, noise, lower, upper, training):
    """noise: in training, each element's factor (1 where the input is positive); in eval
    the slope is fixed at the mean of the bounds."""
    if training:
        return input * noise
    return xp.where(input > 0, input, input * ((lower + upper) / 2))


def _rrelu_grad(ctx, from_result):
    """torch's rrelu_with_noise_backward: the drawn factors in training (1 at NaN, even where
    the bounds coincide), else leaky ReLU's gradient at the bounds' mean."""
    if from_result and not ctx.training:
        _check_slope_from_result((ctx.lower + ctx.upper) / 2)
    return _rrelu_with_noise_backward(ctx.grad, ctx.result if from_result else ctx.input,
                                      ctx.noise, ctx.lower, ctx.upper, ctx.training, from_result)


@defop("RreluWithNoiseBackwardBackward0", save=("input", "noise", "lower", "upper", "training"))
def _rrelu_with_noise_backward(xp, grad_output: Tensor, input: Tensor, noise, lower, upper,
                               training, self_is_result):
    if training:
        return grad_output * noise
    return xp.where(input > 0, grad_output, grad_output * ((lower + upper) / 2))


_rrelu_with_noise_backward.derivatives(
    grad_output=lambda ctx: _rrelu_with_noise_backward(ctx.grad, ctx.input, ctx.noise, ctx.lower,
                                                       ctx.upper, ctx.training, False),
    input=lambda ctx: zeros_of(ctx.grad))


@defop("RreluWithNoiseBackward0", save=("input", "noise", "lower", "upper", "training"))
def _rrelu_with_noise(xp, input: Tensor, noise, lower, upper, training):
    return _rrelu_forward(xp, input, noise, lower, upper, training)


@defop("RreluWithNoiseBackward1", save=("result", "noise", "lower", "upper", "training"))
def _rrelu_with_noise_result(xp, input: Tensor, noise, lower, upper, training):
    return _rrelu_forward(xp, input, noise, lower, upper, training)


_rrelu_with_noise.derivatives(input=lambda ctx: _rrelu_grad(ctx, from_result=False))
_rrelu_with_noise_result.derivatives(input=lambda ctx: _rrelu_grad(ctx, from_result=True))


def _rrelu_noise(input, lower, upper, training, generator):
    """Slopes drawn uniformly from [lower, upper] for the elements that are not positive."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _check_floating(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    if not training:
        return None
    slopes = _random.uniform_array(generator, input.shape, input.dtype, lower, upper,
                                   device=input.device)
    return _backend.array_module(input._data).where(input._data <= 0, slopes, 1).astype(
        input.dtype.numpy)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn per element in training, fixed at the mean of
    [lower, upper] in eval. The slopes are uniform_'s draws for every element (torch's
    kernel draws for the negative ones only, so its numbers differ)."""
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _torch_rrelu(input, lower, upper, training)


def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu: F.rrelu with a generator argument where F's has inplace."""
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return _rrelu_with_noise(input, noise, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return _in_place(_rrelu_with_noise_result, input, noise, lower, upper, training)


@defop("HardtanhBackward0", save=("input", "min_val", "max_val"))
def _hardtanh(xp, input: Tensor, min_val=-1.0, max_val=1.0):
    return xp.clip(input, min_val, max_val).astype(input.dtype, copy=False)


_hardtanh.derivatives(input=lambda ctx: _hardtanh_backward(ctx.grad, ctx.input, ctx.min_val,
                                                           ctx.max_val))


# torch passes no gradient at the bounds themselves
@defop("HardtanhBackwardBackward0", save=("input", "min_val", "max_val"))
def _hardtanh_backward(xp, grad_output: Tensor, input: Tensor, min_val, max_val):
    return xp.where((input <= min_val) | (input >= max_val), 0, grad_output)


_hardtanh_backward.derivatives(
    grad_output=lambda ctx: _hardtanh_backward(ctx.grad, ctx.input, ctx.min_val, ctx.max_val),
    input=lambda ctx: zeros_of(ctx.grad))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(_hardtanh, input, min_val, max_val)
    return _hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


@defop("ThresholdBackward0", save=("input", "threshold"))
def _threshold(xp, input: Tensor, threshold, value):
    return xp.where(input <= threshold, xp.asarray(value).astype(input.dtype), input)


def _threshold_backward(ctx):
    return unary.threshold_backward(ctx.grad, ctx.input, ctx.threshold)


_threshold.derivatives(input=_threshold_backward)


# in place: torch's own node name, the same formula on the input as it was
@defop("ThresholdBackward1", save=("input", "threshold"))
def _threshold_inplace(xp, input: Tensor, threshold, value):
    return _threshold.forward(xp, input, threshold, value)


_threshold_inplace.derivatives(input=_threshold_backward)


def threshold(input, threshold, value, inplace=False):
    if inplace:
        return _in_place(_threshold_inplace, input, threshold, value)
    return _threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _in_place(_threshold_inplace, input, threshold, value)


@defop("HardshrinkBackward0", save=("input", "lambd"))
def _hardshrink(xp, input: Tensor, lambd=0.5):
    return xp.where((input >= -lambd) & (input <= lambd), 0, input).astype(input.dtype)


@defop("SoftshrinkBackward0", save=("input", "lambd"))
def _softshrink(xp, input: Tensor, lambd=0.5):
    shrunk = xp.where(input > lambd, input - lambd, input + lambd)
    return xp.where((input >= -lambd) & (input <= lambd), 0, shrunk).astype(input.dtype)


def _shrink_backward(node_name, name):
    """hardshrink_backward and softshrink_backward: no gradient for |x| <= lambd."""
    @defop(node_name, save=("input", "lambd"), name=name)
    def shrink_backward(xp, grad_output: Tensor, input: Tensor, lambd):
        return xp.where((input >= -lambd) & (input <= lambd), 0, grad_output)

    shrink_backward.derivatives(
        grad_output=lambda ctx: shrink_backward(ctx.grad, ctx.input, ctx.lambd),
        input=lambda ctx: zeros_of(ctx.grad))
    return shrink_backward


_hardshrink_backward = _shrink_backward("HardshrinkBackwardBackward0", "_hardshrink_backward")
_softshrink_backward = _shrink_backward("SoftshrinkBackwardBackward0", "_softshrink_backward")
_hardshrink.derivatives(input=lambda ctx: _hardshrink_backward(ctx.grad, ctx.input, ctx.lambd))
_softshrink.derivatives(input=lambda ctx: _softshrink_backward(ctx.grad, ctx.input, ctx.lambd))


def hardshrink(input, lambd=0.5):
    _check_floating(input, "hardshrink_cpu")
    return _hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    _check_floating(input, "softshrink_check")
    if lambd < 0:
        largest = np.finfo(input.dtype.numpy).max
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{input.dtype.legacy_name}, but found {lambd:g}")
    return _softshrink(input, lambd)


# ---- exponential units: elu, selu, celu ----------------------------------------------------

def _exponential_unit(node_name, name, from_result):
    """elu(x) = scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1). CELU and
    SELU are ELUs; torch names their nodes apart, and in place differentiates the result."""
    saved = ("result" if from_result else "input", "alpha", "scale", "input_scale")

    @defop(node_name, save=saved, name=name)
    def unit(xp, input: Tensor, alpha, scale, input_scale):
        negative = xp.expm1(input * input_scale) * (alpha * scale)
        return xp.where(input > 0, input * scale, negative)

    unit.derivatives(input=_elu_result_backward if from_result else _elu_backward)
    return unit


def _elu_backward(ctx):
    return elu_backward(ctx.grad, ctx.alpha, ctx.scale, ctx.input_scale, False, ctx.input)


def _elu_result_backward(ctx):
    if ctx.alpha < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format("elu"))
    return elu_backward(ctx.grad, ctx.alpha, ctx.scale, ctx.input_scale, True, ctx.result)


@defop("EluBackwardBackward0", save=("alpha", "scale", "input_scale", "is_result",
                                     "self_or_result", "grad_output"))
def elu_backward(xp, grad_output: Tensor, alpha, scale, input_scale, is_result,
                 self_or_result: Tensor):
    """The gradient through elu from its input or, in place, from its result y (whose
    negative branch has derivative input_scale * (y + alpha * scale))."""
    if is_result:
        slope = (self_or_result + alpha * scale) * input_scale
    else:
        # exp of the negative part only, so the branch not taken stays finite
        negative = xp.where(self_or_result < 0, self_or_result, 0)
        slope = xp.exp(negative * input_scale) * (alpha * scale * input_scale)
    # torch tests <= 0, so NaN takes the linear side
    return xp.where(self_or_result <= 0, grad_output * slope, grad_output * scale)


def _elu_double_backward(ctx):
    """The second derivative is 0 where x >= 0, as torch's elu_double_backward (it masks by
    x < 0); from the result it is input_scale there."""
    product = ctx.grad * ctx.grad_output * ctx.input_scale
    if not ctx.is_result:
        product = elu_backward(product, ctx.alpha, ctx.scale, ctx.input_scale, False,
                               ctx.self_or_result)
    return where(ctx.self_or_result < 0, product, 0.0)


elu_backward.derivatives(
    grad_output=lambda ctx: elu_backward(ctx.grad, ctx.alpha, ctx.scale, ctx.input_scale,
                                         ctx.is_result, ctx.self_or_result),
    self_or_result=_elu_double_backward)


_elu = _exponential_unit("EluBackward0", "_elu", from_result=False)
_elu_result = _exponential_unit("EluBackward1", "_elu_result", from_result=True)
_celu = _exponential_unit("CeluBackward0", "_celu", from_result=False)
_celu_result = _exponential_unit("CeluBackward1", "_celu_result", from_result=True)


def _apply_unit(op, input, inplace, alpha, scale=1.0, input_scale=1.0):
    _check_floating(input, "elu_cpu")
    if inplace:
        return _in_place(op, input, alpha, scale, input_scale)
    return op(input, alpha, scale, input_scale)


def elu(input, alpha=1.0, inplace=False):
    return _apply_unit(_elu_result if inplace else _elu, input, inplace, alpha)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    return _apply_unit(_elu_result if inplace else _elu, input, inplace, _SELU_ALPHA,
                       _SELU_SCALE)


def selu_(input):
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _apply_unit(_celu_result if inplace else _celu, input, inplace, alpha,
                       input_scale=1.0 / alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


# ---- smooth activations --------------------------------------------------------------------

@defop("GeluBackward0", save=("input", "approximate"))
def _gelu(xp, input: Tensor, approximate="none"):
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (input + _GELU_CUBIC * (input * input * input))
        return 0.5 * input * (1 + xp.tanh(inner))
    return input * 0.5 * (1 + erf.forward(xp, input * _SQRT_HALF))


_gelu.derivatives(input=lambda ctx: _gelu_backward(ctx.grad, ctx.input, ctx.approximate))


@defop("GeluBackwardBackward0", save=("grad_output", "input", "approximate"))
def _gelu_backward(xp, grad_output: Tensor, input: Tensor, approximate="none"):
    x = input
    if approximate == "tanh":
        inner_tanh = xp.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * (x * x * x)))
        inner_slope = _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * (x * x))
        return grad_output * (0.5 * (1 + inner_tanh)
                              + 0.5 * x * (1 - inner_tanh * inner_tanh) * inner_slope)
    normal_cdf = 0.5 * (1 + erf.forward(xp, x * _SQRT_HALF))
    normal_pdf = xp.exp(-0.5 * (x * x)) * (_SQRT_HALF / math.sqrt(math.pi))
    return grad_output * (normal_cdf + x * normal_pdf)


def _gelu_double_backward(ctx):
    """gelu''(x): pdf(x) * (2 - x**2) exactly; for the tanh form, with u = k (x + c x**3),
    (1 - tanh(u)**2) * (u' - x tanh(u) u'**2 + x u'' / 2)."""
    x = ctx.input
    if ctx.approximate == "tanh":
        inner_tanh = tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * (x * x * x)))
        inner_slope = _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * (x * x))
        curvature = 1 - inner_tanh * inner_tanh
        second = curvature * (inner_slope - x * inner_tanh * inner_slope * inner_slope
                              + x * (3 * _SQRT_2_OVER_PI * _GELU_CUBIC) * x)
    else:
        second = exp(-0.5 * (x * x)) * (_SQRT_HALF / math.sqrt(math.pi)) * (2 - x * x)
    return ctx.grad * ctx.grad_output * second


_gelu_backward.derivatives(
    grad_output=lambda ctx: _gelu_backward(ctx.grad, ctx.input, ctx.approximate),
    input=_gelu_double_backward)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    return _gelu(input, approximate)


@defop("SiluBackward0", save=("input",))
def _silu(xp, input: Tensor):
    return input / (1 + xp.exp(-input))


def _silu_backward(ctx):
    gate = sigmoid(ctx.input)
    return ctx.grad * gate * add_scalar(ctx.input * (1 - gate), 1)


_silu.derivatives(input=_silu_backward)


@defop("MishBackward0", save=("input",))
def _mish(xp, input: Tensor):
    return input * xp.tanh(xp.log1p(xp.exp(input)))


def _mish_backward(ctx):
    x = ctx.input
    tanh_softplus = tanh(_softplus(x))
    return ctx.grad * (tanh_softplus + x * sigmoid(x) * (1 - tanh_softplus * tanh_softplus))


_mish.derivatives(input=_mish_backward)


@defop("SoftplusBackward0", save=("input", "beta", "threshold"))
def _softplus(xp, input: Tensor, beta=1.0, threshold=20.0):
    # above the threshold log(1 + exp(x)) is x to working precision: torch returns x
    scaled = input * beta
    return xp.where(scaled > threshold, input, xp.log1p(xp.exp(scaled)) / beta)


_softplus.derivatives(input=lambda ctx: _softplus_backward(ctx.grad, ctx.input, ctx.beta,
                                                           ctx.threshold))


@defop("SoftplusBackwardBackward0", save=("grad_output", "input", "beta", "threshold"))
def _softplus_backward(xp, grad_output: Tensor, input: Tensor, beta, threshold):
    scaled = input * beta
    return xp.where(scaled > threshold, grad_output,
                    grad_output * sigmoid.forward(xp, scaled))


def _softplus_double_backward(ctx):
    gate = sigmoid(ctx.input * ctx.beta)
    slope = gate * (1 - gate) * ctx.beta
    return where(ctx.input * ctx.beta > ctx.threshold, 0.0, ctx.grad * ctx.grad_output * slope)


_softplus_backward.derivatives(
    grad_output=lambda ctx: _softplus_backward(ctx.grad, ctx.input, ctx.beta, ctx.threshold),
    input=_softplus_double_backward)


@defop("LogSigmoidBackward0", save=("input",))
def _logsigmoid(xp, input: Tensor):
    return xp.minimum(input, 0) - xp.log1p(xp.exp(-xp.abs(input)))


_logsigmoid.derivatives(input=lambda ctx: _log_sigmoid_backward(ctx.grad, ctx.input))


# torch's kernel also takes a buffer from the forward; it is no input of the graph
@defop("LogSigmoidBackwardBackward0", save=("grad_output", "input"))
def _log_sigmoid_backward(xp, grad_output: Tensor, input: Tensor):
    return grad_output * sigmoid.forward(xp, -input)


def _log_sigmoid_double_backward(ctx):
    gate = sigmoid(ctx.input)
    return ctx.grad * ctx.grad_output * ((gate - 1) * gate)


_log_sigmoid_backward.derivatives(
    grad_output=lambda ctx: _log_sigmoid_backward(ctx.grad, ctx.input),
    input=_log_sigmoid_double_backward)


@defop("HardsigmoidBackward0", save=("input",))
def _hardsigmoid(xp, input: Tensor):
    return _relu6_of_shifted(xp, input) / 6


def _relu6_of_shifted(xp, input):
    """min(max(input + 3, 0), 6) in the input's dtype (xp.clip of bfloat16 gives float32)."""
    return xp.clip(input + 3, 0, 6).astype(input.dtype, copy=False)


# torch's kernel multiplies by 1/6 rounded to float32, whatever the dtype: copied on purpose
_ONE_SIXTH_FLOAT32 = float(np.float32(1 / 6))

# torch's hardsigmoid_backward has no derivative (its node is NotImplemented, so a double
# backward raises); composed here, as forward AD differentiates the backward once more.
_hardsigmoid.derivatives(input=lambda ctx: where((ctx.input > -3) & (ctx.input < 3),
                                                 ctx.grad * _ONE_SIXTH_FLOAT32, 0.0))


@defop("HardswishBackward0", save=("input",))
def _hardswish(xp, input: Tensor):
    return input * _relu6_of_shifted(xp, input) / 6


_hardswish.derivatives(input=lambda ctx: _hardswish_backward(ctx.grad, ctx.input))


# torch's subgradients: 0 at -3, 1 at 3
@defop("HardswishBackwardBackward0", save=("grad_output", "input"))
def _hardswish_backward(xp, grad_output: Tensor, input: Tensor):
    inside = grad_output * (input / 3 + 0.5)
    return xp.where(input <= -3, 0, xp.where(input < 3, inside, grad_output))


_hardswish_backward.derivatives(
    grad_output=lambda ctx: _hardswish_backward(ctx.grad, ctx.input),
    input=lambda ctx: where((ctx.input > -3) & (ctx.input < 3),
                            div_scalar(ctx.grad * ctx.grad_output, 3.0), 0.0))


def _elementwise(op, kernel):
    """The F.<name>(input, inplace=False) function of a one-input activation op."""
    def activation(input, inplace=False):
        _check_floating(input, kernel)
        return _in_place(op, input) if inplace else op(input)
    return activation


mish = _elementwise(_mish, "mish_cpu")
hardsigmoid = _elementwise(_hardsigmoid, "hardsigmoid_cpu")
hardswish = _elementwise(_hardswish, "hardswish_cpu")


def silu(input, inplace=False):
    """x * sigmoid(x). Of complex values torch records no derivative out of place (silu is not
    on its complex autograd list) but records one in place, the real formula unconjugated."""
    if not input.dtype.is_complex:
        _check_floating(input, "silu_cpu")
    elif not inplace and input.requires_grad and grad_mode.is_recording():
        raise RuntimeError("silu does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return _in_place(_silu, input) if inplace else _silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    _check_floating(input, "softplus_cpu")
    return _softplus(input, beta, threshold)


def logsigmoid(input):
    _check_floating(input, "log_sigmoid_cpu")
    return _logsigmoid(input)


def softsign(input):
    return input / (abs(input) + 1)


def tanhshrink(input):
    return input - tanh(input)


@defop("GluBackward0", save=("input", "dim"))
def _glu(xp, input: Tensor, dim):
    first, second = xp.split(input, 2, axis=dim)
    return first / (1 + xp.exp(-second))


_glu.derivatives(input=lambda ctx: _glu_backward(ctx.grad, ctx.input, ctx.dim))


@defop("GluBackwardBackward0", save=("grad_output", "input", "dim"))
def _glu_backward(xp, grad_output: Tensor, input: Tensor, dim):
    first, second = xp.split(input, 2, axis=dim)
    gate = sigmoid.forward(xp, second)
    first_grad = grad_output * gate
    return xp.concatenate((first_grad, first_grad * first * (1 - gate)), axis=dim)


def _halves(tensor, dim):
    half = tensor.shape[dim] // 2
    lead = (slice(None),) * dim
    return tensor[lead + (slice(None, half),)], tensor[lead + (slice(half, None),)]


def _side_by_side(first, second, dim):
    """Two halves' gradients, joined along dim."""
    half = first.shape[dim]
    after = (0, 0) * (first.ndim - 1 - dim)
    return (_constant_pad_nd(first, after + (0, half))
            + _constant_pad_nd(second, after + (half, 0)))


def _glu_grad_output_grad(ctx):
    """glu's Jacobian applied to grad (the gradient of glu_backward's linear grad_output)."""
    first, second = _halves(ctx.input, ctx.dim)
    first_grad, second_grad = _halves(ctx.grad, ctx.dim)
    gate = sigmoid(second)
    return first_grad * gate + second_grad * first * (gate * (1 - gate))


def _glu_double_backward(ctx):
    first, second = _halves(ctx.input, ctx.dim)
    first_grad, second_grad = _halves(ctx.grad, ctx.dim)
    gate = sigmoid(second)
    slope = gate * (1 - gate)
    weighted = ctx.grad_output * slope
    return _side_by_side(second_grad * weighted, first_grad * weighted
                         + second_grad * ctx.grad_output * first * (slope * (1 - 2 * gate)),
                         ctx.dim)


_glu_backward.derivatives(grad_output=_glu_grad_output_grad, input=_glu_double_backward)


def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = wrap_dim(dim, input.ndim)
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size "
                           f"{input.shape[dim]}")
    _check_floating(input, "glu_cpu")
    return _glu(input, dim)


# ---- linear layers -------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """input @ weight.T + bias, composed as torch composes it: addmm for 2-D inputs, a
    flattened addmm for contiguous ones with a bias along one dim, else matmul and add_."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if bias is not None and input.ndim == 2:
        return addmm(bias, input, t(weight))
    # torch 2.13 flattens the batch dims into one addmm when the bias varies along one dim
    along_one_dim = bias is not None and (bias.ndim == 1 or sum(n != 1 for n in bias.shape) == 1)
    if along_one_dim and input.is_contiguous():
        rows = math.prod(input.shape[:-1])
        result = addmm(bias, reshape(input, rows, input.shape[-1]), t(weight))
        return result.view(input.shape[:-1] + (result.shape[1],))
    result = matmul(input, t(weight))
    return result if bias is None else _in_place(add, result, bias)


@defop("TrilinearBackward0", save=("i1", "i2", "i3", "expand1", "expand2", "expand3",
                                   "sumdim"))
def _trilinear(xp, i1: Tensor, i2: Tensor, i3: Tensor, expand1, expand2, expand3, sumdim):
    """The product of three tensors placed in one frame of dims (each lacks its `expand`
    dims), summed over `sumdim`."""
    frame = i1.ndim + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:frame]

    def subscript(missing):
        return "".join(letter for d, letter in enumerate(letters) if d not in missing)
    spec = (f"{subscript(expand1)},{subscript(expand2)},{subscript(expand3)}->"
            f"{subscript(sumdim)}")
    if i1.dtype.itemsize == 2:  # half precision: summed in float32, rounded once, as torch's
        summed = xp.einsum(spec, *(a.astype(xp.float32) for a in (i1, i2, i3)), optimize=True)
        return summed.astype(i1.dtype)
    return xp.einsum(spec, i1, i2, i3, optimize=True)


# each input's gradient is a trilinear product of the other two with the gradient, placed
# where the output sits in the frame and summed over the dims that input lacks
_trilinear.derivatives(
    i1=lambda ctx: _trilinear(ctx.grad, ctx.i2, ctx.i3, ctx.sumdim, ctx.expand2, ctx.expand3,
                              ctx.expand1),
    i2=lambda ctx: _trilinear(ctx.i1, ctx.grad, ctx.i3, ctx.expand1, ctx.sumdim, ctx.expand3,
                              ctx.expand2),
    i3=lambda ctx: _trilinear(ctx.i1, ctx.i2, ctx.grad, ctx.expand1, ctx.expand2, ctx.sumdim,
                              ctx.expand3))


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = input1[..., i] weight[o, i, j] input2[..., j] (+ bias[o])."""
    _check_bilinear_dtypes(input1, input2, weight, bias)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} "
                           f"and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: "
                               f"got {input1.shape[d]} and {input2.shape[d]}")
    if input1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    for k, given in ((1, input1), (2, input2)):
        if given.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{given.shape[-1]} but expected {weight.shape[k]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    flat1 = reshape(input1, -1, input1.shape[-1])
    flat2 = reshape(input2, -1, input2.shape[-1])
    result = reshape(_trilinear(flat1, weight, flat2, (1, 3), (0,), (1, 2), (2, 3)),
                     input1.shape[:-1] + (weight.shape[0],))
    return result if bias is None else result + bias


def _check_bilinear_dtypes(input1, input2, weight, bias):
    named = [("input1", input1), ("input2", input2), ("weight", weight)]
    named += [] if bias is None else [("bias", bias)]
    if any(tensor.dtype is not input1.dtype for _, tensor in named):
        got = ", ".join(f"{name}: {_C_TYPE_NAMES.get(str(tensor.dtype)[6:], tensor.dtype)}"
                        for name, tensor in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")


# ---- embedding and one_hot -----------------------------------------------------------------

@defop("EmbeddingBackward0", save=("indices", "padding_idx", "scale_grad_by_freq"))
def _embedding(xp, weight: Tensor, indices, padding_idx=-1, scale_grad_by_freq=False):
    return weight[indices]


def _row_shares(xp, rows, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """How much of each read row's gradient reaches the weight: none for the padding row, a
    1/count share when scale_grad_by_freq."""
    shares = xp.ones(rows.size, dtype)
    if padding_idx >= 0:
        shares[rows == padding_idx] = 0
    if scale_grad_by_freq:
        shares /= xp.bincount(rows, minlength=num_weights)[rows]
    return shares


@defop("EmbeddingDenseBackwardBackward0", save=("indices", "num_weights", "padding_idx",
                                                "scale_grad_by_freq"))
def _embedding_dense_backward(xp, grad_output: Tensor, indices, num_weights, padding_idx,
                              scale_grad_by_freq):
    """torch's embedding_dense_backward: each row of the gradient adds into the weight row it
    was read from."""
    rows = indices.reshape(-1)
    grad = grad_output.reshape(rows.size, grad_output.shape[-1])
    result = xp.zeros((num_weights, grad.shape[1]), grad.dtype)
    shares = _row_shares(xp, rows, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
    xp.add.at(result, rows, grad * shares[:, None])
    return result


def _embedding_dense_double_backward(ctx):
    """The weight-shaped gradient read back at the rows, 0 for the padding row. No 1/count for
    scale_grad_by_freq: the embedding's own backward, which the gradient reaches next, scales
    by it again (so torch's second derivative is that of its first)."""
    picked = _embedding(ctx.grad, ctx.indices)
    if ctx.padding_idx < 0:
        return picked
    kept = ctx.indices != ctx.padding_idx
    return picked * Tensor._make(kept.reshape(ctx.indices.shape + (1,)))


_embedding_dense_backward.derivatives(grad_output=_embedding_dense_double_backward)
_embedding.derivatives(weight=lambda ctx: _embedding_dense_backward(
    ctx.grad, ctx.indices, ctx.weight_shape[0], ctx.padding_idx, ctx.scale_grad_by_freq))


@defop("EmbeddingBackward0", save=("indices", "padding_idx", "scale_grad_by_freq"))
def _embedding_sparse(xp, weight: Tensor, indices, padding_idx=-1, scale_grad_by_freq=False):
    """embedding(sparse=True): the same rows, with a sparse COO gradient of the weight."""
    return weight[indices]


def _embedding_sparse_backward(ctx):
    from .._sparse import embedding_grad
    return embedding_grad(ctx.grad, ctx.indices, ctx.weight_shape[0], ctx.padding_idx,
                          ctx.scale_grad_by_freq)


_embedding_sparse.derivatives(weight=_embedding_sparse_backward)
_embedding_sparse.on_arrays = False  # its gradient is a sparse Tensor, never a plain array


@defop(None)
def _embedding_renorm(xp, weight: Tensor, indices, max_norm, norm_type):
    rows = xp.unique(indices)
    norms = xp.linalg.norm(weight[rows], ord=norm_type, axis=1)
    result = weight.copy()
    result[rows] *= xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)[:, None]
    return result


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by the indices in input. max_norm rescales, in place, the rows
    read whose norm exceeds it (as torch). sparse=True makes the weight's gradient sparse COO."""
    size = weight.shape[0] if weight.ndim else 0
    if padding_idx is not None and not -size <= padding_idx < max(size, 1):
        raise AssertionError("Padding_idx must be within num_embeddings")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch."
                           f"{input.dtype.legacy_name}Tensor instead (while checking "
                           "arguments for embedding)")
    indices = input._data
    if ((indices < 0) | (indices >= size)).any():
        raise IndexError("index out of range in self")
    if max_norm is not None:
        if not (weight.dtype.is_floating_point or weight.dtype.is_complex):
            raise RuntimeError("norm(): input dtype should be either floating point or "
                               f"complex. Got {weight.dtype.legacy_name} instead.")
        with grad_mode.no_grad():
            _in_place(_embedding_renorm, weight, indices, max_norm, norm_type)
    if padding_idx is None:
        padding_idx = -1  # torch.embedding's "no padding row"
    elif padding_idx < 0:
        padding_idx += size
    return (_embedding_sparse if sparse else _embedding)(weight, indices, padding_idx,
                                                         scale_grad_by_freq)


def one_hot(input, num_classes=-1):
    """int64 one-hot encoding along a new last dim."""
    if input.dtype is not _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    classes = input._data
    if classes.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif classes.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    elif num_classes == -1:
        num_classes = int(classes.max()) + 1
    elif num_classes <= classes.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    xp = _backend.array_module(classes)
    return Tensor._make((classes[..., None] == xp.arange(num_classes)).astype(np.int64))


# ---- padding -------------------------------------------------------------------------------

@defop("ConstantPadNdBackward0", save=("pad",))
def _constant_pad_nd(xp, input: Tensor, pad, value=0):
    """pad = (before, after) pairs from the last dim backwards; negative entries crop."""
    pairs = [pad[i:i + 2] for i in range(0, len(pad), 2)][::-1]
    lead = input.ndim - len(pairs)
    crop = tuple(slice(max(-before, 0), size + min(after, 0))
                 for (before, after), size in zip(pairs, input.shape[lead:]))
    widths = [(0, 0)] * lead + [(max(before, 0), max(after, 0)) for before, after in pairs]
    if not input.ndim:
        return input.copy()  # NumPy cannot pad a 0-d array, even by nothing
    return xp.pad(input[(Ellipsis,) + crop], widths, constant_values=value)


_constant_pad_nd.derivatives(input=lambda ctx: _constant_pad_nd(ctx.grad,
                                                                tuple(-p for p in ctx.pad)))


def _gathering_pad(node_name, name):
    """A reflection or replication pad: each output element copies one input element, along
    the padded dims `sources` ((dim, source index per output position), ...)."""
    @defop(node_name, save=("input", "sources"), name=name)
    def padded(xp, input: Tensor, sources):
        for dim, source in sources:
            input = xp.take(input, source, axis=dim)
        return input

    # torch's reflection_pad1d_backward & co.: the gradient of every copy summed into its source
    @defop(node_name.replace("Backward0", "BackwardBackward0"), save=("sources",),
           name=name + "_backward")
    def padded_backward(xp, grad_output: Tensor, input: Tensor, sources):
        grad = grad_output
        for dim, source in reversed(sources):
            dim %= grad.ndim
            summed = xp.zeros(grad.shape[:dim] + input.shape[dim:dim + 1] + grad.shape[dim + 1:],
                              grad.dtype)
            xp.add.at(summed, (slice(None),) * dim + (source,), grad)
            grad = summed
        return grad

    padded.derivatives(input=lambda ctx: padded_backward(ctx.grad, ctx.input, ctx.sources))
    padded_backward.derivatives(grad_output=lambda ctx: padded(ctx.grad, ctx.sources),
                                input=lambda ctx: zeros_of(ctx.grad))
    return padded


_GATHERING_PADS = {(mode, n): _gathering_pad(f"{mode.title()}Pad{n}DBackward0",
                                             f"_{mode.lower()}_pad{n}d")
                   for mode in ("Reflection", "Replication") for n in (1, 2, 3)}


def pad(input, pad, mode="constant", value=None):
    """Pad (or crop, with negative sizes) the last len(pad) // 2 dims: pad lists (before,
    after) from the last dim backwards. Modes constant, reflect, replicate and circular."""
    _check_ints(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _constant_pad(input, tuple(pad), 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _circular_pad(input, pad)
    _check_gathering_pad(input, pad, mode)
    sources = tuple((-1 - k, _pad_sources(input.shape[-1 - k], *pad[2 * k:2 * k + 2], mode))
                    for k in range(n))
    # the host-made source positions go to the data's device
    sources = tuple((dim, constant_beside(input._data, source)) for dim, source in sources)
    padded = _GATHERING_PADS["Reflection" if mode == "reflect" else "Replication", n]
    return padded(input, sources)


def _check_ints(pad):
    """torch's argument parser: it judges the sequence by its first element, then unpacks."""
    if pad and type(pad[0]) is not int:
        raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but found "
                        f"element of type {type(pad[0]).__name__} at pos 0")
    for position, size in enumerate(pad, 1):
        if not isinstance(size, int):
            raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {position} "
                            f"with error \"type must be tuple of ints,but got "
                            f"{type(size).__name__}\"")


def _pad_sources(size, before, after, mode):
    """The input position each output position copies, along one dim."""
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    positions = np.abs(positions)
    return np.where(positions >= size, 2 * (size - 1) - positions, positions)


def _circular_pad(input, pad):
    """ATen's _pad_circular, composed as torch composes it (so the graph is its chain of
    CopySlices): the input copied into the middle of a new tensor, then the ends of each
    padded dim, last dim first, copied from the other side of that dim."""
    ndim, n = input.ndim, len(pad) // 2
    pairs = {dim: tuple(pad[2 * (ndim - 1 - dim):2 * (ndim - dim)])
             for dim in range(ndim - n, ndim)}  # torch checks the outermost dim first
    shape = list(input.shape)
    for dim, (before, after) in pairs.items():
        if before > shape[dim] or after > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[dim] += before + after
        if shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = Tensor._make(_backend.array_module(input._data).empty(shape, input.dtype.numpy))
    target, source = out, input
    for dim, (before, after) in reversed(pairs.items()):
        target = slice_view(target, dim, max(before, 0), shape[dim] - max(after, 0), 1)
        source = slice_view(source, dim, max(-before, 0), input.shape[dim] - max(-after, 0), 1)
    copy_(target, source)
    for dim, (before, after) in reversed(pairs.items()):
        end = shape[dim] - max(after, 0)  # where the copied input ends along dim
        if before > 0:
            copy_(slice_view(out, dim, 0, before, 1), slice_view(out, dim, end - before, end, 1))
        if after > 0:
            start = max(before, 0)
            copy_(slice_view(out, dim, shape[dim] - after, shape[dim], 1),
                  slice_view(out, dim, start, start + after, 1))
    return out


def _constant_pad(input, pad, value):
    for k in range(len(pad) // 2):
        size, before, after = input.shape[-1 - k], pad[2 * k], pad[2 * k + 1]
        if size + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    return _constant_pad_nd(input, pad, value)


def _check_gathering_pad(input, pad, mode):
    """torch's checks of reflection_padNd / replication_padNd, in its words."""
    n, shape = len(pad) // 2, list(input.shape)
    batched = input.ndim == n + 2
    if 0 in shape[int(batched):]:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{shape}")
    sizes = shape[-1:-n - 1:-1]  # W, H, D
    if mode == "reflect":
        for k, size in enumerate(sizes):
            before, after = pad[2 * k:2 * k + 2]
            if before >= size or after >= size:
                raise RuntimeError(
                    f"Argument #{4 + 2 * k}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({before}, {after}) at "
                    f"dimension {input.ndim - 1 - k} of input {shape}")
    outputs = [size + pad[2 * k] + pad[2 * k + 1] for k, size in enumerate(sizes)]
    if all(size < 1 for size in outputs):
        raise RuntimeError(_too_small(sizes[::-1], outputs[::-1], mode))


def _too_small(sizes, outputs, mode):
    names = "DHW"[-len(sizes):]
    given = {1: "W: {}", 2: "H: {}, W: {}" + (" " if mode == "replicate" else ""),
             3: "D: {} H: {}, W: {}"}[len(sizes)].format(*sizes)
    calculated = " ".join(f"{name}: {size}" for name, size in zip(names, outputs))
    return f"input ({given}) is too small. Calculated output {calculated}"


# ---- normalisation and distances -----------------------------------------------------------

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps). out= is not supported."""
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported by tapegrad")
    return input / expand(clamp_min(norm(input, p, dim, keepdim=True), eps), input.shape)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Each input divided by its norm along dim (at least eps) first, then the dot product."""
    common = _dtype.result_type([x.dtype for x in (x1, x2) if x.ndim],
                                [x.dtype for x in (x1, x2) if not x.ndim], [])
    if not common.is_floating_point:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{common.legacy_name}")
    x1, x2 = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = expand(x1, shape), expand(x2, shape)
    # torch clamps clones of the norms in place without recording it: the gradient ignores eps
    norm1 = vector_norm(x1, 2, dim, keepdim=True).clone()
    norm2 = vector_norm(x2, 2, dim, keepdim=True).clone()
    with grad_mode.no_grad():
        _in_place(clamp_min, norm1, eps)
        _in_place(clamp_min, norm2, eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    last = max(x1.ndim, x2.ndim) - 1
    difference = add_scalar(x1 - x2, eps)
    dim = (wrap_dim(last, difference.ndim),) if difference.ndim else ()
    return aten_norm(difference, float(p), dim, keepdim)


# Public names: tapegrad.X, Tensor.X and tapegrad.nn.functional.X, bound by ops/__init__.py.
# torch.embedding takes other arguments than F's: not exported as torch.X.
FUNCTIONS = {name: globals()[name] for name in (
    "bilinear celu celu_ cosine_similarity hardshrink pairwise_distance prelu relu_ rrelu_ selu "
    "selu_ threshold threshold_").split()}
FUNCTIONS["rrelu"] = _torch_rrelu
METHODS = ["hardshrink", "prelu", "relu_"]
NN_FUNCTIONS = (
    "bilinear celu celu_ cosine_similarity elu elu_ embedding gelu glu hardshrink "
    "hardsigmoid hardswish hardtanh hardtanh_ leaky_relu leaky_relu_ linear logsigmoid mish "
    "normalize one_hot pad pairwise_distance prelu relu relu6 relu_ rrelu rrelu_ selu selu_ "
    "sigmoid silu softplus softshrink softsign tanh tanhshrink threshold threshold_").split()
