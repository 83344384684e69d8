"""Tests of values, never differentiable: signbit, isposinf, isneginf, isreal (bool tensors),
isclose (a bool tensor), allclose and equal (Python bools)."""
from .. import _dtype
from .._tensor import Tensor
from ._define import defop
from .pointwise import require_tensors
from .unary import magnitude_of


@defop(None)
def signbit(xp, input: Tensor):
    """Whether the sign bit is set: true for negative numbers and -0.0."""
    if input.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if input.dtype.kind == "f":
        return xp.signbit(input)
    return input < 0


@defop(None)
def isposinf(xp, input: Tensor):
    _refuse_complex("isposinf", input)
    return input == xp.inf if input.dtype.kind == "f" else xp.zeros(input.shape, bool)


@defop(None)
def isneginf(xp, input: Tensor):
    _refuse_complex("isneginf", input)
    return input == -xp.inf if input.dtype.kind == "f" else xp.zeros(input.shape, bool)


def _refuse_complex(name, input):
    if input.dtype.kind == "c":
        raise RuntimeError(f"{name} does not support complex inputs.")


@defop(None)
def isreal(xp, input: Tensor):
    """Whether each element has no imaginary part (a NaN real part counts as real)."""
    if input.dtype.kind == "c":
        return input.imag == 0
    return xp.ones(input.shape, bool)


@defop(None, name="_isclose")
def _isclose(xp, input: Tensor, other: Tensor, rtol, atol, equal_nan, default_float):
    close = input == other
    if equal_nan and input.dtype.kind in "fc":
        close |= (input != input) & (other != other)  # a complex NaN: either part is NaN
    if rtol == 0 and atol == 0:
        return close  # zero tolerances: equality only
    # torch's closeness error, in the tensors' float or complex dtype (complex moduli);
    # integers and bools are first cast to the default float dtype (so unsigned differences
    # do not wrap around)
    if input.dtype.kind not in "fc":
        input, other = input.astype(default_float), other.astype(default_float)
    actual_error = magnitude_of(xp, input - other)
    allowed_error = atol + magnitude_of(xp, rtol * other)
    return close | (xp.isfinite(actual_error) & (actual_error <= allowed_error))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close)."""
    require_tensors("isclose", input=input, other=other)
    _check_closeness_arguments(input, other, rtol, atol)
    return _isclose(input, other, rtol, atol, equal_nan, _dtype.get_default_dtype().numpy)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of input is close to other (see isclose), as a Python bool."""
    require_tensors("allclose", input=input, other=other)
    _check_closeness_arguments(input, other, rtol, atol)
    close = _isclose(input, other, rtol, atol, equal_nan, _dtype.get_default_dtype().numpy)
    return bool(close._data.all())


def _check_closeness_arguments(input, other, rtol, atol):
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.legacy_name} did not match {other.dtype.legacy_name}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got "
                               f"{value:g}")


def equal(input, other):
    """Whether both have the same shape and equal elements (nan equals nothing)."""
    require_tensors("equal", input=input, other=other)
    if input.shape != other.shape:
        return False
    return bool((input == other)._data.all())


FUNCTIONS = "allclose equal isclose isneginf isposinf isreal signbit".split()
METHODS = FUNCTIONS
