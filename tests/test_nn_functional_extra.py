"""The less common nn.functional ops and their layers: pixel_shuffle, pixel_unshuffle,
channel_shuffle, pdist, rms_norm, grid_sample (grid_sampler_2d/3d), affine_grid, embedding_bag
and ctc_loss. Each gets a float64 gradcheck (and gradgradcheck where torch has second
derivatives) and, where torch is importable, a comparison of values, dtypes, grad_fn names,
gradients and error texts with torch; edge, empty and batched inputs; the layers' reprs."""
import itertools
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck
from test_ops import assert_raises_like_torch, labelled_params


def F(lib):
    return lib.nn.functional


def values(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


def leaf(lib, array, dtype="float64"):
    return lib.tensor(array, dtype=getattr(lib, dtype), requires_grad=True)


def compare_with_torch(function, arrays, dtype="float64", tolerance=None, backward=True):
    """function(lib, *leaves) in both libraries: values, dtype, grad_fn name, and (unless
    backward=False) the gradients of every leaf for a fixed cotangent."""
    torch = pytest.importorskip("torch")
    tolerance = tolerance or (1e-10 if dtype == "float64" else 2e-5)
    results = []
    for lib in (tapegrad, torch):
        leaves = [leaf(lib, array, dtype) for array in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            output = function(lib, *leaves)
        cotangent = lib.tensor(np.random.default_rng(7).standard_normal(tuple(output.shape)),
                               dtype=output.dtype)
        grads = lib.autograd.grad(output, leaves, cotangent, allow_unused=True) if backward \
            else ()
        results.append((output, type(output.grad_fn).__name__, grads))
    (ours, our_node, our_grads), (theirs, their_node, their_grads) = results
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert our_node == their_node
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance,
                               atol=tolerance, equal_nan=True)
    for mine, expected in zip(our_grads, their_grads):
        if expected is None:
            assert mine is None or not mine.numpy().any()
        else:
            np.testing.assert_allclose(mine.numpy(), expected.numpy(), rtol=tolerance,
                                       atol=tolerance, equal_nan=True)


def second_order_with_torch(function, arrays):
    """The gradient of <first gradients, fixed vectors> in both libraries (float64)."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tapegrad, torch):
        leaves = [leaf(lib, array) for array in arrays]
        output = function(lib, *leaves)
        cotangent = lib.tensor(np.random.default_rng(3).standard_normal(tuple(output.shape)),
                               dtype=output.dtype)
        grads = lib.autograd.grad(output, leaves, cotangent, create_graph=True)
        total = sum((g * lib.tensor(np.random.default_rng(i).standard_normal(tuple(g.shape)),
                                    dtype=g.dtype)).sum() for i, g in enumerate(grads))
        results.append(lib.autograd.grad(total, leaves, allow_unused=True))
    for mine, expected in zip(*results):
        expected = np.zeros(mine.shape) if expected is None else expected.numpy()
        np.testing.assert_allclose(mine.numpy(), expected, rtol=1e-9, atol=1e-9)


def float64_leaves(*arrays):
    return [leaf(tapegrad, array) for array in arrays]


# ---- pixel_shuffle, pixel_unshuffle, channel_shuffle ---------------------------------------

SHUFFLES = {
    "pixel_shuffle": (lambda lib, x: F(lib).pixel_shuffle(x, 2), (1, 8, 3, 2)),
    "pixel_shuffle-batched": (lambda lib, x: lib.pixel_shuffle(x, 3), (2, 1, 9, 2, 1)),
    "pixel_shuffle-3d": (lambda lib, x: F(lib).pixel_shuffle(x, 2), (4, 2, 3)),
    "pixel_unshuffle": (lambda lib, x: F(lib).pixel_unshuffle(x, 2), (2, 3, 4, 6)),
    "pixel_unshuffle-batched": (lambda lib, x: lib.pixel_unshuffle(x, 3), (2, 1, 1, 3, 6)),
    "channel_shuffle": (lambda lib, x: F(lib).channel_shuffle(x, 2), (2, 6, 3)),
    "channel_shuffle-4d": (lambda lib, x: lib.channel_shuffle(x, 3), (1, 6, 2, 2)),
    "channel_shuffle-5d": (lambda lib, x: F(lib).channel_shuffle(x, 4), (1, 8, 2, 1, 2)),
    "channel_shuffle-empty": (lambda lib, x: F(lib).channel_shuffle(x, 2), (0, 4, 3)),
}


@pytest.mark.parametrize("function, shape", labelled_params(SHUFFLES, several=True))
def test_shuffle_matches_torch(function, shape):
    compare_with_torch(function, [values(*shape)])
    compare_with_torch(function, [values(*shape)], dtype="float32")


@pytest.mark.parametrize("function, shape", labelled_params(
    {label: case for label, case in SHUFFLES.items() if "empty" not in label}, several=True))
def test_shuffle_gradcheck(function, shape):
    x = float64_leaves(values(*shape))
    assert gradcheck(lambda x: function(tapegrad, x), x)
    assert gradgradcheck(lambda x: function(tapegrad, x), x)


def test_pixel_shuffle_of_empty_batch():
    # torch's forward gives (0, 1, 4, 4), but its backward refuses its own gradient (it returns
    # one of the output's shape): the gradient here has the input's shape
    torch = pytest.importorskip("torch")
    x = leaf(tapegrad, np.zeros((0, 4, 2, 2)))
    out = F(tapegrad).pixel_shuffle(x, 2)
    assert tuple(out.shape) == tuple(torch.nn.functional.pixel_shuffle(
        torch.zeros(0, 4, 2, 2), 2).shape)
    out.sum().backward()
    assert x.grad.shape == x.shape


def test_pixel_shuffle_inverts_pixel_unshuffle():
    x = tapegrad.tensor(values(2, 3, 4, 6))
    assert tapegrad.equal(F(tapegrad).pixel_shuffle(F(tapegrad).pixel_unshuffle(x, 2), 2), x)


def test_shuffle_of_integers_matches_torch():
    torch = pytest.importorskip("torch")
    ours = F(tapegrad).pixel_shuffle(tapegrad.arange(32).reshape(1, 8, 2, 2), 2)
    theirs = torch.nn.functional.pixel_shuffle(torch.arange(32).reshape(1, 8, 2, 2), 2)
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)


# ---- pdist -----------------------------------------------------------------------------------

PDIST_NORMS = [0, 0.5, 1, 1.5, 2, 3, float("inf")]


@pytest.mark.parametrize("p", PDIST_NORMS)
def test_pdist_matches_torch(p):
    compare_with_torch(lambda lib, x: F(lib).pdist(x, p), [values(5, 3)])
    compare_with_torch(lambda lib, x: lib.pdist(x, p), [values(4, 2)], dtype="float32")


@pytest.mark.parametrize("p", [1, 1.5, 2, 3])
def test_pdist_gradcheck(p):
    x = float64_leaves(values(4, 3))
    assert gradcheck(lambda x: F(tapegrad).pdist(x, p), x)
    assert gradgradcheck(lambda x: F(tapegrad).pdist(x, p), x)


@pytest.mark.parametrize("shape", [(1, 3), (4, 0), (2, 1)])
def test_pdist_edge_shapes_match_torch(shape):
    compare_with_torch(lambda lib, x: F(lib).pdist(x), [values(*shape)])


def test_pdist_of_no_rows():
    # torch's backward crashes the process here: only the forward is compared
    compare_with_torch(lambda lib, x: F(lib).pdist(x), [values(0, 3)], backward=False)
    x = leaf(tapegrad, np.zeros((0, 3)))
    F(tapegrad).pdist(x).sum().backward()
    assert x.grad.shape == (0, 3)


def test_pdist_ties_and_equal_rows_match_torch():
    rows = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [2.0, -1.0]])
    for p in PDIST_NORMS:
        compare_with_torch(lambda lib, x: F(lib).pdist(x, p), [rows])


# ---- rms_norm --------------------------------------------------------------------------------

RMS_NORMS = {
    "last-dim": (lambda lib, x, w: F(lib).rms_norm(x, [4], w), ((3, 4), (4,))),
    "two-dims": (lambda lib, x, w: F(lib).rms_norm(x, (3, 4), w, eps=0.5), ((2, 3, 4), (3, 4))),
    "no-weight": (lambda lib, x: F(lib).rms_norm(x, [2, 3]), ((2, 2, 3),)),
    "empty-batch": (lambda lib, x, w: F(lib).rms_norm(x, [3], w), ((0, 3), (3,))),
}


@pytest.mark.parametrize("function, shapes", labelled_params(RMS_NORMS, several=True))
def test_rms_norm_matches_torch(function, shapes):
    arrays = [values(*shape) for shape in shapes]
    compare_with_torch(function, arrays)
    compare_with_torch(function, arrays, dtype="float32")
    second_order_with_torch(function, arrays)


@pytest.mark.parametrize("function, shapes", labelled_params(
    {label: case for label, case in RMS_NORMS.items() if "empty" not in label}, several=True))
def test_rms_norm_gradcheck(function, shapes):
    leaves = float64_leaves(*(values(*shape) for shape in shapes))
    assert gradcheck(lambda *xs: function(tapegrad, *xs), leaves)
    assert gradgradcheck(lambda *xs: function(tapegrad, *xs), leaves)


def test_rms_norm_default_eps_is_the_dtypes_epsilon():
    torch = pytest.importorskip("torch")
    tiny = np.full((2, 3), 1e-5)
    for dtype in ("float32", "float64"):
        ours = F(tapegrad).rms_norm(tapegrad.tensor(tiny, dtype=getattr(tapegrad, dtype)), [3])
        theirs = torch.nn.functional.rms_norm(torch.tensor(tiny, dtype=getattr(torch, dtype)),
                                              [3])
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


# ---- grid_sample and affine_grid -------------------------------------------------------------

GRID_CASES = [(nd, mode, padding, align) for nd, mode, padding, align in itertools.product(
    (2, 3), ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True))
    if not (nd == 3 and mode == "bicubic")]


def _grid_arrays(nd):
    spatial = (4, 5) if nd == 2 else (3, 4, 5)
    out = (3, 2) if nd == 2 else (2, 3, 2)
    # a grid reaching past [-1, 1], so every padding mode has work to do
    return [values(2, 3, *spatial), values(2, *out, nd, seed=1, low=-1.4, high=1.4)]


def _sampler(mode, padding, align):
    return lambda lib, x, grid: F(lib).grid_sample(x, grid, mode, padding, align)


@pytest.mark.parametrize("nd, mode, padding, align", GRID_CASES)
def test_grid_sample_matches_torch(nd, mode, padding, align):
    arrays = _grid_arrays(nd)
    compare_with_torch(_sampler(mode, padding, align), arrays)
    compare_with_torch(_sampler(mode, padding, align), arrays, dtype="float32")
    if mode != "nearest":
        second_order_with_torch(_sampler(mode, padding, align), arrays)


@pytest.mark.parametrize("nd, mode, padding, align", [case for case in GRID_CASES
                                                      if case[1] != "nearest"])
def test_grid_sample_gradcheck(nd, mode, padding, align):
    x, grid = _grid_arrays(nd)
    leaves = float64_leaves(x[:1, :2], grid[:1])
    function = lambda x, grid: _sampler(mode, padding, align)(tapegrad, x, grid)  # noqa: E731
    assert gradcheck(function, leaves)
    assert gradgradcheck(function, leaves)


def test_grid_sample_nearest_has_zero_grid_gradient():
    x, grid = float64_leaves(*_grid_arrays(2))
    out = F(tapegrad).grid_sample(x, grid, "nearest", align_corners=False)
    assert not tapegrad.autograd.grad(out.sum(), grid)[0].numpy().any()


def test_grid_sampler_ints_match_torch():
    arrays = _grid_arrays(2)
    compare_with_torch(lambda lib, x, grid: lib.grid_sampler_2d(x, grid, 2, 1, True), arrays)
    compare_with_torch(lambda lib, x, grid: lib.grid_sampler(x, grid, 0, 2, False), arrays)
    compare_with_torch(lambda lib, x, grid: lib.grid_sampler_3d(x, grid, 1, 0, False),
                       _grid_arrays(3))


@pytest.mark.parametrize("x_shape, grid_shape", [((0, 2, 3, 3), (0, 2, 2, 2)),
                                                 ((1, 0, 3, 3), (1, 2, 2, 2)),
                                                 ((1, 2, 3, 3), (1, 0, 2, 2)),
                                                 ((1, 1, 1, 1), (1, 2, 2, 2))])
def test_grid_sample_edge_shapes_match_torch(x_shape, grid_shape):
    arrays = [values(*x_shape), values(*grid_shape, seed=2)]
    compare_with_torch(_sampler("bilinear", "zeros", False), arrays)


def test_grid_sample_warns_without_align_corners():
    x, grid = (tapegrad.tensor(a) for a in _grid_arrays(2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F(tapegrad).grid_sample(x, grid)


AFFINE_SIZES = [[2, 1, 3, 4], [2, 3, 1, 4], [2, 1, 2, 3, 4], [2, 1, 1, 1, 3]]


@pytest.mark.parametrize("size", AFFINE_SIZES)
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_torch(size, align):
    theta = values(2, len(size) - 2, len(size) - 1)
    function = lambda lib, theta: F(lib).affine_grid(theta, size, align)  # noqa: E731
    compare_with_torch(function, [theta])
    compare_with_torch(function, [theta], dtype="float32")


def test_affine_grid_gradcheck():
    theta = float64_leaves(values(2, 3, 4))
    assert gradcheck(lambda t: F(tapegrad).affine_grid(t, [2, 1, 2, 3, 2], False), theta)
    assert gradgradcheck(lambda t: F(tapegrad).affine_grid(t, [2, 1, 2, 3, 2], False), theta)


def test_affine_grid_then_grid_sample_matches_torch():
    def transform(lib, theta, x):
        grid = F(lib).affine_grid(theta, list(x.shape), align_corners=False)
        return F(lib).grid_sample(x, grid, align_corners=False)
    compare_with_torch(transform, [values(2, 2, 3) / 2, values(2, 3, 4, 5)])


# ---- embedding_bag ---------------------------------------------------------------------------

_INDICES = np.array([1, 1, 3, 6, 1, 2, 2, 0, 5])
_OFFSETS = np.array([0, 0, 4, 6])  # an empty first bag

BAGS = {
    "sum": dict(mode="sum"),
    "mean": dict(mode="mean"),
    "max": dict(mode="max"),
    "sum-scale-grad-by-freq": dict(mode="sum", scale_grad_by_freq=True),
    "mean-scale-grad-by-freq-padding": dict(mode="mean", scale_grad_by_freq=True, padding_idx=1),
    "mean-padding": dict(mode="mean", padding_idx=1),
    "max-negative-padding": dict(mode="max", padding_idx=-1),
}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_include_last_offset_matches_torch(mode):
    def function(lib, weight):  # offsets in CSR form: the last is the input's length
        return F(lib).embedding_bag(lib.tensor(_INDICES), weight, lib.tensor([0, 0, 4, 9]),
                                    mode=mode, include_last_offset=True)
    compare_with_torch(function, [values(7, 3)])
    compare_with_torch(function, [values(7, 3)], dtype="float32")


def test_embedding_bag_2d_input_refuses_offsets():
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None, as input "
                       "is treated is a mini-batch of fixed length sequences. However, found "
                       "offsets of type <class 'tapegrad._tensor.Tensor'>"):
        _bag(tapegrad, indices=[[1, 2], [3, 4]])


@pytest.mark.parametrize("options", labelled_params(BAGS))
def test_embedding_bag_matches_torch(options):
    def function(lib, weight):
        return F(lib).embedding_bag(lib.tensor(_INDICES), weight, lib.tensor(_OFFSETS),
                                    **options)
    compare_with_torch(function, [values(7, 3)])
    compare_with_torch(function, [values(7, 3)], dtype="float32")


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_per_sample_weights_match_torch(padding_idx):
    def function(lib, weight, per_sample_weights):
        return F(lib).embedding_bag(lib.tensor(_INDICES), weight, lib.tensor(_OFFSETS),
                                    mode="sum", per_sample_weights=per_sample_weights,
                                    padding_idx=padding_idx)
    compare_with_torch(function, [values(7, 3), values(9, seed=4)])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_matches_torch(mode):
    indices = np.array([[0, 2, 2], [4, 1, 3]])
    compare_with_torch(lambda lib, weight: F(lib).embedding_bag(lib.tensor(indices), weight,
                                                                mode=mode), [values(5, 4)])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_gradcheck(mode):
    indices, offsets = tapegrad.tensor(_INDICES), tapegrad.tensor(_OFFSETS)
    leaves = float64_leaves(values(7, 3))
    if mode == "sum":
        leaves += float64_leaves(values(9, seed=4))
    function = lambda weight, *sample: F(tapegrad).embedding_bag(  # noqa: E731
        indices, weight, offsets, mode=mode, per_sample_weights=sample[0] if sample else None)
    assert gradcheck(function, leaves)
    assert gradgradcheck(function, leaves)


@pytest.mark.parametrize("indices, offsets", [(np.zeros(0, np.int64), np.array([0])),
                                              (np.zeros(0, np.int64), np.zeros(0, np.int64)),
                                              (np.zeros((0, 3), np.int64), None)])
def test_embedding_bag_empty_matches_torch(indices, offsets):
    def function(lib, weight):
        return F(lib).embedding_bag(lib.tensor(indices), weight,
                                    None if offsets is None else lib.tensor(offsets))
    compare_with_torch(function, [values(4, 2)])


def test_embedding_bag_max_norm_renormalises_in_place_as_torch():
    torch = pytest.importorskip("torch")
    weights = []
    for lib in (tapegrad, torch):
        weight = lib.tensor(values(5, 3) * 2)
        F(lib).embedding_bag(lib.tensor([[0, 3], [3, 4]]), weight, max_norm=1.0, norm_type=1.0)
        weights.append(weight.numpy())
    np.testing.assert_allclose(*weights, rtol=1e-6)


# ---- ctc_loss --------------------------------------------------------------------------------

_TARGETS = np.array([[1, 2, 2], [3, 3, 0], [4, 1, 0]])


def _log_probs(steps=10, batch=3, classes=5):
    return np.log(np.random.default_rng(0).dirichlet(np.ones(classes), (steps, batch)))


CTC_CASES = {
    f"{reduction}-{'zero-infinity' if zero else 'inf'}-{lengths}": (reduction, zero, lengths)
    for reduction, zero, lengths in itertools.product(("none", "mean", "sum"), (False, True),
                                                      ("feasible", "infeasible", "empty"))}
_LENGTHS = {"feasible": ([10, 9, 8], [3, 2, 2]), "infeasible": ([10, 9, 1], [3, 2, 2]),
            "empty": ([10, 0, 5], [3, 0, 1])}


@pytest.mark.parametrize("reduction, zero_infinity, lengths",
                         labelled_params(CTC_CASES, several=True))
def test_ctc_loss_matches_torch(reduction, zero_infinity, lengths):
    input_lengths, target_lengths = _LENGTHS[lengths]

    def function(lib, log_probs):
        return F(lib).ctc_loss(log_probs, lib.tensor(_TARGETS), input_lengths, target_lengths,
                               reduction=reduction, zero_infinity=zero_infinity)
    compare_with_torch(function, [_log_probs()])


def test_ctc_loss_float32_matches_torch():
    compare_with_torch(lambda lib, log_probs: F(lib).ctc_loss(
        log_probs, lib.tensor(_TARGETS), [10, 9, 8], [3, 2, 2]), [_log_probs()], dtype="float32")


def test_ctc_loss_concatenated_targets_blank_and_tensor_lengths_match_torch():
    compare_with_torch(lambda lib, log_probs: F(lib).ctc_loss(
        log_probs, lib.tensor([1, 2, 3, 0]), lib.tensor([10, 9, 8]), lib.tensor([2, 1, 1]),
        blank=4, reduction="sum"), [_log_probs()])


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_ctc_loss_unbatched_matches_torch(reduction):
    compare_with_torch(lambda lib, log_probs: F(lib).ctc_loss(
        log_probs, lib.tensor([1, 2]), lib.tensor(10), lib.tensor(2), reduction=reduction),
        [_log_probs(batch=1)[:, 0]])


@pytest.mark.parametrize("reduction", [(), (0, 0), (0, 1), (0, 2), (0, 5)])
def test_torch_ctc_loss_takes_aten_reductions(reduction):
    compare_with_torch(lambda lib, log_probs: lib.ctc_loss(
        log_probs, lib.tensor(_TARGETS), [10, 9, 8], [3, 2, 2], *reduction), [_log_probs()])


def test_ctc_loss_gradcheck_through_log_softmax():
    # torch's gradient is exp(log_probs) - posterior, the gradient with respect to the logits:
    # numerically right only through a log_softmax
    logits = float64_leaves(values(6, 2, 4))
    targets = tapegrad.tensor([[1, 2], [3, 0]])

    def loss(logits):
        return F(tapegrad).ctc_loss(logits.log_softmax(2), targets, [6, 5], [2, 1],
                                    reduction="sum")
    assert gradcheck(loss, logits)


def test_ctc_loss_second_derivative_is_refused_as_torch():
    def second(lib):
        log_probs = leaf(lib, _log_probs())
        loss = F(lib).ctc_loss(log_probs, lib.tensor(_TARGETS), [10, 9, 8], [3, 2, 2])
        grad, = lib.autograd.grad(loss, log_probs, create_graph=True)
        lib.autograd.grad(grad.sum(), log_probs)
    assert_raises_like_torch(second)


# ---- errors ----------------------------------------------------------------------------------

def _x(lib, *shape, dtype="float32"):
    return lib.tensor(values(*shape), dtype=getattr(lib, dtype))


def _bag(lib, indices=(1, 2, 4, 5, 4, 3, 2, 9), offsets=(0, 4), weight_shape=(10, 3),
         **options):
    indices = lib.tensor(indices)
    offsets = None if offsets is None else lib.tensor(offsets)
    return F(lib).embedding_bag(indices, _x(lib, *weight_shape), offsets, **options)


def _ctc(lib, targets=_TARGETS, input_lengths=(10, 9, 8), target_lengths=(3, 2, 2),
         log_probs_shape=(10, 3, 5), **options):
    log_probs = lib.tensor(np.zeros(log_probs_shape), dtype=lib.float32)
    return F(lib).ctc_loss(log_probs, lib.tensor(targets), list(input_lengths),
                           list(target_lengths), **options)


def _grid(lib, x_shape=(1, 2, 3, 3), grid_shape=(1, 4, 5, 2), **options):
    options.setdefault("align_corners", False)
    return F(lib).grid_sample(_x(lib, *x_shape), _x(lib, *grid_shape), **options)


ERRORS = {
    "pixel_shuffle-2d": lambda lib: F(lib).pixel_shuffle(_x(lib, 3, 3), 2),
    "pixel_shuffle-channels": lambda lib: F(lib).pixel_shuffle(_x(lib, 1, 7, 3, 3), 2),
    "pixel_shuffle-factor-0": lambda lib: F(lib).pixel_shuffle(_x(lib, 1, 8, 3, 3), 0),
    "pixel_unshuffle-height": lambda lib: F(lib).pixel_unshuffle(_x(lib, 1, 1, 3, 4), 2),
    "pixel_unshuffle-width": lambda lib: F(lib).pixel_unshuffle(_x(lib, 1, 1, 4, 3), 2),
    "pixel_unshuffle-factor": lambda lib: F(lib).pixel_unshuffle(_x(lib, 1, 1, 4, 4), -1),
    "channel_shuffle-groups": lambda lib: F(lib).channel_shuffle(_x(lib, 1, 8, 3, 3), 3),
    "channel_shuffle-groups-0": lambda lib: F(lib).channel_shuffle(_x(lib, 1, 8, 3), 0),
    "channel_shuffle-2d": lambda lib: F(lib).channel_shuffle(_x(lib, 2, 8), 2),
    "pdist-3d": lambda lib: F(lib).pdist(_x(lib, 2, 3, 3)),
    "pdist-negative-p": lambda lib: F(lib).pdist(_x(lib, 3, 3), -1),
    "pdist-integers": lambda lib: F(lib).pdist(lib.ones(3, 3, dtype=lib.int64)),
    "rms_norm-shape": lambda lib: F(lib).rms_norm(_x(lib, 2, 3), [4]),
    "rms_norm-int-shape": lambda lib: F(lib).rms_norm(_x(lib, 2, 3), 3),
    "rms_norm-weight": lambda lib: F(lib).rms_norm(_x(lib, 2, 3), [3], _x(lib, 4)),
    "rms_norm-empty-shape": lambda lib: F(lib).rms_norm(_x(lib, 2, 3), []),
    "rms_norm-integers": lambda lib: F(lib).rms_norm(lib.ones(2, 3, dtype=lib.int64), [3]),
    "grid_sample-mode": lambda lib: _grid(lib, mode="cubic"),
    "grid_sample-padding": lambda lib: _grid(lib, padding_mode="wrap"),
    "grid_sample-batch": lambda lib: _grid(lib, grid_shape=(2, 4, 5, 2)),
    "grid_sample-last-dim": lambda lib: _grid(lib, grid_shape=(1, 4, 5, 3)),
    "grid_sample-dims": lambda lib: _grid(lib, grid_shape=(1, 4, 5, 2, 2)),
    "grid_sample-bicubic-3d": lambda lib: _grid(lib, (1, 2, 3, 3, 3), (1, 4, 5, 2, 3),
                                                mode="bicubic"),
    "grid_sample-empty-spatial": lambda lib: _grid(lib, x_shape=(1, 2, 0, 3)),
    "grid_sample-dtypes": lambda lib: F(lib).grid_sample(
        _x(lib, 1, 2, 3, 3), _x(lib, 1, 4, 5, 2, dtype="float64"), align_corners=False),
    "grid_sample-integers": lambda lib: F(lib).grid_sample(
        lib.ones(1, 2, 3, 3, dtype=lib.int64), lib.ones(1, 4, 5, 2, dtype=lib.int64),
        align_corners=False),
    "grid_sampler_2d-of-5d": lambda lib: lib.grid_sampler_2d(
        _x(lib, 1, 2, 3, 3, 3), _x(lib, 1, 4, 5, 2, 3), 0, 0, False),
    "grid_sampler_3d-of-4d": lambda lib: lib.grid_sampler_3d(
        _x(lib, 1, 2, 3, 3), _x(lib, 1, 4, 5, 2), 0, 0, False),
    "affine_grid-theta-shape": lambda lib: F(lib).affine_grid(_x(lib, 2, 2, 3), [2, 1, 3, 4, 5],
                                                              align_corners=False),
    "affine_grid-size": lambda lib: F(lib).affine_grid(_x(lib, 2, 2, 3), [2, 1, 3],
                                                       align_corners=False),
    "affine_grid-zero-size": lambda lib: F(lib).affine_grid(_x(lib, 2, 2, 3), [2, 1, 0, 4],
                                                            align_corners=False),
    "affine_grid-batch": lambda lib: F(lib).affine_grid(_x(lib, 2, 2, 3), [3, 1, 2, 4],
                                                        align_corners=False),
    "affine_grid-integers": lambda lib: F(lib).affine_grid(
        lib.ones(2, 2, 3, dtype=lib.int64), [2, 1, 2, 4], align_corners=False),
    "embedding_bag-mode": lambda lib: _bag(lib, mode="median"),
    "embedding_bag-no-offsets": lambda lib: _bag(lib, offsets=None),
    "embedding_bag-2d-offsets": lambda lib: _bag(lib, offsets=[[0, 4]]),
    "embedding_bag-3d": lambda lib: _bag(lib, indices=[[[1]]], offsets=None),
    "embedding_bag-1d-weight": lambda lib: _bag(lib, weight_shape=(10,)),
    "embedding_bag-first-offset": lambda lib: _bag(lib, offsets=[1, 4]),
    "embedding_bag-last-offset": lambda lib: _bag(lib, offsets=[0, 9]),
    "embedding_bag-index": lambda lib: _bag(lib, indices=[1, 2, 10], offsets=[0]),
    "embedding_bag-negative-index": lambda lib: _bag(lib, indices=[1, -1], offsets=[0]),
    "embedding_bag-float-indices": lambda lib: F(lib).embedding_bag(
        lib.tensor([1.0, 2.0]), _x(lib, 10, 3), lib.tensor([0])),
    "embedding_bag-padding": lambda lib: _bag(lib, padding_idx=10),
    "embedding_bag-mean-weights": lambda lib: _bag(lib, mode="mean",
                                                   per_sample_weights=_x(lib, 8)),
    "embedding_bag-weights-shape": lambda lib: _bag(lib, mode="sum",
                                                    per_sample_weights=_x(lib, 7)),
    "embedding_bag-max-freq": lambda lib: _bag(lib, mode="max", scale_grad_by_freq=True),
    "ctc_loss-reduction": lambda lib: _ctc(lib, reduction="average"),
    "ctc_loss-input-length": lambda lib: _ctc(lib, input_lengths=(11, 9, 8)),
    "ctc_loss-negative-input-length": lambda lib: _ctc(lib, input_lengths=(10, -1, 8)),
    "ctc_loss-target-length": lambda lib: _ctc(lib, target_lengths=(4, 2, 2)),
    "ctc_loss-negative-target-length": lambda lib: _ctc(lib, target_lengths=(3, -1, 2)),
    "ctc_loss-batch-of-lengths": lambda lib: _ctc(lib, input_lengths=(10, 9)),
    "ctc_loss-batch-of-targets": lambda lib: _ctc(lib, targets=[[1, 2]]),
    "ctc_loss-concatenated": lambda lib: _ctc(lib, targets=[1, 2, 3]),
    "ctc_loss-blank": lambda lib: _ctc(lib, blank=5),
    "ctc_loss-4d": lambda lib: _ctc(lib, log_probs_shape=(10, 3, 1, 5)),
    "ctc_loss-float-lengths": lambda lib: F(lib).ctc_loss(
        _x(lib, 10, 3, 5), lib.tensor(_TARGETS), lib.tensor([10.0, 9.0, 8.0]),
        lib.tensor([3, 2, 2])),
}


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
def test_error_matches_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like_torch(fn)


# ---- layers ----------------------------------------------------------------------------------

LAYERS = {
    "PixelShuffle": (lambda nn: nn.PixelShuffle(2), (1, 8, 2, 3)),
    "PixelUnshuffle": (lambda nn: nn.PixelUnshuffle(2), (1, 2, 4, 2)),
    "ChannelShuffle": (lambda nn: nn.ChannelShuffle(2), (2, 4, 3)),
    "RMSNorm": (lambda nn: nn.RMSNorm(3), (2, 3)),
    "RMSNorm-no-affine": (lambda nn: nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False),
                          (4, 2, 3)),
    "ReflectionPad3d": (lambda nn: nn.ReflectionPad3d((1, 0, 2, 1, 0, 1)), (1, 2, 3, 3, 3)),
    "ReplicationPad3d": (lambda nn: nn.ReplicationPad3d(1), (1, 2, 2, 3, 2)),
    "BatchNorm3d": (lambda nn: nn.BatchNorm3d(2), (3, 2, 2, 2, 2)),
    "InstanceNorm3d": (lambda nn: nn.InstanceNorm3d(2, affine=True), (3, 2, 2, 3, 2)),
    "InstanceNorm3d-unbatched": (lambda nn: nn.InstanceNorm3d(2), (2, 2, 3, 2)),
    "Upsample-trilinear": (lambda nn: nn.Upsample(scale_factor=1.5, mode="trilinear"),
                           (1, 2, 2, 3, 2)),
    "Upsample-bicubic": (lambda nn: nn.Upsample(size=(3, 5), mode="bicubic",
                                                align_corners=True), (1, 2, 2, 3)),
    "Upsample-area-5d": (lambda nn: nn.Upsample(size=(1, 2, 1), mode="area"), (1, 2, 2, 3, 2)),
}


@pytest.mark.parametrize("make, shape", labelled_params(LAYERS, several=True))
def test_layer_matches_torch(make, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = make(tapegrad.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    compare_with_torch(lambda lib, x: make(lib.nn)(x), [values(*shape)], dtype="float32")


def test_embedding_bag_layer_matches_torch():
    torch = pytest.importorskip("torch")
    options = dict(mode="sum", padding_idx=-2, max_norm=1.0, norm_type=1.0,
                   scale_grad_by_freq=True, include_last_offset=True)
    assert repr(tapegrad.nn.EmbeddingBag(10, 3, **options)) == repr(
        torch.nn.EmbeddingBag(10, 3, **options))
    assert repr(tapegrad.nn.EmbeddingBag(10, 3)) == repr(torch.nn.EmbeddingBag(10, 3))
    layer = tapegrad.nn.EmbeddingBag(10, 3, padding_idx=2)
    assert not layer.weight[2].detach().numpy().any()

    def bag(lib, weight):
        layer = lib.nn.EmbeddingBag.from_pretrained(weight, freeze=False, mode="max")
        assert layer.weight.requires_grad
        return layer(lib.tensor([[0, 2], [1, 1]]))
    compare_with_torch(bag, [values(3, 2)])
    frozen = tapegrad.nn.EmbeddingBag.from_pretrained(tapegrad.ones(3, 2))
    assert not frozen.weight.requires_grad


def test_ctc_loss_layer_matches_torch():
    torch = pytest.importorskip("torch")
    for options in ({}, dict(blank=4, reduction="sum", zero_infinity=True)):
        assert repr(tapegrad.nn.CTCLoss(**options)) == repr(torch.nn.CTCLoss(**options))
        compare_with_torch(lambda lib, log_probs: lib.nn.CTCLoss(**options)(
            log_probs, lib.tensor(_TARGETS % 4), [10, 9, 1], [3, 2, 2]), [_log_probs()])


LAYER_ERRORS = {
    "BatchNorm3d-4d": lambda lib: lib.nn.BatchNorm3d(2)(_x(lib, 2, 2, 2, 2)),
    "InstanceNorm3d-3d": lambda lib: lib.nn.InstanceNorm3d(2)(_x(lib, 2, 2, 2)),
    "EmbeddingBag-padding": lambda lib: lib.nn.EmbeddingBag(3, 2, padding_idx=3),
    "EmbeddingBag-weight": lambda lib: lib.nn.EmbeddingBag(3, 2, _weight=_x(lib, 2, 2)),
    "EmbeddingBag-1d-pretrained": lambda lib: lib.nn.EmbeddingBag.from_pretrained(_x(lib, 3)),
}


@pytest.mark.parametrize("fn", labelled_params(LAYER_ERRORS))
def test_layer_error_matches_torch(fn):
    assert_raises_like_torch(fn)
