"""Errors of the remaining nn.functional, normalisation, resampling and product ops, against
torch's (type and text): addbmm, addr, the native_* norms, local_response_norm, interpolate's
modes, linear_cross_entropy, scaled_dot_product_attention.

Values, gradients and graphs are checked by the rows of tests/op_db_nn_extra.py through
tests/test_ops.py.
"""
import pytest

import tapegrad
from compare import same_error


def R(lib, *shape, dtype="float32"):
    return lib.ones(*shape, dtype=getattr(lib, dtype))


def L(lib, *shape):
    return lib.ones(*shape, dtype=lib.int64)


ERRORS = {
    # addbmm
    "addbmm-batch1-2d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-batch2-2d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5), R(lib, 2, 5)),
    "addbmm-batch1-4d": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5, 1),
                                               R(lib, 2, 5, 4)),
    "addbmm-batches": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 3, 3, 5), R(lib, 2, 6, 4)),
    "addbmm-inner": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5), R(lib, 2, 6, 4)),
    "addbmm-input-shape": lambda lib: lib.addbmm(R(lib, 3, 3), R(lib, 2, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-input-3d": lambda lib: lib.addbmm(R(lib, 3, 1, 4), R(lib, 2, 3, 5), R(lib, 2, 5, 4)),
    "addbmm-input-dtype": lambda lib: lib.addbmm(R(lib, 3, 4, dtype="float64"), R(lib, 2, 3, 5),
                                                 R(lib, 2, 5, 4)),
    "addbmm-batch-dtype": lambda lib: lib.addbmm(R(lib, 3, 4), R(lib, 2, 3, 5),
                                                 R(lib, 2, 5, 4, dtype="float64")),
    "addbmm-bool": lambda lib: lib.addbmm(R(lib, 3, 4, dtype="bool"), R(lib, 2, 3, 5, dtype="bool"),
                                          R(lib, 2, 5, 4, dtype="bool")),
    "addbmm-number": lambda lib: lib.addbmm(R(lib, 3, 4), 3, R(lib, 2, 5, 4)),
    # addr
    "addr-vec1-2d": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3, 1), R(lib, 4)),
    "addr-vec2-2d": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3), R(lib, 4, 1)),
    "addr-input-shape": lambda lib: lib.addr(R(lib, 3, 5), R(lib, 3), R(lib, 4)),
    "addr-input-3d": lambda lib: lib.addr(R(lib, 2, 3, 4), R(lib, 3), R(lib, 4)),
    "addr-int-float-beta": lambda lib: lib.addr(L(lib, 3, 4), L(lib, 3), L(lib, 4), beta=0.5),
    "addr-int-float-alpha": lambda lib: lib.addr(L(lib, 3, 4), L(lib, 3), L(lib, 4), alpha=2.5),
    "addr-bool-beta": lambda lib: lib.addr(R(lib, 3, 4), R(lib, 3), R(lib, 4), beta=True),
    "addr-number": lambda lib: lib.addr(R(lib, 3, 4), 3, R(lib, 4)),
}


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in ERRORS.items()])
def test_error_matches_torch(fn):
    same_error(fn)


RESULTS = {
    # torch truncates addbmm's scales for integers; addr's booleans combine with and/or
    "addbmm-int-scales": lambda lib: lib.addbmm(L(lib, 3, 4), L(lib, 2, 3, 5), L(lib, 2, 5, 4),
                                                beta=0.5, alpha=1.5),
    "addr-int": lambda lib: lib.addr(L(lib, 3, 4), 2 * L(lib, 3), L(lib, 4), beta=2, alpha=3),
    "addr-bool": lambda lib: lib.addr(R(lib, 3, 4, dtype="bool"), R(lib, 3, dtype="bool"),
                                      lib.zeros(4, dtype=lib.bool), beta=False),
    "addr-mixed-dtypes": lambda lib: lib.addr(lib.ones((), dtype=lib.int32),
                                              R(lib, 3, dtype="float16"), L(lib, 4)),
}


@pytest.mark.parametrize("fn", [pytest.param(fn, id=label) for label, fn in RESULTS.items()])
def test_result_matches_torch(fn):
    torch = pytest.importorskip("torch")
    ours, theirs = fn(tapegrad), fn(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()
