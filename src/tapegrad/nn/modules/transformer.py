"""Transformer, its encoder and decoder stacks and their layers, as torch.nn's."""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from ..attention_functional import canonical_mask, none_or_dtype
from ..common_types import DeviceLikeType
from ..init import xavier_uniform_
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from ..._warnings import warn

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]


def _activation_function(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _causal_mask(size, dtype=None, device=None):
    """-inf above the diagonal, 0 elsewhere."""
    return tapegrad.full((size, size), float("-inf"), dtype=dtype, device=device).triu(1)


def _seq_len(x, batch_first):
    return x.size(0 if x.dim() == 2 or not batch_first else 1)


def _detect_is_causal_mask(mask, is_causal, size):
    """is_causal when given; otherwise whether mask equals the causal mask of its size."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _causal_mask(size if size is not None else mask.size(-2), mask.dtype)
    return mask.size() == causal.size() and bool((mask == causal).all())


def _canonical_src_masks(src, src_mask, src_key_padding_mask, mask_name, padding_name):
    padding = canonical_mask(src_key_padding_mask, padding_name, none_or_dtype(src_mask),
                             mask_name, src.dtype)
    return canonical_mask(src_mask, mask_name, None, "", src.dtype, check_other=False), padding


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and
    LayerNorm (after the block, or before it when norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_function(activation)
        # torch records which of its fused kernels the activation would allow (1 relu, 2 gelu).
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        """src: (seq, batch, d_model), (batch, seq, d_model) when batch_first, or (seq, d_model)."""
        src_mask, src_key_padding_mask = _canonical_src_masks(
            src, src_mask, src_key_padding_mask, "src_mask", "src_key_padding_mask")
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensor(layer):
    """torch's reason for not using nested tensors with this layer ("" when it would)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attention = layer.self_attn
    reasons = [
        (layer.norm_first, f"{name}.norm_first was True"),
        (not attention.batch_first, f"{name}.self_attn.batch_first was not True(use "
                                    "batch_first for better inference performance)"),
        (not attention._qkv_same_embed_dim,
         f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attention.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to "
                                             f"{name}.norm2.eps"),
        (attention.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    ]
    return next((reason for failed, reason in reasons if failed), "")


def _is_left_aligned(padding):
    """Whether each row's unpadded positions come first (padding: True where padded)."""
    return not bool((padding[:, :-1] & padding[:, 1:].logical_not()).any())


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then the optional norm."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Module | None = None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                 f"because {why_not}")
            self.use_nested_tensor = False

    def _padded_outputs_zeroed(self, src, mask, padding_mask):
        """Whether torch would run its nested-tensor path, whose output is 0 where padded."""
        if not (self.use_nested_tensor and not self.layers[0].training and src.dim() == 3
                and padding_mask is not None and mask is None):
            return False
        tracked = [src, *self.layers[0].parameters()]
        if tapegrad.is_grad_enabled() and any(t.requires_grad for t in tracked):
            return False
        return not self.mask_check or _is_left_aligned(padding_mask != 0)

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """Run every layer with the same masks; is_causal=None detects a causal mask."""
        mask, src_key_padding_mask = _canonical_src_masks(
            src, mask, src_key_padding_mask, "mask", "src_key_padding_mask")
        # an encoder layer, which type checkers see as a Module
        seq_len = _seq_len(src, self.layers[0].self_attn.batch_first)  # type: ignore[union-attr]
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if self._padded_outputs_zeroed(src, mask, src_key_padding_mask):
            # torch packs the unpadded tokens and pads the result back with zeros.
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(Module):
    """Self-attention on the target, attention to the encoder's memory, then a feed-forward
    block; each with dropout, a residual connection and LayerNorm (before it when
    norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        attention: dict[str, Any] = {"dropout": dropout, "batch_first": batch_first,
                                     "bias": bias, **factory}
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = (_activation_function(activation) if isinstance(activation, str)
                           else activation)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer applied in turn, then the optional norm."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """Run every layer with the same masks; tgt_is_causal=None detects a causal mask."""
        # a decoder layer, which type checkers see as a Module
        seq_len = _seq_len(tgt, self.layers[0].self_attn.batch_first)  # type: ignore[union-attr]
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder stack over src and a decoder stack over tgt that attends to its output;
    every weight matrix starts from xavier_uniform_."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 custom_encoder: Any | None = None, custom_decoder: Any | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        layer = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                 batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer, **factory), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer, **factory), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        for parameter in self.parameters():
            if parameter.dim() > 1:
                xavier_uniform_(parameter)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        if src.dim() == 3 and src.size(0 if self.batch_first else 1) != tgt.size(
                0 if self.batch_first else 1):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: DeviceLikeType | None = None,
                                        dtype: _dtype | None = None) -> Tensor:
        """The causal mask: -inf above the diagonal, 0 on and below it."""
        return _causal_mask(sz, dtype, device)
