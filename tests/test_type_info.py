"""torch.finfo and torch.iinfo: limits, reprs and errors as torch's."""
import pytest

import tapegrad
from compare import same_error, torch_or_skip

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTEGERS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_torch(name):
    torch = torch_or_skip()
    mine, theirs = tapegrad.finfo(getattr(tapegrad, name)), torch.finfo(getattr(torch, name))
    assert repr(mine) == repr(theirs)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                  "dtype"):
        assert getattr(mine, field) == getattr(theirs, field), field


@pytest.mark.parametrize("name", INTEGERS)
def test_iinfo_matches_torch(name):
    torch = torch_or_skip()
    mine, theirs = tapegrad.iinfo(getattr(tapegrad, name)), torch.iinfo(getattr(torch, name))
    assert repr(mine) == repr(theirs)
    assert (mine.bits, mine.max, mine.min, mine.dtype) == (theirs.bits, theirs.max,
                                                            theirs.min, theirs.dtype)


def test_finfo_defaults_to_the_default_dtype_and_compares_by_dtype():
    assert tapegrad.finfo() == tapegrad.finfo(tapegrad.float32) != tapegrad.finfo(
        tapegrad.float64)
    assert tapegrad.finfo(tapegrad.float64).eps == 2.0 ** -52
    assert tapegrad.iinfo(tapegrad.int8).min == -128


@pytest.mark.parametrize("call", [lambda lib: lib.finfo(lib.int32),
                                  lambda lib: lib.iinfo(lib.float32),
                                  lambda lib: lib.iinfo(lib.bool),
                                  lambda lib: lib.finfo(3)])
def test_type_info_errors_match_torch(call):
    same_error(call)
