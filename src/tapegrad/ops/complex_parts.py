"""The complex-number accessors on real tensors (tapegrad has no complex dtypes): real, conj
and the resolve_* ops give the tensor itself, as torch does for a real tensor; angle is 0 or
pi; positive is +x."""
import math

from .. import _dtype
from .._tensor import Tensor
from ._define import defop
from .shape import zeros_of


def positive(input):
    """+input: the tensor itself (torch refuses bool)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"positive(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dtype is _dtype.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _itself(name, summary):
    def accessor(input):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return input
    accessor.__name__ = accessor.__qualname__ = name
    accessor.__doc__ = summary + " Of a real tensor: the tensor itself."
    return accessor


real = _itself("real", "The real part.")
conj = _itself("conj", "The complex conjugate, as a lazy view.")
conj_physical = _itself("conj_physical", "The complex conjugate, computed.")
resolve_conj = _itself("resolve_conj", "The tensor with a pending conjugation carried out.")
resolve_neg = _itself("resolve_neg", "The tensor with a pending negation carried out.")


def imag(input):
    """The imaginary part: torch has none for real tensors."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def is_conj(input):
    return False


def is_neg(input):
    return False


@defop("AngleBackward0", promote="float")
def angle(xp, input: Tensor):
    """The argument of each element as a complex number: pi for negative values, else 0
    (also at -0.0); nan stays nan."""
    half_turns = xp.where(input < 0, math.pi, 0.0).astype(input.dtype, copy=False)
    return xp.where(xp.isnan(input), input, half_turns)


angle.derivatives(input=lambda ctx: zeros_of(ctx.grad))


def _conj_physical_(self):
    """Tensor.conj_physical_: nothing to change in a real tensor (torch still counts a write)."""
    self._bump_version()
    return self


FUNCTIONS = ("angle conj conj_physical is_conj is_neg positive real resolve_conj "
             "resolve_neg").split()
METHODS = [name for name in FUNCTIONS if name != "real"]
TENSOR_ONLY = {"real": property(real), "imag": property(imag),
               "conj_physical_": _conj_physical_}
