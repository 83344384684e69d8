"""Pointwise ops beyond their op_db rows: erf/erfc accuracy, dtypes of non-float inputs,
errors, and graphs that rows cannot express (mixed dtypes, ops without grad_fn)."""
import math

import numpy as np
import pytest

import tapegrad
from test_ops import assert_raises_like_torch, compare_scenario, grad_fn_name, labelled_params

pytestmark = [
    # backward(create_graph=True) warns about a reference cycle, in torch and in tapegrad
    pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning"),
]

# ---- erf and erfc: NumPy has neither, tapegrad computes them itself -------------------------


def relative_errors(ours, exact):
    """|ours - exact| / |exact|, and |ours| where exact is 0."""
    ours, exact = np.asarray(ours, np.float64), np.asarray(exact, np.float64)
    return np.abs(ours - exact) / np.where(exact == 0, 1.0, np.abs(exact))


def math_erf_and_erfc(values):
    return (np.array([math.erf(v) for v in values]), np.array([math.erfc(v) for v in values]))


def test_erf_and_erfc_match_math_to_a_few_ulps():
    # every piece of the approximation (|x| < 0.47, < 4, beyond) and both signs
    x = np.concatenate([np.linspace(-9.0, 9.0, 20001), np.geomspace(1e-300, 0.5, 500),
                        -np.geomspace(1e-300, 0.5, 500), [0.46875, -0.46875, 4.0, -4.0]])
    erf, erfc = math_erf_and_erfc(x)
    t = tapegrad.tensor(x, dtype=tapegrad.float64)
    assert relative_errors(tapegrad.erf(t).numpy(), erf).max() < 2e-15
    assert relative_errors(tapegrad.erfc(t).numpy(), erfc).max() < 2e-15


def test_erfc_keeps_its_relative_accuracy_far_in_the_tail():
    # erfc(26.5) ~ 1e-307: 1 - erf would have lost every digit long before
    x = np.linspace(4.0, 26.5, 4501)
    _, erfc = math_erf_and_erfc(x)
    ours = tapegrad.erfc(tapegrad.tensor(x, dtype=tapegrad.float64)).numpy()
    assert relative_errors(ours, erfc).max() < 2e-15


def test_erf_and_erfc_of_special_values():
    x = tapegrad.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 30.0, -30.0],
                        dtype=tapegrad.float64)
    erf, erfc = tapegrad.erf(x).numpy(), tapegrad.erfc(x).numpy()
    np.testing.assert_array_equal(erf, [np.nan, 1.0, -1.0, 0.0, -0.0, 1.0, -1.0])
    np.testing.assert_array_equal(erfc, [np.nan, 0.0, 2.0, 1.0, 1.0, 0.0, 2.0])
    assert np.signbit(erf[4]) and not np.signbit(erf[3])


def test_erf_in_float32_is_the_float64_result_rounded():
    x = np.linspace(-5.0, 5.0, 1001).astype(np.float32)
    ours = tapegrad.erf(tapegrad.tensor(x)).numpy()
    assert ours.dtype == np.float32
    exact = np.array([math.erf(v) for v in x.astype(np.float64)]).astype(np.float32)
    np.testing.assert_array_equal(ours, exact)


# ---- dtypes and values of non-float (and float16) inputs, against torch ---------------------

def T(lib, data, dtype=None):
    return lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))


FLOAT_FUNCTIONS = ("exp2 expm1 log2 log10 log1p rsqrt tan asin acos atan sinh cosh asinh acosh "
                   "atanh erf erfc logit").split()
ROUNDING = "floor ceil round trunc fix".split()
TESTS = "isnan isinf isfinite logical_not".split()
INPUTS = {"int64": [0, 1, -2, 3], "int32": [0, 1, -2, 3], "uint8": [0, 1, 2, 3],
          "bool": [True, False], "float16": [0.25, -1.5, 2.5, 0.5]}

DTYPE_CASES = {
    **{f"{name}({dtype})": (lambda lib, name=name, dtype=dtype:
                            getattr(lib, name)(T(lib, INPUTS[dtype], dtype)))
       for name in FLOAT_FUNCTIONS + TESTS + ["sign", "nan_to_num"] for dtype in INPUTS},
    **{f"{name}({dtype})": (lambda lib, name=name, dtype=dtype:
                            getattr(lib, name)(T(lib, INPUTS[dtype], dtype)))
       for name in ROUNDING for dtype in ("int64", "uint8", "float16")},
    "frac(float16)": lambda lib: T(lib, [1.25, -2.75], "float16").frac(),
    "round(float16,decimals)": lambda lib: T(lib, [1.25, -2.75, 12.34], "float16").round(
        decimals=1),
    "round(float32,decimals)": lambda lib: T(lib, [1.005, 2.675, 0.125, -0.125, 1234.5678],
                                             "float32").round(decimals=2),
    "round(float32,negative-decimals)": lambda lib: lib.round(
        T(lib, [1234.5678, 15.0, 25.0, -35.0, 1e20], "float32"), decimals=-2),
    "round(float32,decimals-overflowing)": lambda lib: lib.round(T(lib, [1.5, 0.0]),
                                                                 decimals=40),
    "round(float64,decimals=20)": lambda lib: lib.round(T(lib, [1.23456789, 1e300], "float64"),
                                                        decimals=20),
    "round(halves)": lambda lib: lib.round(T(lib, [0.5, 1.5, 2.5, -0.5, -2.5])),
    "sign(nan,-0.0)": lambda lib: lib.sign(T(lib, [float("nan"), -0.0, 0.0, -3.0])),
    "atan2(int,int)": lambda lib: lib.atan2(T(lib, [1, 2]), T(lib, [3, -1])),
    "atan2(int32,float16-0d)": lambda lib: lib.atan2(T(lib, [1, 2], "int32"),
                                                     T(lib, 2.0, "float16")),
    "atan2(signed zeros)": lambda lib: lib.atan2(T(lib, [0.0, -0.0, 0.0, -0.0]),
                                                 T(lib, [0.0, 0.0, -0.0, -1.0])),
    "fmod(int,int)": lambda lib: lib.fmod(T(lib, [5, -5, 7]), T(lib, [2, 2, -3])),
    "fmod(int,float)": lambda lib: lib.fmod(T(lib, [5, -5, 7]), 2.5),
    "fmod(float,0)": lambda lib: lib.fmod(T(lib, [5.0, -1.0]), 0),
    "fmod(int,float32-0d)": lambda lib: T(lib, [5, -5]).fmod(T(lib, 2.5)),
    "addcmul(int,value=2.5)": lambda lib: lib.addcmul(T(lib, [1, 2, 3]), T(lib, [1, 2, 3]),
                                                      T(lib, [1, 2, 3]), value=2.5),
    "addcmul(int,value=-2.5)": lambda lib: lib.addcmul(T(lib, [1, 2, 3]), T(lib, [1, 2, 3]),
                                                       T(lib, [1, 2, 3]), value=-2.5),
    "addcmul(float32,int,int)": lambda lib: lib.addcmul(lib.ones(3), T(lib, [1, 2, 3]),
                                                        T(lib, [1, 2, 3])),
    "addcmul(float32,float64,float32)": lambda lib: lib.addcmul(
        lib.ones(3), lib.ones(3, dtype=lib.float64), lib.ones(3)),
    "addcmul(float32,float64-0d)": lambda lib: lib.addcmul(
        lib.ones(3), lib.ones((), dtype=lib.float64), lib.ones(3)),
    "addcdiv(int,int,float)": lambda lib: lib.addcdiv(T(lib, [1, 2]), T(lib, [1, 2]),
                                                      T(lib, [4.0, 2.0])),
    "addcdiv(float,bool,float)": lambda lib: lib.addcdiv(lib.ones(2), T(lib, [True, False]),
                                                         T(lib, [2.0, 4.0])),
    "lerp(float16)": lambda lib: lib.lerp(T(lib, [1.0, 2.0], "float16"),
                                          T(lib, [3.0, -1.0], "float16"), 0.3),
    "lerp(int-weight)": lambda lib: lib.lerp(T(lib, [1.0, 2.0]), T(lib, [3.0, -1.0]), 2),
    "lerp(bool-weight)": lambda lib: lib.lerp(T(lib, [1.0, 2.0]), T(lib, [3.0, -1.0]), True),
    "lerp(float64-0d-weight)": lambda lib: lib.lerp(T(lib, [1.0, 2.0]), T(lib, [3.0, -1.0]),
                                                    T(lib, 0.3, "float64")),
    "lerp(int-0d-weight)": lambda lib: lib.lerp(T(lib, [1.0, 2.0]), T(lib, [3.0, -1.0]),
                                                T(lib, 1)),
    "lerp(broadcast)": lambda lib: lib.lerp(lib.ones(2, 1), lib.zeros(3), lib.ones(4, 1, 1) / 4),
    "nan_to_num(float32)": lambda lib: lib.nan_to_num(
        T(lib, [float("nan"), float("inf"), -float("inf"), 1.0])),
    "nan_to_num(float16,overflowing)": lambda lib: lib.nan_to_num(
        T(lib, [float("nan"), float("inf"), -float("inf")], "float16"), nan=3, posinf=1e10),
    "nan_to_num(int,nan=2.5)": lambda lib: lib.nan_to_num(T(lib, [1, 2]), nan=2.5),
    "logit(int,eps)": lambda lib: lib.logit(T(lib, [1, 0, 2]), 0.1),
    "logit(float32,eps)": lambda lib: T(lib, [0.0, 1.0, -0.5, 0.5, 0.05]).logit(eps=0.1),
    "logit(eps>0.5)": lambda lib: lib.logit(T(lib, [0.0, 0.5, 1.0, 1.5]), eps=0.7),
    "logit(negative-eps)": lambda lib: lib.logit(T(lib, [0.0, 0.5, 1.0, 1.5]), eps=-0.1),
    "logical_and(int,float)": lambda lib: lib.logical_and(T(lib, [0, 1, 2, 0]),
                                                          T(lib, [0.0, 1.0, 0.0, 2.0])),
    "logical_or(int,bool)": lambda lib: T(lib, [0, 1, 2, 0]).logical_or(
        T(lib, [True, False, False, False])),
    "logical_xor(broadcast,nan)": lambda lib: lib.logical_xor(
        T(lib, [[0], [1]]), T(lib, [0.0, 1.5, float("nan")])),
    "isinf(float16)": lambda lib: lib.isinf(T(lib, [float("inf"), 6e4, 1.0], "float16")),
    "clamp_min(int,float)": lambda lib: lib.clamp_min(T(lib, [1, 2]), 1.5),
    "clamp_min(int,float32-0d)": lambda lib: lib.clamp_min(T(lib, [1, 2]), T(lib, 1.5)),
    "clamp_max(uint8,int)": lambda lib: T(lib, [1, 200], "uint8").clamp_max(100),
    "clamp(int,tensor-bounds)": lambda lib: lib.clamp(T(lib, [1, 5, 9]), T(lib, [2, 2, 2]),
                                                      T(lib, [4.5, 4.5, 4.5])),
    "maximum(int,bool)": lambda lib: lib.maximum(T(lib, [1, -2]), T(lib, [True, False])),
    "where(1.0,0.0)": lambda lib: lib.where(T(lib, [True, False]), 1.0, 0.0),
    "where(1,0)": lambda lib: lib.where(T(lib, [True, False]), 1, 0),
    "where(True,2.5)": lambda lib: lib.where(T(lib, [True, False]), True, 2.5),
    "where(int-tensor,2.5)": lambda lib: lib.where(T(lib, [True, False]), T(lib, [1, 2]), 2.5),
    "int**negative-int-tensor": lambda lib: T(lib, [1, 2, -1, -1, 0, -2, 3]) ** T(
        lib, [-1, -1, -1, -2, -1, -3, 0]),
    "int**negative-int-0d": lambda lib: T(lib, [1, 2, -1]) ** T(lib, -1),
    "int8**negative-int8": lambda lib: T(lib, [2, -1], "int8") ** T(lib, [-1, -1], "int8"),
    "number**negative-int-tensor": lambda lib: 2 ** T(lib, [-1, 2]),
    "-1**int-tensor": lambda lib: (-1) ** T(lib, [-1, -2, 3]),
    "bool**int": lambda lib: T(lib, [True, False]) ** 2,
    "bool**True": lambda lib: T(lib, [True, False]) ** True,
    "bool**False": lambda lib: T(lib, [True, False]) ** False,
    "int**bool": lambda lib: 2 ** T(lib, [True, False]),
    "bool%int": lambda lib: T(lib, [True, False]) % 2,
    "float**negative-int-tensor": lambda lib: T(lib, [2.0, 4.0]) ** T(lib, [-1, -2]),
}


@pytest.mark.parametrize("fn", labelled_params(DTYPE_CASES))
def test_dtype_and_values_match_torch(fn):
    torch = pytest.importorskip("torch")
    ours, theirs = fn(tapegrad), fn(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    rtol = {torch.float16: 1e-3, torch.float32: 1e-6}.get(theirs.dtype, 1e-12)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, equal_nan=True)


def test_where_with_only_a_condition_lists_indices_like_torch():
    def scenario(lib):
        return {"2d": lib.where(T(lib, [[0.0, 1.5], [2.0, 0.0]])),
                "bool": lib.where(T(lib, [False, True, True])),
                "0d-true": lib.where(T(lib, True)), "0d-zero": lib.where(T(lib, 0)),
                "empty": lib.where(lib.zeros(0, 2))}
    compare_scenario(scenario)


# ---- errors ----------------------------------------------------------------------------------

def Z(lib, *shape, dtype="float32"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


ERRORS = {
    **{f"{name}(bool)": (lambda lib, name=name: getattr(lib, name)(T(lib, [True])))
       for name in ROUNDING + ["frac"]},
    **{f"frac({dtype})": (lambda lib, dtype=dtype: T(lib, [1], dtype).frac())
       for dtype in ("int64", "uint8")},
    "round(int,decimals=1)": lambda lib: lib.round(T(lib, [1, 2]), decimals=1),
    "round(int,decimals=0)": lambda lib: lib.round(T(lib, [1, 2]), decimals=0),
    "round(bool,decimals=1)": lambda lib: lib.round(T(lib, [True]), decimals=1),
    "fmod(int,0)": lambda lib: lib.fmod(T(lib, [5, -5]), 0),
    "fmod(int,int-with-0)": lambda lib: lib.fmod(T(lib, [5, -5]), T(lib, [2, 0])),
    "fmod(number,tensor)": lambda lib: lib.fmod(2.0, Z(lib, 2)),
    "fmod(tensor,None)": lambda lib: lib.fmod(Z(lib, 2), None),
    **{label: (lambda lib, fn=fn: fn(T(lib, [True]), T(lib, [True]))) for label, fn in {
        "fmod(bool,bool)": lambda a, b: a.fmod(b), "remainder(bool,bool)": lambda a, b: a % b,
        "floor_divide(bool,bool)": lambda a, b: a // b, "pow(bool,bool)": lambda a, b: a ** b,
        "div(bool,bool,trunc)": lambda a, b: a.div(b, rounding_mode="trunc")}.items()},
    "fmod(bool,True)": lambda lib: lib.fmod(T(lib, [True]), True),
    "remainder(True,bool)": lambda lib: lib.remainder(True, T(lib, [True])),
    "pow(True,bool)": lambda lib: True ** T(lib, [True]),
    "int//0": lambda lib: T(lib, [5, -5]) // T(lib, [0, 2]),
    "div(int,0,trunc)": lambda lib: lib.div(T(lib, [5]), 0, rounding_mode="trunc"),
    **{f"lerp(float32,{dtype}-end)": (lambda lib, dtype=dtype: lib.lerp(
        Z(lib, 2), Z(lib, 2, dtype=dtype), 0.5))
       for dtype in ("float16", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")},
    "lerp(float64-0d,float32-end)": lambda lib: lib.lerp(T(lib, 1.0, "float64"), Z(lib, 2),
                                                                 0.5),
    "lerp(int32-weight)": lambda lib: lib.lerp(Z(lib, 2), Z(lib, 2), Z(lib, 2, dtype="int32")),
    "lerp(float64-weight)": lambda lib: lib.lerp(Z(lib, 2), Z(lib, 2),
                                                 Z(lib, 2, dtype="float64")),
    "lerp(int,number)": lambda lib: lib.lerp(T(lib, [1, 2]), T(lib, [1, 2]), 0.5),
    "lerp(int,tensor)": lambda lib: lib.lerp(T(lib, [1, 2]), T(lib, [1, 2]), T(lib, [1, 2])),
    "lerp(int,float-end)": lambda lib: lib.lerp(T(lib, [1, 2]), Z(lib, 2), 0.5),
    "lerp(number-end)": lambda lib: lib.lerp(Z(lib, 2), 2.0, 0.5),
    "lerp(number-input)": lambda lib: lib.lerp(1.0, Z(lib, 2), 0.5),
    "lerp(None-weight)": lambda lib: lib.lerp(Z(lib, 2), Z(lib, 2), None),
    "lerp-broadcast": lambda lib: lib.lerp(Z(lib, 2), Z(lib, 3), 0.5),
    "addcdiv(int,int)": lambda lib: lib.addcdiv(Z(lib, 2), T(lib, [1, 2]), T(lib, [1, 2])),
    "addcdiv(bool,int)": lambda lib: lib.addcdiv(Z(lib, 2), T(lib, [True]), T(lib, [1, 2])),
    "addcmul(number)": lambda lib: lib.addcmul(Z(lib, 2), 2.0, Z(lib, 2)),
    "addcdiv(number-input)": lambda lib: lib.addcdiv(1.0, Z(lib, 2), Z(lib, 2)),
    "addcmul(positional-value)": lambda lib: lib.addcmul(Z(lib, 2), Z(lib, 2), Z(lib, 2), 2),
    "addcmul-broadcast": lambda lib: lib.addcmul(Z(lib, 2), Z(lib, 3), Z(lib, 2)),
    "atan2(number)": lambda lib: lib.atan2(Z(lib, 2), 2.0),
    "atan2(number-input)": lambda lib: lib.atan2(2.0, Z(lib, 2)),
    "maximum(number)": lambda lib: lib.maximum(Z(lib, 2), 2),
    "minimum(bool-number)": lambda lib: lib.minimum(Z(lib, 2), True),
    "maximum(number-input)": lambda lib: lib.maximum(1.5, Z(lib, 2)),
    "logical_and(number)": lambda lib: lib.logical_and(Z(lib, 2), 2),
    "logical_xor(number)": lambda lib: lib.logical_xor(T(lib, [1]), 1),
    "logical_or(number-input)": lambda lib: lib.logical_or(1.0, Z(lib, 2)),
    "clamp(tensor,number)": lambda lib: lib.clamp(Z(lib, 2), Z(lib, 2), 2.0),
    "clip(number,tensor)": lambda lib: lib.clip(Z(lib, 2), 0.0, Z(lib, 2)),
    "clamp(number-input)": lambda lib: lib.clamp(2.0, 1.0),
    "clip(no-bounds)": lambda lib: lib.clip(Z(lib, 2)),
    "clamp_min(None)": lambda lib: lib.clamp_min(Z(lib, 2), None),
    "clamp_min(number-input)": lambda lib: lib.clamp_min(2.0, Z(lib, 2)),
    "clamp_max-broadcast": lambda lib: lib.clamp_max(Z(lib, 2), Z(lib, 3)),
    "clamp-broadcast": lambda lib: lib.clamp(Z(lib, 2), Z(lib, 3), Z(lib, 2)),
    "where-broadcast-number": lambda lib: lib.where(Z(lib, 3) > 0, Z(lib, 2), 1.0),
    "floor(number)": lambda lib: lib.floor(2.5),
    "exp(number)": lambda lib: lib.exp(2.5),
}


# Known differences, kept visible as strict xfails: (case, reason).
ERROR_BUGS = {
    "clamp(keywords,tensor-and-number)": (
        lambda lib: lib.clamp(Z(lib, 2), min=Z(lib, 2), max=2.0),
        "torch's message spells keyword arguments as given (max=float, min=Tensor); tapegrad "
        "spells every argument as positional"),
    "round(decimals=None)": (
        lambda lib: lib.round(Z(lib, 2), decimals=None),
        "tapegrad takes decimals=None as no decimals; torch raises TypeError"),
}


def error_cases():
    params = labelled_params(ERRORS)
    for label, (fn, reason) in ERROR_BUGS.items():
        params.append(pytest.param(fn, id=label, marks=pytest.mark.xfail(
            strict=True, reason="bug: " + reason)))
    return params


@pytest.mark.parametrize("fn", error_cases())
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


# ---- graphs ---------------------------------------------------------------------------------

def leaf(lib, values, dtype="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)


def test_lerp_with_a_0d_weight_of_another_dtype_matches_torch():
    # torch accepts a 0-d weight of any dtype and gives it a gradient in its own dtype
    def scenario(lib):
        start, end = leaf(lib, [1.0, 2.0], "float32"), leaf(lib, [3.0, -1.0], "float32")
        weight = leaf(lib, 0.75)
        result = lib.lerp(start, end, weight)
        result.backward(lib.tensor([1.0, 2.0]))
        return {"result": result, "grad_fn": grad_fn_name(result),
                "grads": (start.grad, end.grad, weight.grad)}
    compare_scenario(scenario)


def test_tests_and_logical_ops_have_no_graph_like_torch():
    def scenario(lib):
        x = leaf(lib, [1.0, float("nan"), float("inf")])
        results = (lib.isnan(x), x.isinf(), x.isfinite(), x.logical_not(),
                   lib.logical_and(x, x), lib.logical_xor(x, x * 2))
        return {"dtypes": [str(r.dtype) for r in results],
                "requires_grad": [r.requires_grad for r in results],
                "grad_fn": [grad_fn_name(r) for r in results]}
    compare_scenario(scenario)


def test_rounding_of_integers_copies_like_torch():
    def scenario(lib):
        x = T(lib, [1, -2, 3])
        results = [lib.floor(x), x.ceil(), lib.round(x), x.trunc(), x.fix(), lib.sign(x),
                   lib.nan_to_num(x)]
        for result in results:
            result.add_(1)  # a copy, not a view: x keeps its values
        return {"x": x, "results": tuple(results)}
    compare_scenario(scenario)


def test_second_derivatives_of_unary_math_match_torch():
    # the derivative formulas are themselves differentiable: d2/dx2 against torch's
    names = FLOAT_FUNCTIONS + ["sinh", "rsqrt"]

    def scenario(lib):
        observed = {}
        for name in names:
            x = leaf(lib, [0.3, 0.55, 0.7])
            if name == "acosh":
                x = leaf(lib, [1.3, 1.55, 1.7])
            getattr(lib, name)(x).sum().backward(create_graph=True)
            first, x.grad = x.grad, None
            first.sum().backward()
            observed[name] = (first, x.grad)
        return observed
    compare_scenario(scenario)


@pytest.mark.parametrize("create_graph", [False, True])
def test_logit_gradient_outside_its_range_matches_torch(create_graph):
    # torch computes a negative eps's gradient by two formulas, depending on create_graph
    def scenario(lib):
        observed = {}
        for eps in (None, -0.1, 0.2, 0.7):
            x = leaf(lib, [-0.5, -0.05, 0.0, 0.1, 0.3, 0.8, 1.0, 1.05, 1.5])
            lib.logit(x, eps).backward(lib.ones(9, dtype=lib.float64), create_graph=create_graph)
            observed[f"eps={eps}"] = x.grad.detach()
        return observed
    compare_scenario(scenario)

