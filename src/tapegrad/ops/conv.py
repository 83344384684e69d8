"""Convolution: conv1d/2d/3d and their transposes, torch.convolution (every convolution's
entry) and conv_tbc (a 1-d convolution of time-major input), unfold and fold.

Every kernel handles the whole batch at once. im2col copies the input once into columns for
ONE batched matmul per convolution, and col2im adds columns back with one add per kernel
position: for windows that keep the size (stride 1, 'same' padding) as shifted copies of
whole planes (Note [Shifted columns]), otherwise through a strided view of the padded input
(sliding_window_view). Loops run over kernel positions, never over pixels or batch elements.

A convolution's gradients come from one op, torch's convolution_backward (the input
gradient is a transposed convolution, and vice versa; the weight gradient pairs input and
grad), whose derivatives are convolutions and convolution_backward again, so create_graph
works to every order; unfold and fold are each other's gradient.
"""
import functools
import itertools
import warnings

from .. import _dtype
from .._tensor import Tensor
from ._checks import is_reduced, numel, wrap_dim
from ._define import defop
from .activation import pad
from .linalg import _C_TYPE
from .pointwise import add
from .reduction import check_grad_dtype
from .shape import VIEW_INCOMPATIBLE, expand, permute, reshape, squeeze, unsqueeze, zeros_of


def int_tuple(value, n):
    """An int or a sequence of ints as a tuple (an int is repeated n times)."""
    return (value,) * n if isinstance(value, int) else tuple(value)


def check_float(name, input):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.legacy_name}\'')


# ---- im2col and col2im on arrays -----------------------------------------------------------
#
# Columns are (N, G, K * Cg, L): per batch element and group, row (k, c) holds channel c at
# kernel position k for every block (window) l, kernel-major so that the rows of one kernel
# position are a whole group of input planes (Note [Shifted columns]). A kernel matrix is
# (G, Og, K * Cg) in the same order; torch's unfold layout (N, C * K, L) is channel-major.

def sliding_windows(xp, padded, kernel, stride, dilation):
    """A view (N, C, *blocks, *kernel) of every window of `padded` (N, C, *spatial)."""
    nd = len(kernel)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = xp.lib.stride_tricks.sliding_window_view(padded, span, axis=tuple(range(-nd, 0)))
    steps = tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d)
                                                                for d in dilation)
    return view[(Ellipsis,) + steps]


def _im2col(xp, input, kernel, stride, padding, dilation, groups=1, blocks=None):
    """(columns (N, G, K * Cg, prod(blocks)), blocks): the one copy im2col makes.
    blocks limits the windows taken along each dim (all by default)."""
    nd, (n, channels), size = len(kernel), input.shape[:2], input.shape[2:]
    if _keeps_size(size, kernel, stride, padding, dilation, blocks):
        return _shifted_columns(xp, input, kernel, dilation, padding, groups), size
    windows = sliding_windows(xp, _zero_pad(xp, input, padding), kernel, stride, dilation)
    if blocks is not None:
        windows = windows[(Ellipsis,) + tuple(slice(0, b) for b in blocks) + (slice(None),) * nd]
    blocks = windows.shape[2:2 + nd]
    windows = windows.reshape((n, groups, channels // groups) + windows.shape[2:])
    order = (0, 1, *range(3 + nd, 3 + 2 * nd), 2, *range(3, 3 + nd))
    shape = (n, groups, channels // groups * numel(kernel), numel(blocks))
    return windows.transpose(order).reshape(shape), blocks


def _keeps_size(size, kernel, stride, padding, dilation, blocks=None):
    """Whether the windows are stride 1 and padded to give one block per input position
    ('same' padding), so each kernel position is a shift of the flattened input."""
    return (all(s == 1 for s in stride) and (blocks is None or tuple(blocks) == tuple(size))
            and all(2 * p == d * (k - 1) for k, p, d in zip(kernel, padding, dilation)))


# Note [Shifted columns]
# When the windows keep the size, the rows of kernel position k are the group's input planes,
# flattened together and shifted by one offset: columns_k[q] = input[q + shift_k]. Copying
# (and, for col2im, adding) whole shifted groups of planes runs over long contiguous rows
# instead of rows of one image width, and needs no padded copy. The shift is wrong only where
# a window crosses an edge of its plane (it would read the neighbouring row or plane): those
# elements are zero.

@functools.lru_cache(maxsize=256)  # the same few layer shapes, every step
def _shifts(size, kernel, dilation, padding, length):
    """For each kernel position of size-keeping windows over groups of planes flattened to
    `length`: (flat shift, valid range of q, the index of each edge slab to zero in a
    (..., *size) view). Arguments are tuples and ints."""
    nd, positions = len(size), []
    for position in itertools.product(*map(range, kernel)):
        offsets = [k * d - p for k, d, p in zip(position, dilation, padding)]
        shift = sum(o * numel(size[dim + 1:]) for dim, o in enumerate(offsets))
        start = min(length, max(0, -shift))
        stop = max(start, min(length, length - shift))
        edges = tuple((Ellipsis, slice(0, -o) if o < 0 else slice(max(0, size[dim] - o), None))
                      + (slice(None),) * (nd - 1 - dim) for dim, o in enumerate(offsets) if o)
        positions.append((shift, start, stop, edges))
    return tuple(positions)


def _shifted_columns(xp, input, kernel, dilation, padding, groups):
    """im2col of size-keeping windows by shifted copies (Note [Shifted columns])."""
    (n, channels), size = input.shape[:2], input.shape[2:]
    length = channels // groups * numel(size)
    planes = input.reshape(n, groups, length)
    columns = xp.empty((n, groups, numel(kernel), length), input.dtype)
    for k, (shift, start, stop, edges) in enumerate(_shifts(
            tuple(size), tuple(kernel), tuple(dilation), tuple(padding), length)):
        column = columns[:, :, k]
        column[..., start:stop] = planes[..., start + shift:stop + shift]
        column[..., :start] = 0
        column[..., stop:] = 0
        for edge in edges:
            column.reshape((n, groups, channels // groups) + size)[edge] = 0
    return columns.reshape(n, groups, numel(kernel) * channels // groups, numel(size))


def _col2im(xp, columns, size, stride, dilation, padding, scratch=False):
    """The adjoint of im2col: columns (N, G, *kernel, Cg, *blocks) summed into
    (N, G * Cg, *size). scratch: the columns are ours to overwrite (size-keeping windows then
    add shifted groups of planes, Note [Shifted columns])."""
    nd, (n, groups) = len(size), columns.shape[:2]
    kernel, blocks = columns.shape[2:2 + nd], columns.shape[3 + nd:]
    if scratch and _keeps_size(size, kernel, stride, padding, dilation, blocks):
        return _add_shifted_columns(xp, columns, size, dilation, padding)
    result = xp.zeros(columns.shape[:2] + columns.shape[2 + nd:3 + nd] + tuple(size),
                      columns.dtype)
    for position in itertools.product(*map(range, kernel)):
        # the blocks whose element at this kernel position lands inside the input
        target, source = [], []
        for k, d, s, p, b, extent in zip(position, dilation, stride, padding, blocks, size):
            first = k * d - p
            low, high = max(0, -(first // s)), min(b, (extent - 1 - first) // s + 1)
            target.append(slice(first + s * low, first + s * (high - 1) + 1, s))
            source.append(slice(low, max(low, high)))
        if all(t.start < t.stop for t in target):
            result[(Ellipsis,) + tuple(target)] += columns[(slice(None), slice(None)) + position
                                                           + (Ellipsis,) + tuple(source)]
    return result.reshape((n, groups * result.shape[2]) + tuple(size))


def _add_shifted_columns(xp, columns, size, dilation, padding):
    """col2im of size-keeping windows by shifted adds (Note [Shifted columns])."""
    (n, groups), nd = columns.shape[:2], len(size)
    kernel, planes = columns.shape[2:2 + nd], columns.shape[2 + nd:3 + nd]
    length = numel(columns.shape[2 + nd:])
    flat = columns.reshape(n, groups, numel(kernel), length)
    positions = _shifts(tuple(size), tuple(kernel), tuple(dilation), tuple(padding), length)
    # a position with no offset (the centre of an odd kernel) covers every element: a copy
    centre = next((k for k, (_, _, _, edges) in enumerate(positions) if not edges), None)
    if centre is None:
        result = xp.zeros((n, groups, length), columns.dtype)
    else:
        result = flat[:, :, centre].copy()
    for k, (shift, start, stop, edges) in enumerate(positions):
        if k == centre:
            continue
        column = flat[:, :, k]
        for edge in edges:
            column.reshape((n, groups) + planes + tuple(size))[edge] = 0
        result[..., start + shift:stop + shift] += column[..., start:stop]
    return result.reshape((n, groups * planes[0]) + tuple(size))


def _zero_pad(xp, array, padding):
    if not any(padding):
        return array
    # zeros and one assignment: a fraction of xp.pad's cost
    result = xp.zeros(array.shape[:2] + tuple(s + 2 * p for s, p in zip(array.shape[2:],
                                                                       padding)), array.dtype)
    result[(Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(padding, array.shape[2:]))] = array
    return result


# ---- convolution ---------------------------------------------------------------------------

def _kernel_matrices(weight, groups):
    """A convolution's weight (O, Cg, *kernel) as (G, Og, K * Cg), kernel-major rows."""
    out_channels, group_channels = weight.shape[:2]
    size = numel(weight.shape[2:])
    kernels = weight.reshape(groups, out_channels // groups, group_channels, size)
    return kernels.transpose(0, 1, 3, 2).reshape(groups, out_channels // groups,
                                                 size * group_channels)


def _conv_forward(xp, input, weight, stride, padding, dilation, groups):
    columns, blocks = _im2col(xp, input, weight.shape[2:], stride, padding, dilation, groups)
    result = xp.matmul(_kernel_matrices(weight, groups), columns)
    return result.reshape((input.shape[0], weight.shape[0]) + tuple(blocks))


def _conv_transpose_forward(xp, input, weight, stride, padding, output_padding, dilation,
                            groups):
    (n, channels), spatial = input.shape[:2], input.shape[2:]
    kernel, group_out = weight.shape[2:], weight.shape[1]
    group_in = channels // groups
    # weight (C_in, Og, *kernel) as (G, K * Og, Cg_in): each kernel position's rows together
    kernels = weight.reshape(groups, group_in, group_out, numel(kernel)).transpose(0, 3, 2, 1)
    kernels = kernels.reshape(groups, numel(kernel) * group_out, group_in)
    columns = xp.matmul(kernels, input.reshape(n, groups, group_in, numel(spatial)))
    columns = columns.reshape((n, groups) + kernel + (group_out,) + spatial)
    size = _transposed_size(spatial, kernel, stride, padding, output_padding, dilation)
    return _col2im(xp, columns, size, stride, dilation, padding, scratch=True)


def _transposed_size(spatial, kernel, stride, padding, output_padding, dilation):
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + o + 1 for i, k, s, p, o, d in
                 zip(spatial, kernel, stride, padding, output_padding, dilation))


def _in_float32(xp, *arrays):
    """Half-precision arrays in float32: torch's CPU kernels convolve them with float32 sums
    and round once (NumPy's float16 matmul rounds as it goes, ml_dtypes' bfloat16 one returns
    float32)."""
    return tuple(None if array is None else array.astype(xp.float32) for array in arrays)


def _convolve(xp, input: Tensor, weight: Tensor, bias: Tensor, stride, padding, dilation,
              transposed, output_padding, groups):
    if is_reduced(input.dtype):
        result = _convolve(xp, *_in_float32(xp, input, weight, bias), stride, padding,
                           dilation, transposed, output_padding, groups)
        return result.astype(input.dtype)
    if transposed:
        result = _conv_transpose_forward(xp, input, weight, stride, padding, output_padding,
                                         dilation, groups)
    else:
        result = _conv_forward(xp, input, weight, stride, padding, dilation, groups)
    if bias is not None:  # a string padding's bias may have another dtype: cast, as torch
        result += bias.reshape((-1,) + (1,) * (input.ndim - 2)).astype(result.dtype, copy=False)
    return result


_convolution = defop("ConvolutionBackward0", save=(
    "input", "weight", "stride", "padding", "dilation", "transposed", "output_padding",
    "groups"), name="_convolution")(_convolve)


def _convolution_grads(ctx):
    """(input, weight, bias) gradients from one convolution_backward call per node run."""
    if "grads_of_inputs" not in vars(ctx):
        ctx.grads_of_inputs = _convolution_backward(
            ctx.grad, ctx.input, ctx.weight, ctx.stride, ctx.padding, ctx.dilation,
            ctx.transposed, ctx.output_padding, ctx.groups, tuple(ctx._node._needs_input_grad))
    return ctx.grads_of_inputs


_convolution.derivatives(input=lambda ctx: _convolution_grads(ctx)[0],
                         weight=lambda ctx: _convolution_grads(ctx)[1],
                         bias=lambda ctx: _convolution_grads(ctx)[2])


def _input_grad_array(xp, grad, weight, input_shape, stride, padding, dilation, transposed,
                      output_padding, groups):
    """A convolution's input gradient is a transposed convolution of grad (output_padding
    restores the input rows the forward's last window step skipped), and vice versa."""
    if transposed:
        result = _conv_forward(xp, grad, weight, stride, padding, dilation, groups)
        return result[(Ellipsis,) + tuple(slice(0, s) for s in input_shape[2:])]
    restored = tuple(size + 2 * p - ((b - 1) * s + d * (k - 1) + 1) for size, b, k, s, p, d in
                     zip(input_shape[2:], grad.shape[2:], weight.shape[2:], stride, padding,
                         dilation))
    return _conv_transpose_forward(xp, grad, weight, stride, padding, restored, dilation, groups)


def _weight_grad_array(xp, input, grad, kernel_size, stride, padding, dilation, groups):
    """A convolution's weight gradient: per group, the input's columns (K*Cg, L) times grad
    (L, Og), summed over the batch (a transposed one's: the same, input and grad swapped)."""
    columns, _ = _im2col(xp, input, kernel_size, stride, padding, dilation, groups,
                         grad.shape[2:])
    n, out_channels = input.shape[0], grad.shape[1]
    grads = grad.reshape(n, groups, out_channels // groups, columns.shape[-1])
    # (OpenBLAS runs this order faster than grad times columns^T)
    result = xp.matmul(columns, grads.transpose(0, 1, 3, 2)).sum(0)
    group_channels = input.shape[1] // groups
    result = result.reshape(groups, numel(kernel_size), group_channels, out_channels // groups)
    return result.transpose(0, 3, 2, 1).reshape((out_channels, group_channels)
                                                + tuple(kernel_size))


@defop("ConvolutionBackwardBackward0", save=(
    "grad_output", "input", "weight", "stride", "padding", "dilation", "transposed",
    "output_padding", "groups"))
def _convolution_backward(xp, grad_output: Tensor, input: Tensor, weight: Tensor, stride,
                          padding, dilation, transposed, output_padding, groups, output_mask):
    """torch's convolution_backward: (input, weight, bias) gradients, each computed only if
    output_mask asks for it (else an empty placeholder)."""
    if is_reduced(grad_output.dtype):
        grads = _convolution_backward.forward(
            xp, *_in_float32(xp, grad_output, input, weight), stride, padding, dilation,
            transposed, output_padding, groups, output_mask)
        return tuple(grad.astype(like.dtype) for grad, like in
                     zip(grads, (input, weight, grad_output)))
    if grad_output.dtype.kind == "c":
        # torch's complex gradients pair grad with the other operand's conjugate; the
        # derivatives below hold unchanged (the conjugates cancel in the adjoints)
        input, weight = xp.conjugate(input), xp.conjugate(weight)
    empty = xp.empty(0, grad_output.dtype)
    grad_input = grad_weight = grad_bias = empty
    if output_mask[0]:
        grad_input = _input_grad_array(xp, grad_output, weight, input.shape, stride, padding,
                                       dilation, transposed, output_padding, groups)
    if output_mask[1]:
        pair = (grad_output, input) if transposed else (input, grad_output)
        grad_weight = _weight_grad_array(xp, *pair, weight.shape[2:], stride, padding,
                                         dilation, groups)
    if output_mask[2]:
        grad_bias = _bias_grad(xp, grad_output)
    return grad_input, grad_weight, grad_bias


def _bias_grad(xp, grad_output):
    """grad_output summed over all but the channel dim: for BLAS dtypes as a matrix-vector
    product with ones per batch element (a few times faster than sum over the axes)."""
    n, channels = grad_output.shape[:2]
    if grad_output.dtype not in (xp.float32, xp.float64):
        return grad_output.sum(axis=(0,) + tuple(range(2, grad_output.ndim)))
    rows = grad_output.reshape(n, channels, numel(grad_output.shape[2:]))
    return xp.matmul(rows, xp.ones(rows.shape[-1], rows.dtype)).sum(0)


def _attributes(ctx):
    return (ctx.stride, ctx.padding, ctx.dilation, ctx.transposed, ctx.output_padding,
            ctx.groups)


def _double_grad_output(ctx):
    """The convolution is bilinear: the gradient's own derivative in grad_output is the
    forward's change along (gg_input, gg_weight, gg_bias)."""
    gg_input, gg_weight, gg_bias = ctx.grads
    terms = []
    if gg_input is not None:
        terms.append(_convolution(gg_input, ctx.weight, None, *_attributes(ctx)))
    if gg_weight is not None:
        terms.append(_convolution(ctx.input, gg_weight, None, *_attributes(ctx)))
    if gg_bias is not None:
        nd = len(ctx.grad_output_shape) - 2
        terms.append(expand(reshape(gg_bias, (-1,) + (1,) * nd), ctx.grad_output_shape))
    return functools.reduce(add, terms) if terms else None


# Each other derivative pairs grad_output with the other input's incoming gradient (the
# input itself gives only its shape: detached, so the result depends on what it reads).
_convolution_backward.derivatives(
    grad_output=_double_grad_output,
    input=lambda ctx: None if ctx.grads[1] is None else _convolution_backward(
        ctx.grad_output, ctx.input.detach(), ctx.grads[1], *_attributes(ctx),
        (True, False, False))[0],
    weight=lambda ctx: None if ctx.grads[0] is None else _convolution_backward(
        ctx.grad_output, ctx.grads[0], ctx.weight.detach(), *_attributes(ctx),
        (False, True, False))[1])


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


def _uses_mkldnn(input, weight, groups):
    """Whether torch's CPU convolution picks its MKLDNN path (whose dtype errors are worded
    apart): a half-precision input, a float32 one with groups, a kernel over 3x3, a batch, or many elements in its
    first four dims (1-d as 2-d)."""
    kernel = (1,) * (4 - weight.ndim) + tuple(weight.shape[2:])
    return input.dtype.name in ("float16", "bfloat16") or input.dtype.name == "float32" and (
        groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or input.shape[0] > 1
        or numel(input.shape[:4]) > 20480)


def _tensor_type(tensor):
    """torch's name of a CPU tensor type in its MKLDNN errors (bfloat16 has no legacy class)."""
    if tensor.dtype.name == "bfloat16":
        return "CPUBFloat16Type"
    return f"torch.{tensor.dtype.legacy_name}Tensor"


def _check_transposed_dtypes(input, weight, bias, groups):
    """torch's CPU transposed kernels: their dtype dispatch, weight's dtype, then bias, which
    the 2-d kernel adds to the result (a bias of any dtype that casts to the result's is
    taken) and the 3-d one requires of the input's dtype."""
    if input.dtype.name not in ("float32", "float64", "float16", "bfloat16", "int64",
                                "complex64", "complex128"):
        kernel = f"slow_conv_transpose{max(weight.ndim - 2, 2)}d_out_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.legacy_name}\'')
    _check_conv_dtypes(input, weight, None, groups)
    if bias is not None and bias.dtype is not input.dtype and _uses_mkldnn(input, weight, groups):
        raise RuntimeError(f"Input type ({_tensor_type(input)}) and bias type "
                           f"({_tensor_type(bias)}) should be the same or input should be a "
                           "MKLDNN tensor and bias is a dense tensor")
    if bias is not None and bias.dtype is not input.dtype and weight.ndim == 5:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{bias.dtype.legacy_name}")
    _check_bias_casts(input.dtype, bias)


def _check_bias_casts(dtype, bias):
    """A bias added in place to a result of this dtype."""
    if bias is not None:
        promoted = _dtype.result_type([dtype], [bias.dtype], [])
        if _dtype._category(promoted) > _dtype._category(dtype):
            raise RuntimeError(f"result type {promoted.legacy_name} can't be cast to the "
                               f"desired output type {dtype.legacy_name}")


def _check_conv_dtypes(input, weight, bias, groups):
    if weight.dtype is not input.dtype:
        if _uses_mkldnn(input, weight, groups):
            raise RuntimeError(f"Input type ({_tensor_type(input)}) and weight type "
                               f"({_tensor_type(weight)}) should be the same or input should "
                               "be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{weight.dtype.legacy_name}")
    _check_bias_dtype(input, bias)


def _check_bias_dtype(input, bias):
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
                         output_padding, groups, check_bias=True):
    """torch's _convolution: parameter checks, shape checks, dtype checks, then the op
    (check_bias=False: torch's string-padding path takes a bias of any dtype)."""
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
    if not input.shape[0]:
        return _empty_batch_convolution(input, weight, bias, stride, padding, dilation,
                                        transposed, output_padding, groups, check_bias)
    if transposed:
        _check_transposed_dtypes(input, weight, bias, groups)
        if bias is not None and bias.dtype is not input.dtype:
            bias = bias.to(input.dtype)
    else:
        _check_conv_dtypes(input, weight, bias if check_bias else None, groups)
        if bias is not None:  # a float bias of an integer convolution
            check_grad_dtype(bias, input.dtype)
    return _convolution(input, weight, bias, stride, padding, dilation, transposed,
                        output_padding, groups)


def _empty_batch_convolution(input, weight, bias, stride, padding, dilation, transposed,
                             output_padding, groups, check_bias):
    """torch convolves an empty batch as the input times one weight element, plus one bias
    element in place: no kernel runs, so only a complex input and a non-transposed bias keep
    their dtype checks, and the result has the dtype of a tensor times a 0-d one."""
    if input.dtype.is_complex:
        _check_conv_dtypes(input, weight, None, groups)
    if check_bias and not transposed:
        _check_bias_dtype(input, bias)
    dtype = _dtype.result_type([input.dtype], [weight.dtype], [])
    _check_bias_casts(dtype, bias)
    return _convolution(input.to(dtype), weight.to(dtype), bias, stride, padding, dilation,
                        transposed, output_padding, groups)


def _check_transposed_sizes(input, weight, stride, padding, output_padding, dilation):
    # torch runs 1-d transposed convolutions as 2-d ones of height 1, and says so
    lead = (1,) * (2 - len(stride))
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        values = zip(("output_padding", "stride", "dilation"),
                     ((0,) * len(lead) + output_padding, lead + stride, lead + dilation))
        dims = ("depth", "height", "width")[-max(len(stride), 2):]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(f"{name}_{dim}: {v}" for name, vs in values
                                             for dim, v in zip(dims, vs)))
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
    stride, dilation = int_tuple(stride, nd), int_tuple(dilation, nd)
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
    string_padding = isinstance(padding, str)
    if padding == "valid":
        padding = 0
    elif padding == "same":
        _check_weight_dims(input, weight, space="")  # torch's 'same' path words it so
        input, padding, dilation = _same_padding(input, weight, stride, dilation)
    elif isinstance(padding, str):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    return _checked_convolution(input, weight, bias, int_tuple(stride, nd), int_tuple(padding, nd),
                                int_tuple(dilation, nd), False, (0,) * nd, groups,
                                check_bias=not string_padding)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation of (N, C, L) or unbatched (C, L) input; padding may be 'same' or
    'valid'."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation of (N, C, H, W) or unbatched (C, H, W) input; padding may be
    'same' or 'valid'."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d cross-correlation of (N, C, D, H, W) or unbatched (C, D, H, W) input; padding may be
    'same' or 'valid'."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(function, nd, input, weight, bias, stride, padding, output_padding,
                    groups, dilation):
    _check_batch_dims(function, nd, input)
    if isinstance(padding, str):
        raise TypeError(f"{function}(): argument 'padding' must be tuple of ints, not str")
    return _batched(_checked_convolution, input, nd, weight, bias, int_tuple(stride, nd),
                    int_tuple(padding, nd), int_tuple(dilation, nd), True,
                    int_tuple(output_padding, nd), groups)


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


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of conv3d with respect to its input, as an op: weight is (C_in, C_out/groups,
    kD, kH, kW)."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ---- unfold and fold -----------------------------------------------------------------------

def _sliding_blocks(size, kernel_size, dilation, padding, stride):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, d, p, s in
                 zip(size, kernel_size, dilation, padding, stride))


@defop("Im2ColBackward0", save=("kernel_size", "dilation", "padding", "stride"))
def _unfold(xp, input: Tensor, kernel_size, dilation, padding, stride):
    batch = input if input.ndim == 4 else input[None]
    columns, _ = _im2col(xp, batch, kernel_size, stride, padding, dilation)
    # kernel-major rows as torch's channel-major ones (N, C * K, L)
    n, channels, length = batch.shape[0], batch.shape[1], columns.shape[-1]
    columns = columns.reshape(n, numel(kernel_size), channels, length).transpose(0, 2, 1, 3)
    columns = columns.reshape(n, channels * numel(kernel_size), length)
    return columns if input.ndim == 4 else columns[0]


@defop("Col2ImBackward0", save=("kernel_size", "dilation", "padding", "stride"))
def _fold(xp, input: Tensor, output_size, kernel_size, dilation, padding, stride):
    batch = input if input.ndim == 3 else input[None]
    blocks = _sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    channels = batch.shape[1] // numel(kernel_size)
    columns = batch.reshape(batch.shape[:1] + (1, channels) + kernel_size + blocks)
    columns = columns.transpose(0, 1, 3, 4, 2, 5, 6)  # kernel-major, as col2im takes them
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
        value = int_tuple(value, 2)
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
    if not _has_block_kernel(input):
        check_float("im2col_out_cpu", input)
    return _unfold(input, kernel_size, dilation, padding, stride)


def _has_block_kernel(input):
    # torch's im2col and col2im take bool and complex as well as the floats
    return input.dtype.name == "bool" or input.dtype.is_complex


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
    if not _has_block_kernel(input):
        check_float("col2im_out_cpu", input)
    return _fold(input, output_size, kernel_size, dilation, padding, stride)


# ---- torch.convolution, every convolution's entry -------------------------------------------

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


CONVOLUTIONS = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d".split()
FUNCTIONS = CONVOLUTIONS + ["convolution", "conv_tbc"]
NN_FUNCTIONS = CONVOLUTIONS + "fold unfold conv_tbc".split()
