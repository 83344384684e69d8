"""multi_head_attention_forward as a composition of public tapegrad ops, with
torch.nn.functional's signature, values and gradients (scaled_dot_product_attention is an op:
tapegrad/ops/attention.py)."""
import math

import tapegrad

from . import functional as F
from .._warnings import warn

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

scaled_dot_product_attention = F.scaled_dot_product_attention


def none_or_dtype(input):
    """The dtype of a mask, or None without one."""
    if input is None:
        return None
    if isinstance(input, tapegrad.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float mask of target_type (-inf where True)."""
    if mask is None:
        return None
    is_float = tapegrad.is_floating_point(mask)
    if mask.dtype != tapegrad.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
             "Use same type for both instead.")
    if is_float:
        return mask
    return tapegrad.zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)


def _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether query is batched, after torch's checks of every input's rank."""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    rank = query.dim()
    kind = "batched (3-D)" if rank == 3 else "unbatched (2-D)"
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {rank}-D"
            f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D"
            f" but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(
            f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
            f" but found {attn_mask.dim()}-D tensor instead")
    expected_shape = (num_heads, query.shape[0], key.shape[0])
    if (rank == 2 and attn_mask is not None and attn_mask.dim() == 3
            and attn_mask.shape != expected_shape):
        raise AssertionError(
            f"Expected `attn_mask` shape to be {expected_shape} but got {attn_mask.shape}")
    return rank == 3


def _part_major(projected, parts):
    """(seq, batch, parts * E) as `parts` tensors of (seq, batch, E), selected from one
    contiguous copy with the part dim first (torch's layout, and its graph)."""
    stacked = (projected.unflatten(-1, (parts, projected.size(-1) // parts)).unsqueeze(0)
               .transpose(0, -2).squeeze(-2).contiguous())
    return tuple(stacked[part] for part in range(parts))


def _in_projection_packed(query, key, value, weight, bias):
    """Project query, key and value with the three row blocks of one packed weight: one
    product for all three in self-attention, one for key and value when they are the same."""
    embed_dim = query.size(-1)
    if key is value and query is key:
        return _part_major(F.linear(query, weight, bias), 3)
    if key is value:
        weight_q, weight_kv = weight.split([embed_dim, 2 * embed_dim])
        bias_q, bias_kv = (None, None) if bias is None else bias.split(
            [embed_dim, 2 * embed_dim])
        return (F.linear(query, weight_q, bias_q),
                *_part_major(F.linear(key, weight_kv, bias_kv), 2))
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weight.chunk(3),
                                                       biases))


def _in_projection(query, key, value, weights, biases):
    """Project query, key and value with separate weights (kdim/vdim differ from embed_dim)."""
    dims = (query.size(-1), key.size(-1), value.size(-1))
    for role, weight, in_dim in zip(("query", "key", "value"), weights, dims):
        if weight.shape != (dims[0], in_dim):
            raise AssertionError(f"expecting {role} weights shape of {(dims[0], in_dim)}, "
                                 f"but got {weight.shape}")
    for role, bias in zip(("query", "key", "value"), biases):
        if bias is not None and bias.shape != (dims[0],):
            raise AssertionError(
                f"expecting {role} bias shape of {(dims[0],)}, but got {bias.shape}")
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _project(query, key, value, in_proj_weight, in_proj_bias, separate_weights):
    """q, k, v projections; separate_weights is (q_proj, k_proj, v_proj) or None (packed)."""
    if separate_weights is not None and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {tapegrad.Size(key.shape[:2])}"
                             f" do not match value's {tapegrad.Size(value.shape[:2])}")
    if separate_weights is None and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if separate_weights is None:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    for role, weight in zip("qkv", separate_weights):
        if weight is None:
            raise AssertionError(
                f"use_separate_proj_weight is True but {role}_proj_weight is None")
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, separate_weights, biases)


def _attn_mask_3d(attn_mask, bsz, num_heads, tgt_len, src_len):
    """Check attn_mask's shape and give it a leading (batch * heads) dim."""
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        correct_3d_size = (bsz * num_heads, tgt_len, src_len)
        if attn_mask.shape != correct_3d_size:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct_3d_size}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_masks(attn_mask, key_padding_mask):
    """Extend both masks by one unmasked key column, for an appended key."""
    return (None if attn_mask is None else F.pad(attn_mask, (0, 1)),
            None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1)))


def _heads(projected, bsz, num_heads, head_dim, static, role):
    """(seq, batch, embed) -> (batch * heads, seq, head_dim), or the given static tensor."""
    if static is None:
        return projected.view(projected.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(
            f"expecting static_{role}.size(0) of {bsz * num_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(
            f"expecting static_{role}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _canonical_masks(query, key_padding_mask, attn_mask, need_weights, is_causal):
    """Both masks as additive float masks; is_causal stays only where SDPA can use it."""
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint replaces the mask: SDPA builds the causal mask itself.
        return None, None, True
    attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                               check_other=False)
    return key_padding_mask, attn_mask, is_causal and key_padding_mask is None


def _append_bias_kv(k, v, bias_k, bias_v, static_k, static_v, attn_mask, key_padding_mask):
    """Append the learnt bias_k/bias_v as one more key/value position."""
    if bias_k is None or bias_v is None:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
        return k, v, attn_mask, key_padding_mask
    if static_k is not None:
        raise AssertionError("bias cannot be added to static key.")
    if static_v is not None:
        raise AssertionError("bias cannot be added to static value.")
    bsz = k.size(1)
    k = tapegrad.cat([k, bias_k.repeat(1, bsz, 1)])
    v = tapegrad.cat([v, bias_v.repeat(1, bsz, 1)])
    return (k, v, *_pad_masks(attn_mask, key_padding_mask))


def _append_zero_attn(k, v, attn_mask, key_padding_mask):
    """Append a zero key/value position to every head."""
    zeros = tapegrad.zeros(k.size(0), 1, k.size(2), dtype=k.dtype)
    k = tapegrad.cat([k, zeros], dim=1)
    v = tapegrad.cat([v, zeros], dim=1)
    return (k, v, *_pad_masks(attn_mask, key_padding_mask))


def _merge_key_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    """Add the (batch, src_len) padding mask to attn_mask, one copy per head."""
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")
    per_head = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                .reshape(bsz * num_heads, 1, src_len))
    return per_head if attn_mask is None else attn_mask + per_head


def _attend_with_weights(q, k, v, attn_mask, dropout_p):
    """Attention over (batch * heads) that also returns the softmax weights."""
    q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
    if attn_mask is None:
        scores = tapegrad.bmm(q_scaled, k.transpose(-2, -1))
    else:
        scores = tapegrad.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    weights = F.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return tapegrad.bmm(weights, v), weights


def _attend_with_sdpa(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads):
    """Attention through scaled_dot_product_attention, heads as their own dim."""
    tgt_len, src_len, head_dim = q.size(1), k.size(1), q.size(2)
    if attn_mask is not None and attn_mask.size(0) == 1:
        attn_mask = attn_mask.unsqueeze(0)
    elif attn_mask is not None:
        attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    output = scaled_dot_product_attention(
        q.view(bsz, num_heads, tgt_len, head_dim), k.view(bsz, num_heads, src_len, head_dim),
        v.view(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
    return output.permute(2, 0, 1, 3)


def _attend(q, k, v, attn_mask, dropout_p, is_causal, need_weights, average_weights, bsz):
    """Per-head attention: output as (tgt_len, bsz, heads, head_dim), and the weights
    (averaged over heads if asked) when need_weights."""
    if not need_weights:
        num_heads = q.size(0) // bsz
        return _attend_with_sdpa(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads), None
    output, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p)
    weights = weights.view(bsz, -1, q.size(1), k.size(1))
    return output.transpose(0, 1), weights.mean(dim=1) if average_weights else weights


def _checked_head_dim(embed_dim, embed_dim_to_check, num_heads):
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    return head_dim


def multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
        bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True,
        key_padding_mask=None, need_weights=True, attn_mask=None,
        use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
        v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
        is_causal=False):
    """MultiheadAttention's computation on (seq, batch, embed) or unbatched (seq, embed) input."""
    is_batched = _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask, attn_mask, is_causal = _canonical_masks(
        query, key_padding_mask, attn_mask, need_weights, is_causal)
    head_dim = _checked_head_dim(embed_dim, embed_dim_to_check, num_heads)
    separate = ((q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight
                else None)
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        attn_mask = _attn_mask_3d(attn_mask, bsz, num_heads, tgt_len, key.shape[0])
    k, v, attn_mask, key_padding_mask = _append_bias_kv(
        k, v, bias_k, bias_v, static_k, static_v, attn_mask, key_padding_mask)
    q = _heads(q, bsz, num_heads, head_dim, None, "q")
    k = _heads(k, bsz, num_heads, head_dim, static_k, "k")
    v = _heads(v, bsz, num_heads, head_dim, static_v, "v")
    if add_zero_attn:
        k, v, attn_mask, key_padding_mask = _append_zero_attn(k, v, attn_mask, key_padding_mask)
    src_len = k.size(1)
    attn_mask = _merge_key_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    output, weights = _attend(q, k, v, attn_mask, dropout_p if training else 0.0, is_causal,
                              need_weights, average_attn_weights, bsz)
    output = F.linear(output.reshape(tgt_len * bsz, embed_dim), out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not is_batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights
