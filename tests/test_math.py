"""The pointwise math family beyond its op_db rows (tests/op_db_math.py): accuracy of the
special functions on wide ranges, special values, operators with a Python number on the left,
in-place operators, torch's second names, integer ops, and errors, all against torch."""
import math

import numpy as np
import pytest

import tapegrad
from compare import same, same_error, torch_or_skip

_NAN, _INF = float("nan"), float("inf")


def outcome(lib, fn):
    """What fn(lib) gives: its (nested) results, or ("error", type, text)."""
    try:
        return described(fn(lib))
    except Exception as error:  # noqa: BLE001 - the error is the outcome
        return "error", type(error).__name__, str(error)


def described(result):
    if isinstance(result, (tuple, list)):
        return [described(item) for item in result]
    if isinstance(result, (bool, int, float, str)):
        return result
    return [str(result.dtype), result.requires_grad, result.detach().numpy()]


def assert_same(ours, theirs):
    """Equal outcomes; float arrays to 1e-12 relative (float32: 2e-6, torch computes in
    float32 where tapegrad rounds a float64 result)."""
    if isinstance(theirs, np.ndarray):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        if theirs.dtype.kind == "f":
            rtol = 2e-6 if theirs.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * 1e-3)
        else:
            np.testing.assert_array_equal(ours, theirs)
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), (ours, theirs)
        for mine, torch_value in zip(ours, theirs):
            assert_same(mine, torch_value)
    else:
        assert type(ours) is type(theirs) and ours == theirs


def assert_same_outcome(fn):
    torch = torch_or_skip()
    ours, theirs = outcome(tapegrad, fn), outcome(torch, fn)
    if isinstance(theirs, tuple) and theirs[0] == "error":
        assert ours == theirs
    else:
        assert not (isinstance(ours, tuple) and ours[0] == "error"), ours
        assert_same(ours, theirs)


def relative_errors(ours, exact):
    ours, exact = np.asarray(ours, np.float64), np.asarray(exact, np.float64)
    return np.abs(ours - exact) / np.where(exact == 0, 1.0, np.abs(exact))


def float64(values):
    return tapegrad.tensor(np.asarray(values, np.float64))


# ---- accuracy on wide ranges -----------------------------------------------------------------

def _mpmath():
    return pytest.importorskip("mpmath")


def _exact(function, values):
    mpmath = _mpmath()
    mpmath.mp.dps = 40
    return np.array([float(function(mpmath.mpf(float(v)))) for v in values])


_POSITIVE = np.concatenate([np.geomspace(1e-12, 1e6, 300), np.linspace(0.5, 3.0, 101),
                            1 + np.linspace(-1e-3, 1e-3, 21), 2 + np.linspace(-1e-3, 1e-3, 21)])
_NEGATIVE = -np.linspace(0.03, 30.0, 300) + 0.0137


def test_lgamma_is_accurate_to_a_few_ulps_for_positive_arguments():
    mpmath = _mpmath()
    exact = _exact(lambda v: mpmath.log(mpmath.gamma(v)), _POSITIVE)
    assert relative_errors(tapegrad.lgamma(float64(_POSITIVE)).numpy(), exact).max() < 1e-15


def test_lgamma_of_negative_arguments_is_accurate_to_1e_13():
    # by reflection: absolute accuracy, so relative near lgamma's roots on the negative axis
    mpmath = _mpmath()
    exact = _exact(lambda v: mpmath.log(abs(mpmath.gamma(v))), _NEGATIVE)
    ours = tapegrad.lgamma(float64(_NEGATIVE)).numpy()
    assert np.abs(ours - exact).max() < 1e-13 * np.abs(exact).max()


def test_digamma_matches_mpmath_also_near_its_positive_root():
    # torch's recurrence cancels there: its relative error near 1.4616 reaches 1e0
    mpmath = _mpmath()
    root = 1.4616321449683622
    x = np.concatenate([_POSITIVE, root + np.linspace(-1e-9, 1e-9, 41), [root + 0.2499]])
    exact = _exact(mpmath.digamma, x)
    assert relative_errors(tapegrad.digamma(float64(x)).numpy(), exact).max() < 1e-14
    negative = _exact(mpmath.digamma, _NEGATIVE)  # by reflection: absolutely accurate
    ours = tapegrad.digamma(float64(_NEGATIVE)).numpy()
    assert np.abs(ours - negative).max() < 1e-13 * np.abs(negative).max()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 9])
def test_polygamma_matches_mpmath(n):
    mpmath = _mpmath()
    x = np.concatenate([np.geomspace(1e-6, 1e4, 120), _NEGATIVE[::5]])
    exact = _exact(lambda v: mpmath.polygamma(n, v), x)
    ours = tapegrad.polygamma(n, float64(x)).numpy()
    away_from_roots = np.abs(exact) > 1e-3
    assert relative_errors(ours[away_from_roots], exact[away_from_roots]).max() < 1e-12


def test_igamma_and_igammac_match_mpmath_on_wide_ranges():
    mpmath = _mpmath()
    mpmath.mp.dps = 40
    rng = np.random.default_rng(7)
    a = 10 ** rng.uniform(-6, 3.5, 150)
    x = a * 10 ** rng.uniform(-2, 0.7, 150)
    lower = np.array([float(mpmath.gammainc(p, 0, q, regularized=True)) for p, q in zip(a, x)])
    upper = np.array([float(mpmath.gammainc(p, q, mpmath.inf, regularized=True))
                      for p, q in zip(a, x)])
    assert relative_errors(tapegrad.igamma(float64(a), float64(x)).numpy(), lower).max() < 1e-12
    assert relative_errors(tapegrad.igammac(float64(a), float64(x)).numpy(), upper).max() < 1e-12


def test_erfinv_inverts_erf_to_a_few_ulps_up_to_the_last_float_below_one():
    mpmath = _mpmath()
    y = np.concatenate([np.linspace(-0.999, 0.999, 401), 1 - np.geomspace(2 ** -53, 0.5, 100),
                        np.geomspace(1e-300, 0.1, 50)])
    exact = _exact(mpmath.erfinv, y)
    assert relative_errors(tapegrad.erfinv(float64(y)).numpy(), exact).max() < 1e-14


def test_i0_matches_mpmath_across_its_series_and_asymptotic_pieces():
    mpmath = _mpmath()
    x = np.concatenate([np.linspace(-60.0, 60.0, 481), [19.999, 20.0, 20.001, 700.0]])
    exact = _exact(lambda v: mpmath.besseli(0, v), x)
    assert relative_errors(tapegrad.i0(float64(x)).numpy(), exact).max() < 3e-15


def test_special_functions_agree_with_torch_in_float32():
    torch = torch_or_skip()
    x = np.linspace(0.05, 12.0, 400, dtype=np.float32)
    for name in ("lgamma", "digamma", "i0"):
        ours = getattr(tapegrad, name)(tapegrad.tensor(x)).numpy()
        theirs = getattr(torch, name)(torch.tensor(x)).numpy()
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6, err_msg=name)


# ---- special values ------------------------------------------------------------------------------

_SPECIAL = [0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 1e-300, 1e300, _INF, -_INF, _NAN]


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfinv", "sinc", "angle", "sgn",
                                  "deg2rad", "rad2deg", "signbit", "isposinf", "isneginf",
                                  "isreal"])
def test_special_values_match_torch(name):
    assert_same_outcome(lambda lib: getattr(lib, name)(lib.tensor(_SPECIAL,
                                                                 dtype=lib.float64)))


def test_incomplete_gamma_boundaries_match_torch():
    a = [0.0, 0.0, 1.0, 1.0, _INF, _INF, 2.0, -1.0, 1.0, _NAN, 3.0]
    x = [0.0, 1.0, 0.0, _INF, 1.0, _INF, _NAN, 1.0, -1.0, 1.0, 0.0]
    for name in ("igamma", "igammac"):
        assert_same_outcome(lambda lib: getattr(lib, name)(
            lib.tensor(a, dtype=lib.float64), lib.tensor(x, dtype=lib.float64)))


def test_polygamma_at_its_poles_and_infinities_matches_torch_where_torch_is_exact():
    for n in (2, 3):
        assert_same_outcome(lambda lib: lib.polygamma(
            n, lib.tensor([0.0, -0.0, -1.0, -2.0, -2.5, _NAN], dtype=lib.float64)))
    assert_same_outcome(lambda lib: lib.polygamma(1, lib.tensor([0.0, 1e-300, _INF])))


def test_polygamma_where_torch_rounds_a_pole_gives_torch_answer():
    # torch: polygamma(1, -2) = pi^2 / sin(-2 pi)^2 ~ 1.6e32, and nan where pi x overflows
    # (float32 -3e38); polygamma(2, inf) nan, polygamma(2, -inf) -inf
    for dtype in ("float64", "float32"):
        assert_same_outcome(lambda lib: lib.polygamma(1, lib.tensor(
            [-1.0, -2.0, -1e30, -3e38, -_INF], dtype=getattr(lib, dtype))))
    assert_same_outcome(lambda lib: lib.polygamma(2, lib.tensor([_INF, -_INF, -1e300])))


def test_i0_at_inf_is_inf_where_torch_gives_nan():
    assert tapegrad.i0(float64([_INF, -_INF])).tolist() == [_INF, _INF]


def test_ldexp_gradient_for_negative_integer_exponents_is_the_true_one():
    # torch computes 2 ** other in integers there and gets 0
    x = tapegrad.tensor([1.0, 3.0], dtype=tapegrad.float64, requires_grad=True)
    tapegrad.ldexp(x, tapegrad.tensor([-2, 3])).sum().backward()
    assert x.grad.tolist() == [0.25, 8.0]


def test_i0_overflows_where_torch_does():
    assert_same_outcome(lambda lib: lib.i0(lib.tensor([709.0, 710.0, -710.0, _NAN],
                                                      dtype=lib.float64)))


def test_lgamma_near_its_positive_roots_keeps_relative_accuracy():
    torch = torch_or_skip()
    x = np.concatenate([1 + np.geomspace(1e-12, 1e-2, 30), 2 - np.geomspace(1e-12, 1e-2, 30)])
    np.testing.assert_allclose(tapegrad.lgamma(float64(x)).numpy(),
                               torch.lgamma(torch.tensor(x)).numpy(), rtol=1e-14)


# ---- operators with a number on the left, in place, integer ops ----------------------------------

_REFLECTED = {
    "and": lambda n, t: n & t, "or": lambda n, t: n | t, "xor": lambda n, t: n ^ t,
    "pow": lambda n, t: n ** t, "sub": lambda n, t: n - t, "add": lambda n, t: n + t,
    "mul": lambda n, t: n * t, "truediv": lambda n, t: n / t, "floordiv": lambda n, t: n // t,
    "mod": lambda n, t: n % t, "lshift": lambda n, t: n << t, "rshift": lambda n, t: n >> t,
}
_TENSORS = {
    "bool": lambda lib: lib.tensor([True, False, True]),
    "uint8": lambda lib: lib.tensor([1, 2, 7], dtype=lib.uint8),
    "int64": lambda lib: lib.tensor([1, -2, 3]),
    "int32": lambda lib: lib.tensor([3, 1, 2], dtype=lib.int32),
    "float32": lambda lib: lib.tensor([1.5, -2.0, 4.0]),
    "float64-grad": lambda lib: lib.tensor([1.5, -2.0, 4.0], dtype=lib.float64,
                                           requires_grad=True),
}


@pytest.mark.parametrize("number", [5, 2.5, True], ids=["int", "float", "bool"])
@pytest.mark.parametrize("tensor", list(_TENSORS))
@pytest.mark.parametrize("operator", list(_REFLECTED))
def test_operators_with_a_number_on_the_left_match_torch(operator, tensor, number):
    assert_same_outcome(lambda lib: _REFLECTED[operator](number, _TENSORS[tensor](lib)))


def test_reflected_operators_record_torch_nodes():
    torch = torch_or_skip()

    def nodes(lib):
        t = lib.tensor([1.5, -2.0, 4.0], requires_grad=True)
        return [type(r.grad_fn).__name__ for r in (2 ** t, 1 - t, 3 / t, 7 // t, 7 % t)]
    assert nodes(tapegrad) == nodes(torch)


_IN_PLACE = {
    "iand": lambda t, v: t.__iand__(v), "ior": lambda t, v: t.__ior__(v),
    "ixor": lambda t, v: t.__ixor__(v), "ilshift": lambda t, v: t.__ilshift__(v),
    "irshift": lambda t, v: t.__irshift__(v), "ipow": lambda t, v: t.__ipow__(v),
    "ifloordiv": lambda t, v: t.__ifloordiv__(v), "imod": lambda t, v: t.__imod__(v),
}


@pytest.mark.parametrize("value", [3, 2.5], ids=["int", "float"])
@pytest.mark.parametrize("tensor", ["int64", "uint8", "float32", "bool"])
@pytest.mark.parametrize("operator", list(_IN_PLACE))
def test_in_place_operators_write_into_the_tensor_as_torch(operator, tensor, value):
    def scenario(lib):
        target = _TENSORS[tensor](lib)
        result = _IN_PLACE[operator](target, value)
        assert result is target
        return target
    assert_same_outcome(scenario)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64"])
def test_shifts_by_any_amount_match_torch(dtype):
    values, amounts = [1, -1, 3, 100, -128, 0, 7], [0, 1, 7, 8, 31, 63, 64]
    for shift in (lambda a, b: a << b, lambda a, b: a >> b, lambda a, b: a.bitwise_left_shift(b),
                  lambda a, b: a.bitwise_right_shift(b + 200)):
        assert_same_outcome(lambda lib: shift(
            lib.tensor(values).to(getattr(lib, dtype)),
            lib.tensor(amounts).to(getattr(lib, dtype))))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
def test_gcd_and_lcm_match_torch(dtype):
    a, b = [12, -18, 0, 0, 100, 7, 2 ** 6], [8, 27, 6, 0, -75, 0, 3 ** 3]
    for name in ("gcd", "lcm"):
        assert_same_outcome(lambda lib: getattr(lib, name)(
            lib.tensor(a).to(getattr(lib, dtype)), lib.tensor(b).to(getattr(lib, dtype))))


def test_lcm_wraps_around_on_overflow_as_torch():
    assert_same_outcome(lambda lib: lib.lcm(lib.tensor([2 ** 40, 200]),
                                            lib.tensor([3 ** 25, 3])))


# ---- dtypes, graphs and variants ----------------------------------------------------------------

_INTEGER_INPUTS = {
    "copysign": lambda lib, a, b: lib.copysign(a, b), "xlogy": lambda lib, a, b: lib.xlogy(a, b),
    "ldexp": lambda lib, a, b: lib.ldexp(a, b), "float_power": lambda lib, a, b:
    lib.float_power(a, b), "fmax": lambda lib, a, b: lib.fmax(a, b),
    "heaviside": lambda lib, a, b: lib.heaviside(a, b), "floor_divide": lambda lib, a, b:
    lib.floor_divide(a, b), "true_divide": lambda lib, a, b: lib.true_divide(a, b),
    "sinc": lambda lib, a, b: lib.sinc(a), "lgamma": lambda lib, a, b: lib.lgamma(a),
    "digamma": lambda lib, a, b: lib.digamma(a), "i0": lambda lib, a, b: lib.i0(a),
    "erfinv": lambda lib, a, b: lib.erfinv(a - 1), "angle": lambda lib, a, b: lib.angle(-a),
    "deg2rad": lambda lib, a, b: lib.deg2rad(a), "mvlgamma": lambda lib, a, b:
    lib.mvlgamma(a + 3, 2), "polygamma": lambda lib, a, b: lib.polygamma(2, a),
    "signbit": lambda lib, a, b: lib.signbit(-a), "isclose": lambda lib, a, b:
    lib.isclose(a, b, rtol=0.1, atol=1), "frexp": lambda lib, a, b: lib.frexp(a)[0],
}


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
@pytest.mark.parametrize("name", list(_INTEGER_INPUTS))
def test_integer_and_bool_inputs_give_torch_dtypes_and_errors(name, dtype):
    assert_same_outcome(lambda lib: _INTEGER_INPUTS[name](
        lib, lib.tensor([1, 0, 3]).to(getattr(lib, dtype)),
        lib.tensor([2, 1, 0]).to(getattr(lib, dtype))))


def test_float_power_of_float32_copies_to_float64_as_torch():
    torch = torch_or_skip()

    def graph(lib):
        x = lib.tensor([2.0, 3.0], requires_grad=True)
        out = []
        for result in (lib.float_power(x, lib.tensor([3.0])), lib.float_power(x, 2),
                       lib.float_power(3, x)):
            out.append((str(result.dtype), type(result.grad_fn).__name__,
                        [type(n).__name__ for n, _ in result.grad_fn.next_functions]))
        return out
    assert graph(tapegrad) == graph(torch)


def test_not_implemented_nodes_keep_edges_only_to_inputs_that_require_grad():
    torch = torch_or_skip()

    def graph(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([2.0, 0.0])
        results = (lib.floor_divide(a, b), lib.floor_divide(b, a), a // 2, 7 // a,
                   lib.heaviside(a, b), lib.heaviside(b, a), 7 % a)
        return [(r.grad_fn.name(), len(r.grad_fn.next_functions)) for r in results]
    assert graph(tapegrad) == graph(torch)


def test_frexp_returns_torch_named_tuple():
    same(lambda lib: repr(lib.frexp(lib.tensor([0.0, 1.0, -3.0, 1e-40]))))


def test_accessors_of_a_real_tensor_return_the_tensor_itself():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        for name in ("positive", "real", "conj", "conj_physical", "resolve_conj", "resolve_neg"):
            assert getattr(lib, name)(x) is x, name
        assert x.real is x and +x is x and not x.is_conj() and not lib.is_neg(x)


@pytest.mark.parametrize("name, args", [
    ("lgamma_", ()), ("digamma_", ()), ("polygamma_", (2,)), ("mvlgamma_", (2,)),
    ("erfinv_", ()), ("i0_", ()), ("sinc_", ()), ("deg2rad_", ()), ("rad2deg_", ()),
    ("sgn_", ()), ("copysign_", (-1.0,)), ("hypot_", ("tensor",)), ("xlogy_", (2.0,)),
    ("float_power_", (2,)), ("floor_divide_", (2,)), ("true_divide_", (4,)),
    ("heaviside_", ("tensor",)), ("nextafter_", ("tensor",)), ("ldexp_", ("tensor",)),
    ("igamma_", ("tensor",)), ("igammac_", ("tensor",)), ("conj_physical_", ()),
])
def test_in_place_variants_match_torch(name, args):
    def scenario(lib):
        for dtype in (lib.float64, lib.float32):
            x = lib.tensor([0.5, 1.5, 2.25], dtype=dtype)
            version = x._version
            values = [lib.tensor([0.75, -1.0, 2.0], dtype=dtype) if a == "tensor" else a
                      for a in args]
            result = getattr(x, name)(*values)
            assert result is x
            yield x.clone(), x._version - version
    assert_same_outcome(lambda lib: tuple(scenario(lib)))


_ALIASES = ["greater", "greater_equal", "less", "less_equal", "not_equal", "arctan2", "clip",
            "fix", "absolute", "negative", "multiply", "divide", "subtract", "true_divide",
            "floor_divide", "arccos", "arcsinh", "sgn", "float_power", "xlogy", "copysign"]


@pytest.mark.parametrize("name", _ALIASES)
def test_torch_names_exist_as_functions_and_methods(name):
    torch = torch_or_skip()
    assert hasattr(tapegrad, name) == hasattr(torch, name)
    assert hasattr(tapegrad.Tensor, name) == hasattr(torch.Tensor, name)
    assert hasattr(tapegrad.Tensor, name + "_") == hasattr(torch.Tensor, name + "_")


def test_comparison_aliases_give_the_comparisons():
    same(lambda lib: [getattr(lib.tensor([1, 2, 3]), name)(2).tolist() for name in
                      ("greater", "greater_equal", "less", "less_equal", "not_equal")])


# ---- errors ------------------------------------------------------------------------------------

_ERRORS = {
    "hypot-int": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
    "hypot-number": lambda lib: lib.hypot(lib.tensor([3.0]), 4.0),
    "logaddexp-int": lambda lib: lib.logaddexp(lib.tensor([3]), lib.tensor([4])),
    "logaddexp2-bool": lambda lib: lib.logaddexp2(lib.tensor([True]), lib.tensor([True])),
    "nextafter-int": lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
    "fmax-number": lambda lib: lib.fmax(lib.tensor([1.0]), 2.0),
    "igamma-int": lambda lib: lib.igamma(lib.tensor([1]), lib.tensor([2])),
    "igammac-number": lambda lib: lib.igammac(lib.tensor([1.0]), 2.0),
    "gcd-float": lambda lib: lib.gcd(lib.tensor([4.0]), lib.tensor([6.0])),
    "lcm-bool": lambda lib: lib.lcm(lib.tensor([True]), lib.tensor([True])),
    "gcd-number": lambda lib: lib.gcd(lib.tensor([4]), 6),
    "lshift-float": lambda lib: lib.tensor([1.0]) << 1,
    "rshift-bool": lambda lib: lib.bitwise_right_shift(lib.tensor([True]), lib.tensor([True])),
    "rlshift-float": lambda lib: 2 << lib.tensor([1.0]),
    "and-float": lambda lib: 5 & lib.tensor([1.0]),
    "frexp-int": lambda lib: lib.frexp(lib.tensor([1])),
    "heaviside-dtypes": lambda lib: lib.heaviside(lib.tensor([1.0]), lib.tensor([1])),
    "heaviside-number": lambda lib: lib.heaviside(lib.tensor([1.0]), 0.5),
    "isclose-dtypes": lambda lib: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0],
                                                                            dtype=lib.float64)),
    "isclose-rtol": lambda lib: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0]), rtol=-1.0),
    "allclose-atol": lambda lib: lib.allclose(lib.tensor([1.0]), lib.tensor([1.0]), atol=-0.5),
    "isclose-broadcast": lambda lib: lib.isclose(lib.ones(2, 3), lib.ones(4)),
    "equal-number": lambda lib: lib.equal(lib.ones(3), 1.0),
    "polygamma-negative-n": lambda lib: lib.polygamma(-1, lib.ones(2)),
    "polygamma-float-n": lambda lib: lib.polygamma(1.5, lib.ones(2)),
    "polygamma-number": lambda lib: lib.polygamma(1, 2.0),
    "mvlgamma-p": lambda lib: lib.mvlgamma(lib.ones(2), 0),
    "mvlgamma-bool": lambda lib: lib.mvlgamma(lib.tensor([True]), 2),
    "mvlgamma-float-p": lambda lib: lib.mvlgamma(lib.ones(2), 1.5),
    "copysign-number-first": lambda lib: lib.copysign(2.0, lib.ones(2)),
    "xlogy-numbers": lambda lib: lib.xlogy(2.0, 3.0),
    "float-power-numbers": lambda lib: lib.float_power(2, 3),
    "float-power-in-place-float32": lambda lib: lib.ones(2).float_power_(2),
    "copysign-in-place-int": lambda lib: lib.tensor([2]).copysign_(lib.tensor([-1])),
    "floor-divide-by-zero": lambda lib: lib.floor_divide(lib.tensor([1]), lib.tensor([0])),
    "floor-divide-bool": lambda lib: lib.tensor([True]) // lib.tensor([True]),
    "positive-bool": lambda lib: +lib.tensor([True]),
    "imag": lambda lib: lib.ones(2).imag,
}


@pytest.mark.parametrize("name", list(_ERRORS))
def test_errors_match_torch(name):
    same_error(_ERRORS[name])


def _backward_of(fn):
    def scenario(lib):
        a = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.5, 0.5], dtype=lib.float64, requires_grad=True)
        fn(lib, a, b).sum().backward()
    return scenario


@pytest.mark.parametrize("name, fn", [
    ("igamma-input", lambda lib, a, b: lib.igamma(a, b)),
    ("igammac-input", lambda lib, a, b: lib.igammac(a, b)),
    ("floor_divide", lambda lib, a, b: lib.floor_divide(a, b)),
    ("floordiv-number", lambda lib, a, b: 7 // a),
    ("heaviside", lambda lib, a, b: lib.heaviside(a, b)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_backward_without_a_derivative_raises_as_torch(name, fn):
    same_error(_backward_of(fn))


def test_igamma_gradient_for_other_matches_torch():
    torch = torch_or_skip()

    def grads(lib):
        a = lib.tensor([0.5, 2.0, 7.5], dtype=lib.float64)
        x = lib.tensor([0.3, 2.5, 6.0], dtype=lib.float64, requires_grad=True)
        (lower,) = lib.autograd.grad(lib.igamma(a, x).sum(), x)
        (upper,) = lib.autograd.grad(lib.igammac(a, x).sum(), x)
        return lower.numpy(), upper.numpy()
    for ours, theirs in zip(grads(tapegrad), grads(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert math.isfinite(grads(tapegrad)[0][0])
