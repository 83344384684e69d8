"""Convolution, pooling and resampling: conv1d/2d and their transposes, max/avg/adaptive
pooling, interpolate, unfold and fold.

Every kernel handles the whole batch at once. im2col is a strided view of the padded input
(sliding_window_view) copied once into (N, C*K, L) columns for ONE matmul; col2im adds columns
back with one strided add per kernel position. Loops run over kernel positions or over the few
source elements of a resampled element, never over pixels or batch elements.

Backward formulas are ops of this module again, so create_graph works everywhere: the input
gradient of a convolution is a transposed convolution (and vice versa), its weight gradient a
convolution of input by grad; unfold and fold are each other's gradient; pooling and resampling
are linear maps whose gradient is the transposed map.
"""
import itertools
import warnings

import numpy as np

from .._tensor import Tensor
from . import reduction
from ._checks import numel, wrap_dim
from ._define import defop
from .activation import pad
from .indexing import gather, getitem
from .linalg import _C_TYPE
from .pointwise import div
from .shape import reshape, squeeze, unsqueeze


def _tuple(value, n):
    """An int or a sequence of ints as a tuple (an int is repeated n times)."""
    return (value,) * n if isinstance(value, int) else tuple(value)


def _crop(tensor, size):
    """tensor[..., :size[0], :size[1]]: the leading part of each trailing dim."""
    if tuple(tensor.shape[-len(size):]) == tuple(size):
        return tensor
    return getitem(tensor, (Ellipsis,) + tuple(slice(0, s) for s in size))


def _check_float(name, input):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.legacy_name}\'')


# ---- im2col and col2im on arrays -----------------------------------------------------------

def _windows(xp, padded, kernel, stride, dilation):
    """A view (N, C, *blocks, *kernel) of every window of `padded` (N, C, *spatial)."""
    nd = len(kernel)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = xp.lib.stride_tricks.sliding_window_view(padded, span, axis=tuple(range(-nd, 0)))
    steps = tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d)
                                                                for d in dilation)
    return view[(Ellipsis,) + steps]


def _im2col(xp, padded, kernel, stride, dilation, blocks=None):
    """(columns (N, C * prod(kernel), prod(blocks)), blocks): the one copy im2col makes.
    blocks limits the windows taken along each dim (all by default)."""
    nd = len(kernel)
    windows = _windows(xp, padded, kernel, stride, dilation)
    if blocks is not None:
        windows = windows[(Ellipsis,) + tuple(slice(0, b) for b in blocks) + (slice(None),) * nd]
    blocks = windows.shape[2:2 + nd]
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    shape = (padded.shape[0], padded.shape[1] * numel(kernel), numel(blocks))
    return windows.transpose(order).reshape(shape), blocks


def _col2im(xp, columns, size, stride, dilation, padding):
    """The adjoint of im2col: columns (N, C, *kernel, *blocks) summed into (N, C, *size)."""
    nd = len(size)
    kernel, blocks = columns.shape[2:2 + nd], columns.shape[2 + nd:]
    padded = tuple(s + 2 * p for s, p in zip(size, padding))
    result = xp.zeros(columns.shape[:2] + padded, columns.dtype)
    for position in itertools.product(*map(range, kernel)):
        target = tuple(slice(k * d, k * d + s * (b - 1) + 1, s)
                       for k, d, s, b in zip(position, dilation, stride, blocks))
        result[(Ellipsis,) + target] += columns[(slice(None), slice(None)) + position]
    if any(padding):
        inside = tuple(slice(p, p + s) for p, s in zip(padding, size))
        result = xp.ascontiguousarray(result[(Ellipsis,) + inside])
    return result


def _zero_pad(xp, array, padding):
    if not any(padding):
        return array
    return xp.pad(array, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))


# ---- convolution ---------------------------------------------------------------------------

def _conv_forward(xp, input, weight, stride, padding, dilation, groups):
    columns, blocks = _im2col(xp, _zero_pad(xp, input, padding), weight.shape[2:], stride,
                              dilation)
    n, out_channels, size = input.shape[0], weight.shape[0], numel(weight.shape[1:])
    columns = columns.reshape(n, groups, size, numel(blocks))
    kernels = weight.reshape(groups, out_channels // groups, size)
    return xp.matmul(kernels, columns).reshape((n, out_channels) + blocks)


def _conv_transpose_forward(xp, input, weight, stride, padding, output_padding, dilation,
                            groups):
    n, channels, spatial = input.shape[0], input.shape[1], input.shape[2:]
    kernel, group_out = weight.shape[2:], weight.shape[1]
    group_in = channels // groups
    kernels = weight.reshape(groups, group_in, numel(weight.shape[1:])).transpose(0, 2, 1)
    columns = xp.matmul(kernels, input.reshape(n, groups, group_in, numel(spatial)))
    columns = columns.reshape((n, groups * group_out) + kernel + spatial)
    size = _transposed_size(spatial, kernel, stride, padding, output_padding, dilation)
    return _col2im(xp, columns, size, stride, dilation, padding)


def _transposed_size(spatial, kernel, stride, padding, output_padding, dilation):
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + o + 1 for i, k, s, p, o, d in
                 zip(spatial, kernel, stride, padding, output_padding, dilation))


def _convolve(xp, input: Tensor, weight: Tensor, bias: Tensor, stride, padding, dilation,
              transposed, output_padding, groups):
    if transposed:
        result = _conv_transpose_forward(xp, input, weight, stride, padding, output_padding,
                                         dilation, groups)
    else:
        result = _conv_forward(xp, input, weight, stride, padding, dilation, groups)
    if bias is not None:
        result += bias.reshape((-1,) + (1,) * (input.ndim - 2))
    return result


_SAVED = ("input", "weight", "stride", "padding", "dilation", "transposed", "output_padding",
          "groups")
_convolution = defop("ConvolutionBackward0", save=_SAVED, name="_convolution")(_convolve)
# The same op, as backward formulas record it: under torch's node name for those
_convolution_backward = defop("ConvolutionBackwardBackward0", save=_SAVED,
                              name="_convolution_backward")(_convolve)


def _convolution_input_grad(ctx):
    if ctx.transposed:
        grad = _convolution_backward(ctx.grad, ctx.weight, None, ctx.stride, ctx.padding,
                                     ctx.dilation, False, (0,) * len(ctx.stride), ctx.groups)
        return _crop(grad, ctx.input_shape[2:])
    return _transposed_convolution(ctx.grad, ctx.weight, ctx.input_shape, ctx.stride,
                                   ctx.padding, ctx.dilation, ctx.groups)


def _transposed_convolution(grad, weight, input_shape, stride, padding, dilation, groups):
    """The input gradient of a convolution: a transposed convolution of grad, whose
    output_padding restores the input rows that the forward's last window step skipped."""
    restored = tuple(size + 2 * p - ((b - 1) * s + d * (k - 1) + 1) for size, b, k, s, p, d in
                     zip(input_shape[2:], grad.shape[2:], weight.shape[2:], stride, padding,
                         dilation))
    return _convolution_backward(grad, weight, None, stride, padding, dilation, True, restored,
                                 groups)


def _convolution_weight_grad(ctx):
    # a transposed convolution's weight gradient is a convolution's, input and grad swapped
    input, grad = (ctx.grad, ctx.input) if ctx.transposed else (ctx.input, ctx.grad)
    return _convolution_weight(input, grad, ctx.weight.shape[2:], ctx.stride, ctx.padding,
                               ctx.dilation, ctx.groups)


_FORMULAS = dict(
    input=_convolution_input_grad,
    weight=_convolution_weight_grad,
    bias=lambda ctx: reduction.sum(ctx.grad, (0,) + tuple(range(2, ctx.grad.ndim))))
_convolution.derivatives(**_FORMULAS)
_convolution_backward.derivatives(**_FORMULAS)


@defop("ConvolutionBackwardBackward0", save=("input", "grad_output", "stride", "padding",
                                             "dilation", "groups"))
def _convolution_weight(xp, input: Tensor, grad_output: Tensor, kernel_size, stride, padding,
                        dilation, groups):
    """The weight gradient of a convolution: per group, grad_output (Og, L) times the input's
    columns (L, Cg*K), summed over the batch."""
    blocks = grad_output.shape[2:]
    columns, _ = _im2col(xp, _zero_pad(xp, input, padding), kernel_size, stride, dilation,
                         blocks)
    n, out_channels, size = input.shape[0], grad_output.shape[1], columns.shape[1] // groups
    columns = columns.reshape(n, groups, size, numel(blocks))
    grads = grad_output.reshape(n, groups, out_channels // groups, numel(blocks))
    result = xp.matmul(grads, columns.transpose(0, 1, 3, 2)).sum(0)
    return result.reshape((out_channels, size // numel(kernel_size)) + tuple(kernel_size))


# It is bilinear in input and grad_output: each derivative is the convolution that pairs the
# incoming weight-shaped gradient with the other one.
_convolution_weight.derivatives(
    input=lambda ctx: _transposed_convolution(ctx.grad_output, ctx.grad, ctx.input_shape,
                                              ctx.stride, ctx.padding, ctx.dilation,
                                              ctx.groups),
    grad_output=lambda ctx: _crop(_convolution_backward(
        ctx.input, ctx.grad, None, ctx.stride, ctx.padding, ctx.dilation, False,
        (0,) * len(ctx.stride), ctx.groups), ctx.grad_output.shape[2:]))


# ---- conv1d, conv2d, conv_transpose1d, conv_transpose2d ------------------------------------

def _expand(name, value, nd):
    """A conv parameter as nd ints (one value is repeated), or torch's error."""
    value = tuple(value)
    if len(value) == 1:
        return value * nd
    if len(value) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return value


def _check_batch_dims(function, nd, input):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{function}, but got input of size: {list(input.shape)}")


def _batched(function, input, nd, *args):
    """function(input, *args) on a batch; an unbatched input becomes a batch of one."""
    if input.ndim == nd + 2:
        return function(input, *args)
    return squeeze(function(unsqueeze(input, 0), *args), 0)


def _check_conv_dtypes(input, weight, bias):
    if weight.dtype is not input.dtype:
        if input.dtype.name == "float32":
            raise RuntimeError(f"Input type (torch.{input.dtype.legacy_name}Tensor) and weight "
                               f"type (torch.{weight.dtype.legacy_name}Tensor) should be the "
                               "same or input should be a MKLDNN tensor and weight is a dense "
                               "tensor")
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{weight.dtype.legacy_name}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_C_TYPE[input.dtype.name]}) and bias type "
                           f"({_C_TYPE[bias.dtype.name]}) should be the same")


def _check_weight_dims(input, weight, space=" "):
    if input.ndim != weight.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight{space}{list(weight.shape)}, but got "
                           f"{input.ndim}-dimensional input of size {list(input.shape)} "
                           "instead")


def _check_conv_shapes(input, weight, bias, padding, dilation, groups, transposed):
    """torch's checks of a convolution's shapes, in its order."""
    _check_weight_dims(input, weight)
    out_channels, group_size = weight.shape[0], weight.shape[1]
    if out_channels < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    given = "Given transposed=1, " if transposed else f"Given groups={groups}, "
    channels = out_channels if transposed else group_size * groups
    if input.shape[1] != channels:
        raise RuntimeError(f"{given}weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    bias_size = group_size * groups if transposed else out_channels
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != bias_size):
        given = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(f"{given} of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {bias_size} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if not transposed:
        padded = [s + 2 * p for s, p in zip(input.shape[2:], padding)]
        spans = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
        if any(s < k for s, k in zip(padded, spans)):
            raise RuntimeError(f"Calculated padded input size per channel: ({_by(padded)}). "
                               f"Kernel size: ({_by(spans)}). Kernel size can't be greater "
                               "than actual input size")


def _by(sizes):
    return " x ".join(map(str, sizes))


def _checked_convolution(input, weight, bias, stride, padding, dilation, transposed,
                         output_padding, groups):
    """torch's _convolution: parameter checks, shape checks, dtype checks, then the op."""
    nd = weight.ndim - 2
    if nd <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, padding = _expand("stride", stride, nd), _expand("padding", padding, nd)
    dilation = _expand("dilation", dilation, nd)
    output_padding = _expand("output_padding", output_padding, nd)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    _check_conv_shapes(input, weight, bias, padding, dilation, groups, transposed)
    if transposed:
        _check_transposed_sizes(input, weight, stride, padding, output_padding, dilation)
    _check_conv_dtypes(input, weight, bias)
    return _convolution(input, weight, bias, stride, padding, dilation, transposed,
                        output_padding, groups)


def _check_transposed_sizes(input, weight, stride, padding, output_padding, dilation):
    # torch runs 1-d transposed convolutions as 2-d ones of height 1, and says so
    lead = (1,) * (2 - len(stride))
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        values = zip(("output_padding", "stride", "dilation"),
                     ((0,) * len(lead) + output_padding, lead + stride, lead + dilation))
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(f"{name}_height: {v[0]} {name}_width: {v[1]}"
                                             for name, v in values))
    size = _transposed_size(input.shape[2:], weight.shape[2:], stride, padding,
                            output_padding, dilation)
    if any(s < 1 for s in size):
        raise RuntimeError(f"Given input size per channel: ({_by(lead + input.shape[2:])}). "
                           f"Calculated output size per channel: ({_by(lead + size)}). Output "
                           "size is too small")


def _same_padding(input, weight, stride, dilation):
    """(input padded on the right where the 'same' padding is odd, symmetric padding,
    dilation): torch pads the odd part with an explicit ConstantPadNd."""
    nd = weight.ndim - 2
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    for name, value in (("stride", stride), ("dilation", dilation)):
        if len(value) not in (1, nd):
            raise RuntimeError(f"{name} cannot broadcast to {nd} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = dilation * nd if len(dilation) == 1 else dilation
    totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    if any(t % 2 for t in totals):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created")
        padding = [side for total in reversed(totals) for side in (0, total % 2)]
        input = pad(input, padding)
    return input, tuple(t // 2 for t in totals), dilation


def _conv(function, nd, input, weight, bias, stride, padding, dilation, groups):
    _check_batch_dims(function, nd, input)
    return _batched(_conv_batch, input, nd, weight, bias, stride, padding, dilation, groups)


def _conv_batch(input, weight, bias, stride, padding, dilation, groups):
    nd = input.ndim - 2
    if padding == "valid":
        padding = 0
    elif padding == "same":
        _check_weight_dims(input, weight, space="")  # torch's 'same' path words it so
        input, padding, dilation = _same_padding(input, weight, stride, dilation)
    elif isinstance(padding, str):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    return _checked_convolution(input, weight, bias, _tuple(stride, nd), _tuple(padding, nd),
                                _tuple(dilation, nd), False, (0,) * nd, groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation of (N, C, L) or unbatched (C, L) input; padding may be 'same' or
    'valid'."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation of (N, C, H, W) or unbatched (C, H, W) input; padding may be
    'same' or 'valid'."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(function, nd, input, weight, bias, stride, padding, output_padding,
                    groups, dilation):
    _check_batch_dims(function, nd, input)
    if isinstance(padding, str):
        raise TypeError(f"{function}(): argument 'padding' must be tuple of ints, not str")
    return _batched(_checked_convolution, input, nd, weight, bias, _tuple(stride, nd),
                    _tuple(padding, nd), _tuple(dilation, nd), True, _tuple(output_padding, nd),
                    groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of conv1d with respect to its input, as an op: weight is (C_in, C_out/groups,
    K)."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of conv2d with respect to its input, as an op: weight is (C_in, C_out/groups,
    kH, kW)."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ---- unfold and fold -----------------------------------------------------------------------

def _sliding_blocks(size, kernel_size, dilation, padding, stride):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, d, p, s in
                 zip(size, kernel_size, dilation, padding, stride))


@defop("Im2ColBackward0", save=("kernel_size", "dilation", "padding", "stride"))
def _unfold(xp, input: Tensor, kernel_size, dilation, padding, stride):
    batch = input if input.ndim == 4 else input[None]
    columns, _ = _im2col(xp, _zero_pad(xp, batch, padding), kernel_size, stride, dilation)
    return columns if input.ndim == 4 else columns[0]


@defop("Col2ImBackward0", save=("kernel_size", "dilation", "padding", "stride"))
def _fold(xp, input: Tensor, output_size, kernel_size, dilation, padding, stride):
    batch = input if input.ndim == 3 else input[None]
    blocks = _sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    channels = batch.shape[1] // numel(kernel_size)
    columns = batch.reshape(batch.shape[:1] + (channels,) + kernel_size + blocks)
    result = _col2im(xp, columns, output_size, stride, dilation, padding)
    return result if input.ndim == 3 else result[0]


_unfold.derivatives(input=lambda ctx: _fold(ctx.grad, ctx.input_shape[-2:], ctx.kernel_size,
                                            ctx.dilation, ctx.padding, ctx.stride))
_fold.derivatives(input=lambda ctx: _unfold(ctx.grad, ctx.kernel_size, ctx.dilation,
                                            ctx.padding, ctx.stride))


def _pairs(**values):
    """Each int argument as a pair, or torch's error for a sequence of another length."""
    pairs = []
    for name, value in values.items():
        value = _tuple(value, 2)
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
        pairs.append(value)
    return pairs


def _check_block_arguments(kernel_size, dilation, padding, stride):
    checks = (("kernel size should be greater than zero", "kernel", kernel_size, 1),
              ("dilation should be greater than zero", "dilation", dilation, 1),
              ("padding should be non-negative", "pad", padding, 0),
              ("stride should be greater than zero", "stride", stride, 1))
    for text, name, (height, width), least in checks:
        if height < least or width < least:
            raise RuntimeError(f"{text}, but got {name}_height: {height} {name}_width: {width}")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of a (N, C, H, W) or (C, H, W) input as columns (N, C*kH*kW, L)."""
    kernel_size, dilation, padding, stride = _pairs(kernel_size=kernel_size, dilation=dilation,
                                                    padding=padding, stride=stride)
    _check_block_arguments(kernel_size, dilation, padding, stride)
    for dim in (1, 2):
        wrap_dim(dim, input.ndim)
    shape = input.shape
    if not (shape[1] and shape[2] and ((input.ndim == 3 and shape[0])
                                       or (input.ndim == 4 and shape[3]))):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    size = input.shape[-2:]
    blocks = _sliding_blocks(size, kernel_size, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size="
                           f"{kernel_size}, dilation={dilation}, padding={padding}, calculated "
                           f"shape of the array of sliding blocks as {blocks}, but its "
                           "components must be at least one.")
    _check_float("im2col_out_cpu", input)
    return _unfold(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C*kH*kW, L) of sliding blocks back into (N, C, *output_size): the
    adjoint of unfold."""
    output_size, kernel_size, dilation, padding, stride = _pairs(
        output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
        stride=stride)
    _check_block_arguments(kernel_size, dilation, padding, stride)
    shape = input.shape
    if not ((input.ndim == 2 and shape[0] and shape[1])
            or (input.ndim == 3 and shape[1] and shape[2])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    rows, length = shape[-2:]
    if rows % numel(kernel_size):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={rows} and "
                           f"kernel_size={kernel_size}.")
    blocks = _sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    given = (f"Given output_size={output_size}, kernel_size={kernel_size}, dilation="
             f"{dilation}, padding={padding}, stride={stride}, ")
    if length != numel(blocks):
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{numel(blocks)}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as "
                           f"{blocks}, which is too small (non-positive)")
    _check_float("col2im_out_cpu", input)
    return _fold(input, output_size, kernel_size, dilation, padding, stride)


# ---- max pooling ---------------------------------------------------------------------------

def _pooled_size(size, kernel, padding, stride, dilation, ceil_mode):
    """Output length of a pooling window sliding over `size` (torch's pooling_output_shape)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if padding < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding}")
    if padding > (dilation * (kernel - 1) + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad="
                           f"{padding}, kernel_size={kernel} and dilation={dilation}")
    span = dilation * (kernel - 1) + 1
    out = (size + 2 * padding - span + (stride - 1 if ceil_mode else 0)) // stride + 1
    # with ceil_mode the last window must still start inside the input or its left padding
    return out - 1 if ceil_mode and (out - 1) * stride >= size + padding else out


def _check_pool2d(input, kernel, stride, padding, dilation, out):
    """torch's pool2d_shape_check."""
    for text, names, values in (("kernel size", ("kH", "kW"), kernel),
                                ("stride", ("dH", "dW"), stride),
                                ("dilation", ("dilationH", "dilationW"), dilation)):
        if min(values) <= 0:
            raise RuntimeError(f"{text} should be greater than zero, but got {names[0]}: "
                               f"{values[0]} {names[1]}: {values[1]}")
    shape = input.shape
    if not ((input.ndim == 3 and shape[0] and shape[1] and shape[2])
            or (input.ndim == 4 and shape[1] and shape[2] and shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if kernel[1] // 2 < padding[1] or kernel[0] // 2 < padding[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = "
                           f"{kernel[0]}")
    if min(out) < 1:
        planes, height, width = shape[-3:]
        raise RuntimeError(f"Given input size: ({planes}x{height}x{width}). Calculated output "
                           f"size: ({planes}x{out[0]}x{out[1]}). Output size is too small")


# what each argument of 2-d pooling may be, in torch's words
_POOL2D_ARGUMENTS = {"kernel_size": "must either be a single int, or a tuple of two ints",
                     "stride": "must either be omitted, a single int, or a tuple of two ints",
                     "padding": "must either be a single int, or a tuple of two ints",
                     "dilation": "must be either a single int, or a tuple of two ints"}


def _pool2d_arguments(function, **arguments):
    """Each argument as a pair (stride: the kernel when omitted), or torch's error."""
    pairs = []
    for name, value in arguments.items():
        value = () if value is None else _tuple(value, 2)
        if len(value) not in (1, 2) and not (name == "stride" and not value):
            raise RuntimeError(f"{function}: {name} {_POOL2D_ARGUMENTS[name]}")
        pairs.append(pairs[0] if not value else value * 2 if len(value) == 1 else value)
    return pairs


def _pooled_sizes(input, kernel, stride, padding, dilation, ceil_mode):
    return tuple(_pooled_size(size, k, p, s, d, ceil_mode) for size, k, p, s, d in
                 zip(input.shape[-2:], kernel, padding, stride, dilation))


def _pad_for_windows(xp, array, out, kernel, stride, dilation, padding, value):
    """array padded with `value` to exactly the extent `out` windows cover (more on the
    right under ceil_mode, less when the last step leaves rows out)."""
    pairs, keep = [(0, 0)] * (array.ndim - 2), []
    for size, o, k, s, d, p in zip(array.shape[-2:], out, kernel, stride, dilation, padding):
        needed = (o - 1) * s + d * (k - 1) + 1
        pairs.append((p, max(needed - size - p, 0)))
        keep.append(slice(0, needed))
    if any(before or after for before, after in pairs):
        array = xp.pad(array, pairs, constant_values=value)
    return array[(Ellipsis,) + tuple(keep)]


@defop("MaxPool2DWithIndicesBackward0", save=("result1", "kernel_size", "stride", "dilation"))
def _max_pool2d(xp, input: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    out = tuple(_pooled_size(n, k, p, s, d, ceil_mode) for n, k, p, s, d in
                zip(input.shape[-2:], kernel_size, padding, stride, dilation))
    lowest = -xp.inf if input.dtype.kind == "f" else xp.iinfo(input.dtype).min
    padded = _pad_for_windows(xp, input, out, kernel_size, stride, dilation, padding, lowest)
    starts = [xp.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    # torch starts each window at its first element inside the input (which keeps the index
    # there when every value is -inf)
    first_inside = [xp.maximum(-start + d - 1, 0) // d for start, d in zip(starts, dilation)]
    values, position = _window_max(xp, _windows(xp, padded, kernel_size, stride, dilation),
                                   first_inside[0][:, None] * kernel_size[1] + first_inside[1],
                                   lowest)
    # flat index = the window's first element + the offset of the position in the window
    width = input.shape[-1]
    row, column = xp.divmod(xp.arange(numel(kernel_size)), kernel_size[1])
    offsets = row * dilation[0] * width + column * dilation[1]
    return values, starts[0][:, None] * width + starts[1] + xp.take(offsets, position)


def _window_max(xp, windows, first, lowest):
    """(maximum, its position) of each window (..., kH, kW), scanning the window in
    row-major order from position `first` with `lowest` as torch does: a larger value or a
    NaN takes over. Integer arithmetic keeps the positions (NumPy's argmax over a short last
    axis, or where(), would cost several times more)."""
    views = [windows[..., i, j] for i, j in itertools.product(*map(range, windows.shape[-2:]))]
    best = xp.full(views[0].shape, lowest, windows.dtype)
    position = xp.broadcast_to(first.astype(xp.int32), best.shape).copy()
    for k, value in enumerate(views):
        better = value > best
        if best.dtype.kind == "f":
            better |= xp.isnan(value)
        position *= ~better
        position += better * xp.int32(k)
        best = xp.maximum(best, value)
    return best, position


_max_pool2d.derivatives(input=lambda ctx: _max_pool2d_backward(
    ctx.grad, ctx.input_shape, ctx.result1._data, ctx.kernel_size, ctx.stride, ctx.dilation))


@defop("MaxPool2DWithIndicesBackwardBackward0", save=("indices",))
def _max_pool2d_backward(xp, grad: Tensor, input_shape, indices, kernel_size, stride, dilation):
    """Each output's grad goes to the input element its index names (summed where windows
    overlap)."""
    planes = numel(grad.shape[:-2])
    result = xp.zeros((planes, input_shape[-2] * input_shape[-1]), grad.dtype)
    rows = xp.arange(planes)[:, None]
    blocks = numel(grad.shape[-2:])
    grad, indices = grad.reshape(planes, blocks), indices.reshape(planes, blocks)
    if all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation)):
        result[rows, indices] = grad  # disjoint windows: every index is distinct
    else:
        xp.add.at(result, (rows, indices), grad)
    return result.reshape(input_shape)


def _max_pool2d_backward_grad(ctx):
    """The max pooling of the incoming gradient: the element each index names."""
    lead = ctx.grad.shape[:-2]
    flat = reshape(ctx.grad, lead + (ctx.grad.shape[-2] * ctx.grad.shape[-1],))
    indices = Tensor._make(ctx.indices.reshape(lead + (-1,)))
    return reshape(gather(flat, -1, indices), ctx.indices.shape)


_max_pool2d_backward.derivatives(grad=_max_pool2d_backward_grad)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling of (N, C, H, W) or (C, H, W) input; indices are flat positions in H*W."""
    kernel, stride, padding, dilation = _pool2d_arguments(
        "max_pool2d", kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = _pooled_sizes(input, kernel, stride, padding, dilation, ceil_mode)
    _check_pool2d(input, kernel, stride, padding, dilation, out)
    if input.dtype.name == "bool":
        raise NotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    values, indices = _max_pool2d(input, kernel, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def _pool1d_arguments(function, **arguments):
    """Each argument as one int (an omitted stride stays None), or torch's error."""
    ints = []
    for name, value in arguments.items():
        value = () if value is None else _tuple(value, 1)
        if len(value) != 1 and not (name == "stride" and not value):
            raise RuntimeError(f"{function}() argument '{name}' should contain one int (got "
                               f"{len(value)})")
        ints.append(value[0] if value else None)
    return ints


def _check_1d_input(function, input):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{function})")


# what each argument of torch.max_pool1d may be, in torch's words
_MAX_POOL1D_ARGUMENTS = {"kernel_size": "an int, list of ints or",
                         "stride": "None, an int, list of ints, or",
                         "padding": "an int, list of ints, or",
                         "dilation": "an int, list of ints or"}


def _max_pool1d_arguments(input, ceil_mode, **arguments):
    """torch.max_pool1d's own checks, in its order (return_indices=True checks as 2-d)."""
    shape = input.shape
    if not ((input.ndim == 2 and shape[0] and shape[1])
            or (input.ndim == 3 and shape[1] and shape[2])):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(shape)}")
    ints = []
    for name, value in arguments.items():
        value = () if value is None else _tuple(value, 1)
        if len(value) != 1 and not (name == "stride" and not value):
            raise RuntimeError(f"max_pool1d() {name} must be {_MAX_POOL1D_ARGUMENTS[name]} "
                               f"tuple of ints of size 1 but got size {len(value)}")
        ints.append(value[0] if value else ints[0])
    kernel, stride, padding, dilation = ints
    for name, value in zip(arguments, ints):
        if value < (0 if name == "padding" else 1):
            requirement = "be non-negative" if name == "padding" else "be greater than zero"
            raise RuntimeError(f"max_pool1d() {name} must {requirement}, but got {value}")
        if name == "padding" and padding > kernel // 2:
            raise RuntimeError("max_pool1d() padding should be at most half of kernel size, "
                               f"but got padding={padding} and kernel_size={kernel}")
    out = _pooled_size(shape[-1], kernel, padding, stride, dilation, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return ints


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling of (N, C, L) or (C, L) input, run as 2-d pooling of height 1 (as
    torch)."""
    arguments = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                     dilation=dilation)
    if return_indices:
        _check_1d_input("max_pool1d", input)
        kernel, stride, padding, dilation = _pool1d_arguments("max_pool1d", **arguments)
        stride = kernel if stride is None else stride
    else:
        kernel, stride, padding, dilation = _max_pool1d_arguments(input, ceil_mode, **arguments)
        if not input.requires_grad:  # torch's kernel without indices
            _check_float("max_pool1d_impl", input)
    values, indices = max_pool2d(unsqueeze(input, -2), (1, kernel), (1, stride), (0, padding),
                                 (1, dilation), ceil_mode, return_indices=True)
    values = squeeze(values, -2)
    return (values, squeeze(indices, -2)) if return_indices else values


# ---- linear maps along trailing axes: average pooling, adaptive pooling, interpolation -----
#
# Each of these ops is separable: along each of the last one or two axes, an output element is
# a weighted sum of a few input elements. An axis is described by a table, index and weight of
# shape (outputs, J): row o lists the J input positions summed into output o (-1 marks an
# unused slot). The gradient is the transposed map, whose table lists for each input element
# the outputs it went into; the gradient of that is the forward map again.

def _table(rows, columns, weights, n_rows):
    """The entries (row, column, weight) of a sparse matrix as gather tables grouped by row."""
    order = np.argsort(rows, kind="stable")
    rows, columns, weights = rows[order], columns[order], weights[order]
    counts = np.bincount(rows, minlength=n_rows)
    starts = np.cumsum(counts) - counts
    slots = np.arange(rows.size) - starts[rows]
    width = int(counts.max()) if n_rows else 0
    index = np.full((n_rows, width), -1)
    weight = np.zeros((n_rows, width), weights.dtype)
    index[rows, slots], weight[rows, slots] = columns, weights
    return index, weight


def _axis_map(outputs, inputs, weights, n_out, n_in):
    """(forward table, transposed table) of one axis from its entries."""
    return (_table(outputs, inputs, weights, n_out), _table(inputs, outputs, weights, n_in))


def _along_axes(xp, array, tables):
    # the last axis first: for bilinear that is torch's order of operations
    for axis, (index, weight) in reversed(list(enumerate(tables, array.ndim - len(tables)))):
        array = _along_axis(xp, array, axis, index, weight)
    return array


def _along_axis(xp, array, axis, index, weight):
    shape = (index.shape[0],) + (1,) * (array.ndim - axis - 1)
    result = xp.zeros(array.shape[:axis] + shape[:1] + array.shape[axis + 1:], array.dtype)
    for slot in range(index.shape[1]):  # the few inputs of an output, not the outputs
        used = index[:, slot] >= 0
        term = xp.take(array, xp.where(used, index[:, slot], 0), axis=axis)
        term *= weight[:, slot].astype(array.dtype).reshape(shape)
        result += term if used.all() else xp.where(used.reshape(shape), term, 0)
    return result


def _linear_map(node, name):
    """The op of a map given by tables (node f"{node}Backward0") and its gradient, the
    transposed map (node f"{node}BackwardBackward0"); each is the other's gradient."""
    def forward(xp, input: Tensor, tables, transposed_tables):
        return _along_axes(xp, input, tables)
    saved = ("tables", "transposed_tables")
    op = defop(f"{node}Backward0", save=saved, name=name)(forward)
    gradient = defop(f"{node}BackwardBackward0", save=saved, name=name + "_backward")(forward)
    op.derivatives(input=lambda ctx: gradient(ctx.grad, ctx.transposed_tables, ctx.tables))
    gradient.derivatives(input=lambda ctx: op(ctx.grad, ctx.transposed_tables, ctx.tables))
    return op


_avg_pool2d = _linear_map("AvgPool2D", "_avg_pool2d")
_adaptive_avg_pool2d = _linear_map("AdaptiveAvgPool2D", "_adaptive_avg_pool2d")
_upsample_nearest1d = _linear_map("UpsampleNearest1D", "_upsample_nearest1d")
_upsample_nearest2d = _linear_map("UpsampleNearest2D", "_upsample_nearest2d")
_upsample_nearest_exact1d = _linear_map("UpsampleNearestExact1D", "_upsample_nearest_exact1d")
_upsample_nearest_exact2d = _linear_map("UpsampleNearestExact2D", "_upsample_nearest_exact2d")
_upsample_linear1d = _linear_map("UpsampleLinear1D", "_upsample_linear1d")
_upsample_bilinear2d = _linear_map("UpsampleBilinear2D", "_upsample_bilinear2d")


def _apply_map(op, input, axis_maps):
    tables, transposed = zip(*axis_maps)
    return op(input, tables, transposed)


def _window_entries(starts, ends):
    """(output, input) of every position in each window [starts[o], ends[o])."""
    width = int((ends - starts).max()) if starts.size else 0
    positions = starts[:, None] + np.arange(width)
    outputs, slots = np.nonzero(positions < ends[:, None])
    return outputs, positions[outputs, slots]


def _avg_pool_windows(size, out, kernel, stride, padding, count_include_pad):
    """(outputs, inputs) of the window entries along one axis, and each window's divisor."""
    starts = np.arange(out) * stride - padding
    ends = np.minimum(starts + kernel, size + padding)
    divisors = ends - starts
    starts, ends = np.maximum(starts, 0), np.minimum(ends, size)
    outputs, inputs = _window_entries(starts, ends)
    return outputs, inputs, divisors if count_include_pad else ends - starts


def _scaled_axis_map(window, factor, out, size, dtype):
    """The map summing each window (from _avg_pool_windows) times its factor."""
    outputs, inputs, _ = window
    weights = np.broadcast_to(factor, (out,))[outputs].astype(dtype)
    return _axis_map(outputs, inputs, weights, out, size)


def _adaptive_axis(size, out, dtype):
    outputs = np.arange(out)
    starts, ends = outputs * size // out, -(-(outputs + 1) * size // out)
    outputs, inputs = _window_entries(starts, ends)
    return _axis_map(outputs, inputs, (1 / (ends - starts)[outputs]).astype(dtype), out, size)


def _source_scale(size, out, scale_factor, dtype):
    """Input positions per output position, as torch computes it (in dtype's precision)."""
    if scale_factor is not None and scale_factor > 0:
        return dtype.type(1.0 / scale_factor)
    return dtype.type(size) / dtype.type(out)


def _nearest_axis(size, out, scale_factor, exact, shortcuts):
    """shortcuts: torch's 2-d nearest kernel copies when out == size and halves indices when
    out == 2 * size, whatever the scale factor (its 1-d kernel does not)."""
    outputs = np.arange(out)
    if shortcuts and out == size:
        sources = outputs
    elif shortcuts and out == 2 * size:
        sources = outputs // 2
    else:
        scale = _source_scale(size, out, scale_factor, np.dtype(np.float32))
        offset = np.float32(0.5 if exact else 0)
        sources = np.minimum(np.floor((outputs.astype(np.float32) + offset) * scale)
                             .astype(np.int64), size - 1)
    return _axis_map(outputs, sources, np.ones(out), out, size)


def _linear_axis(size, out, scale_factor, align_corners, dtype):
    outputs = np.arange(out)
    if out == size:  # torch copies, whatever the scale factor
        return _axis_map(outputs, outputs, np.ones(out, dtype), out, size)
    if align_corners:
        scale = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        sources = scale * outputs.astype(dtype)
    else:
        scale = _source_scale(size, out, scale_factor, dtype)
        sources = np.maximum(scale * (outputs.astype(dtype) + dtype.type(0.5)) - dtype.type(0.5),
                             dtype.type(0))
    first = np.minimum(np.floor(sources).astype(np.int64), size - 1)
    fraction = np.clip(sources - first, 0, 1).astype(dtype)
    second = first + (first < size - 1)
    return _axis_map(np.concatenate([outputs, outputs]), np.concatenate([first, second]),
                     np.concatenate([dtype.type(1) - fraction, fraction]), out, size)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling of (N, C, H, W) or (C, H, W) input (of integers: the sums divided
    with truncation, as torch)."""
    kernel, stride, padding = _pool2d_arguments("avg_pool2d", kernel_size=kernel_size,
                                                stride=stride, padding=padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    wrap_dim(-3, input.ndim)
    out = _pooled_sizes(input, kernel, stride, padding, (1, 1), ceil_mode)
    _check_pool2d(input, kernel, stride, padding, (1, 1), out)
    windows = [_avg_pool_windows(size, o, k, s, p, count_include_pad)
               for size, o, k, s, p in zip(input.shape[-2:], out, kernel, stride, padding)]
    # the divisor is a product over the two axes, so each axis divides by its factor; integer
    # sums are divided at the end, with truncation
    integer = not input.dtype.is_floating_point
    factors = ((1, 1) if integer else (1 / divisor_override, 1) if divisor_override
               else (1 / windows[0][2], 1 / windows[1][2]))
    result = _apply_map(_avg_pool2d, input, [
        _scaled_axis_map(window, factor, o, size, input.dtype.numpy)
        for window, factor, o, size in zip(windows, factors, out, input.shape[-2:])])
    if not integer:
        return result
    divisors = divisor_override or np.multiply.outer(windows[0][2], windows[1][2])
    return div(result, Tensor._make(np.asarray(divisors, input.dtype.numpy)),
               rounding_mode="trunc")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling of (N, C, L) or (C, L) input, run as 2-d pooling of height 1."""
    _check_1d_input("avg_pool1d", input)
    kernel, stride, padding = _pool1d_arguments("avg_pool1d", kernel_size=kernel_size,
                                                stride=stride, padding=padding)
    stride = kernel if stride is None else stride
    result = avg_pool2d(unsqueeze(input, -2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                        count_include_pad)
    return squeeze(result, -2)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (None keeps that input size); windows of
    output o span [floor(o * H / out), ceil((o + 1) * H / out))."""
    output_size = _tuple(output_size, 2)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    output_size = tuple(n if o is None else o for o, n in zip(output_size, input.shape[-2:]))
    if min(output_size) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{output_size[0]}, {output_size[1]}}}")
    if output_size == (1, 1):
        return reduction.mean(input, (-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    _check_float("adaptive_avg_pool2d", input)
    return _apply_map(_adaptive_avg_pool2d, input, [
        _adaptive_axis(size, out, input.dtype.numpy)
        for size, out in zip(input.shape[-2:], output_size)])


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (N, C, L) or (C, L) input, run as 2-d pooling."""
    _check_1d_input("adaptive_avg_pool1d", input)
    (output_size,) = _pool1d_arguments("adaptive_avg_pool1d", output_size=output_size)
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, output_size)), -2)


# ---- interpolate ---------------------------------------------------------------------------

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_INTERPOLATING = "linear | bilinear | bicubic | trilinear"
# (mode, spatial dims) that torch resamples
_TORCH_RESAMPLERS = {(mode, nd) for mode in ("nearest", "nearest-exact", "area")
                     for nd in (1, 2, 3)} | {("linear", 1), ("bilinear", 2), ("bicubic", 2),
                                             ("trilinear", 3)}
# the kernel torch's error for an integer input names
_KERNEL_NAMES = {("nearest", 1): "compute_indices_weights_nearest",
                 ("nearest-exact", 1): "compute_indices_weights_nearest",
                 ("nearest", 2): "upsample_nearest2d_channels_last",
                 ("nearest-exact", 2): "upsample_nearest2d_channels_last",
                 ("linear", 1): "compute_indices_weights_linear",
                 ("bilinear", 2): "upsample_bilinear2d_channels_last"}
_RESAMPLERS = {("nearest", 1): _upsample_nearest1d, ("nearest", 2): _upsample_nearest2d,
               ("nearest-exact", 1): _upsample_nearest_exact1d,
               ("nearest-exact", 2): _upsample_nearest_exact2d,
               ("linear", 1): _upsample_linear1d, ("bilinear", 2): _upsample_bilinear2d}


def _interpolation_sizes(input, size, scale_factor, recompute_scale_factor):
    """(output sizes, scale factors given to the kernel or None), as torch's interpolate."""
    nd = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if not isinstance(size, (list, tuple)):
            return [size] * nd, None
        if len(size) != nd:
            raise ValueError("Input and output must have the same number of spatial dimensions,"
                             f" but got input with spatial dimensions of {spatial} and output "
                             f"size of {size}. Please provide input tensor in (N, C, d1, d2, "
                             "...,dK) format and output size in (o1, o2, ...,oK) format.")
        if not all(isinstance(s, int) for s in size):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            "Tuple[int, int, int], but got size with types "
                            f"{[type(s) for s in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != nd:
            raise ValueError("Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {spatial} "
                             f"and scale_factor of shape {scale_factor}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                             "s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * nd
    sizes = [int(n * s) for n, s in zip(spatial, scales)]
    return sizes, None if recompute_scale_factor else scales


def _check_output_sizes(input, sizes):
    if min(sizes) > 0 and min(input.shape[2:]) > 0:
        return
    names = ("D", "H", "W")[-len(sizes):]
    given, wanted = (", ".join(f"{name}: {value}" for name, value in zip(names, values))
                     for values in (input.shape[2:], sizes))
    joint = " and" if len(sizes) == 1 else ""  # torch's 1-d message says "and"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                       f"({given}){joint} output ({wanted})")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resampling of (N, C, L) or (N, C, H, W) input: modes nearest, nearest-exact, linear,
    bilinear and area. Differs from torch: bicubic, trilinear, 5-d input and antialias are
    not supported (NotImplementedError)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             f"modes: {_INTERPOLATING}")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _interpolation_sizes(input, size, scale_factor, recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    nd = input.ndim - 2
    if mode == "area" and nd in (1, 2):
        pool = adaptive_avg_pool1d if nd == 1 else adaptive_avg_pool2d
        return pool(input, sizes[0] if nd == 1 else sizes)
    wanted = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if wanted is not None and nd in (1, 2, 3) and nd != wanted:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{wanted + 2}D input")
    op = _RESAMPLERS.get((mode, nd))
    if op is None or antialias:
        if (mode, nd) in _TORCH_RESAMPLERS:
            raise NotImplementedError(f"tapegrad: interpolate(mode={mode!r}, antialias="
                                      f"{antialias}) of {input.ndim}-d input is not supported")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: {_MODES} (got {mode})")
    _check_output_sizes(input, sizes)
    _check_float(_KERNEL_NAMES[mode, nd], input)
    return _apply_map(op, input, [
        _resampling_axis(mode, nd, n, out, scale, align_corners, input.dtype.numpy)
        for n, out, scale in zip(input.shape[2:], sizes, scales or [None] * nd)])


def _resampling_axis(mode, nd, size, out, scale_factor, align_corners, dtype):
    if mode in ("linear", "bilinear"):
        return _linear_axis(size, out, scale_factor, align_corners, dtype)
    exact = mode == "nearest-exact"
    return _nearest_axis(size, out, scale_factor, exact, shortcuts=not exact and nd == 2)


FUNCTIONS = ("adaptive_avg_pool1d avg_pool1d conv1d conv2d conv_transpose1d conv_transpose2d "
             "max_pool1d max_pool2d").split()
NN_FUNCTIONS = FUNCTIONS + ("adaptive_avg_pool2d avg_pool2d fold interpolate unfold").split()
