"""Softmax and the losses of torch.nn.functional.

Where torch has a kernel of its own (softmax, nll_loss, mse_loss, binary_cross_entropy...) the
loss is one op with torch's node name; elsewhere (cross_entropy, l1_loss, kl_div, the margin
losses) it is composed of ops exactly as ATen composes it, so the graph shows torch's nodes.
"""
import builtins
import math

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from ._checks import broadcast_shapes, numel, wrap_dim
from ._define import defop
from ._inplace import fill_
from ._inplace import inplace as _in_place
from ._summation import full_sum
from .indexing import masked_fill
from .pointwise import add, add_scalar, clamp, clamp_min, div_scalar, mul_scalar, pow, xlogy
from .reduction import mean, sum
from .shape import constant_beside, expand, unsqueeze, zeros_of
from .unary import abs, exp, log, logit, sigmoid
from .._warnings import warn


def as_constant(array):
    """A tensor of a constant array (weights, coefficients) for a derivative formula."""
    return Tensor._make(_backend.array_module(array).asarray(array))


# ---- softmax ---------------------------------------------------------------------------------

def _shifted_exp(xp, input, dim):
    """(x - max, exp(x - max)) along dim: the stable parts of softmax (0-d acts as 1-d)."""
    flat = input.reshape(input.shape or (1,))
    shifted = flat - xp.max(flat, axis=dim, keepdims=True, initial=-xp.inf)
    return shifted, xp.exp(shifted)


@defop("SoftmaxBackward0", save=("dim", "result"))
def _softmax(xp, input: Tensor, dim):
    _, exps = _shifted_exp(xp, input, dim)
    result = exps / exps.sum(axis=dim, keepdims=True)
    return result.reshape(input.shape).astype(input.dtype, copy=False)


_softmax.derivatives(input=lambda ctx: _softmax_backward_data(ctx.grad, ctx.result, ctx.dim))


def _flat(*arrays):
    """0-d arrays as 1-d: softmax of a 0-d tensor works along its dim 0 (or -1)."""
    return [array.reshape(array.shape or (1,)) for array in arrays]


# torch's _softmax_backward_data and _log_softmax_backward_data are ops with nodes of their own
# (Note [Backward ops] in unary.py)
@defop("SoftmaxBackwardDataBackward0", save=("grad_output", "output", "dim"))
def _softmax_backward_data(xp, grad_output: Tensor, output: Tensor, dim):
    grad, result = _flat(grad_output, output)
    return (result * (grad - (grad * result).sum(axis=dim, keepdims=True))).reshape(output.shape)


def _softmax_double_backward(ctx):
    grad, grad_output, output = ctx.grad, ctx.grad_output, ctx.output
    return (grad_output * grad - sum(output * grad_output, ctx.dim, keepdim=True) * grad
            - grad_output * sum(output * grad, ctx.dim, keepdim=True))


_softmax_backward_data.derivatives(
    grad_output=lambda ctx: _softmax_backward_data(ctx.grad, ctx.output, ctx.dim),
    output=_softmax_double_backward)


@defop("LogSoftmaxBackward0", save=("dim", "result"))
def _log_softmax(xp, input: Tensor, dim):
    shifted, exps = _shifted_exp(xp, input, dim)
    result = shifted - xp.log(exps.sum(axis=dim, keepdims=True))
    return result.reshape(input.shape).astype(input.dtype, copy=False)


_log_softmax.derivatives(input=lambda ctx: _log_softmax_backward_data(ctx.grad, ctx.result,
                                                                      ctx.dim))


@defop("LogSoftmaxBackwardDataBackward0", save=("grad_output", "output", "dim"))
def _log_softmax_backward_data(xp, grad_output: Tensor, output: Tensor, dim):
    grad, result = _flat(grad_output, output)
    return (grad - xp.exp(result) * grad.sum(axis=dim, keepdims=True)).reshape(output.shape)


_log_softmax_backward_data.derivatives(
    grad_output=lambda ctx: ctx.grad - sum(ctx.grad * exp(ctx.output), ctx.dim, keepdim=True),
    output=lambda ctx: -sum(ctx.grad_output, ctx.dim, keepdim=True) * exp(ctx.output) * ctx.grad)


def _normalize(op, name, input, dim, dtype):
    if dim is None:
        warn(f"Implicit dimension choice for {name} has been deprecated. Change the "
             "call to include dim=X as an argument.")
        dim = 0 if input.ndim in (0, 1, 3) else 1
    if dtype is not None:
        input = input.to(dtype)
    dim = wrap_dim(dim, input.ndim)
    if not input.dtype.is_floating_point and input.numel():
        kernel = "lastdim_kernel_impl" if dim == max(input.ndim, 1) - 1 else "kernel_impl"
        raise NotImplementedError(f'"{op.__name__[1:]}_{kernel}" not implemented for '
                                  f"'{input.dtype.legacy_name}'")
    return op(input, dim)


# _stacklevel: torch's parameter, unused here: the warning finds the user's line itself
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along dim, computed stably (F.softmax; a missing dim is guessed, as torch)."""
    return _normalize(_softmax, "softmax", input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _normalize(_log_softmax, "log_softmax", input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input), as torch composes it (NegBackward0 before SoftmaxBackward0)."""
    return _normalize(_softmax, "softmin", -input, dim, dtype)


_MISSING = object()


def _with_required_dim(name, op):
    """torch.softmax / Tensor.softmax (and log_softmax): dim must be given."""
    def normalize(input, dim=_MISSING, dtype=None):
        if dim is _MISSING:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        if dim is None:
            raise TypeError(f"{name}(): argument 'dim' must be int, not NoneType")
        return _normalize(op, name, input, dim, dtype)
    normalize.__name__ = normalize.__qualname__ = name
    return normalize


# ---- reduction arguments ---------------------------------------------------------------------

def legacy_reduction(size_average, reduce):
    """The reduction the deprecated size_average/reduce flags stand for; the warning points
    at the caller of the loss function."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    name = "mean" if size_average and reduce else "sum" if reduce else "none"
    warn("size_average and reduce args will be deprecated, please use "
         f"reduction='{name}' instead.")
    return name


def checked_reduction(reduction, size_average=None, reduce=None):
    """The checked reduction name ('none', 'mean' or 'sum')."""
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
             "instead.")
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss, reduction):
    """ATen's apply_loss_reduction, with ops: the loss, its mean or its sum."""
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return sum(loss)
    return loss


def reduced_loss(xp, loss, reduction):
    """apply_loss_reduction inside a forward, on arrays (the mean of nothing is NaN)."""
    if reduction == "none":
        return loss
    total = full_sum(loss)
    return total if reduction == "sum" else total / loss.dtype.type(loss.size)


def loss_grad(ctx, slope):
    """The gradient of an elementwise loss with d(loss)/d(input) = slope, after reduction
    (grouped as torch's backward functions: the product, then the division by numel)."""
    if ctx.reduction == "mean":
        return div_scalar(slope * ctx.grad, numel(ctx.input_shape))
    return slope * ctx.grad


def check_not_differentiable(function, name, value):
    """torch's error for a tensor argument its kernel has no derivative for."""
    if value is not None and value.requires_grad and grad_mode.is_recording():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{name}'. This input cannot have requires_grad True.")


def _array_of(weight):
    return None if weight is None else weight._data


# ---- negative log likelihood and cross entropy -----------------------------------------------

def _class_dim(input):
    return 0 if input.ndim == 1 else 1


def _picked_weights(xp, target, weight, ignore_index, dtype):
    """(kept, index, weights): which targets count, each target's class (0 where ignored)
    and its class weight (0 where ignored)."""
    kept = target != ignore_index
    index = xp.where(kept, target, 0)
    weights = kept.astype(dtype) if weight is None else weight[index] * kept
    return kept, index, weights


def _nll_forward(xp, input, target, weight, reduction, ignore_index):
    class_dim = 0 if input.ndim == 1 else 1
    target = target.reshape(input.shape[:class_dim] + input.shape[class_dim + 1:])
    kept, index, weights = _picked_weights(xp, target, weight, ignore_index, input.dtype)
    picked = xp.take_along_axis(input, xp.expand_dims(index, class_dim), class_dim)
    losses = xp.where(kept, -picked.squeeze(class_dim) * weights, 0).astype(input.dtype)
    if reduction == "mean":
        return full_sum(losses) / full_sum(weights)  # 0/0: NaN when every target is ignored
    return full_sum(losses) if reduction == "sum" else losses


@defop("NllLossBackward0", save=("input", "target", "weight", "reduction", "ignore_index"))
def _nll_loss(xp, input: Tensor, target, weight, reduction, ignore_index):
    return _nll_forward(xp, input, target, weight, reduction, ignore_index)


@defop("NllLoss2DBackward0", save=("input", "target", "weight", "reduction", "ignore_index"))
def _nll_loss2d(xp, input: Tensor, target, weight, reduction, ignore_index):
    return _nll_forward(xp, input, target, weight, reduction, ignore_index)


def _nll_backward_op(node_name, name, loss):
    """torch's nll_loss_backward (or nll_loss2d_backward): grad goes to each target's input
    entry, times -weight (/ total weight for mean); its own derivative in grad_output is the
    loss of the incoming gradient, in input 0 (it takes the input for torch's edge)."""
    @defop(node_name, save=("target", "weight", "reduction", "ignore_index"), name=name)
    def backward(xp, grad_output: Tensor, input: Tensor, target, weight, reduction,
                 ignore_index):
        class_dim = 0 if input.ndim == 1 else 1
        target = target.reshape(input.shape[:class_dim] + input.shape[class_dim + 1:])
        kept, index, weights = _picked_weights(xp, target, weight, ignore_index, input.dtype)
        total = weights.sum() if reduction == "mean" else 1
        # ignored targets get nothing, even when every target is ignored (total is then 0)
        coefficients = xp.divide(-weights, total, out=xp.zeros_like(weights), where=kept)
        result = xp.zeros(input.shape, grad_output.dtype)
        xp.put_along_axis(result, xp.expand_dims(index, class_dim),
                          xp.expand_dims(coefficients * grad_output, class_dim), class_dim)
        return result

    backward.derivatives(
        grad_output=lambda ctx: loss(ctx.grad, ctx.target, ctx.weight, ctx.reduction,
                                     ctx.ignore_index),
        input=lambda ctx: zeros_of(ctx.grad, ctx.input_shape))
    return backward


_nll_loss_backward = _nll_backward_op("NllLossBackwardBackward0", "_nll_loss_backward",
                                      _nll_loss)
_nll_loss2d_backward = _nll_backward_op("NllLoss2DBackwardBackward0", "_nll_loss2d_backward",
                                        _nll_loss2d)
_nll_loss.derivatives(input=lambda ctx: _nll_loss_backward(
    ctx.grad, ctx.input, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index))
_nll_loss2d.derivatives(input=lambda ctx: _nll_loss2d_backward(
    ctx.grad, ctx.input, ctx.target, ctx.weight, ctx.reduction, ctx.ignore_index))


def _check_nll_shapes(input, target, weight):
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")
    _check_target_dtype(target)
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight.shape)}")


def _check_nll2d_shapes(input, target, weight):
    if target.ndim != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    if weight is not None and weight.numel() != input.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (input.shape[0],) + input.shape[2:] != target.shape:
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                           f"{list(target.shape)}")
    _check_target_dtype(target)


def _check_target_dtype(target):
    if target.dtype not in (_dtype.int64, _dtype.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.legacy_name}")


def _check_nll_values(kernel, input, target, weight, ignore_index):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy_name}'")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{weight.dtype.legacy_name}")
    classes = input.shape[_class_dim(input)]
    values = target._data
    outside = (values != ignore_index) & ((values < 0) | (values >= classes))
    if outside.any():
        raise IndexError(f"Target {values[outside].flat[0]} is out of bounds.")


def _apply_nll(input, target, weight, reduction, ignore_index):
    """nll_loss on (N, C) or (C,) inputs, nll_loss2d on (N, C, H, W) inputs."""
    planar = input.ndim == 4
    check_not_differentiable("nll_loss2d_forward" if planar else "nll_loss_forward", "weight",
                               weight)
    (_check_nll2d_shapes if planar else _check_nll_shapes)(input, target, weight)
    _check_nll_values("nll_loss2d_forward_out_frame" if planar else "nll_loss_out_frame",
                      input, target, weight, ignore_index)
    op = _nll_loss2d if planar else _nll_loss
    return op(input, target._data.astype(np.int64), _array_of(weight), reduction, ignore_index)


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """ATen's nll_loss_nd: other inputs of 3 or more dims are viewed as (N, C, 1, -1)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.ndim else 0}).")
    if input.ndim in (1, 2, 4):
        return _apply_nll(input, target, weight, reduction, ignore_index)
    batch, classes = input.shape[:2]
    out_size = (batch,) + input.shape[2:]
    if target.shape[1:] != input.shape[2:]:
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target.shape)}")
    planes = (1, -1) if input.numel() else (0, 0)
    input = input.contiguous().view(batch, classes, *planes)
    target = target.reshape(batch, *((1, -1) if target.numel() else (0, 0)))
    result = _apply_nll(input, target, weight, reduction, ignore_index)
    return result.view(out_size) if reduction == "none" else result


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = checked_reduction(reduction, size_average, reduce)
    return _nll_loss_nd(input, target, weight, reduction, ignore_index)


def _check_label_smoothing(label_smoothing):
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def _class_view(weight, input):
    """weight (C,) shaped to broadcast along input's class dim."""
    shape = [1] * input.ndim
    shape[_class_dim(input)] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probabilities(input, target, weight, reduction, ignore_index,
                                 label_smoothing):
    """Cross entropy with class probabilities as the target (same shape as input)."""
    if not target.dtype.is_floating_point:
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype.legacy_name}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    class_dim = _class_dim(input)
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    products = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        target = add_scalar(mul_scalar(target, 1 - label_smoothing),
                             label_smoothing / classes)
    products = products * target
    if weight is not None:
        products = products * _class_view(weight, input)
    if reduction == "none":
        return -sum(products, class_dim)
    total = sum(products)
    if reduction == "sum":
        return -total
    if input.numel() == 0:
        return -fill_(total, math.nan)
    return div_scalar(-total, input.numel() // classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing):
    """Class indices with label smoothing: nll_loss mixed with the mean over classes."""
    class_dim = _class_dim(input)
    log_probabilities = log_softmax(input, class_dim)
    nll = _nll_loss_nd(log_probabilities, target, weight, reduction, ignore_index)
    ignored = target == ignore_index
    if weight is None:
        smooth = -sum(log_probabilities, class_dim)
    else:
        smooth = -sum(log_probabilities * _class_view(weight, input), class_dim)
    smooth = masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        kept = ~ignored
        counted = kept.sum() if weight is None else weight[target[kept].long()].sum()
        smooth = sum(smooth) / counted
    elif reduction == "sum":
        smooth = sum(smooth)
    classes = log_probabilities.shape[class_dim]
    return (mul_scalar(nll, 1 - label_smoothing)
            + mul_scalar(smooth, label_smoothing / classes))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Class indices of any shape, or class probabilities when target has input's shape."""
    reduction = checked_reduction(reduction, size_average, reduce)
    label_smoothing = float(label_smoothing)
    if input.shape == target.shape:
        return _cross_entropy_probabilities(input, target, weight, reduction, ignore_index,
                                            label_smoothing)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index,
                                       label_smoothing)
    return _nll_loss_nd(log_softmax(input, _class_dim(input)), target, weight, reduction,
                        ignore_index)


# ---- regression losses -----------------------------------------------------------------------

def _broadcast_pair(input, target):
    """torch.broadcast_tensors for the two: an ExpandBackward0 only where a shape changes."""
    if target.shape != input.shape:
        warn(f"Using a target size ({target.shape}) that is different to the input size "
             f"({input.shape}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.")
    shape = broadcast_shapes(input.shape, target.shape)
    return tuple(t if t.shape == shape else expand(t, shape) for t in (input, target))


def _check_floating_result(kernel, input, target):
    result = _dtype.result_type([t.dtype for t in (input, target) if t.ndim],
                                [t.dtype for t in (input, target) if not t.ndim], [])
    if not result.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{result.legacy_name}'")


def _weighted(loss, weight, input, reduction, mean_over_weight):
    """F's manual weighting: loss * weight, then its sum, mean or sum / sum(weight)."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return sum(loss)
    if reduction == "mean":
        return sum(loss) / sum(weight) if mean_over_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


@defop("MseLossBackward0", save=("input", "target", "reduction"), promote="common")
def _mse_loss(xp, input: Tensor, target: Tensor, reduction):
    difference = input - target
    return reduced_loss(xp, difference * difference, reduction)


def _elementwise_loss_backward(node_name, name, slope, slope_op, curvature):
    """torch's <loss>_backward(grad_output, self, target, reduction, parameter) of a loss
    summing f(self - target): grad_output * f'(self - target) (over numel for 'mean'), as an
    op with its own derivatives. slope is f' on arrays, slope_op f' in ops, curvature f''
    (a number or a constant array); each takes the difference and the parameter."""
    @defop(node_name, save=("grad_output", "input", "target", "reduction", "parameter"),
           promote="common", name=name)
    def backward(xp, grad_output: Tensor, input: Tensor, target: Tensor, reduction, parameter):
        result = slope(xp, input - target, parameter) * grad_output
        return result / result.dtype.type(result.size) if reduction == "mean" else result

    def input_grad(ctx):
        curve = curvature(ctx.input._data - ctx.target._data, ctx.parameter)
        return loss_grad(ctx, ctx.grad_output * as_constant(curve))

    backward.derivatives(
        grad_output=lambda ctx: loss_grad(ctx, slope_op(ctx.input - ctx.target, ctx.parameter)),
        input=input_grad, target=lambda ctx: -input_grad(ctx))
    return backward


def _loss_backward_formulas(backward, parameter=None):
    """The forward's derivatives: its backward function, with self and target swapped for
    the target (as torch calls it)."""
    def formula(first, second):
        return lambda ctx: backward(ctx.grad, getattr(ctx, first), getattr(ctx, second),
                                    ctx.reduction, parameter and getattr(ctx, parameter))
    return dict(input=formula("input", "target"), target=formula("target", "input"))


_mse_loss_backward = _elementwise_loss_backward(
    "MseLossBackwardBackward0", "_mse_loss_backward", lambda xp, difference, _: 2 * difference,
    lambda difference, _: 2 * difference, lambda difference, _: 2.0)
_mse_loss.derivatives(**_loss_backward_formulas(_mse_loss_backward))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(pow(input - target, 2), weight, input, reduction, True)
    reduction = checked_reduction(reduction)
    _check_floating_result("mse_cpu", input, target)
    return _mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target| reduced, composed as ATen composes it (AbsBackward0 of a difference)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(abs(input - target), weight, input, reduction, True)
    return reduce_loss(abs(input - target), checked_reduction(reduction))


@defop("SmoothL1LossBackward0", save=("input", "target", "reduction", "beta"), promote="common")
def _smooth_l1_loss(xp, input: Tensor, target: Tensor, reduction, beta):
    distance = xp.abs(input - target)
    loss = xp.where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)
    return reduced_loss(xp, loss.astype(distance.dtype, copy=False), reduction)


# The slope is (input - target) / beta inside the quadratic zone, +-1 outside: a clamp.
_smooth_l1_loss_backward = _elementwise_loss_backward(
    "SmoothL1LossBackwardBackward0", "_smooth_l1_loss_backward",
    lambda xp, difference, beta: xp.clip(difference / beta, -1, 1),
    lambda difference, beta: clamp(difference / beta, -1, 1),
    lambda difference, beta: (builtins.abs(difference) < beta) / beta)
_smooth_l1_loss.derivatives(**_loss_backward_formulas(_smooth_l1_loss_backward, "beta"))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    reduction = checked_reduction(reduction)
    if beta == 0.0:
        return reduce_loss(abs(input - target), reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_floating_result("smooth_l1_cpu", input, target)
    return _smooth_l1_loss(input, target, reduction, float(beta))


# torch computes the huber loss in the input's dtype, whatever the target's
@defop("HuberLossBackward0", save=("input", "target", "reduction", "delta"))
def _huber_loss(xp, input: Tensor, target: Tensor, reduction, delta):
    distance = xp.abs(input - target).astype(input.dtype, copy=False)
    loss = xp.where(distance < delta, 0.5 * distance * distance,
                    delta * (distance - 0.5 * delta))
    return reduced_loss(xp, loss.astype(input.dtype, copy=False), reduction)


_huber_loss_backward = _elementwise_loss_backward(
    "HuberLossBackwardBackward0", "_huber_loss_backward",
    lambda xp, difference, delta: xp.clip(difference, -delta, delta),
    lambda difference, delta: clamp(difference, -delta, delta),
    lambda difference, delta: (builtins.abs(difference) < delta) * 1.0)
_huber_loss.derivatives(**_loss_backward_formulas(_huber_loss_backward, "delta"))


def _check_huber(input, target, delta):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if not input.dtype.is_floating_point:
        if target.dtype.is_floating_point:
            raise RuntimeError(f"result type {target.dtype.legacy_name} can't be cast to the "
                               f"desired output type {input.dtype.legacy_name}")
        raise NotImplementedError(f"\"huber_cpu\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    input, target = _broadcast_pair(input, target)
    if weight is None:
        reduction = checked_reduction(reduction)
        _check_huber(input, target, delta)
        return _huber_loss(input, target, reduction, float(delta))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    _check_huber(input, target, delta)
    loss = _huber_loss(input, target, "none", float(delta))
    return _weighted(loss, weight, input, reduction, False)


# ---- binary cross entropy --------------------------------------------------------------------

def _weighted_slope(ctx, slope):
    return slope if ctx.weight is None else slope * as_constant(ctx.weight)


@defop("BinaryCrossEntropyBackward0", save=("input", "target", "weight", "reduction"))
def _binary_cross_entropy(xp, input: Tensor, target: Tensor, weight, reduction):
    for name, values in (("input", input), ("target", target)):
        if not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    # torch clamps each log at -100, so a certainly wrong prediction costs 100, not inf
    loss = ((target - 1) * xp.maximum(xp.log1p(-input), -100)
            - target * xp.maximum(xp.log(input), -100))
    if weight is not None:
        loss = loss * weight
    return reduced_loss(xp, loss, reduction)


@defop("BinaryCrossEntropyBackwardBackward0", save=("grad_output", "input", "target",
                                                    "weight", "reduction"))
def _binary_cross_entropy_backward(xp, grad_output: Tensor, input: Tensor, target: Tensor,
                                   weight, reduction):
    """torch's binary_cross_entropy_backward (its weight takes no gradient: no edge)."""
    result = grad_output * (input - target) / xp.maximum((1 - input) * input, 1e-12)
    if weight is not None:
        result = result * weight
    return result / result.dtype.type(result.size) if reduction == "mean" else result


def _bce_double_backward(ctx, slope):
    return loss_grad(ctx, _weighted_slope(ctx, ctx.grad_output * slope))


def _bce_curvature(ctx):
    """d/dx of (x - t) / (x (1 - x)): (x^2 - 2 x t + t) / (x (1 - x))^2."""
    x, t = ctx.input, ctx.target
    return (x * x - 2 * x * t + t) / clamp((1 - x) * x, min=1e-12) ** 2


def _bce_target_grad(ctx):
    """torch's binary_cross_entropy_target_backward: -logit(x) * grad, weighted, over numel
    for 'mean'."""
    grad = _weighted_slope(ctx, -logit(ctx.input) * ctx.grad)
    return div_scalar(grad, numel(ctx.input_shape)) if ctx.reduction == "mean" else grad


_binary_cross_entropy_backward.derivatives(
    grad_output=lambda ctx: loss_grad(ctx, _weighted_slope(
        ctx, (ctx.input - ctx.target) / clamp((1 - ctx.input) * ctx.input, min=1e-12))),
    input=lambda ctx: _bce_double_backward(ctx, _bce_curvature(ctx)),
    target=lambda ctx: _bce_double_backward(ctx, -1 / clamp((1 - ctx.input) * ctx.input,
                                                            min=1e-12)))
_binary_cross_entropy.derivatives(
    input=lambda ctx: _binary_cross_entropy_backward(ctx.grad, ctx.input, ctx.target,
                                                     ctx.weight, ctx.reduction),
    target=_bce_target_grad)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Mean/sum of -w (t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch."""
    reduction = checked_reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None:
        weight = expand(weight, _broadcast_to(target.shape, weight.shape))
    check_not_differentiable("binary_cross_entropy", "weight", weight)
    if not input.dtype.is_floating_point:
        raise NotImplementedError("\"binary_cross_entropy\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.legacy_name} but expected "
                           f"{input.dtype.legacy_name}")
    return _binary_cross_entropy(input, target, _array_of(weight), reduction)


def _broadcast_to(shape, other):
    """torch.broadcast_shapes(shape, other), with its message naming the mismatching shape."""
    common = list(shape)
    for i in range(1, len(other) + 1):
        if i > len(common):
            common.insert(0, other[-i])
        elif common[-i] == 1:
            common[-i] = other[-i]
        elif other[-i] not in (1, common[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {other[-i]} at "
                               f"{-i}! Mismatching argument at index 1 had {other}; but expected "
                               f"shape should be broadcastable to {common}")
    return tuple(common)


@defop("BinaryCrossEntropyWithLogitsBackward0",
       save=("input", "target", "weight", "pos_weight", "reduction"))
def _bce_with_logits(xp, input: Tensor, target: Tensor, weight, pos_weight, reduction):
    log_sigmoid = xp.minimum(input, 0) - xp.log1p(xp.exp(-xp.abs(input)))
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sigmoid
    if weight is not None:
        loss = loss * weight
    # torch accumulates in place into (1 - target): the result has the target's dtype
    return reduced_loss(xp, loss.astype(target.dtype, copy=False), reduction)


def _bce_with_logits_input_slope(ctx):
    if ctx.pos_weight is None:
        return _weighted_slope(ctx, sigmoid(ctx.input) - ctx.target)
    positive = as_constant(ctx.pos_weight) * ctx.target
    return _weighted_slope(ctx, (positive + 1 - ctx.target) * sigmoid(ctx.input) - positive)


def _bce_with_logits_target_slope(ctx):
    from .activation import logsigmoid  # activation builds on this module: import it late
    if ctx.pos_weight is None:
        return _weighted_slope(ctx, -ctx.input)
    return _weighted_slope(ctx, logsigmoid(-ctx.input)
                           - logsigmoid(ctx.input) * as_constant(ctx.pos_weight))


_bce_with_logits.derivatives(
    input=lambda ctx: loss_grad(ctx, _bce_with_logits_input_slope(ctx)),
    target=lambda ctx: loss_grad(ctx, _bce_with_logits_target_slope(ctx)))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits."""
    reduction = checked_reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    check_not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    check_not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"result type {input.dtype.legacy_name} can't be cast to the desired "
                           f"output type {target.dtype.legacy_name}")
    if pos_weight is not None:
        _check_fits(broadcast_shapes(pos_weight.shape, target.shape), input.shape)
    if weight is not None:
        _check_fits(broadcast_shapes(input.shape, weight.shape), input.shape)
    return _bce_with_logits(input, target, _array_of(weight), _array_of(pos_weight), reduction)


def _check_fits(shape, into):
    # an in-place product must keep the shape it writes into
    if shape != into:
        raise RuntimeError(f"output with shape {list(into)} doesn't match the broadcast shape "
                           f"{list(shape)}")


# ---- Kullback-Leibler divergence -------------------------------------------------------------

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence of target from input (log-probabilities), composed as ATen's kl_div."""
    if size_average is not None or reduce is not None:
        mode = legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warn("reduction: 'mean' divides the total loss by both the batch size and "
                 "the support size.'batchmean' divides only by the batch size, and "
                 "aligns with the KL div math definition.'mean' will be changed to "
                 "behave the same as 'batchmean' in the next major release.")
        mode = "sum" if reduction == "batchmean" else checked_reduction(reduction)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = exp(target) * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    loss = reduce_loss(loss, mode)
    if reduction == "batchmean" and input.ndim != 0:
        return loss / input.shape[0]
    return loss


# ---- likelihood losses: Poisson and Gaussian -------------------------------------------------

def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log likelihood of target under Poisson(exp(input)) (or Poisson(input) when
    log_input is False), composed as ATen composes it; full adds Stirling's term."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(add_scalar(input, eps))
    if full:
        # log(target!) ~ target log(target) - target + log(2 pi target) / 2, for targets > 1
        stirling = (target * log(target) - target
                    + mul_scalar(log(mul_scalar(target, 2 * math.pi)), 0.5))
        loss = _in_place(add, loss, masked_fill(stirling, target <= 1, 0))
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log likelihood of target under Normal(input, var), up to a constant unless
    full. var may have input's shape, lack its last dim, or have one dim of size 1."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * constant_beside(input, np.ones(input.shape, input.dtype.numpy))
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = unsqueeze(var, -1)
        elif not (input.ndim == var.ndim and builtins.sum(
                size for given, size in zip(input.shape, var.shape) if given != size) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    # clamped for stability on a copy, without recording: the gradient ignores eps (as torch)
    var = var.clone()
    with grad_mode.no_grad():
        _in_place(clamp_min, var, eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)

# torch.softmax(input, dim, dtype) requires dim; F.softmax(input, dim=None, _stacklevel, dtype)
FUNCTIONS = METHODS = {"softmax": _with_required_dim("softmax", _softmax),
                       "log_softmax": _with_required_dim("log_softmax", _log_softmax)}
NN_FUNCTIONS = (
    "binary_cross_entropy binary_cross_entropy_with_logits cross_entropy gaussian_nll_loss "
    "huber_loss kl_div l1_loss log_softmax mse_loss nll_loss poisson_nll_loss smooth_l1_loss "
    "softmax softmin").split()
