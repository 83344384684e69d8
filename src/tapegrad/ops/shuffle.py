"""Rearranging channels: pixel_shuffle (channels into blocks of pixels), its inverse
pixel_unshuffle, and channel_shuffle (interleaving channel groups). Each is a reshape, a
transpose and a copy; each one's gradient is its inverse, the same kind of op."""
from .._tensor import Tensor
from ._define import defop
from .pointwise import not_implemented_in_torch

# ---- pixel_shuffle and pixel_unshuffle -------------------------------------------------------


def _shuffle_pixels(xp, input, factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channel c r^2 + i r + j lands at (i, j) of each
    r x r block."""
    *batch, channels, height, width = input.shape
    out = channels // (factor * factor)
    blocks = input.reshape(*batch, out, factor, factor, height, width)
    n = len(batch)
    order = (*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return xp.ascontiguousarray(blocks.transpose(order)).reshape(
        *batch, out, height * factor, width * factor)


def _unshuffle_pixels(xp, input, factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of _shuffle_pixels."""
    *batch, channels, height, width = input.shape
    rows, columns = height // factor, width // factor
    blocks = input.reshape(*batch, channels, rows, factor, columns, factor)
    n = len(batch)
    order = (*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return xp.ascontiguousarray(blocks.transpose(order)).reshape(
        *batch, channels * factor * factor, rows, columns)


@defop("PixelShuffleBackward0", save=("upscale_factor",))
def _pixel_shuffle(xp, input: Tensor, upscale_factor):
    return _shuffle_pixels(xp, input, upscale_factor)


@defop("PixelUnshuffleBackward0", save=("downscale_factor",))
def _pixel_unshuffle(xp, input: Tensor, downscale_factor):
    return _unshuffle_pixels(xp, input, downscale_factor)


_pixel_shuffle.derivatives(input=lambda ctx: _pixel_unshuffle(ctx.grad, ctx.upscale_factor))
_pixel_unshuffle.derivatives(input=lambda ctx: _pixel_shuffle(ctx.grad, ctx.downscale_factor))


def _check_shuffle_input(name, input, factor, factor_name):
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {factor_name}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) to (*, C, H r, W r), r = upscale_factor."""
    _check_shuffle_input("pixel_shuffle", input, upscale_factor, "upscale_factor")
    channels = input.shape[-3]
    if channels % (upscale_factor * upscale_factor):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{channels} is not divisible by {upscale_factor * upscale_factor}")
    return _pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) to (*, C r^2, H, W), r = downscale_factor."""
    _check_shuffle_input("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    for dim, name in ((-2, "height"), (-1, "width")):
        if input.shape[dim] % downscale_factor:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({dim})={input.shape[dim]} is "
                               f"not divisible by {downscale_factor}")
    return _pixel_unshuffle(input, downscale_factor)


# ---- channel_shuffle -------------------------------------------------------------------------


@defop("ChannelShuffleBackward0", save=("groups",))
def _channel_shuffle(xp, input: Tensor, groups):
    """(N, g * k, *) -> channel i * k + j moves to j * g + i."""
    batch, channels, *spatial = input.shape
    grouped = input.reshape(batch, groups, channels // groups, *spatial)
    return xp.ascontiguousarray(grouped.swapaxes(1, 2)).reshape(input.shape)


# shuffling k groups of g undoes shuffling g groups of k
_channel_shuffle.derivatives(
    input=lambda ctx: _channel_shuffle(ctx.grad, ctx.grad.shape[1] // ctx.groups))


def _check_channel_groups(input, groups):
    if input.ndim <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")


def channel_shuffle(input, groups):
    """Interleaves the `groups` groups of channels of (N, C, *) input."""
    _check_channel_groups(input, groups)
    return _channel_shuffle(input, groups)


# torch's native_channel_shuffle shuffles as channel_shuffle but has no derivative: its node
# is NotImplemented, whose backward raises
_native_channel_shuffle = defop("NotImplemented", name="_native_channel_shuffle")(
    _channel_shuffle.forward)
not_implemented_in_torch(_native_channel_shuffle, "native_channel_shuffle")


def native_channel_shuffle(input, groups):
    """channel_shuffle without a derivative."""
    _check_channel_groups(input, groups)
    return _native_channel_shuffle(input, groups)


FUNCTIONS = ["channel_shuffle", "native_channel_shuffle", "pixel_shuffle", "pixel_unshuffle"]
NN_FUNCTIONS = FUNCTIONS
