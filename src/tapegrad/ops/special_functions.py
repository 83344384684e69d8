"""torch.special: the functions torch keeps only there (Bessel and Airy functions, the relatives
of erf, entr, xlog1py, zeta) and torch.special's names for ops declared in other families
(expit is sigmoid, gammaln is lgamma, ...: the same ops, recording the same nodes).

Values come from SciPy's special (an optional extra, imported on first use), computed in
float64 and rounded to the input's dtype; the orthogonal polynomials are in
special_polynomials.py. Where torch's own values differ from SciPy's, that is said below."""
import inspect
import math

from .. import _backend
from .._tensor import Tensor
from . import _airy
from ._checks import is_number, overload_error, type_name
from ._define import defop
from ._scipy_of import scipy_value
from .gamma import (checked_mvlgamma, checked_polygamma, digamma, igamma, igammac, lgamma)
from .indexing import masked_fill
from .loss import log_softmax as _log_softmax, softmax as _softmax
from .pointwise import add_scalar, mul_scalar, reciprocal, require_tensors, xlogy as _xlogy
from .reduction import logsumexp as _logsumexp
from .special_unary import bessel_i1_grad, erfinv, i0, i1, refuse_unsupported
from .unary import (erf, erfc, exp, exp2, expm1, log, log1p, logit as _logit, round as _round,
                    sgn, sigmoid, sinc)

_SQRT_2PI = math.sqrt(2 * math.pi)
_SUMMARIES = {
    "i0e": "exp(-|x|) I0(x), the scaled modified Bessel function of the first kind of order 0.",
    "i1e": "exp(-|x|) I1(x), the scaled modified Bessel function of the first kind of order 1.",
    "ndtri": "The inverse of the standard normal distribution function.",
    "log_ndtr": "The log of the standard normal distribution function.",
    "erfcx": "exp(x^2) erfc(x), the scaled complementary error function.",
    "entr": "-x log(x), 0 at 0 and -inf for x < 0.",
    "airy_ai": "The Airy function Ai.",
    "bessel_j0": "The Bessel function of the first kind of order 0.",
    "bessel_j1": "The Bessel function of the first kind of order 1.",
    "bessel_y0": "The Bessel function of the second kind of order 0.",
    "bessel_y1": "The Bessel function of the second kind of order 1.",
    "modified_bessel_i0": "The modified Bessel function of the first kind of order 0.",
    "modified_bessel_i1": "The modified Bessel function of the first kind of order 1.",
    "modified_bessel_k0": "The modified Bessel function of the second kind of order 0.",
    "modified_bessel_k1": "The modified Bessel function of the second kind of order 1.",
    "scaled_modified_bessel_k0": "exp(x) K0(x), the scaled modified Bessel function of the "
                                 "second kind of order 0.",
    "scaled_modified_bessel_k1": "exp(x) K1(x), the scaled modified Bessel function of the "
                                 "second kind of order 1."}


def _from_scipy(name, compute, node_name=None, save=(), argument="input", half=False):
    """A unary op computing compute(scipy.special, float64 array), in the input's floating
    dtype (integers and bool give the default float dtype, as in torch). argument: the name
    torch gives its parameter (in its errors); half: whether torch takes float16 and
    bfloat16."""
    def forward(xp, input: Tensor):
        refuse_unsupported(xp, f"{name}_cpu", input, half=half)
        result = scipy_value(xp, "special", compute, input.astype(xp.float64),
                             f"special_{name}", f"torch.special.{name}")
        return xp.asarray(result).astype(input.dtype, copy=False)

    signature = inspect.signature(forward)
    xp_parameter, input_parameter = signature.parameters.values()
    forward.__signature__ = signature.replace(
        parameters=[xp_parameter, input_parameter.replace(name=argument)])
    forward.__doc__ = _SUMMARIES[name]
    return defop(node_name, save=save, promote="float", name=f"special_{name}")(forward)


# ---- with derivatives ----------------------------------------------------------------------------

i0e = _from_scipy("i0e", lambda special, x: special.i0e(x), "SpecialI0EBackward0",
                  save=("input", "result"), half=True)
i1e = _from_scipy("i1e", lambda special, x: special.i1e(x), "SpecialI1EBackward0",
                  save=("input", "result"), half=True)
i0e.derivatives(input=lambda ctx: ctx.grad * (i1e(ctx.input) - sgn(ctx.input) * ctx.result))
# I1e'(x) = I0e(x) - I1e(x) (sgn(x) + 1 / x)
i1e.derivatives(input=lambda ctx: bessel_i1_grad(
    ctx, lambda safe: i0e(safe) - ctx.result * (sgn(safe) + reciprocal(safe))))

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
                   save=("input",), half=True)
entr.derivatives(input=lambda ctx: ctx.grad * -add_scalar(log(ctx.input), 1))


def ndtr(input):
    """The standard normal distribution function, as torch composes it from erf (so its tails
    round to 0 and 1 where SciPy's ndtr keeps digits)."""
    require_tensors("special_ndtr", input=input)
    return mul_scalar(add_scalar(erf(mul_scalar(input, math.sqrt(0.5))), 1), 0.5)


# ---- without derivatives in torch: their results never require grad -----------------------------
# torch's bessel_j0, j1, y0, y1 and airy_ai drop the leading coefficient of some of Cephes's
# rational approximations (p1evl's implicit 1) and are off by up to 1e-6 of the functions' scale
# (airy_ai 6e-6; near their zeros more in relative terms); SciPy's values are right to float64
# rounding, and these are them.

# a device whose SciPy twin has no airy (CuPy's) computes Ai in array ops instead (_airy.py)
airy_ai = _from_scipy("airy_ai", lambda special, x: special.airy(x)[0] if hasattr(special, "airy")
                      else _airy.airy_ai(_backend.array_module(x), x), argument="x")
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


@defop(None, promote="float", name="special_spherical_bessel_j0")
def spherical_bessel_j0(xp, x: Tensor):
    """sin(x) / x, the spherical Bessel function of the first kind of order 0: torch's Taylor
    polynomial below 1/2 (where the quotient would lose digits), 0 at the infinities. In array
    ops, so it runs on every device (CuPy's special has no spherical_jn)."""
    refuse_unsupported(xp, "spherical_bessel_j0_cpu", x, half=False)
    t = x.astype(xp.float64)
    square = t * t
    series = 1.0
    for n in range(12, 0, -2):  # 1 - x^2/3! + x^4/5! - ... up to x^12/13!
        series = 1.0 - square * series / ((n + 1) * n)
    with xp.errstate(invalid="ignore", divide="ignore"):
        quotient = xp.where(xp.isinf(t), 0.0, xp.sin(t) / t)
    return xp.where(xp.abs(t) < 0.5, series, quotient).astype(x.dtype, copy=False)


# ---- binary: a number allowed on either side, three overloads and three nodes --------------------

_NUMBER_OVERLOADS = ("Tensor input, Tensor other, *, Tensor out = None",
                     "Number self, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None")


def _overload(name, input, other):
    """Which of torch's three overloads (input, other) selects: 0 for two tensors, 1 for a
    number and a tensor, 2 for a tensor and a number; torch's TypeError for none."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return 0
    if isinstance(other, Tensor) and is_number(input):
        return 1
    if isinstance(input, Tensor) and is_number(other):
        return 2
    raise overload_error(name, _NUMBER_OVERLOADS, (input, other))


def _three_overloads(name, node_name, forward):
    """torch's overloads of a binary function as three ops, one node each (<node_name>0, 1,
    2): (tensor, tensor), (number self, tensor), (tensor, number); forward(xp, input, other)
    gets a number where one is given. Returns the ops (for their derivatives) and the public
    function choosing among them."""
    def tensors(xp, input: Tensor, other: Tensor):
        return forward(xp, input, other)

    def number_tensor(xp, self, other: Tensor):
        return forward(xp, self, other)

    def tensor_number(xp, input: Tensor, other):
        return forward(xp, input, other)

    ops = (defop(f"{node_name}0", save=("input", "other"), promote="float",
                 name=f"_{name}_tensors")(tensors),
           defop(f"{node_name}1", save=("self", "other"), promote="float", scalars=("self",),
                 name=f"_{name}_number_tensor")(number_tensor),
           defop(f"{node_name}2", save=("input", "other"), promote="float", scalars=("other",),
                 name=f"_{name}_tensor_number")(tensor_number))

    def function(input, other):
        return ops[_overload(f"special_{name}", input, other)](input, other)
    function.__name__ = function.__qualname__ = name
    return ops, function


def _as_array_of(xp, value, like):
    """A number as an array of the other argument's (already promoted) dtype."""
    return value if isinstance(value, xp.ndarray) else xp.asarray(value, dtype=like.dtype)


def _xlog1py(xp, input, other):
    # 0 * log1p(-1) is 0, but a NaN other still gives NaN
    refuse_unsupported(xp, "xlog1py_cpu", input, other)
    reference = input if isinstance(input, xp.ndarray) else other
    input, other = _as_array_of(xp, input, reference), _as_array_of(xp, other, reference)
    product = xp.multiply(input, xp.log1p(other))
    return xp.where((input == 0) & ~xp.isnan(other), 0, product).astype(product.dtype)


(_xlog1py_tensors, _xlog1py_number_tensor, _xlog1py_tensor_number), xlog1py = _three_overloads(
    "xlog1py", "SpecialXlog1PyBackward", _xlog1py)
xlog1py.__doc__ = "input * log1p(other), 0 where input is 0 (unless other is NaN)."


def _xlog1py_input_grad(ctx):
    # torch's: grad * log1p(other), but 0 where input is 0 and other <= -1
    if is_number(ctx.other):
        grad = _xlog1py_tensor_number(ctx.grad, ctx.other)
        return grad if ctx.other > -1 else masked_fill(grad, ctx.input == 0, 0)
    grad = _xlog1py_tensors(ctx.grad, ctx.other)
    return masked_fill(grad, (ctx.input == 0) & (ctx.other <= -1), 0)


_xlog1py_tensors.derivatives(input=_xlog1py_input_grad,
                             other=lambda ctx: ctx.grad * ctx.input / add_scalar(ctx.other, 1))
_xlog1py_number_tensor.derivatives(
    other=lambda ctx: mul_scalar(ctx.grad, ctx.self) / add_scalar(ctx.other, 1))
_xlog1py_tensor_number.derivatives(input=_xlog1py_input_grad)


def _zeta(xp, input, other):
    refuse_unsupported(xp, "zeta_cpu", input, other, half=False)
    reference = input if isinstance(input, xp.ndarray) else other
    x, q = (_as_array_of(xp, value, reference).astype(xp.float64) for value in (input, other))
    # torch's series sums 0 * inf at q = inf: NaN there unless x = 1 (SciPy: 0)
    result = xp.where(xp.isposinf(q) & (x != 1), xp.nan,
                      scipy_value(xp, "special", lambda special, x: special.zeta(x, q), x,
                                  "special_zeta", "torch.special.zeta"))
    return result.astype(reference.dtype, copy=False)


(_zeta_tensors, _zeta_number_tensor, _zeta_tensor_number), zeta = _three_overloads(
    "zeta", "SpecialZetaBackward", _zeta)
zeta.__doc__ = "The Hurwitz zeta function zeta(input, other) = sum_k (other + k)^-input."


def _zeta_input_grad(ctx):
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


# d/dq zeta(x, q) = -x zeta(x + 1, q)
_zeta_tensors.derivatives(input=_zeta_input_grad,
                          other=lambda ctx: ctx.grad * -ctx.input
                          * _zeta_tensors(add_scalar(ctx.input, 1), ctx.other))
_zeta_number_tensor.derivatives(other=lambda ctx: mul_scalar(ctx.grad, -ctx.self)
                                * _zeta_number_tensor(ctx.self + 1.0, ctx.other))
_zeta_tensor_number.derivatives(input=_zeta_input_grad)


# ---- torch.special's names for ops of other families ---------------------------------------------
# Each calls the op itself (so records its node), under torch.special's signature and with its
# name in the errors (special_expit(): argument 'input' ...).

def _unary_alias(name, op):
    def alias(input):
        return op(input)
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"torch.special.{name}: {op.__name__.lstrip('_')}."
    return alias


_UNARY_ALIASES = {"digamma": digamma, "erf": erf, "erfc": erfc, "erfinv": erfinv, "exp2": exp2,
                  "expit": sigmoid, "expm1": expm1, "gammaln": lgamma, "i0": i0, "log1p": log1p,
                  "psi": digamma, "sinc": sinc}


def logit(input, eps=None):
    """log(input / (1 - input)), input clamped to [eps, 1 - eps] when eps is given."""
    return _logit(input, eps)


def round(input, *, decimals=0):
    """Round half to even, to `decimals` decimal places."""
    if not isinstance(decimals, int):
        raise TypeError(f"special_round(): argument 'decimals' must be int, not "
                        f"{type_name(decimals)}")
    return _round(input, decimals=decimals)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is NaN)."""
    _overload("special_xlogy", input, other)
    return _xlogy(input, other)


_MISSING = object()


def _required_dim(name, dim, kind="int"):
    """torch's TypeErrors where torch.special's dim is missing or None."""
    if dim is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if dim is None:
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be {kind}, not NoneType")


def softmax(input, dim=_MISSING, *, dtype=None):
    """Softmax along dim (required here), computed in dtype when given."""
    _required_dim("special_softmax", dim)
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=_MISSING, *, dtype=None):
    """Log-softmax along dim (required here), computed in dtype when given."""
    _required_dim("special_log_softmax", dim)
    return _log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim=_MISSING, keepdim=False):
    """log(sum(exp(input))) along dim (required here)."""
    _required_dim("special_logsumexp", dim, "tuple of ints")
    return _logsumexp(input, dim, keepdim)


def polygamma(n, input):
    """The n-th derivative of digamma."""
    return checked_polygamma("special_polygamma", n, input)


def multigammaln(input, p):
    """The log of the multivariate gamma function of dimension p (mvlgamma)."""
    return checked_mvlgamma("special_multigammaln", input, p)


def gammainc(input, other):
    """The regularized lower incomplete gamma function (igamma)."""
    require_tensors("special_gammainc", input=input, other=other)
    return igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function (igammac)."""
    require_tensors("special_gammaincc", input=input, other=other)
    return igammac(input, other)


SPECIAL_FUNCTIONS = {name: _unary_alias(name, op) for name, op in _UNARY_ALIASES.items()}
SPECIAL_FUNCTIONS.update((name, globals()[name]) for name in """airy_ai bessel_j0 bessel_j1
    bessel_y0 bessel_y1 entr erfcx gammainc gammaincc i0e i1 i1e log_ndtr log_softmax logit
    logsumexp modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 modified_bessel_k1
    multigammaln ndtr ndtri polygamma round scaled_modified_bessel_k0 scaled_modified_bessel_k1
    softmax spherical_bessel_j0 xlog1py xlogy zeta""".split())
