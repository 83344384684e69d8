"""MultiheadAttention, as torch.nn's (computed by nn.attention_functional)."""
from __future__ import annotations

from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import init
from ..attention_functional import canonical_mask, multi_head_attention_forward, none_or_dtype
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under the class name torch gives MultiheadAttention's out_proj."""


def _time_major(query, key, value):
    """Swap batch and time of all three, keeping which of them are the same tensor."""
    if key is value and query is key:
        query = key = value = query.transpose(1, 0)
    elif key is value:
        query, key = query.transpose(1, 0), key.transpose(1, 0)
        value = key
    else:
        query, key, value = (x.transpose(1, 0) for x in (query, key, value))
    return query, key, value


class MultiheadAttention(Module):
    """Attention of num_heads heads over embed_dim features, with packed or separate q/k/v
    projections (separate when kdim or vdim differ from embed_dim)."""

    in_proj_weight: Parameter | None
    q_proj_weight: Parameter | None
    k_proj_weight: Parameter | None
    v_proj_weight: Parameter | None
    in_proj_bias: Parameter | None
    bias_k: Parameter | None
    bias_v: Parameter | None

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError("embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        self._register_projections(factory)
        self.register_parameter("in_proj_bias", Parameter(
            tapegrad.empty(3 * embed_dim, **factory)) if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        if add_bias_kv:
            self.bias_k = Parameter(tapegrad.empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(tapegrad.empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _register_projections(self, factory):
        """in_proj_weight, or q/k/v_proj_weight when key or value has its own width."""
        embed_dim = self.embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(tapegrad.empty((3 * embed_dim, embed_dim),
                                                           **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
            return
        self.q_proj_weight = Parameter(tapegrad.empty((embed_dim, embed_dim), **factory))
        self.k_proj_weight = Parameter(tapegrad.empty((embed_dim, self.kdim), **factory))
        self.v_proj_weight = Parameter(tapegrad.empty((embed_dim, self.vdim), **factory))
        self.register_parameter("in_proj_weight", None)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """(attention output, attention weights or None); weights averaged over heads unless
        average_attn_weights=False."""
        is_batched = query.dim() == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                          none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                   check_other=False)
        if self.batch_first and is_batched:
            query, key, value = _time_major(query, key, value)
        separate: dict[str, Any] = {}
        if not self._qkv_same_embed_dim:
            separate = dict(use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight)
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            output = output.transpose(1, 0)
        return output, weights

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """One (batch, heads, seq, seq) mask from both masks, and its type (0, 1 or 2)."""
        if key_padding_mask is not None and attn_mask is None:
            return key_padding_mask, 1
        if attn_mask is None:
            return None, None
        batch_size, seq_len, _ = query.shape
        if attn_mask.dim() == 3:
            merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
        else:
            merged = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads,
                                                                   -1, -1)
        if key_padding_mask is not None:
            merged = merged + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                -1, self.num_heads, -1, -1)
        return merged, 2
