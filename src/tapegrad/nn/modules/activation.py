"""Activation layers, each a thin module around its nn.functional function, as torch.nn."""
from __future__ import annotations

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from .. import init
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .module import Module
from ..._warnings import warn

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "PReLU", "RReLU", "ReLU", "ReLU6",
           "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus",
           "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold"]


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An activation whose only option is `inplace`, shown in the repr only when True."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    """max(0, x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class SELU(_InplaceActivation):
    """Scaled ELU with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class SiLU(_InplaceActivation):
    """x * sigmoid(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceActivation):
    """x * tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(_InplaceActivation):
    """Piecewise-linear sigmoid: clamp(x / 6 + 1 / 2, 0, 1)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # torch does not show inplace for this layer


class Hardswish(_InplaceActivation):
    """x * hardsigmoid(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # torch does not show inplace for this layer


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


def _renamed_keyword(old_name: str, new_name: str, old_value: float | None,
                     new_value: float) -> float:
    """The value of a deprecated keyword when given (with torch's FutureWarning)."""
    if old_value is None:
        return new_value
    warn(f"keyword argument `{old_name}` is deprecated and renamed to `{new_name}`",
         FutureWarning)
    return old_value


class Hardtanh(Module):
    """clamp(x, min_val, max_val)."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        self.min_val = _renamed_keyword("min_value", "min_val", min_value, min_val)
        self.max_val = _renamed_keyword("max_value", "max_val", max_value, max_val)
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                f"{_inplace_suffix(self.inplace)}")


class ReLU6(Hardtanh):
    """min(max(0, x), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _AlphaActivation(Module):
    """ELU and CELU: one `alpha` and `inplace`."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class ELU(_AlphaActivation):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaActivation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class LeakyReLU(Module):
    """x for x >= 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class RReLU(Module):
    """Leaky ReLU with a random slope in [lower, upper] in training, their mean in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class PReLU(Module):
    """Leaky ReLU whose slope is learned, one per channel (dim 1) or one shared."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(tapegrad.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class GELU(Module):
    """x * Phi(x), exact or with the tanh approximation (approximate='tanh')."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class GLU(Module):
    """First half of `dim` times the sigmoid of the second half."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _Shrink(Module):
    """Hardshrink and Softshrink: one threshold `lambd`, shown bare in the repr."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """x where |x| > lambd, else 0."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """x - lambd * sign(x) where |x| > lambd, else 0."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input: Tensor) -> Tensor:
        return tapegrad.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return tapegrad.tanh(input)


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _SoftmaxFamily(Module):
    """Softmax, Softmin and LogSoftmax over `dim` (None: torch's deprecated implicit dim)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxFamily):
    """exp(x) normalised to sum to 1 along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)


class Softmin(_SoftmaxFamily):
    """softmax(-x) along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)


class LogSoftmax(_SoftmaxFamily):
    """log(softmax(x)) along `dim`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)
