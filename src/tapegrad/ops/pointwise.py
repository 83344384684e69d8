"""Elementwise ops: arithmetic, unary math, rounding, activations, comparisons, dtype copies."""
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from ._checks import broadcast_shapes
from ._define import defop
from .shape import zeros_of

# ---- argument checks: torch's errors, before any forward runs ------------------------------------

# torch's dtype checks name the C++ element types
_C_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def _not_implemented_for(kernel, numpy_dtype):
    name = _dtype.from_numpy_dtype(numpy_dtype).legacy_name
    return f"\"{kernel}\" not implemented for '{name}'"


# torch's overloads that take their last arguments either as tensors or as numbers
_OVERLOADS = {
    "fmod": ("Tensor input, Tensor other", "Tensor input, Number other"),
    "lerp": ("Tensor input, Tensor end, Tensor weight", "Tensor input, Tensor end, Number weight"),
    "clamp": ("Tensor input, Tensor min = None, Tensor max = None",
              "Tensor input, Number min = None, Number max = None"),
    "clamp_min": ("Tensor input, Tensor min", "Tensor input, Number min"),
    "clamp_max": ("Tensor input, Tensor max", "Tensor input, Number max"),
}
_OVERLOADS["clip"] = _OVERLOADS["clamp"]


def _takes_tensors(function, tensors, others, optional=False):
    """Whether `others` select the overload taking them as tensors (else as numbers); torch's
    TypeError when no overload fits (for optional others, Nones count as not given). The
    message spells every argument as passed by position, whatever the call did."""
    given = [value for value in others if not (optional and value is None)]
    if all(isinstance(value, Tensor) for value in tensors):
        if all(isinstance(value, Tensor) for value in given):
            return True
        if all(isinstance(value, (int, float, complex)) for value in given):
            return False
    got = ", ".join("Tensor" if isinstance(value, Tensor) else type(value).__name__
                    for value in (*tensors, *given))
    expected = "".join(f" * ({signature}, *, Tensor out = None)\n"
                       for signature in _OVERLOADS[function])
    raise TypeError(f"{function}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{expected}")


def _require_tensors(function, **arguments):
    """torch's TypeError for a number where its overload takes only tensors."""
    for position, (name, value) in enumerate(arguments.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")


# ---- arithmetic ----------------------------------------------------------------------------------


@defop("AddBackward0", save=("alpha",), promote="common")
def add(xp, input: Tensor, other: Tensor, alpha=1):
    return xp.add(input, other if alpha == 1 else other * alpha)


add.derivatives(input=lambda ctx: ctx.grad,
                other=lambda ctx: ctx.grad if ctx.alpha == 1 else ctx.grad * ctx.alpha)


@defop("SubBackward0", save=("alpha",), promote="common")
def sub(xp, input: Tensor, other: Tensor, alpha=1):
    _check_not_bool(input, other)
    return xp.subtract(input, other if alpha == 1 else other * alpha)


sub.derivatives(input=lambda ctx: ctx.grad,
                other=lambda ctx: -ctx.grad if ctx.alpha == 1 else ctx.grad * -ctx.alpha)


@defop("RsubBackward1", save=("alpha",), promote="common", scalars=("other",))
def _rsub_scalar(xp, input: Tensor, other, alpha=1):
    return xp.subtract(other, input if alpha == 1 else input * alpha)


_rsub_scalar.derivatives(input=lambda ctx: -ctx.grad if ctx.alpha == 1 else ctx.grad * -ctx.alpha)


@defop("RsubBackward0", save=("alpha",), promote="common")
def _rsub_tensor(xp, input: Tensor, other: Tensor, alpha=1):
    return xp.subtract(other, input if alpha == 1 else input * alpha)


_rsub_tensor.derivatives(input=lambda ctx: -ctx.grad if ctx.alpha == 1 else ctx.grad * -ctx.alpha,
                         other=lambda ctx: ctx.grad)


def rsub(input, other, alpha=1):
    """other - alpha * input."""
    if isinstance(other, Tensor):
        return _rsub_tensor(input, other, alpha)
    return _rsub_scalar(input, other, alpha)


def _check_not_bool(*values):
    if all(isinstance(v, bool) or getattr(v, "dtype", None) == bool for v in values):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")


@defop("MulBackward0", save=("input", "other"), promote="common")
def mul(xp, input: Tensor, other: Tensor):
    return xp.multiply(input, other)


mul.derivatives(input=lambda ctx: ctx.grad * ctx.other,
                other=lambda ctx: ctx.grad * ctx.input)


@defop("DivBackward0", save=("input", "other"), promote="float")
def _true_divide(xp, input: Tensor, other: Tensor):
    return xp.true_divide(input, other)


_true_divide.derivatives(input=lambda ctx: ctx.grad / ctx.other,
                         other=lambda ctx: -ctx.grad * ctx.input / (ctx.other * ctx.other))


# floor/trunc division keeps integer dtypes; its derivative is zero almost everywhere.
@defop("DivBackward2", promote="common")
def _rounded_divide(xp, input: Tensor, other: Tensor, rounding_mode):
    _check_divisor(xp, f"div_{rounding_mode}_cpu", input, other)
    if rounding_mode == "floor":
        return xp.floor_divide(input, other)
    return xp.trunc(xp.true_divide(input, other)).astype(xp.result_type(input, other))


_rounded_divide.derivatives(input=lambda ctx: zeros_of(ctx.grad),
                            other=lambda ctx: zeros_of(ctx.grad))


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_divide(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    return _rounded_divide(input, other, rounding_mode)


def _check_divisor(xp, kernel, input, other):
    """torch's errors where NumPy answers: for bools (torch has no kernel; input and other
    share the promoted dtype) and for an integer division by zero (NumPy gives 0)."""
    if input.dtype.kind == "b":
        raise NotImplementedError(_not_implemented_for(kernel, input.dtype))
    if input.dtype.kind != "f" and xp.any(xp.asarray(other) == 0):
        raise RuntimeError("ZeroDivisionError")


def _remainder_ops(name, rounding_mode, node_names):
    """The two ops of a remainder, by a number and by a tensor: input - q * other with the
    quotient q rounded by rounding_mode (xp.remainder: floor, xp.fmod: trunc)."""
    @defop(node_names[0], promote="common", scalars=("other",), name=f"_{name}_scalar")
    def by_number(xp, input: Tensor, other):
        _check_divisor(xp, f"{name}_cpu", input, other)
        return getattr(xp, name)(input, other)

    @defop(node_names[1], save=("input", "other"), promote="common", name=f"_{name}_tensor")
    def by_tensor(xp, input: Tensor, other: Tensor):
        _check_divisor(xp, f"{name}_cpu", input, other)
        return getattr(xp, name)(input, other)

    by_number.derivatives(input=lambda ctx: ctx.grad)
    by_tensor.derivatives(
        input=lambda ctx: ctx.grad,
        other=lambda ctx: -ctx.grad * div(ctx.input, ctx.other, rounding_mode=rounding_mode))
    return by_number, by_tensor


_remainder_scalar, _remainder_tensor = _remainder_ops(
    "remainder", "floor", ("RemainderBackward0", "RemainderBackward1"))
_fmod_scalar, _fmod_tensor = _remainder_ops("fmod", "trunc", ("FmodBackward0", "FmodBackward1"))


def _not_implemented(ctx):
    raise RuntimeError("derivative for aten::remainder is not implemented")


# number % tensor: torch records a node named NotImplemented that fails in backward
@defop("NotImplemented", promote="common", scalars=("self",))
def _remainder_scalar_tensor(xp, self, other: Tensor):
    _check_divisor(xp, "remainder_cpu", other, other)
    return xp.remainder(self, other)


_remainder_scalar_tensor.derivatives(other=_not_implemented)


def remainder(input, other):
    """Python's modulus (the sign of the divisor); numbers allowed on either side."""
    if not isinstance(input, Tensor):
        return _remainder_scalar_tensor(input, other)
    if isinstance(other, Tensor):
        return _remainder_tensor(input, other)
    return _remainder_scalar(input, other)


def fmod(input, other):
    """C's remainder (the sign of the dividend); other is a tensor or a number."""
    if _takes_tensors("fmod", (input,), (other,)):
        return _fmod_tensor(input, other)
    return _fmod_scalar(input, other)


@defop("NegBackward0")
def neg(xp, input: Tensor):
    if input.dtype == bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return xp.negative(input)


neg.derivatives(input=lambda ctx: -ctx.grad)


@defop("ReciprocalBackward0", save=("result",), promote="float")
def reciprocal(xp, input: Tensor):
    return xp.reciprocal(input)


reciprocal.derivatives(input=lambda ctx: -ctx.grad * ctx.result * ctx.result)


@defop("AddcmulBackward0", save=("tensor1", "tensor2", "value"), promote="common")
def _addcmul(xp, input: Tensor, tensor1: Tensor, tensor2: Tensor, value):
    if xp.result_type(input, tensor1, tensor2).kind not in "fc":
        value = int(value)  # as torch, an integer result takes the value truncated (2.5 -> 2)
    return input + value * tensor1 * tensor2


_addcmul.derivatives(input=lambda ctx: ctx.grad,
                     tensor1=lambda ctx: ctx.grad * ctx.tensor2 * ctx.value,
                     tensor2=lambda ctx: ctx.grad * ctx.tensor1 * ctx.value)


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    _require_tensors("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    return _addcmul(input, tensor1, tensor2, value)


@defop("AddcdivBackward0", save=("tensor1", "tensor2", "value"), promote="common")
def _addcdiv(xp, input: Tensor, tensor1: Tensor, tensor2: Tensor, value):
    return input + value * tensor1 / tensor2


_addcdiv.derivatives(
    input=lambda ctx: ctx.grad,
    tensor1=lambda ctx: ctx.grad * ctx.value / ctx.tensor2,
    tensor2=lambda ctx: -ctx.grad * ctx.value * ctx.tensor1 / (ctx.tensor2 * ctx.tensor2))


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, as a true division."""
    _require_tensors("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return _addcdiv(input, tensor1, tensor2, value)


# torch's lerp switches formula at |weight| = 0.5 so that both ends are reproduced exactly.
@defop("LerpBackward0", save=("weight",))
def _lerp_scalar(xp, input: Tensor, end: Tensor, weight):
    if -0.5 < weight < 0.5:
        return input + weight * (end - input)
    return end - (end - input) * (1 - weight)


_lerp_scalar.derivatives(input=lambda ctx: ctx.grad * (1 - ctx.weight),
                         end=lambda ctx: ctx.grad * ctx.weight)


@defop("LerpBackward1", save=("input", "end", "weight"))
def _lerp_tensor(xp, input: Tensor, end: Tensor, weight: Tensor):
    weight = weight.astype(input.dtype, copy=False)  # a 0-d weight may have any dtype
    return xp.where(xp.absolute(weight) < 0.5, input + weight * (end - input),
                    end - (end - input) * (1 - weight))


_lerp_tensor.derivatives(input=lambda ctx: ctx.grad * (1 - ctx.weight),
                         end=lambda ctx: ctx.grad * ctx.weight,
                         weight=lambda ctx: ctx.grad * (ctx.end - ctx.input))


def lerp(input, end, weight):
    """input + weight * (end - input); end (and a weight tensor with dims) of input's dtype."""
    weight_is_tensor = _takes_tensors("lerp", (input, end), (weight,))
    for name, value in (("end", end), ("weight", weight)):
        if (isinstance(value, Tensor) and value.dtype is not input.dtype
                and (name == "end" or value.ndim)):
            raise RuntimeError(f"expected dtype {_C_TYPE_NAMES[input.dtype.name]} for `{name}` "
                               f"but got dtype {_C_TYPE_NAMES[value.dtype.name]}")
    if not input.dtype.is_floating_point:
        kernel = "lerp_kernel_tensor" if weight_is_tensor else "lerp_kernel_scalar"
        raise NotImplementedError(_not_implemented_for(kernel, input.dtype.numpy))
    if weight_is_tensor:
        return _lerp_tensor(input, end, weight)
    return _lerp_scalar(input, end, weight)


# ---- powers --------------------------------------------------------------------------------------

# Three pow overloads, three node names: tensor ** number, tensor ** tensor, number ** tensor.
@defop("PowBackward0", save=("input", "exponent"), promote="common", scalars=("exponent",))
def _pow_tensor_scalar(xp, input: Tensor, exponent):
    if input.dtype.kind == "b":  # bool ** bool, which torch answers here: x ** True is x
        return input | (not exponent)
    return xp.power(input, exponent)


def _pow_scalar_exponent_grad(ctx):
    if ctx.exponent == 0:
        return zeros_of(ctx.grad)
    return ctx.grad * ctx.exponent * ctx.input ** (ctx.exponent - 1)


_pow_tensor_scalar.derivatives(input=_pow_scalar_exponent_grad)


@defop("PowBackward1", save=("input", "exponent", "result"), promote="common")
def _pow_tensor_tensor(xp, input: Tensor, exponent: Tensor):
    return _power(xp, input, exponent)


_pow_tensor_tensor.derivatives(
    # x ** 0 has derivative 0 even at x = 0, where the formula would give 0 * inf
    input=lambda ctx: where(ctx.exponent == 0, 0.0,
                            ctx.grad * ctx.exponent * ctx.input ** (ctx.exponent - 1)),
    # torch's convention: the exponent's gradient is 0 where the base is 0 and exponent >= 0
    exponent=lambda ctx: ctx.grad * where((ctx.input == 0) & (ctx.exponent >= 0), 0.0,
                                          ctx.result * log(ctx.input)))


@defop("PowBackward2", save=("self", "result"), promote="common", scalars=("self",))
def _pow_scalar_tensor(xp, self, exponent: Tensor):
    return _power(xp, self, exponent)


_pow_scalar_tensor.derivatives(
    exponent=lambda ctx: ctx.grad * ctx.result * _log_number(ctx.self))


def _power(xp, base, exponent):
    """xp.power, but integer exponents may be negative: NumPy refuses them, torch gives the
    integer part of base ** exponent (1 for base 1, +-1 for base -1, else 0)."""
    if exponent.dtype.kind == "b":  # both are bool (the dtype is the promoted one)
        raise NotImplementedError(_not_implemented_for("pow", exponent.dtype))
    integers = exponent.dtype.kind in "iu" and xp.asarray(base).dtype.kind in "iu"
    if not (integers and xp.any(exponent < 0)):
        return xp.power(base, exponent)
    negative = exponent < 0
    result = xp.power(base, xp.where(negative, 0, exponent))
    unit_power = xp.where(exponent % 2 == 0, 1, base)  # (+-1) ** exponent
    inverse = xp.where(xp.absolute(base) == 1, unit_power, 0)
    return xp.where(negative, inverse, result).astype(result.dtype, copy=False)


def pow(input, exponent):
    """input ** exponent; numbers allowed on either side, as torch."""
    if not isinstance(input, Tensor):
        return _pow_scalar_tensor(input, exponent)
    if isinstance(exponent, Tensor):
        return _pow_tensor_tensor(input, exponent)
    if (isinstance(exponent, int) and exponent < 0
            and not (input.dtype.is_floating_point or input.dtype.is_complex)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow_tensor_scalar(input, exponent)


def _log_number(number):
    return math.log(number) if number > 0 else float("nan") if number < 0 else float("-inf")


def square(input):
    return _pow_tensor_scalar(input, 2)


# ---- overloads with a number that ATen's compositions call -----------------------------------
# In Python `x * 2` records MulBackward0 (the number becomes a tensor); ATen's C++ calls the
# Scalar overloads, whose nodes have names of their own and no edge for the number.


@defop("AddBackward1", promote="common", scalars=("other",))
def add_scalar(xp, input: Tensor, other):
    return xp.add(input, other)


add_scalar.derivatives(input=lambda ctx: ctx.grad)


@defop("SubBackward1", promote="common", scalars=("other",))
def sub_scalar(xp, input: Tensor, other):
    return xp.subtract(input, other)


sub_scalar.derivatives(input=lambda ctx: ctx.grad)


@defop("MulBackward1", save=("other",), promote="common", scalars=("other",))
def mul_scalar(xp, input: Tensor, other):
    return xp.multiply(input, other)


mul_scalar.derivatives(input=lambda ctx: ctx.grad * ctx.other)


@defop("DivBackward1", save=("other",), promote="float", scalars=("other",))
def div_scalar(xp, input: Tensor, other):
    return xp.true_divide(input, other)


div_scalar.derivatives(input=lambda ctx: ctx.grad / ctx.other)


@defop("XlogyBackward0", save=("input", "other"), promote="float")
def xlogy(xp, input: Tensor, other: Tensor):
    # 0 * log(0) is 0 (a NaN other still gives NaN)
    product = xp.multiply(input, xp.log(other))
    return xp.where((input == 0) & ~xp.isnan(other), 0, product).astype(product.dtype)


xlogy.derivatives(input=lambda ctx: ctx.grad * xlogy(ctx.input != 0, ctx.other),
                   other=lambda ctx: ctx.grad * ctx.input / ctx.other)


# ---- unary math ----------------------------------------------------------------------------------

@defop("AbsBackward0", save=("input",))
def abs(xp, input: Tensor):
    return xp.absolute(input)


abs.derivatives(input=lambda ctx: ctx.grad * sign(ctx.input))


@defop("SignBackward0")
def sign(xp, input: Tensor):
    if input.dtype.kind == "b":
        return input.copy()
    if input.dtype.kind == "f":
        return xp.subtract(input > 0, input < 0, dtype=input.dtype)  # torch: sign(nan) is 0
    return xp.sign(input)


sign.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("ExpBackward0", save=("result",), promote="float")
def exp(xp, input: Tensor):
    return xp.exp(input)


exp.derivatives(input=lambda ctx: ctx.grad * ctx.result)


@defop("Exp2Backward0", save=("result",), promote="float")
def exp2(xp, input: Tensor):
    return xp.exp2(input)


exp2.derivatives(input=lambda ctx: ctx.grad * ctx.result * math.log(2.0))


@defop("Expm1Backward0", save=("result",), promote="float")
def expm1(xp, input: Tensor):
    return xp.expm1(input)


expm1.derivatives(input=lambda ctx: ctx.grad * (ctx.result + 1))


@defop("LogBackward0", save=("input",), promote="float")
def log(xp, input: Tensor):
    return xp.log(input)


log.derivatives(input=lambda ctx: ctx.grad / ctx.input)


@defop("Log2Backward0", save=("input",), promote="float")
def log2(xp, input: Tensor):
    return xp.log2(input)


log2.derivatives(input=lambda ctx: ctx.grad / (ctx.input * math.log(2.0)))


@defop("Log10Backward0", save=("input",), promote="float")
def log10(xp, input: Tensor):
    return xp.log10(input)


log10.derivatives(input=lambda ctx: ctx.grad / (ctx.input * math.log(10.0)))


@defop("Log1PBackward0", save=("input",), promote="float")
def log1p(xp, input: Tensor):
    return xp.log1p(input)


log1p.derivatives(input=lambda ctx: ctx.grad / (ctx.input + 1))


@defop("SqrtBackward0", save=("result",), promote="float")
def sqrt(xp, input: Tensor):
    return xp.sqrt(input)


sqrt.derivatives(input=lambda ctx: ctx.grad / (2 * ctx.result))


@defop("RsqrtBackward0", save=("result",), promote="float")
def rsqrt(xp, input: Tensor):
    return xp.reciprocal(xp.sqrt(input))


rsqrt.derivatives(input=lambda ctx: ctx.grad * ctx.result ** 3 * -0.5)


@defop("SinBackward0", save=("input",), promote="float")
def sin(xp, input: Tensor):
    return xp.sin(input)


sin.derivatives(input=lambda ctx: ctx.grad * cos(ctx.input))


@defop("CosBackward0", save=("input",), promote="float")
def cos(xp, input: Tensor):
    return xp.cos(input)


cos.derivatives(input=lambda ctx: ctx.grad * -sin(ctx.input))


@defop("TanBackward0", save=("result",), promote="float")
def tan(xp, input: Tensor):
    return xp.tan(input)


tan.derivatives(input=lambda ctx: ctx.grad * (1 + ctx.result * ctx.result))


@defop("AsinBackward0", save=("input",), promote="float")
def asin(xp, input: Tensor):
    return xp.arcsin(input)


asin.derivatives(input=lambda ctx: ctx.grad * rsqrt(1 - ctx.input * ctx.input))


@defop("AcosBackward0", save=("input",), promote="float")
def acos(xp, input: Tensor):
    return xp.arccos(input)


acos.derivatives(input=lambda ctx: ctx.grad * -rsqrt(1 - ctx.input * ctx.input))


@defop("AtanBackward0", save=("input",), promote="float")
def atan(xp, input: Tensor):
    return xp.arctan(input)


atan.derivatives(input=lambda ctx: ctx.grad / (ctx.input * ctx.input + 1))


@defop("Atan2Backward0", save=("input", "other"), promote="float")
def _atan2(xp, input: Tensor, other: Tensor):
    return xp.arctan2(input, other)


_atan2.derivatives(input=lambda ctx: ctx.grad * ctx.other * _inverse_squared_radius(ctx),
                   other=lambda ctx: ctx.grad * -ctx.input * _inverse_squared_radius(ctx))


def _inverse_squared_radius(ctx):
    # torch gives atan2 a zero gradient at the origin, where it has none
    squared = ctx.input * ctx.input + ctx.other * ctx.other
    return where(squared == 0, 0.0, reciprocal(squared))


def atan2(input, other):
    """The angle of the point (other, input), in (-pi, pi]."""
    _require_tensors("atan2", input=input, other=other)
    return _atan2(input, other)


@defop("SinhBackward0", save=("input",), promote="float")
def sinh(xp, input: Tensor):
    return xp.sinh(input)


sinh.derivatives(input=lambda ctx: ctx.grad * cosh(ctx.input))


@defop("CoshBackward0", save=("input",), promote="float")
def cosh(xp, input: Tensor):
    return xp.cosh(input)


cosh.derivatives(input=lambda ctx: ctx.grad * sinh(ctx.input))


@defop("TanhBackward0", save=("result",), promote="float")
def tanh(xp, input: Tensor):
    return xp.tanh(input)


tanh.derivatives(input=lambda ctx: ctx.grad * (1 - ctx.result * ctx.result))


@defop("AsinhBackward0", save=("input",), promote="float")
def asinh(xp, input: Tensor):
    return xp.arcsinh(input)


asinh.derivatives(input=lambda ctx: ctx.grad * rsqrt(ctx.input * ctx.input + 1))


@defop("AcoshBackward0", save=("input",), promote="float")
def acosh(xp, input: Tensor):
    return xp.arccosh(input)


acosh.derivatives(input=lambda ctx: ctx.grad * rsqrt(ctx.input * ctx.input - 1))


@defop("AtanhBackward0", save=("input",), promote="float")
def atanh(xp, input: Tensor):
    return xp.arctanh(input)


atanh.derivatives(input=lambda ctx: ctx.grad / (1 - ctx.input * ctx.input))


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf'(x) = 2 / sqrt(pi) * exp(-x * x)


@defop("ErfBackward0", save=("input",), promote="float")
def erf(xp, input: Tensor):
    return _erf_and_erfc(xp, input)[0]


erf.derivatives(input=lambda ctx: ctx.grad * exp(-ctx.input * ctx.input) * _TWO_OVER_SQRT_PI)


@defop("ErfcBackward0", save=("input",), promote="float")
def erfc(xp, input: Tensor):
    return _erf_and_erfc(xp, input)[1]


erfc.derivatives(input=lambda ctx: ctx.grad * exp(-ctx.input * ctx.input) * -_TWO_OVER_SQRT_PI)


def _erf_and_erfc(xp, input):
    """(erf, erfc) of a float array, computed in float64 by W. J. Cody's rational
    approximations (Math. Comp. 23, 1969; netlib specfun CALERF), in the input's dtype."""
    x = input.astype(xp.float64, copy=False)
    magnitude = xp.absolute(x)
    small = magnitude <= 0.46875  # Cody's break point: erf itself, else erfc of |x|
    erf_x, erfc_x = xp.empty_like(x), xp.empty_like(x)
    near_zero = x[small]
    inner = near_zero * _rational(_ERF_NEAR_ZERO, near_zero * near_zero)
    erf_x[small], erfc_x[small] = inner, 1 - inner
    outer = _erfc_of_magnitude(xp, magnitude[~small])
    negative = x[~small] < 0
    erf_x[~small] = xp.where(negative, outer - 1, 1 - outer)
    erfc_x[~small] = xp.where(negative, 2 - outer, outer)
    return erf_x.astype(input.dtype, copy=False), erfc_x.astype(input.dtype, copy=False)


def _erfc_of_magnitude(xp, y):
    """erfc(y) for y > 0.46875: exp(-y*y) times a rational function of y, or of 1/y**2
    beyond 4; exactly 0 past 27, where exp(-y*y) underflows."""
    middle = y <= 4
    scaled = xp.empty_like(y)
    scaled[middle] = _rational(_ERFC_MIDDLE, y[middle])
    far = y[~middle]
    inverse_square = 1 / (far * far)
    scaled[~middle] = (1 / math.sqrt(math.pi)
                       - inverse_square * _rational(_ERFC_FAR, inverse_square)) / far
    # y*y would round before exp(-y*y) magnifies its error; y in whole sixteenths squares
    # exactly, and the small rest is squared as (y - whole) * (y + whole)
    whole = xp.trunc(y * 16) / 16
    decay = xp.exp(-whole * whole) * xp.exp(-(y - whole) * (y + whole))
    return xp.where(y > 27, 0.0, scaled * decay)


def _rational(coefficients, x):
    """p(x) / q(x) by Horner's rule; coefficients = (p, q), highest power first."""
    numerator, denominator = (_horner(c, x) for c in coefficients)
    return numerator / denominator


def _horner(coefficients, x):
    result = coefficients[0]
    for coefficient in coefficients[1:]:
        result = result * x + coefficient
    return result


# Cody's coefficients, regrouped as polynomials with the highest power first.
_ERF_NEAR_ZERO = (
    (1.85777706184603153e-1, 3.16112374387056560e00, 1.13864154151050156e02,
     3.77485237685302021e02, 3.20937758913846947e03),
    (1.0, 2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
     2.84423683343917062e03))
_ERFC_MIDDLE = (
    (2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e00,
     6.61191906371416295e01, 2.98635138197400131e02, 8.81952221241769090e02,
     1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03),
    (1.0, 1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
     1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
     3.43936767414372164e03, 1.23033935480374942e03))
_ERFC_FAR = (
    (1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1,
     1.25781726111229246e-1, 1.60837851487422766e-2, 6.58749161529837803e-4),
    (1.0, 2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
     6.05183413124413191e-2, 2.33520497626869185e-3))


@defop("SigmoidBackward0", save=("result",), promote="float")
def sigmoid(xp, input: Tensor):
    # Split by sign so exp never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) otherwise.
    positive = input >= 0
    exp_neg_abs = xp.exp(xp.where(positive, -input, input))
    return xp.where(positive, 1, exp_neg_abs) / (1 + exp_neg_abs)


sigmoid.derivatives(input=lambda ctx: ctx.grad * ctx.result * (1 - ctx.result))


@defop("LogitBackward0", save=("input", "eps"), promote="float")
def logit(xp, input: Tensor, eps=None):
    if eps is not None and eps >= 0:
        # torch's order of tests: with eps > 0.5 every input lands on one of the two bounds
        input = xp.where(input < eps, eps, xp.where(input > 1 - eps, 1 - eps, input))
    return xp.log(input / (1 - input))


def _logit_grad(ctx):
    # 0 where eps clamped the input (outside [eps, 1 - eps]), nan outside [0, 1] without eps.
    # A torch quirk we copy: a negative eps counts as no eps in a plain backward, but as a
    # (wider) clamp range in a create_graph backward, where torch takes another formula.
    input, eps = ctx.input, ctx.eps
    if eps is None or (eps < 0 and not grad_mode.is_grad_enabled()):
        return where((input >= 0) & (input <= 1), ctx.grad / (input * (1 - input)), math.nan)
    return where((input >= eps) & (input <= 1 - eps), ctx.grad / (input * (1 - input)), 0.0)


logit.derivatives(input=_logit_grad)


@defop("ReluBackward0", save=("result",))
def relu(xp, input: Tensor):
    return xp.maximum(input, 0).astype(input.dtype, copy=False)


relu.derivatives(input=lambda ctx: ctx.grad * (ctx.result > 0))


# ---- rounding: piecewise constant, so torch gives zero gradients ---------------------------------

def _rounded(input, rounding, kernel):
    """Integers are whole already (a copy); torch has no kernel for bool."""
    if input.dtype.kind == "b":
        raise NotImplementedError(_not_implemented_for(kernel, input.dtype))
    return rounding(input) if input.dtype.kind == "f" else input.copy()


@defop("FloorBackward0")
def floor(xp, input: Tensor):
    return _rounded(input, xp.floor, "floor_vml_cpu")


floor.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("CeilBackward0")
def ceil(xp, input: Tensor):
    return _rounded(input, xp.ceil, "ceil_vml_cpu")


ceil.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("TruncBackward0")
def trunc(xp, input: Tensor):
    return _rounded(input, xp.trunc, "trunc_vml_cpu")


trunc.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("RoundBackward0")
def _round(xp, input: Tensor):
    return _rounded(input, xp.rint, "round_vml_cpu")  # rint: halves to even, as torch


_round.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("RoundBackward1")
def _round_decimals(xp, input: Tensor, decimals):
    if input.dtype.kind != "f":
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(_not_implemented_for(kernel, input.dtype))
    # as torch: scale by 10**|decimals| in the input's dtype (float16 in float32), round, unscale
    work = input.astype(xp.float32) if input.dtype == xp.float16 else input
    scale = work.dtype.type(10.0 ** (decimals if decimals >= 0 else -decimals))
    if decimals >= 0:
        return (xp.rint(work * scale) / scale).astype(input.dtype, copy=False)
    return (xp.rint(work / scale) * scale).astype(input.dtype, copy=False)


_round_decimals.derivatives(input=lambda ctx: zeros_of(ctx.grad))


def round(input, *, decimals=None):
    """Round half to even, to `decimals` decimal places when given (negative: tens, ...).
    Unlike torch, decimals=None is accepted (it means no decimals were given)."""
    if decimals is None:
        return _round(input)
    return _round_decimals(input, decimals)


@defop("FracBackward0")
def frac(xp, input: Tensor):
    if input.dtype.kind != "f":
        raise NotImplementedError(_not_implemented_for("frac_cpu", input.dtype))
    return input - xp.trunc(input)


frac.derivatives(input=lambda ctx: ctx.grad)


# ---- clamping and elementwise extremes -----------------------------------------------------------

@defop("ClampBackward1", save=("input", "min", "max"), promote="common", scalars=("min", "max"))
def _clamp_scalar(xp, input: Tensor, min=None, max=None):
    return _clamped(xp, input, min, max)


def _clamped(xp, input, min, max):
    result = input
    if min is not None:
        result = xp.maximum(result, min)
    if max is not None:
        result = xp.minimum(result, max)
    return result.astype(input.dtype, copy=False)


def _inside_bounds(ctx):
    # torch passes the gradient through at the bounds themselves (x == min counts as inside).
    if ctx.min is None:
        return ctx.input <= ctx.max
    if ctx.max is None:
        return ctx.input >= ctx.min
    return (ctx.input >= ctx.min) & (ctx.input <= ctx.max)


_clamp_scalar.derivatives(input=lambda ctx: ctx.grad * _inside_bounds(ctx))


@defop("ClampBackward0", save=("input", "min", "max"), promote="common")
def _clamp_tensor(xp, input: Tensor, min: Tensor, max: Tensor):
    return _clamped(xp, input, min, max)


# Where min > max the result is max, so max takes the gradient (torch's convention).
_clamp_tensor.derivatives(
    input=lambda ctx: ctx.grad * _inside_bounds(ctx),
    min=lambda ctx: ctx.grad * (ctx.input < ctx.min) if ctx.max is None
    else ctx.grad * ((ctx.input < ctx.min) & (ctx.min < ctx.max)),
    max=lambda ctx: ctx.grad * (ctx.input > ctx.max) if ctx.min is None
    else ctx.grad * ((ctx.input > ctx.max) | (ctx.max < ctx.min)))


def clamp(input, min=None, max=None):
    """Limit input to [min, max]; either bound may be a number or a (broadcast) tensor."""
    return _clamp_any("clamp", input, min, max)


def clip(input, min=None, max=None):
    """clamp under NumPy's name."""
    return _clamp_any("clip", input, min, max)


def _clamp_any(name, input, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    # two tensor bounds or two number bounds, never one of each
    if _takes_tensors(name, (input,), (min, max), optional=True):
        return _clamp_tensor(input, min, max)
    return _clamp_scalar(input, min, max)


@defop("ClampMinBackward0", save=("input", "min"), promote="common", scalars=("min",))
def _clamp_min_scalar(xp, input: Tensor, min):
    return _clamped(xp, input, min, None)


_clamp_min_scalar.derivatives(input=lambda ctx: ctx.grad * (ctx.input >= ctx.min))


@defop("ClampMinBackward1", save=("input", "min"), promote="common")
def _clamp_min_tensor(xp, input: Tensor, min: Tensor):
    return _clamped(xp, input, min, None)


_clamp_min_tensor.derivatives(input=lambda ctx: ctx.grad * (ctx.input >= ctx.min),
                              min=lambda ctx: ctx.grad * (ctx.input < ctx.min))


def clamp_min(input, min):
    """Limit input from below by a number or a (broadcast) tensor."""
    if _takes_tensors("clamp_min", (input,), (min,)):
        return _clamp_min_tensor(input, min)
    return _clamp_min_scalar(input, min)


@defop("ClampMaxBackward0", save=("input", "max"), promote="common", scalars=("max",))
def _clamp_max_scalar(xp, input: Tensor, max):
    return _clamped(xp, input, None, max)


_clamp_max_scalar.derivatives(input=lambda ctx: ctx.grad * (ctx.input <= ctx.max))


@defop("ClampMaxBackward1", save=("input", "max"), promote="common")
def _clamp_max_tensor(xp, input: Tensor, max: Tensor):
    return _clamped(xp, input, None, max)


_clamp_max_tensor.derivatives(input=lambda ctx: ctx.grad * (ctx.input <= ctx.max),
                              max=lambda ctx: ctx.grad * (ctx.input > ctx.max))


def clamp_max(input, max):
    """Limit input from above by a number or a (broadcast) tensor."""
    if _takes_tensors("clamp_max", (input,), (max,)):
        return _clamp_max_tensor(input, max)
    return _clamp_max_scalar(input, max)


def _maximum_grad(ctx, mine, theirs):
    # torch splits the gradient evenly on ties
    return where(mine == theirs, ctx.grad / 2, ctx.grad * (mine > theirs))


@defop("MaximumBackward0", save=("input", "other"), promote="common")
def _maximum(xp, input: Tensor, other: Tensor):
    return xp.maximum(input, other)


_maximum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other),
                     other=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input))


@defop("MinimumBackward0", save=("input", "other"), promote="common")
def _minimum(xp, input: Tensor, other: Tensor):
    return xp.minimum(input, other)


_minimum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input),
                     other=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other))


def maximum(input, other):
    """The larger of two tensors, elementwise (nan if either is)."""
    _require_tensors("maximum", input=input, other=other)
    return _maximum(input, other)


def minimum(input, other):
    """The smaller of two tensors, elementwise (nan if either is)."""
    _require_tensors("minimum", input=input, other=other)
    return _minimum(input, other)


# ---- selection -----------------------------------------------------------------------------------

@defop("WhereBackward0", save=("condition",), promote="common")
def _where(xp, condition, input: Tensor, other: Tensor):
    return xp.where(condition, input, other)


_where.derivatives(input=lambda ctx: _where(ctx.condition, ctx.grad, 0.0),
                   other=lambda ctx: _where(ctx.condition, 0.0, ctx.grad))


@defop(None)
def _nonzero_indices(xp, condition: Tensor):
    return xp.nonzero(xp.atleast_1d(condition))


def where(condition, input=None, other=None):
    """input where condition holds, else other (tensors or numbers); where(condition) alone
    gives the indices of condition's nonzero elements, one tensor per dim."""
    if input is None and other is None:
        return _nonzero_indices(condition)
    if condition.dtype is not _dtype.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.legacy_name}")
    shapes = [v.shape for v in (condition, input, other) if isinstance(v, Tensor)]
    broadcast_shapes(*shapes)  # the condition takes part, first, as in torch's message
    result = _where(condition._data, input, other)
    if not (isinstance(input, Tensor) or isinstance(other, Tensor)):
        # two numbers: the result has their dtype as tensors (float32 for 1.0 and 0.0)
        return result.to(_dtype.result_type([], [], [input, other]))
    return result


@defop("NanToNumBackward0", save=("input",))
def nan_to_num(xp, input: Tensor, nan=0.0, posinf=None, neginf=None):
    """nan, +inf and -inf replaced by numbers; the infinities by default by the dtype's
    largest and smallest finite values."""
    if input.dtype.kind != "f":
        return input.copy()
    return xp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num.derivatives(input=lambda ctx: ctx.grad * isfinite(ctx.input))


# ---- comparisons, logic and tests (never differentiable) -----------------------------------------

def _binary_predicate(name, ufunc):
    @defop(None, promote="common", name=name)
    def predicate(xp, input: Tensor, other: Tensor):
        return ufunc(input, other)
    return predicate


eq = _binary_predicate("eq", np.equal)
ne = _binary_predicate("ne", np.not_equal)
lt = _binary_predicate("lt", np.less)
le = _binary_predicate("le", np.less_equal)
gt = _binary_predicate("gt", np.greater)
ge = _binary_predicate("ge", np.greater_equal)
bitwise_and = _binary_predicate("bitwise_and", np.bitwise_and)
bitwise_or = _binary_predicate("bitwise_or", np.bitwise_or)
bitwise_xor = _binary_predicate("bitwise_xor", np.bitwise_xor)


@defop(None)
def bitwise_not(xp, input: Tensor):
    if input.dtype.kind == "f":
        raise TypeError("bitwise_not is only supported for integer and boolean tensors")
    return xp.invert(input)


def _logical(name, ufunc):
    """A logical op of two tensors of any dtypes (nonzero is true), giving bool."""
    @defop(None, name="_" + name)
    def truth(xp, input: Tensor, other: Tensor):
        return ufunc(input, other)

    def logical(input, other):
        _require_tensors(name, input=input, other=other)
        return truth(input, other)
    logical.__name__ = logical.__qualname__ = name
    return logical


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)


@defop(None)
def logical_not(xp, input: Tensor):
    return xp.logical_not(input)


@defop(None)
def isnan(xp, input: Tensor):
    return xp.isnan(input)


@defop(None)
def isinf(xp, input: Tensor):
    return xp.isinf(input)


@defop(None)
def isfinite(xp, input: Tensor):
    return xp.isfinite(input)


# ---- copies --------------------------------------------------------------------------------------

@defop("CloneBackward0")
def clone(xp, input: Tensor, memory_format=None):
    return input.copy()


clone.derivatives(input=lambda ctx: ctx.grad)


@defop("ToCopyBackward0", save=("input_dtype",))
def _to_copy(xp, input: Tensor, dtype, input_dtype=None):
    return input.astype(dtype.numpy)


_to_copy.derivatives(input=lambda ctx: ctx.grad.to(ctx.input_dtype))


def to_copy(input, dtype):
    """A copy of input cast to dtype, differentiable back to input's dtype."""
    return _to_copy(input, dtype, input.dtype)


def _tensor_where(input, condition, other):
    """Tensor.where(condition, other): input where condition holds, else other."""
    return where(condition, input, other)


# torch's second names for the same ops
absolute, negative, multiply, divide, subtract = abs, neg, mul, div, sub
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh, fix = asinh, acosh, atanh, trunc

# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = (
    "abs absolute acos add addcdiv addcmul arccos arccosh arcsin arcsinh arctan arctan2 "
    "arctanh acosh asin asinh atan atan2 atanh bitwise_and bitwise_not bitwise_or "
    "bitwise_xor ceil clamp clamp_max clamp_min clip clone cos cosh div divide eq erf erfc "
    "exp exp2 expm1 fix floor fmod frac ge gt isfinite isinf isnan le lerp log log10 log1p "
    "log2 logical_and logical_not logical_or logical_xor logit lt maximum minimum mul "
    "multiply nan_to_num ne neg negative pow reciprocal relu remainder round rsqrt rsub "
    "sigmoid sign sin sinh sqrt square sub subtract tan tanh trunc where").split()
METHODS = [name for name in FUNCTIONS if name not in ("rsub", "where")]
TENSOR_ONLY = {"where": _tensor_where}
