"""torch.nn.grad: the gradient of a convolution's input or weight given its output's gradient,
computed as the convolution's backward computes it (one ConvolutionBackwardBackward0 node, so
the result is itself differentiable)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from .._tensor import Tensor
from ..ops.conv import _convolution_backward, int_tuple

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]

_IntOrTuple = int | Sequence[int]


def _gradients_of(nd: int) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    """conv{nd}d_input and conv{nd}d_weight."""

    def input_gradient(input_size: Sequence[int], weight: Tensor, grad_output: Tensor,
                       stride: _IntOrTuple = 1, padding: _IntOrTuple = 0,
                       dilation: _IntOrTuple = 1, groups: int = 1) -> Tensor:
        shaped_like_input = grad_output.new_empty(1).expand(tuple(input_size))
        return _convolution_backward(
            grad_output, shaped_like_input, weight, int_tuple(stride, nd),
            int_tuple(padding, nd), int_tuple(dilation, nd), False, (0,) * nd, groups,
            (True, False, False))[0]

    def weight_gradient(input: Tensor, weight_size: Sequence[int], grad_output: Tensor,
                        stride: _IntOrTuple = 1, padding: _IntOrTuple = 0,
                        dilation: _IntOrTuple = 1, groups: int = 1) -> Tensor:
        shaped_like_weight = grad_output.new_empty(1).expand(tuple(weight_size))
        return _convolution_backward(
            grad_output, input, shaped_like_weight, int_tuple(stride, nd),
            int_tuple(padding, nd), int_tuple(dilation, nd), False, (0,) * nd, groups,
            (False, True, False))[1]

    for function, role, size in ((input_gradient, "input", "input_size"),
                                 (weight_gradient, "weight", "weight_size")):
        function.__name__ = function.__qualname__ = f"conv{nd}d_{role}"
        function.__doc__ = f"The gradient of conv{nd}d's {role} (of size {size}) from grad_output."
    return input_gradient, weight_gradient


conv1d_input, conv1d_weight = _gradients_of(1)
conv2d_input, conv2d_weight = _gradients_of(2)
conv3d_input, conv3d_weight = _gradients_of(3)
