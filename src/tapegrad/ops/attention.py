"""scaled_dot_product_attention, with the two CPU paths torch chooses between: its fused flash
kernel (one ScaledDotProductFlashAttentionForCpuBackward0 node) and its math composition
(scaled q and k, matmul, mask added, _safe_softmax, optional dropout, matmul).
"""
import math

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from . import reduction
from ._define import defop
from .dropout import dropout
from .linalg import matmul
from .pointwise import mul_scalar
from .reordering import repeat_interleave
from .shape import constant_beside, reshape, transpose, zeros_of

# The C++ type names that torch's SDPA checks print.
_C_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _c_type(dtype):
    return _C_TYPE_NAMES.get(dtype.name, dtype.name)


def _check_inputs(query, key, value, attn_mask):
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_c_type(query.dtype)} key.dtype: {_c_type(key.dtype)} and value.dtype: "
            f"{_c_type(value.dtype)} instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dtype.bool, _dtype.float32,
                                                         query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_c_type(attn_mask.dtype)} and  query.dtype: "
            f"{_c_type(query.dtype)} instead.")


# ---- _safe_softmax: softmax whose rows of only -inf give zeros ------------------------------

@defop("SafeSoftmaxBackward0", save=("result", "dim"))
def _safe_softmax(xp, input: Tensor, dim):
    row_max = input.max(axis=dim, keepdims=True)
    dead = row_max == -xp.inf
    shifted = xp.exp(input - xp.where(dead, 0, row_max))
    return shifted / xp.where(dead, 1, shifted.sum(axis=dim, keepdims=True))


_safe_softmax.derivatives(input=lambda ctx: ctx.result * (
    ctx.grad - reduction.sum(ctx.grad * ctx.result, ctx.dim, keepdim=True)))


# ---- the fused CPU kernel ------------------------------------------------------------------
# Note [Key-major scores]: the kernel keeps the scores transposed, (..., source, target), so
# that each query's softmax runs down a column: NumPy reduces over a middle axis several times
# faster than over a short last one, and the row sums become one batched product with ones.

def _additive_mask(xp, attn_mask, is_causal, shape):
    """What the scores get added: the float mask, and -inf where causality forbids (shape:
    the scores' last two dims); None for neither."""
    if not is_causal:
        return attn_mask
    causal = xp.where(xp.tril(xp.ones(shape, bool)), 0.0, -xp.inf)
    return causal if attn_mask is None else attn_mask + causal


def _key_major_scores(xp, query, key, attn_mask, is_causal, scale):
    """key @ query^T * scale plus the mask, transposed (Note [Key-major scores])."""
    scores = xp.matmul(key, xp.swapaxes(query, -1, -2))
    scores *= scale
    mask = _additive_mask(xp, attn_mask, is_causal, (query.shape[-2], key.shape[-2]))
    if mask is not None:
        scores += xp.swapaxes(mask, -1, -2)
    return scores


def _in_compute_dtype(array):
    """Half precision computed in float32, as torch's kernel accumulates."""
    return array.astype(np.float32) if array.dtype.itemsize < 4 else array


def _repeat_heads(xp, query, key, value):
    """key and value with each head repeated for the query heads of its group."""
    groups = query.shape[1] // key.shape[1]
    if groups == 1:
        return key, value
    return xp.repeat(key, groups, axis=1), xp.repeat(value, groups, axis=1)


@defop("ScaledDotProductFlashAttentionForCpuBackward0",
       save=("query", "key", "value", "result0", "result1", "attn_mask", "is_causal", "scale"))
def _flash_attention(xp, query: Tensor, key: Tensor, value: Tensor, attn_mask, is_causal,
                     scale):
    """(output, logsumexp of each row of scores), as torch's kernel: softmax's normaliser is
    applied after the product with value; a row with nothing to attend to gives zeros. The
    output is laid out as the query is (torch's too). Key and value may have fewer heads (a
    divisor of the query's): each serves a group. Half precision gives a float32 logsumexp,
    as torch's."""
    dtype = query.dtype
    query, key, value = map(_in_compute_dtype, (query, key, value))
    key, value = _repeat_heads(xp, query, key, value)
    weights = _key_major_scores(xp, query, key, attn_mask, is_causal, scale)
    row_max = weights.max(axis=-2, keepdims=True)
    row_max[row_max == -xp.inf] = 0
    weights -= row_max
    xp.exp(weights, out=weights)
    total = xp.matmul(xp.ones(weights.shape[-2], weights.dtype), weights)
    output = xp.matmul(xp.swapaxes(weights, -1, -2), value, out=xp.empty_like(query))
    dead = total == 0  # as torch's, such a row's logsumexp is 0
    # divided in the output's memory order: NumPy's loop would follow the shape (3x slower)
    order = sorted(range(output.ndim), key=lambda axis: -output.strides[axis])
    in_order = output.transpose(order)
    xp.divide(in_order, xp.where(dead, xp.inf, total)[..., None].transpose(order), out=in_order)
    return output.astype(dtype, copy=False), xp.log(xp.where(dead, 1, total)) + row_max[..., 0, :]


def _flash_attention_grads(ctx):
    """(query, key, value) gradients in NumPy, for a backward that records nothing: the
    probabilities come back from the saved logsumexp, key-major (Note [Key-major scores])."""
    if "array_grads" in vars(ctx):
        return ctx.array_grads
    on_tensors = isinstance(ctx.grad, Tensor)  # or arrays (Note [Formulas on arrays])
    arrays = [t._data if on_tensors else t for t in (ctx.query, ctx.key, ctx.value, ctx.grad,
                                                     ctx.result0, ctx.result1)]
    xp = _backend.array_module(arrays[0])
    dtype = arrays[0].dtype
    query, key, value, grad, output, logsumexp = map(_in_compute_dtype, arrays)
    key, value = _repeat_heads(xp, query, key, value)
    needs_query, needs_key, needs_value = ctx._node._needs_input_grad
    probabilities = _key_major_scores(xp, query, key, ctx.attn_mask, ctx.is_causal, ctx.scale)
    probabilities -= logsumexp[..., None, :]
    xp.exp(probabilities, out=probabilities)
    grads = [None, None, None]
    if needs_value:
        grads[2] = xp.matmul(probabilities, grad)
    if needs_query or needs_key:
        scores_grad = xp.matmul(value, xp.swapaxes(grad, -1, -2))
        scores_grad -= xp.einsum("...ld,...ld->...l", grad, output)[..., None, :]
        scores_grad *= probabilities
        scores_grad *= ctx.scale
        if needs_query:
            grads[0] = xp.matmul(xp.swapaxes(scores_grad, -1, -2), key,
                                 out=xp.empty_like(query))
        if needs_key:
            grads[1] = xp.matmul(scores_grad, query)
    groups = query.shape[1] // ctx.key.shape[1]
    grads[1:] = (_summed_over_groups(grad, groups) for grad in grads[1:])
    grads = [None if grad is None else grad.astype(dtype, copy=False) for grad in grads]
    ctx.array_grads = [Tensor._make(g) if on_tensors and g is not None else g for g in grads]
    return ctx.array_grads


def _summed_over_groups(grad, groups):
    """The gradient of heads repeated `groups` times, summed back into each original head."""
    if grad is None or groups == 1:
        return grad
    return grad.reshape(grad.shape[0], -1, groups, *grad.shape[2:]).sum(2)


def _grouped(ctx, tensor):
    """key or value with its heads repeated for the query's groups."""
    groups = ctx.query_shape[1] // ctx.key_shape[1]
    return tensor if groups == 1 else repeat_interleave(tensor, groups, 1)


def _per_head_group(ctx, grad):
    """The gradient of a repeated key or value, summed over each head's group."""
    batch, heads = ctx.key_shape[:2]
    if heads == ctx.query_shape[1]:
        return grad
    return reduction.sum(reshape(grad, (batch, heads, -1) + tuple(grad.shape[2:])), 2)


def _probabilities(ctx):
    """softmax(scores), recomputed from the inputs with ordinary ops (so that backward is
    differentiable again)."""
    if "probabilities" not in vars(ctx):
        scores = mul_scalar(matmul(ctx.query, transpose(_grouped(ctx, ctx.key), -1, -2)),
                            ctx.scale)
        xp = _backend.array_module(scores._data)
        mask = _additive_mask(xp, ctx.attn_mask, ctx.is_causal, scores.shape[-2:])
        if mask is not None:
            scores = scores + Tensor._make(xp.asarray(mask, ctx.query.dtype.numpy))
        ctx.probabilities = _safe_softmax(scores, -1)
    return ctx.probabilities


def _scores_grad(ctx):
    """The gradient of the (scaled, masked) scores, through the softmax."""
    if "scores_grad" not in vars(ctx):
        grad_probabilities = matmul(ctx.grad, transpose(_grouped(ctx, ctx.value), -1, -2))
        row_term = reduction.sum(ctx.grad * ctx.result0, -1, keepdim=True)
        ctx.scores_grad = _probabilities(ctx) * (grad_probabilities - row_term)
    return ctx.scores_grad


def _query_grad(ctx):
    if not grad_mode.is_recording():
        return _flash_attention_grads(ctx)[0]
    return mul_scalar(matmul(_scores_grad(ctx), _grouped(ctx, ctx.key)), ctx.scale)


def _key_grad(ctx):
    if not grad_mode.is_recording():
        return _flash_attention_grads(ctx)[1]
    return _per_head_group(ctx, mul_scalar(matmul(transpose(_scores_grad(ctx), -1, -2),
                                                  ctx.query), ctx.scale))


def _value_grad(ctx):
    if not grad_mode.is_recording():
        return _flash_attention_grads(ctx)[2]
    return _per_head_group(ctx, matmul(transpose(_probabilities(ctx), -1, -2), ctx.grad))


_flash_attention.derivatives(query=_query_grad, key=_key_grad, value=_value_grad)


# ---- scaled_dot_product_attention ----------------------------------------------------------

def _mask_fits_kernel(attn_mask, query, key):
    """torch's check_attn_mask_shape: a constant mask broadcast only in torch's ways."""
    if attn_mask.requires_grad:
        return False
    if forward_ad.tangent_of(attn_mask) is not None:  # the kernel takes the mask as a constant
        return False
    batch, heads, target, source = query.shape[0], query.shape[1], query.shape[2], key.shape[2]
    if attn_mask.shape[-2] not in (target, 1) or attn_mask.shape[-1] not in (source, 1):
        return False
    return attn_mask.ndim == 2 or (attn_mask.ndim == 4 and attn_mask.shape[0] in (1, batch)
                                   and attn_mask.shape[1] in (1, heads))


def _uses_fused_kernel(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Whether torch runs its flash kernel on CPU (sdp_utils_cpp's use_flash_attention_cpp)."""
    tensors = (query, key, value)
    if dropout_p > 0.0 or any(t.ndim != 4 for t in tensors):
        return False
    if len({t.shape[0] for t in tensors}) > 1 or key.shape[1] != value.shape[1]:
        return False
    grouped = enable_gqa and query.shape[1] % key.shape[1] == 0
    if query.shape[1] != key.shape[1] and not grouped:
        return False
    if attn_mask is not None and not _mask_fits_kernel(attn_mask, query, key):
        return False
    if len({t.shape[-1] for t in tensors}) > 1 or 0 in (query.shape[2], key.shape[2]):
        return False
    return all(t.stride(-1) == 1 for t in tensors)


def _float_mask(attn_mask, dtype):
    """A bool mask as torch converts it: 0 where attention may look, -inf elsewhere."""
    if attn_mask is None or attn_mask.dtype is not _dtype.bool:
        return attn_mask
    xp = _backend.array_module(attn_mask._data)
    return Tensor._make(xp.where(attn_mask._data, 0.0, -np.inf).astype(dtype.numpy))


def _default_scale(query):
    """1/sqrt(embedding size); infinite for an empty embedding, as C++'s division gives."""
    return 1 / math.sqrt(query.shape[-1]) if query.shape[-1] else math.inf


def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """torch's _scaled_dot_product_attention_math: q and k each scaled by sqrt(scale)."""
    scale = _default_scale(query) if scale is None else scale
    root = math.sqrt(abs(scale))
    query = mul_scalar(query, -root if scale < 0 else root)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        allowed = np.tril(np.ones((query.shape[-2], key.shape[-2]), bool))
        attn_mask = constant_beside(query, np.where(allowed, 0.0, -np.inf).astype(
            query.dtype.numpy))
    if enable_gqa and query.ndim > 2 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = repeat_interleave(key, groups, -3)
        value = repeat_interleave(value, groups, -3)
    scores = matmul(query, mul_scalar(transpose(key, -2, -1), root))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return matmul(weights, value)


def _empty_attention(query, key, value):
    """torch's result when the output or the key sequence is empty, before any shape check:
    zeros that keep the inputs in the graph, zeros + 0 * (sum(q) + sum(k) + sum(v))."""
    zeros = zeros_of(query, tuple(query.shape[:-1]) + (value.shape[-1],))
    total = reduction.sum(query) + reduction.sum(key) + reduction.sum(value)
    return zeros + mul_scalar(total, 0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value through the CPU path torch would take
    (its flash kernel or its math composition); dropout_p applies whether or not a module
    is training."""
    _check_inputs(query, key, value, attn_mask)
    if 0 in query.shape[:-1] or 0 in key.shape[:-1] or 0 in value.shape:
        return _empty_attention(query, key, value)
    attn_mask = _float_mask(attn_mask, query.dtype)
    if _uses_fused_kernel(query, key, value, attn_mask, dropout_p, enable_gqa):
        scale = _default_scale(query) if scale is None else scale
        mask = None if attn_mask is None else attn_mask._data
        return _flash_attention(query, key, value, mask, is_causal, scale)[0]
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                           enable_gqa)


NN_FUNCTIONS = ["scaled_dot_product_attention"]
