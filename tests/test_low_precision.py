"""bfloat16 and float16 on the CPU against torch: for each (op, dtype) the same success or error
(type and text), the output dtype, values within one low-precision ulp of torch's (torch computes
many such ops in float32 and rounds once), and the gradients' dtypes and values after backward.
Inputs may mix a low-precision tensor with float32 parameters where torch allows it (norms)."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

torch = torch_or_skip()

RNG_SEED = 0
LOW = "lp"  # a tensor of the case's low-precision dtype


def _ml_dtypes_or_skip(dtype_name):
    if dtype_name == "bfloat16":
        pytest.importorskip("ml_dtypes", reason="bfloat16 needs the bfloat16 extra (ml_dtypes)")


# Each argument spec: (kind, shape[, extra]). kinds: "lp" low precision, "f32" float32,
# "pos" positive low precision, "prob" low precision in (0, 1), "long" int64 below extra,
# "bool" a mask. Floating arguments require grad.
def lp(*shape):
    return ("lp", shape)


def f32(*shape):
    return ("f32", shape)


def pos(*shape):
    return ("pos", shape)


def prob(*shape):
    return ("prob", shape)


def long(shape, high):
    return ("long", shape, high)


def mask(*shape):
    return ("bool", shape)


CASES = {
    # pointwise
    "add": (lambda m, F, a, b: a + b, [lp(3, 4), lp(3, 4)]),
    "mul_scalar": (lambda m, F, a: a * 3.7, [lp(3, 4)]),
    "div": (lambda m, F, a, b: a / b, [lp(3, 4), pos(3, 4)]),
    "exp": (lambda m, F, a: a.exp(), [lp(3, 4)]),
    "log": (lambda m, F, a: a.log(), [pos(3, 4)]),
    "sqrt": (lambda m, F, a: a.sqrt(), [pos(3, 4)]),
    "rsqrt": (lambda m, F, a: a.rsqrt(), [pos(3, 4)]),
    "tanh": (lambda m, F, a: a.tanh(), [lp(3, 4)]),
    "sigmoid": (lambda m, F, a: a.sigmoid(), [lp(3, 4)]),
    "sin": (lambda m, F, a: a.sin(), [lp(3, 4)]),
    "pow": (lambda m, F, a: a.pow(3), [lp(3, 4)]),
    "abs": (lambda m, F, a: a.abs(), [lp(3, 4)]),
    "reciprocal": (lambda m, F, a: a.reciprocal(), [pos(3, 4)]),
    "erf": (lambda m, F, a: m.erf(a), [lp(3, 4)]),
    "clamp": (lambda m, F, a: a.clamp(-0.5, 0.5), [lp(3, 4)]),
    "where": (lambda m, F, c, a, b: m.where(c, a, b), [mask(3, 4), lp(3, 4), lp(3, 4)]),
    "lerp": (lambda m, F, a, b: m.lerp(a, b, 0.3), [lp(3, 4), lp(3, 4)]),
    "addcmul": (lambda m, F, a, b, c: m.addcmul(a, b, c, value=0.5),
                [lp(3, 4), lp(3, 4), lp(3, 4)]),
    "atan2": (lambda m, F, a, b: m.atan2(a, b), [lp(3, 4), lp(3, 4)]),
    "maximum": (lambda m, F, a, b: m.maximum(a, b), [lp(3, 4), lp(3, 4)]),
    "add_f32": (lambda m, F, a, b: a + b, [lp(3, 4), f32(3, 4)]),
    # reductions
    "sum": (lambda m, F, a: a.sum(), [lp(64, 33)]),
    "sum_dim": (lambda m, F, a: a.sum(1), [lp(8, 200)]),
    "mean": (lambda m, F, a: a.mean(), [lp(64, 33)]),
    "mean_dim": (lambda m, F, a: a.mean(0, keepdim=True), [lp(200, 5)]),
    "prod": (lambda m, F, a: a.prod(1), [lp(4, 6)]),
    "max": (lambda m, F, a: a.max(), [lp(5, 6)]),
    "max_dim": (lambda m, F, a: a.max(1), [lp(5, 6)]),
    "min_dim": (lambda m, F, a: a.min(0), [lp(5, 6)]),
    "amax": (lambda m, F, a: a.amax(1), [lp(5, 6)]),
    "argmax": (lambda m, F, a: a.argmax(1), [lp(5, 6)]),
    "std": (lambda m, F, a: a.std(1), [lp(5, 60)]),
    "var": (lambda m, F, a: a.var(), [lp(5, 60)]),
    "norm": (lambda m, F, a: a.norm(), [lp(5, 60)]),
    "logsumexp": (lambda m, F, a: a.logsumexp(1), [lp(5, 60)]),
    "softmax": (lambda m, F, a: F.softmax(a, 1), [lp(5, 60)]),
    "log_softmax": (lambda m, F, a: F.log_softmax(a, 1), [lp(5, 60)]),
    "median": (lambda m, F, a: a.median(1), [lp(5, 7)]),
    # cumulative, sorting
    "cumsum": (lambda m, F, a: a.cumsum(1), [lp(3, 100)]),
    "cumprod": (lambda m, F, a: a.cumprod(1), [lp(3, 8)]),
    "cummax": (lambda m, F, a: a.cummax(1), [lp(3, 8)]),
    "logcumsumexp": (lambda m, F, a: a.logcumsumexp(1), [lp(3, 50)]),
    "sort": (lambda m, F, a: a.sort(1), [lp(3, 8)]),
    "topk": (lambda m, F, a: a.topk(3, 1), [lp(3, 8)]),
    "argsort": (lambda m, F, a: a.argsort(1), [lp(3, 8)]),
    # matmul family
    "matmul": (lambda m, F, a, b: a @ b, [lp(6, 40), lp(40, 5)]),
    "bmm": (lambda m, F, a, b: m.bmm(a, b), [lp(2, 6, 40), lp(2, 40, 5)]),
    "addmm": (lambda m, F, c, a, b: m.addmm(c, a, b), [lp(6, 5), lp(6, 40), lp(40, 5)]),
    "mv": (lambda m, F, a, b: m.mv(a, b), [lp(6, 40), lp(40)]),
    "dot": (lambda m, F, a, b: m.dot(a, b), [lp(40), lp(40)]),
    "einsum": (lambda m, F, a, b: m.einsum("ij,jk->ik", a, b), [lp(6, 40), lp(40, 5)]),
    "outer": (lambda m, F, a, b: m.outer(a, b), [lp(4), lp(5)]),
    "matmul_f32": (lambda m, F, a, b: a @ b, [lp(6, 4), f32(4, 5)]),
    # indexing, scatter
    "index_select": (lambda m, F, a, i: a.index_select(0, i), [lp(5, 4), long((3,), 5)]),
    "gather": (lambda m, F, a, i: a.gather(1, i), [lp(5, 4), long((5, 2), 4)]),
    "getitem": (lambda m, F, a, i: a[i], [lp(5, 4), long((3,), 5)]),
    "scatter_add": (lambda m, F, a, i, s: a.scatter_add(1, i, s),
                    [lp(3, 4), long((3, 2), 4), lp(3, 2)]),
    "index_add": (lambda m, F, a, i, s: a.index_add(0, i, s),
                  [lp(5, 4), long((3,), 5), lp(3, 4)]),
    "masked_fill": (lambda m, F, a, c: a.masked_fill(c, 2.0), [lp(3, 4), mask(3, 4)]),
    # activations
    "relu": (lambda m, F, a: F.relu(a), [lp(3, 4)]),
    "gelu": (lambda m, F, a: F.gelu(a), [lp(3, 4)]),
    "gelu_tanh": (lambda m, F, a: F.gelu(a, approximate="tanh"), [lp(3, 4)]),
    "silu": (lambda m, F, a: F.silu(a), [lp(3, 4)]),
    "softplus": (lambda m, F, a: F.softplus(a), [lp(3, 4)]),
    "elu": (lambda m, F, a: F.elu(a), [lp(3, 4)]),
    "leaky_relu": (lambda m, F, a: F.leaky_relu(a, 0.1), [lp(3, 4)]),
    "hardtanh": (lambda m, F, a: F.hardtanh(a), [lp(3, 4)]),
    "hardswish": (lambda m, F, a: F.hardswish(a), [lp(3, 4)]),
    "mish": (lambda m, F, a: F.mish(a), [lp(3, 4)]),
    "logsigmoid": (lambda m, F, a: F.logsigmoid(a), [lp(3, 4)]),
    "glu": (lambda m, F, a: F.glu(a), [lp(3, 4)]),
    "prelu": (lambda m, F, a, w: F.prelu(a, w), [lp(2, 3, 4), lp(3)]),
    # linear, conv
    "linear": (lambda m, F, a, w, b: F.linear(a, w, b), [lp(3, 40), lp(5, 40), lp(5)]),
    "linear_f32_weight": (lambda m, F, a, w: F.linear(a, w), [lp(3, 4), f32(5, 4)]),
    "conv1d": (lambda m, F, a, w, b: F.conv1d(a, w, b, padding=1),
               [lp(2, 3, 9), lp(4, 3, 3), lp(4)]),
    "conv2d": (lambda m, F, a, w, b: F.conv2d(a, w, b, stride=2, padding=1),
               [lp(2, 3, 8, 8), lp(4, 3, 3, 3), lp(4)]),
    "conv2d_groups": (lambda m, F, a, w: F.conv2d(a, w, groups=2),
                      [lp(2, 4, 6, 6), lp(4, 2, 3, 3)]),
    "conv3d": (lambda m, F, a, w: F.conv3d(a, w), [lp(1, 2, 4, 4, 4), lp(3, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda m, F, a, w: F.conv_transpose1d(a, w, stride=2),
                         [lp(2, 3, 5), lp(3, 4, 3)]),
    "conv_transpose2d": (lambda m, F, a, w, b: F.conv_transpose2d(a, w, b, stride=2),
                         [lp(2, 3, 5, 5), lp(3, 4, 3, 3), lp(4)]),
    "conv2d_f32_weight": (lambda m, F, a, w: F.conv2d(a, w), [lp(1, 3, 5, 5), f32(2, 3, 3, 3)]),
    # pooling, resampling
    "max_pool1d": (lambda m, F, a: F.max_pool1d(a, 2), [lp(2, 3, 8)]),
    "max_pool2d": (lambda m, F, a: F.max_pool2d(a, 2), [lp(2, 3, 8, 8)]),
    "max_pool2d_pad": (lambda m, F, a: F.max_pool2d(a, 3, 2, 1), [lp(2, 3, 8, 8)]),
    "max_pool2d_indices": (lambda m, F, a: F.max_pool2d(a, 2, return_indices=True),
                           [lp(2, 3, 8, 8)]),
    "max_pool3d": (lambda m, F, a: F.max_pool3d(a, 2), [lp(1, 2, 4, 4, 4)]),
    "avg_pool1d": (lambda m, F, a: F.avg_pool1d(a, 2), [lp(2, 3, 8)]),
    "avg_pool2d": (lambda m, F, a: F.avg_pool2d(a, 3, 2, 1), [lp(2, 3, 8, 8)]),
    "avg_pool3d": (lambda m, F, a: F.avg_pool3d(a, 2), [lp(1, 2, 4, 4, 4)]),
    "adaptive_avg_pool2d": (lambda m, F, a: F.adaptive_avg_pool2d(a, 3), [lp(2, 3, 8, 8)]),
    "adaptive_max_pool2d": (lambda m, F, a: F.adaptive_max_pool2d(a, 3), [lp(2, 3, 8, 8)]),
    "adaptive_avg_pool1d": (lambda m, F, a: F.adaptive_avg_pool1d(a, 3), [lp(2, 3, 8)]),
    "adaptive_max_pool1d": (lambda m, F, a: F.adaptive_max_pool1d(a, 3), [lp(2, 3, 8)]),
    "lp_pool2d": (lambda m, F, a: F.lp_pool2d(a, 2, 2), [pos(2, 3, 8, 8)]),
    "interpolate_nearest": (lambda m, F, a: F.interpolate(a, scale_factor=2), [lp(1, 2, 4, 4)]),
    "interpolate_bilinear": (lambda m, F, a: F.interpolate(a, size=(7, 6), mode="bilinear"),
                             [lp(1, 2, 4, 4)]),
    "pad": (lambda m, F, a: F.pad(a, (1, 2)), [lp(2, 3)]),
    "pad_reflect": (lambda m, F, a: F.pad(a, (1, 2), mode="reflect"), [lp(1, 2, 5)]),
    "unfold": (lambda m, F, a: F.unfold(a, 2), [lp(1, 2, 4, 4)]),
    "pixel_shuffle": (lambda m, F, a: F.pixel_shuffle(a, 2), [lp(1, 4, 3, 3)]),
    # normalization
    "batch_norm_eval_f32_stats": (
        lambda m, F, a, rm, rv, w, b: F.batch_norm(a, rm.detach(), rv.detach(), w, b),
        [lp(4, 3, 5), f32(3), ("pos32", (3,)), f32(3), f32(3)]),
    "batch_norm_eval_no_affine": (lambda m, F, a, rm, rv: F.batch_norm(a, rm.detach(),
                                                                        rv.detach()),
                                  [lp(4, 3, 5), f32(3), ("pos32", (3,))]),
    "batch_norm_train_f32": (lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, True),
                             [lp(4, 3, 5), f32(3), f32(3)]),
    "batch_norm_train_stats": (
        lambda m, F, a, w, b: F.batch_norm(a, m.zeros(3), m.ones(3), w, b, True),
        [lp(4, 3, 5), f32(3), f32(3)]),
    "batch_norm_lp_params": (lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, True),
                             [lp(4, 3, 5), lp(3), lp(3)]),
    "batch_norm_lp_stats_f32_weight": (
        lambda m, F, a, rm, rv, w: F.batch_norm(a, rm.detach(), rv.detach(), w),
        [lp(4, 3, 5), lp(3), pos(3), f32(3)]),
    "layer_norm": (lambda m, F, a, w, b: F.layer_norm(a, (8,), w, b), [lp(4, 8), lp(8), lp(8)]),
    "layer_norm_f32": (lambda m, F, a, w, b: F.layer_norm(a, (8,), w, b),
                       [lp(4, 8), f32(8), f32(8)]),
    "layer_norm_no_affine": (lambda m, F, a: F.layer_norm(a, (8,)), [lp(4, 8)]),
    "group_norm": (lambda m, F, a, w, b: F.group_norm(a, 2, w, b), [lp(2, 4, 5), lp(4), lp(4)]),
    "group_norm_f32": (lambda m, F, a, w, b: F.group_norm(a, 2, w, b),
                       [lp(2, 4, 5), f32(4), f32(4)]),
    "instance_norm": (lambda m, F, a: F.instance_norm(a), [lp(2, 3, 6)]),
    "rms_norm": (lambda m, F, a, w: F.rms_norm(a, (8,), w), [lp(4, 8), lp(8)]),
    "rms_norm_f32": (lambda m, F, a, w: F.rms_norm(a, (8,), w), [lp(4, 8), f32(8)]),
    "local_response_norm": (lambda m, F, a: F.local_response_norm(a, 2), [lp(2, 4, 5)]),
    "normalize": (lambda m, F, a: F.normalize(a), [lp(4, 8)]),
    # embedding, attention, dropout
    "embedding": (lambda m, F, i, w: F.embedding(i, w), [long((4,), 6), lp(6, 3)]),
    "sdpa": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v),
             [lp(2, 5, 8), lp(2, 6, 8), lp(2, 6, 8)]),
    "sdpa_causal": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                                          is_causal=True),
                    [lp(2, 5, 8), lp(2, 5, 8), lp(2, 5, 8)]),
    "dropout_eval": (lambda m, F, a: F.dropout(a, 0.5, training=False), [lp(3, 4)]),
    "cosine_similarity": (lambda m, F, a, b: F.cosine_similarity(a, b), [lp(4, 8), lp(4, 8)]),
    "pairwise_distance": (lambda m, F, a, b: F.pairwise_distance(a, b), [lp(4, 8), lp(4, 8)]),
    # losses
    "mse_loss": (lambda m, F, a, b: F.mse_loss(a, b), [lp(4, 8), lp(4, 8)]),
    "l1_loss": (lambda m, F, a, b: F.l1_loss(a, b), [lp(4, 8), lp(4, 8)]),
    "smooth_l1_loss": (lambda m, F, a, b: F.smooth_l1_loss(a, b), [lp(4, 8), lp(4, 8)]),
    "huber_loss": (lambda m, F, a, b: F.huber_loss(a, b), [lp(4, 8), lp(4, 8)]),
    "cross_entropy": (lambda m, F, a, t: F.cross_entropy(a, t), [lp(4, 6), long((4,), 6)]),
    "cross_entropy_probs": (lambda m, F, a, t: F.cross_entropy(a, t.detach().softmax(1)),
                            [lp(4, 6), lp(4, 6)]),
    "nll_loss": (lambda m, F, a, t: F.nll_loss(a, t), [lp(4, 6), long((4,), 6)]),
    "binary_cross_entropy": (lambda m, F, a, t: F.binary_cross_entropy(a, t.detach()),
                             [prob(4, 6), prob(4, 6)]),
    "bce_with_logits": (lambda m, F, a, t: F.binary_cross_entropy_with_logits(a, t.detach()),
                        [lp(4, 6), prob(4, 6)]),
    "kl_div": (lambda m, F, a, t: F.kl_div(a, t.detach(), reduction="batchmean"),
               [lp(4, 6), prob(4, 6)]),
    "multi_margin_loss": (lambda m, F, a, t: F.multi_margin_loss(a, t), [lp(4, 6), long((4,), 6)]),
    "ctc_loss": (lambda m, F, a, t: F.ctc_loss(a.log_softmax(2), t, [5], [2]),
                 [lp(5, 1, 3), ("long1", (1, 2), 3)]),
    # more nn.functional
    "hardsigmoid": (lambda m, F, a: F.hardsigmoid(a), [lp(3, 4)]),
    "bilinear": (lambda m, F, a, b, w: F.bilinear(a, b, w), [lp(2, 4), lp(2, 3), lp(5, 4, 3)]),
    "affine_grid": (lambda m, F, t: F.affine_grid(t, (1, 1, 3, 4), align_corners=False),
                    [lp(1, 2, 3)]),
    "grid_sample": (lambda m, F, a, g: F.grid_sample(a, g.detach().tanh(), align_corners=False),
                    [lp(1, 2, 4, 4), lp(1, 3, 3, 2)]),
    "pdist": (lambda m, F, a: F.pdist(a), [lp(4, 3)]),
    "cdist": (lambda m, F, a, b: m.cdist(a, b), [lp(4, 3), lp(5, 3)]),
    "cdist_matrix_product": (lambda m, F, a, b: m.cdist(a, b), [lp(30, 3), lp(5, 3)]),
    "cdist_p1": (lambda m, F, a, b: m.cdist(a, b, 1.0), [lp(30, 3), lp(5, 3)]),
    "multilabel_margin_loss": (lambda m, F, a, t: F.multilabel_margin_loss(a, t),
                               [lp(3, 4), long((3, 4), 4)]),
    "lp_pool3d": (lambda m, F, a: F.lp_pool3d(a, 2, 2), [pos(1, 2, 4, 4, 4)]),
    "adaptive_avg_pool3d": (lambda m, F, a: F.adaptive_avg_pool3d(a, 2), [lp(1, 2, 4, 4, 4)]),
    "fold": (lambda m, F, a: F.fold(a, (4, 4), 2), [lp(1, 8, 9)]),
    "max_unpool2d": (lambda m, F, a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2),
                     [lp(1, 2, 4, 4)]),
    # more torch.*
    "hypot": (lambda m, F, a, b: m.hypot(a, b), [lp(3, 4), lp(3, 4)]),
    "logaddexp": (lambda m, F, a, b: m.logaddexp(a, b), [lp(3, 4), lp(3, 4)]),
    "frac": (lambda m, F, a: m.frac(a * 3), [lp(3, 4)]),
    "round": (lambda m, F, a: m.round(a * 3), [lp(3, 4)]),
    "round_decimals": (lambda m, F, a: m.round(a, decimals=1), [lp(3, 4)]),
    "quantile": (lambda m, F, a: a.quantile(0.3), [lp(9)]),
    "cummin": (lambda m, F, a: a.cummin(1), [lp(3, 8)]),
    "kthvalue": (lambda m, F, a: a.kthvalue(2, 1), [lp(3, 8)]),
    "var_mean": (lambda m, F, a: m.var_mean(a, 1), [lp(3, 40)]),
    "nansum": (lambda m, F, a: a.nansum(), [lp(5, 40)]),
    "addcdiv": (lambda m, F, a, b, c: m.addcdiv(a, b, c), [lp(3, 4), lp(3, 4), pos(3, 4)]),
    "frexp": (lambda m, F, a: m.frexp(a), [lp(3, 4)]),
    "igamma": (lambda m, F, a, b: m.igamma(a, b), [pos(3, 4), pos(3, 4)]),
    "floor_divide_by_zero": (lambda m, F, a: m.floor_divide(a, m.zeros(4, dtype=a.dtype)),
                             [lp(3, 4)]),
    "remainder": (lambda m, F, a, b: m.remainder(a, b), [lp(3, 4), pos(3, 4)]),
    "bitwise_not": (lambda m, F, a: m.bitwise_not(a), [lp(3, 4)]),
    "copysign": (lambda m, F, a, b: m.copysign(a, b), [lp(3, 4), lp(3, 4)]),
    "nextafter": (lambda m, F, a, b: m.nextafter(a.detach(), b.detach()), [lp(3, 4), lp(3, 4)]),
    "logaddexp2": (lambda m, F, a, b: m.logaddexp2(a, b), [lp(3, 4), lp(3, 4)]),
    "fmax": (lambda m, F, a, b: m.fmax(a, b), [lp(3, 4), lp(3, 4)]),
    "heaviside": (lambda m, F, a, b: m.heaviside(a.detach(), b.detach()), [lp(3, 4), lp(3, 4)]),
    "xlogy": (lambda m, F, a, b: m.xlogy(a, b), [lp(3, 4), pos(3, 4)]),
    "ldexp": (lambda m, F, a, e: m.ldexp(a, e), [lp(3, 4), long((4,), 3)]),
    "sign": (lambda m, F, a: m.sign(a), [lp(3, 4)]),
    "trunc": (lambda m, F, a: m.trunc(a * 3), [lp(3, 4)]),
    "floor": (lambda m, F, a: m.floor(a * 3), [lp(3, 4)]),
    "scatter_reduce_amax": (lambda m, F, a, s: a.scatter_reduce(0, m.tensor([[0, 1], [0, 2]]), s,
                                                                "amax", include_self=False),
                            [lp(4, 2), lp(2, 2)]),
    "scatter_reduce_mean": (lambda m, F, a, s: a.scatter_reduce(0, m.tensor([[0, 1], [0, 2]]), s,
                                                                "mean", include_self=False),
                            [lp(4, 2), lp(2, 2)]),
    "index_reduce_amin": (lambda m, F, a, s: a.index_reduce(0, m.tensor([0, 0, 2]), s, "amin",
                                                            include_self=False),
                          [lp(4, 2), lp(3, 2)]),
    "logit_eps": (lambda m, F, a: m.logit(a, 0.2), [prob(3, 4)]),
    "nansum_nan": (lambda m, F, a: m.where(a > 1, m.nan, a).nansum(), [lp(5, 8)]),
    "nanmean_nan": (lambda m, F, a: m.where(a > 1, m.nan, a).nanmean(1), [lp(5, 8)]),
    "nan_to_num": (lambda m, F, a: m.nan_to_num(m.where(a > 1, m.nan, a / (a > -1))),
                   [lp(5, 8)]),
    "addcmul_value": (lambda m, F, a, b, c: m.addcmul(a, b, c, value=3.14),
                      [lp(3, 4), lp(3, 4), lp(3, 4)]),
    "scatter_amax": (lambda m, F, a, s: a.scatter_reduce(0, m.tensor([0, 0, 1]), s, "amax"),
                     [lp(4), lp(3)]),
}


def _array(spec, rng):
    kind, shape = spec[0], spec[1]
    if kind == "long":
        return rng.integers(0, spec[2], size=shape)
    if kind == "long1":  # class labels above 0 (a CTC target: 0 is the blank)
        return rng.integers(1, spec[2], size=shape)
    if kind == "bool":
        return rng.random(shape) < 0.5
    values = rng.standard_normal(shape)
    if kind in ("pos", "pos32"):
        values = np.abs(values) + 0.5
    elif kind == "prob":
        values = rng.uniform(0.05, 0.95, shape)
    return values.astype(np.float32)


def _tensors(lib, specs, arrays, low_dtype):
    tensors = []
    for spec, array in zip(specs, arrays):
        tensor = lib.tensor(array)
        if spec[0] in ("lp", "pos", "prob"):
            tensor = tensor.to(low_dtype)
        if tensor.is_floating_point():
            tensor.requires_grad_()
        tensors.append(tensor)
    return tensors


def _outputs(result):
    """The tensors of a result (a tensor, a tuple or a named tuple)."""
    return list(result) if isinstance(result, tuple) else [result]


def _as_float64(tensor):
    return np.asarray(tensor.detach().to("cpu").double().numpy()) \
        if tensor.is_floating_point() else np.asarray(tensor.detach().numpy())


def _ulp(values, low_dtype_name):
    """Spacing of the low-precision dtype at each value (its smallest normal spacing near 0)."""
    mantissa_bits = 7 if low_dtype_name == "bfloat16" else 10
    smallest_normal_exponent = -126 if low_dtype_name == "bfloat16" else -14
    exponent = np.floor(np.log2(np.maximum(np.abs(values), 2.0 ** smallest_normal_exponent)))
    return 2.0 ** (exponent - mantissa_bits)


def _differences(values, expected, low_dtype_name, what):
    if values.shape != expected.shape:
        return [f"{what} shape {values.shape} != {expected.shape}"]
    if values.dtype.kind in "biu" or expected.dtype.kind in "biu":
        same = np.array_equal(values, expected)
        return [] if same else [f"{what} values differ"]
    finite = np.isfinite(expected)
    if not np.array_equal(np.isfinite(values), finite):
        return [f"{what} non-finite values differ"]
    # one ulp of the rounded result, plus one of a magnitude-1 value for near-cancellations
    tolerance = _ulp(expected[finite], low_dtype_name) + _ulp(1.0, low_dtype_name) / 16
    error = np.abs(values[finite] - expected[finite])
    if np.any(error > tolerance):
        ulps = np.max(error / _ulp(expected[finite], low_dtype_name))
        return [f"{what} values differ by up to {ulps:.1f} ulp"]
    return []


def _run(lib, case, low_dtype_name, arrays):
    fn, specs = CASES[case]
    tensors = _tensors(lib, specs, arrays, getattr(lib, low_dtype_name))
    try:
        outputs = _outputs(fn(lib, lib.nn.functional, *tensors))
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return ("error", type(error).__name__, str(error)), None
    return outputs, tensors


def _summary(result):
    if isinstance(result, tuple):
        return f"{result[1]}: {result[2]}"
    return "outputs " + ", ".join(str(output.dtype) for output in result)


def compare(case, low_dtype_name):
    """The differences between tapegrad's and torch's (case, dtype), as a list of texts."""
    rng = np.random.default_rng(RNG_SEED)
    arrays = [_array(spec, rng) for spec in CASES[case][1]]
    ours, our_inputs = _run(tapegrad, case, low_dtype_name, arrays)
    theirs, their_inputs = _run(torch, case, low_dtype_name, arrays)
    if isinstance(ours, tuple) or isinstance(theirs, tuple):
        return [] if ours == theirs else [f"{_summary(ours)} != torch's {_summary(theirs)}"]
    if len(ours) != len(theirs):
        return [f"{len(ours)} outputs != torch's {len(theirs)}"]
    differences = []
    for index, (our, their) in enumerate(zip(ours, theirs)):
        if str(our.dtype) != str(their.dtype):
            differences.append(f"output {index} dtype {our.dtype} != {their.dtype}")
        else:
            differences += _differences(_as_float64(our), _as_float64(their),
                                        low_dtype_name, f"output {index}")
    differences += _backward_differences(ours[0], theirs[0], our_inputs, their_inputs,
                                         low_dtype_name, rng)
    return differences


def _error_of(run):
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the error is the result compared
        return f"{type(error).__name__}: {error}"
    return None


def _backward_differences(our, their, our_inputs, their_inputs, low_dtype_name, rng):
    if not their.requires_grad:
        return []
    if not our.requires_grad:
        return ["output does not require grad"]
    gradient = rng.standard_normal(tuple(their.shape)).astype(np.float32)
    their_error = _error_of(lambda: their.backward(torch.tensor(gradient).to(their.dtype)))
    our_error = _error_of(lambda: our.backward(tapegrad.tensor(gradient).to(our.dtype)))
    if our_error or their_error:
        return [] if our_error == their_error else [f"backward: {our_error} != {their_error}"]
    differences = []
    for index, (mine, torch_input) in enumerate(zip(our_inputs, their_inputs)):
        if torch_input.grad is None:
            continue
        if mine.grad is None:
            differences.append(f"grad {index} is None")
        elif str(mine.grad.dtype) != str(torch_input.grad.dtype):
            differences.append(f"grad {index} dtype {mine.grad.dtype} != "
                               f"{torch_input.grad.dtype}")
        else:
            differences += _differences(_as_float64(mine.grad), _as_float64(torch_input.grad),
                                        low_dtype_name, f"grad {index}")
    return differences


# Where tapegrad's values are still more than an ulp off torch's (dtypes and errors agree in
# every case): (cases, dtypes, why)
_ROUNDED_STEP_BY_STEP = (
    "the gradient formula runs op by op in the half dtype, rounding after each step; torch's "
    "backward kernel computes in float32 and rounds once")
_STILL_DIFFERING = [
    (("sdpa", "sdpa_causal"), ("bfloat16", "float16"),
     "tapegrad computes attention in float32 and rounds once; torch's CPU half-precision "
     "attention kernel rounds its intermediate blocks (outputs and key gradients hundreds of "
     "ulp apart where values are near zero)"),
    (("rms_norm", "rms_norm_f32"), ("bfloat16", "float16"),
     "rms_norm is composed of pow, mean, rsqrt and mul, each rounding to the half dtype; "
     "torch's kernel rounds once"),
    (("erf", "gelu_tanh", "glu", "mish", "silu", "tanh", "rsqrt", "bilinear", "lp_pool2d",
      "cross_entropy_probs", "log_softmax", "group_norm", "instance_norm", "avg_pool2d",
      "adaptive_avg_pool2d"), ("bfloat16", "float16"), _ROUNDED_STEP_BY_STEP),
    (("softmax", "log_softmax", "instance_norm"), ("bfloat16",),
     "a few ulp from torch's fused bfloat16 kernel, whose order of roundings is not matched"),
    (("adaptive_avg_pool3d",), ("bfloat16", "float16"),
     "3-d adaptive average pooling sums its windows in torch's order in float32; tapegrad's "
     "order of the window sums differs (up to 12 bfloat16 ulp)"),
    (("batch_norm_lp_params",), ("float16",),
     "float16 weights and bias: torch rounds the scale and shift to float16 before applying "
     "them, tapegrad applies them in float32"),
    (("conv1d", "conv2d", "conv2d_groups", "conv3d", "conv_transpose1d", "conv_transpose2d"),
     ("float16",),
     "on AVX-512 CPUs torch's float16 convolutions round partial sums to float16 (its gradients "
     "up to 3x further from the float64 answer than tapegrad's, which sums in float32 and "
     "rounds once); on AVX2 CPUs the two agree within an ulp"),
    (("conv2d_f32_weight",), ("float16",),
     "on AVX-512 CPUs torch refuses a float16 input with a float32 weight in its oneDNN "
     "wording ('Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should be "
     "the same ...'); tapegrad gives the text torch gives on AVX2 CPUs"),
    (("cdist_matrix_product",), ("bfloat16", "float16"),
     "over 25 rows torch computes euclidean cdist through a matrix product in the half dtype; "
     "tapegrad from the differences (see cdist's docstring)"),
]
KNOWN_DIFFERENCES = {(case, dtype_name): why for cases, dtype_names, why in _STILL_DIFFERING
                     for case in cases for dtype_name in dtype_names}


@pytest.mark.parametrize("low_dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_low_precision_matches_torch(case, low_dtype_name):
    _ml_dtypes_or_skip(low_dtype_name)
    reason = KNOWN_DIFFERENCES.get((case, low_dtype_name))
    differences = compare(case, low_dtype_name)
    if reason is not None and differences:
        pytest.xfail(reason)
    assert differences == []


if __name__ == "__main__":  # the survey: every difference, one line per (case, dtype)
    failing = 0
    for name in sorted(CASES):
        for dtype_name in ("bfloat16", "float16"):
            found = compare(name, dtype_name)
            failing += bool(found)
            for text in found:
                print(f"{name:32} {dtype_name:9} {text}"[:220])
    print(f"{failing} of {2 * len(CASES)} cases differ")
