"""Autocast's op lists per device type, by torch's names (aten/src/ATen/autocast_mode.cpp and
autocast_mode.h of torch 2.13).

A name is what reaches the hook (Note [Autocast] in autocast_mode.py): the torch name that a
public function reports (F.cross_entropy reports torch's cross_entropy_loss), or a declared
op's own name. A few of tapegrad's ops are reached from public functions that do not report a
name (F.softmax, F.mse_loss, the @ operator): their internal op names are listed beside
torch's, under the same policy.
"""
from __future__ import annotations

# How an op runs under autocast:
LOWER = "lower_precision_fp"  # floating inputs cast to the autocast dtype
FP32 = "fp32"  # floating inputs cast to float32
FP32_SET_OPT_DTYPE = "fp32_set_opt_dtype"  # dtype=float32 passed, unless a dtype was given
PROMOTE = "promote"  # floating inputs cast to the widest among them
BANNED = "banned"  # refused with torch's error

_MATRIX_PRODUCTS = ("mm bmm baddbmm addmm addbmm linear matmul _convolution conv1d conv2d "
                    "conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d "
                    "convolution prelu scaled_dot_product_attention linalg_vecdot "
                    # tapegrad's ops that the @ operator and the unnamed entries reach
                    "_mm _bmm _addmm _baddbmm _addbmm _prelu_kernel").split()

_CPU_FP32 = (
    "avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft cdist "
    "grid_sampler_2d grid_sampler_3d trace view_as_complex cholesky cholesky_inverse "
    "cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d max_unpool2d max_unpool3d "
    "adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d "
    "replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss_nd nll_loss2d "
    "hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss "
    "huber_loss margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss "
    "ctc_loss kl_div multilabel_margin_loss binary_cross_entropy_with_logits fft_fft fft_ifft "
    "fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn "
    "fft_irfftn fft_hfft fft_ihfft linalg_cond linalg_matrix_rank linalg_solve "
    "linalg_cholesky linalg_svdvals linalg_eigvals linalg_eigvalsh linalg_inv "
    "linalg_householder_product linalg_tensorinv linalg_tensorsolve geqrf qr svd "
    "triangular_solve fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d "
    "linalg_qr linalg_cholesky_ex linalg_svd linalg_eig linalg_eigh linalg_lstsq "
    "linalg_inv_ex "
    # tapegrad's ops behind public functions that report no name
    "_mse_loss _smooth_l1_loss _huber_loss _binary_cross_entropy _bce_with_logits "
    "_soft_margin_loss _prod_all _prod_dim _avg_pool3d _reflection_pad1d _reflection_pad2d "
    "_replication_pad1d _replication_pad2d _replication_pad3d _trace _polar _cdist "
    "_adaptive_avg_pool3d _adaptive_max_pool3d _fractional_max_pool2d _fractional_max_pool3d "
    "_max_pool3d _max_unpool2d _max_unpool3d _nll_loss _nll_loss2d").split()

_CUDA_FP32 = (
    "acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow "
    "softplus layer_norm native_layer_norm rms_norm group_norm frobenius_norm nuclear_norm "
    "cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss nll_loss_nd nll_loss2d "
    "hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss mse_loss "
    "margin_ranking_loss multilabel_margin_loss soft_margin_loss triplet_margin_loss "
    "multi_margin_loss binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp "
    "upsample_nearest1d _upsample_nearest_exact1d upsample_nearest2d "
    "_upsample_nearest_exact2d upsample_nearest3d _upsample_nearest_exact3d "
    "upsample_linear1d upsample_bilinear2d upsample_trilinear3d upsample_bicubic2d "
    # tapegrad's ops behind public functions that report no name (pow's three overloads,
    # the losses and softmax family of torch.nn.functional)
    "_pow_tensor_scalar _pow_tensor_tensor _pow_scalar_tensor _mse_loss _smooth_l1_loss "
    "_huber_loss _bce_with_logits _soft_margin_loss _softmax _log_softmax _pdist _nll_loss "
    "_nll_loss2d _native_group_norm _upsample_nearest1d _upsample_nearest2d "
    "_upsample_nearest3d _upsample_linear1d _upsample_bilinear2d _upsample_trilinear3d "
    "_upsample_bicubic2d").split()

_CUDA_SET_OPT_DTYPE = ("prod softmax log_softmax cumprod cumsum linalg_vector_norm "
                       "linalg_matrix_norm sum").split()

POLICIES: dict[str, dict[str, str]] = {
    "cpu": {**dict.fromkeys(_MATRIX_PRODUCTS, LOWER), **dict.fromkeys(_CPU_FP32, FP32),
            **dict.fromkeys(("stack", "cat", "index_copy"), PROMOTE)},
    "cuda": {**dict.fromkeys(_MATRIX_PRODUCTS, LOWER),
             **dict.fromkeys(("addmv addr mv chain_matmul linalg_multi_dot lstm_cell gru_cell "
                              "rnn_tanh_cell rnn_relu_cell _mv _addmv _addr").split(), LOWER),
             **dict.fromkeys(_CUDA_FP32, FP32),
             **dict.fromkeys(_CUDA_SET_OPT_DTYPE, FP32_SET_OPT_DTYPE),
             **dict.fromkeys(("addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler "
                              "index_put tensordot scatter_add stack cat index_copy").split(),
                             PROMOTE),
             "binary_cross_entropy": BANNED, "_binary_cross_entropy": BANNED},
}

# torch's text for the CUDA ban (autocast_mode.cpp, binary_cross_entropy_banned)
BINARY_CROSS_ENTROPY_BANNED = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional."
    "binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")
