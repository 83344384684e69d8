"""Complex numbers: the parts of a complex tensor (real, imag as views, view_as_real,
view_as_complex), conj and its lazy-bit queries, angle, and complex tensors built from real
ones (complex, polar). Of a real tensor, real, conj and the resolve_* ops give the tensor
itself, as torch does; angle is 0 or pi; positive is +x.

Note [Conjugate bit]: torch's conj() is a lazy view carrying a conjugate bit. NumPy has no
such view, so conj() here is a copy (writes to it do not reach the input); is_conj() reports
the bit as torch sets it on conj()'s result, and resolve_conj() clears it with a copy."""
import builtins
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ._define import defop
from .pointwise import where
from .shape import select_view, zeros_of
from .strided import offset_in_storage, strided_array
from .unary import sgn


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def positive(input):
    """+input: the tensor itself (torch refuses bool)."""
    _check_tensor("positive", input)
    if input.dtype is _dtype.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- the parts: views of the interleaved (real, imag) pairs -------------------------------

@defop("ViewAsRealBackward0", view=True)
def _view_as_real(xp, input: Tensor):
    parts = input.real  # a view of the real parts, the imaginary ones an item further
    shape, strides = input.shape + (2,), input.strides + (parts.itemsize,)
    if xp is not np:  # CuPy's as_strided forgets the storage (strided.py keeps it)
        return strided_array(xp, parts, shape, strides, 0)
    return xp.lib.stride_tricks.as_strided(parts, shape, strides)


def view_as_real(input):
    """A real view of a complex tensor, with a last dim of size 2: (real, imag)."""
    _check_tensor("view_as_real", input)
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To "
                           "resolve the conjugate tensor so you can view it as real, use "
                           "self.resolve_conj(); however, be warned that the resulting tensor "
                           "will NOT alias the original.")
    return _view_as_real(input)


@defop("ViewAsComplexBackward0", view=True)
def _view_as_complex(xp, input: Tensor):
    if input.strides[-1] != input.itemsize:  # an empty array, whose strides are free
        input = xp.ascontiguousarray(input)
    return input.view(np.result_type(input.dtype, np.complex64))[..., 0]


def view_as_complex(input):
    """A complex view of a real tensor whose last dim holds (real, imag) pairs."""
    _check_tensor("view_as_complex", input)
    if input.dtype not in (_dtype.float32, _dtype.float64):
        kind = "half, float and double tensors, but got a tensor of scalar type: "
        if input.dtype is _dtype.float16:  # torch makes complex32, which NumPy lacks
            raise NotImplementedError("view_as_complex of a Half tensor (complex32): NumPy has "
                                      "no complex32 type")
        raise RuntimeError(f"view_as_complex is only supported for {kind}"
                           f"{input.dtype.legacy_name}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    # (an empty tensor's strides say nothing here: tapegrad gives it zeros, torch contiguous)
    strides = input.stride() if input.numel() else (2,) * (input.ndim - 1) + (1,)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if offset_in_storage(input) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _view_as_complex(input)


_view_as_real.derivatives(input=lambda ctx: _view_as_complex(_dense(ctx.grad)))
_view_as_complex.derivatives(input=lambda ctx: _view_as_real(ctx.grad))


def _dense(grad):
    """grad with its last dim of stride 1, as view_as_complex needs (torch's contiguous())."""
    return grad if grad._data.strides[-1] == grad._data.itemsize else grad.contiguous()


def real(input):
    """The real part: a view of a complex tensor (torch's select of view_as_real); a real
    tensor itself."""
    _check_tensor("real", input)
    if not input.dtype.is_complex:
        return input
    return select_view(view_as_real(resolve_conj(input)), input.ndim, 0)


def imag(input):
    """The imaginary part, a view; torch has none for real tensors."""
    _check_tensor("imag", input)
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select_view(view_as_real(resolve_conj(input)), input.ndim, 1)


def _part_setter(part):
    def setter(self, value):
        part(self).copy_(value)  # torch's x.real = y writes y into the parts
    return setter


# ---- conjugation ----------------------------------------------------------------------------

def _conjugation(node_name, name):
    """An op conjugating its input, whose gradient is the conjugated gradient."""
    @defop(node_name, name=name)
    def conjugated(xp, input: Tensor):
        return xp.conjugate(input)

    conjugated.derivatives(input=lambda ctx: conjugated(ctx.grad))
    return conjugated


_conj = _conjugation("ConjBackward0", "_conj")
_conj_physical = _conjugation("ConjPhysicalBackward0", "_conj_physical")


def conj(input):
    """The complex conjugate (a copy flagged as torch's lazy conjugate, Note [Conjugate bit]);
    a real tensor itself."""
    _check_tensor("conj", input)
    if not input.dtype.is_complex:
        return input
    result = _conj(input)
    result.__dict__["_is_conj"] = not is_conj(input)
    return result


def conj_physical(input):
    """The complex conjugate, computed; a real tensor itself."""
    _check_tensor("conj_physical", input)
    return _conj_physical(input) if input.dtype.is_complex else input


def resolve_conj(input):
    """The tensor with a pending conjugation carried out (Note [Conjugate bit]: the values
    are conjugated already, so a copy without the bit)."""
    _check_tensor("resolve_conj", input)
    return input.clone() if is_conj(input) else input


def resolve_neg(input):
    """The tensor with a pending negation carried out: tapegrad has no negative bit."""
    _check_tensor("resolve_neg", input)
    return input


def is_conj(input):
    return input.__dict__.get("_is_conj", False)


def is_neg(input):
    return False


def _conj_physical_(self):
    """Tensor.conj_physical_: conjugated in place (a real tensor is unchanged, though torch
    still counts a write)."""
    if not self.dtype.is_complex:
        self._bump_version()
        return self
    return self.copy_(_conj_physical(self.detach()))


def conj_of(value):
    """The conjugate of a complex tensor or number; anything else as it is (real tensors,
    the arrays of a formula on arrays): torch's conjugate Wirtinger formulas (grad *
    other.conj()) cost a type test on real inputs."""
    if isinstance(value, Tensor):
        return _conj(value) if value.dtype.is_complex else value
    return value.conjugate() if isinstance(value, builtins.complex) else value


# ---- angle, and complex tensors from real ones ----------------------------------------------

@defop("AngleBackward0", save=("input",), promote="float")
def angle(xp, input: Tensor):
    """The argument of each element; of a real one pi for negative values, else 0 (also at
    -0.0); nan stays nan."""
    if input.dtype.kind == "c":
        return xp.angle(input)
    half_turns = xp.where(input < 0, math.pi, 0.0).astype(input.dtype, copy=False)
    return xp.where(xp.isnan(input), input, half_turns)


def _angle_grad(ctx):
    # torch's angle_backward: grad * i z / |z|^2, 0 at the origin; 0 for a real input
    if not ctx.input.dtype.is_complex:
        return zeros_of(ctx.grad)
    z = ctx.input
    return where(z == 0, 0.0, ctx.grad * z / (z.abs() ** 2) * 1j)


angle.derivatives(input=_angle_grad)


def _check_parts(name, first, second):
    """complex and polar take two float tensors of one dtype (torch's words)."""
    for position, value in ((1, first), (2, second)):
        if not isinstance(value, Tensor):
            argument = ("real", "imag")[position - 1] if name == "complex" else (
                ("abs", "angle")[position - 1])
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")
    if not (first.dtype.is_floating_point and second.dtype.is_floating_point):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{first.dtype.legacy_name} and {second.dtype.legacy_name}")
    if first.dtype is not second.dtype:
        raise RuntimeError(f"Expected object of scalar type {first.dtype.legacy_name} but got "
                           f"scalar type {second.dtype.legacy_name} for second argument")
    if first.dtype is _dtype.float16:
        raise NotImplementedError(f"{name} of Half tensors makes complex32, which NumPy lacks")


@defop("ComplexBackward0")
def _complex(xp, real: Tensor, imag: Tensor):
    result = xp.empty(xp.broadcast_shapes(real.shape, imag.shape),
                      xp.result_type(real, xp.complex64))
    result.real[...], result.imag[...] = real, imag  # (CuPy's parts are views too)
    return result


_complex.derivatives(real=lambda ctx: real(ctx.grad),
                     imag=lambda ctx: imag(ctx.grad))


def complex(real, imag):
    """The complex tensor real + i imag (two float tensors of one dtype, broadcast)."""
    _check_parts("complex", real, imag)
    return _complex(real, imag)


@defop("PolarBackward0", save=("result",))
def _polar(xp, abs: Tensor, angle: Tensor):
    result = xp.empty(xp.broadcast_shapes(abs.shape, angle.shape),
                      xp.result_type(abs, xp.complex64))
    result.real[...], result.imag[...] = abs * xp.cos(angle), abs * xp.sin(angle)
    return result


# torch's polar_backward: the parts of conj(grad) * sgn(result) and of conj(grad) * i result
_polar.derivatives(abs=lambda ctx: real(_conj(ctx.grad) * sgn(ctx.result)),
                   angle=lambda ctx: real(_conj(ctx.grad) * (ctx.result * 1j)))


def polar(abs, angle):
    """The complex tensor abs * (cos(angle) + i sin(angle))."""
    _check_parts("polar", abs, angle)
    return _polar(abs, angle)


# ---- dtype conversions -----------------------------------------------------------------------

def _cfloat(self, memory_format=None):
    """Tensor.cfloat(): a complex64 copy (the tensor itself if it is one)."""
    return self._converted("cfloat", _dtype.complex64, (), {} if memory_format is None
                           else {"memory_format": memory_format})


def _cdouble(self, memory_format=None):
    """Tensor.cdouble(): a complex128 copy (the tensor itself if it is one)."""
    return self._converted("cdouble", _dtype.complex128, (), {} if memory_format is None
                           else {"memory_format": memory_format})


def _chalf(self, memory_format=None):
    """Tensor.chalf(): torch's complex32, which NumPy lacks."""
    raise NotImplementedError("Tensor.chalf(): tapegrad has no complex32 dtype (NumPy has no "
                              "complex32 type)")


FUNCTIONS = ("angle complex conj conj_physical imag is_conj is_neg polar positive real "
             "resolve_conj resolve_neg view_as_complex view_as_real").split()
METHODS = [name for name in FUNCTIONS if name not in ("real", "imag", "complex", "polar",
                                                      "view_as_real", "view_as_complex")]
TENSOR_ONLY = {"real": property(real, _part_setter(real)),
               "imag": property(imag, _part_setter(imag)),
               "conj_physical_": _conj_physical_, "cfloat": _cfloat, "cdouble": _cdouble,
               "chalf": _chalf}
