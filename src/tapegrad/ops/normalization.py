"""Normalisation: layer_norm, batch_norm, group_norm (and torch's native_* forms of the three,
which also return the statistics), instance_norm (batch_norm over a batch of one, as torch
composes it) and local_response_norm.

Each op normalises over its dims in the forward. Layer and batch norm's gradients come from
torch's backward functions, ops of their own (native_layer_norm_backward,
native_batch_norm_backward: one array-level call per backward) whose derivatives recompute
mean and 1/std from the input in tapegrad ops, so every order is exact. Group norm's formulas
are tapegrad ops throughout.
"""
import functools

import numpy as np

from .. import _backend
from .._tensor import Tensor
from ..autograd import grad_mode
from . import reduction
from ._checks import numel
from ._define import defop
from .activation import pad
from .pointwise import add
from .conv import check_float
from .pooling import apply_map, avg_pool2d, axis_map, linear_map
from .reordering import repeat
from .shape import expand, reshape, squeeze, unsqueeze, view


def _moments(array, axes):
    """(mean, biased variance) over axes, kept as size-1 dims."""
    mean = array.mean(axis=axes, keepdims=True)
    centered = array - mean
    centered *= centered
    return mean, centered.mean(axis=axes, keepdims=True)


# Note [Row kernels]: layer and group norm normalise the rows of a 2-d view of their input.
# Row sums are products with a vector (NumPy reduces a short last axis several times slower
# than BLAS does), and later passes write in place into the few arrays a kernel allocates.
# Half precision is computed in float32, as torch's kernels accumulate.

def _in_compute_dtype(array):
    return array.astype(np.float32) if array.dtype.itemsize < 4 else array


def _row_mean(xp, rows, values=None):
    """Each row's mean (0 for rows of no elements, as torch's), or the mean of its products
    with `values`."""
    if values is None:
        return rows @ xp.full(rows.shape[1], 1 / max(rows.shape[1], 1), rows.dtype)
    return xp.einsum("ij,ij->i", rows, values) / rows.shape[1]


def _standardized_rows(xp, rows, eps):
    """(x_hat, mean, 1/std) of each row, with the biased variance; x_hat is a new array."""
    mean = _row_mean(xp, rows)
    x_hat = rows - mean[:, None]
    rstd = 1 / xp.sqrt(_row_mean(xp, x_hat, x_hat) + eps)
    x_hat *= rstd[:, None]
    return x_hat, mean, rstd


def _standardized_rows_grad(xp, grad, x_hat, rstd):
    """rstd * (grad - mean(grad) - x_hat * mean(grad * x_hat)) row by row: the gradient
    through x_hat = (x - mean) * rstd given x_hat's, computed in x_hat's place."""
    x_hat *= _row_mean(xp, grad, x_hat)[:, None]
    xp.subtract(grad, x_hat, out=x_hat)
    x_hat -= _row_mean(xp, grad)[:, None]
    x_hat *= rstd[:, None]
    return x_hat


def _column_sum(xp, rows):
    return xp.ones(rows.shape[0], rows.dtype) @ rows


# The array paths below serve a backward that records nothing, whether its formulas get
# Tensors or already arrays (Note [Formulas on arrays] in _define.py); they answer in kind.

def _arrays_of(*values):
    return [value._data if isinstance(value, Tensor) else value for value in values]


def _in_kind(ctx, grads):
    """Array gradients as the formula was given its gradients: Tensors or arrays."""
    if not any(isinstance(grad, Tensor) for grad in ctx.grads):
        return tuple(grads)
    return tuple(None if grad is None else Tensor._make(grad) for grad in grads)


def _standardized(input, dims, eps):
    """(x_hat, 1/std) of a tensor over dims, in tapegrad ops."""
    centered = input - reduction.mean(input, dims, keepdim=True)
    rstd = (reduction.mean(centered * centered, dims, keepdim=True) + eps) ** -0.5
    return centered * rstd, rstd


def _standardized_grad(grad, x_hat, rstd, dims):
    """The gradient through x_hat = (x - mean) * rstd, given the gradient of x_hat."""
    return rstd * (grad - reduction.mean(grad, dims, keepdim=True)
                   - x_hat * reduction.mean(grad * x_hat, dims, keepdim=True))


def _sum_over(tensor, dims):
    return reduction.sum(tensor, dims) if dims else tensor


def _channel_shape(ndim):
    return (1, -1) + (1,) * (ndim - 2)


def _check_parameter_dtypes(input, *parameters):
    """torch's CPU rule (mixed_data_type.h): the first given parameter's dtype decides. If it
    is the input's, every parameter must share it; if not, the parameters must all be float32
    and the input bfloat16 or float16 (computed in float32, the result in the input's dtype)."""
    given = [parameter for parameter in parameters if parameter is not None]
    if not given or given[0].dtype is input.dtype:
        for parameter in given:
            if parameter.dtype is not input.dtype:
                raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                                   f"{parameter.dtype.legacy_name}")
        return
    if any(parameter.dtype.name != "float32" for parameter in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype.itemsize != 2 or not input.dtype.is_floating_point:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _statistics_dtype(input, *parameters):
    """The dtype of a norm's saved mean and 1/std: float32 for a half-precision input with
    float32 parameters (torch's param_scalar_type), else the input's."""
    given = [parameter for parameter in parameters if parameter is not None]
    return given[0].dtype if given else input.dtype


def _in_parameter_dtypes(grads, input_dtype, parameter_dtype):
    """(input, weight, bias) gradients: the input's in its dtype, the parameters' in theirs,
    which is the statistics' dtype (float32 weights of a bfloat16 input get float32 ones)."""
    return tuple(None if grad is None else grad.astype(dtype, copy=False) for grad, dtype in
                 zip(grads, (input_dtype, parameter_dtype, parameter_dtype)))


# ---- layer_norm ----------------------------------------------------------------------------

@defop("NativeLayerNormBackward0", save=("input", "weight", "bias", "normalized_shape", "eps",
                                         "result1", "result2"))
def _native_layer_norm(xp, input: Tensor, normalized_shape, weight: Tensor, bias: Tensor, eps):
    """(result, mean, 1/std), the statistics kept over the normalised dims (Note [Row
    kernels])."""
    lead = input.shape[:input.ndim - len(normalized_shape)]
    rows = _in_compute_dtype(input).reshape(numel(lead), numel(normalized_shape))
    result, mean, rstd = _standardized_rows(xp, rows, eps)
    if weight is not None:
        result *= weight.reshape(-1)
    if bias is not None:
        result += bias.reshape(-1)
    stats_shape, stats_dtype = lead + (1,) * len(normalized_shape), _statistics_dtype(
        input, weight, bias)
    return (result.reshape(input.shape).astype(input.dtype, copy=False),
            *(a.reshape(stats_shape).astype(stats_dtype, copy=False) for a in (mean, rstd)))


def _layer_norm_dims(ndim, normalized_shape):
    """(normalised dims, leading dims) of an ndim input."""
    count = len(normalized_shape)
    return tuple(range(ndim - count, ndim)), tuple(range(ndim - count))


def _layer_norm_grads(ctx):
    """(input, weight, bias) gradients from one native_layer_norm_backward per node run (the
    statistics are no inputs that take gradients: detached, as torch's are); its kernel
    straight on the arrays when the backward records nothing."""
    if "grads_of_inputs" not in vars(ctx):
        mask = tuple(ctx._node._needs_input_grad)
        if grad_mode.is_recording():
            ctx.grads_of_inputs = _native_layer_norm_backward(
                ctx.grad, ctx.input, ctx.normalized_shape, ctx.result1.detach(),
                ctx.result2.detach(), ctx.weight, ctx.bias, mask, ctx.eps)
        else:
            grad, input, mean, rstd, weight = _arrays_of(ctx.grad, ctx.input, ctx.result1,
                                                         ctx.result2, ctx.weight)
            ctx.grads_of_inputs = _in_kind(ctx, _native_layer_norm_backward.forward(
                _backend.array_module(grad), grad, input, ctx.normalized_shape, mean, rstd, weight, None, mask, ctx.eps))
    return ctx.grads_of_inputs


_native_layer_norm.derivatives(input=lambda ctx: _layer_norm_grads(ctx)[0],
                               weight=lambda ctx: _layer_norm_grads(ctx)[1],
                               bias=lambda ctx: _layer_norm_grads(ctx)[2])


@defop("NativeLayerNormBackwardBackward0", save=("grad_out", "input", "normalized_shape",
                                                 "weight", "eps"))
def _native_layer_norm_backward(xp, grad_out: Tensor, input: Tensor, normalized_shape,
                                mean: Tensor, rstd: Tensor, weight: Tensor, bias: Tensor,
                                output_mask, eps):
    """torch's native_layer_norm_backward (eps added: its own derivatives recompute the
    statistics); an output output_mask leaves out is an empty placeholder."""
    size = numel(normalized_shape)
    count = numel(input.shape[:input.ndim - len(normalized_shape)])
    rows = _in_compute_dtype(input).reshape(count, size)
    grad_rows = _in_compute_dtype(grad_out).reshape(count, size)
    rstd = _in_compute_dtype(rstd).reshape(count)
    x_hat = rows - _in_compute_dtype(mean).reshape(count)[:, None]
    x_hat *= rstd[:, None]
    grads = [xp.empty(0, grad_out.dtype)] * 3
    if output_mask[1]:
        grads[1] = xp.einsum("ij,ij->j", grad_rows, x_hat).reshape(normalized_shape)
    if output_mask[2]:
        grads[2] = _column_sum(xp, grad_rows).reshape(normalized_shape)
    if output_mask[0]:  # last: it takes x_hat's place
        scaled = grad_rows if weight is None else grad_rows * weight.reshape(-1)
        grads[0] = _standardized_rows_grad(xp, scaled, x_hat, rstd).reshape(input.shape)
    return _in_parameter_dtypes(grads, grad_out.dtype, mean.dtype)


def _layer_norm_double_backward(ctx):
    axes, lead = _layer_norm_dims(len(ctx.input_shape), ctx.normalized_shape)
    x_hat, rstd = _standardized(ctx.input, axes, ctx.eps)
    return _double_backward(ctx, x_hat, rstd, axes, lead, ctx.weight, ctx.normalized_shape)


_native_layer_norm_backward.derivatives(
    grad_out=lambda ctx: _layer_norm_double_backward(ctx)[0],
    input=lambda ctx: _layer_norm_double_backward(ctx)[1],
    weight=lambda ctx: _layer_norm_double_backward(ctx)[2])


def _projected(values, x_hat, dims):
    """values less their mean and their x_hat component over dims (a symmetric projection:
    the standardisation's Jacobian is rstd times it)."""
    return (values - reduction.mean(values, dims, keepdim=True)
            - x_hat * reduction.mean(values * x_hat, dims, keepdim=True))


def _double_backward(ctx, x_hat, rstd, dims, weight_dims, weight, view_shape, training=True):
    """(grad_out, input, weight) derivatives of a normalisation's backward function (input
    gradient rstd * P(grad_out * weight), weight gradient sum(grad_out * x_hat), bias gradient
    sum(grad_out)) along the incoming (gg_input, gg_weight, gg_bias); computed once per run.
    weight: viewed as view_shape (how parameters broadcast against the input), or None.
    Without training the statistics are constants: x_hat is linear in the input."""
    if "double_grads" in vars(ctx):
        return ctx.double_grads
    gg_input, gg_weight, gg_bias = ctx.grads
    grad_out = ctx.grad_out
    scaled = grad_out if weight is None else grad_out * weight
    for_grad_out, for_input, for_weight = [], [], None
    if gg_input is not None:
        projected = _projected(gg_input, x_hat, dims) if training else gg_input
        for_grad_out.append(projected * rstd if weight is None else projected * rstd * weight)
        if weight is not None:
            for_weight = _sum_over(grad_out * projected * rstd, weight_dims)
        if training:
            for_input.append(_input_curvature(gg_input, scaled, x_hat, rstd, dims))
    if gg_weight is not None:
        gg_weight = reshape(gg_weight, view_shape)
        for_grad_out.append(gg_weight * x_hat)
        slope = grad_out * gg_weight
        for_input.append((_projected(slope, x_hat, dims) if training else slope) * rstd)
    if gg_bias is not None:
        for_grad_out.append(expand(reshape(gg_bias, view_shape), ctx.input_shape))
    ctx.double_grads = _total(for_grad_out), _total(for_input), for_weight
    return ctx.double_grads


def _input_curvature(gg_input, scaled, x_hat, rstd, dims):
    """d <gg_input, rstd * P(scaled)> / d input, with P the projection of _projected (both
    x_hat and rstd depend on the input)."""
    def mean(values):
        return reduction.mean(values, dims, keepdim=True)
    along_x_hat, grad_along_x_hat = mean(gg_input * x_hat), mean(scaled * x_hat)
    inner = (mean(gg_input * scaled) - mean(gg_input) * mean(scaled)
             - along_x_hat * grad_along_x_hat)
    mixed = _projected(gg_input * grad_along_x_hat + scaled * along_x_hat, x_hat, dims)
    return -(rstd * rstd) * (inner * x_hat + mixed)


def _total(terms):
    return functools.reduce(add, terms) if terms else None


def _checked_layer_norm(function, input, normalized_shape, weight, bias, eps):
    if isinstance(normalized_shape, int):
        raise TypeError(f"{function}(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    shape = tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, parameter in (("weight", weight), ("bias", bias)):
        if parameter is not None and tuple(parameter.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(parameter.shape)} and "
                               f"normalized_shape = {list(shape)}")
    if input.ndim < len(shape) or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{''.join(f', {size}' for size in shape)}], but got input of "
                           f"size{list(input.shape)}")
    check_float("LayerNormKernelImpl", input)
    _check_parameter_dtypes(input, weight, bias)
    return _native_layer_norm(input, shape, weight, bias, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing dims `normalized_shape`, then scale and shift."""
    return _checked_layer_norm("layer_norm", input, normalized_shape, weight, bias, eps)[0]


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """layer_norm's (result, mean, 1/std); the statistics are not differentiable."""
    result, mean, rstd = _checked_layer_norm("native_layer_norm", input, normalized_shape,
                                             weight, bias, eps)
    return result, mean.detach(), rstd.detach()


# ---- batch_norm ----------------------------------------------------------------------------

@defop("NativeBatchNormBackward0", save=("input", "weight", "running_mean", "running_var",
                                         "training", "eps", "result1", "result2"))
def _native_batch_norm(xp, input: Tensor, weight: Tensor, bias: Tensor, running_mean,
                       running_var, training, momentum, eps):
    """(result, batch mean, batch 1/std); the statistics are empty in eval. Training updates
    the running statistics in place, as torch's kernel does (their versions stay unchanged):
    new = (1 - momentum) * old + momentum * batch statistic (unbiased variance). Half
    precision is computed in float32 (Note [Row kernels])."""
    shape, dtype = _channel_shape(input.ndim), input.dtype
    stats_dtype = _statistics_dtype(input, weight, bias, running_mean, running_var)
    input = _in_compute_dtype(input)
    if not training:
        mean, rstd = _running_statistics(xp, _in_compute_dtype(running_mean),
                                         _in_compute_dtype(running_var), eps, shape)
        empty = xp.zeros(0, stats_dtype)
        return _scale_and_shift(input, mean, rstd, weight, bias, shape, dtype), empty, empty
    axes = (0,) + tuple(range(2, input.ndim))
    mean, var = _moments(input, axes)
    if running_mean is not None:
        count = input.size // input.shape[1]
        unbiased = var * (count / (count - 1)) if count > 1 else xp.full_like(var, xp.nan)
        for stats, batch in ((running_mean, mean), (running_var, unbiased)):
            _update_running(stats, batch.ravel(), momentum)
    rstd = 1 / xp.sqrt(var + eps)
    return (_scale_and_shift(input, mean, rstd, weight, bias, shape, dtype),
            mean.ravel().astype(stats_dtype, copy=False),
            rstd.ravel().astype(stats_dtype, copy=False))


def _update_running(stats, batch, momentum):
    """stats = (1 - momentum) * stats + momentum * batch, in place. Where channels share
    memory (an expanded tensor), torch's kernel on one thread updates channel after channel,
    each reading what the previous one wrote (on several threads their order is a race)."""
    from .strided import may_share_elements, writable
    if not may_share_elements(stats):
        stats[...] = momentum * batch + (1 - momentum) * stats
        return
    stats = writable(stats)
    for channel, value in enumerate(batch):
        where = np.unravel_index(channel, stats.shape)
        stats[where] = momentum * value + (1 - momentum) * stats[where]


def _scale_and_shift(input, mean, rstd, weight, bias, shape, dtype):
    """torch's batch-norm kernel: input * alpha + beta, with alpha = rstd * weight and beta =
    bias - mean * alpha (so an infinite weight gives NaN, not +-inf); the result in dtype."""
    alpha = rstd if weight is None else rstd * weight.reshape(shape)
    beta = -(mean * alpha) if bias is None else bias.reshape(shape) - mean * alpha
    result = input * alpha
    result += beta
    return result.astype(dtype, copy=False)


def _batch_norm_grads(ctx):
    """(input, weight, bias) gradients from one native_batch_norm_backward per run; its
    kernel straight on the arrays when the backward records nothing."""
    if "grads_of_inputs" not in vars(ctx):
        mask = tuple(ctx._node._needs_input_grad)
        if grad_mode.is_recording():
            ctx.grads_of_inputs = _native_batch_norm_backward(
                ctx.grad, ctx.input, ctx.weight, ctx.running_mean, ctx.running_var,
                ctx.result1.detach(), ctx.result2.detach(), ctx.training, ctx.eps, mask)
        else:
            grad, input, weight, mean, rstd = _arrays_of(ctx.grad, ctx.input, ctx.weight,
                                                         ctx.result1, ctx.result2)
            ctx.grads_of_inputs = _in_kind(ctx, _native_batch_norm_backward.forward(
                _backend.array_module(grad), grad, input, weight, ctx.running_mean, ctx.running_var, mean, rstd,
                ctx.training, ctx.eps, mask))
    return ctx.grads_of_inputs


_native_batch_norm.derivatives(input=lambda ctx: _batch_norm_grads(ctx)[0],
                               weight=lambda ctx: _batch_norm_grads(ctx)[1],
                               bias=lambda ctx: _batch_norm_grads(ctx)[2])


def _batch_norm_dims(ndim):
    return (0,) + tuple(range(2, ndim))


def _running_statistics(xp, running_mean, running_var, eps, shape):
    return running_mean.reshape(shape), 1 / xp.sqrt(running_var.reshape(shape) + eps)


@defop("NativeBatchNormBackwardBackward0", save=("grad_out", "input", "weight", "running_mean",
                                                 "running_var", "train", "eps"))
def _native_batch_norm_backward(xp, grad_out: Tensor, input: Tensor, weight: Tensor,
                                running_mean, running_var, save_mean: Tensor,
                                save_invstd: Tensor, train, eps, output_mask):
    """torch's native_batch_norm_backward: batch statistics when training, else the running
    ones; an output output_mask leaves out is an empty placeholder. Half precision is
    computed in float32 (Note [Row kernels])."""
    shape, axes = _channel_shape(input.ndim), _batch_norm_dims(input.ndim)
    dtype = grad_out.dtype
    grad_out, input = _in_compute_dtype(grad_out), _in_compute_dtype(input)
    weight = None if weight is None else _in_compute_dtype(weight)
    if train:
        mean, rstd = save_mean.reshape(shape), save_invstd.reshape(shape)
    else:
        mean, rstd = _running_statistics(xp, _in_compute_dtype(running_mean),
                                         _in_compute_dtype(running_var), eps, shape)
    mean, rstd = _in_compute_dtype(mean), _in_compute_dtype(rstd)
    x_hat = input - mean
    x_hat *= rstd
    grads = [xp.empty(0, grad_out.dtype)] * 3
    # the weight and bias gradients are the sums the input gradient needs in training
    through_statistics = output_mask[0] and train
    if output_mask[1] or through_statistics:
        along = (grad_out * x_hat).sum(axis=axes, keepdims=True)
        if output_mask[1]:
            grads[1] = along.reshape(-1)
    if output_mask[2] or through_statistics:
        total = grad_out.sum(axis=axes, keepdims=True)
        if output_mask[2]:
            grads[2] = total.reshape(-1)
    if output_mask[0]:
        gain = rstd if weight is None else rstd * weight.reshape(shape)
        grads[0] = grad_out * gain
        if train:  # gain * (grad - mean(grad) - x_hat * mean(grad * x_hat))
            count = input.size // input.shape[1]
            grads[0] -= x_hat * (gain * along / count)
            grads[0] -= gain * total / count
    return _in_parameter_dtypes(grads, dtype, save_mean.dtype)


def _batch_norm_double_backward(ctx):
    ndim = len(ctx.input_shape)
    shape, axes = _channel_shape(ndim), _batch_norm_dims(ndim)
    if ctx.train:
        x_hat, rstd = _standardized(ctx.input, axes, ctx.eps)
    else:
        mean, rstd = map(Tensor._make, _running_statistics(
            _backend.array_module(ctx.running_mean), ctx.running_mean, ctx.running_var, ctx.eps,
            shape))
        x_hat = (ctx.input - mean) * rstd
    weight = None if ctx.weight is None else reshape(ctx.weight, shape)
    return _double_backward(ctx, x_hat, rstd, axes, axes, weight, shape, ctx.train)


_native_batch_norm_backward.derivatives(
    grad_out=lambda ctx: _batch_norm_double_backward(ctx)[0],
    input=lambda ctx: _batch_norm_double_backward(ctx)[1],
    weight=lambda ctx: _batch_norm_double_backward(ctx)[2])


def _check_batch_norm(input, weight, bias, running_mean, running_var, training):
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    # torch reads the channel count of a 1-d input past its sizes (as 0), then fails on dim 1
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var),
                         ("weight", weight), ("bias", bias)):
        if tensor is None and name.startswith("running") and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
    if input.ndim < 2:
        input.size(1)  # torch's IndexError
    check_float("batch_norm", input)
    _check_parameter_dtypes(input, weight, bias, running_mean, running_var)


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                cudnn_enabled=True):
    """torch.batch_norm (note the argument order); training updates the running stats."""
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    stats = (None, None) if running_mean is None else (running_mean._data, running_var._data)
    return _native_batch_norm(input, weight, bias, *stats, training, momentum, eps)[0]


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """batch_norm's (result, batch mean, batch 1/std), empty statistics in eval; they are not
    differentiable."""
    if input.numel() == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes "
                           f"= {list(input.shape)}")
    _check_batch_norm(input, weight, bias, running_mean, running_var, training)
    stats = (None, None) if running_mean is None else (running_mean._data, running_var._data)
    result, mean, rstd = _native_batch_norm(input, weight, bias, *stats, training, momentum, eps)
    return result, mean.detach(), rstd.detach()


def _empty_batch_norm(input, weight, bias):
    """torch's result for an empty input: a copy that keeps weight and bias in the graph."""
    result = input.clone()
    if weight is not None:
        result = result * weight[0]
    if bias is not None:
        result = result + bias[0]
    return result


def _verify_batch_size(size):
    count = size[0] * numel(size[2:])
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) over the batch and spatial dims; in eval mode with the
    running statistics."""
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


# ---- instance_norm -------------------------------------------------------------------------

def _instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                   eps, cudnn_enabled=True):
    """torch.instance_norm: batch_norm of the input viewed as one batch of N*C channels; the
    running stats get the mean of their N updated copies."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, channels = input.shape[:2]
    weight, bias, mean_copies, var_copies = (
        None if t is None else repeat(t, n)
        for t in (weight, bias, running_mean, running_var))
    batch = input.contiguous().view((1, n * channels) + tuple(input.shape[2:]))
    result = _batch_norm(batch, weight, bias, mean_copies, var_copies, use_input_stats,
                         momentum, eps)
    if use_input_stats:
        with grad_mode.no_grad():
            for stats, copies in ((running_mean, mean_copies), (running_var, var_copies)):
                if stats is not None:
                    stats.copy_(reduction.mean(copies.view(n, channels), 0))
    return result.view(input.shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its spatial dims."""
    if use_input_stats and numel(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    return _instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                          momentum, eps)


# ---- group_norm ----------------------------------------------------------------------------
# Computed on the input viewed as (N, C, HxW), grouped as (N, group, C // group * HxW).

@defop("NativeGroupNormBackward0", save=("input", "weight", "N", "C", "HxW", "group", "eps"))
def _native_group_norm(xp, input: Tensor, weight: Tensor, bias: Tensor, N, C, HxW, group, eps):
    """(result, mean, 1/std), the statistics of shape (N, group); all three differentiable
    (Note [Row kernels]: a row is one group of one sample)."""
    rows = _in_compute_dtype(input).reshape(N * group, C // group * HxW)
    result, mean, rstd = _standardized_rows(xp, rows, eps)
    per_channel = result.reshape(N, C, HxW)
    if weight is not None:
        per_channel *= weight[:, None]
    if bias is not None:
        per_channel += bias[:, None]
    stats_dtype = _statistics_dtype(input, weight, bias)
    return (result.reshape(input.shape).astype(input.dtype, copy=False),
            *(a.reshape(N, group).astype(stats_dtype, copy=False) for a in (mean, rstd)))


def _group_norm_statistics(ctx):
    """(x_hat, rstd) of the grouped input, x_hat of shape (N, C, HxW)."""
    if "statistics" not in vars(ctx):
        grouped = reshape(ctx.input, _grouped_shape(ctx))
        x_hat, rstd = _standardized(grouped, (2,), ctx.eps)
        ctx.statistics = reshape(x_hat, (ctx.N, ctx.C, ctx.HxW)), rstd
    return ctx.statistics


def _grouped_shape(ctx):
    return (ctx.N, ctx.group, ctx.C // ctx.group * ctx.HxW)


def _group_norm_array_grads(ctx):
    """(input, weight, bias) gradients in NumPy, for a backward that records nothing; the
    statistics come again from the input, as in the formulas below."""
    if "array_grads" in vars(ctx):
        return ctx.array_grads
    input, weight = _arrays_of(ctx.input, ctx.weight)
    xp = _backend.array_module(input)
    rows = _in_compute_dtype(input).reshape(ctx.N * ctx.group, _grouped_shape(ctx)[2])
    x_hat, _, rstd = _standardized_rows(xp, rows, ctx.eps)
    grad_result, grad_mean, grad_rstd = (None if grad is None else _in_compute_dtype(grad)
                                         for grad in _arrays_of(*ctx.grads))
    needs_input, needs_weight, needs_bias = ctx._node._needs_input_grad
    grads = [None, None, None]
    if grad_result is not None:
        per_channel = grad_result.reshape(ctx.N, ctx.C, ctx.HxW)
        if needs_weight:
            grads[1] = xp.einsum("nch,nch->c", per_channel, x_hat.reshape(per_channel.shape))
        if needs_bias:
            grads[2] = xp.einsum("nch->c", per_channel)
    if needs_input:
        statistics_terms = xp.zeros((rows.shape[0], 1), rows.dtype)
        if grad_mean is not None:
            statistics_terms = statistics_terms + grad_mean.reshape(-1, 1) / rows.shape[1]
        if grad_rstd is not None:  # d rstd / dx = -rstd^2 x_hat / count
            statistics_terms = statistics_terms - (
                grad_rstd.reshape(-1) * rstd * rstd / rows.shape[1])[:, None] * x_hat
        if grad_result is None:
            grad = xp.broadcast_to(statistics_terms, rows.shape).copy()
        else:  # it takes x_hat's place
            if weight is not None:
                per_channel = per_channel * weight[:, None]
            grad = _standardized_rows_grad(xp, per_channel.reshape(rows.shape), x_hat, rstd)
            if grad_mean is not None or grad_rstd is not None:
                grad += statistics_terms
        grads[0] = grad.reshape(ctx.input_shape)
    parameter_dtype = _statistics_dtype(input, weight)
    ctx.array_grads = _in_kind(ctx, _in_parameter_dtypes(grads, input.dtype, parameter_dtype))
    return ctx.array_grads


def _group_norm_input_grad(ctx):
    """Through the result, and through the mean and 1/std outputs when they got gradients."""
    if not grad_mode.is_recording():
        return _group_norm_array_grads(ctx)[0]
    x_hat, rstd = _group_norm_statistics(ctx)
    grouped = _grouped_shape(ctx)
    x_hat = reshape(x_hat, grouped)
    grad_result, grad_mean, grad_rstd = ctx.grads
    grad = 0
    if grad_result is not None:
        grad_result = reshape(grad_result, (ctx.N, ctx.C, ctx.HxW))
        if ctx.weight is not None:
            grad_result = grad_result * reshape(ctx.weight, (1, -1, 1))
        grad = _standardized_grad(reshape(grad_result, grouped), x_hat, rstd, (2,))
    if grad_mean is not None:
        grad = grad + unsqueeze(grad_mean, 2) / grouped[2]
    if grad_rstd is not None:  # d rstd / dx = -rstd^2 x_hat / count
        grad = grad - unsqueeze(grad_rstd, 2) * rstd * rstd * x_hat / grouped[2]
    return reshape(expand(grad, grouped), ctx.input_shape)


def _group_norm_weight_grad(ctx):
    if ctx.grad is None:
        return None
    if not grad_mode.is_recording():
        return _group_norm_array_grads(ctx)[1]
    x_hat = _group_norm_statistics(ctx)[0]
    return reduction.sum(reshape(ctx.grad, (ctx.N, ctx.C, ctx.HxW)) * x_hat, (0, 2))


def _group_norm_bias_grad(ctx):
    if ctx.grad is None:
        return None
    if not grad_mode.is_recording():
        return _group_norm_array_grads(ctx)[2]
    return reduction.sum(reshape(ctx.grad, (ctx.N, ctx.C, ctx.HxW)), (0, 2))


_native_group_norm.derivatives(input=_group_norm_input_grad, weight=_group_norm_weight_grad,
                               bias=_group_norm_bias_grad)


def _check_group_norm_parameters(input, channels, weight, bias):
    for name, parameter in (("weight", weight), ("bias", bias)):
        if parameter is not None and (parameter.ndim != 1 or parameter.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(parameter.shape)} and input of shape {list(input.shape)}")
    check_float("GroupNormKernelImpl", input)
    _check_parameter_dtypes(input, weight, bias)


def _check_groups(input, channels, num_groups):
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups="
                           f"{num_groups}")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of num_groups channel groups of each sample, then scale and shift
    per channel."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, channels = input.shape[:2]
    _verify_batch_size([n * channels // num_groups, num_groups] + list(input.shape[2:]))
    _check_groups(input, channels, num_groups)
    _check_group_norm_parameters(input, channels, weight, bias)
    return _native_group_norm(input, weight, bias, n, channels, numel(input.shape[2:]),
                              num_groups, eps)[0]


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """group_norm's (result, mean, 1/std) for the input seen as (N, C, HxW)."""
    _check_groups(input, C, group)
    if not input.is_contiguous():
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  "
                           f"{_ASK_FOR_BETTER_TEXT}")
    _check_group_norm_parameters(input, C, weight, bias)
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           f"{_ASK_FOR_BETTER_TEXT}")
    return _native_group_norm(input, weight, bias, N, C, HxW, group, eps)


_ASK_FOR_BETTER_TEXT = ("(Could this error message be improved?  If so, please report an "
                        "enhancement request to PyTorch.)")


# ---- local_response_norm -------------------------------------------------------------------
# Composed as torch composes it: the squares averaged over a window of channels by a padded
# average pooling, 2-d for 3-d input, 3-d (kernel (size, 1, 1)) for more dims.

_avg_pool3d = linear_map("AvgPool3D", "_channel_window_avg_pool3d", pooling=True)


def _window_average_map(size, length):
    """The axis map of the mean of each `size` consecutive positions (stride 1)."""
    out = length - size + 1
    outputs = np.repeat(np.arange(out), size)
    inputs = outputs + np.tile(np.arange(size), out)
    return axis_map(outputs, inputs, np.full(outputs.size, 1 / size), out, length)


def _identity_map(length):
    positions = np.arange(length)
    return axis_map(positions, positions, np.ones(length), length, length)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of the squares over `size` neighbouring channels) ** beta."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input * input
    before, after = size // 2, (size - 1) // 2
    if input.ndim == 3:
        padded = pad(unsqueeze(squares, 1), (0, 0, before, after))
        average = squeeze(avg_pool2d(padded, (size, 1), stride=1), 1)
    else:
        sizes = input.shape
        padded = pad(view(squares, (sizes[0], 1, sizes[1], sizes[2], -1)),
                     (0, 0, 0, 0, before, after))
        maps = [_window_average_map(size, padded.shape[2]),
                *map(_identity_map, padded.shape[3:])]
        average = view(squeeze(apply_map(_avg_pool3d, padded, maps), 1), sizes)
    return input / (average * alpha + k) ** beta


# torch.batch_norm and torch.instance_norm take their arguments in another order than F's
FUNCTIONS = {"group_norm": group_norm, "layer_norm": layer_norm, "batch_norm": _batch_norm,
             "instance_norm": _instance_norm, "native_batch_norm": native_batch_norm,
             "native_group_norm": native_group_norm, "native_layer_norm": native_layer_norm}
NN_FUNCTIONS = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm"]
