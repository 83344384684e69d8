"""tapegrad.masked beyond its op_db rows: fully masked-out slices, broadcast masks, integer and
empty inputs, dtype=, every keyword torch takes, grad_fn names, float64 gradcheck and
gradgradcheck of every differentiable op, and torch's errors."""
import math

import numpy as np
import pytest

import tapegrad
import tapegrad.masked
from compare import same_error, torch_or_skip

NAN, INF = float("nan"), float("inf")

# distinct values (no ties for amax, argmax, median), none near 0 (norm's kink)
DATA = np.array([[0.7, -1.3, 2.1, 0.4], [-0.6, 1.8, -2.4, 1.1], [1.5, -0.9, 0.3, -1.7]])
MASKS = {
    "none": None,
    "row-masked-out": np.array([[True, False, True, False], [False] * 4, [True] * 4]),
    "broadcast": np.array([True, False, True, True]),
    # at least two elements unmasked in every row and column: every result is finite
    "partial": np.array([[True, False, True, True], [True, True, False, True],
                         [False, True, True, True]]),
    "all": np.ones((3, 4), bool),
}
# every op, called as torch's tests call it: lib, input, mask -> output
OPS = {
    "sum": lambda lib, x, mask: lib.masked.sum(x, mask=mask),
    "sum-dim": lambda lib, x, mask: lib.masked.sum(x, 1, mask=mask),
    "sum-dims-keepdim": lambda lib, x, mask: lib.masked.sum(x, (0, 1), keepdim=True, mask=mask),
    "prod-dim": lambda lib, x, mask: lib.masked.prod(x, -1, mask=mask),
    "prod": lambda lib, x, mask: lib.masked.prod(x, mask=mask),
    "cumsum": lambda lib, x, mask: lib.masked.cumsum(x, 1, mask=mask),
    "cumprod": lambda lib, x, mask: lib.masked.cumprod(x, 0, mask=mask),
    "amax-dim": lambda lib, x, mask: lib.masked.amax(x, 1, mask=mask),
    "amin": lambda lib, x, mask: lib.masked.amin(x, mask=mask),
    "argmax-dim": lambda lib, x, mask: lib.masked.argmax(x, 1, mask=mask),
    "argmin-keepdim": lambda lib, x, mask: lib.masked.argmin(x, 0, keepdim=True, mask=mask),
    "mean-dim": lambda lib, x, mask: lib.masked.mean(x, 1, mask=mask),
    "mean": lambda lib, x, mask: lib.masked.mean(x, mask=mask),
    "median": lambda lib, x, mask: lib.masked.median(x, mask=mask),
    "median-dim0-keepdim": lambda lib, x, mask: lib.masked.median(x, 0, keepdim=True, mask=mask),
    "norm-2": lambda lib, x, mask: lib.masked.norm(x, 2.0, 1, mask=mask),
    "norm-1": lambda lib, x, mask: lib.masked.norm(x, 1, mask=mask),
    "norm-inf": lambda lib, x, mask: lib.masked.norm(x, INF, 1, mask=mask),
    "norm--inf": lambda lib, x, mask: lib.masked.norm(x, -INF, 1, mask=mask),
    "norm-3-keepdim": lambda lib, x, mask: lib.masked.norm(x, 3, 0, keepdim=True, mask=mask),
    "var-dim": lambda lib, x, mask: lib.masked.var(x, 1, mask=mask),
    "var-biased": lambda lib, x, mask: lib.masked.var(x, 1, False, mask=mask),
    "var-correction": lambda lib, x, mask: lib.masked.var(x, 1, correction=2, keepdim=True,
                                                          mask=mask),
    "std-dim": lambda lib, x, mask: lib.masked.std(x, 0, mask=mask),
    "std": lambda lib, x, mask: lib.masked.std(x, correction=0, mask=mask),
    "softmax": lambda lib, x, mask: lib.masked.softmax(x, 1, mask=mask),
    "log_softmax": lambda lib, x, mask: lib.masked.log_softmax(x, -1, mask=mask),
    "softmin": lambda lib, x, mask: lib.masked.softmin(x, 0, mask=mask),
    "normalize": lambda lib, x, mask: lib.masked.normalize(x, 2.0, 1, mask=mask),
    "normalize-eps": lambda lib, x, mask: lib.masked.normalize(x, 1, 0, eps=3.0, mask=mask),
    "logsumexp-dim": lambda lib, x, mask: lib.masked.logsumexp(x, 1, mask=mask),
    "logsumexp": lambda lib, x, mask: lib.masked.logsumexp(x, mask=mask),
    "logaddexp": lambda lib, x, mask: lib.masked.logaddexp(
        x, x.flip(0), input_mask=mask, other_mask=None if mask is None else mask.flip(-1)),
}
NOT_DIFFERENTIABLE = ("argmax-dim", "argmin-keepdim")


def _run(lib, op, data, mask, dtype="float64"):
    """op's output (as an array), dtype, grad_fn name, requires_grad, and the gradient for a
    cotangent of ones."""
    x = lib.tensor(data, dtype=getattr(lib, dtype))
    if x.dtype.is_floating_point:
        x.requires_grad_()
    mask = None if mask is None else lib.tensor(mask)
    out = OPS[op](lib, x, mask)
    node = type(out.grad_fn).__name__ if out.grad_fn is not None else None
    grad = None
    if out.requires_grad:
        grad, = lib.autograd.grad(out, x, lib.ones_like(out), allow_unused=True)
        grad = None if grad is None else grad.numpy()
    return out.detach().numpy(), str(out.dtype), node, out.requires_grad, grad


def _assert_same(expected, actual, tolerance=1e-12):
    (want, want_dtype, want_node, want_rg, want_grad) = expected
    (got, got_dtype, got_node, got_rg, got_grad) = actual
    assert (got_dtype, got_node, got_rg) == (want_dtype, want_node, want_rg)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)  # nan where torch's
    assert (got_grad is None) == (want_grad is None)
    if want_grad is not None:
        np.testing.assert_allclose(got_grad, want_grad, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("op", OPS)
def test_values_gradients_and_nodes_match_torch(op, mask):
    torch = torch_or_skip()
    _assert_same(_run(torch, op, DATA, MASKS[mask]), _run(tapegrad, op, DATA, MASKS[mask]))


@pytest.mark.parametrize("op", OPS)
def test_float32_matches_torch(op):
    torch = torch_or_skip()
    mask = MASKS["row-masked-out"]
    _assert_same(_run(torch, op, DATA, mask, "float32"),
                 _run(tapegrad, op, DATA, mask, "float32"), tolerance=1e-6)


INTEGER_OPS = ["sum", "sum-dim", "prod-dim", "cumsum", "cumprod", "amax-dim", "amin",
               "argmax-dim", "argmin-keepdim", "median-dim0-keepdim", "var-dim", "std",
               "logsumexp-dim"]


@pytest.mark.parametrize("op, dtype", [(op, dtype) for op in INTEGER_OPS
                                       for dtype in ("int32", "int64", "uint8", "bool")])
def test_integer_inputs_match_torch(op, dtype):
    """sum and prod of narrow integers in int64, var of integers in float32, median's and
    amax's identities of the integer type, as torch."""
    torch = torch_or_skip()
    data = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]]) % (2 if dtype == "bool" else 10)
    mask = MASKS["broadcast"]

    def run(lib):
        try:
            return _run(lib, op, data, mask, dtype)
        except Exception as error:  # noqa: BLE001 - both must refuse alike
            return type(error).__name__, str(error)
    expected, actual = run(torch), run(tapegrad)
    if isinstance(expected[0], str) or isinstance(actual[0], str):
        assert actual == expected
    else:
        _assert_same(expected, actual)


@pytest.mark.parametrize("op", OPS)
def test_batched_and_broadcast_mask_match_torch(op):
    """A 3-d input under a 2-d mask that broadcasts over its batch."""
    torch = torch_or_skip()
    data = np.random.default_rng(3).standard_normal((2, 3, 4))
    _assert_same(_run(torch, op, data, MASKS["row-masked-out"]),
                 _run(tapegrad, op, data, MASKS["row-masked-out"]))


@pytest.mark.parametrize("op", ["sum-dim", "prod-dim", "cumsum", "mean-dim", "softmax",
                                "norm-2", "logsumexp-dim", "var-dim", "logaddexp"])
def test_empty_input_matches_torch(op):
    torch = torch_or_skip()
    data, mask = np.zeros((0, 4)), np.zeros((0, 4), bool)
    _assert_same(_run(torch, op, data, mask), _run(tapegrad, op, data, mask))


# ---- fully masked-out slices, without torch -----------------------------------------------

def _row_masked_out(op, *args, **kwargs):
    """op along dim 1 of DATA with its second row masked out: that row's result."""
    mask = tapegrad.tensor(MASKS["row-masked-out"])
    return op(tapegrad.tensor(DATA), *args, mask=mask, **kwargs)[1]


@pytest.mark.parametrize("op, args, expected", [
    (tapegrad.masked.sum, (1,), 0.0), (tapegrad.masked.prod, (1,), 1.0),
    (tapegrad.masked.amax, (1,), -INF), (tapegrad.masked.amin, (1,), INF),
    (tapegrad.masked.argmax, (1,), 0.0), (tapegrad.masked.mean, (1,), NAN),
    (tapegrad.masked.median, (1,), NAN), (tapegrad.masked.norm, (2.0, 1), 0.0),
    (tapegrad.masked.norm, (-INF, 1), INF), (tapegrad.masked.var, (1,), NAN),
    (tapegrad.masked.std, (1,), NAN), (tapegrad.masked.logsumexp, (1,), -INF),
])
def test_a_fully_masked_out_slice_gives_the_identity(op, args, expected):
    got = _row_masked_out(op, *args).item()
    assert got == expected or math.isnan(got) and math.isnan(expected)


@pytest.mark.parametrize("op, expected", [
    (tapegrad.masked.softmax, [NAN] * 4), (tapegrad.masked.log_softmax, [NAN] * 4),
    (tapegrad.masked.softmin, [NAN] * 4), (tapegrad.masked.cumsum, [0.0] * 4),
    (tapegrad.masked.cumprod, [1.0] * 4),
])
def test_normalizations_of_a_fully_masked_out_row(op, expected):
    np.testing.assert_array_equal(_row_masked_out(op, 1).numpy(), expected)


def test_masked_out_elements_get_no_gradient():
    x = tapegrad.tensor(DATA, requires_grad=True)
    mask = tapegrad.tensor(MASKS["row-masked-out"])
    for op in (tapegrad.masked.sum, tapegrad.masked.amax, tapegrad.masked.logsumexp,
               tapegrad.masked.mean):
        grad, = tapegrad.autograd.grad(op(x, 1, mask=mask)[0::2].sum(), x)
        assert not grad.numpy()[~MASKS["row-masked-out"]].any()


def test_softmax_puts_zero_at_masked_out_elements():
    x = tapegrad.tensor(DATA)
    out = tapegrad.masked.softmax(x, 1, mask=tapegrad.tensor(MASKS["broadcast"]))
    assert not out.numpy()[:, 1].any()
    np.testing.assert_allclose(out.sum(1).numpy(), 1.0)


def test_dtype_keyword_and_output_mask():
    x = tapegrad.tensor(DATA, dtype=tapegrad.float32)
    mask = tapegrad.tensor(MASKS["row-masked-out"])
    assert tapegrad.masked.sum(x, 1, dtype=tapegrad.float64, mask=mask).dtype is tapegrad.float64
    assert tapegrad.masked.amax(x, 1, dtype=tapegrad.float64).dtype is tapegrad.float64
    defined = tapegrad.masked._output_mask(tapegrad.masked.sum, x, 1, mask=mask)
    assert defined.tolist() == [True, False, True]
    defined = tapegrad.masked._output_mask(tapegrad.masked.norm, x, 2.0, 1, mask=mask,
                                           keepdim=True)
    assert defined.shape == (3, 1)
    assert tapegrad.masked._output_mask(tapegrad.masked.softmax, x, 1, mask=mask).shape == (3, 4)


# ---- gradients, numerically ---------------------------------------------------------------

DIFFERENTIABLE = [op for op in OPS if op not in NOT_DIFFERENTIABLE]


def _finite_masked(op, mask):
    """op with mask, as a function of x, its masked-out results set to 0 (they are -inf or
    nan, where finite differences mean nothing), as torch's gradcheck of masked ops does."""
    def function(x):
        mask_tensor = None if mask is None else tapegrad.tensor(mask)
        out = OPS[op](tapegrad, x, mask_tensor)
        return out if mask is None else tapegrad.where(out.isfinite(), out, 0.0)
    return function


@pytest.mark.parametrize("mask", ["none", "partial"])
@pytest.mark.parametrize("op", DIFFERENTIABLE)
def test_gradcheck(op, mask):
    x = tapegrad.tensor(DATA, requires_grad=True)
    assert tapegrad.autograd.gradcheck(_finite_masked(op, MASKS[mask]), (x,))


@pytest.mark.parametrize("op", DIFFERENTIABLE)
def test_gradgradcheck(op):
    # logaddexp's second derivative at a masked-out (-inf) element is nan, in torch's too
    mask = MASKS["none" if op == "logaddexp" else "partial"]
    x = tapegrad.tensor(DATA, requires_grad=True)
    assert tapegrad.autograd.gradgradcheck(_finite_masked(op, mask), (x,))


def test_second_derivative_of_masked_logaddexp_matches_torch():
    torch = torch_or_skip()

    def second(lib):
        x = lib.tensor(DATA, dtype=lib.float64, requires_grad=True)
        mask = lib.tensor(MASKS["partial"])
        out = OPS["logaddexp"](lib, x, mask)
        grad, = lib.autograd.grad(out.sum(), x, create_graph=True)
        return lib.autograd.grad(grad.sum(), x)[0].numpy()
    np.testing.assert_allclose(second(tapegrad), second(torch), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["sum-dim", "prod-dim", "cumsum", "cumprod", "amax-dim",
                                "logsumexp-dim", "norm-2"])
def test_gradcheck_with_a_fully_masked_out_row(op):
    x = tapegrad.tensor(DATA, requires_grad=True)
    assert tapegrad.autograd.gradcheck(_finite_masked(op, MASKS["row-masked-out"]), (x,))


# ---- errors -------------------------------------------------------------------------------

def _x(lib, dtype="float64"):
    return lib.tensor(DATA, dtype=getattr(lib, dtype))


def _not_masked(input):
    return input


ERRORS = {
    "dim-out-of-range": lambda lib: lib.masked.sum(_x(lib), 2),
    "dim-negative-out-of-range": lambda lib: lib.masked.amax(_x(lib), (-3,)),
    "dim-repeated": lambda lib: lib.masked.sum(_x(lib), (1, -1)),
    "0d-dim-out-of-range": lambda lib: lib.masked.sum(lib.tensor(1.0), 1),
    "cumsum-dim-out-of-range": lambda lib: lib.masked.cumsum(_x(lib), 5),
    "mask-higher-dim": lambda lib: lib.masked.sum(_x(lib), mask=lib.ones(1, 3, 4, dtype=lib.bool)),
    "mask-not-broadcastable": lambda lib: lib.masked.sum(_x(lib), mask=lib.ones(3,
                                                                              dtype=lib.bool)),
    "mean-integer": lambda lib: lib.masked.mean(_x(lib, "int64"), 1),
    "mean-integer-dtype": lambda lib: lib.masked.mean(_x(lib), 1, dtype=lib.int32),
    "median-integer-row-masked-out": lambda lib: lib.masked.median(
        _x(lib, "int64"), 1, mask=lib.tensor(MASKS["row-masked-out"])),
    "norm-integer": lambda lib: lib.masked.norm(_x(lib, "int64"), 2.0, 1),
    "var-unbiased-and-correction": lambda lib: lib.masked.var(_x(lib), 1, True, correction=1),
    "input-mask-without-mask": lambda lib: lib.masked._input_mask(_x(lib)),
    "output-mask-not-callable": lambda lib: lib.masked._output_mask(1, _x(lib), mask=None),
    "output-mask-not-masked-op": lambda lib: lib.masked._output_mask(
        _not_masked, _x(lib), mask=lib.ones(3, 4, dtype=lib.bool)),
    "amax-empty": lambda lib: lib.masked.amax(lib.zeros(0, 3), 0),
    "argmax-empty-no-dim": lambda lib: lib.masked.argmax(lib.zeros(0, 3)),
    "softmax-integer": lambda lib: lib.masked.softmax(_x(lib, "int64"), 1),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    same_error(ERRORS[name])
