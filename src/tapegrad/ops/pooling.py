"""Pooling in 2-d and 3-d (1-d runs as 2-d, as in torch): max and adaptive max pooling over
windows of the trailing dims, and average and adaptive average pooling as linear maps along the
trailing axes (the maps interpolate, in resampling.py, uses too).

Loops run over the positions of a pooling window or over the few source elements of an output
element, never over pixels or batch elements. A linear map's gradient is the transposed map,
whose gradient is the map again, so create_graph works everywhere.
"""
import functools
import itertools

import numpy as np

from .. import _backend
from .._tensor import Tensor
from . import reduction
from ._checks import is_floating_kind, is_reduced, numel, refuse_half, wrap_dim
from ._define import defop
from .conv import check_float, int_tuple, sliding_windows
from .indexing import gather
from .pointwise import div
from .shape import constant_beside, reshape, squeeze, unsqueeze, zeros_of
from .unary import relu


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


def _check_pool3d(function, input, kernel, stride, padding, dilation, out, average=False):
    """torch's pool3d_shape_check (average: avg_pool3d's, which checks the kernel fits the
    unpadded input)."""
    for text, names, values in (("kernel size", ("kT", "kH", "kW"), kernel),
                                ("stride", ("dT", "dH", "dW"), stride),
                                ("dilation", ("dilationT", "dilationH", "dilationW"), dilation)):
        if min(values) <= 0:
            raise RuntimeError(f"{text} should be greater than zero, but got " + " ".join(
                f"{name}: {value}" for name, value in zip(names, values)))
    if any(size == 0 for size in input.shape[-4:]):
        raise RuntimeError(f"{function}: Expected input's non-batch dimensions to have "
                           f"positive length, but input has a shape of {list(input.shape)} and "
                           "non-batch dimension 0 has length zero!")
    size = input.shape[-3:]
    if average and any(n < k for n, k in zip(size, kernel)):
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than "
                           f"kernel size (kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    if any(k // 2 < p for k, p in zip(kernel, padding)):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {padding[0]} "
                           f"padW: {padding[2]} padH: {padding[1]}")
    if min(out) < 1:
        given, calculated = ("x".join(map(str, sizes)) for sizes in (input.shape[-4:],
                                                                     input.shape[-4:-3] + out))
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: "
                           f"({calculated}). Output size is too small")


# what each argument of 2-d and 3-d pooling may be, in torch's words (avg_pool3d drops the
# "either")
_POOL_ARGUMENTS = {"kernel_size": "must either be a single int, or a tuple of {} ints",
                   "stride": "must either be omitted, a single int, or a tuple of {} ints",
                   "padding": "must either be a single int, or a tuple of {} ints",
                   "dilation": "must be either a single int, or a tuple of {} ints"}


def _pool_arguments(function, nd, **arguments):
    """Each argument as nd ints (stride: the kernel when omitted), or torch's error."""
    tuples = []
    for name, value in arguments.items():
        value = () if value is None else int_tuple(value, nd)
        if len(value) not in (1, nd) and not (name == "stride" and not value):
            text = _POOL_ARGUMENTS[name].format({2: "two", 3: "three"}[nd])
            if function == "avg_pool3d":
                text = text.replace("either ", "")
            raise RuntimeError(f"{function}: {name} {text}")
        tuples.append(tuples[0] if not value else value * nd if len(value) == 1 else value)
    return tuples


def _pooled_sizes(input, kernel, stride, padding, dilation, ceil_mode):
    return tuple(_pooled_size(size, k, p, s, d, ceil_mode) for size, k, p, s, d in
                 zip(input.shape[-len(kernel):], kernel, padding, stride, dilation))


def _pad_for_windows(xp, array, out, kernel, stride, dilation, padding, value):
    """array padded with `value` to exactly the extent `out` windows cover (more on the
    right under ceil_mode, less when the last step leaves rows out)."""
    nd = len(out)
    pairs, keep = [(0, 0)] * (array.ndim - nd), []
    for size, o, k, s, d, p in zip(array.shape[-nd:], out, kernel, stride, dilation, padding):
        needed = (o - 1) * s + d * (k - 1) + 1
        pairs.append((p, max(needed - size - p, 0)))
        keep.append(slice(0, needed))
    if any(before or after for before, after in pairs):
        array = xp.pad(array, pairs, constant_values=value)
    return array[(Ellipsis,) + tuple(keep)]


def _along(values, dim, nd):
    """A 1-d array shaped to broadcast along dim `dim` of nd trailing dims."""
    return values.reshape((-1,) + (1,) * (nd - 1 - dim))


def _flat_strides(size):
    """The step in a flattened array of shape `size` along each of its dims."""
    return [numel(size[dim + 1:]) for dim in range(len(size))]


def _max_pool(xp, input: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    """(maxima, flat indices into the trailing dims) of max pooling over len(kernel_size)
    trailing dims."""
    nd = len(kernel_size)
    size = input.shape[-nd:]
    out = tuple(_pooled_size(n, k, p, s, d, ceil_mode) for n, k, p, s, d in
                zip(size, kernel_size, padding, stride, dilation))
    lowest = -xp.inf if is_floating_kind(input.dtype) else xp.iinfo(input.dtype).min
    padded = _pad_for_windows(xp, input, out, kernel_size, stride, dilation, padding, lowest)
    windows = sliding_windows(xp, padded, kernel_size, stride, dilation)
    # each window position's offset from the window's first element in the flat input
    steps = _flat_strides(size)
    positions = xp.indices(kernel_size).reshape(nd, -1)
    offsets = sum(positions[dim] * (dilation[dim] * steps[dim]) for dim in range(nd))
    starts = [xp.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    found = None if any(padding) else _first_max(xp, windows, offsets, nd)
    if found is None:
        # torch starts each window at its first element inside the input (which keeps the
        # index there when every value is -inf)
        first_inside = [xp.maximum(-start + d - 1, 0) // d for start, d in zip(starts, dilation)]
        first = sum(_along(inside, dim, nd) * numel(kernel_size[dim + 1:])
                    for dim, inside in enumerate(first_inside))
        values, position = _window_max(xp, windows, first, lowest, nd)
        found = values, xp.take(offsets, position)
    values, offset = found
    # flat index = the window's first element + the offset of the position in the window
    return values, sum(_along(start, dim, nd) * steps[dim]
                       for dim, start in enumerate(starts)) + offset


def _window_views(windows, nd):
    """The values at each window position, row-major, of windows (..., *kernel)."""
    return [windows[(Ellipsis,) + position]
            for position in itertools.product(*map(range, windows.shape[-nd:]))]


def _first_max(xp, windows, offsets, nd):
    """(maximum, offset of its position) of each window (..., *kernel) that starts inside the
    input, or None where a NaN is among the values. The maximum first, then the first position
    holding it: torch's row-major scan, in which only a larger value takes over, ends there.
    (A NaN takes over in torch's scan, so the last NaN would win: _window_max finds it.)"""
    views = _window_views(windows, nd)
    if len(views) == 1:
        return views[0].copy(), xp.zeros(views[0].shape, xp.int32)
    best = xp.maximum(views[0], views[1])
    for value in views[2:]:
        xp.maximum(best, value, out=best)
    if is_floating_kind(best.dtype) and xp.isnan(best).any():
        return None
    # the offset grows by the step to position k wherever the maximum is not before k
    offset = not_yet = None
    for k in range(1, len(views)):
        differs = views[k - 1] != best
        not_yet = differs if not_yet is None else xp.logical_and(not_yet, differs, out=not_yet)
        step = not_yet * xp.asarray(offsets[k] - offsets[k - 1], xp.int32)
        offset = step if offset is None else xp.add(offset, step, out=offset)
    return best, offset


def _window_max(xp, windows, first, lowest, nd):
    """(maximum, its position) of each window (..., *kernel) of nd dims, scanning the window in
    row-major order from position `first` with `lowest` as torch does: a larger value or a
    NaN takes over. Integer arithmetic keeps the positions (NumPy's argmax over a short last
    axis, or where(), would cost several times more)."""
    best = xp.full(windows.shape[:-nd], lowest, windows.dtype)
    position = xp.broadcast_to(first.astype(xp.int32), best.shape).copy()
    for k, value in enumerate(_window_views(windows, nd)):
        better = value > best
        if is_floating_kind(best.dtype):
            better |= xp.isnan(value)
        position *= ~better
        position += better * xp.int32(k)
        best = xp.maximum(best, value)
    return best, position


def _scatter_to_indices(node_name, name, nd):
    """The gradient op of a max pooling over nd dims: each output's grad goes to the input
    element its index names (summed where windows overlap, unless they are disjoint). It takes
    the input too, as torch's backward function does: an edge whose derivative is zero."""
    @defop(node_name, save=("indices",), name=name)
    def scatter(xp, grad_output: Tensor, input: Tensor, indices, disjoint):
        planes, size = numel(grad_output.shape[:-nd]), numel(input.shape[-nd:])
        result = xp.zeros((planes, size), grad_output.dtype)
        rows = xp.arange(planes)[:, None]
        blocks = numel(grad_output.shape[-nd:])
        grad, indices = grad_output.reshape(planes, blocks), indices.reshape(planes, blocks)
        if disjoint:  # every index is distinct: one assignment at flat positions
            result.reshape(-1)[(indices + rows * size).reshape(-1)] = grad.reshape(-1)
        else:
            xp.add.at(result, (rows, indices), grad)
        return result.reshape(input.shape)

    scatter.derivatives(grad_output=lambda ctx: gather_at_indices(ctx.grad, ctx.indices, nd),
                        input=zeros_for_input)
    return scatter


def zeros_for_input(ctx):
    """torch's derivative of a pooling backward function in its input argument."""
    return zeros_of(ctx.grad, ctx.input_shape)


def gather_at_indices(grad, indices, nd):
    """The element of grad (..., *size) that each of the flat indices (an array (..., *out)
    into the nd trailing dims) names: the max pooling of a gradient, max unpooling's."""
    flat = reshape(grad, grad.shape[:-nd] + (numel(grad.shape[-nd:]),))
    flat_indices = indices.reshape(indices.shape[:-nd] + (numel(indices.shape[-nd:]),))
    return reshape(gather(flat, -1, Tensor._make(flat_indices)), indices.shape)


def max_pool_op(node, name, forward, nd, save=(), disjoint=lambda ctx: False):
    """The op f"{node}Backward0" of a max pooling over nd dims (forward gives the maxima and
    their indices) and its gradient op f"{node}BackwardBackward0", which scatters to the
    indices (disjoint(ctx): whether no two windows overlap)."""
    op = defop(f"{node}Backward0", save=("input", "result1") + save, name=name)(forward)
    backward = _scatter_to_indices(f"{node}BackwardBackward0", name + "_backward", nd)
    op.derivatives(input=lambda ctx: backward(ctx.grad, ctx.input, ctx.result1._data,
                                              disjoint(ctx)))
    return op


def _disjoint_windows(ctx):
    return all(s >= d * (k - 1) + 1 for k, s, d in zip(ctx.kernel_size, ctx.stride,
                                                        ctx.dilation))


_max_pool2d, _max_pool3d = (max_pool_op(f"MaxPool{nd}DWithIndices", f"_max_pool{nd}d", _max_pool,
                                        nd, ("kernel_size", "stride", "dilation"),
                                        _disjoint_windows) for nd in (2, 3))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling of (N, C, H, W) or (C, H, W) input; indices are flat positions in H*W."""
    kernel, stride, padding, dilation = _pool_arguments(
        "max_pool2d", 2, kernel_size=kernel_size, stride=stride, padding=padding,
        dilation=dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = _pooled_sizes(input, kernel, stride, padding, dilation, ceil_mode)
    _check_pool2d(input, kernel, stride, padding, dilation, out)
    if input.dtype.name == "bool":
        raise NotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    values, indices = _max_pool2d(input, kernel, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling of (N, C, D, H, W) or (C, D, H, W) input; indices are flat positions in
    D*H*W."""
    kernel, stride, padding, dilation = _pool_arguments(
        "max_pool3d", 3, kernel_size=kernel_size, stride=stride, padding=padding,
        dilation=dilation)
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _pooled_sizes(input, kernel, stride, padding, dilation, ceil_mode)
    _check_pool3d("max_pool3d_with_indices_out_cpu_template()", input, kernel, stride, padding,
                  dilation, out)
    if input.dtype.name == "bool":
        raise NotImplementedError("\"max_pool3d\" not implemented for 'Bool'")
    values, indices = _max_pool3d(input, kernel, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


# where each argument of the 1-d pooling functions sits, for torch's argument errors
_POOL1D_POSITIONS = {"kernel_size": 2, "output_size": 2, "stride": 3, "padding": 4}


def _pool1d_arguments(function, **arguments):
    """Each argument as one int (an omitted stride stays None), or torch's error."""
    ints = []
    for name, value in arguments.items():
        if value is None and name != "stride":
            raise TypeError(f"{function}(): argument '{name}' (position "
                            f"{_POOL1D_POSITIONS[name]}) must be tuple of ints, not NoneType")
        value = () if value is None else int_tuple(value, 1)
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
        value = () if value is None else int_tuple(value, 1)
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
            check_float("max_pool1d_impl", input)
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


def axis_map(outputs, inputs, weights, n_out, n_in):
    """(forward table, transposed table) of one axis from its entries."""
    return (_table(outputs, inputs, weights, n_out), _table(inputs, outputs, weights, n_in))


def _along_axes(xp, array, tables):
    if is_reduced(array.dtype):
        # half precision in float32, rounded once, as torch's CPU pooling and resampling
        return _along_axes(xp, array.astype(xp.float32), tables).astype(array.dtype)
    # the last axis first: for bilinear that is torch's order of operations
    for axis, (index, weight) in reversed(list(enumerate(tables, array.ndim - len(tables)))):
        array = _along_axis(xp, array, axis, index, weight)
    return array


def _along_axis(xp, array, axis, index, weight):
    shape = (index.shape[0],) + (1,) * (array.ndim - axis - 1)
    result = None
    for slot in range(index.shape[1]):  # the few inputs of an output, not the outputs
        positions, factors = index[:, slot], weight[:, slot].astype(array.dtype)
        # one factor for all outputs (pooling windows inside the input) multiplies as a scalar
        uniform = factors.size and (factors == factors[0]).all()
        # the tables are host-made: what meets the data goes to its device
        factor = factors[0] if uniform else _backend.beside(array, factors.reshape(shape))
        step = _step(positions)
        if step:  # evenly spaced positions (windows without padding): a view, not a gather
            term = array[(slice(None),) * axis + (slice(positions[0], positions[-1] + 1,
                                                        step),)] * factor
        else:
            used = positions >= 0
            term = xp.take(array, _backend.beside(array, np.where(used, positions, 0)),
                           axis=axis)
            term *= factor
            if not used.all():
                term = xp.where(_backend.beside(array, used.reshape(shape)), term, 0)
        if result is None:  # every term is a new array: the first is the sum so far
            result = term
        else:
            result += term
    if result is None:
        return xp.zeros(array.shape[:axis] + shape[:1] + array.shape[axis + 1:], array.dtype)
    return result


def _step(positions):
    """The step between positions that are all used and evenly increasing, else None."""
    if not positions.size or positions[0] < 0:
        return None
    steps = np.diff(positions)
    if not steps.size:
        return 1
    return int(steps[0]) if steps[0] > 0 and (steps == steps[0]).all() else None


def linear_map(node, name, pooling=False):
    """The op of a map given by tables (node f"{node}Backward0") and its gradient, the
    transposed map (node f"{node}BackwardBackward0"); each is the other's gradient. A pooling
    map's gradient op also takes the forward's input, as torch's pooling backward functions
    do (an edge whose derivative is zero)."""
    def forward(xp, input: Tensor, tables, transposed_tables):
        return _along_axes(xp, input, tables)

    def pooling_backward(xp, grad_output: Tensor, input: Tensor, tables, transposed_tables):
        return _along_axes(xp, grad_output, tables)
    saved = ("tables", "transposed_tables")
    op = defop(f"{node}Backward0", save=saved + ("input",) * pooling, name=name)(forward)
    gradient = defop(f"{node}BackwardBackward0", save=saved, name=name + "_backward")(
        pooling_backward if pooling else forward)
    if pooling:
        op.derivatives(input=lambda ctx: gradient(ctx.grad, ctx.input, ctx.transposed_tables,
                                                  ctx.tables))
        gradient.derivatives(grad_output=lambda ctx: op(ctx.grad, ctx.transposed_tables,
                                                        ctx.tables),
                             input=zeros_for_input)
    else:
        op.derivatives(input=lambda ctx: gradient(ctx.grad, ctx.transposed_tables, ctx.tables))
        gradient.derivatives(input=lambda ctx: op(ctx.grad, ctx.transposed_tables, ctx.tables))
    return op


_avg_pool2d = linear_map("AvgPool2D", "_avg_pool2d", pooling=True)
_avg_pool3d = linear_map("AvgPool3D", "_avg_pool3d", pooling=True)
_adaptive_avg_pool2d = linear_map("AdaptiveAvgPool2D", "_adaptive_avg_pool2d", pooling=True)
_adaptive_avg_pool3d = linear_map("AdaptiveAvgPool3D", "_adaptive_avg_pool3d", pooling=True)


def apply_map(op, input, axis_maps):
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
    return axis_map(outputs, inputs, weights, out, size)


def adaptive_axis(size, out, dtype):
    outputs = np.arange(out)
    starts, ends = outputs * size // out, -(-(outputs + 1) * size // out)
    outputs, inputs = _window_entries(starts, ends)
    return axis_map(outputs, inputs, (1 / (ends - starts)[outputs]).astype(dtype), out, size)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling of (N, C, H, W) or (C, H, W) input (of integers: the sums divided
    with truncation, as torch)."""
    kernel, stride, padding = _pool_arguments("avg_pool2d", 2, kernel_size=kernel_size,
                                              stride=stride, padding=padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    wrap_dim(-3, input.ndim)
    out = _pooled_sizes(input, kernel, stride, padding, (1, 1), ceil_mode)
    _check_pool2d(input, kernel, stride, padding, (1, 1), out)
    return _avg_pool(_avg_pool2d, input, out, kernel, stride, padding, count_include_pad,
                     divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling of (N, C, D, H, W) or (C, D, H, W) input (of integers: the sums
    divided with truncation, as torch)."""
    kernel, stride, padding = _pool_arguments("avg_pool3d", 3, kernel_size=kernel_size,
                                              stride=stride, padding=padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _pooled_sizes(input, kernel, stride, padding, (1, 1, 1), ceil_mode)
    _check_pool3d("avg_pool3d()", input, kernel, stride, padding, (1, 1, 1), out, average=True)
    refuse_half("avg_pool3d_out_frame", input)
    return _avg_pool(_avg_pool3d, input, out, kernel, stride, padding, count_include_pad,
                     divisor_override)


def _avg_pool(op, input, out, kernel, stride, padding, count_include_pad, divisor_override):
    """Average pooling of checked arguments over the len(kernel) trailing dims, as the op's
    linear map."""
    size = input.shape[-len(kernel):]
    windows = [_avg_pool_windows(n, o, k, s, p, count_include_pad)
               for n, o, k, s, p in zip(size, out, kernel, stride, padding)]
    # the divisor is a product over the axes, so each axis divides by its factor; integer
    # sums are divided at the end, with truncation
    integer = not input.dtype.is_floating_point
    ones = (1,) * (len(kernel) - 1)
    factors = ((1,) + ones if integer else (1 / divisor_override,) + ones if divisor_override
               else tuple(1 / window[2] for window in windows))
    result = apply_map(op, input, [
        _scaled_axis_map(window, factor, o, n, input.dtype.numpy)
        for window, factor, o, n in zip(windows, factors, out, size)])
    if not integer:
        return result
    divisors = divisor_override or functools.reduce(np.multiply.outer,
                                                    [window[2] for window in windows])
    return div(result, constant_beside(input, np.asarray(divisors, input.dtype.numpy)),
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
    return _adaptive_avg_pool(_adaptive_avg_pool2d, "adaptive_avg_pool2d", input, output_size,
                              2, "")


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) input (None keeps that
    input size)."""
    return _adaptive_avg_pool(_adaptive_avg_pool3d, "adaptive_avg_pool3d", input, output_size,
                              3, "_cpu")


def _adaptive_avg_pool(op, function, input, output_size, nd, kernel_suffix):
    output_size = int_tuple(output_size, nd)
    if len(output_size) != nd:
        raise RuntimeError(f"{function}: output_size must be {nd}")
    output_size = tuple(n if o is None else o for o, n in zip(output_size, input.shape[-nd:]))
    if min(output_size) < 0:
        # (torch writes the 3-d sizes without a space before the last)
        received = ", ".join(map(str, output_size[:2])) + "".join(f",{o}" for o in
                                                                  output_size[2:])
        raise RuntimeError(f"{function}: elements of output_size must be greater than or equal "
                           f"to 0 but received {{{received}}}")
    if output_size == (1,) * nd:
        return reduction.mean(input, tuple(range(-1, -nd - 1, -1)), keepdim=True)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{function}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                           f"{list(input.shape)}")
    check_nonempty_planes(function, input)
    check_float(function + kernel_suffix, input)
    return apply_map(op, input, [adaptive_axis(size, out, input.dtype.numpy)
                                 for size, out in zip(input.shape[-nd:], output_size)])


def check_nonempty_planes(function, input):
    """torch's check of adaptive pooling that no dim but the batch dim is empty."""
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{function}(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (N, C, L) or (C, L) input, run as 2-d pooling."""
    _check_1d_input("adaptive_avg_pool1d", input)
    (output_size,) = _pool1d_arguments("adaptive_avg_pool1d", output_size=output_size)
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, output_size)), -2)


# ---- adaptive max pooling and power-average pooling ---------------------------------------

def _spread(dim, nd, n):
    """The shape of n values along dim `dim` of nd dims."""
    return (1,) * dim + (n,) + (1,) * (nd - 1 - dim)


def max_over_windows(xp, input, starts, widths, ends=None, lead=(Ellipsis,)):
    """(maxima, flat indices into the trailing dims) over the windows that start at starts[d]
    (an array (*lead, out_d)) and are widths[d] wide along each trailing dim d, scanned as
    torch scans them (from -inf: a larger value or a NaN takes over). ends[d]: where each window
    ends, for windows narrower than the widest. lead: the index of the leading dims (a batch
    and a channel index where the windows differ per plane)."""
    nd = len(starts)
    size, index, used = input.shape[-nd:], [], True
    if xp is not np:  # windows the host computed go to the data's device
        starts = [_backend.beside(input, start) for start in starts]
        ends = ends and [_backend.beside(input, end) for end in ends]
    for dim, (start, width) in enumerate(zip(starts, widths)):
        positions = start[..., None] + xp.arange(width)
        shape = positions.shape[:-2] + _spread(dim, nd, positions.shape[-2]) + _spread(
            dim, nd, width)
        if ends is not None:  # slots past a window's end repeat a valid position and never win
            used = used & (positions < ends[dim][..., None]).reshape(shape)
            positions = xp.minimum(positions, size[dim] - 1)
        index.append(positions.reshape(shape))
    windows = input[lead + tuple(index)]  # (..., *out, *widths)
    if ends is not None:
        windows = xp.where(used, windows, -xp.inf).astype(input.dtype, copy=False)
    values, position = _window_max(xp, windows, xp.zeros((), xp.int32), -xp.inf, nd)
    # (an empty window keeps position 0: its start, as torch)
    slots = xp.unravel_index(position, tuple(max(width, 1) for width in widths))
    steps = _flat_strides(size)
    return values, sum((start.reshape(start.shape[:-1] + _spread(dim, nd, start.shape[-1]))
                        + slots[dim]) * steps[dim] for dim, start in enumerate(starts))


def _adaptive_windows(size, out):
    """(starts, ends, widest width) of the adaptive windows along one axis."""
    outputs = np.arange(out)
    starts, ends = outputs * size // out, -(-(outputs + 1) * size // out)
    return starts, ends, int((ends - starts).max(initial=0))


def _adaptive_max_pool(xp, input: Tensor, output_size):
    starts, ends, widths = zip(*(_adaptive_windows(size, out) for size, out in
                                 zip(input.shape[-len(output_size):], output_size)))
    return max_over_windows(xp, input, starts, widths, ends)


_adaptive_max_pool2d, _adaptive_max_pool3d = (
    max_pool_op(f"AdaptiveMaxPool{nd}D", f"_adaptive_max_pool{nd}d", _adaptive_max_pool, nd)
    for nd in (2, 3))


def _sizes_or_input_sizes(output_size, shape, nd):
    """F's _list_with_default: the sizes, None meaning the input's size there."""
    if isinstance(output_size, int):
        return (output_size,) * nd
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return tuple(size if wanted is None else wanted
                 for wanted, size in zip(output_size, shape[-len(output_size):]))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a given output size (None keeps that input size), over the windows of
    adaptive_avg_pool2d; indices are flat positions in H*W."""
    return _adaptive_max_pool(_adaptive_max_pool2d, "adaptive_max_pool2d", "", input,
                              output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a given output size (None keeps that input size), over the windows of
    adaptive_avg_pool3d; indices are flat positions in D*H*W."""
    return _adaptive_max_pool(_adaptive_max_pool3d, "adaptive_max_pool3d", "_cpu", input,
                              output_size, return_indices, 3)


def _adaptive_max_pool(op, function, kernel_suffix, input, output_size, return_indices, nd):
    output_size = _sizes_or_input_sizes(output_size, input.shape, nd)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{function}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    check_nonempty_planes(function, input)
    if len(output_size) != nd:
        raise RuntimeError(f"{function}(): internal error: output_size.size() must be {nd}")
    if min(output_size) < 0:
        shape = list(input.shape[:-nd]) + list(output_size)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output_size)}: "
                           f"{shape}")
    check_float(function + kernel_suffix, input)
    values, indices = op(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, L) or (C, L) input, run as 2-d pooling of height 1."""
    _check_1d_input("adaptive_max_pool1d", input)
    (output_size,) = _pool1d_arguments("adaptive_max_pool1d", output_size=output_size)
    check_nonempty_planes("adaptive_max_pool1d", input)
    values, indices = adaptive_max_pool2d(unsqueeze(input, -2), (1, output_size), True)
    values = squeeze(values, -2)
    return (values, squeeze(indices, -2)) if return_indices else values


def _lp_pool(max_pool, avg_pool, input, norm_type, kernel_size, stride, ceil_mode, window):
    """(sum over the window of x^p)^(1/p), composed as torch's F.lp_pool (the mean times the
    window size, its sign kept through a relu); p = +-inf is max pooling of |x|."""
    if norm_type == float("inf"):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(max_pool1d, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode,
                    kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    height, width = int_tuple(kernel_size, 2)
    return _lp_pool(max_pool2d, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode,
                    height * width)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    depth, height, width = int_tuple(kernel_size, 3)
    return _lp_pool(max_pool3d, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode,
                    depth * height * width)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d's maxima and indices, whatever return_indices says."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d's maxima and indices, whatever return_indices says."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d's maxima and indices, whatever return_indices says."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d's maxima and indices, whatever return_indices says."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d's maxima and indices, whatever return_indices says."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d's maxima and indices, whatever return_indices says."""
    return adaptive_max_pool3d(input, output_size, True)


# torch.adaptive_max_pool1d always returns the indices too: only F's is exported
# (torch.max_pool1d_with_indices, with other defaults, lives in namespace.py).
FUNCTIONS = "adaptive_avg_pool1d avg_pool1d max_pool1d max_pool2d max_pool3d".split()
NN_FUNCTIONS = FUNCTIONS + ("adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d "
                            "adaptive_max_pool2d adaptive_max_pool3d avg_pool2d avg_pool3d "
                            "lp_pool1d lp_pool2d lp_pool3d max_pool1d_with_indices "
                            "max_pool2d_with_indices max_pool3d_with_indices "
                            "adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices "
                            "adaptive_max_pool3d_with_indices").split()
