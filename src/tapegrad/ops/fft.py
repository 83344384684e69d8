"""torch.fft: the discrete Fourier transforms, composed as torch composes them from three
primitives with their own nodes (aten's _fft_r2c, _fft_c2c, _fft_c2r), computed by numpy.fft:

    _fft_r2c  FftR2CBackward0   real -> complex, forward; onesided keeps n // 2 + 1 on the
                                last dim (rfft, and fft of a real input)
    _fft_c2c  FftC2CBackward0   complex -> complex, forward or inverse
    _fft_c2r  FftC2RBackward0   onesided complex -> real, inverse (irfft, hfft)

`normalization` is torch's fft_norm_mode: the result is scaled by 1 (0), 1/sqrt(n) (1) or
1/n (2), whatever the direction, n the signal size (the real side's for r2c and c2r). The
inverse transforms of real signals are conjugates of forward ones, as in torch (ifft of a real
input is conj(r2c), hfft is c2r of the conjugate).
"""
import functools
import inspect

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ._checks import as_int, int_list, type_name
from ._define import defop
from .activation import pad
from .complex_parts import conj, conj_physical, real
from .joining import narrow
from .reordering import roll
from .shape import constant_beside

# numpy.fft's norm names for normalization 0, 1, 2 (they depend on the direction)
_FORWARD_NORMS = ("backward", "ortho", "forward")
_INVERSE_NORMS = ("forward", "ortho", "backward")


def _complex_of(dtype):
    return np.promote_types(dtype, np.complex64)


@defop("FftR2CBackward0", save=("dim", "normalization", "onesided"))
def _fft_r2c(xp, input: Tensor, dim, normalization, onesided):
    transform = xp.fft.rfftn if onesided else xp.fft.fftn
    result = transform(input, axes=dim, norm=_FORWARD_NORMS[normalization])
    return result.astype(_complex_of(input.dtype), copy=False)


def _r2c_backward(ctx):
    """The adjoint of r2c: the onesided gradient padded with zeros to the full length, an
    inverse c2c, the real part (torch's fft_r2c_backward)."""
    grad, last = ctx.grad, ctx.dim[-1]
    missing = ctx.input_shape[last] - grad.shape[last]
    if ctx.onesided and missing > 0:
        grad = pad(grad, (0, 0) * (grad.ndim - 1 - last) + (0, missing))
    return real(_fft_c2c(grad, ctx.dim, ctx.normalization, False))


_fft_r2c.derivatives(input=_r2c_backward)


@defop("FftC2CBackward0", save=("dim", "normalization", "forward"))
def _fft_c2c(xp, input: Tensor, dim, normalization, forward):
    if not dim:
        return input.copy()
    if forward:
        return xp.fft.fftn(input, axes=dim, norm=_FORWARD_NORMS[normalization]).astype(
            input.dtype, copy=False)
    return xp.fft.ifftn(input, axes=dim, norm=_INVERSE_NORMS[normalization]).astype(
        input.dtype, copy=False)


_fft_c2c.derivatives(input=lambda ctx: _fft_c2c(ctx.grad, ctx.dim, ctx.normalization,
                                                not ctx.forward))


@defop("FftC2RBackward0", save=("dim", "normalization"))
def _fft_c2r(xp, input: Tensor, dim, normalization, last_dim_size):
    """The input holds last_dim_size // 2 + 1 entries on dim[-1]; the imaginary parts of the
    zero (and, for an even size, the last) frequency are ignored, as by torch's kernels."""
    sizes = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    result = xp.fft.irfftn(input, s=sizes, axes=dim, norm=_INVERSE_NORMS[normalization])
    return result.astype(input.real.dtype, copy=False)


def _c2r_backward(ctx):
    """The adjoint of c2r (torch's fft_c2r_backward): a onesided r2c of the gradient, with
    the frequencies that stand for two (k and n - k) counted twice."""
    last = ctx.dim[-1]
    grad = _fft_r2c(ctx.grad, ctx.dim, ctx.normalization, True)
    kept = grad.shape[last]
    twice = ctx.grad.shape[last] - kept
    if twice <= 0:
        return grad
    weights = np.ones(kept, grad.dtype.to_real().numpy)
    weights[1:1 + twice] = 2
    weights = weights.reshape((kept,) + (1,) * (grad.ndim - 1 - last))
    return grad * constant_beside(grad, weights)


_fft_c2r.derivatives(input=_c2r_backward)


# ---- arguments, as torch checks them ---------------------------------------------------------

def _norm_mode(norm, forward):
    """torch's fft_norm_mode for a NumPy norm name and a direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promoted(input, require_complex):
    """torch's promote_tensor_fft: integers to the default float dtype, then to complex if
    required; half floats are refused, as by torch on the CPU."""
    dtype = input.dtype
    if not dtype.is_complex:
        if not dtype.is_floating_point:
            dtype = _dtype.get_default_dtype()
        if dtype not in (_dtype.float32, _dtype.float64):
            raise RuntimeError(f"Unsupported dtype {dtype.legacy_name}")
        if require_complex:
            dtype = dtype.to_complex()
    return input if dtype is input.dtype else input.to(dtype)


def _wrapped(dim, ndim):
    """A dim wrapped as torch's FFTs wrap it: a 0-d tensor has no dim to transform."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def _checked_size(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _resized(input, dims, sizes):
    """input with size sizes[i] on dims[i]: cut from the start, or zero-padded at the end."""
    padding = [0] * (2 * input.ndim)
    for dim, size in zip(dims, sizes):
        if input.shape[dim] > size:
            input = narrow(input, dim, 0, size)
        elif input.shape[dim] < size:
            padding[2 * (input.ndim - 1 - dim) + 1] = size - input.shape[dim]
    return pad(input, tuple(padding)) if any(padding) else input


def _ints(value):
    return (value,) if isinstance(value, int) else tuple(value)


def _shape_and_dims(input, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the dims to transform (wrapped) and the
    signal size on each."""
    ndim = input.ndim
    dims = None if dim is None else tuple(_wrapped(d, ndim) for d in _ints(dim))
    if dims is not None and len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = _ints(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        sizes = [input.shape[d] if n == -1 else n for n, d in zip(s, dims)]
    else:
        dims = tuple(range(ndim)) if dims is None else dims
        sizes = [input.shape[d] for d in dims]
    for size in sizes:
        _checked_size(size)
    return sizes, dims


def _c2r_shape_and_dims(name, input, s, dim):
    """The c2r transforms' sizes and dims, and the real output's size on the last dim (its
    input is resized to half of that, plus one)."""
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is None or _ints(s)[-1] == -1:
        last_dim_size = 2 * (input.shape[dims[-1]] - 1)
    else:
        last_dim_size = sizes[-1]
    sizes[-1] = _checked_size(last_dim_size) // 2 + 1
    return sizes, dims, last_dim_size


def _parsed(function):
    """function, raising the TypeErrors of torch's argument parser for a size, dim or norm
    of the wrong type (fft_fft(): argument 'n' must be int, not float)."""
    name = f"fft_{function.__name__}"
    parameters = list(inspect.signature(function).parameters)
    one_dim = function.__name__ in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")

    @functools.wraps(function)
    def parse(*args, **kwargs):
        given = [(p, value, i + 1) for i, (p, value) in enumerate(zip(parameters, args))]
        for parameter, value, position in given + [(k, v, None) for k, v in kwargs.items()]:
            if value is None or parameter == "input":
                continue
            where = "" if position is None else f" (position {position})"
            if parameter == "norm" and not isinstance(value, str):
                raise TypeError(f"{name}(): argument 'norm'{where} must be str, not "
                                f"{type_name(value)}")
            if parameter == "d" and not isinstance(value, (int, float)):
                raise TypeError(f"{name}(): argument 'd'{where} must be float, not "
                                f"{type_name(value)}")
            if parameter == "n" or parameter == "dim" and one_dim:
                if as_int(value) is None:
                    raise TypeError(f"{name}(): argument '{parameter}'{where} must be int, not "
                                    f"{type_name(value)}")
            elif parameter in ("s", "dim") and as_int(value) is None:  # one int or a sequence
                int_list(value, name, parameter, position, varargs=False,
                         keyword=position is None)
        return function(*args, **kwargs)
    return parse


# ---- one-dimensional transforms ----------------------------------------------------------------

def _one_dim(input, n, dim):
    """The input resized to n on dim (when n is given), and the wrapped dim."""
    dim, n = _wrapped(dim, input.ndim), as_int(n)  # n may be an integer tensor
    if n is None:
        _checked_size(input.shape[dim])
        return input, dim
    return _resized(input, (dim,), (_checked_size(n),)), dim


def _c2c(input, n, dim, norm, forward):
    input, dim = _one_dim(input, n, dim)
    return _fft_c2c(input, (dim,), _norm_mode(norm, forward), forward)


def _r2c(name, input, n, dim, norm, forward, onesided):
    if input.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                        f"{input.dtype.legacy_name}")
    input, dim = _one_dim(_promoted(input, False), n, dim)
    result = _fft_r2c(input, (dim,), _norm_mode(norm, forward), onesided)
    return result if forward else conj(result)


def _c2r(input, n, dim, norm, forward):
    input = _promoted(input, True)
    dim, n = _wrapped(dim, input.ndim), as_int(n)
    last_dim_size = _checked_size(2 * (input.shape[dim] - 1) if n is None else n)
    if n is not None:
        input = _resized(input, (dim,), (last_dim_size // 2 + 1,))
    if forward:
        input = conj(input)
    return _fft_c2r(input, (dim,), _norm_mode(norm, forward), last_dim_size)


def fft(input, n=None, dim=-1, norm=None):
    """The one-dimensional discrete Fourier transform."""
    if input.is_complex():
        return _c2c(input, n, dim, norm, True)
    return _r2c("fft", input, n, dim, norm, True, False)


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of fft."""
    if input.is_complex():
        return _c2c(input, n, dim, norm, False)
    return _r2c("ifft", input, n, dim, norm, False, False)


def rfft(input, n=None, dim=-1, norm=None):
    """fft of a real input, keeping the n // 2 + 1 non-negative frequencies."""
    return _r2c("rfft", input, n, dim, norm, True, True)


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: a real signal of length n (2 * (size - 1) by default)."""
    return _c2r(input, n, dim, norm, False)


def hfft(input, n=None, dim=-1, norm=None):
    """fft of a Hermitian-symmetric signal given by its first half: a real result."""
    return _c2r(input, n, dim, norm, True)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the first n // 2 + 1 entries of ifft of a real input."""
    return _r2c("ihfft", input, n, dim, norm, False, True)


# ---- n-dimensional transforms ------------------------------------------------------------------

def _c2c_n(input, s, dim, norm, forward):
    sizes, dims = _shape_and_dims(input, s, dim)
    input = _resized(_promoted(input, True), dims, sizes)
    return _fft_c2c(input, dims, _norm_mode(norm, forward), forward)


def fftn(input, s=None, dim=None, norm=None):
    """The n-dimensional discrete Fourier transform (over every dim by default)."""
    return _c2c_n(input, s, dim, norm, True)


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of fftn."""
    return _c2c_n(input, s, dim, norm, False)


def rfftn(input, s=None, dim=None, norm=None):
    """fftn of a real input, onesided on the last transformed dim."""
    if input.is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                        f"{input.dtype.legacy_name}")
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    input = _resized(_promoted(input, False), dims, sizes)
    return _fft_r2c(input, dims, _norm_mode(norm, True), True)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of rfftn."""
    sizes, dims, last_dim_size = _c2r_shape_and_dims("irfftn", input, s, dim)
    input = _resized(_promoted(input, True), dims, sizes)
    return _fft_c2r(input, dims, _norm_mode(norm, False), last_dim_size)


def hfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional hfft: c2c over all but the last dim, then hfft on the last."""
    sizes, dims, last_dim_size = _c2r_shape_and_dims("hfftn", input, s, dim)
    input = _resized(_promoted(input, True), dims, sizes)
    normalization = _norm_mode(norm, True)
    if len(dims) > 1:
        input = _fft_c2c(input, dims[:-1], normalization, True)
    return _fft_c2r(conj(input), dims[-1:], normalization, last_dim_size)


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of hfftn: ihfft on the last dim, then an inverse c2c over the others."""
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                           f"{input.dtype.legacy_name}")
    input = _resized(_promoted(input, False), dims, sizes)
    normalization = _norm_mode(norm, False)
    result = _fft_r2c(input, dims[-1:], normalization, True)
    if len(dims) == 1:
        return conj(result)
    return _fft_c2c(conj_physical(result), dims[:-1], normalization, False)


def _two_dim(transform):
    def two_dim(input, s=None, dim=(-2, -1), norm=None):
        return transform(input, s, dim, norm)
    two_dim.__name__ = two_dim.__qualname__ = transform.__name__[:-1] + "2"
    two_dim.__doc__ = f"{transform.__name__} over two dims, the last two by default."
    return two_dim


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = map(_two_dim, (fftn, ifftn, rfftn, irfftn, hfftn,
                                                           ihfftn))


# ---- frequencies and shifts ----------------------------------------------------------------------

def _frequencies(name, count, n, d, dtype, device, requires_grad):
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: [{count}]")
    if dtype.is_complex:
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{dtype.legacy_name}\'')
    values = np.arange(count).astype(dtype.numpy)
    if name == "fftfreq":
        values[(n + 1) // 2:] -= n
    # torch multiplies by 1 / (n d), computed in double (inf for n = 0), in the result's dtype
    with np.errstate(all="ignore"):
        values *= (np.float64(1.0) / np.float64(n * d)).astype(dtype.numpy)
    result = Tensor._make(values)
    if device is not None:
        result = result.to(device)
    return result.requires_grad_() if requires_grad else result


def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """The frequencies of fft's n results for a sample spacing d: 0, 1, ..., -1 over n d."""
    n = as_int(n)
    return _frequencies("fftfreq", n, n, d, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """The frequencies of rfft's n // 2 + 1 results for a sample spacing d."""
    n = as_int(n)
    return _frequencies("rfftfreq", n // 2 + 1, n, d, dtype, device, requires_grad)


def _shifted(input, dim, shift):
    dims = range(input.ndim) if dim is None else [_wrapped(d, input.ndim) for d in _ints(dim)]
    dims = tuple(dims)
    return roll(input, tuple(shift(input.shape[d]) for d in dims), dims)


def fftshift(input, dim=None):
    """Roll the zero frequency to the centre of each dim (all dims by default)."""
    return _shifted(input, dim, lambda size: size // 2)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shifted(input, dim, lambda size: (size + 1) // 2)


FFT_FUNCTIONS = {name: _parsed(globals()[name]) for name in (
    "fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 hfft2 ihfft2 fftn ifftn rfftn irfftn "
    "hfftn ihfftn fftfreq rfftfreq fftshift ifftshift").split()}
