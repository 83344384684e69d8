"""torch.convolution, the entry every convolution goes through, and conv_tbc, a 1-d
convolution of time-major input: thin entries over conv.py's convolution op and its
convolution_backward."""
from .._tensor import Tensor
from ._define import defop
from .activation import pad
from .conv import _checked_convolution, _convolution_backward, _convolve
from .shape import VIEW_INCOMPATIBLE, permute, zeros_of


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: every convolution's entry, batched input only, each size a list."""
    for position, name, value in ((4, "stride", stride), (5, "padding", padding),
                                  (6, "dilation", dilation), (8, "output_padding",
                                                              output_padding)):
        if not isinstance(value, (list, tuple)):  # torch binds these as lists only
            raise TypeError(f"convolution(): argument '{name}' (position {position}) must be "
                            f"tuple of ints, not {type(value).__name__}")
    return _checked_convolution(input, weight, bias, stride, padding, dilation, transposed,
                                output_padding, groups)


# ---- conv_tbc: a 1-d convolution of time-major input ---------------------------------------
# conv_tbc's (time, batch, channels) input and (kernel, in, out) weight are a 1-d convolution's
# (batch, channels, time) and (out, in, kernel) moved: it runs as that convolution, and its
# gradients are that convolution's, moved back. A negative pad crops the input's time instead.

@defop("ConvTbcBackward0", save=("input", "weight", "bias", "pad"))
def _conv_tbc(xp, input: Tensor, weight: Tensor, bias: Tensor, pad):
    if input.shape[0] + 2 * pad < weight.shape[0]:  # no time step: torch's empty output
        return xp.zeros((0, input.shape[1], weight.shape[2]), input.dtype)
    crop = max(-pad, 0)
    cropped = input[crop:input.shape[0] - crop]
    result = _convolve(xp, cropped.transpose(1, 2, 0), weight.transpose(2, 1, 0), bias, (1,),
                       (max(pad, 0),), (1,), False, (0,), 1)
    return xp.ascontiguousarray(result.transpose(2, 0, 1))


def _conv_tbc_grads(ctx):
    """(input, weight, bias) gradients from one convolution_backward call per node run."""
    if "grads_of_inputs" not in vars(ctx):
        input, padding, needs = ctx.input, ctx.pad, tuple(ctx._node._needs_input_grad)
        if not ctx.grad.shape[0]:  # no time step: nothing depends on the inputs
            ctx.grads_of_inputs = tuple(zeros_of(t) for t in (input, ctx.weight, ctx.bias))
            return ctx.grads_of_inputs
        crop = max(-padding, 0)
        grads = _convolution_backward(
            permute(ctx.grad, 1, 2, 0), permute(input[crop:input.shape[0] - crop], 1, 2, 0),
            permute(ctx.weight, 2, 1, 0), (1,), (max(padding, 0),), (1,), False, (0,), 1, needs)
        grad_input = permute(grads[0], 2, 0, 1) if needs[0] else None
        if crop and needs[0]:
            grad_input = pad(grad_input, (0, 0, 0, 0, crop, crop))
        ctx.grads_of_inputs = (grad_input, permute(grads[1], 2, 1, 0) if needs[1] else None,
                               grads[2] if needs[2] else None)
    return ctx.grads_of_inputs


_conv_tbc.derivatives(input=lambda ctx: _conv_tbc_grads(ctx)[0],
                      weight=lambda ctx: _conv_tbc_grads(ctx)[1],
                      bias=lambda ctx: _conv_tbc_grads(ctx)[2])


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: input (time, batch, in_channels), weight (kernel_width, in_channels,
    out_channels), bias (out_channels,); time padded by pad on both sides."""
    if not isinstance(pad, int) or isinstance(pad, bool):
        raise TypeError(f"conv_tbc(): argument 'pad' (position 4) must be int, not "
                        f"{type(pad).__name__}")
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{input.dtype.legacy_name} and {weight.dtype.legacy_name}")
    steps = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"{[steps, input.shape[1], weight.shape[2]]}")
    if input.numel() and input.shape[1] > 1 and input.stride(0) != input.stride(1) * input.shape[1]:
        # torch views each kernel tap's window of (time, batch) rows as one matrix; a window
        # over more than one time step of such a layout cannot be viewed
        kernel, length = weight.shape[0], input.shape[0]
        if any(min(length + pad - k, steps) - max(0, pad - k) > 1 for k in range(kernel)):
            raise RuntimeError(VIEW_INCOMPATIBLE)
    return _conv_tbc(input, weight, bias, pad)


FUNCTIONS = ["convolution", "conv_tbc"]
NN_FUNCTIONS = ["conv_tbc"]
