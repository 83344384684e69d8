"""Helpers shared by the tests: run one scenario on tapegrad and on torch, compare."""
import numpy as np
import pytest

import tapegrad


def torch_or_skip():
    return pytest.importorskip("torch")


def error_of(fn):
    """(exception type name, message) of what fn raises; fails if it raises nothing."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def same(scenario):
    """Run scenario(lib) on both libraries and require equal results."""
    torch = torch_or_skip()
    assert scenario(tapegrad) == scenario(torch)


def same_error(scenario):
    """Require scenario(lib) to raise the same error type and text in both libraries."""
    torch = torch_or_skip()
    assert error_of(lambda: scenario(tapegrad)) == error_of(lambda: scenario(torch))


def as_lib(lib, value):
    """Constants: NumPy arrays become lib tensors (also inside tuples); the rest stays."""
    if isinstance(value, np.ndarray):
        return lib.tensor(value)
    if isinstance(value, tuple):
        return tuple(as_lib(lib, item) for item in value)
    return value
