"""Elementwise ops: arithmetic, unary math, activations, comparisons, dtype copies."""
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ._checks import broadcast_shapes
from ._define import defop
from .shape import zeros_of

# ---- arithmetic ----------------------------------------------------------------------------


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


def _check_integer_divisor(xp, input, other):
    # NumPy returns 0 for an integer remainder by zero; torch raises
    if input.dtype.kind != "f" and xp.any(xp.asarray(other) == 0):
        raise RuntimeError("ZeroDivisionError")


@defop("RemainderBackward0", promote="common", scalars=("other",))
def _remainder_scalar(xp, input: Tensor, other):
    _check_integer_divisor(xp, input, other)
    return xp.remainder(input, other)


_remainder_scalar.derivatives(input=lambda ctx: ctx.grad)


@defop("RemainderBackward1", save=("input", "other"), promote="common")
def _remainder_tensor(xp, input: Tensor, other: Tensor):
    _check_integer_divisor(xp, input, other)
    return xp.remainder(input, other)


_remainder_tensor.derivatives(
    input=lambda ctx: ctx.grad,
    other=lambda ctx: -ctx.grad * div(ctx.input, ctx.other, rounding_mode="floor"))


def _not_implemented(ctx):
    raise RuntimeError("derivative for aten::remainder is not implemented")


# number % tensor: torch records a node named NotImplemented that fails in backward
@defop("NotImplemented", promote="common", scalars=("self",))
def _remainder_scalar_tensor(xp, self, other: Tensor):
    _check_integer_divisor(xp, other, other)
    return xp.remainder(self, other)


_remainder_scalar_tensor.derivatives(other=_not_implemented)


def remainder(input, other):
    """Python's modulus (the sign of the divisor); numbers allowed on either side."""
    if not isinstance(input, Tensor):
        return _remainder_scalar_tensor(input, other)
    if isinstance(other, Tensor):
        return _remainder_tensor(input, other)
    return _remainder_scalar(input, other)


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


# Three pow overloads, three node names: tensor ** number, tensor ** tensor, number ** tensor.
@defop("PowBackward0", save=("input", "exponent"), promote="common", scalars=("exponent",))
def _pow_tensor_scalar(xp, input: Tensor, exponent):
    return xp.power(input, exponent)


def _pow_scalar_exponent_grad(ctx):
    if ctx.exponent == 0:
        return zeros_of(ctx.grad)
    return ctx.grad * ctx.exponent * ctx.input ** (ctx.exponent - 1)


_pow_tensor_scalar.derivatives(input=_pow_scalar_exponent_grad)


@defop("PowBackward1", save=("input", "exponent", "result"), promote="common")
def _pow_tensor_tensor(xp, input: Tensor, exponent: Tensor):
    return xp.power(input, exponent)


_pow_tensor_tensor.derivatives(
    # x ** 0 has derivative 0 even at x = 0, where the formula would give 0 * inf
    input=lambda ctx: where(ctx.exponent == 0, 0.0,
                            ctx.grad * ctx.exponent * ctx.input ** (ctx.exponent - 1)),
    # torch's convention: the exponent's gradient is 0 where the base is 0 and exponent >= 0
    exponent=lambda ctx: ctx.grad * where((ctx.input == 0) & (ctx.exponent >= 0), 0.0,
                                          ctx.result * log(ctx.input)))


@defop("PowBackward2", save=("self", "result"), promote="common", scalars=("self",))
def _pow_scalar_tensor(xp, self, exponent: Tensor):
    return xp.power(self, exponent)


_pow_scalar_tensor.derivatives(
    exponent=lambda ctx: ctx.grad * ctx.result * _log_number(ctx.self))


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


# ---- unary math ----------------------------------------------------------------------------

@defop("AbsBackward0", save=("input",))
def abs(xp, input: Tensor):
    return xp.absolute(input)


abs.derivatives(input=lambda ctx: ctx.grad * sign(ctx.input))


@defop("SignBackward0")
def sign(xp, input: Tensor):
    return xp.sign(input)


sign.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("ExpBackward0", save=("result",), promote="float")
def exp(xp, input: Tensor):
    return xp.exp(input)


exp.derivatives(input=lambda ctx: ctx.grad * ctx.result)


@defop("LogBackward0", save=("input",), promote="float")
def log(xp, input: Tensor):
    return xp.log(input)


log.derivatives(input=lambda ctx: ctx.grad / ctx.input)


@defop("SqrtBackward0", save=("result",), promote="float")
def sqrt(xp, input: Tensor):
    return xp.sqrt(input)


sqrt.derivatives(input=lambda ctx: ctx.grad / (2 * ctx.result))


@defop("SinBackward0", save=("input",), promote="float")
def sin(xp, input: Tensor):
    return xp.sin(input)


sin.derivatives(input=lambda ctx: ctx.grad * cos(ctx.input))


@defop("CosBackward0", save=("input",), promote="float")
def cos(xp, input: Tensor):
    return xp.cos(input)


cos.derivatives(input=lambda ctx: ctx.grad * -sin(ctx.input))


@defop("TanhBackward0", save=("result",), promote="float")
def tanh(xp, input: Tensor):
    return xp.tanh(input)


tanh.derivatives(input=lambda ctx: ctx.grad * (1 - ctx.result * ctx.result))


@defop("SigmoidBackward0", save=("result",), promote="float")
def sigmoid(xp, input: Tensor):
    # Split by sign so exp never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) otherwise.
    positive = input >= 0
    exp_neg_abs = xp.exp(xp.where(positive, -input, input))
    return xp.where(positive, 1, exp_neg_abs) / (1 + exp_neg_abs)


sigmoid.derivatives(input=lambda ctx: ctx.grad * ctx.result * (1 - ctx.result))


@defop("ReluBackward0", save=("result",))
def relu(xp, input: Tensor):
    return xp.maximum(input, 0).astype(input.dtype, copy=False)


relu.derivatives(input=lambda ctx: ctx.grad * (ctx.result > 0))


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


_clamp_tensor.derivatives(
    input=lambda ctx: ctx.grad * _inside_bounds(ctx),
    min=lambda ctx: ctx.grad * (ctx.input < ctx.min),
    max=lambda ctx: ctx.grad * (ctx.input > ctx.max) if ctx.min is None
    else ctx.grad * ((ctx.input > ctx.max) & (ctx.max >= ctx.min)))


def clamp(input, min=None, max=None):
    """Limit input to [min, max]; either bound may be a number or a (broadcast) tensor."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(input, min, max)
    return _clamp_scalar(input, min, max)


clip = clamp


def _maximum_grad(ctx, mine, theirs):
    # torch splits the gradient evenly on ties
    return where(mine == theirs, ctx.grad / 2, ctx.grad * (mine > theirs))


@defop("MaximumBackward0", save=("input", "other"), promote="common")
def maximum(xp, input: Tensor, other: Tensor):
    return xp.maximum(input, other)


maximum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other),
                    other=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input))


@defop("MinimumBackward0", save=("input", "other"), promote="common")
def minimum(xp, input: Tensor, other: Tensor):
    return xp.minimum(input, other)


minimum.derivatives(input=lambda ctx: _maximum_grad(ctx, ctx.other, ctx.input),
                    other=lambda ctx: _maximum_grad(ctx, ctx.input, ctx.other))


# ---- selection -----------------------------------------------------------------------------

@defop("WhereBackward0", save=("condition",), promote="common")
def _where(xp, condition, input: Tensor, other: Tensor):
    return xp.where(condition, input, other)


_where.derivatives(input=lambda ctx: _where(ctx.condition, ctx.grad, 0.0),
                   other=lambda ctx: _where(ctx.condition, 0.0, ctx.grad))


def where(condition, input, other):
    if condition.dtype is not _dtype.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.legacy_name}")
    shapes = [v.shape for v in (condition, input, other) if isinstance(v, Tensor)]
    broadcast_shapes(*shapes)  # the condition takes part, first, as in torch's message
    return _where(condition._data, input, other)


# ---- comparisons and logic (never differentiable) ------------------------------------------

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


# ---- copies --------------------------------------------------------------------------------

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


absolute, negative, multiply, divide, subtract = abs, neg, mul, div, sub


def _tensor_where(input, condition, other):
    """Tensor.where(condition, other): input where condition holds, else other."""
    return where(condition, input, other)


# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = (
    "abs absolute add bitwise_and bitwise_not bitwise_or bitwise_xor clamp clip clone cos div "
    "divide eq exp ge gt le log lt maximum minimum mul multiply ne neg negative pow reciprocal "
    "relu remainder rsub sigmoid sign sin sqrt square sub subtract tanh where").split()
METHODS = [name for name in FUNCTIONS if name not in ("rsub", "where")]
TENSOR_ONLY = {"where": _tensor_where}
