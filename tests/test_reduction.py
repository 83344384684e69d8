"""Reductions and sorting beyond their op_db rows: torch's errors and warnings, named tuples,
second derivatives where the input has zeros, accumulation precision, and the known
differences from torch."""
import re
import warnings

import numpy as np
import pytest

import tapegrad
from test_ops import assert_raises_like_torch, compare_scenario, labelled_params, leaf_of, raised


def Z(lib, *shape, dtype="float32"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


def T(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def grad_leaf(lib, *shape):
    return lib.ones(*shape, requires_grad=True)


ERRORS = {
    # prod, sum, cumsum, cumprod: integer results cannot carry a gradient
    "prod-int-dtype-grad": lambda lib: grad_leaf(lib, 2).prod(dtype=lib.int64),
    "prod-dim-int-dtype-grad": lambda lib: grad_leaf(lib, 2).prod(0, dtype=lib.int32),
    "sum-int-dtype-grad": lambda lib: grad_leaf(lib, 2).sum(dtype=lib.int64),
    "cumsum-int-dtype-grad": lambda lib: grad_leaf(lib, 2).cumsum(0, dtype=lib.int64),
    "cumprod-int-dtype-grad": lambda lib: grad_leaf(lib, 2).cumprod(0, dtype=lib.int16),
    "prod-dim-out-of-range": lambda lib: Z(lib, 2, 3).prod(2),
    "cumsum-dim-out-of-range": lambda lib: Z(lib, 2, 3).cumsum(2),
    "cumprod-dim-out-of-range": lambda lib: Z(lib, 2).cumprod(-2),
    # var, std, logsumexp
    "var-int": lambda lib: T(lib, [1, 2], "int64").var(),
    "std-bool-dim": lambda lib: T(lib, [True, False], "bool").std(0),
    "var-dim-out-of-range": lambda lib: Z(lib, 2, 3).var(2),
    "std-dims-repeated": lambda lib: Z(lib, 2, 3).std((1, -1)),
    "logsumexp-dim-out-of-range": lambda lib: Z(lib, 2, 3).logsumexp(2),
    "logsumexp-no-dims": lambda lib: Z(lib, 2, 3).logsumexp(()),
    "logsumexp-no-dims-1d": lambda lib: lib.logsumexp(Z(lib, 3), []),
    # amax, amin, argmax, argmin
    "amax-empty": lambda lib: Z(lib, 0, 3).amax(),
    "amin-empty-no-dims": lambda lib: Z(lib, 0, 3).amin(()),
    "amax-empty-dim": lambda lib: Z(lib, 0, 3).amax(0),
    "amin-empty-dims-in-given-order": lambda lib: Z(lib, 0, 0).amin((1, 0)),
    "amax-dim-out-of-range": lambda lib: Z(lib, 2, 3).amax(-3),
    "argmax-empty": lambda lib: Z(lib, 0).argmax(),
    "argmin-empty-dim": lambda lib: Z(lib, 0, 3).argmin(0),
    "argmax-bool": lambda lib: T(lib, [True], "bool").argmax(),
    "argmin-bool-dim": lambda lib: T(lib, [True], "bool").argmin(0),
    "argmax-dim-list": lambda lib: Z(lib, 2).argmax([0]),
    "argmin-dim-out-of-range": lambda lib: Z(lib, 2).argmin(1),
    "min-empty-dim": lambda lib: Z(lib, 3, 0).min(1),
    # all, any, count_nonzero
    "all-dim-out-of-range": lambda lib: Z(lib, 2).all(1),
    "any-dims-repeated": lambda lib: Z(lib, 2, 3).any((0, -2)),
    "count_nonzero-dims-repeated": lambda lib: Z(lib, 2, 3).count_nonzero((0, 0)),
    "count_nonzero-out-of-range": lambda lib: lib.count_nonzero(Z(lib, 2, 3), 2),
    # norms
    "norm-inf-empty": lambda lib: Z(lib, 0, 3).norm(float("inf")),
    "norm-negative-empty-dim": lambda lib: Z(lib, 0, 3).norm(-1, dim=(1, 0)),
    "norm-minus-inf-empty": lambda lib: lib.norm(Z(lib, 0), float("-inf")),
    "norm-fractional-negative-empty": lambda lib: Z(lib, 0).norm(-0.5),
    "norm-fro-three-dims": lambda lib: Z(lib, 2, 2, 2).norm("fro", dim=(0, 1, 2)),
    "norm-unknown-order": lambda lib: Z(lib, 2, 2).norm("abc"),
    "norm-nuc-1d": lambda lib: Z(lib, 2).norm("nuc"),
    "norm-nuc-3d": lambda lib: Z(lib, 2, 2, 2).norm("nuc"),
    "norm-int-dtype-error": lambda lib: T(lib, [3, 4], "int64").norm(p=1),
    # sort, topk, kthvalue, median, unique
    "sort-dim-out-of-range": lambda lib: Z(lib, 2, 3).sort(2),
    "argsort-dim-out-of-range": lambda lib: Z(lib, 2).argsort(-2),
    "topk-k-too-large": lambda lib: Z(lib, 3).topk(4),
    "topk-k-negative": lambda lib: Z(lib, 3).topk(-1),
    "topk-0d-k2": lambda lib: lib.tensor(1.0).topk(2),
    "topk-bool": lambda lib: T(lib, [True], "bool").topk(1),
    "topk-dim-out-of-range": lambda lib: Z(lib, 2, 3).topk(1, 2),
    "kthvalue-k-too-large": lambda lib: Z(lib, 2, 3).kthvalue(4),
    "kthvalue-k-zero": lambda lib: Z(lib, 3).kthvalue(0),
    "kthvalue-0d-k2": lambda lib: lib.tensor(1.0).kthvalue(2),
    "kthvalue-empty-dim": lambda lib: Z(lib, 0, 3).kthvalue(1, 0),
    "kthvalue-bool": lambda lib: T(lib, [True], "bool").kthvalue(1),
    "median-bool": lambda lib: T(lib, [True], "bool").median(),
    "median-dim-bool": lambda lib: T(lib, [True], "bool").median(0),
    "median-empty-dim": lambda lib: Z(lib, 0, 3).median(0),
    "median-dim-out-of-range": lambda lib: Z(lib, 3).median(1),
    "unique-dim-0d": lambda lib: lib.tensor(1.0).unique(dim=0),
    "unique-dim-empty-elsewhere": lambda lib: Z(lib, 0, 2).unique(dim=1),
    "unique-dim-out-of-range": lambda lib: lib.unique(Z(lib, 2, 3), dim=2),
    "unique-backward": lambda lib: lib.unique(grad_leaf(lib, 3)).sum().backward(),
    "unique-dim-backward": lambda lib: grad_leaf(lib, 2, 2).unique(dim=0).sum().backward(),
}



def known_difference(fn, label, reason):
    """A case where tapegrad differs from torch on purpose or by a known bug: a strict xfail."""
    return pytest.param(fn, id=label, marks=pytest.mark.xfail(strict=True, reason=reason))


ERRORS["var-unbiased-and-correction"] = known_difference(
    lambda lib: Z(lib, 2, 3).var(1, unbiased=True, correction=1), "var-unbiased-and-correction",
    "bug: torch's argument parser lists every var overload in its TypeError; we name the clash")


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


# ---- warnings ------------------------------------------------------------------------------

def warned(fn, lib):
    """The (category, message) pairs fn(lib) warns, without torch's C++ source location."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [(w.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "",
                                         str(w.message))) for w in caught]


WARNINGS = {
    "var-one-element": lambda lib: lib.ones(1).var(),
    "std-0d": lambda lib: lib.tensor(2.0).std(),
    "var-correction-above-n": lambda lib: lib.ones(2, 3).var(1, correction=3),
    "std-empty-reduction": lambda lib: Z(lib, 0, 3).std(0),
    "var-empty-result": lambda lib: Z(lib, 0, 3).var(1),
    "var-empty-result-other-dim": lambda lib: Z(lib, 3, 0).var(0),
    "var-empty-all": lambda lib: Z(lib, 0).var(),
    "var-enough-elements": lambda lib: lib.ones(2, 3).var(1, correction=2),
    "std-correction-0-one-element": lambda lib: lib.ones(1).std(correction=0),
    "var-unbiased-false-positional": lambda lib: lib.ones(1).var(False),
}


@pytest.mark.parametrize("fn", labelled_params(WARNINGS))
def test_warnings_match_torch(fn):
    torch = pytest.importorskip("torch")
    assert warned(fn, tapegrad) == warned(fn, torch)


def test_var_warning_points_at_the_caller():
    with pytest.warns(UserWarning, match="degrees of freedom") as record:
        tapegrad.ones(1).var()
    assert record[0].filename == __file__


# ---- named tuples --------------------------------------------------------------------------

RETURN_TYPES = {
    "sort": lambda lib, x: x.sort(descending=True),
    "topk": lambda lib, x: lib.topk(x, 2),
    "kthvalue": lambda lib, x: x.kthvalue(2, 0, keepdim=True),
    "median": lambda lib, x: lib.median(x, 0),
    "max": lambda lib, x: x.max(dim=0),
    "min": lambda lib, x: lib.min(x, dim=-1, keepdim=True),
}


@pytest.mark.parametrize("name", RETURN_TYPES)
def test_named_tuples_match_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = (RETURN_TYPES[name](lib, lib.tensor([3.0, 1.0, 2.0]))
                    for lib in (tapegrad, torch))
    assert type(ours).__name__ == type(theirs).__name__ == name
    assert ours._fields == ("values", "indices") and len(ours) == 2
    assert repr(ours) == repr(theirs)
    values, indices = ours
    assert values is ours.values and indices is ours.indices


def test_unique_returns_plain_tuples_like_torch():
    def scenario(lib):
        x = lib.tensor([3, 1, 3, 2])
        return {"alone": type(lib.unique(x)).__name__,
                "inverse": lib.unique(x, return_inverse=True),
                "counts": x.unique(return_counts=True),
                "both": lib.unique(x, sorted=False, return_inverse=True, return_counts=True)}
    compare_scenario(scenario)


# ---- second derivatives with zeros ---------------------------------------------------------

def hessian_vector(lib, op, values):
    """d/dx <d op(x).sum() / dx, w> for a fixed w: second derivatives through backward."""
    x = leaf_of(lib, values)
    op(x).sum().backward(create_graph=True)
    first = x.grad
    x.grad = None
    weights = lib.arange(x.numel(), dtype=lib.float64).reshape(x.shape)
    (first * weights).sum().backward()
    return {"first": first.detach(), "second": x.grad}


ZEROS = [[2.0, 0.0, 3.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.5, 2.0, -1.0, 3.0]]
SECOND_ORDER = {
    "prod": lambda lib: hessian_vector(lib, lambda x: x.prod(), ZEROS),
    "prod-one-zero": lambda lib: hessian_vector(lib, lambda x: x.prod(), [2.0, 0.0, 3.0]),
    "prod-dim": lambda lib: hessian_vector(lib, lambda x: x.prod(0, keepdim=True), ZEROS),
    "prod-dim1": lambda lib: hessian_vector(lib, lambda x: x.prod(1), ZEROS),
    "cumprod": lambda lib: hessian_vector(lib, lambda x: x.cumprod(1), ZEROS),
    "cumprod-dim0": lambda lib: hessian_vector(lib, lambda x: x.cumprod(0), ZEROS),
    "cumprod-1d": lambda lib: hessian_vector(lib, lambda x: x.cumprod(0), [2.0, 0.0, 3.0]),
}


@pytest.mark.parametrize("scenario", labelled_params(SECOND_ORDER))
def test_second_derivatives_with_zeros_match_torch(scenario):
    compare_scenario(scenario)


def test_cumprod_first_order_with_zeros_needs_no_table():
    # without create_graph the O(n) formula runs: one pass, no (n, n) table
    x = leaf_of(tapegrad, [[2.0, 0.0, 3.0, 0.0, 5.0]])
    x.cumprod(1).backward(tapegrad.ones(1, 5, dtype=tapegrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, 8.0, 0.0, 0.0, 0.0]])


# ---- precision -----------------------------------------------------------------------------

def test_float32_cumsum_and_cumprod_round_like_torch():
    # torch's CPU kernels accumulate float32 in double: every element matches to the bit
    torch = pytest.importorskip("torch")
    values = np.random.default_rng(7).uniform(0.5, 1.5, (3, 700)).astype(np.float32)
    for method in ("cumsum", "cumprod"):
        ours = getattr(tapegrad.tensor(values), method)(1).numpy()
        theirs = getattr(torch.tensor(values), method)(1).numpy()
        np.testing.assert_array_equal(ours, theirs)


def test_logsumexp_is_stable():
    x = tapegrad.tensor([1000.0, 1000.0, -1000.0])
    assert x.logsumexp(0).item() == pytest.approx(1000.0 + np.log(2.0))
    assert tapegrad.tensor([-1e4, -1e4]).logsumexp(0).item() == pytest.approx(-1e4 + np.log(2))


# ---- torch quirks we keep, and where we differ ---------------------------------------------

def test_var_with_empty_dim_list_reduces_everything():
    # torch's var(dim=[]) reduces everything forward, but its backward then divides by
    # n - correction with n = 1 and gives +-inf; tapegrad gives the gradient of var().
    x = leaf_of(tapegrad, [[1.0, 2.0, 4.0], [4.0, 5.0, 7.0]])
    x.var(dim=[]).backward()
    expected = 2.0 * (x.detach().numpy() - 23.0 / 6.0) / 5.0
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_reductions_of_integers_keep_torch_dtypes():
    def scenario(lib):
        small = lib.tensor([[1, 2], [3, 4]], dtype=lib.int32)
        flags = lib.tensor([True, False, True])
        return {"prod": small.prod(), "prod-dim": small.prod(1), "cumsum": small.cumsum(0),
                "cumprod-bool": flags.cumprod(0), "amax": small.amax(), "argmax": small.argmax(),
                "all-uint8": small.to(lib.uint8).all(), "any-uint8": small.to(lib.uint8).any(1),
                "count": flags.count_nonzero(), "logsumexp": small.logsumexp(1),
                "sort": small.sort(0, descending=True), "median": small.median(),
                "cumsum-float": small.cumsum(1, dtype=lib.float64),
                "sum-dim-none": small.sum(None), "unique": flags.unique(return_counts=True)}
    compare_scenario(scenario)


def test_explicit_dim_none_records_the_dim_overload_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0], [3.0, 4.0]])
        names = [type(t.grad_fn).__name__ for t in (
            x.sum(), x.sum(None), x.sum(dim=None, keepdim=True), x.mean(), x.mean(None),
            x.sort()[0], x.sort(stable=None)[0], x.sort(dim=0, stable=True)[0])]
        return {"names": names, "kept": x.sum(dim=None, keepdim=True)}
    compare_scenario(scenario)


def test_no_grad_results_do_not_require_grad():
    x = tapegrad.tensor([3.0, 1.0, 3.0], requires_grad=True)
    for result in (x.argmax(), x.argsort(), x.all(), x.any(0), x.count_nonzero(),
                   x.sort().indices, x.unique(return_inverse=True)[1]):
        assert not result.requires_grad and result.grad_fn is None


def test_sort_stable_keyword_is_accepted_where_torch_needs_it_by_name():
    # torch rejects x.sort(0, stable=True) (dim must then be a keyword); we accept it
    assert raised(lambda lib: lib.ones(3).sort(0, stable=True), tapegrad) is None
