"""Tests for tapegrad._printing: its repr must equal torch 2.13's byte for byte.

Golden-string tests run without torch; the comparison tests skip when torch is not installed.
"""
import numpy as np
import pytest

import tapegrad
from tapegrad import _printing as printing

format_tensor = printing.format_tensor


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_printoptions():
    yield
    printing.set_printoptions(profile="default")
    try:
        import torch as torch_module
    except ImportError:
        return
    torch_module.set_printoptions(profile="default")
    torch_module.set_default_dtype(torch_module.float32)


def _torch_dtype_name(tensor):
    return str(tensor.dtype).removeprefix("torch.")


def _torch_repr_and_ours(torch, arr, default="float32"):
    tensor = torch.from_numpy(np.array(arr, copy=True))
    return repr(tensor), format_tensor(arr, _torch_dtype_name(tensor), default)


# --- golden strings (recorded from torch 2.13), no torch needed ----------------

GOLDEN = [
    (np.array(3.0, np.float32), "float32", "tensor(3.)"),
    (np.array(0.7778, np.float32), "float32", "tensor(0.7778)"),
    (np.array([1.0, 20.0], np.float32), "float32", "tensor([ 1., 20.])"),
    (np.array([1e10, 1.0], np.float32), "float32", "tensor([1.0000e+10, 1.0000e+00])"),
    (np.array([True, False]), "bool", "tensor([ True, False])"),
    (np.zeros(0, np.int64), "int64", "tensor([], dtype=torch.int64)"),
    (np.zeros((2, 0, 3), np.int32), "int32", "tensor([], size=(2, 0, 3), dtype=torch.int32)"),
    (np.arange(6, dtype=np.float32).reshape(2, 3) / np.float32(7), "float32",
     "tensor([[0.0000, 0.1429, 0.2857],\n        [0.4286, 0.5714, 0.7143]])"),
    (np.arange(2000, dtype=np.float32), "float32",
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    (np.arange(8).reshape(2, 2, 2), "int64",
     "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"),
    (np.array([np.nan, 1.5, -np.inf], np.float32), "float32", "tensor([   nan, 1.5000,   -inf])"),
    (np.array([-0.0, 0.5], np.float32), "float32", "tensor([-0.0000, 0.5000])"),
    (np.arange(30, dtype=np.float64), "float64",
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
     "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
     "        28., 29.], dtype=torch.float64)"),
    (np.array(1e-5, np.float32), "float32", "tensor(1.0000e-05)"),
    (np.array([1.5, 2.0], np.float16), "float16", "tensor([1.5000, 2.0000], dtype=torch.float16)"),
]


@pytest.mark.parametrize("arr, dtype_name, expected", GOLDEN)
def test_golden(arr, dtype_name, expected):
    assert format_tensor(arr, dtype_name, "float32") == expected


def test_golden_tails_and_scalars():
    mean = np.array(16.583065, np.float32)
    assert (format_tensor(mean, "float32", "float32", tail=("grad_fn=<MeanBackward0>",))
            == "tensor(16.5831, grad_fn=<MeanBackward0>)")
    assert (format_tensor(np.zeros(0, np.float32), "float32", "float32",
                          tail=("requires_grad=True",)) == "tensor([], requires_grad=True)")
    # f"{t}" of a 0-d tensor formats the Python number, all digits of the float32 value
    assert f"{tapegrad.from_numpy(mean)}" == "16.583065032958984"
    assert f"{tapegrad.tensor(20.0)}" == "20.0" and f"{tapegrad.tensor(20.0):.2f}" == "20.00"
    assert f"{tapegrad.tensor(3)}" == "3" and f"{tapegrad.tensor(True)}" == "True"


def test_golden_printoptions_roundtrip():
    printing.set_printoptions(precision=2, threshold=5)
    assert format_tensor(np.arange(10), "int64", "float32") == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    assert printing.get_printoptions() == {
        "precision": 2, "threshold": 5, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
    printing.set_printoptions(profile="default")
    assert format_tensor(np.array([1.12345]), "float32", "float32") == "tensor([1.1235])"


# --- comparison against torch ---------------------------------------------------

def _cases():
    rng = np.random.default_rng(1234)
    normal = rng.standard_normal
    cases = {
        "scalar_int_mode": np.array(3.0, np.float32),
        "scalar_fixed": np.array(0.7778, np.float32),
        "scalar_sci": np.array(1e-5, np.float32),
        "scalar_int64": np.array(3),
        "scalar_bool": np.array(True),
        "scalar_nan": np.array(np.nan, np.float32),
        "scalar_neg_zero": np.array(-0.0, np.float32),
        "int_mode_widths": np.array([1.0, 20.0, -300.0], np.float32),
        "sci_ratio": np.array([1e10, 1.0], np.float32),
        "sci_large": np.array([2e8, 3e8], np.float32),
        "sci_small": np.array([5e-5, 1e-4], np.float32),
        "ratio_just_1000": np.array([1.0, 1000.0], np.float32),
        "ratio_above_1000": np.array([1.0, 1000.5], np.float32),
        "nonfinite_mix": np.array([np.nan, np.inf, -np.inf, 1.5], np.float32),
        "nonfinite_only": np.array([np.nan, np.inf, -np.inf], np.float32),
        "nonfinite_int_mode": np.array([np.nan, 2.0, -np.inf], np.float32),
        "zeros": np.zeros(4, np.float32),
        "neg_zero_int_mode": np.array([-0.0, 2.0], np.float32),
        "neg_zero_fixed": np.array([-0.0, 0.5], np.float32),
        "huge_range_f64": np.array([1e300, 1e-300, -5.0]),
        "float64_fixed": normal(6),
        "float16_fixed": (normal(7) * 3).astype(np.float16),
        "float16_int_max": np.array([65504.0, -2.0], np.float16),
        "float16_sci": np.array([1e-3, 60000.0], np.float16),
        "float32_round_digits": np.array([0.1, 0.25, 2.5, 1.00005], np.float32),
        "int8": np.array([-128, 0, 127], np.int8),
        "int16": np.arange(-5, 5, dtype=np.int16),
        "int32": np.array([[1, -22], [333, 4]], np.int32),
        "uint8": np.arange(250, 256, dtype=np.uint8),
        "int64_large": np.array([2**62, -3]),
        "bools_2d": rng.integers(0, 2, (3, 4)).astype(bool),
        "long_row_float": normal(50).astype(np.float32),
        "long_row_int": np.arange(100),
        "long_row_wide_sci": normal(23) * 1e6,
        "arange_2000": np.arange(2000, dtype=np.float32),
        "arange_2000_40x50": np.arange(2000, dtype=np.float32).reshape(40, 50),
        "ones_2000_int64": np.ones(2000, np.int64),
        "summary_3d": normal((12, 11, 10)).astype(np.float32),
        "summary_4d_ints": rng.integers(-50, 50, (4, 8, 7, 9)),
        "summary_short_dim": normal((5, 400)).astype(np.float32),
        "summary_bool": rng.integers(0, 2, 1500).astype(bool),
        "summary_formatter_edges_only": np.concatenate(
            [np.ones(3), np.full(1000, 1e9), np.ones(3)]).astype(np.float32),
        "three_d": np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 3,
        "four_d": normal((2, 2, 2, 3)).astype(np.float32),
        "five_d": np.arange(32).reshape(2, 2, 2, 2, 2),
        "noncontiguous": np.arange(48, dtype=np.float32).reshape(6, 8)[::2, 1::3],
        "reversed": np.arange(10.0)[::-1],
        "transposed": normal((3, 5)).T,
        "column": normal((4, 1)).astype(np.float32),
        "wide_2d": normal((3, 30)).astype(np.float32) * 100,
        "empty_float": np.zeros(0, np.float32),
        "empty_float64": np.zeros(0),
        "empty_int64": np.zeros(0, np.int64),
        "empty_bool": np.zeros(0, bool),
        "empty_2d": np.zeros((0, 3), np.float32),
        "empty_3d_int32": np.zeros((2, 0, 3), np.int32),
        "empty_uint8": np.zeros((3, 0), np.uint8),
    }
    for scale in (1e-6, 1e-3, 1.0, 1e3, 1e9):
        for shape in ((5,), (3, 4), (2, 3, 4)):
            cases[f"normal_{scale:g}_{shape}"] = (normal(shape) * scale).astype(np.float32)
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(torch, name):
    expected, ours = _torch_repr_and_ours(torch, CASES[name])
    assert ours == expected


def _tail_cases(torch):
    """(array, how to make the torch tensor, tail) triples exercising suffix wrapping."""
    def requires_grad(t):
        return t.requires_grad_()

    def mul(t):
        return t.requires_grad_() * 1

    def mean(t):
        return t.requires_grad_().mean()

    rng = np.random.default_rng(7)
    arrays = [
        np.arange(5, dtype=np.float32) / 7,  # one line, both tails fit
        np.arange(6, dtype=np.float32) / 7,  # fits only without torch's off-by-two
        np.arange(7, dtype=np.float32) / 7,
        np.arange(13, dtype=np.float32) / 7,
        np.arange(14, dtype=np.float32) / 7,  # one full line, tail must wrap
        np.arange(11, dtype=np.float32) / 7,
        np.arange(16, dtype=np.float64) / 7,  # dtype suffix wraps first
        np.arange(25, dtype=np.float64) / 7,
        rng.standard_normal((3, 9)).astype(np.float32),
        rng.standard_normal((2, 2, 3)).astype(np.float16),
        np.arange(2000, dtype=np.float32),
        np.zeros((0, 3), np.float32),
        np.zeros(0, np.float64),
    ]
    return [(a, make, tail) for a in arrays for make, tail in (
        (requires_grad, "requires_grad=True"), (mul, "grad_fn=<MulBackward0>"))
    ] + [(np.arange(1, 6, dtype=np.float32), mean, "grad_fn=<MeanBackward0>")]


def test_tails_match_torch(torch):
    for arr, make, tail in _tail_cases(torch):
        tensor = make(torch.from_numpy(arr.copy()))
        shown = np.asarray(tensor.detach().numpy())
        ours = format_tensor(shown, _torch_dtype_name(tensor), "float32", tail=(tail,))
        assert ours == repr(tensor), arr


def test_subclass_prefix_indent(torch):
    class MyTensor(torch.Tensor):
        pass

    for arr in (np.arange(30, dtype=np.float32), np.arange(12).reshape(3, 4)):
        tensor = torch.from_numpy(arr.copy()).as_subclass(MyTensor)
        ours = format_tensor(arr, _torch_dtype_name(tensor), "float32", prefix="MyTensor(")
        assert ours == repr(tensor)


@pytest.mark.parametrize("arr", [
    np.arange(30, dtype=np.float64) / 3,
    np.arange(5, dtype=np.float32) / 3,
    np.array(2.5),
    np.zeros(0, np.float32),
    np.zeros(0, np.float64),
    np.arange(4),
], ids=repr)
def test_default_dtype_float64(torch, arr):
    torch.set_default_dtype(torch.float64)
    expected, ours = _torch_repr_and_ours(torch, arr, default="float64")
    assert ours == expected


OPTION_SETS = [
    {"precision": 2},
    {"precision": 8},
    {"precision": 0},
    {"sci_mode": True},
    {"sci_mode": False},
    {"threshold": 5},
    {"threshold": 10, "edgeitems": 1},
    {"threshold": 10, "edgeitems": 0},
    {"edgeitems": 0},
    {"linewidth": 40},
    {"linewidth": 120},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=repr)
def test_printoptions_match_torch(torch, options):
    rng = np.random.default_rng(3)
    arrays = [
        np.arange(2000, dtype=np.float32),
        rng.standard_normal((12, 14)).astype(np.float32),
        rng.standard_normal((3, 4, 5)) * 1e4,
        np.array([1.0, 20.0, np.nan], np.float32),
        np.zeros(3, np.float32),
        np.arange(40).reshape(5, 8),
        np.array(0.123456789, np.float32),
        np.zeros((0, 2), np.float32),
    ]
    torch.set_printoptions(**options)
    printing.set_printoptions(**options)
    for arr in arrays:
        expected, ours = _torch_repr_and_ours(torch, arr)
        assert ours == expected
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()


@pytest.mark.parametrize("arr", [
    np.array(16.583065, np.float32),
    np.array(20.0, np.float32),
    np.array(0.1, np.float16),
    np.array(1e-7),
    np.array(np.nan, np.float32),
    np.array(-7, np.int8),
    np.array(200, np.uint8),
    np.array(3),
    np.array(False),
], ids=repr)
def test_format_of_0d_tensor_matches_torch(torch, arr):
    for spec in ("", ">12"):
        assert format(tapegrad.from_numpy(arr.copy()), spec) == format(
            torch.from_numpy(arr.copy()), spec)
