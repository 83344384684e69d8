"""Unary math (abs, sign, exp and log, roots, trigonometric and hyperbolic functions, erf,
sigmoid, logit, relu) and rounding (floor, ceil, trunc, round, frac)."""
import math

from .._tensor import Tensor
from ..autograd import grad_mode
from ._checks import is_floating_kind
from ._define import defop
from .pointwise import (_masked_fill, _sub, add_scalar, mul_scalar, not_implemented_for,
                        reciprocal, require_tensors, sub_scalar, where)
from .shape import zeros_of

# ---- unary math ----------------------------------------------------------------------------------

def _refuse_complex(kernel, input):
    """torch's error for a kernel without a complex loop."""
    if input.dtype.kind == "c":
        raise NotImplementedError(not_implemented_for(kernel, input.dtype))


def magnitude_of(xp, input):
    """|input| of an array. torch's complex modulus is a hypot of the parts; NumPy's complex
    absolute is a faster formula 1 ulp off it for about 1 value in 10, a correctly rounded
    hypot 1 in 700 (complex64's is exact enough through complex128)."""
    if input.dtype == xp.complex64:
        return xp.absolute(input.astype(xp.complex128)).astype(xp.float32)
    if input.dtype.kind == "c":
        return xp.hypot(input.real, input.imag)
    return xp.absolute(input)


@defop("AbsBackward0", save=("input",))
def abs(xp, input: Tensor):
    if input.dtype.kind == "b":
        raise NotImplementedError(not_implemented_for("abs_cpu", input.dtype))
    return magnitude_of(xp, input)


abs.derivatives(input=lambda ctx: ctx.grad * sgn(ctx.input))


@defop("SignBackward0")
def sign(xp, input: Tensor):
    if input.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    if input.dtype.kind == "b":
        return input.copy()
    if is_floating_kind(input.dtype):
        return xp.subtract(input > 0, input < 0, dtype=input.dtype)  # torch: sign(nan) is 0
    return xp.sign(input)


sign.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("SgnBackward0", save=("input", "result"))
def sgn(xp, input: Tensor):
    """sign, which torch extends to complex numbers (x / |x|, 0 at 0); the same for real
    tensors."""
    if input.dtype.kind == "c":
        # each part over the modulus, as torch (a complex division rounds otherwise)
        magnitude = magnitude_of(xp, input)
        origin = magnitude == 0
        magnitude = xp.where(origin, 1, magnitude)
        parts = xp.stack((xp.where(origin, 0, input.real / magnitude),
                          xp.where(origin, 0, input.imag / magnitude)), -1)
        return parts.view(input.dtype).reshape(input.shape)  # (a 0-d input's .real is a number)
    return sign.forward(xp, input)


def _sgn_grad(ctx):
    # zero for real inputs; for complex ones torch's sgn_backward: only the part of grad
    # across the direction sgn(z) moves, divided by |z| (0 at the origin)
    if not ctx.input.dtype.is_complex:
        return zeros_of(ctx.grad)
    magnitude = abs(ctx.input)
    along = real(ctx.grad * conj(ctx.result)) * ctx.result
    return where(magnitude == 0, 0.0, (ctx.grad - along) / magnitude)


sgn.derivatives(input=_sgn_grad)


@defop("ExpBackward0", save=("result",), promote="float")
def exp(xp, input: Tensor):
    return xp.exp(input)


exp.derivatives(input=lambda ctx: ctx.grad * conj_of(ctx.result))


@defop("Exp2Backward0", save=("result",), promote="float")
def exp2(xp, input: Tensor):
    return xp.exp2(input)


exp2.derivatives(input=lambda ctx: mul_scalar(ctx.grad * conj_of(ctx.result), math.log(2.0)))


@defop("Expm1Backward0", save=("result",), promote="float")
def expm1(xp, input: Tensor):
    return xp.expm1(input)


expm1.derivatives(input=lambda ctx: ctx.grad * conj_of(add_scalar(ctx.result, 1)))


@defop("LogBackward0", save=("input",), promote="float")
def log(xp, input: Tensor):
    return xp.log(input)


log.derivatives(input=lambda ctx: ctx.grad / conj_of(ctx.input))


@defop("Log2Backward0", save=("input",), promote="float")
def log2(xp, input: Tensor):
    return xp.log2(input)


log2.derivatives(input=lambda ctx: ctx.grad / conj_of(mul_scalar(ctx.input, math.log(2.0))))


@defop("Log10Backward0", save=("input",), promote="float")
def log10(xp, input: Tensor):
    return xp.log10(input)


log10.derivatives(input=lambda ctx: ctx.grad / conj_of(mul_scalar(ctx.input, math.log(10.0))))


@defop("Log1PBackward0", save=("input",), promote="float")
def log1p(xp, input: Tensor):
    return xp.log1p(input)


log1p.derivatives(input=lambda ctx: ctx.grad / conj_of(add_scalar(ctx.input, 1)))


@defop("SqrtBackward0", save=("result",), promote="float")
def sqrt(xp, input: Tensor):
    return xp.sqrt(input)


sqrt.derivatives(input=lambda ctx: ctx.grad / conj_of(mul_scalar(ctx.result, 2)))


@defop("RsqrtBackward0", save=("result",), promote="float")
def rsqrt(xp, input: Tensor):
    return xp.reciprocal(xp.sqrt(input))


rsqrt.derivatives(input=lambda ctx: mul_scalar(ctx.grad, -0.5) * conj_of(ctx.result ** 3))


@defop("SinBackward0", save=("input",), promote="float")
def sin(xp, input: Tensor):
    return xp.sin(input)


sin.derivatives(input=lambda ctx: ctx.grad * conj_of(cos(ctx.input)))


@defop("CosBackward0", save=("input",), promote="float")
def cos(xp, input: Tensor):
    return xp.cos(input)


cos.derivatives(input=lambda ctx: ctx.grad * -conj_of(sin(ctx.input)))


@defop("TanBackward0", save=("result",), promote="float")
def tan(xp, input: Tensor):
    return xp.tan(input)


tan.derivatives(input=lambda ctx: ctx.grad * conj_of(add_scalar(ctx.result ** 2, 1)))


@defop("AsinBackward0", save=("input",), promote="float")
def asin(xp, input: Tensor):
    return xp.arcsin(input)


asin.derivatives(input=lambda ctx: ctx.grad * conj_of(rsqrt(add_scalar(-ctx.input * ctx.input, 1))))


@defop("AcosBackward0", save=("input",), promote="float")
def acos(xp, input: Tensor):
    return xp.arccos(input)


acos.derivatives(input=lambda ctx: ctx.grad * -conj_of(rsqrt(add_scalar(-ctx.input * ctx.input, 1))))


@defop("AtanBackward0", save=("input",), promote="float")
def atan(xp, input: Tensor):
    return xp.arctan(input)


atan.derivatives(input=lambda ctx: ctx.grad / conj_of(add_scalar(ctx.input * ctx.input, 1)))


@defop("Atan2Backward0", save=("input", "other"), promote="float")
def _atan2(xp, input: Tensor, other: Tensor):
    if input.dtype.kind == "c":  # input has the promoted dtype
        raise NotImplementedError(not_implemented_for("atan2_cpu", input.dtype))
    return xp.arctan2(input, other)


# defined before the formulas: defop reads which saved names a helper uses when they are set
def _inverse_squared_radius(ctx):
    # torch gives atan2 a zero gradient at the origin, where it has none
    squared = ctx.input * ctx.input + ctx.other * ctx.other
    return _masked_fill(reciprocal(squared), (squared == 0)._data, 0)


_atan2.derivatives(input=lambda ctx: ctx.grad * ctx.other * _inverse_squared_radius(ctx),
                   other=lambda ctx: ctx.grad * -ctx.input * _inverse_squared_radius(ctx))


def atan2(input, other):
    """The angle of the point (other, input), in (-pi, pi]."""
    require_tensors("atan2", input=input, other=other)
    return _atan2(input, other)


@defop("SinhBackward0", save=("input",), promote="float")
def sinh(xp, input: Tensor):
    return xp.sinh(input)


sinh.derivatives(input=lambda ctx: ctx.grad * conj_of(cosh(ctx.input)))


@defop("CoshBackward0", save=("input",), promote="float")
def cosh(xp, input: Tensor):
    return xp.cosh(input)


cosh.derivatives(input=lambda ctx: ctx.grad * conj_of(sinh(ctx.input)))


@defop("TanhBackward0", save=("result",), promote="float")
def tanh(xp, input: Tensor):
    return xp.tanh(input)


tanh.derivatives(input=lambda ctx: tanh_backward(ctx.grad, conj_of(ctx.result)))


# Note [Backward ops]: where torch's formula calls a kernel of its own (tanh_backward,
# threshold_backward, ...), that kernel is an op here too, under its node name: a
# create_graph=True backward records torch's node, and a plain one makes one call, not three.
@defop("TanhBackwardBackward0", save=("grad_output", "output"))
def tanh_backward(xp, grad_output: Tensor, output: Tensor):
    return grad_output * (1 - output * output)


tanh_backward.derivatives(
    grad_output=lambda ctx: tanh_backward(ctx.grad, ctx.output),
    output=lambda ctx: ctx.grad * (mul_scalar(ctx.output, -2) * ctx.grad_output))


@defop("AsinhBackward0", save=("input",), promote="float")
def asinh(xp, input: Tensor):
    return xp.arcsinh(input)


asinh.derivatives(input=lambda ctx: ctx.grad * conj_of(rsqrt(add_scalar(ctx.input ** 2, 1))))


@defop("AcoshBackward0", save=("input",), promote="float")
def acosh(xp, input: Tensor):
    return xp.arccosh(input)


def _acosh_grad(ctx):
    # torch: 1 / sqrt(x*x - 1) for real x (finite below -1 too); for complex z the branch of
    # 1 / (sqrt(z - 1) sqrt(z + 1)), whose sign differs from the former's across the cut
    if not ctx.input.dtype.is_complex:
        return ctx.grad * rsqrt(sub_scalar(ctx.input * ctx.input, 1))
    return ctx.grad * conj(rsqrt(sub_scalar(ctx.input, 1)) * rsqrt(add_scalar(ctx.input, 1)))


acosh.derivatives(input=_acosh_grad)


@defop("AtanhBackward0", save=("input",), promote="float")
def atanh(xp, input: Tensor):
    return xp.arctanh(input)


# torch's C++ `1 - t` subtracts from a tensor of ones: SubBackward0, with no edge for the 1
atanh.derivatives(input=lambda ctx: mul_scalar(ctx.grad, 1) / conj_of(_sub(1.0, ctx.input ** 2)))


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf'(x) = 2 / sqrt(pi) * exp(-x * x)


@defop("ErfBackward0", save=("input",), promote="float")
def erf(xp, input: Tensor):
    _refuse_complex("erf_vml_cpu", input)
    return erf_and_erfc(xp, input)[0]


erf.derivatives(input=lambda ctx: mul_scalar(exp(-ctx.input ** 2), _TWO_OVER_SQRT_PI) * ctx.grad)


@defop("ErfcBackward0", save=("input",), promote="float")
def erfc(xp, input: Tensor):
    _refuse_complex("erfc_vml_cpu", input)
    return erf_and_erfc(xp, input)[1]


erfc.derivatives(input=lambda ctx: mul_scalar(exp(-ctx.input ** 2), -_TWO_OVER_SQRT_PI)
                 * ctx.grad)


def erf_and_erfc(xp, input):
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
    if input.dtype.kind == "c":
        return 1 / (1 + xp.exp(-input))
    # Split by sign so exp never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) otherwise.
    positive = input >= 0
    exp_neg_abs = xp.exp(xp.where(positive, -input, input))
    return xp.where(positive, 1, exp_neg_abs) / (1 + exp_neg_abs)


sigmoid.derivatives(input=lambda ctx: sigmoid_backward(ctx.grad, conj_of(ctx.result)))


@defop("SigmoidBackwardBackward0", save=("grad_output", "output"))
def sigmoid_backward(xp, grad_output: Tensor, output: Tensor):
    return grad_output * (1 - output) * output


sigmoid_backward.derivatives(
    grad_output=lambda ctx: sigmoid_backward(ctx.grad, ctx.output),
    output=lambda ctx: ctx.grad * ctx.grad_output * add_scalar(mul_scalar(ctx.output, -2), 1))


@defop("LogitBackward0", save=("input", "eps"), promote="float")
def logit(xp, input: Tensor, eps=None):
    _refuse_complex("logit_cpu", input)
    if eps is not None and eps >= 0:
        # torch's order of tests: with eps > 0.5 every input lands on one of the two bounds
        low, high = (input.dtype.type(bound) for bound in (eps, 1 - eps))  # bfloat16 stays
        input = xp.where(input < low, low, xp.where(input > high, high, input))
    return xp.log(input / (1 - input))


def _logit_grad(ctx):
    # 0 where eps clamped the input (outside [eps, 1 - eps]), nan outside [0, 1] without eps.
    # A torch quirk we copy: a negative eps counts as no eps in a plain backward, but as a
    # (wider) clamp range in a create_graph backward, where torch takes another formula.
    input, eps = ctx.input, ctx.eps
    if eps is None or (eps < 0 and not grad_mode.is_recording()):
        return where((input >= 0) & (input <= 1), ctx.grad / (input * (1 - input)), math.nan)
    return where((input >= eps) & (input <= 1 - eps), ctx.grad / (input * (1 - input)), 0.0)


logit.derivatives(input=_logit_grad)


@defop("ReluBackward0", save=("result",))
def relu(xp, input: Tensor):
    if input.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if input.dtype.kind == "c":  # torch's relu is a clamp
        raise NotImplementedError("clamp is not supported for complex types")
    # NumPy's maximum returns its second argument on ties: -0 stays -0, as torch's
    return xp.maximum(0, input).astype(input.dtype, copy=False)


relu.derivatives(input=lambda ctx: threshold_backward(ctx.grad, ctx.result, 0))


# The backward of relu and F.threshold (declared here, as activation.py builds on this module):
# the gradient passes unless input <= threshold, so it passes at NaN. A product with the mask:
# a where is ten times slower on this hot path (only a non-finite gradient that is masked
# differs: NaN, where torch gives 0). torch's `self` is `input` here, as in every op.
@defop("ThresholdBackwardBackward0", save=("input", "threshold"))
def threshold_backward(xp, grad_output: Tensor, input: Tensor, threshold):
    return grad_output * ~(input <= threshold)


threshold_backward.derivatives(
    grad_output=lambda ctx: threshold_backward(ctx.grad, ctx.input, ctx.threshold),
    input=lambda ctx: zeros_of(ctx.grad))


@defop("SincBackward0", save=("input",), promote="float")
def sinc(xp, input: Tensor):
    """sin(pi x) / (pi x), 1 at 0; computed in the input's dtype, as torch."""
    scaled = input * input.dtype.type(math.pi)
    return xp.where(input == 0, 1, xp.sin(scaled) / scaled).astype(input.dtype, copy=False)


def _sinc_grad(ctx):
    # d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x**2); torch takes 0 at 0
    scaled = ctx.input * math.pi
    denominator = scaled * ctx.input
    slope = (scaled * cos(scaled) - sin(scaled)) / denominator
    return where(denominator == 0, 0.0, ctx.grad * conj_of(slope))  # also where x**2 underflows


sinc.derivatives(input=_sinc_grad)


_RADIANS_PER_DEGREE = math.pi / 180


@defop("Deg2RadBackward0", promote="float")
def deg2rad(xp, input: Tensor):
    if input.dtype.kind == "c":
        raise RuntimeError("deg2rad is not supported for complex tensors.")
    return input * input.dtype.type(_RADIANS_PER_DEGREE)


deg2rad.derivatives(input=lambda ctx: mul_scalar(ctx.grad, _RADIANS_PER_DEGREE))


@defop("Rad2DegBackward0", promote="float")
def rad2deg(xp, input: Tensor):
    if input.dtype.kind == "c":
        raise RuntimeError("rad2deg is not supported for complex tensors.")
    return input * input.dtype.type(1 / _RADIANS_PER_DEGREE)


rad2deg.derivatives(input=lambda ctx: mul_scalar(ctx.grad, 1 / _RADIANS_PER_DEGREE))


# ---- rounding: piecewise constant, so torch gives zero gradients ---------------------------------

def _rounded(input, rounding, kernel):
    """Integers are whole already (a copy); torch has no kernel for bool."""
    if input.dtype.kind == "b" or input.dtype.kind == "c" and kernel.startswith("round"):
        raise NotImplementedError(not_implemented_for(kernel, input.dtype))
    if input.dtype.kind == "c":
        raise NotImplementedError(f"{kernel.split('_')[0]} is not supported for complex inputs")
    return rounding(input) if is_floating_kind(input.dtype) else input.copy()


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
    if not is_floating_kind(input.dtype):
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(not_implemented_for(kernel, input.dtype))
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
    if not is_floating_kind(input.dtype):
        raise NotImplementedError(not_implemented_for("frac_cpu", input.dtype))
    return input - xp.trunc(input)


frac.derivatives(input=lambda ctx: ctx.grad)


# it builds on this module: import it last
from .complex_parts import conj, conj_of, real  # noqa: E402


# torch's second names for the same ops
absolute = abs
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh, fix = asinh, acosh, atanh, trunc

# Public names: tapegrad.X (torch.X) and Tensor.X, bound by ops/__init__.py.
FUNCTIONS = (
    "abs absolute acos arccos arccosh arcsin arcsinh arctan arctan2 arctanh acosh asin asinh "
    "atan atan2 atanh ceil cos cosh deg2rad erf erfc exp exp2 expm1 fix floor frac log log10 "
    "log1p log2 logit rad2deg relu round rsqrt sgn sigmoid sign sin sinc sinh sqrt tan tanh "
    "trunc").split()
METHODS = FUNCTIONS


def _abs_(self):
    """Tensor.abs_: torch refuses it for complex tensors, whose abs is real."""
    if self.dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    from ._inplace import inplace  # it builds on this module
    return inplace(abs, self)


TENSOR_ONLY = {"abs_": _abs_, "absolute_": _abs_}
