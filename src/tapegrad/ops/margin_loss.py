"""Margin, ranking and embedding losses of torch.nn.functional.

soft_margin_loss, multi_margin_loss and multilabel_margin_loss have kernels of their own in
torch: each is one op with torch's node name. The others are composed of ops as torch composes
them (in ATen or in Python), so the graph shows torch's nodes.
"""
import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ._checks import broadcast_shapes, refuse_half
from ._define import defop
from ._inplace import inplace as _in_place
from .activation import logsigmoid, pairwise_distance
from .loss import (as_constant, check_not_differentiable, checked_reduction, legacy_reduction,
                   loss_grad, reduce_loss, reduced_loss)
from .pointwise import add_scalar, clamp_min, minimum, sub, sub_scalar, where
from .reduction import sum
from .shape import constant_beside, reshape, unsqueeze, zeros_of
from .unary import exp, sqrt

_EPSILON = 1e-12  # keeps cosine_embedding_loss's norms away from 0


# ---- losses of pairs and triplets ----------------------------------------------------------

def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = checked_reduction(reduction, size_average, reduce)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    products = sum(input1 * input2, dim)
    squares1 = add_scalar(sum(input1 * input1, dim), _EPSILON)
    squares2 = add_scalar(sum(input2 * input2, dim), _EPSILON)
    cos = products / sqrt(squares1 * squares2)
    zeros = zeros_of(cos)
    similar = where(target == 1, sub(1, cos), zeros)
    dissimilar = where(target == -1, clamp_min(sub_scalar(cos, float(margin)), 0), zeros)
    return reduce_loss(similar + dissimilar, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = checked_reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    unclamped = add_scalar(-target * (input1 - input2), float(margin))
    return reduce_loss(clamp_min(unclamped, 0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (both elsewhere)."""
    reduction = checked_reduction(reduction, size_average, reduce)
    zeros = zeros_of(input)
    # ATen's `margin - input` fills a tensor like input with margin (in input's dtype) first
    margins = constant_beside(input, np.full(input.shape, margin, input.dtype.numpy))
    margin_clamp = _in_place(clamp_min, sub(margins, input), 0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return reduce_loss(output_margin + output_self, reduction)


def _check_triplet_dims(anchor, positive, negative):
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.ndim}D, positive "
                           f"{positive.ndim}D, and negative {negative.ndim}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with p-norm distances."""
    reduction = checked_reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = minimum(distance_negative,
                                    pairwise_distance(positive, negative, p, eps))
    unclamped = add_scalar(distance_positive, float(margin)) - distance_negative
    return reduce_loss(clamp_min(unclamped, 0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default),
    composed as torch's Python function."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function or pairwise_distance
    distance_positive = distance(anchor, positive)
    distance_negative = distance(anchor, negative)
    if swap:
        distance_negative = minimum(distance_negative, distance(positive, negative))
    return reduce_loss(clamp_min(margin + distance_positive - distance_negative, 0), reduction)


# ---- logistic losses -------------------------------------------------------------------------

@defop("SoftMarginLossBackward0", save=("input", "target", "reduction"))
def _soft_margin_loss(xp, input: Tensor, target, reduction):
    return reduced_loss(xp, xp.log1p(xp.exp(-input * target)), reduction)


@defop("SoftMarginLossBackwardBackward0", save=("grad_output", "input", "target",
                                               "reduction"))
def _soft_margin_loss_backward(xp, grad_output: Tensor, input: Tensor, target, reduction):
    """torch's soft_margin_loss_backward: d/dx log(1 + exp(-t x)) = -t z / (1 + z) with
    z = exp(-t x), as torch computes it, times grad_output (over numel for 'mean')."""
    z = xp.exp(-target * input)
    result = -target * z / (z + 1) * grad_output
    return result / result.dtype.type(result.size) if reduction == "mean" else result


def _soft_margin_slope(ctx):
    target = as_constant(ctx.target)
    z = exp(-target * ctx.input)
    return -target * z / (z + 1)


def _soft_margin_curvature(ctx):
    """d/dx of the slope: t^2 z / (1 + z)^2."""
    target = as_constant(ctx.target)
    z = exp(-target * ctx.input)
    return target * target * z / ((z + 1) * (z + 1))


_soft_margin_loss_backward.derivatives(
    grad_output=lambda ctx: loss_grad(ctx, _soft_margin_slope(ctx)),
    input=lambda ctx: loss_grad(ctx, ctx.grad_output * _soft_margin_curvature(ctx)))
_soft_margin_loss.derivatives(input=lambda ctx: _soft_margin_loss_backward(
    ctx.grad, ctx.input, ctx.target, ctx.reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), reduced; target (+1 or -1) broadcasts to input."""
    reduction = checked_reduction(reduction, size_average, reduce)
    check_not_differentiable("soft_margin_loss", "target", target)
    shape = _broadcast_into(input.shape, target.shape)
    if not input.dtype.is_floating_point:
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy_name}")
    target = _backend.array_module(target._data).broadcast_to(target._data, shape).astype(
        input.dtype.numpy)
    return _soft_margin_loss(input, target, reduction)


def _broadcast_into(shape, other):
    """shape, when other broadcasts into it (an in-place product keeps its shape)."""
    common = broadcast_shapes(shape, other)
    if common != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(common)}")
    return shape


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross entropy of each class's logit, averaged over the classes (last dim)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction in ("mean", "sum"):
        return reduce_loss(loss, reduction)
    raise ValueError(f"{reduction} is not valid")


# ---- multi-class margin losses ---------------------------------------------------------------
#
# Both take (N, C) input (or (C,), or 0-d as one class) and work on it as `frames`, an
# (N, C) view; the gradient of a frame's loss is divided by C (and by N for the mean).

def _frames_shape(input):
    if input.ndim == 2:
        return input.shape
    return (1, input.shape[0] if input.ndim else 1)


def _check_frames(input):
    if not ((input.ndim == 2 and input.shape[1]) or (input.ndim == 1 and input.shape[0])
            or input.ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")


def _check_kernel_dtypes(kernel, input, target, weight=None):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.legacy_name}'")
    refuse_half(kernel, input)
    for tensor, expected in ((target, _dtype.int64), (weight, input.dtype)):
        if tensor is not None and tensor.dtype is not expected:
            raise RuntimeError(f"expected scalar type {expected.legacy_name} but found "
                               f"{tensor.dtype.legacy_name}")


def _frame_losses(xp, losses, out_shape, reduction):
    """Per-frame losses reduced as torch's kernels reduce them."""
    result = reduced_loss(xp, losses, reduction)
    return result.reshape(out_shape) if reduction == "none" else result


def _frame_grad(ctx, frames_shape):
    """The incoming gradient of each frame's loss, divided as the reduction divides: (N, 1)."""
    frames, classes = frames_shape
    grad = reshape(ctx.grad, (-1, 1)) / classes
    return grad / frames if ctx.reduction == "mean" else grad


def _one_hot(xp, target, classes):
    """(N, C) bools: True at each frame's target class."""
    return target[:, None] == xp.arange(classes)


@defop("MultiMarginLossBackward0",
       save=("input", "target", "p", "margin", "weight", "reduction", "frames_shape"))
def _multi_margin_loss(xp, input: Tensor, target, p, margin, weight, reduction, frames_shape,
                       out_shape):
    frames = input.reshape(frames_shape)
    # the hinge margin - x[target] + x[class] of every class but the target
    z = (margin - xp.take_along_axis(frames, target[:, None], 1)) + frames
    active = (z > 0) & ~_one_hot(xp, target, frames_shape[1])
    terms = xp.where(active, z if p == 1 else z * z, 0)
    if weight is not None:  # weighs the active terms only (0 * an infinite weight: NaN)
        terms = xp.where(active, terms * weight[target][:, None], 0)
    return _frame_losses(xp, terms.sum(1) / frames.shape[1], out_shape, reduction)


def _multi_margin_backward(ctx):
    """Each active class gains the hinge's slope, the target class loses their sum."""
    frames = reshape(ctx.input, ctx.frames_shape)
    is_target = _one_hot(_backend.array_module(ctx.target), ctx.target, ctx.frames_shape[1])
    # where, not a product with the one-hot mask: an infinite other class would make it NaN
    picked = sum(where(as_constant(is_target), frames, 0.0), 1, keepdim=True)
    z = (ctx.margin - picked) + frames
    active = (z > 0) & as_constant(~is_target)
    grad = _frame_grad(ctx, ctx.frames_shape)
    if ctx.weight is not None:
        grad = grad * as_constant(ctx.weight[ctx.target][:, None])
    # z * (2 * grad): 2 * z would overflow for a huge float32 hinge where torch's slope does not
    slopes = where(active, grad if ctx.p == 1 else z * (2 * grad), 0.0)
    # where again: an infinite slope times the one-hot mask would be NaN off the target
    return reshape(where(as_constant(is_target), -sum(slopes, 1, keepdim=True), slopes),
                   ctx.input_shape)


_multi_margin_loss.derivatives(input=_multi_margin_backward)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Mean over the other classes of max(0, margin - x[target] + x[class])^p (p 1 or 2),
    each scaled by weight[target]."""
    reduction = checked_reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    check_not_differentiable("multi_margin_loss", "weight", weight)
    _check_frames(input)
    frames, classes = _frames_shape(input)
    if target.ndim > 1 or target.numel() != frames:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           "number of input samples (batch size). Expected target size "
                           f"[{frames}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    _check_kernel_dtypes("multi_margin_loss_cpu_kernel", input, target, weight)
    indices = target._data.reshape(frames)
    if ((indices < 0) | (indices >= classes)).any():
        raise RuntimeError("target out of range")
    weights = None if weight is None else weight._data
    return _multi_margin_loss(input, indices, p, margin, weights, reduction, (frames, classes),
                              (frames,) if target.ndim else ())


def _label_counts(xp, target, classes):
    """How often each class is listed among a frame's targets (the list ends at the first
    -1; a class listed twice counts twice, as in torch's loop)."""
    listed = xp.cumprod(target >= 0, axis=1).astype(bool)
    return ((target[:, :, None] == xp.arange(classes)) & listed[:, :, None]).sum(1)


@defop("MultilabelMarginLossBackward0", save=("input", "target", "reduction", "frames_shape"))
def _multilabel_margin_loss(xp, input: Tensor, target, reduction, frames_shape, out_shape):
    frames = input.reshape(frames_shape)
    counts = _label_counts(xp, target, frames_shape[1])
    # the hinge 1 - x[j] + x[d] of each (target j, class d) pair, counted where d is no target
    z = 1 - frames[:, :, None] + frames[:, None, :]
    counted = (z > 0) & (counts == 0)[:, None, :] & (counts > 0)[:, :, None]
    # where, not a product with the counts: an uncounted infinite hinge would make it NaN
    hinges = xp.where(counted, z * counts[:, :, None].astype(frames.dtype), 0)
    return _frame_losses(xp, hinges.sum((1, 2)) / frames.shape[1], out_shape, reduction)


def _multilabel_margin_backward(ctx):
    """Each counted pair (j, d) moves the gradient from target j to class d; the loss is
    piecewise linear, so the coefficients are constants."""
    frames = reshape(ctx.input, ctx.frames_shape)
    counts = _label_counts(_backend.array_module(ctx.target), ctx.target, ctx.frames_shape[1])
    z = 1 - unsqueeze(frames, 2) + unsqueeze(frames, 1)
    counted = (z > 0) & as_constant((counts == 0)[:, None, :])
    pairs = where(counted, as_constant(counts[:, :, None].astype(ctx.grad.dtype.numpy)), 0.0)
    coefficients = sum(pairs, 1) - sum(pairs, 2)
    return reshape(coefficients * _frame_grad(ctx, ctx.frames_shape), ctx.input_shape)


_multilabel_margin_loss.derivatives(input=_multilabel_margin_backward)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each frame, the sum of max(0, 1 - (x[j] - x[d])) over its target classes j (the
    target row lists them, up to the first -1) and the other classes d, divided by C."""
    reduction = checked_reduction(reduction, size_average, reduce)
    _check_frames(input)
    frames, classes = _frames_shape(input)
    if input.ndim <= 1:
        fits = target.ndim <= 1 and target.numel() == classes
    else:
        fits = target.ndim == 2 and target.shape == input.shape
    if not fits:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _check_kernel_dtypes("multilabel_margin_loss_forward_out_frame", input, target)
    indices = target._data.reshape(frames, classes)
    if ((indices < -1) | (indices >= classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    return _multilabel_margin_loss(input, indices, reduction, (frames, classes),
                                   () if target.ndim <= 1 else (frames,))


NN_FUNCTIONS = (
    "cosine_embedding_loss hinge_embedding_loss margin_ranking_loss multi_margin_loss "
    "multilabel_margin_loss multilabel_soft_margin_loss soft_margin_loss triplet_margin_loss "
    "triplet_margin_with_distance_loss").split()
