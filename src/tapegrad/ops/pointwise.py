"""Elementwise ops: arithmetic, powers, clamping, selection (where), comparisons and logic,
dtype copies. Unary math and rounding are in unary.py."""
import cmath
import functools
import math

import numpy as np

from .. import _backend, _dtype, _layout
from .._tensor import Tensor
from .._warnings import warn
from ._checks import (broadcast_shapes, counting_tensor, is_floating_kind, is_number, is_reduced,
                      number, overload_error, scaled, type_name)
from ._define import array_of, defop
from .shape import zeros_of

# ---- argument checks: torch's errors, before any forward runs ------------------------------------

# torch's dtype checks name the C++ element types
_C_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                 "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def not_implemented_for(kernel, numpy_dtype):
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
_OVERLOADS["copysign"] = ("Tensor input, Tensor other", "Tensor input, Number other")
_OVERLOADS["xlogy"] = ("Tensor input, Tensor other", "Number self, Tensor other",
                       "Tensor input, Number other")
_OVERLOADS["float_power"] = ("Tensor input, Tensor exponent", "Number self, Tensor exponent",
                             "Tensor input, Number exponent")
_OVERLOADS["pow"] = _OVERLOADS["float_power"]
_OVERLOADS["remainder"] = ("Tensor input, Tensor other", "Number self, Tensor other",
                           "Tensor input, Number other")


def takes_tensors(function, tensors, others, optional=False):
    """Whether `others` select the overload taking them as tensors (else as numbers); torch's
    TypeError when no overload fits (for optional others, Nones count as not given). The
    message spells every argument as passed by position, whatever the call did."""
    given = [value for value in others if not (optional and value is None)]
    if all(isinstance(value, Tensor) for value in tensors):
        if all(isinstance(value, Tensor) for value in given):
            return True
        if all(isinstance(value, (int, float, complex, np.number)) for value in given):
            return False
    raise invalid_combination(function, (*tensors, *given))


def invalid_combination(function, values):
    """torch's TypeError for arguments that fit none of its overloads of `function`."""
    got = ", ".join("Tensor" if isinstance(value, Tensor) else type(value).__name__
                    for value in values)
    expected = "".join(f" * ({signature}, *, Tensor out = None)\n"
                       for signature in _OVERLOADS[function])
    return TypeError(f"{function}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{expected}")


def binary_of_tensors(name, op, summary):
    """The public function of a binary op that torch declares for two tensors only."""
    def function(input, other):
        require_tensors(name, input=input, other=other)
        return op(input, other)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = summary
    return function


@counting_tensor
def require_tensors(function, **arguments):
    """torch's TypeError for a number where its overload takes only tensors."""
    for position, (name, value) in enumerate(arguments.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")


def not_implemented_in_torch(op, aten_name):
    """Give op torch's node for ops without a derivative: NotImplemented (see CPP_NODES in
    _define.py for its name()), whose backward raises."""
    def formula(ctx):
        raise RuntimeError(f"derivative for aten::{aten_name} is not implemented")
    op.derivatives(**{name: formula for name in op.input_names})


def torch_edges_only(result):
    """result, its NotImplemented node keeping edges only to the inputs that require grad
    (torch's node has no entry for the others; its backward raises before any is used)."""
    node = result.grad_fn
    if node is not None:
        node.next_functions = tuple(edge for edge in node.next_functions if edge[0] is not None)
    return result


# ---- arithmetic ----------------------------------------------------------------------------------


@defop("AddBackward0", save=("alpha",), promote="common")
def add(xp, input: Tensor, other: Tensor, alpha=1):
    return xp.add(input, other if alpha == 1 else scaled(other, alpha, "add"))


# Note [Scalar overloads]: torch's C++ formulas multiply by a number through the Scalar
# overloads, whose nodes (MulBackward1, AddBackward1, ...) have no edge for it: they call
# mul_scalar & co. below where Python's `grad * alpha` would record MulBackward0.
add.derivatives(input=lambda ctx: ctx.grad,
                other=lambda ctx: ctx.grad if ctx.alpha == 1
                else mul_scalar(ctx.grad, conj_of(ctx.alpha)))


def _negated_times_alpha(ctx):
    return -ctx.grad if ctx.alpha == 1 else mul_scalar(-ctx.grad, conj_of(ctx.alpha))


@defop("SubBackward0", save=("alpha",), promote="common")
def _sub(xp, input: Tensor, other: Tensor, alpha=1):
    return xp.subtract(input, other if alpha == 1 else scaled(other, alpha, "sub"))


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    if _has_bool(input, other):
        _check_not_bool(input, other)
    return _sub(input, other, alpha)


_sub.derivatives(input=lambda ctx: ctx.grad, other=_negated_times_alpha)


@defop("RsubBackward1", save=("alpha",), promote="common", scalars=("other",))
def _rsub_scalar(xp, input: Tensor, other, alpha=1):
    return xp.subtract(other, input if alpha == 1 else scaled(input, alpha, "rsub"))


_rsub_scalar.derivatives(input=_negated_times_alpha)


@defop("RsubBackward0", save=("alpha",), promote="common")
def _rsub_tensor(xp, input: Tensor, other: Tensor, alpha=1):
    return xp.subtract(other, input if alpha == 1 else scaled(input, alpha, "rsub"))


_rsub_tensor.derivatives(input=_negated_times_alpha, other=lambda ctx: ctx.grad)


def rsub(input, other, alpha=1):
    """other - alpha * input."""
    if _has_bool(input, other):
        _check_not_bool(input, other)
    if isinstance(other, Tensor):
        return _rsub_tensor(input, other, alpha)
    if not is_number(other):
        raise overload_error("rsub", ("Tensor input, Tensor other, *, Number alpha = 1",
                                      "Tensor input, Number other, Number alpha = 1"),
                             (input, other))
    return _rsub_scalar(input, other, alpha)


def _has_bool(input, other):
    """Whether a bool tensor or number takes part (cheap: it runs on every subtraction)."""
    return (getattr(input, "dtype", None) is _dtype.bool or other.__class__ is bool
            or getattr(other, "dtype", None) is _dtype.bool)


def _check_not_bool(input, other):
    """torch refuses subtraction with a bool operand (a bool number counts as one)."""
    is_bool = [isinstance(v, bool) or getattr(v, "dtype", None) is _dtype.bool
               for v in (input, other)]
    if all(is_bool):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(is_bool):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


@defop("MulBackward0", save=("input", "other"), promote="common")
def mul(xp, input: Tensor, other: Tensor):
    if type(other) in (float, int) or type(input) in (float, int):
        return _half_with_number(xp, xp.multiply, input, other)
    return xp.multiply(input, other)


def _half_with_number(xp, ufunc, input, other):
    """ufunc of an array and a Python number. A float16 or bfloat16 array is computed in
    float32 with the number in float32, and rounded once, as torch's opmath does for mul and
    div by a scalar: NumPy would round the number to the half type first."""
    array = other if type(input) in (float, int) else input
    dtype = getattr(array, "dtype", None)
    if dtype is None or dtype.itemsize != 2 or dtype.kind not in "fV":
        return ufunc(input, other)
    wide = [value.astype(xp.float32) if value is array else xp.float32(value)
            for value in (input, other)]
    return ufunc(*wide).astype(dtype)


# Note [Conjugate Wirtinger]: torch's gradient of a complex input is the conjugate Wirtinger
# derivative, grad * conj(f'(z)) for a holomorphic f; conj_of is the identity on real values,
# so the same formulas serve real tensors at no cost.
mul.derivatives(input=lambda ctx: _times(ctx.grad, conj_of(ctx.other)),
                other=lambda ctx: _times(ctx.grad, conj_of(ctx.input)))


def _times(grad, factor):
    """grad * factor; on arrays a Python number rounds as in mul's forward, not as NumPy's
    (which rounds it to a half-precision grad's dtype first), so arrays and Tensors agree."""
    if type(factor) in (float, int) and not isinstance(grad, Tensor):
        xp = _backend.array_module(grad)
        return _half_with_number(xp, xp.multiply, grad, factor)
    return grad * factor


@defop("DivBackward0", save=("input", "other"), promote="float")
def _true_divide(xp, input: Tensor, other: Tensor):
    if type(other) in (float, int):  # a number divisor only: torch rounds a number dividend
        return _half_with_number(xp, xp.true_divide, input, other)
    return xp.true_divide(input, other)


_true_divide.derivatives(input=lambda ctx: ctx.grad / conj_of(ctx.other),
                         # divided twice, not by other ** 2, which underflows for tiny others
                         other=lambda ctx: -ctx.grad * conj_of(ctx.input / ctx.other / ctx.other))


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


def true_divide(input, other):
    """div without a rounding mode: always a float."""
    return _true_divide(input, other)


# torch records a node for floor_divide whose backward raises
@defop("NotImplemented", promote="common")
def _floor_divide(xp, input: Tensor, other: Tensor):
    _check_divisor(xp, "div_floor_cpu", input, other)
    return xp.floor_divide(input, other)


not_implemented_in_torch(_floor_divide, "floor_divide")


def floor_divide(input, other):
    """input / other rounded down (as div with rounding_mode='floor'); numbers on either side."""
    return torch_edges_only(_floor_divide(input, other))


def _check_divisor(xp, kernel, input, other):
    """torch's errors where NumPy answers: for bools (torch has no kernel; input and other
    share the promoted dtype) and for an integer division by zero (NumPy gives 0)."""
    dtype = xp.result_type(input, other)
    if dtype.kind in "bc":  # nor for complex numbers, which have no floor
        raise NotImplementedError(not_implemented_for(kernel, dtype))
    if not is_floating_kind(dtype) and xp.any(xp.asarray(other) == 0):
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


# number % tensor: torch records a node named NotImplemented that fails in backward
@defop("NotImplemented", promote="common", scalars=("self",))
def _remainder_scalar_tensor(xp, self, other: Tensor):
    _check_divisor(xp, "remainder_cpu", other, other)
    return xp.remainder(self, other)


not_implemented_in_torch(_remainder_scalar_tensor, "remainder")


def remainder(input, other):
    """Python's modulus (the sign of the divisor); numbers allowed on either side."""
    if not isinstance(input, Tensor):
        if not (is_number(input) and isinstance(other, Tensor)):
            raise _remainder_error(input, other)
        return _remainder_scalar_tensor(input, other)
    if isinstance(other, Tensor):
        return _remainder_tensor(input, other)
    if not is_number(other):
        raise _remainder_error(input, other)
    return _remainder_scalar(input, other)


def _remainder_error(input, other):
    """torch's TypeError for remainder: of its overloads, the one without out= (Number self,
    Tensor other) also says which arguments do not fit it, marked with !."""
    def shown(value, fits):
        kind = "Tensor" if isinstance(value, Tensor) else type(value).__name__
        if isinstance(value, (list, tuple)):
            kind += f" of [{', '.join(type(v).__name__ for v in value)}]"
        return kind if fits else f"!{kind}!"
    error = invalid_combination("remainder", (input, other))
    scalar_overload = " * (Number self, Tensor other, *, Tensor out = None)\n"
    reason = (" * (Number self, Tensor other)\n      didn't match because some of the arguments "
              f"have invalid types: ({shown(input, is_number(input))}, "
              f"{shown(other, isinstance(other, Tensor))})\n")
    return TypeError(str(error).replace(scalar_overload, reason))


def fmod(input, other):
    """C's remainder (the sign of the dividend); other is a tensor or a number."""
    if takes_tensors("fmod", (input,), (other,)):
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


reciprocal.derivatives(input=lambda ctx: -ctx.grad * conj_of(ctx.result * ctx.result))


# torch's CPU kernels fuse a * b + c into one rounding (FMA), so a product that overflows alone
# can still give a finite sum (addcmul(inf, 3e38, -3e38) is inf, lerp(0., 3e38, -0.5) -1.5e38);
# NumPy rounds the product first. Its result is kept where finite, the rest summed again wider.
_WIDER = {np.dtype(np.float16): np.float64, np.dtype(np.float32): np.float64}
if np.finfo(np.longdouble).maxexp > np.finfo(np.float64).maxexp:  # x87 or quad long double
    _WIDER[np.dtype(np.float64)] = np.longdouble


def fused_multiply_add(xp, a, b, c):
    result = xp.asarray(a * b + c)
    wider = _WIDER.get(result.dtype)
    if wider is None or xp is not np or xp.isfinite(result).all():
        return result
    redo = ~xp.isfinite(result)
    a, b, c = (xp.broadcast_to(v, result.shape)[redo].astype(wider) for v in (a, b, c))
    result[redo] = a * b + c
    return result


def _rounded_once(forward):
    """forward computing half-precision arrays in float32 and rounding its result once, as
    torch's CPU kernels of these fused ops do."""
    @functools.wraps(forward)
    def in_float32(xp, input, *args):
        if not is_reduced(input.dtype):
            return forward(xp, input, *args)
        wide = (arg.astype(xp.float32) if getattr(arg, "dtype", None) == input.dtype else arg
                for arg in args)
        return forward(xp, input.astype(xp.float32), *wide).astype(input.dtype)
    return in_float32


@defop("AddcmulBackward0", save=("tensor1", "tensor2", "value"), promote="common")
@_rounded_once
def _addcmul(xp, input: Tensor, tensor1: Tensor, tensor2: Tensor, value):
    result_type = xp.result_type(input, tensor1, tensor2)
    if not (is_floating_kind(result_type) or result_type.kind == "c"):
        value = int(value)  # as torch, an integer result takes the value truncated (2.5 -> 2)
    return fused_multiply_add(xp, value * tensor1, tensor2, input)


_addcmul.derivatives(input=lambda ctx: ctx.grad,
                     tensor1=lambda ctx: ctx.grad * conj_of(mul_scalar(ctx.tensor2, ctx.value)),
                     tensor2=lambda ctx: ctx.grad * conj_of(mul_scalar(ctx.tensor1, ctx.value)))


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    require_tensors("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    return _addcmul(input, tensor1, tensor2, number(value, "addcmul", "value"))


@defop("AddcdivBackward0", save=("tensor1", "tensor2", "value"), promote="common")
@_rounded_once
def _addcdiv(xp, input: Tensor, tensor1: Tensor, tensor2: Tensor, value):
    return input + value * tensor1 / tensor2


_addcdiv.derivatives(
    input=lambda ctx: ctx.grad,
    tensor1=lambda ctx: ctx.grad * conj_of(_true_divide(ctx.value, ctx.tensor2)),
    tensor2=lambda ctx: -ctx.grad * conj_of(mul_scalar(ctx.tensor1, ctx.value)
                                            / (ctx.tensor2 * ctx.tensor2)))


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, as a true division."""
    require_tensors("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    if not any(t.dtype.is_floating_point or t.dtype.is_complex for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return _addcdiv(input, tensor1, tensor2, number(value, "addcdiv", "value"))


# torch's lerp switches formula at |weight| = 0.5 so that both ends are reproduced exactly:
# input + weight * (end - input), else end + (weight - 1) * (end - input), fused as torch's.
@defop("LerpBackward0", save=("weight",))
@_rounded_once
def _lerp_scalar(xp, input: Tensor, end: Tensor, weight):
    if abs(weight) < 0.5:
        return fused_multiply_add(xp, weight, end - input, input)
    return fused_multiply_add(xp, weight - 1, end - input, end)


_lerp_scalar.derivatives(input=lambda ctx: mul_scalar(ctx.grad, conj_of(1 - ctx.weight)),
                         end=lambda ctx: mul_scalar(ctx.grad, conj_of(ctx.weight)))


@defop("LerpBackward1", save=("input", "end", "weight"))
@_rounded_once
def _lerp_tensor(xp, input: Tensor, end: Tensor, weight: Tensor):
    weight = weight.astype(input.dtype, copy=False)  # a 0-d weight may have any dtype
    small = xp.absolute(weight) < 0.5
    return fused_multiply_add(xp, xp.where(small, weight, weight - 1), end - input,
                              xp.where(small, input, end))


_lerp_tensor.derivatives(input=lambda ctx: ctx.grad * conj_of(_sub(1.0, ctx.weight)),
                         end=lambda ctx: ctx.grad * conj_of(ctx.weight),
                         weight=lambda ctx: ctx.grad * conj_of(ctx.end - ctx.input))


def lerp(input, end, weight):
    """input + weight * (end - input); end (and a weight tensor with dims) of input's dtype."""
    weight_is_tensor = takes_tensors("lerp", (input, end), (weight,))
    for name, value in (("end", end), ("weight", weight)):
        if (isinstance(value, Tensor) and value.dtype is not input.dtype
                and (name == "end" or value.ndim)):
            raise RuntimeError(f"expected dtype {_C_TYPE_NAMES[input.dtype.name]} for `{name}` "
                               f"but got dtype {_C_TYPE_NAMES[value.dtype.name]}")
    if not input.dtype.is_differentiable:
        kernel = "lerp_kernel_tensor" if weight_is_tensor else "lerp_kernel_scalar"
        raise NotImplementedError(not_implemented_for(kernel, input.dtype.numpy))
    if weight_is_tensor:
        return _lerp_tensor(input, end, weight)
    return _lerp_scalar(input, end, number(weight, "lerp", "weight"))


# ---- powers --------------------------------------------------------------------------------------

# Three pow overloads, three node names: tensor ** number, tensor ** tensor, number ** tensor.
@defop("PowBackward0", save=("input", "exponent"), promote="common", scalars=("exponent",))
def _pow_tensor_scalar(xp, input: Tensor, exponent):
    if input.dtype.kind == "b":  # bool ** bool, which torch answers here: x ** True is x
        return input | (not exponent)
    # torch's rsqrt: -inf at -0, NaN at -inf
    if exponent == -0.5 and is_floating_kind(input.dtype):
        return xp.reciprocal(xp.sqrt(input))
    return xp.power(input, exponent)


def _pow_scalar_exponent_grad(ctx):
    if ctx.exponent == 0:
        return zeros_of(ctx.grad)
    # grouped as torch's, the power's derivative first: grad * exponent could underflow to 0
    # (or overflow) before it meets x ** (exponent - 1), giving 0 * inf = NaN. The op, not
    # `**`: on arrays (Note [Formulas on arrays]) `**` is NumPy's, without torch's x ** -0.5
    return ctx.grad * conj_of(mul_scalar(_pow_tensor_scalar(ctx.input, ctx.exponent - 1),
                                         ctx.exponent))


_pow_tensor_scalar.derivatives(input=_pow_scalar_exponent_grad)


@defop("PowBackward1", save=("input", "exponent", "result"), promote="common")
def _pow_tensor_tensor(xp, input: Tensor, exponent: Tensor):
    return _power(xp, input, exponent)


_pow_tensor_tensor.derivatives(
    # x ** 0 has derivative 0 even at x = 0, where the formula would give 0 * inf
    input=lambda ctx: where(ctx.exponent == 0, 0.0, ctx.grad * conj_of(
        ctx.exponent * ctx.input ** sub_scalar(ctx.exponent, 1))),
    # torch's convention: the exponent's gradient is 0 where the base is 0 and exponent >= 0
    # (its real part, for a complex one)
    exponent=lambda ctx: ctx.grad * conj_of(where((ctx.input == 0) & (real(ctx.exponent) >= 0),
                                                  0.0, ctx.result * log(ctx.input))))


@defop("PowBackward2", save=("self", "result", "exponent"), promote="common", scalars=("self",))
def _pow_scalar_tensor(xp, self, exponent: Tensor):
    return _power(xp, self, exponent)


# 0 ** y: torch's gradient is 0 wherever y >= 0 (it would be 0 * -inf)
_pow_scalar_tensor.derivatives(
    exponent=lambda ctx: ctx.grad * conj_of(mul_scalar(ctx.result, _log_number(ctx.self)))
    if ctx.self != 0 else ctx.grad * where(real(ctx.exponent) >= 0, 0.0,
                                           mul_scalar(ctx.result, -math.inf)))


def _power(xp, base, exponent):
    """xp.power, but integer exponents may be negative: NumPy refuses them, torch gives the
    integer part of base ** exponent (1 for base 1, +-1 for base -1, else 0)."""
    if exponent.dtype.kind == "b":  # both are bool (the dtype is the promoted one)
        raise NotImplementedError(not_implemented_for("pow", exponent.dtype))
    integers = exponent.dtype.kind in "iu" and xp.asarray(base).dtype.kind in "biu"
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
        if not (is_number(input) and isinstance(exponent, Tensor)):
            raise invalid_combination("pow", (input, exponent))
        return _pow_scalar_tensor(input, exponent)
    if isinstance(exponent, Tensor):
        return _pow_tensor_tensor(input, exponent)
    if not is_number(exponent):
        raise invalid_combination("pow", (input, exponent))
    if (isinstance(exponent, int) and exponent < 0
            and not (input.dtype.is_floating_point or input.dtype.is_complex)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow_tensor_scalar(input, exponent)


def _log_number(number):
    if isinstance(number, complex):
        return cmath.log(number)
    return math.log(number) if number > 0 else float("nan") if number < 0 else float("-inf")


def square(input):
    return _pow_tensor_scalar(input, 2)


# ---- overloads with a number that ATen's compositions call ---------------------------------------
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


mul_scalar.derivatives(input=lambda ctx: ctx.grad * conj_of(ctx.other))


@defop("DivBackward1", save=("other",), promote="float", scalars=("other",))
def div_scalar(xp, input: Tensor, other):
    return xp.true_divide(input, other)


div_scalar.derivatives(input=lambda ctx: ctx.grad / conj_of(ctx.other))


def _xlogy(xp, input, other):
    # 0 * log(0) is 0 (a NaN other still gives NaN)
    if xp.result_type(input, other).kind == "c":
        raise NotImplementedError(not_implemented_for("xlogy_cpu", xp.result_type(input, other)))
    if not isinstance(other, xp.ndarray):  # a number keeps the array's float dtype
        other = xp.asarray(other, dtype=xp.result_type(input, other))
    product = xp.multiply(input, xp.log(other))
    return xp.where((input == 0) & ~xp.isnan(other), 0, product).astype(product.dtype)


# Three overloads, three node names: tensor with tensor, number with tensor, tensor with number.
@defop("XlogyBackward0", save=("input", "other"), promote="float")
def _xlogy_tensor(xp, input: Tensor, other: Tensor):
    return _xlogy(xp, input, other)


def _xlogy_input_grad(ctx):
    # torch's: grad * log(other), but 0 where input is 0 and other <= 0
    grad = xlogy(ctx.grad, ctx.other)
    if not isinstance(ctx.other, Tensor):
        return grad if ctx.other > 0 else _masked_fill(grad, (ctx.input == 0)._data, 0)
    return _masked_fill(grad, ((ctx.input == 0) & (ctx.other <= 0))._data, 0)


_xlogy_tensor.derivatives(input=_xlogy_input_grad,
                          other=lambda ctx: ctx.grad * ctx.input / ctx.other)


@defop("XlogyBackward1", save=("self", "other"), promote="float", scalars=("self",))
def _xlogy_number_tensor(xp, self, other: Tensor):
    return _xlogy(xp, self, other)


_xlogy_number_tensor.derivatives(other=lambda ctx: mul_scalar(ctx.grad, ctx.self) / ctx.other)


@defop("XlogyBackward2", save=("input", "other"), promote="float", scalars=("other",))
def _xlogy_tensor_number(xp, input: Tensor, other):
    return _xlogy(xp, input, other)


_xlogy_tensor_number.derivatives(input=_xlogy_input_grad)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is nan); a number on either side."""
    if not isinstance(input, Tensor):
        if not (isinstance(other, Tensor) and isinstance(input, (int, float))):
            raise invalid_combination("xlogy", (input, other))
        return _xlogy_number_tensor(input, other)
    if takes_tensors("xlogy", (input,), (other,)):
        return _xlogy_tensor(input, other)
    return _xlogy_tensor_number(input, other)


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


_clamp_scalar.derivatives(input=lambda ctx: _passed_where(_inside_bounds(ctx), ctx.grad))


def _passed_where(mask, grad):
    """torch's clamp gradients: where(mask, grad, 0)."""
    return _where(array_of(mask), grad, 0.0)


@defop("ClampBackward0", save=("input", "min", "max"), promote="common")
def _clamp_tensor(xp, input: Tensor, min: Tensor, max: Tensor):
    return _clamped(xp, input, min, max)


# Where min > max the result is max, so max takes the gradient (torch's convention).
_clamp_tensor.derivatives(
    input=lambda ctx: _passed_where(_inside_bounds(ctx), ctx.grad),
    min=lambda ctx: _passed_where(ctx.input < ctx.min if ctx.max is None
                                  else (ctx.input < ctx.min) & (ctx.min < ctx.max), ctx.grad),
    max=lambda ctx: _passed_where(ctx.input > ctx.max if ctx.min is None
                                  else (ctx.input > ctx.max) | (ctx.max < ctx.min), ctx.grad))


def clamp(input, min=None, max=None):
    """Limit input to [min, max]; either bound may be a number or a (broadcast) tensor."""
    return _clamp_any("clamp", input, min, max)


def clip(input, min=None, max=None):
    """clamp under NumPy's name."""
    return _clamp_any("clip", input, min, max)


def _refuse_complex(input, message="clamp is not supported for complex types"):
    if isinstance(input, Tensor) and input.dtype.is_complex:
        raise NotImplementedError(message)


def _clamp_any(name, input, min, max):
    _refuse_complex(input)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    # two tensor bounds or two number bounds, never one of each
    if takes_tensors(name, (input,), (min, max), optional=True):
        return _clamp_tensor(input, min, max)
    return _clamp_scalar(input, *_bounds_in_dtype(input, min, max))


def _bounds_in_dtype(input, *bounds):
    """Number bounds as torch's kernel holds them, in the result's dtype: one that dtype cannot
    hold (7e4 in float16, 300 in int8) gets torch's overflow error, -1 in uint8 wraps to 255."""
    from .._creation import _fill_value  # _creation imports ops
    if not isinstance(input, Tensor):
        return bounds
    return tuple(None if bound is None else _fill_value(
        bound, _dtype.result_type((input.dtype,), (), (bound,)), "clamp").item()
        for bound in bounds)


@defop("ClampMinBackward0", save=("input", "min"), promote="common", scalars=("min",))
def _clamp_min_scalar(xp, input: Tensor, min):
    return _clamped(xp, input, min, None)


_clamp_min_scalar.derivatives(input=lambda ctx: _passed_where(ctx.input >= ctx.min, ctx.grad))


@defop("ClampMinBackward1", save=("input", "min"), promote="common")
def _clamp_min_tensor(xp, input: Tensor, min: Tensor):
    return _clamped(xp, input, min, None)


_clamp_min_tensor.derivatives(input=lambda ctx: _passed_where(ctx.input >= ctx.min, ctx.grad),
                              min=lambda ctx: _passed_where(ctx.input < ctx.min, ctx.grad))


def clamp_min(input, min):
    """Limit input from below by a number or a (broadcast) tensor."""
    _refuse_complex(input)
    if takes_tensors("clamp_min", (input,), (min,)):
        return _clamp_min_tensor(input, min)
    return _clamp_min_scalar(input, *_bounds_in_dtype(input, min))


@defop("ClampMaxBackward0", save=("input", "max"), promote="common", scalars=("max",))
def _clamp_max_scalar(xp, input: Tensor, max):
    return _clamped(xp, input, None, max)


_clamp_max_scalar.derivatives(input=lambda ctx: _passed_where(ctx.input <= ctx.max, ctx.grad))


@defop("ClampMaxBackward1", save=("input", "max"), promote="common")
def _clamp_max_tensor(xp, input: Tensor, max: Tensor):
    return _clamped(xp, input, None, max)


_clamp_max_tensor.derivatives(input=lambda ctx: _passed_where(ctx.input <= ctx.max, ctx.grad),
                              max=lambda ctx: _passed_where(ctx.input > ctx.max, ctx.grad))


def clamp_max(input, max):
    """Limit input from above by a number or a (broadcast) tensor."""
    _refuse_complex(input)
    if takes_tensors("clamp_max", (input,), (max,)):
        return _clamp_max_tensor(input, max)
    return _clamp_max_scalar(input, *_bounds_in_dtype(input, max))


def _maximum_grad(ctx, mine, theirs):
    # torch splits the gradient evenly on ties; at a NaN both sides get all of it
    shared = where(mine == theirs, div_scalar(ctx.grad, 2), ctx.grad)
    return _masked_fill(shared, (mine < theirs)._data, 0)


@defop("MaximumBackward0", save=("input", "other"), promote="common")
def _maximum(xp, input: Tensor, other: Tensor):
    _check_ordered(xp, "maximum", input, other)
    return xp.maximum(input, other)


def _check_ordered(xp, name, input, other):
    if _is_complex(input, other):
        raise RuntimeError(f"{name} not implemented for complex tensors.")


def _is_complex(*values):
    """Whether a forward's operand (an array, or a number left as it is) is complex: cheaper
    than asking NumPy for the result type on every comparison."""
    for value in values:
        if getattr(value, "dtype", None) is not None and value.dtype.kind == "c":
            return True
    return False


_maximum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other),
                     other=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input))


@defop("MinimumBackward0", save=("input", "other"), promote="common")
def _minimum(xp, input: Tensor, other: Tensor):
    _check_ordered(xp, "minimum", input, other)
    return xp.minimum(input, other)


_minimum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input),
                     other=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other))


maximum = binary_of_tensors("maximum", _maximum,
                            "The larger of two tensors, elementwise (nan if either is).")
minimum = binary_of_tensors("minimum", _minimum,
                            "The smaller of two tensors, elementwise (nan if either is).")


# ---- selection -----------------------------------------------------------------------------------

@defop("WhereBackward0", save=("condition",), promote="common")
def _where(xp, condition, input: Tensor, other: Tensor):
    result = xp.where(condition, input, other)
    for operand in (input, other):  # NumPy widens ml_dtypes' bfloat16 beside a number
        if getattr(operand, "dtype", None) is not None and operand.dtype.kind == "V":
            return result.astype(operand.dtype, copy=False)
    return result


_where.derivatives(input=lambda ctx: _where(ctx.condition, ctx.grad, 0.0),
                   other=lambda ctx: _where(ctx.condition, 0.0, ctx.grad))


@defop(None)
def _nonzero_indices(xp, condition: Tensor):
    return xp.nonzero(xp.atleast_1d(condition))


_UNSET = object()  # where(condition) alone (a None given is refused, as torch)


def where(condition, input=_UNSET, other=_UNSET):
    """input where condition holds, else other (tensors or numbers); where(condition) alone
    gives the indices of condition's nonzero elements, one tensor per dim."""
    if input is _UNSET and other is _UNSET:
        return _nonzero_indices(condition)
    if not all(isinstance(v, Tensor) or is_number(v) for v in (input, other)):
        given = tuple(v for v in (condition, input, other) if v is not _UNSET)
        raise TypeError(_where_overloads_text(given))
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


def _where_overloads_text(values):
    """torch's TypeError for where(condition, None, x): its overloads, the three it explains
    marking each argument that does not fit (torch marks a number even in a Number's place)."""
    def shown(value, kind):
        fits = kind == "Tensor" and isinstance(value, Tensor)
        name = type_name(value)
        if isinstance(value, (list, tuple)):  # torch names the elements' types
            name += f" of [{', '.join(map(type_name, value))}]"
        return name if fits else f"!{name}!"
    text = ("where() received an invalid combination of arguments - got "
            f"({', '.join(map(type_name, values))}), but expected one of:\n"
            " * (Tensor condition)\n"
            " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n")
    for kinds, signature in ((("Tensor", "Number", "Tensor"), "Number self, Tensor other"),
                             (("Tensor", "Tensor", "Number"), "Tensor input, Number other"),
                             (("Tensor", "Number", "Number"), "Number self, Number other")):
        text += f" * (Tensor condition, {signature})\n"
        if len(values) == 3:  # (torch explains only the calls of their length)
            marked = ", ".join(shown(v, k) for v, k in zip(values, kinds))
            text += ("      didn't match because some of the arguments have invalid types: "
                     f"({marked})\n")
    return text


@defop("NanToNumBackward0", save=("input",))
def nan_to_num(xp, input: Tensor, nan=0.0, posinf=None, neginf=None):
    """nan, +inf and -inf replaced by numbers; the infinities by default by the dtype's
    largest and smallest finite values."""
    if input.dtype.kind == "V":  # NumPy's nan_to_num leaves ml_dtypes' bfloat16 as it is
        largest = float(xp.finfo(input.dtype).max)  # ml_dtypes registers it with NumPy's finfo
        replaced = xp.nan_to_num(input.astype(xp.float32), nan=nan,
                                 posinf=largest if posinf is None else posinf,
                                 neginf=-largest if neginf is None else neginf)
        return replaced.astype(input.dtype)
    if input.dtype.kind not in "fc":
        return input.copy()
    return xp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)  # complex: part by part


nan_to_num.derivatives(input=lambda ctx: ctx.grad * isfinite(ctx.input))


# ---- comparisons, logic and tests (never differentiable) -----------------------------------------

def _binary_predicate(name, ufunc, ordering=True):
    @defop(None, promote="common", name=name)
    def predicate(xp, input: Tensor, other: Tensor):
        if other is None or input is None:  # NumPy would compare with None
            kinds = ", ".join("Tensor" if v is not None and hasattr(v, "shape") else type_name(v)
                              for v in (input, other))
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({kinds}), but expected one of:\n * (Tensor input, Tensor other, *,"
                            " Tensor out = None)\n * (Tensor input, Number other, *, Tensor out"
                            " = None)\n")
        # complex numbers have no order (input has the promoted dtype: other's test is spared)
        if ordering and _is_complex(input):
            raise NotImplementedError(not_implemented_for(f"{name}_cpu",
                                                          xp.result_type(input, other)))
        return _backend.in_module(xp, ufunc)(input, other)
    return predicate


eq = _binary_predicate("eq", np.equal, ordering=False)
ne = _binary_predicate("ne", np.not_equal, ordering=False)
lt = _binary_predicate("lt", np.less)
le = _binary_predicate("le", np.less_equal)
gt = _binary_predicate("gt", np.greater)
ge = _binary_predicate("ge", np.greater_equal)


def _bitwise(name, ufunc):
    """A bitwise op of integers or bools; torch has no kernel for floats."""
    @defop(None, promote="common", name=name)
    def bitwise(xp, input: Tensor, other: Tensor):
        dtype = xp.result_type(input, other)
        if dtype.kind not in "biu":
            raise NotImplementedError(not_implemented_for(f"{name}_cpu", dtype))
        return _backend.in_module(xp, ufunc)(input, other)
    return bitwise


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def integer_in_place(name):
    """Tensor.X_ of an op with integer kernels only: as torch, a result dtype that the tensor
    cannot hold (x &= 2.5 on integers) is refused before the kernel refuses floats."""
    def variant(self, other):
        from ._inplace import inplace  # it builds on this module
        others = [other] if isinstance(other, Tensor) and other.ndim else []
        scalars = [other] if isinstance(other, Tensor) and not other.ndim else []
        numbers = [] if isinstance(other, Tensor) else [other]
        result = _dtype.result_type([self.dtype, *(t.dtype for t in others)],
                                    [t.dtype for t in scalars], numbers)
        if result.is_floating_point and not self.dtype.is_floating_point:
            raise RuntimeError(f"result type {result.legacy_name} can't be cast to the desired "
                               f"output type {self.dtype.legacy_name}")
        return inplace(getattr(Tensor, name), self, other)
    variant.__name__ = variant.__qualname__ = name + "_"
    return variant


@defop(None)
def bitwise_not(xp, input: Tensor):
    if input.dtype.kind not in "biu":
        raise NotImplementedError(not_implemented_for("bitwise_not_cpu", input.dtype))
    return xp.invert(input)


def _logical(name, ufunc):
    """A logical op of two tensors of any dtypes (nonzero is true), giving bool."""
    @defop(None, name="_" + name)
    def truth(xp, input: Tensor, other: Tensor):
        return _backend.in_module(xp, ufunc)(input, other)

    def logical(input, other):
        require_tensors(name, input=input, other=other)
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
    if memory_format is not None:  # None: torch's default, preserve_format
        _layout.check_memory_format("clone", memory_format)
    return _layout.copied_as(input, memory_format or _layout.preserve_format)


clone.derivatives(input=lambda ctx: ctx.grad)


@defop("ToCopyBackward0", save=("input_dtype", "input_device"))
def _to_copy(xp, input: Tensor, dtype, input_dtype=None, device=None, input_device=None):
    if input.dtype.kind == "c" and dtype.numpy.kind != "c":
        input = input.real  # torch's cast keeps the real part (to_copy warns as torch)
    if device is not None:  # onto another device: cast where the data is, then move it
        return _backend.to_device(input.astype(dtype.numpy, copy=False), device)
    return input.astype(dtype.numpy)


def _to_copy_backward(ctx):
    # a real input of a complex copy takes the gradient's real part (torch's _to_copy_backward)
    grad = real(ctx.grad) if not ctx.input_dtype.is_complex else ctx.grad
    if ctx.input_device is None:
        return grad.to(ctx.input_dtype)
    return grad.to(ctx.input_device, ctx.input_dtype)


_to_copy.derivatives(input=_to_copy_backward)


def to_copy(input, dtype, device=None):
    """A copy of input cast to dtype (and moved to device), differentiable back to input's
    dtype and device."""
    if input.dtype.is_complex and not dtype.is_complex:
        warn("Casting complex values to real discards the imaginary part")
    if device is None:
        return _to_copy(input, dtype, input.dtype)
    return _to_copy(input, dtype, input.dtype, device, input.device)


def _tensor_where(input, condition, other):
    """Tensor.where(condition, other): input where condition holds, else other."""
    return where(condition, input, other)


# they build on this module: import them last
from .indexing import _masked_fill  # noqa: E402
from .unary import log  # noqa: E402
from .complex_parts import conj_of, real  # noqa: E402


# torch's second names for the same ops
negative, multiply, divide, subtract = neg, mul, div, sub
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = (
    "add addcdiv addcmul bitwise_and bitwise_not bitwise_or bitwise_xor clamp clamp_max "
    "clamp_min clip clone div divide eq floor_divide fmod ge greater greater_equal gt "
    "isfinite isinf isnan le lerp less less_equal logical_and logical_not logical_or "
    "logical_xor lt maximum minimum mul multiply nan_to_num ne neg negative not_equal pow "
    "reciprocal remainder rsub square sub subtract true_divide where xlogy").split()
METHODS = [name for name in FUNCTIONS if name not in ("rsub", "where")]
TENSOR_ONLY = {"where": _tensor_where, **{
    name + "_": integer_in_place(name) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")}}
