"""op_db rows of the reduction and sorting families beyond sum, mean, max/min and the basic norms
in op_db.py: prod, var/std, logsumexp, amax/amin, argmax/argmin, all/any/count_nonzero,
cumsum/cumprod, norm orders, sort/argsort/topk/kthvalue/median and unique.

Ops with integer or bool results (argmax, argsort, all, ...) appear next to a differentiable
companion in the same row, so that torch's values and dtypes are compared too."""
import numpy as np

from op_db import DISTINCT, NONZERO, STEP, UNARY, K, OpRow, S, Sample, T

# ---- samples -------------------------------------------------------------------------------


def _dim_samples(dim_key="dim", *, empty=True, tuple_dims=True):
    """Reductions along dim with keepdim: negative dims, 0-d, empty, non-contiguous."""
    def at(shape, dim, keepdim, label, **options):
        return S(shape, constants={dim_key: dim, "keepdim": keepdim}, label=label, **options)
    samples = [
        at((3, 4), 1, False, "dim1"),
        at((3, 4), -2, True, "dim-2-keepdim"),
        at((2, 3, 2), -1, False, "3d-dim-1"),
        at((), 0, False, "0d"),
        at((), -1, True, "0d-keepdim"),
        at((4, 3), 0, False, "t", layouts=("t",)),
        at((3, 2), 1, True, "step", layouts=("step",)),
    ]
    if tuple_dims:
        samples += [at((2, 3, 2), (0, 2), False, "dims02"),
                    at((2, 3, 2), (-1, 0), True, "dims-keepdim")]
    if empty:
        samples += [at((0, 3), 1, False, "empty-keep-empty"),
                    at((0, 3), 0, True, "empty-reduce-empty")]
    return tuple(samples)


def _values(*arrays, label):
    """A sample at explicit values that the numerical checks use too (unlike K)."""
    return Sample(values=tuple(np.asarray(a, dtype=np.float64) for a in arrays), label=label)


_ZEROS = [[2.0, 0.0, 3.0, -1.5], [0.5, 1.5, 2.0, -1.0], [0.0, 1.25, 0.0, 2.0]]
_TIES = [[1.0, 3.0, 3.0], [2.0, -2.0, 2.0]]
_NAN = float("nan")

# Not a tapegrad bug: torch records Unique2Backward0/UniqueDimBackward0 and their backward
# raises NotImplementedError, in torch as in tapegrad; only the forward can be compared.
NO_DERIVATIVE = {check: "torch has no derivative for unique either: backward raises"
                 for check in ("gradcheck", "gradgrad", "torch")}


def _gathered(lib, x, index, dim):
    """x at the integer results of argmax/argmin: a float output to differentiate."""
    if dim is None:
        return x.reshape(-1)[index.reshape(-1)]
    return x.gather(dim, index if index.ndim == x.ndim else index.unsqueeze(dim))


def _arg_row(name, samples):
    def fn(lib, x, dim=None, keepdim=False):
        index = getattr(lib, name)(x, dim, keepdim) if dim is not None else getattr(x, name)(
            keepdim=keepdim)
        return _gathered(lib, x, index, dim), index
    return OpRow(name, fn, samples, domain=DISTINCT, smooth=False, ops=(name,))


_ARG_SAMPLES = (
    S((3, 4), label="all"),
    S((3, 4), constants={"keepdim": True}, label="all-keepdim"),
    S((3, 4), constants={"dim": 1}, label="dim1"),
    S((3, 4), constants={"dim": -2, "keepdim": True}, label="dim-2-keepdim"),
    S((), label="0d"),
    S((), constants={"dim": 0, "keepdim": True}, label="0d-dim"),
    S((0, 3), constants={"dim": 1}, label="empty"),
    T((3, 4), constants={"dim": 0}),
    K([1.0, _NAN, 3.0, _NAN], label="nan"),
)


def _norm(lib, x, p="fro", **options):
    return x.norm(p, **options)


def _var_like(name):
    def fn(lib, x, **options):
        return getattr(x, name)(**options)
    return fn


_VAR_SAMPLES = (
    S((3, 4), label="all"),
    S((5,), label="1d"),
    S((3, 4), constants={"dim": 1}, label="dim1"),
    S((3, 4), constants={"dim": -2, "keepdim": True}, label="dim-2-keepdim"),
    S((2, 3, 2), constants={"dim": (0, 2)}, label="dims02"),
    S((3, 4), constants={"dim": 1, "correction": 0}, label="correction0"),
    S((3, 4), constants={"dim": 0, "correction": 2.5}, label="correction2.5"),
    S((3, 4), constants={"dim": 1, "unbiased": False, "keepdim": True}, label="biased"),
    S((3, 4), constants={"unbiased": False}, label="all-biased"),
    S((2, 3, 2), constants={"dim": (0, 1, 2), "correction": 0}, label="every-dim"),
    S((), constants={"correction": 0}, label="0d-correction0"),
    K(1.5, label="0d-nan"),
    S((0, 3), constants={"dim": 1}, label="empty-keep-empty"),
    S((0, 3), constants={"dim": 0}, label="empty-reduce-empty"),
    T((3, 4), constants={"dim": 1}),
    STEP((3, 2), constants={"dim": 0}),
    # no degrees of freedom left: inf or NaN, whose finite differences mean nothing
    K([2.0, 1.0], constants={"correction": 3}, label="all-correction-above-n"),
    K([2.0, 2.0], constants={"correction": 2}, label="all-correction-n-equal"),
    K([[2.0, 1.0]], constants={"dim": 1, "correction": 3}, label="dim-correction-above-n"),
    K([[2.0], [1.0]], constants={"dim": 1}, label="dim-one-element"),
)


_CUMULATIVE = (
    S((3, 4), constants={"dim": 1}, label="dim1"),
    S((3, 4), constants={"dim": -2}, label="dim-2"),
    S((2, 3, 2), constants={"dim": 1}, label="3d"),
    S((5,), constants={"dim": 0}, label="1d"),
    S((), constants={"dim": 0}, label="0d"),
    S((0, 3), constants={"dim": 0}, label="empty"),
    T((3, 4), constants={"dim": 1}),
    STEP((3, 2), constants={"dim": 0}),
)


def _unique_sample(values, label, **constants):
    return Sample(values=(np.asarray(values, dtype=np.float64),), constants=constants,
                  label=label, bugs=NO_DERIVATIVE)


# ---- rows ----------------------------------------------------------------------------------

ROWS = (
    # ---- prod ----------------------------------------------------------------------------
    OpRow("prod_all", lambda lib, x: x.prod(), UNARY + (
        _values(_ZEROS, label="zeros"), _values([[2.0, 0.5], [3.0, 0.0]], label="one-zero"),
        _values([1.5, -2.0, 0.0, 3.0], label="1d-one-zero")), domain=NONZERO, ops=("prod",)),
    OpRow("prod_dim", lambda lib, x, dim, keepdim: x.prod(dim, keepdim=keepdim),
          _dim_samples(tuple_dims=False) + (
              Sample(values=(np.array(_ZEROS),), constants={"dim": 1, "keepdim": False},
                     label="zeros"),
              Sample(values=(np.array(_ZEROS),), constants={"dim": 0, "keepdim": True},
                     label="zeros-dim0")),
          domain=NONZERO, ops=("prod",)),
    OpRow("prod_fn_dtype", lambda lib, x: lib.prod(x, 1, keepdim=True, dtype=lib.float64),
          (S((3, 4)),), domain=NONZERO, ops=("prod",)),

    # ---- var and std ---------------------------------------------------------------------
    OpRow("var", _var_like("var"), _VAR_SAMPLES, ops=("var",)),
    OpRow("std", _var_like("std"), _VAR_SAMPLES[:-4] + (
        K([2.0, 2.0, 2.0], label="constant"),
        K([[2.0, 2.0], [1.0, 3.0]], constants={"dim": 1}, label="constant-row")), ops=("std",)),
    OpRow("var_std_fn", lambda lib, x: lib.var(x, 1, True, True) + lib.std(x, False),
          (S((3, 4)), S((2, 3))), ops=("var", "std")),

    # ---- logsumexp -----------------------------------------------------------------------
    OpRow("logsumexp", lambda lib, x, dim, keepdim: x.logsumexp(dim, keepdim),
          _dim_samples() + (
              S((2, 3), constants={"dim": (), "keepdim": True}, label="no-dims-keepdim"),
              S((0, 3), constants={"dim": (), "keepdim": False}, label="no-dims-empty"),
              K([1000.0, 1000.5], constants={"dim": 0, "keepdim": False}, label="large")),
          ops=("logsumexp",)),
    OpRow("logsumexp_fn", lambda lib, x: lib.logsumexp(x, dim=-1), (S((3, 4)),),
          ops=("logsumexp",)),

    # ---- amax and amin -------------------------------------------------------------------
    OpRow("amax", lambda lib, x, dim, keepdim: x.amax(dim, keepdim),
          _dim_samples(empty=False) + (
              S((0, 3), constants={"dim": 1, "keepdim": False}, label="empty"),
              K(_TIES, constants={"dim": 1, "keepdim": False}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("amax",)),
    OpRow("amax_all", lambda lib, x: lib.amax(x), (S((3, 4)), S(()), T((3, 4)),
                                                   K(_TIES, label="ties")),
          domain=DISTINCT, smooth=False, ops=("amax",)),
    OpRow("amin", lambda lib, x, dim, keepdim: lib.amin(x, dim=dim, keepdim=keepdim),
          _dim_samples(empty=False) + (
              K(_TIES, constants={"dim": 0, "keepdim": True}, label="ties"),),
          domain=DISTINCT, smooth=False, ops=("amin",)),
    OpRow("amin_all", lambda lib, x: x.amin(), (S((3, 4)), K(_TIES, label="ties")),
          domain=DISTINCT, smooth=False, ops=("amin",)),

    # ---- max and min with keywords ---------------------------------------------------------
    OpRow("max_dim_keyword", lambda lib, x: lib.max(x, dim=1, keepdim=True), (S((3, 4)),),
          domain=DISTINCT, smooth=False, ops=("max",)),
    OpRow("min_dim_keyword", lambda lib, x: x.min(dim=-1), (S((3, 4)), S(())),
          domain=DISTINCT, smooth=False, ops=("min",)),
    OpRow("max_other_keyword", lambda lib, x, y: lib.max(x, other=y) + lib.min(x, other=y),
          (S((3, 4), (4,)),), domain=DISTINCT, smooth=False, ops=("max", "min")),

    # ---- argmax and argmin (with the values they point at) ---------------------------------
    _arg_row("argmax", _ARG_SAMPLES),
    _arg_row("argmin", _ARG_SAMPLES),

    # ---- all, any, count_nonzero (with the sum over the same dims) --------------------------
    OpRow("all_any", lambda lib, x, dim, keepdim: (
        x.sum(dim, keepdim), (x > 0).all(dim, keepdim), lib.any(x > 1, dim, keepdim)),
          _dim_samples() + (S((2, 3), constants={"dim": (), "keepdim": False},
                              label="no-dims"),), ops=("all", "any")),
    OpRow("all_any_all", lambda lib, x: (x.sum(), (x > 0).all(), lib.any(x > 1)),
          (S((3, 4)), S(()), S((0, 3))), ops=("all", "any")),
    OpRow("count_nonzero", lambda lib, x, dim=None: (
        x.sum(dim), lib.count_nonzero(x > 0, dim)), (
            S((3, 4)), S((3, 4), constants={"dim": 1}, label="dim1"),
            S((2, 3, 2), constants={"dim": (-1, 0)}, label="dims"),
            S((), constants={"dim": 0}, label="0d"), S((0, 3), constants={"dim": 0},
                                                       label="empty")),
          ops=("count_nonzero",)),

    # ---- cumsum and cumprod --------------------------------------------------------------
    OpRow("cumsum", lambda lib, x, dim: x.cumsum(dim), _CUMULATIVE, ops=("cumsum",)),
    OpRow("cumsum_fn_dtype", lambda lib, x: lib.cumsum(x, dim=0, dtype=lib.float64),
          (S((3, 4)),), ops=("cumsum",)),
    OpRow("cumprod", lambda lib, x, dim: x.cumprod(dim), _CUMULATIVE + (
        Sample(values=(np.array(_ZEROS),), constants={"dim": 1}, label="zeros"),
        Sample(values=(np.array(_ZEROS).T,), constants={"dim": 0}, label="zeros-dim0"),
        Sample(values=(np.array([0.0, 1.5, -2.0]),), constants={"dim": 0},
               label="leading-zero")),
          domain=NONZERO, ops=("cumprod",)),
    OpRow("cumprod_fn", lambda lib, x: lib.cumprod(x, -1), (S((3, 4)),), domain=NONZERO,
          ops=("cumprod",)),

    # ---- norm orders ---------------------------------------------------------------------
    OpRow("norm_orders", _norm, (
        S((3, 4), constants={"p": 3}, label="p3"),
        S((3, 4), constants={"p": 1.5, "dim": 1}, label="p1.5-dim1"),
        S((3, 4), constants={"p": 4.0, "dim": (0, 1), "keepdim": True}, label="p4-keepdim"),
        S((3, 4), constants={"p": 0.5}, label="p0.5"),
        S((3, 4), constants={"p": -1, "dim": -1}, label="p-1"),
        S((3, 4), constants={"p": "fro", "dim": (0, 1)}, label="fro-dims"),
        S((2, 3, 2), constants={"p": "fro", "dim": 1}, label="fro-dim"),
        S((2, 3, 2), constants={"p": None}, label="none"),
        S((), constants={"p": 3}, label="0d"),
        S((0, 3), constants={"p": 3, "dim": 0}, label="empty"),
        T((3, 4), constants={"p": 3, "dim": 0}),
        K([1.0, 0.0, -2.0], constants={"p": 0.5}, label="p0.5-with-zero"),
        K([0.0, 0.0], constants={"p": 1.5}, label="p1.5-zero-vector"),
        K([0.0, 0.0], constants={"p": 3}, label="p3-zero-vector"),
        K([1.0, 0.0, -2.0], constants={"p": -1}, label="p-1-with-zero")),
          domain=NONZERO, ops=("norm",)),
    OpRow("norm_p0", _norm, (S((3, 4), constants={"p": 0}), S((3, 4), constants={
        "p": 0, "dim": 1}, label="dim1")), domain=NONZERO, ops=("norm",)),
    OpRow("norm_inf_orders", _norm, (
        S((3, 4), constants={"p": float("-inf")}, label="-inf"),
        S((2, 3, 2), constants={"p": float("inf"), "dim": (0, 2)}, label="inf-dims"),
        S((3, 4), constants={"p": float("-inf"), "dim": 0, "keepdim": True},
          label="-inf-dim0"),
        K([[1.0, -2.0, 2.0]], constants={"p": float("inf"), "dim": 1}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("norm",)),
    OpRow("norm_fn_positional", lambda lib, x: lib.norm(x, 3, 1) + lib.norm(x, 2, -1, True)[:, 0],
          (S((3, 4)),), domain=NONZERO, ops=("norm",)),

    # ---- sort, argsort, topk -------------------------------------------------------------
    OpRow("sort", lambda lib, x, **options: x.sort(**options), (
        S((3, 4), label="default"),
        S((3, 4), constants={"dim": 0}, label="dim0"),
        S((3, 4), constants={"dim": -1, "descending": True}, label="descending"),
        S((2, 3, 2), constants={"dim": 1, "stable": True}, label="stable"),
        S((3, 4), constants={"stable": None, "descending": True}, label="stable-none"),
        S((), label="0d"),
        S((0, 3), constants={"dim": 0}, label="empty"),
        T((3, 4)),
        STEP((3, 2), constants={"dim": 0}),
        K([[1.0, _NAN, 3.0, _NAN]], constants={"descending": True}, label="nan"),
        K([[2.0, 1.0, 2.0, 1.0]], constants={"dim": 1, "descending": True},
          label="ties-short"),
        K(np.tile([2.0, 1.0], 10), constants={"stable": True}, label="ties-stable"),
        K(np.tile([2.0, 1.0], 10), label="ties-unstable")),
          domain=DISTINCT, smooth=False, ops=("sort",)),
    OpRow("sort_fn", lambda lib, x: lib.sort(x, 0, True), (S((3, 4)),),
          domain=DISTINCT, smooth=False, ops=("sort",)),
    OpRow("argsort", lambda lib, x, dim=-1, descending=False: (
        x.sort(dim, descending).values, lib.argsort(x, dim, descending),
        x.argsort(dim=dim, descending=descending, stable=True)), (
            S((3, 4)), S((3, 4), constants={"dim": 0, "descending": True}, label="dim0-desc"),
            S((), label="0d"), S((0, 3), constants={"dim": 0}, label="empty")),
          domain=DISTINCT, smooth=False, ops=("argsort",)),
    OpRow("topk", lambda lib, x, k, **options: x.topk(k, **options), (
        S((3, 4), constants={"k": 2}, label="k2"),
        S((3, 4), constants={"k": 3, "dim": 0, "largest": False}, label="smallest-dim0"),
        S((2, 3, 2), constants={"k": 1, "dim": 1}, label="3d"),
        S((3, 4), constants={"k": 0}, label="k0"),
        S((3, 4), constants={"k": 4}, label="k-all"),
        S((), constants={"k": 1}, label="0d"),
        S((0, 3), constants={"k": 0, "dim": 0}, label="empty"),
        T((3, 4), constants={"k": 2}),
        K([_NAN, 1.0, 5.0], constants={"k": 2}, label="nan"),
        K([_NAN, 1.0, 5.0], constants={"k": 2, "largest": False}, label="nan-smallest"),
        K([1.0, 2.0, 2.0, 1.0, 2.0], constants={"k": 2}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("topk",)),
    OpRow("topk_unsorted", lambda lib, x: lib.topk(x, 3, sorted=False).values.sort().values,
          (S((2, 5)),), domain=DISTINCT, smooth=False, ops=("topk",)),

    # ---- kthvalue and median -------------------------------------------------------------
    OpRow("kthvalue", lambda lib, x, k, **options: x.kthvalue(k, **options), (
        S((3, 4), constants={"k": 2}, label="k2"),
        S((3, 4), constants={"k": 3, "dim": 0, "keepdim": True}, label="dim0-keepdim"),
        S((2, 3, 2), constants={"k": 1, "dim": -2}, label="3d"),
        S((), constants={"k": 1}, label="0d"),
        S((3, 0), constants={"k": 1, "dim": 0}, label="empty"),
        T((3, 4), constants={"k": 4}),
        K([_NAN, 1.0, 5.0], constants={"k": 3}, label="nan"),
        K([3.0, 1.0, 1.0, 3.0], constants={"k": 3}, label="ties-after"),
        K([3.0, 1.0, 1.0, 3.0], constants={"k": 2}, label="ties")),
          domain=DISTINCT, smooth=False, ops=("kthvalue",)),
    OpRow("kthvalue_fn", lambda lib, x: lib.kthvalue(x, 2, 0), (S((3, 4)),),
          domain=DISTINCT, smooth=False, ops=("kthvalue",)),
    OpRow("median_all", lambda lib, x: x.median(), (
        S((3, 4)), S((5,)), S(()), T((3, 4)), STEP((3, 2)),
        K([1.0, 3.0, 3.0, 1.0], label="ties"),
        K([1.0, _NAN, 3.0, _NAN], label="nan"),
        K(np.zeros((0, 2)), label="empty")), domain=DISTINCT, smooth=False, ops=("median",)),
    OpRow("median_dim", lambda lib, x, dim, keepdim: lib.median(x, dim, keepdim=keepdim),
          _dim_samples(tuple_dims=False, empty=False) + (
              S((0, 3), constants={"dim": 1, "keepdim": False}, label="empty"),
              K([[1.0, 1.0, 3.0, 3.0, 1.0], [3.0, 1.0, 1.0, 3.0, 2.0]],
                constants={"dim": 1, "keepdim": False}, label="ties"),
              K([[1.0, _NAN, 0.0, _NAN], [3.0, 1.0, 2.0, 0.0]],
                constants={"dim": 1, "keepdim": True}, label="nan")),
          domain=DISTINCT, smooth=False, ops=("median",)),

    # ---- unique --------------------------------------------------------------------------
    OpRow("unique", lambda lib, x, **options: lib.unique(x, **options), (
        _unique_sample([3.0, 1.0, 3.0, 2.0], "1d"),
        _unique_sample([[3.0, 1.0], [1.0, 3.0]], "2d-inverse", return_inverse=True),
        _unique_sample([_NAN, 1.0, _NAN, 1.0], "nan-counts", return_counts=True),
        _unique_sample(2.0, "0d", return_inverse=True, return_counts=True),
        _unique_sample(np.zeros(0), "empty", return_inverse=True, return_counts=True),
        _unique_sample([3.0, 1.0, 3.0], "unsorted", sorted=False, return_counts=True)),
          smooth=False, ops=("unique",)),
    OpRow("unique_dim", lambda lib, x, **options: x.unique(**options), (
        _unique_sample([[1.0, 0.0, 1.0], [2.0, 3.0, 2.0]], "dim1", dim=1, return_inverse=True,
                       return_counts=True),
        _unique_sample([[1.0, 2.0], [1.0, 2.0], [0.0, 3.0]], "dim-2", dim=-2),
        _unique_sample(np.zeros((0, 2)), "empty", dim=0, return_counts=True)),
          smooth=False, ops=("unique",)),
)
