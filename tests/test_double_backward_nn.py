"""The graph a create_graph=True backward records, against torch's, for the nn, reduction,
shape and linalg families: where torch's derivative calls one of its backward functions, the
gradient's grad_fn is that function's node (NativeLayerNormBackwardBackward0,
ConvolutionBackwardBackward0, MseLossBackwardBackward0, ...) with torch's inputs as its
next_functions; elsewhere the ops torch's formula composes. See tests/double_backward_names.py.
"""
import numpy as np
import pytest

from double_backward_names import compare

RNG = np.random.default_rng(11)


def randn(*shape):
    return RNG.standard_normal(shape)


def rand(*shape, low=0.0, high=1.0):
    return RNG.uniform(low, high, shape)


def F(lib):
    return lib.nn.functional


def case(name, fn, arrays, constants=None, requires_grad=None, reason=None):
    """One scenario; reason: why tapegrad's graph is known to differ (a strict xfail)."""
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(fn, arrays, constants, requires_grad, id=name, marks=marks)


def spd(n):
    a = randn(n, n)
    return a @ a.T + n * np.eye(n)


ROW, MATRIX, IMAGE = randn(4), randn(3, 4), randn(2, 3, 5, 5)
TARGETS = np.array([0, 2, 1])

# Known differences, by where they come from
POINTWISE = "the derivative of xlogy, which kl_div composes, is the pointwise family's"
ENGINE = "torch's engine adds two gradients of one input in the other order"
DIAGONAL = "diagonal lives in reordering.py: no diagonal_backward op yet"
REPEAT = "repeat's backward (reordering.py) sums, then views; torch views, then sums"
GROUP_NORM = ("torch composes infinitely_differentiable_native_group_norm_backward under "
              "create_graph; tapegrad's group norm formula composes other ops")
STD = ("tapegrad divides by a safe 2 * std where std is 0 (WhereBackward0): torch's masked_fill "
       "gives NaN second derivatives there")
MM_LAYOUT = ("torch's mm backward transposes twice for a column-major (transposed) weight; "
             "tapegrad's formulas do not look at strides")
LINALG = ("torch's linalg backward functions compose solve_triangular / linalg_solve where "
          "tapegrad's compose inverses and solves in another order")
MARGIN = "torch records NotImplemented for these kernels' double backward; tapegrad differentiates"
ATTENTION = ("torch's CPU flash-attention kernel has no double backward (NotImplemented); "
             "tapegrad composes the attention")

NORMALIZATION = [
    case("layer_norm", lambda lib, x, w, b: F(lib).layer_norm(x, (4,), w, b),
         [MATRIX, ROW, randn(4)]),
    case("layer_norm_no_affine", lambda lib, x: F(lib).layer_norm(x, (4,)), [MATRIX]),
    case("layer_norm_weight_only_grad", lambda lib, x, w: F(lib).layer_norm(x, (4,), w),
         [MATRIX, ROW], requires_grad=(False, True)),
    case("batch_norm_train", lambda lib, x, w, b: F(lib).batch_norm(
        x, None, None, w, b, training=True), [MATRIX, ROW, randn(4)]),
    case("batch_norm_running", lambda lib, x, w, b, mean, var: F(lib).batch_norm(
        x, mean, var, w, b, training=True), [randn(3, 4, 2), ROW, randn(4)],
        dict(mean=np.zeros(4), var=np.ones(4))),
    case("batch_norm_eval", lambda lib, x, w, b, mean, var: F(lib).batch_norm(
        x, mean, var, w, b), [MATRIX, ROW, randn(4)],
        dict(mean=randn(4), var=rand(4, low=0.5, high=2))),
    case("batch_norm_no_affine", lambda lib, x: F(lib).batch_norm(x, None, None,
                                                                  training=True), [MATRIX]),
    case("group_norm", lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b),
         [randn(2, 4, 3), ROW, randn(4)], reason=GROUP_NORM),
    case("instance_norm_affine", lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b),
         [randn(2, 4, 3), ROW, randn(4)], reason=REPEAT),
    case("instance_norm", lambda lib, x: F(lib).instance_norm(x), [randn(2, 4, 3)]),
    case("local_response_norm", lambda lib, x: F(lib).local_response_norm(x, 2),
         [randn(2, 4, 3)]),
]

CONV = [
    case("conv1d", lambda lib, x, w, b: F(lib).conv1d(x, w, b, padding=1),
         [randn(2, 3, 6), randn(4, 3, 3), randn(4)]),
    case("conv2d", lambda lib, x, w, b: F(lib).conv2d(x, w, b), [IMAGE, randn(4, 3, 3, 3),
                                                                 randn(4)]),
    case("conv2d_no_bias_strided", lambda lib, x, w: F(lib).conv2d(x, w, stride=2, padding=1),
         [IMAGE, randn(4, 3, 3, 3)]),
    case("conv2d_groups", lambda lib, x, w: F(lib).conv2d(x, w, groups=3),
         [IMAGE, randn(6, 1, 2, 2)]),
    case("conv2d_input_only", lambda lib, x, w: F(lib).conv2d(x, w),
         [IMAGE, randn(4, 3, 3, 3)], requires_grad=(True, False)),
    case("conv_transpose2d", lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2),
         [IMAGE, randn(3, 4, 3, 3), randn(4)]),
    case("unfold", lambda lib, x: F(lib).unfold(x, 2), [IMAGE]),
    case("fold", lambda lib, x: F(lib).fold(x, (3, 3), 2), [randn(2, 8, 4)]),
]

POOLING = [
    case("max_pool1d", lambda lib, x: F(lib).max_pool1d(x, 2), [randn(2, 3, 6)]),
    case("max_pool2d", lambda lib, x: F(lib).max_pool2d(x, 2), [IMAGE]),
    case("max_pool2d_padded", lambda lib, x: F(lib).max_pool2d(x, 3, 2, 1), [IMAGE]),
    case("avg_pool1d", lambda lib, x: F(lib).avg_pool1d(x, 2), [randn(2, 3, 6)]),
    case("avg_pool2d", lambda lib, x: F(lib).avg_pool2d(x, 2), [IMAGE]),
    case("adaptive_avg_pool1d", lambda lib, x: F(lib).adaptive_avg_pool1d(x, 4),
         [randn(2, 3, 6)]),
    case("adaptive_avg_pool2d", lambda lib, x: F(lib).adaptive_avg_pool2d(x, 3), [IMAGE]),
    case("adaptive_max_pool2d", lambda lib, x: F(lib).adaptive_max_pool2d(x, 3), [IMAGE]),
    case("adaptive_avg_pool3d", lambda lib, x: F(lib).interpolate(x, (2, 3, 2), mode="area"),
         [randn(1, 2, 3, 4, 5)]),
    case("lp_pool2d", lambda lib, x: F(lib).lp_pool2d(x, 2, 2), [IMAGE]),
]

LOSSES = [
    case("mse_loss", lambda lib, x, y: F(lib).mse_loss(x, y), [MATRIX, randn(3, 4)]),
    case("mse_loss_sum", lambda lib, x, y: F(lib).mse_loss(x, y, reduction="sum"),
         [MATRIX, randn(3, 4)]),
    case("l1_loss", lambda lib, x, y: F(lib).l1_loss(x, y), [MATRIX, randn(3, 4)]),
    case("smooth_l1_loss", lambda lib, x, y: F(lib).smooth_l1_loss(x, y, beta=0.5),
         [MATRIX, randn(3, 4)]),
    case("huber_loss", lambda lib, x, y: F(lib).huber_loss(x, y, delta=0.5),
         [MATRIX, randn(3, 4)]),
    case("nll_loss", lambda lib, x, t: F(lib).nll_loss(x, t), [MATRIX], dict(t=TARGETS)),
    case("nll_loss_weighted", lambda lib, x, t, w: F(lib).nll_loss(x, t, w, reduction="none"),
         [MATRIX], dict(t=TARGETS, w=rand(4))),
    case("nll_loss_2d", lambda lib, x, t: F(lib).nll_loss(x, t),
         [randn(2, 3, 2, 2)], dict(t=np.array([[[0, 1], [2, 0]], [[1, 1], [0, 2]]]))),
    case("cross_entropy", lambda lib, x, t: F(lib).cross_entropy(x, t), [MATRIX],
         dict(t=TARGETS)),
    case("cross_entropy_probabilities", lambda lib, x, t: F(lib).cross_entropy(x, t),
         [MATRIX], dict(t=rand(3, 4))),
    case("nll_loss_of_log_softmax", lambda lib, x, t: F(lib).nll_loss(x.log_softmax(1), t),
         [MATRIX], dict(t=TARGETS)),
    case("binary_cross_entropy", lambda lib, x, y, w: F(lib).binary_cross_entropy(x, y, w),
         [rand(3, 4, low=0.1, high=0.9), rand(3, 4)], dict(w=rand(3, 4))),
    case("binary_cross_entropy_sum", lambda lib, x, y: F(lib).binary_cross_entropy(
        x, y, reduction="sum"), [rand(3, 4, low=0.1, high=0.9), rand(3, 4)]),
    case("binary_cross_entropy_with_logits",
         lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y),
         [MATRIX, rand(3, 4)]),
    case("kl_div", lambda lib, x, y: F(lib).kl_div(x, y, reduction="batchmean"),
         [MATRIX, rand(3, 4)], reason=POINTWISE),
    case("poisson_nll_loss", lambda lib, x, y: F(lib).poisson_nll_loss(x, y),
         [MATRIX, rand(3, 4)], reason=ENGINE),
    case("gaussian_nll_loss", lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v),
         [MATRIX, randn(3, 4), rand(3, 4, low=0.5, high=2)]),
    case("soft_margin_loss", lambda lib, x, y: F(lib).soft_margin_loss(x, y), [MATRIX],
         dict(y=np.sign(randn(3, 4)))),
    case("multilabel_soft_margin_loss",
         lambda lib, x, y: F(lib).multilabel_soft_margin_loss(x, y), [MATRIX],
         dict(y=(rand(3, 4) > 0.5) * 1.0)),
    case("multi_margin_loss", lambda lib, x, t: F(lib).multi_margin_loss(x, t), [MATRIX],
         dict(t=TARGETS), reason=MARGIN),
    case("multilabel_margin_loss", lambda lib, x, t: F(lib).multilabel_margin_loss(x, t),
         [MATRIX], dict(t=np.array([[0, 2, -1, 1]] * 3)), reason=MARGIN),
    case("hinge_embedding_loss", lambda lib, x, y: F(lib).hinge_embedding_loss(x, y),
         [MATRIX], dict(y=np.sign(randn(3, 4)))),
    case("margin_ranking_loss", lambda lib, x, y, t: F(lib).margin_ranking_loss(x, y, t),
         [randn(5), randn(5)], dict(t=np.sign(randn(5)))),
    case("cosine_embedding_loss", lambda lib, x, y, t: F(lib).cosine_embedding_loss(x, y, t),
         [MATRIX, randn(3, 4)], dict(t=np.array([1.0, -1.0, 1.0]))),
    case("triplet_margin_loss", lambda lib, a, p, n: F(lib).triplet_margin_loss(a, p, n),
         [MATRIX, randn(3, 4), randn(3, 4)]),
]

REDUCTIONS = [
    case("sum", lambda lib, x: x.sum(), [MATRIX]),
    case("sum_dim", lambda lib, x: x.sum(1), [MATRIX]),
    case("sum_keepdim", lambda lib, x: x.sum(0, keepdim=True), [MATRIX]),
    case("mean", lambda lib, x: x.mean(), [MATRIX]),
    case("mean_dim", lambda lib, x: x.mean((0, 1)), [randn(2, 3, 4)]),
    case("nansum", lambda lib, x: x.nansum(1), [MATRIX]),
    case("amax", lambda lib, x: x.amax(1), [MATRIX]),
    case("max", lambda lib, x: x.max(), [MATRIX]),
    case("max_dim", lambda lib, x: x.max(1)[0], [MATRIX]),
    case("min_dim", lambda lib, x: x.min(0, keepdim=True)[0], [MATRIX]),
    case("logsumexp", lambda lib, x: x.logsumexp(1), [MATRIX]),
    case("norm", lambda lib, x: x.norm(), [MATRIX]),
    case("norm_dim", lambda lib, x: x.norm(dim=1), [MATRIX]),
    case("norm_p1", lambda lib, x: x.norm(p=1), [MATRIX]),
    case("vector_norm_3", lambda lib, x: lib.linalg.vector_norm(x, 3), [MATRIX]),
    case("vector_norm_inf", lambda lib, x: lib.linalg.vector_norm(x, float("inf"), 1),
         [MATRIX]),
    case("matrix_norm", lambda lib, x: lib.linalg.matrix_norm(x), [MATRIX]),
]

STATISTICS = [
    case("std", lambda lib, x: x.std(), [MATRIX], reason=STD),
    case("var_dim", lambda lib, x: x.var(1), [MATRIX]),
    case("var_mean", lambda lib, x: lib.var_mean(x, 0), [MATRIX]),
    case("median_dim", lambda lib, x: x.median(1)[0], [MATRIX]),
    case("kthvalue", lambda lib, x: x.kthvalue(2, 1)[0], [MATRIX]),
    case("sort", lambda lib, x: x.sort(1)[0], [MATRIX]),
]

LINALG = [
    case("mm", lambda lib, x, y: x.mm(y), [MATRIX, randn(4, 2)]),
    case("matmul_vector", lambda lib, x, y: x @ y, [MATRIX, ROW]),
    case("bmm", lambda lib, x, y: x.bmm(y), [randn(2, 3, 4), randn(2, 4, 2)]),
    case("linear", lambda lib, x, w, b: F(lib).linear(x, w, b), [MATRIX, randn(2, 4),
                                                                 randn(2)], reason=MM_LAYOUT),
    case("addmm", lambda lib, a, x, y: lib.addmm(a, x, y), [randn(3, 2), MATRIX, randn(4, 2)]),
    case("addmm_scaled", lambda lib, a, x, y: lib.addmm(a, x, y, beta=0.5, alpha=2.0),
         [randn(3, 2), MATRIX, randn(4, 2)]),
    case("addmv_scaled", lambda lib, a, m, v: lib.addmv(a, m, v, beta=0.5, alpha=2.0),
         [randn(3), MATRIX, randn(4)]),
    case("addr", lambda lib, a, x, y: lib.addr(a, x, y, alpha=2.0), [MATRIX, randn(3), ROW]),
    case("baddbmm", lambda lib, a, x, y: lib.baddbmm(a, x, y, alpha=2.0),
         [randn(2, 3, 2), randn(2, 3, 4), randn(2, 4, 2)]),
    case("addbmm", lambda lib, a, x, y: lib.addbmm(a, x, y, beta=0.5),
         [randn(3, 2), randn(2, 3, 4), randn(2, 4, 2)]),
    case("dot", lambda lib, x, y: x.dot(y), [ROW, randn(4)]),
    case("outer", lambda lib, x, y: lib.outer(x, y), [ROW, randn(3)]),
    case("det", lambda lib, x: x.det(), [randn(3, 3)], reason=LINALG),
    case("slogdet", lambda lib, x: lib.linalg.slogdet(x)[1], [randn(3, 3)], reason=LINALG),
    case("inv", lambda lib, x: lib.linalg.inv(x), [randn(3, 3)]),
    case("solve", lambda lib, a, b: lib.linalg.solve(a, b), [randn(3, 3), randn(3, 2)]),
    case("cholesky", lambda lib, x: lib.linalg.cholesky(x), [spd(3)], reason=LINALG),
    case("qr", lambda lib, x: lib.linalg.qr(x)[1], [randn(4, 3)], reason=LINALG),
    case("svdvals", lambda lib, x: lib.linalg.svdvals(x), [randn(3, 3)], reason=LINALG),
    case("eigvalsh", lambda lib, x: lib.linalg.eigvalsh(x), [spd(3)]),
    case("pinv", lambda lib, x: lib.linalg.pinv(x), [randn(3, 2)]),
]

INDEXING = [
    case("index_select", lambda lib, x, i: x.index_select(0, i), [randn(5, 3)],
         dict(i=np.array([0, 2, 2]))),
    case("gather", lambda lib, x, i: x.gather(1, i), [randn(3, 3)],
         dict(i=np.array([[0, 1], [2, 2], [1, 0]]))),
    case("scatter", lambda lib, x, s, i: x.scatter(1, i, s), [randn(3, 3), randn(3, 2)],
         dict(i=np.array([[0, 1], [2, 1], [1, 0]]))),
    case("scatter_add", lambda lib, x, s, i: x.scatter_add(1, i, s),
         [randn(3, 3), randn(3, 2)], dict(i=np.array([[0, 1], [2, 1], [1, 0]]))),
    case("scatter_reduce_sum", lambda lib, x, s, i: x.scatter_reduce(1, i, s, "sum"),
         [randn(3, 3), randn(3, 2)], dict(i=np.array([[0, 1], [2, 1], [1, 0]]))),
    case("index_add", lambda lib, x, s, i: x.index_add(0, i, s), [randn(3, 3), randn(2, 3)],
         dict(i=np.array([0, 2]))),
    case("index_copy", lambda lib, x, s, i: x.index_copy(0, i, s), [randn(3, 3), randn(2, 3)],
         dict(i=np.array([0, 2]))),
    case("index_fill", lambda lib, x, i: x.index_fill(0, i, 1.5), [randn(3, 3)],
         dict(i=np.array([0, 2]))),
    case("getitem_slice", lambda lib, x: x[1:3], [randn(4, 3)]),
    case("getitem_int", lambda lib, x: x[1], [randn(4, 3)]),
    case("getitem_tensor", lambda lib, x, i: x[i], [randn(4, 3)], dict(i=np.array([0, 2])),),
    case("getitem_mask", lambda lib, x, m: x[m], [randn(4, 3)], dict(m=randn(4, 3) > 0),),
    case("masked_select", lambda lib, x, m: x.masked_select(m), [randn(4, 3)],
         dict(m=randn(4, 3) > 0)),
    case("masked_fill", lambda lib, x, m: x.masked_fill(m, 0.5), [randn(4, 3)],
         dict(m=randn(4, 3) > 0)),
    case("masked_scatter", lambda lib, x, s, m: x.masked_scatter(m, s),
         [randn(4, 3), randn(12)], dict(m=randn(4, 3) > 0)),
    case("index_put", lambda lib, x, v, i: x.index_put((i,), v), [randn(4, 3), randn(2, 3)],
         dict(i=np.array([0, 2]))),
    case("take", lambda lib, x, i: x.take(i), [randn(4, 3)], dict(i=np.array([0, 5, 5])),),
    case("take_along_dim", lambda lib, x, i: lib.take_along_dim(x, i, 1), [randn(3, 3)],
         dict(i=np.array([[0], [2], [1]]))),
    case("embedding", lambda lib, w, i: F(lib).embedding(i, w), [randn(5, 3)],
         dict(i=np.array([0, 2, 2, 4]))),
    case("embedding_padding", lambda lib, w, i: F(lib).embedding(
        i, w, padding_idx=0, scale_grad_by_freq=True), [randn(5, 3)],
        dict(i=np.array([0, 2, 2, 4]))),
]

SHAPE = [
    case("cat", lambda lib, x, y: lib.cat([x, y]), [randn(2, 3), randn(1, 3)]),
    case("cat_dim1", lambda lib, x, y: lib.cat([x, y], 1), [randn(2, 3), randn(2, 1)]),
    case("stack", lambda lib, x, y: lib.stack([x, y], 1), [randn(2, 3), randn(2, 3)]),
    case("hstack", lambda lib, x, y: lib.hstack([x, y]), [randn(3), randn(2)]),
    case("reshape", lambda lib, x: x.reshape(3, 2), [randn(2, 3)]),
    case("view", lambda lib, x: x.view(-1), [randn(2, 3)]),
    case("flatten", lambda lib, x: x.flatten(1), [randn(2, 3, 2)]),
    case("permute", lambda lib, x: x.permute(2, 0, 1), [randn(2, 3, 4)]),
    case("transpose", lambda lib, x: x.transpose(0, 1), [randn(2, 3)]),
    case("t", lambda lib, x: x.t(), [randn(2, 3)]),
    case("expand", lambda lib, x: x.expand(3, 4), [randn(3, 1)]),
    case("squeeze", lambda lib, x: x.squeeze(1), [randn(3, 1)]),
    case("squeeze_all", lambda lib, x: x.squeeze(), [randn(3, 1, 1)]),
    case("unsqueeze", lambda lib, x: x.unsqueeze(0), [randn(3)]),
    case("split", lambda lib, x: x.split(2), [randn(4, 3)]),
    case("chunk", lambda lib, x: x.chunk(2, 1), [randn(4, 4)]),
    case("unbind", lambda lib, x: x.unbind(1), [randn(4, 2)]),
    case("narrow", lambda lib, x: x.narrow(0, 1, 2), [randn(4, 3)]),
    case("select", lambda lib, x: x.select(1, 0), [randn(4, 3)]),
    case("diagonal", lambda lib, x: x.diagonal(), [randn(3, 3)], reason=DIAGONAL),
    case("flip", lambda lib, x: x.flip(0), [randn(4, 3)]),
    case("roll", lambda lib, x: x.roll(1, 0), [randn(4, 3)]),
    case("movedim", lambda lib, x: x.movedim(0, 2), [randn(2, 3, 4)]),
]

ATTENTION = [
    case("scaled_dot_product_attention",
         lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v),
         [randn(1, 2, 3, 4), randn(1, 2, 3, 4), randn(1, 2, 3, 4)], reason=ATTENTION),
    case("multi_head_attention", lambda lib, x, w, b, ow, ob: F(
        lib).multi_head_attention_forward(x, x, x, 4, 2, w, b, None, None, False, 0.0, ow, ob,
                                          need_weights=False)[0],
         [randn(3, 1, 4), randn(12, 4), randn(12), randn(4, 4), randn(4)], reason=MM_LAYOUT),
]

CASES = (NORMALIZATION + CONV + POOLING + LOSSES + REDUCTIONS + STATISTICS + LINALG
         + INDEXING + SHAPE + ATTENTION)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fn, arrays, constants, requires_grad", CASES)
def test_double_backward_graph_as_torch(fn, arrays, constants, requires_grad):
    ours, torchs = compare(fn, arrays, constants, requires_grad=requires_grad)
    assert ours == torchs
