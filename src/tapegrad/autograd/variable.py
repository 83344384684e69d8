"""torch.autograd.Variable: the pre-0.4 wrapper, now a constructor that returns a Tensor."""
import operator

from .. import _warnings
from .._tensor import Tensor

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    """Every Tensor counts as a Variable, as in torch since Variable and Tensor merged."""

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False): a detached Tensor sharing data's storage."""

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None):
        if data is None:
            from .._creation import empty
            return empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Variable data has to be a tensor, but got {type(data).__name__}")
        # torch parses both flags as bools through __index__, so 1 works and "a" does not.
        requires_grad = bool(_as_index(requires_grad))
        if _as_index(volatile):
            _warnings.warn("volatile was removed and now has no effect. "
                           "Use `with torch.no_grad():` instead.")
            if requires_grad:
                raise ValueError(
                    "Variable can't be volatile and require_grad at the same time!")
        # The constructor's own check, worded unlike Tensor.requires_grad_'s.
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        return data.detach().requires_grad_(requires_grad)


def _as_index(value):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer"
                        ) from None
