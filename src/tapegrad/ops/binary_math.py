"""Binary math on two tensors: copysign, hypot, logaddexp(2), fmax/fmin, heaviside, nextafter,
ldexp, frexp, float_power, and the integer ops gcd, lcm and the bit shifts."""
import math

from .. import _dtype
from .._tensor import Tensor
from ._checks import is_floating_kind, is_number
from ._define import defop
from .indexing import _masked_fill
from .pointwise import (add_scalar, binary_of_tensors, integer_in_place, invalid_combination,
                        mul_scalar, not_implemented_for, not_implemented_in_torch, pow,
                        require_tensors, takes_tensors, torch_edges_only, where)
from .reduction import return_type
from .shape import zeros_of
from .unary import exp, exp2, sign
from .complex_parts import conj_of


def _require_floating(kernel, dtype, complex_too=False):
    """torch's error for the dtypes its kernel has no loop for: integers and bools, and complex
    numbers unless complex_too."""
    if not is_floating_kind(dtype) and not (complex_too and dtype.kind == "c"):
        raise NotImplementedError(not_implemented_for(kernel, dtype))


def _require_integer(kernel, dtype):
    if dtype.kind not in "iu":
        raise NotImplementedError(not_implemented_for(kernel, dtype))


# ---- signs and magnitudes ------------------------------------------------------------------------

def _copysign_grad(ctx):
    # +-1 where the sign was kept or flipped (torch: result / input); 0 at input 0, filled as
    # torch's. Signs, not the ratio, so that the second derivative is exactly 0; NaN where the
    # input is infinite or NaN, as torch's ratio.
    kept = _masked_fill(sign(ctx.result) * sign(ctx.input), ~ctx.input.isfinite()._data, math.nan)
    return ctx.grad * _masked_fill(kept, (ctx.input == 0)._data, 0)


@defop("CopysignBackward0", save=("input", "result"), promote="float")
def _copysign_tensor(xp, input: Tensor, other: Tensor):
    _require_floating("copysign_cpu", input.dtype)  # input has the promoted dtype
    return xp.copysign(input, other)


_copysign_tensor.derivatives(input=_copysign_grad, other=lambda ctx: zeros_of(ctx.grad))


@defop("CopysignBackward1", save=("input", "result"), promote="float", scalars=("other",))
def _copysign_scalar(xp, input: Tensor, other):
    _require_floating("copysign_cpu", input.dtype)  # input has the promoted dtype
    return xp.copysign(input, other)


_copysign_scalar.derivatives(input=_copysign_grad)


def copysign(input, other):
    """input's magnitude with other's sign (-0.0 counts as negative); always a float."""
    if takes_tensors("copysign", (input,), (other,)):
        return _copysign_tensor(input, other)
    return _copysign_scalar(input, other)


@defop("HypotBackward0", save=("input", "other", "result"), promote="common")
def _hypot(xp, input: Tensor, other: Tensor):
    _require_floating("hypot_cpu", xp.result_type(input, other))
    return xp.hypot(input, other)


_hypot.derivatives(input=lambda ctx: ctx.grad * ctx.input / ctx.result,
                   other=lambda ctx: ctx.grad * ctx.other / ctx.result)


hypot = binary_of_tensors(
    "hypot", _hypot, "sqrt(input**2 + other**2) without overflow in the squares.")


# ---- log-sum-exp of two --------------------------------------------------------------------------

def _log_of_summed_powers(name, node_name, power, summary):
    """logaddexp (power: exp) or logaddexp2 (power: 2 ** x), as NumPy computes them."""
    @defop(node_name, save=("input", "other"), promote="common", name="_" + name)
    def op(xp, input: Tensor, other: Tensor):
        _require_floating(f"{name}_cpu", xp.result_type(input, other),
                          complex_too=name == "logaddexp")
        if name == "logaddexp" and xp.result_type(input, other).kind == "c":
            return _complex_logaddexp(xp, input, other)  # NumPy's ufunc has no complex loop
        return getattr(xp, name)(input, other)

    op.derivatives(
        input=lambda ctx: ctx.grad / conj_of(add_scalar(power(ctx.other - ctx.input), 1)),
        other=lambda ctx: ctx.grad / conj_of(add_scalar(power(ctx.input - ctx.other), 1)))
    return op, binary_of_tensors(name, op, summary)


def _complex_logaddexp(xp, input, other):
    """log(exp(a) + exp(b)) of complex numbers: the one with the larger real part factored
    out, so that exp cannot overflow."""
    input, other = xp.broadcast_arrays(input, other)
    first = input.real >= other.real
    larger, smaller = xp.where(first, input, other), xp.where(first, other, input)
    summed = larger + xp.log1p(xp.exp(smaller - larger))
    # equal infinite real parts: exp(inf - inf) would be nan, and the sum is that infinity
    same_infinity = xp.isinf(larger.real) & (larger == smaller)
    return xp.where(same_infinity, larger, summed)


_logaddexp, logaddexp = _log_of_summed_powers(
    "logaddexp", "LogaddexpBackward0", exp, "log(exp(input) + exp(other)), without overflow.")
_logaddexp2, logaddexp2 = _log_of_summed_powers(
    "logaddexp2", "Logaddexp2Backward0", lambda exponent: pow(2, exponent),
    "log2(2**input + 2**other), without overflow.")


# ---- extremes that ignore nan --------------------------------------------------------------------

def _keeps_input(ctx):
    """Where fmax/fmin took input: ties and a nan other go to input (torch's convention)."""
    chosen = ctx.input >= ctx.other if ctx.larger else ctx.input <= ctx.other
    return chosen | (ctx.other != ctx.other)


def _extreme(name, node_name, ufunc, larger):
    @defop(node_name, save=("input", "other", "larger"), promote="common", name="_" + name)
    def extreme(xp, input: Tensor, other: Tensor, larger=larger):
        if input.dtype.kind == "c":  # input has the promoted dtype
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return getattr(xp, ufunc)(input, other)

    extreme.derivatives(input=lambda ctx: _masked_fill(ctx.grad, ~_keeps_input(ctx)._data, 0),
                        other=lambda ctx: _masked_fill(ctx.grad, _keeps_input(ctx)._data, 0))

    summary = f"The {'larger' if larger else 'smaller'} of two tensors, elementwise; a nan " \
              "loses to a number."
    return extreme, binary_of_tensors(name, extreme, summary)


_fmax, fmax = _extreme("fmax", "FmaxBackward0", "fmax", True)
_fmin, fmin = _extreme("fmin", "FminBackward0", "fmin", False)


# ---- steps and floating-point neighbours ---------------------------------------------------------

@defop("NotImplemented")
def _heaviside(xp, input: Tensor, values: Tensor):
    if input.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return xp.where(input == 0, values, input > 0).astype(input.dtype, copy=False)


not_implemented_in_torch(_heaviside, "heaviside")


def heaviside(input, values):
    """0 below zero, 1 above, values at zero (a nan input gives 0, as torch)."""
    require_tensors("heaviside", input=input, values=values)
    return torch_edges_only(_heaviside(input, values))


@defop("NextafterBackward0", save=("input", "other"), promote="common")
def _nextafter(xp, input: Tensor, other: Tensor):
    _require_floating("nextafter_cpu", xp.result_type(input, other))
    return xp.nextafter(input, other)


# torch's derivative: the step is too small to matter, so d/dinput is 1 (0 where the two are
# equal: the result is other then) and d/dother is 0
_nextafter.derivatives(input=lambda ctx: where(ctx.input != ctx.other, ctx.grad, 0.0),
                       other=lambda ctx: zeros_of(ctx.grad))


nextafter = binary_of_tensors(
    "nextafter", _nextafter, "The next float after input in the direction of other.")


# ---- powers of two -------------------------------------------------------------------------------

@defop("LdexpBackward0", save=("other", "result"), promote="float")
def _ldexp(xp, input: Tensor, other: Tensor):
    # as torch: input * 2**other, so a huge exponent overflows even where the product would not
    return input * xp.exp2(other)


# torch's pow(2, other) is an integer power for an integer other: 0 for a negative one. A
# float base keeps torch's node (PowBackward2) and gives the true gradient, 2 ** other.
_ldexp.derivatives(input=lambda ctx: ctx.grad * conj_of(pow(2.0, ctx.other)),
                   other=lambda ctx: mul_scalar(ctx.grad * conj_of(ctx.result), math.log(2.0)))


ldexp = binary_of_tensors("ldexp", _ldexp, "input * 2**other, a float. Unlike torch (0), the "
                          "gradient for a negative integer exponent is 2**other.")


frexp_return = return_type("frexp", ("mantissa", "exponent"))


@defop("FrexpBackward0", save=("result1",))
def _frexp(xp, input: Tensor):
    if not is_floating_kind(input.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = xp.frexp(input)
    return mantissa, exponent.astype(xp.int32, copy=False)


_frexp.derivatives(input=lambda ctx: ctx.grad / exp2(ctx.result1))


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent, 0.5 <= |mantissa| < 1."""
    return frexp_return(*_frexp(input))


def float_power(input, exponent):
    """input ** exponent in float64 (complex128 if either is complex), whatever the dtypes
    (torch: its pow on double copies)."""
    if not (isinstance(input, Tensor) or isinstance(exponent, Tensor)) or not all(
            isinstance(v, Tensor) or is_number(v) for v in (input, exponent)):
        raise invalid_combination("float_power", (input, exponent))
    is_complex = any(v.dtype.is_complex if isinstance(v, Tensor) else isinstance(v, complex)
                     for v in (input, exponent))
    dtype = _dtype.complex128 if is_complex else _dtype.float64
    input = input.to(dtype) if isinstance(input, Tensor) else input
    exponent = (exponent.to(dtype) if isinstance(exponent, Tensor)
                else complex(exponent) if is_complex else float(exponent))
    return pow(input, exponent)


def _float_power_(self, exponent):
    """Tensor.float_power_: in place only on a float64 tensor, which the result fits."""
    wanted = _dtype.complex128 if self.dtype.is_complex or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent.dtype.is_complex) else _dtype.float64
    if self.dtype is not wanted:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.legacy_name} "
                           f"but the operation's result requires dtype {wanted.legacy_name}")
    from ._inplace import inplace  # it imports the op modules
    return inplace(float_power, self, exponent)


# ---- integer ops ---------------------------------------------------------------------------------

@defop(None, promote="common")
def _gcd(xp, input: Tensor, other: Tensor):
    _require_integer("gcd_cpu", xp.result_type(input, other))
    return xp.gcd(input, other)


@defop(None, promote="common")
def _lcm(xp, input: Tensor, other: Tensor):
    _require_integer("lcm_cpu", xp.result_type(input, other))
    return xp.lcm(input, other)


gcd = binary_of_tensors(
    "gcd", _gcd, "The greatest common divisor of integers (non-negative; gcd(0, 0) is 0).")


lcm = binary_of_tensors(
    "lcm", _lcm, "The least common multiple of integers (non-negative, wrapping around).")


def _shift_amounts(xp, input, other):
    """The shift amounts, and where they lie outside [0, bits), which torch defines too."""
    bits = 8 * xp.result_type(input, other).itemsize
    outside = (other < 0) | (other >= bits)
    return xp.where(outside, 0, other), outside, bits


@defop(None, promote="common", name="_left_shift")
def _left_shift(xp, input: Tensor, other: Tensor):
    _require_integer("lshift_cpu", xp.result_type(input, other))
    amounts, outside, _ = _shift_amounts(xp, input, other)
    shifted = xp.left_shift(input, amounts.astype(xp.result_type(input, other)))
    return xp.where(outside, 0, shifted).astype(shifted.dtype, copy=False)  # all bits gone


@defop(None, promote="common", name="_right_shift")
def _right_shift(xp, input: Tensor, other: Tensor):
    _require_integer("rshift_cpu", xp.result_type(input, other))
    amounts, outside, bits = _shift_amounts(xp, input, other)
    dtype = xp.result_type(input, other)
    # shifting out all bits leaves the sign: 0, or -1 for negative signed values
    amounts = xp.where(outside, bits - 1, amounts).astype(dtype)
    shifted = xp.right_shift(input, amounts)
    if dtype.kind == "u":
        return xp.where(outside, 0, shifted).astype(dtype, copy=False)
    return shifted


def bitwise_left_shift(input, other):
    """input * 2**other on integers, wrapping around; 0 for shifts outside [0, bits)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        require_tensors("bitwise_left_shift", input=input)
    return _left_shift(input, other)


def bitwise_right_shift(input, other):
    """input // 2**other on integers; the sign alone for shifts outside [0, bits)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        require_tensors("bitwise_right_shift", input=input)
    return _right_shift(input, other)


# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = (
    "bitwise_left_shift bitwise_right_shift copysign float_power fmax fmin frexp gcd heaviside "
    "hypot lcm ldexp logaddexp logaddexp2 nextafter").split()
METHODS = FUNCTIONS
TENSOR_ONLY = {"float_power_": _float_power_, **{
    name + "_": integer_in_place(name)
    for name in ("bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm")}}
