"""Max unpooling, the partial inverse of max pooling: each value goes back to the flat position
its index names in a zero output (1-d runs as 2-d of width 1, as in torch). The gradient is the
gather of max pooling's double backward, composed as torch composes it."""
from .._tensor import Tensor
from ._checks import numel
from ._define import defop
from .conv import check_float, int_tuple
from .pooling import gather_at_indices
from .shape import squeeze, unsqueeze


def _max_unpool(xp, input: Tensor, indices, output_size):
    nd = len(output_size)
    planes, blocks = numel(input.shape[:-nd]), numel(input.shape[-nd:])
    result = xp.zeros((planes, numel(output_size)), input.dtype)
    # where indices repeat, the last value stays, as in torch's loop
    result[xp.arange(planes)[:, None], indices.reshape(planes, blocks)] = input.reshape(
        planes, blocks)
    return result.reshape(input.shape[:-nd] + tuple(output_size))


def _max_unpool_op(nd):
    """MaxUnpool{nd}D (nd = 2 or 3): indices go in as an array, a non-differentiable input."""
    op = defop(f"MaxUnpool{nd}DBackward0", save=("indices",), name=f"_max_unpool{nd}d")(
        _max_unpool)
    op.derivatives(input=lambda ctx: gather_at_indices(ctx.grad, ctx.indices, nd))
    return op


_max_unpool2d, _max_unpool3d = _max_unpool_op(2), _max_unpool_op(3)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's F._unpool_output_size: the spatial sizes, checked against the default."""
    nd = len(kernel_size)
    default = [(input.shape[-nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        sizes = default
    else:
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{low} and {high})')
        sizes = output_size
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size}")
    return list(sizes)


def _checked_max_unpool(op, nd, input, indices, output_size, stride=None):
    """torch's checks of max_unpool{nd}d (stride: 3-d's), then the op."""
    if indices.dtype.name != "int64":
        raise RuntimeError("elements in indices should be type int64"
                           + (f" but got: {indices.dtype.legacy_name}" if nd == 2 else ""))
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d "
                           f"Tensor, but got a tensor with {input.ndim} dimensions.")
    if indices.shape != input.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have "
                               "non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {dim} being empty.")
    if stride is not None and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    check_float(f"max_unpool{nd}d", input)
    flat = indices._data.reshape(-1)
    invalid = (flat < 0) | (flat >= numel(output_size))
    if invalid.any():  # torch's loop reports the last one it meets
        raise RuntimeError(f"Found an invalid max index: {flat[invalid.nonzero()[0][-1]]} (output "
                           f"volumes are of size {'x'.join(map(str, output_size))})")
    return op(input, indices._data, tuple(output_size))


def _unpool_arguments(nd, kernel_size, stride, padding):
    kernel_size = int_tuple(kernel_size, nd)
    stride = kernel_size if stride is None else int_tuple(stride, nd)
    return kernel_size, stride, int_tuple(padding, nd)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value of (N, C, L) or (C, L) input back where max_pool1d's indices say."""
    kernel_size, stride, padding = _unpool_arguments(1, kernel_size, stride, padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return squeeze(_checked_max_unpool(_max_unpool2d, 2, unsqueeze(input, -1),
                                       unsqueeze(indices, -1), output_size + [1]), -1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value of (N, C, H, W) or (C, H, W) input back where max_pool2d's indices
    say."""
    kernel_size, stride, padding = _unpool_arguments(2, kernel_size, stride, padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _checked_max_unpool(_max_unpool2d, 2, input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value of (N, C, D, H, W) or (C, D, H, W) input back where max_pool3d's
    indices say."""
    kernel_size, stride, padding = _unpool_arguments(3, kernel_size, stride, padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _checked_max_unpool(_max_unpool3d, 3, input, indices, output_size, stride)


NN_FUNCTIONS = "max_unpool1d max_unpool2d max_unpool3d".split()
