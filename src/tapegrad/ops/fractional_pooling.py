"""Fractional max pooling (Graham, 2014): windows of a fixed size at pseudo-random starts, drawn
per plane from one uniform sample per dim. The samples are drawn as torch draws them (torch.rand
of shape (N, C, dims) in the input's dtype) and the starts computed in that dtype, as torch
computes them, so a shared seed gives torch's windows."""
from .. import _random
from .._tensor import Tensor
from .conv import int_tuple
from .pooling import max_over_windows, max_pool_op


def _window_starts(xp, samples, size, out, pool):
    """torch's interval sequence along one dim: the start of each of `out` windows of `pool`
    elements in `size`, per plane, from each plane's sample (an array (N, C))."""
    starts = xp.empty(samples.shape + (out,), xp.int64)
    if out > 1:
        kind = samples.dtype.type
        alpha = kind(size - pool) / kind(out - 1)
        steps = xp.arange(out - 1).astype(samples.dtype)
        # truncations toward zero, as C++'s static_cast<int>
        starts[..., :-1] = (((steps + samples[..., None]) * alpha).astype(xp.int64)
                            - (samples * alpha).astype(xp.int64)[..., None])
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def _fractional_max_pool(xp, input: Tensor, kernel_size, output_size, random_samples):
    nd = len(kernel_size)
    batch = input if input.ndim == nd + 2 else input[None]
    n, channels = batch.shape[:2]
    # torch's 2-d samples are (W, H); its 3-d ones (T, H, W)
    order = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_window_starts(xp, random_samples[:n, :, order[dim]], size, out, pool)
              for dim, (size, out, pool) in enumerate(zip(batch.shape[2:], output_size,
                                                          kernel_size))]
    lead = (xp.arange(n).reshape((n,) + (1,) * (2 * nd + 1)),
            xp.arange(channels).reshape((channels,) + (1,) * 2 * nd))
    values, indices = max_over_windows(xp, batch, starts, kernel_size, lead=lead)
    return (values, indices) if input.ndim == nd + 2 else (values[0], indices[0])


_fractional_max_pool2d, _fractional_max_pool3d = (
    max_pool_op(f"FractionalMaxPool{nd}D", f"_fractional_max_pool{nd}d", _fractional_max_pool,
                nd) for nd in (2, 3))


def _output_size(function, nd, input, output_size, output_ratio):
    """F's output size: given, or the ratio of the input's (truncated)."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{function} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is not None:
        return output_size
    if nd == 2 and len(output_ratio) > 2:  # (len() of a single float fails, as in torch)
        raise ValueError(f"{function} requires output_ratio to either be a single Int or tuple "
                         "of Ints.")
    # (a shorter sequence fails on its missing element, as in torch)
    ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) else tuple(
        output_ratio)
    return [int(input.shape[dim - nd] * ratio[dim]) for dim in range(nd)]


def _check(function, nd, input, kernel_size, output_size, samples):
    """torch's checks of fractional_max_pool{nd}d, in its order."""
    words = "Ints" if nd == 2 else "three Ints"
    for name, value in (("kernel_size", kernel_size), ("output_size", output_size)):
        if len(value) != nd:
            raise RuntimeError(f"fractional_max_pool{nd}d: {name} must either be a single Int "
                               f"or tuple of {words}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{function}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{function}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {dim} "
                               "being empty.")
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch, channels = (1, input.shape[0]) if input.ndim == nd + 1 else input.shape[:2]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    if min(output_size) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output_size)}: "
                           f"{list(input.shape[:-nd]) + list(output_size)}")
    # (torch lets 2-d windows reach the input's last element, but not 3-d ones)
    for name, out, pool, size in zip(("time", "height", "width")[-nd:], output_size,
                                     kernel_size, input.shape[-nd:]):
        if out + pool - 1 > size - (nd == 3):
            raise RuntimeError(f"{function}: pool {name} {pool} too large relative to input "
                               f"{name} {size}")


def _fractional(nd, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    function = f"fractional_max_pool{nd}d"
    output_size = int_tuple(_output_size(function, nd, input, output_size, output_ratio), nd)
    if _random_samples is None:
        if not input.dtype.is_floating_point:
            raise NotImplementedError("\"check_uniform_bounds\" not implemented for "
                                      f"'{input.dtype.legacy_name}'")
        batch = 1 if input.ndim == nd + 1 else input.shape[0]
        _random_samples = Tensor._make(_random.uniform_array(
            None, (batch, input.size(-nd - 1), nd), input.dtype, 0, 1, device=input.device))
    kernel_size = int_tuple(kernel_size, nd)
    _check(f"{function}()" if nd == 2 else "fractional_max_pool3d_out()", nd, input, kernel_size,
           output_size, _random_samples)
    op = _fractional_max_pool2d if nd == 2 else _fractional_max_pool3d
    values, indices = op(input, kernel_size, output_size, _random_samples._data)
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling of (N, C, H, W) or (C, H, W) input over windows of kernel_size at
    pseudo-random starts that give output_size (or output_ratio of the input's size)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) input over windows of kernel_size at
    pseudo-random starts that give output_size (or output_ratio of the input's size)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d's maxima and indices, whatever return_indices says."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d's maxima and indices, whatever return_indices says."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


NN_FUNCTIONS = ("fractional_max_pool2d fractional_max_pool3d fractional_max_pool2d_with_indices "
                "fractional_max_pool3d_with_indices").split()
