"""tapegrad.testing against torch.testing: assert_close passes and fails on the same inputs with
the same error type and text, make_tensor draws the same tensors for the same seed, and the
deprecated assert_allclose warns and compares as torch's does."""
import math
import os
import re
import warnings

import numpy as np
import pytest

import tapegrad
import tapegrad.testing


def outcome(lib, scenario):
    """"pass", or the error's type name and text, with tapegrad's class paths spelled as torch's
    (tapegrad._tensor.Tensor is torch.Tensor)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            scenario(lib)
    except Exception as error:  # every error is compared, whatever its type
        text = str(error).replace("tapegrad._tensor.Tensor", "torch.Tensor")
        return type(error).__name__, text.replace("tapegrad.", "torch.")
    return "pass"


def same_outcome(scenario):
    torch = pytest.importorskip("torch")
    assert outcome(tapegrad, scenario) == outcome(torch, scenario)


nan, inf = math.nan, math.inf

# (id, scenario(lib)): each runs on both libraries and must end the same way
SCENARIOS = [
    # numbers and bools
    ("floats equal", lambda L: L.testing.assert_close(0.1 + 0.2, 0.3)),
    ("floats differ", lambda L: L.testing.assert_close(1.0, 1.001)),
    ("zero tolerances", lambda L: L.testing.assert_close(1e-9, 1e-10, rtol=0, atol=0)),
    ("expected zero", lambda L: L.testing.assert_close(1e-3, 0.0)),
    ("ints differ", lambda L: L.testing.assert_close(3, 4)),
    ("ints within atol", lambda L: L.testing.assert_close(3, 4, rtol=0, atol=1)),
    ("complex differ", lambda L: L.testing.assert_close(1 + 1j, 1 + 1.1j)),
    ("int and float", lambda L: L.testing.assert_close(1, 1.0)),
    ("int and float unchecked", lambda L: L.testing.assert_close(1, 1.0, check_dtype=False)),
    ("nan numbers", lambda L: L.testing.assert_close(nan, nan)),
    ("nan numbers equal_nan", lambda L: L.testing.assert_close(nan, nan, equal_nan=True)),
    ("infinities", lambda L: L.testing.assert_close(inf, inf)),
    ("opposite infinities", lambda L: L.testing.assert_close(inf, -inf)),
    ("numpy scalars", lambda L: L.testing.assert_close(np.float64(1), np.float64(1.5))),
    ("numpy float32 and float", lambda L: L.testing.assert_close(np.float32(0.5), 0.5)),
    ("numpy int and int", lambda L: L.testing.assert_close(np.int32(2), 3)),
    ("bools", lambda L: L.testing.assert_close(True, False)),
    ("numpy bool", lambda L: L.testing.assert_close(np.bool_(True), False)),
    ("bools ignore tolerances", lambda L: L.testing.assert_close(True, True, rtol=1)),
    ("nones", lambda L: L.testing.assert_close(None, None)),
    ("none and number", lambda L: L.testing.assert_close(None, 1)),
    ("number and none", lambda L: L.testing.assert_close(2.0, None)),
    ("strings", lambda L: L.testing.assert_close("a", "a")),
    ("objects", lambda L: L.testing.assert_close(object, object)),
    ("only rtol", lambda L: L.testing.assert_close(1.0, 1.0, rtol=1)),
    ("only atol", lambda L: L.testing.assert_close(1.0, 1.0, atol=1)),
    ("negative rtol on numbers", lambda L: L.testing.assert_close(1.0, 1.0, rtol=-1, atol=0)),
    # tensors
    ("float32 close", lambda L: L.testing.assert_close(L.tensor([1e0, 1e-1, 1e-2]),
                                                        L.tensor([1e0, 1e-1, 1e-2]) * 1.000001)),
    ("float32 differ", lambda L: L.testing.assert_close(L.tensor([1., 2, 3]),
                                                         L.tensor([1., 4, 5]))),
    ("2-d index", lambda L: L.testing.assert_close(L.tensor([[1., 5], [2, 3]]),
                                                   L.tensor([[1., 1], [1, 3]]))),
    ("0-d tensors", lambda L: L.testing.assert_close(L.tensor(1.), L.tensor(2.))),
    ("0-d ints", lambda L: L.testing.assert_close(L.tensor(1), L.tensor(3))),
    ("0-d complex", lambda L: L.testing.assert_close(L.tensor(1 + 1j), L.tensor(1 + 2j))),
    ("0-d bools", lambda L: L.testing.assert_close(L.tensor(True), L.tensor(False))),
    ("ints", lambda L: L.testing.assert_close(L.tensor([1, 5, 2]), L.tensor([0, 1, 2]))),
    ("ints with atol", lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 4]),
                                                        atol=1, rtol=0)),
    ("ints within atol tensor", lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3]),
                                                                 atol=1, rtol=0)),
    ("big ints as float32", lambda L: L.testing.assert_close(
        L.tensor([2 ** 40 + 1]), L.tensor([2 ** 40]), atol=0.5, rtol=0)),
    ("uint8 no wrap", lambda L: L.testing.assert_close(L.tensor([1], dtype=L.uint8),
                                                       L.tensor([3], dtype=L.uint8))),
    ("uint8 within atol", lambda L: L.testing.assert_close(L.tensor([1], dtype=L.uint8),
                                                           L.tensor([3], dtype=L.uint8),
                                                           atol=2, rtol=0)),
    ("bool tensors", lambda L: L.testing.assert_close(L.tensor([True, False]),
                                                      L.tensor([True, True]))),
    ("bool tensors with tolerance", lambda L: L.testing.assert_close(
        L.tensor([True, False]), L.tensor([True, True]), atol=1, rtol=1)),
    ("complex", lambda L: L.testing.assert_close(L.tensor([1 + 2j, 3]), L.tensor([1 + 2.1j, 3]))),
    ("complex equal_nan", lambda L: L.testing.assert_close(
        L.tensor([1 + 2j, complex(nan, 0)]), L.tensor([1 + 2j, complex(nan, 0)]), equal_nan=True)),
    ("complex nan", lambda L: L.testing.assert_close(L.tensor([1 + 2j, complex(0, nan)]),
                                                     L.tensor([1 + 2j, complex(0, nan)]))),
    ("complex128", lambda L: L.testing.assert_close(
        L.tensor([1 + 2j], dtype=L.complex128), L.tensor([1 + 2.0000001j], dtype=L.complex128))),
    ("nans", lambda L: L.testing.assert_close(L.tensor([nan, 1.]), L.tensor([1., nan]))),
    ("nans equal_nan", lambda L: L.testing.assert_close(L.tensor([nan, 1.]), L.tensor([nan, 1.]),
                                                        equal_nan=True)),
    ("nan not equal by default", lambda L: L.testing.assert_close(L.tensor(nan), L.tensor(nan))),
    ("zeros expected", lambda L: L.testing.assert_close(L.tensor([0., 1.]), L.tensor([1., 0.]))),
    ("infinities tensor", lambda L: L.testing.assert_close(L.tensor([inf, 1.]),
                                                           L.tensor([inf, 1.]))),
    ("opposite infinities tensor", lambda L: L.testing.assert_close(L.tensor([inf, 1.]),
                                                                    L.tensor([-inf, 1.]))),
    ("float16", lambda L: L.testing.assert_close(L.tensor([1.], dtype=L.float16),
                                                 L.tensor([1.1], dtype=L.float16))),
    ("float16 close", lambda L: L.testing.assert_close(L.tensor([1.], dtype=L.float16),
                                                       L.tensor([1.0009], dtype=L.float16))),
    ("bfloat16", lambda L: L.testing.assert_close(L.tensor([1.], dtype=L.bfloat16),
                                                  L.tensor([1.1], dtype=L.bfloat16))),
    ("float64", lambda L: L.testing.assert_close(L.tensor([1.], dtype=L.float64),
                                                 L.tensor([1.0000002], dtype=L.float64))),
    ("empty", lambda L: L.testing.assert_close(L.ones(0, 3), L.zeros(0, 3))),
    ("dtype", lambda L: L.testing.assert_close(L.tensor([1., 2]),
                                                L.tensor([1., 2], dtype=L.float64))),
    ("int and float dtype", lambda L: L.testing.assert_close(L.ones(2), L.ones(2, dtype=L.int64))),
    ("dtype unchecked", lambda L: L.testing.assert_close(L.tensor([1., 2]),
                                                         L.tensor([1., 3], dtype=L.float64),
                                                         check_dtype=False)),
    ("float16 and float64 unchecked", lambda L: L.testing.assert_close(
        L.tensor([1.], dtype=L.float16), L.tensor([1.0005], dtype=L.float64), check_dtype=False)),
    ("int and float unchecked tensors", lambda L: L.testing.assert_close(
        L.tensor([1, 2]), L.tensor([1., 2.5]), check_dtype=False)),
    ("uint64 and int64 unchecked", lambda L: L.testing.assert_close(
        L.tensor([1, 2], dtype=L.uint64), L.tensor([1, 3]), check_dtype=False)),
    ("shape", lambda L: L.testing.assert_close(L.tensor([1., 2]), L.tensor([1., 2, 3]))),
    ("broadcastable shape", lambda L: L.testing.assert_close(L.ones(1, 2), L.ones(2))),
    ("stride", lambda L: L.testing.assert_close(L.tensor([1., 2]).expand(2, 2), L.ones(2, 2),
                                                check_stride=True)),
    ("stride unchecked", lambda L: L.testing.assert_close(L.tensor([1., 1]).expand(2, 2),
                                                          L.ones(2, 2))),
    ("transposed stride", lambda L: L.testing.assert_close(L.ones(2, 3).t(), L.ones(3, 2),
                                                           check_stride=True)),
    ("shape before dtype", lambda L: L.testing.assert_close(L.ones(2), L.ones(3, dtype=L.int64))),
    ("given tolerances", lambda L: L.testing.assert_close(L.tensor([1., 2]), L.tensor([1.1, 2]),
                                                          rtol=0.05, atol=0)),
    ("int tolerances in text", lambda L: L.testing.assert_close(L.tensor([1., 2]),
                                                                L.tensor([1., 3]), rtol=0, atol=1)),
    ("tolerance boundary", lambda L: L.testing.assert_close(L.tensor([1.5], dtype=L.float64),
                                                            L.tensor([1.], dtype=L.float64),
                                                            rtol=0.25, atol=0.25)),
    ("requires grad", lambda L: L.testing.assert_close(L.ones(2, requires_grad=True) * 2,
                                                       L.tensor([2., 2.1]))),
    ("parameter", lambda L: L.testing.assert_close(L.nn.Parameter(L.ones(2)), L.ones(2))),
    ("parameter, no subclasses", lambda L: L.testing.assert_close(
        L.nn.Parameter(L.ones(2)), L.ones(2), allow_subclasses=False)),
    # other tensor-likes
    ("numpy arrays", lambda L: L.testing.assert_close(np.array([1., 2.]), np.array([1., 3.]))),
    ("numpy int arrays", lambda L: L.testing.assert_close(np.array([1, 2]), np.array([1, 3]))),
    ("numpy float32 arrays", lambda L: L.testing.assert_close(np.float32([1, 2]),
                                                              np.float32([1, 2.5]))),
    ("numpy 0-d", lambda L: L.testing.assert_close(np.array(1.), np.array(2.))),
    ("numpy arccos", lambda L: L.testing.assert_close(np.arccos(np.cos(np.array([1., .1, .01]))),
                                                      np.array([1., .1, .01]))),
    ("numpy and tensor", lambda L: L.testing.assert_close(np.ones(2), L.ones(2))),
    ("tensor and numpy", lambda L: L.testing.assert_close(L.ones(2), np.ones(2))),
    ("tensor and number", lambda L: L.testing.assert_close(L.tensor(1.), 1.0)),
    ("tensor and list", lambda L: L.testing.assert_close(L.ones(2), [1., 1.])),
    ("numpy and number", lambda L: L.testing.assert_close(np.array(1.), 1.0)),
    # containers
    ("lists", lambda L: L.testing.assert_close([1, 2.0], [1, 2.5])),
    ("tuple and list", lambda L: L.testing.assert_close((1, 2), [1, 2])),
    ("lengths", lambda L: L.testing.assert_close([1, 2], [1])),
    ("nested", lambda L: L.testing.assert_close([L.ones(2), [3.0, {"x": L.zeros(1)}]],
                                                [L.ones(2), [3.0, {"x": L.ones(1)}]])),
    ("mixed", lambda L: L.testing.assert_close([L.tensor([1.0]), 2.0, np.array(3.0)],
                                               (L.tensor([1.0]), 2.0, np.array(3.0)))),
    ("mappings", lambda L: L.testing.assert_close({"a": 1, "b": [2.0]}, {"b": [2.5], "a": 1})),
    ("keys", lambda L: L.testing.assert_close({"a": 1, "c": 2}, {"b": 1, "c": 2})),
    ("int keys", lambda L: L.testing.assert_close({2: 1., 1: 2.}, {1: 2., 2: 1.5})),
    ("size", lambda L: L.testing.assert_close(L.Size([2, 3]), L.Size([2, 4]))),
    ("only rtol in a list", lambda L: L.testing.assert_close([L.ones(2)], [L.ones(2)], rtol=1)),
    ("type error wins over a mismatch", lambda L: L.testing.assert_close([1.0, "a"], [2.0, "a"])),
    ("first mismatch wins", lambda L: L.testing.assert_close([L.ones(1), 1.0], [L.zeros(1), 2.0])),
    # msg
    ("msg", lambda L: L.testing.assert_close(L.tensor([1., 2]), L.tensor([1., 3]), msg="boom")),
    ("msg callable", lambda L: L.testing.assert_close(
        [L.tensor([1., 2])], [L.tensor([1., 3])], msg=lambda m: f"Header\n\n{m}\n\nFooter")),
    ("msg neither", lambda L: L.testing.assert_close(L.tensor([1.]), L.tensor([3.]), msg=5)),
    ("msg not for lengths", lambda L: L.testing.assert_close([1], [1, 2], msg="boom")),
    ("msg for dtypes", lambda L: L.testing.assert_close(L.ones(1), L.ones(1, dtype=L.int64),
                                                        msg="boom")),
    # sparse COO
    ("sparse and dense", lambda L: L.testing.assert_close(L.ones(2).to_sparse(), L.ones(2))),
    ("sparse and dense unchecked", lambda L: L.testing.assert_close(
        L.ones(2).to_sparse(), L.ones(2), check_layout=False)),
    ("sparse indices", lambda L: L.testing.assert_close(L.tensor([[0, 1.]]).to_sparse(),
                                                        L.tensor([[1, 0.]]).to_sparse())),
    ("sparse values", lambda L: L.testing.assert_close(L.tensor([[0, 1.], [2, 2]]).to_sparse(),
                                                       L.tensor([[0, 1.], [2, 3]]).to_sparse())),
    ("sparse nnz", lambda L: L.testing.assert_close(L.tensor([[0, 1.], [2, 2]]).to_sparse(),
                                                    L.tensor([[0, 1.], [0, 3]]).to_sparse())),
    ("sparse dims", lambda L: L.testing.assert_close(L.tensor([[0, 1.]]).to_sparse(),
                                                     L.tensor([[0, 1.]]).to_sparse(1))),
    ("sparse, no subclasses", lambda L: L.testing.assert_close(
        L.ones(2).to_sparse(), L.ones(2), allow_subclasses=False)),
    ("sparse dtypes unchecked", lambda L: L.testing.assert_close(
        L.tensor([0, 1.]).to_sparse(), L.tensor([0, 1.], dtype=L.float64).to_sparse(),
        check_dtype=False)),
    # assert_allclose
    ("allclose list", lambda L: L.testing.assert_allclose(L.tensor([1., 2]), [1., 2.0001])),
    ("allclose differ", lambda L: L.testing.assert_allclose(L.tensor([1., 2]), [1., 2.01])),
    ("allclose nan", lambda L: L.testing.assert_allclose([1., nan], [1., nan])),
    ("allclose ints", lambda L: L.testing.assert_allclose([1, 2], [1.4, 2])),
    ("allclose float64", lambda L: L.testing.assert_allclose(L.tensor([1.], dtype=L.float64),
                                                             L.tensor([1.00001]))),
    ("allclose msg", lambda L: L.testing.assert_allclose([1.], [2.], msg="boom")),
    ("allclose only rtol", lambda L: L.testing.assert_allclose([1.], [1.], rtol=1)),
    ("allclose numbers", lambda L: L.testing.assert_allclose(1.0, 1.1, rtol=0, atol=0.2)),
]


@pytest.mark.parametrize("scenario", [s for _, s in SCENARIOS], ids=[name for name, _ in SCENARIOS])
def test_assert_close_ends_as_torchs(scenario):
    same_outcome(scenario)


# where the two cannot agree in text: torch's own internal-error texts (they name its classes
# and ask for bug reports); the error type is the same
@pytest.mark.parametrize("scenario", [
    lambda L: L.testing.assert_close(True, 1),
    lambda L: L.testing.assert_close(1.0, False),
    lambda L: L.testing.assert_close(L.ones(2), L.ones(2), rtol=-1, atol=0),
    lambda L: L.testing.assert_close(L.ones(2), L.ones(2), rtol=0, atol=-1),
], ids=["bool and int", "float and bool", "negative rtol", "negative atol"])
def test_assert_close_internal_errors_have_torchs_type(scenario):
    torch = pytest.importorskip("torch")
    assert outcome(tapegrad, scenario)[0] == outcome(torch, scenario)[0] == "RuntimeError"


DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


def random_scenario(rng):
    """Two tensors (or numbers, or containers of them) that are equal, close, a little off or far
    off, with NaNs and infinities now and then, and random tolerances and checks."""
    dtype, other_dtype = rng.choice(DTYPES), rng.choice(DTYPES)
    other_dtype = dtype if rng.random() < 0.8 else other_dtype
    shape = tuple(int(size) for size in rng.integers(0, 4, rng.integers(0, 3)))
    values = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    scale = 10.0 ** rng.uniform(-9, 0) * rng.choice([0, 1], size=shape, p=[0.6, 0.4])
    other = values * (1 + scale) + scale * rng.choice([0, 1e-6, 1])
    for array in (values, other):  # non-finite values, sometimes in both at the same place
        if array.size and rng.random() < 0.2:
            array.flat[rng.integers(array.size)] = rng.choice([nan, inf, -inf])
    options = {}
    if rng.random() < 0.3:
        options["rtol"], options["atol"] = (float(rng.choice([0, 1e-3, 0.5])),
                                            float(rng.choice([0, 1e-5, 1])))
    if rng.random() < 0.3:
        options["equal_nan"] = True
    if other_dtype != dtype and rng.random() < 0.5:
        options["check_dtype"] = False
    wrap = rng.choice(["tensor", "list", "dict", "number"])
    values, other = np.nan_to_num(values), other if rng.random() < 0.5 else np.nan_to_num(other)

    def scenario(lib):
        def make(array, name):
            if name == "bool" or name.startswith(("int", "uint")):  # small integers
                array = np.rint(np.nan_to_num(array.real, posinf=7, neginf=-7))
                array = array != 0 if name == "bool" else array
                array = array if name == "int64" else np.abs(array) % 100
            elif not name.startswith("complex"):
                array = array.real
            return lib.tensor(array, dtype=getattr(lib, name))
        actual, expected = make(values, dtype), make(other, other_dtype)
        if wrap == "list":
            actual, expected = [lib.zeros(1), actual], [lib.zeros(1), expected]
        elif wrap == "dict":
            actual, expected = {"w": actual, "b": 1.0}, {"b": 1.0, "w": expected}
        elif wrap == "number" and actual.numel() and expected.numel():
            actual, expected = actual.flatten()[0].item(), expected.flatten()[0].item()
        lib.testing.assert_close(actual, expected, **options)
    scenario.dtypes = (dtype, other_dtype)
    return scenario


@pytest.mark.parametrize("seed", range(400))
def test_assert_close_random_pairs_end_as_torchs(seed):
    torch = pytest.importorskip("torch")
    scenario = random_scenario(np.random.default_rng(seed))
    assert outcome(tapegrad, scenario) == outcome(torch, scenario)


def test_random_pairs_cover_passes_and_failures():
    """The random pairs are worth comparing: many pass, many fail, for several reasons."""
    outcomes = [outcome(tapegrad, random_scenario(np.random.default_rng(seed)))
                for seed in range(400)]
    texts = [result[1] for result in outcomes if result != "pass"]
    assert 60 < outcomes.count("pass") < 340
    for kind in ("Tensor-likes are not close!", "Tensor-likes are not equal!",
                 "Scalars are not close!", "'dtype' do not match", "The (d)types do not match",
                 "Greatest relative difference: nan", "Greatest relative difference: inf"):
        assert any(kind in text for text in texts), kind


# without torch too: the rule, the texts and the argument checks

def test_tolerance_rule_is_atol_plus_rtol_times_expected():
    assert_close = tapegrad.testing.assert_close
    expected = tapegrad.tensor([2.0, -4.0], dtype=tapegrad.float64)
    actual = expected + tapegrad.tensor([0.5, 1.0], dtype=tapegrad.float64)
    assert_close(actual, expected, rtol=0.25, atol=0.0)  # 0.5 <= 0.25 * 2, 1.0 <= 0.25 * 4
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        assert_close(actual, expected, rtol=0.125, atol=0.4)  # 1.0 > 0.4 + 0.5


def test_default_tolerances_follow_the_dtype():
    assert_close = tapegrad.testing.assert_close
    for dtype, (rtol, atol) in {"float16": (1e-3, 1e-5), "bfloat16": (0.016, 1e-5),
                                "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
                                "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
                                "int64": (0.0, 0.0), "bool": (0.0, 0.0)}.items():
        with pytest.raises(AssertionError) as error:
            assert_close(tapegrad.ones(2, dtype=getattr(tapegrad, dtype)),
                         tapegrad.zeros(2, dtype=getattr(tapegrad, dtype)))
        text = str(error.value)
        if rtol or atol:
            assert f"(up to {atol} allowed)" in text and f"(up to {rtol} allowed)" in text
        else:
            assert "are not equal!" in text and "allowed" not in text


def test_failure_names_the_item_and_msg_rewrites_it():
    inputs = ({"a": [1.0, tapegrad.ones(2)]}, {"a": [1.0, tapegrad.tensor([1.0, 2.0])]})
    with pytest.raises(AssertionError) as error:
        tapegrad.testing.assert_close(*inputs)
    assert str(error.value).endswith("\n\nThe failure occurred for item ['a'][1]")
    assert str(error.value).startswith("Tensor-likes are not close!\n\nMismatched elements: 1 / 2")
    with pytest.raises(AssertionError, match="^custom$"):
        tapegrad.testing.assert_close(*inputs, msg="custom")
    with pytest.raises(AssertionError) as error:
        tapegrad.testing.assert_close(*inputs, msg=lambda text: text.upper())
    assert str(error.value).endswith("ITEM ['A'][1]")


def test_bad_arguments_raise_value_and_type_errors():
    with pytest.raises(ValueError, match="but got no atol"):
        tapegrad.testing.assert_close(tapegrad.ones(1), tapegrad.ones(1), rtol=0.1)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type "
                                        "<class 'numpy.ndarray'> and <class 'tapegrad"):
        tapegrad.testing.assert_close(np.ones(1), tapegrad.ones(1))


def test_assert_allclose_warns_future_warning():
    with pytest.warns(FutureWarning, match=r"assert_allclose\(\)` is deprecated since 1.12"):
        tapegrad.testing.assert_allclose(tapegrad.tensor([1.0, nan]), [1.0, nan])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="Tensor-likes"):
        tapegrad.testing.assert_allclose(tapegrad.tensor([1.0, 2.0]), [1.0, 2.1])


def test_testing_is_an_attribute_of_tapegrad_imported_when_used():
    import subprocess
    import sys
    code = ("import sys; import tapegrad as torch; print('tapegrad.testing' in sys.modules);"
            "torch.testing.assert_close(torch.ones(2), torch.ones(2));"
            "from tapegrad.testing import make_tensor, assert_close, assert_allclose;"
            "print(sorted(torch.testing.__all__))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.split() == ["False", "['assert_allclose',", "'assert_close',",
                                     "'make_tensor']"]


@pytest.fixture
def cuda():
    """A cuda device: the GPU under TAPEGRAD_DEVICE_TESTS=cupy, else the device double."""
    if os.environ.get("TAPEGRAD_DEVICE_TESTS") == "cupy":
        yield
        return
    import device_double
    device_double.install(count=2)
    try:
        yield
    finally:
        device_double.uninstall()


def test_devices_are_checked_or_moved_to_the_cpu(cuda):
    assert_close = tapegrad.testing.assert_close
    on_device, on_cpu = tapegrad.tensor([1.0, 2.0], device="cuda"), tapegrad.tensor([1.0, 2.5])
    with pytest.raises(AssertionError) as error:
        assert_close(on_device, on_cpu)
    assert str(error.value) == "The values for attribute 'device' do not match: cuda:0 != cpu."
    with pytest.raises(AssertionError) as moved:
        assert_close(on_device, on_cpu, check_device=False)
    with pytest.raises(AssertionError) as on_one_device:
        assert_close(on_device.cpu(), on_cpu)
    assert str(moved.value) == str(on_one_device.value)
    assert_close(on_device, tapegrad.tensor([1.0, 2.0], device="cuda"))
    with pytest.raises(AssertionError, match="Greatest absolute difference: 0.5 at index"):
        assert_close(on_device, on_cpu.to("cuda"))
    made = tapegrad.testing.make_tensor(2, 3, dtype=tapegrad.float32, device="cuda:1",
                                        noncontiguous=True, exclude_zero=True)
    assert made.device == tapegrad.device("cuda:1") and not made.is_contiguous()


# make_tensor

def make_outcome(lib, args, kwargs):
    """What make_tensor gives after manual_seed(0): its dtype, shape, strides, requires_grad,
    values and warnings; or its error's type and text."""
    kwargs = {key: getattr(lib, value[1:]) if isinstance(value, str) and value[:1] == "@"
              else value for key, value in kwargs.items()}
    lib.manual_seed(0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.testing.make_tensor(*args, **kwargs)
    except Exception as error:  # every error is compared, whatever its type
        return type(error).__name__, str(error)
    values = result.detach()
    if values.dtype == lib.bfloat16:
        values = values.float()
    return (str(result.dtype), tuple(result.shape), result.stride(), result.requires_grad,
            values.numpy().tolist(), [(w.category, str(w.message)) for w in caught])


MAKE_CASES = [(args, {"dtype": "@" + dtype, "device": "cpu", **options})
              for dtype in DTYPES + ["int16"]
              for args, options in [
                  ((3, 4), {}), ((2, 3), {"noncontiguous": True}),
                  ((6,), {"exclude_zero": True, "low": 0, "high": 2}),
                  ((5,), {"low": -1e40, "high": 1e40}), ((5,), {"low": 1.5, "high": 4.5}),
                  ((2, 3, 4, 5), {"memory_format": "@channels_last"}),
                  ((3,), {"requires_grad": True}), ((3,), {"low": 3, "high": 1}),
                  ((3,), {"low": 2, "high": 2}), ((3,), {"low": nan}),
                  ((3,), {"high": nan}), ((3,), {"low": 300, "high": 400}),
                  ((3,), {"low": -400, "high": -300}), ((4,), {"low": -3})]]
MAKE_CASES += [
    ((3, 4), {"dtype": "@uint64", "device": "cpu"}),
    (((2, 3),), {"dtype": "@float32", "device": "cpu"}),
    (([2, 3],), {"dtype": "@float32", "device": "cpu", "noncontiguous": True}),
    (((),), {"dtype": "@float32", "device": "cpu"}),
    ((), {"dtype": "@float32", "device": "cpu", "noncontiguous": True}),
    ((1,), {"dtype": "@float32", "device": "cpu", "noncontiguous": True}),
    ((3, 4), {"dtype": "@float32", "device": "cpu", "noncontiguous": True,
              "memory_format": "@channels_last"}),
    ((2, 3, 4), {"dtype": "@float32", "device": "cpu", "memory_format": "@contiguous_format"}),
    ((3,), {"dtype": "@int64", "device": "cpu", "low": -2 ** 70, "high": 2 ** 70}),
    ((3,), {"dtype": None, "device": "cpu"}),
    ((3,), {"dtype": "@float32"}),
    ((3,), {"device": "cpu"}),
]


def make_id(args, kwargs):
    dtype = kwargs.get("dtype")
    return "-".join([str(args), str(dtype).lstrip("@")] + [
        f"{key}={value}".lstrip("@") for key, value in kwargs.items()
        if key not in ("dtype", "device")])


@pytest.mark.parametrize("args, kwargs", MAKE_CASES,
                         ids=[make_id(args, kwargs) for args, kwargs in MAKE_CASES])
def test_make_tensor_draws_torchs_tensor(args, kwargs):
    torch = pytest.importorskip("torch")
    assert make_outcome(tapegrad, args, kwargs) == make_outcome(torch, args, kwargs)


@pytest.mark.parametrize("args, kwargs", [
    ((0, 3), {"dtype": "@float32", "device": "cpu", "noncontiguous": True}),
    ((3,), {"dtype": "@float64", "device": "cpu", "low": -1e308, "high": 1e308}),
], ids=["empty-noncontiguous", "float64-widest-range"])
def test_make_tensor_draws_torchs_tensor_beyond_testing(args, kwargs):
    """Cases that rest on tapegrad's factories: an empty tensor's strides, uniform_ over the
    widest float64 range."""
    torch = pytest.importorskip("torch")
    assert make_outcome(tapegrad, args, kwargs) == make_outcome(torch, args, kwargs)


@pytest.mark.parametrize("dtype", DTYPES + ["int16", "uint64"])
def test_make_tensor_values_lie_in_the_default_range(dtype):
    kind = getattr(tapegrad, dtype)
    tapegrad.manual_seed(1)
    values = tapegrad.testing.make_tensor(1000, dtype=kind, device="cpu")
    parts = [values.real, values.imag] if kind.is_complex else [values]
    for part in parts:
        part = part.double() if dtype != "uint64" else part.to(tapegrad.int64)
        low, high = {"bool": (0, 2), "uint8": (0, 10), "uint64": (0, 10)}.get(
            dtype, (-9, 9) if kind.is_floating_point or kind.is_complex else (-9, 10))
        assert low <= part.min().item() and part.max().item() < high
        assert part.unique().numel() > 1


def test_make_tensor_options_without_torch():
    make = tapegrad.testing.make_tensor
    result = make(2, 3, dtype=tapegrad.float32, device="cpu", noncontiguous=True,
                  requires_grad=True, low=1, high=2)
    assert result.shape == (2, 3) and not result.is_contiguous() and result.requires_grad
    assert ((1 <= result) & (result < 2)).all()
    ones = make(50, dtype=tapegrad.int8, device="cpu", low=0, high=2, exclude_zero=True)
    assert (ones == 1).all()  # the zeros drawn became ones
    tiny = make(50, dtype=tapegrad.float16, device="cpu", low=0, high=1e-8, exclude_zero=True)
    assert (tiny == tapegrad.finfo(tapegrad.float16).tiny).all()  # all drawn as 0, replaced
    with pytest.raises(ValueError, match=re.escape("but torch.uint8 only supports [0, 256)")):
        make(3, dtype=tapegrad.uint8, device="cpu", low=-5, high=-1)
    with pytest.raises(ValueError, match="not supported for boolean and integral dtypes"):
        make(3, dtype=tapegrad.int32, device="cpu", requires_grad=True)
    with pytest.warns(FutureWarning, match="Passing `low==high`") as caught:
        assert (make(3, dtype=tapegrad.float64, device="cpu", low=2, high=2) == 2).all()
    assert caught[0].filename == __file__  # the warning points at the caller
