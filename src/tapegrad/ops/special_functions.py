"""torch.special: the functions torch keeps only there (Bessel and Airy functions, the relatives
of erf, entr, xlog1py, zeta) and torch.special's names for ops declared in other families
(expit is sigmoid, gammaln is lgamma, ...: the same ops, recording the same nodes).

Values come from SciPy's special (an optional extra, imported on first use), computed in
float64 and rounded to the input's dtype; the orthogonal polynomials are in
special_polynomials.py. Where torch's own values differ from SciPy's, that is said below."""
import inspect
import math

from .._scipy import scipy
from .._tensor import Tensor
from ._checks import is_number, overload_error
from ._define import defop
from .gamma import igamma, igammac, lgamma, mvlgamma, polygamma
from .indexing import masked_fill
from .loss import log_softmax as _log_softmax, softmax as _softmax
from .pointwise import (add_scalar, mul_scalar, not_implemented_for, require_tensors,
                        where, xlogy)
from .reduction import logsumexp
from .special_unary import bessel_i1_grad, erfinv, i0, i1
from .unary import erf, erfc, exp, exp2, expm1, log, log1p, logit, round, sgn, sigmoid, sinc
from .gamma import digamma

_SQRT_2PI = math.sqrt(2 * math.pi)


def refuse_complex(xp, kernel, *arrays):
    """torch's error for the special functions, which take no complex numbers."""
    for array in arrays:
        if isinstance(array, xp.ndarray) and array.dtype.kind == "c":
            raise NotImplementedError(not_implemented_for(f"{kernel}_cpu", array.dtype))


def _from_scipy(name, compute, node_name=None, save=(), argument="input"):
    """A unary op computing compute(scipy.special, float64 array), in the input's floating
    dtype (integers and bool give the default float dtype, as in torch). argument: the name
    torch gives its parameter (in its errors)."""
    def forward(xp, input: Tensor):
        refuse_complex(xp, name, input)
        special = scipy("special", f"torch.special.{name}")
        result = compute(special, input.astype(xp.float64))
        return xp.asarray(result).astype(input.dtype, copy=False)

    signature = inspect.signature(forward)
    xp_parameter, input_parameter = signature.parameters.values()
    forward.__signature__ = signature.replace(
        parameters=[xp_parameter, input_parameter.replace(name=argument)])
    forward.__doc__ = f"torch.special.{name}."
    return defop(node_name, save=save, promote="float", name=f"special_{name}")(forward)


# ---- with derivatives ----------------------------------------------------------------------------

i0e = _from_scipy("i0e", lambda special, x: special.i0e(x), "SpecialI0EBackward0",
                  save=("input", "result"))
i1e = _from_scipy("i1e", lambda special, x: special.i1e(x), "SpecialI1EBackward0",
                  save=("input", "result"))
i0e.derivatives(input=lambda ctx: ctx.grad * (i1e(ctx.input) - sgn(ctx.input) * ctx.result))
# I1e'(x) = I0e(x) - I1e(x) (sgn(x) + 1 / x)
i1e.derivatives(input=lambda ctx: bessel_i1_grad(
    ctx, lambda safe: i0e(safe) - ctx.result * (sgn(safe) + 1 / safe)))

ndtri = _from_scipy("ndtri", lambda special, x: special.ndtri(x), "SpecialNdtriBackward0",
                    save=("result",))
ndtri.derivatives(input=lambda ctx: mul_scalar(ctx.grad, _SQRT_2PI)
                  * exp(ctx.result * ctx.result / 2))

log_ndtr = _from_scipy("log_ndtr", lambda special, x: special.log_ndtr(x),
                       "SpecialLogNdtrBackward0", save=("input", "result"))
log_ndtr.derivatives(input=lambda ctx: ctx.grad / _SQRT_2PI
                     * exp(-(ctx.result + ctx.input * ctx.input / 2)))

erfcx = _from_scipy("erfcx", lambda special, x: special.erfcx(x), "SpecialErfcxBackward0",
                    save=("input", "result"))
erfcx.derivatives(input=lambda ctx: (mul_scalar(ctx.input * ctx.result, 2)
                                     - 2 / math.sqrt(math.pi)) * ctx.grad)

entr = _from_scipy("entr", lambda special, x: special.entr(x), "SpecialEntrBackward0",
                   save=("input",))
entr.derivatives(input=lambda ctx: ctx.grad * -add_scalar(log(ctx.input), 1))


def ndtr(input):
    """The standard normal distribution function, as torch composes it from erf (so its tails
    round to 0 and 1 where SciPy's ndtr keeps digits)."""
    require_tensors("special_ndtr", input=input)
    return mul_scalar(add_scalar(erf(mul_scalar(input, math.sqrt(0.5))), 1), 0.5)


# ---- without derivatives in torch: their results never require grad -----------------------------
# torch's bessel_j0/j1 and airy_ai drop a leading coefficient of Cephes's rational
# approximations and are off by up to 1e-6 (airy_ai 6e-6, near its zeros more in relative
# terms); SciPy's values are right to float64 rounding.

airy_ai = _from_scipy("airy_ai", lambda special, x: special.airy(x)[0], argument="x")
bessel_j0 = _from_scipy("bessel_j0", lambda special, x: special.j0(x))
bessel_j1 = _from_scipy("bessel_j1", lambda special, x: special.j1(x))
bessel_y0 = _from_scipy("bessel_y0", lambda special, x: special.y0(x))
bessel_y1 = _from_scipy("bessel_y1", lambda special, x: special.y1(x))
modified_bessel_i0 = _from_scipy("modified_bessel_i0", lambda special, x: special.i0(x))
modified_bessel_i1 = _from_scipy("modified_bessel_i1", lambda special, x: special.i1(x))
modified_bessel_k0 = _from_scipy("modified_bessel_k0", lambda special, x: special.k0(x))
modified_bessel_k1 = _from_scipy("modified_bessel_k1", lambda special, x: special.k1(x))
scaled_modified_bessel_k0 = _from_scipy("scaled_modified_bessel_k0",
                                        lambda special, x: special.k0e(x), argument="x")
scaled_modified_bessel_k1 = _from_scipy("scaled_modified_bessel_k1",
                                        lambda special, x: special.k1e(x), argument="x")
spherical_bessel_j0 = _from_scipy("spherical_bessel_j0",
                                  lambda special, x: special.spherical_jn(0, x), argument="x")


# ---- binary: a number allowed on either side, three overloads and three nodes --------------------

_NUMBER_OVERLOADS = ("Tensor input, Tensor other, *, Tensor out = None",
                     "Number self, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None")


def _overload(name, input, other):
    """Which of torch's three overloads (input, other) selects: 0 for two tensors, 1 for a
    number and a tensor, 2 for a tensor and a number; torch's TypeError for none."""
    numbers = (int, float)
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return 0
    if isinstance(other, Tensor) and isinstance(input, numbers):
        return 1
    if isinstance(input, Tensor) and isinstance(other, numbers):
        return 2
    raise overload_error(name, _NUMBER_OVERLOADS, (input, other))


def _as_array_of(xp, value, like):
    """A number as an array of the other argument's (already promoted) dtype."""
    return value if isinstance(value, xp.ndarray) else xp.asarray(value, dtype=like.dtype)


def _xlog1py(xp, input, other):
    # 0 * log1p(-1) is 0, but a NaN other still gives NaN
    refuse_complex(xp, "xlog1py", input, other)
    reference = input if isinstance(input, xp.ndarray) else other
    input, other = _as_array_of(xp, input, reference), _as_array_of(xp, other, reference)
    product = xp.multiply(input, xp.log1p(other))
    return xp.where((input == 0) & ~xp.isnan(other), 0, product).astype(product.dtype)


@defop("SpecialXlog1PyBackward0", save=("input", "other"), promote="float")
def _xlog1py_tensor(xp, input: Tensor, other: Tensor):
    return _xlog1py(xp, input, other)


def _xlog1py_input_grad(ctx):
    # torch's: grad * log1p(other), but 0 where input is 0 and other <= -1
    if is_number(ctx.other):
        grad = _xlog1py_tensor_number(ctx.grad, ctx.other)
        return grad if ctx.other > -1 else masked_fill(grad, ctx.input == 0, 0)
    grad = _xlog1py_tensor(ctx.grad, ctx.other)
    return masked_fill(grad, (ctx.input == 0) & (ctx.other <= -1), 0)


_xlog1py_tensor.derivatives(input=_xlog1py_input_grad,
                            other=lambda ctx: ctx.grad * ctx.input / add_scalar(ctx.other, 1))


@defop("SpecialXlog1PyBackward1", save=("self", "other"), promote="float", scalars=("self",))
def _xlog1py_number_tensor(xp, self, other: Tensor):
    return _xlog1py(xp, self, other)


_xlog1py_number_tensor.derivatives(
    other=lambda ctx: mul_scalar(ctx.grad, ctx.self) / add_scalar(ctx.other, 1))


@defop("SpecialXlog1PyBackward2", save=("input", "other"), promote="float", scalars=("other",))
def _xlog1py_tensor_number(xp, input: Tensor, other):
    return _xlog1py(xp, input, other)


_xlog1py_tensor_number.derivatives(input=_xlog1py_input_grad)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (unless other is NaN)."""
    overload = _overload("special_xlog1py", input, other)
    return (_xlog1py_tensor, _xlog1py_number_tensor, _xlog1py_tensor_number)[overload](
        input, other)


def _zeta(xp, input, other):
    refuse_complex(xp, "zeta", input, other)
    reference = input if isinstance(input, xp.ndarray) else other
    x, q = (_as_array_of(xp, value, reference).astype(xp.float64) for value in (input, other))
    # torch's series sums 0 * inf at q = inf: NaN there (SciPy: 0)
    result = xp.where(xp.isposinf(q), xp.nan, scipy("special", "torch.special.zeta").zeta(x, q))
    return result.astype(reference.dtype, copy=False)


def _zeta_input_grad(ctx):
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


@defop("SpecialZetaBackward0", save=("input", "other"), promote="float")
def _zeta_tensor(xp, input: Tensor, other: Tensor):
    return _zeta(xp, input, other)


# d/dq zeta(x, q) = -x zeta(x + 1, q)
_zeta_tensor.derivatives(input=_zeta_input_grad,
                         other=lambda ctx: ctx.grad * -ctx.input
                         * _zeta_tensor(add_scalar(ctx.input, 1), ctx.other))


@defop("SpecialZetaBackward1", save=("self", "other"), promote="float", scalars=("self",))
def _zeta_number_tensor(xp, self, other: Tensor):
    return _zeta(xp, self, other)


_zeta_number_tensor.derivatives(
    other=lambda ctx: mul_scalar(ctx.grad, -ctx.self) * _zeta_number_tensor(ctx.self + 1.0, ctx.other))


@defop("SpecialZetaBackward2", save=("input", "other"), promote="float", scalars=("other",))
def _zeta_tensor_number(xp, input: Tensor, other):
    return _zeta(xp, input, other)


_zeta_tensor_number.derivatives(input=_zeta_input_grad)


def zeta(input, other):
    """The Hurwitz zeta function zeta(input, other) = sum_k (other + k)^-input."""
    overload = _overload("special_zeta", input, other)
    return (_zeta_tensor, _zeta_number_tensor, _zeta_tensor_number)[overload](input, other)


# ---- torch.special's names for ops of other families ---------------------------------------------
# Plain functions where torch.special's signature differs from the op's (dim required,
# keyword-only dtype); the op itself otherwise.

def softmax(input, dim, *, dtype=None):
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _log_softmax(input, dim, dtype=dtype)


def gammainc(input, other):
    """The regularized lower incomplete gamma function (igamma)."""
    require_tensors("special_gammainc", input=input, other=other)
    return igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function (igammac)."""
    require_tensors("special_gammaincc", input=input, other=other)
    return igammac(input, other)


SPECIAL_FUNCTIONS = {
    "airy_ai": airy_ai, "bessel_j0": bessel_j0, "bessel_j1": bessel_j1, "bessel_y0": bessel_y0,
    "bessel_y1": bessel_y1, "digamma": digamma, "entr": entr, "erf": erf, "erfc": erfc,
    "erfcx": erfcx, "erfinv": erfinv, "exp2": exp2, "expit": sigmoid, "expm1": expm1,
    "gammainc": gammainc, "gammaincc": gammaincc, "gammaln": lgamma, "i0": i0, "i0e": i0e,
    "i1": i1, "i1e": i1e, "log1p": log1p, "log_ndtr": log_ndtr, "log_softmax": log_softmax,
    "logit": logit, "logsumexp": logsumexp, "modified_bessel_i0": modified_bessel_i0,
    "modified_bessel_i1": modified_bessel_i1, "modified_bessel_k0": modified_bessel_k0,
    "modified_bessel_k1": modified_bessel_k1, "multigammaln": mvlgamma, "ndtr": ndtr,
    "ndtri": ndtri, "polygamma": polygamma, "psi": digamma, "round": round,
    "scaled_modified_bessel_k0": scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": scaled_modified_bessel_k1, "sinc": sinc, "softmax": softmax,
    "spherical_bessel_j0": spherical_bessel_j0, "xlog1py": xlog1py, "xlogy": xlogy,
    "zeta": zeta,
}
