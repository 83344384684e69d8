"""Sampling an input at grid positions: grid_sample (grid_sampler_2d, grid_sampler_3d) with
nearest, bilinear (trilinear) and bicubic interpolation, and affine_grid, the grid of an affine
map.

Every output element is a weighted sum of a few taps, input elements at integer positions
around its source position. Along each spatial dim a tap's weight is a polynomial in the
fraction t of the source position, and t moves with the grid at a constant slope (unnormalising
and padding are piecewise linear), so the formulas rebuild t from the grid as
t0 + (grid - grid0) * slope: exactly t0, with the grid's derivative. They are written in
tapegrad ops, so the gradients have gradients themselves (as torch's do).
"""
import itertools

import numpy as np

from .. import _backend
from .._tensor import Tensor
from .._warnings import warn
from ._define import array_of, defop, is_array
from .conv import check_float
from .indexing import _gather, _masked_fill, scatter_add_into_zeros
from .linalg import matmul
from .reduction import sum
from .shape import constant_beside, expand, reshape, transpose, unsqueeze, zeros_of

_MODES = ("bilinear", "nearest", "bicubic")  # grid_sampler's interpolation_mode 0, 1, 2
_PADDINGS = ("zeros", "border", "reflection")  # its padding_mode 0, 1, 2
_FAR = 2.0 ** 40  # source positions are clamped here: far outside any input, still an int


# ---- source positions: unnormalising and padding, with their slopes --------------------------

def _unnormalized(coordinate, size, align_corners):
    """From [-1, 1] to pixel positions, and the slope of that map."""
    if align_corners:
        scale = (size - 1) / 2
        return (coordinate + 1) * scale, scale
    scale = size / 2
    return (coordinate + 1) * scale - 0.5, scale


def _clipped(xp, position, size, nan_at):
    """position clamped to [0, size - 1], NaN to nan_at; its slope is 0 on the borders too (as
    torch's)."""
    inside = (position > 0) & (position < size - 1)
    return xp.where(xp.isnan(position), nan_at, xp.clip(position, 0, size - 1)), inside


def _reflected(xp, position, twice_low, twice_high):
    """position reflected into [low, high] as often as needed, and the slope's sign."""
    if twice_low == twice_high:
        return xp.zeros_like(position), xp.zeros(position.shape)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = position - low
    distance = xp.abs(shifted)
    extra = xp.fmod(distance, span)
    even = xp.floor(distance / span) % 2 == 0
    sign = xp.where(shifted < 0, -1.0, 1.0)
    return xp.where(even, extra + low, span - extra + low), xp.where(even, sign, -sign)


def _padded(xp, position, size, padding_mode, align_corners, nan_at):
    """The position torch samples at under padding_mode, and its slope (0, 1 or -1)."""
    if padding_mode == "zeros":
        return position, xp.ones(position.shape)
    slope = xp.ones(position.shape)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        position, slope = _reflected(xp, position, *twice)
    position, inside = _clipped(xp, position, size, nan_at)
    return position, slope * inside


# ---- taps along one dim ------------------------------------------------------------------------

_CUBIC_A = -0.75  # torch's cubic convolution constant


def _cubic_near(x):  # the kernel for |x| <= 1
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far(x):  # the kernel for 1 < |x| < 2
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _cubic_near_slope(x):
    return (3 * (_CUBIC_A + 2) * x - 2 * (_CUBIC_A + 3)) * x


def _cubic_far_slope(x):
    return (3 * _CUBIC_A * x - 10 * _CUBIC_A) * x + 8 * _CUBIC_A


def _weights(mode, t):
    """The taps' weights along one dim as polynomials in t (arrays or Tensors)."""
    if mode == "nearest":
        return [1.0]
    if mode == "bilinear":
        return [1 - t, t]
    return [_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)]


def _weight_slopes(mode, t):
    """d weight / dt of each tap."""
    if mode == "bilinear":
        return [-1.0, 1.0]
    return [_cubic_far_slope(t + 1), _cubic_near_slope(t), -_cubic_near_slope(1 - t),
            -_cubic_far_slope(2 - t)]


class _Axis:
    """One spatial dim's taps for every output position: indices, whether each is inside the
    input, the fraction t and its slope against the grid coordinate."""

    def __init__(self, coordinate, size, mode, padding_mode, align_corners, nan_at):
        self.xp = xp = _backend.array_module(coordinate)
        self.nan = xp.isnan(coordinate)
        position, scale = _unnormalized(coordinate, size, align_corners)
        position = xp.clip(position, -_FAR, _FAR)
        slope = xp.ones(position.shape)
        if mode != "bicubic":  # bicubic pads each tap's index instead
            position, slope = _padded(xp, position, size, padding_mode, align_corners, nan_at)
        if mode == "nearest":  # no fraction: the grid gets no gradient
            self.indices = [xp.rint(position).astype(np.int64)]
            self.fraction = self.slope = None
        else:
            first = xp.floor(position)
            self.fraction = (position - first).astype(coordinate.dtype)
            self.slope = slope * scale
            offsets = (0, 1) if mode == "bilinear" else (-1, 0, 1, 2)
            taps = [first + offset for offset in offsets]
            if mode == "bicubic" and padding_mode != "zeros":
                taps = [_padded(xp, tap, size, padding_mode, align_corners, nan_at)[0]
                        for tap in taps]
            self.indices = [tap.astype(np.int64) for tap in taps]
        self.inside = [(index >= 0) & (index < size) for index in self.indices]


def _axes(grid, sizes, mode, padding_mode, align_corners):
    """_Axis of each spatial dim, in the input's order (D, H, W): the grid's last entry is
    x, the width, its first the depth (or height)."""
    nd = len(sizes)
    # a NaN position, clamped: torch's 2-d kernel clamps with vector max and min, which give 0,
    # its 3-d one with std::max and std::min, which give size - 1
    return [_Axis(grid[..., nd - 1 - d], size, mode, padding_mode, align_corners,
                  0 if nd == 2 else size - 1)
            for d, size in enumerate(sizes)]


def _taps(axes, sizes, weights):
    """(flat index into the spatial dims, inside the input, [weight along each dim]) of every
    tap, the product of the dims' taps; weights[d][k] is tap k's weight along dim d."""
    strides = [int(np.prod(sizes[d + 1:])) for d in range(len(sizes))]
    for combination in itertools.product(*(range(len(axis.indices)) for axis in axes)):
        index, inside = 0, True
        for d, k in enumerate(combination):
            index = index + axes[d].indices[k] * strides[d]
            inside = inside & axes[d].inside[k]
        yield axes[0].xp.where(inside, index, 0), inside, [weights[d][k]
                                                   for d, k in enumerate(combination)]


def _product(factors):
    result = factors[0]
    for factor in factors[1:]:
        result = result * factor
    return result


# ---- the op ------------------------------------------------------------------------------------

def _grid_sampler(node_name, name):
    @defop(node_name, save=("input", "grid", "interpolation_mode", "padding_mode",
                            "align_corners"), name=name)
    def sampler(xp, input: Tensor, grid: Tensor, interpolation_mode, padding_mode,
                align_corners):
        mode = _MODES[interpolation_mode]
        batch, channels, *sizes = input.shape
        out_sizes = grid.shape[1:-1]
        points = grid.reshape(batch, int(np.prod(out_sizes)), len(sizes))
        flat = input.reshape(batch, channels, int(np.prod(sizes)))
        axes = _axes(points, sizes, mode, _PADDINGS[padding_mode], align_corners)
        weights = [_weights(mode, axis.fraction) for axis in axes]
        result = xp.zeros((batch, channels, points.shape[1]), input.dtype)
        for index, inside, factors in _taps(axes, sizes, weights):
            values = xp.take_along_axis(flat, index[:, None, :], axis=2) if flat.size else 0
            # torch's 2-d kernel zeroes an outside tap's value, not its weight: a NaN position
            # gives NaN; its 3-d one skips the tap
            weight = xp.where(inside | (len(sizes) == 2), _product(factors), 0).astype(input.dtype)
            result += xp.where(inside[:, None, :], values, 0) * weight[:, None, :]
        return result.reshape(batch, channels, *out_sizes)

    sampler.derivatives(input=_input_grad, grid=_grid_grad)
    return sampler


def constant_like(like, array):
    """array in like's dtype as a value a formula computes with: an array when the formula runs
    on arrays (like is one), else a Tensor."""
    array = _backend.array_module(array).asarray(array)
    return constant_beside(like, array.astype(like.dtype if is_array(like) else like.dtype.numpy))


def _formula_axes(ctx):
    """The axes of the saved grid, and each one's t rebuilt from the grid (module docstring)."""
    grid = ctx.grid
    batch, channels, *sizes = ctx.input_shape
    mode = _MODES[ctx.interpolation_mode]
    points = reshape(grid, (batch, int(np.prod(ctx.grid_shape[1:-1])), len(sizes)))
    values = array_of(points)
    axes = _axes(values, sizes, mode, _PADDINGS[ctx.padding_mode], ctx.align_corners)
    fractions = []
    for d, axis in enumerate(axes):
        if axis.fraction is None:
            fractions.append(None)
            continue
        coordinate = points[..., len(sizes) - 1 - d]
        moved = coordinate - constant_like(grid, values[..., len(sizes) - 1 - d])
        fractions.append(constant_like(grid, axis.fraction)
                         + moved * constant_like(grid, axis.slope))
    return mode, sizes, axes, fractions


def _input_grad(ctx):
    """Each output's gradient, weighted, added into the taps it came from."""
    mode, sizes, axes, fractions = _formula_axes(ctx)
    batch, channels = ctx.input_shape[:2]
    grad = reshape(ctx.grad, (batch, channels, int(np.prod(ctx.grid_shape[1:-1]))))
    weights = [_weights(mode, t) for t in fractions]
    shape = (batch, channels, int(np.prod(sizes)))
    # torch's 3-d backward sends a NaN position's gradient nowhere (its forward samples it)
    kept = ~(axes[0].nan | axes[1].nan | axes[2].nan) if len(sizes) == 3 else True
    total = None
    for index, inside, factors in _taps(axes, sizes, weights):
        inside = inside & kept
        weight = _product(factors)
        if isinstance(weight, float):  # nearest: every tap weighs 1
            weighted = _masked_fill(grad, ~inside[:, None, :], 0)
        else:
            weighted = _masked_fill(grad * unsqueeze(weight, 1), ~inside[:, None, :], 0)
        index = axes[0].xp.broadcast_to(index[:, None, :], grad.shape)
        term = scatter_add_into_zeros(weighted, shape, 2, index)
        total = term if total is None else total + term
    return reshape(total, ctx.input_shape)


def _grid_grad(ctx):
    """The gradient through each tap's weight: along dim d, d weight / dt times the slope of t;
    nearest sampling has none (zero, as torch's)."""
    mode, sizes, axes, fractions = _formula_axes(ctx)
    if mode == "nearest":
        return zeros_of(ctx.grid)
    batch, channels = ctx.input_shape[:2]
    grad = reshape(ctx.grad, (batch, channels, int(np.prod(ctx.grid_shape[1:-1]))))
    flat = reshape(ctx.input, (batch, channels, int(np.prod(sizes))))
    weights = [_weights(mode, t) for t in fractions]
    slopes = [_weight_slopes(mode, t) for t in fractions]
    nd = len(sizes)
    per_dim = [None] * nd
    for (index, inside, factors), (_, _, rates) in zip(_taps(axes, sizes, weights),
                                                         _taps(axes, sizes, slopes)):
        index = axes[0].xp.broadcast_to(index[:, None, :], grad.shape)
        values = _masked_fill(_gather(flat, 2, index), ~inside[:, None, :], 0)
        along = sum(grad * values, 1)  # (N, P): the output's gradient against this tap
        for d in range(nd):
            term = along * _product([rates[d] if e == d else factors[e] for e in range(nd)])
            per_dim[d] = term if per_dim[d] is None else per_dim[d] + term
    result = None
    for d in range(nd):
        others = axes[0].xp.arange(nd) != nd - 1 - d  # grid entry nd - 1 - d moves dim d
        term = unsqueeze(per_dim[d] * constant_like(ctx.grid, axes[d].slope), -1)
        # zero in the other entries by masking: an infinite term times 0 would be NaN there
        term = _masked_fill(expand(term, term.shape[:-1] + (nd,)), others, 0)
        result = term if result is None else result + term
    return reshape(result, ctx.grid_shape)


grid_sampler_2d_op = _grid_sampler("GridSampler2DBackward0", "grid_sampler_2d")
grid_sampler_3d_op = _grid_sampler("GridSampler3DBackward0", "grid_sampler_3d")


# ---- checks and public functions ---------------------------------------------------------------

def _check_grid_sampler(input, grid, interpolation_mode):
    nd = input.ndim - 2
    if grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected {input.ndim}D input and grid with same "
                           f"number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    for dim in range(2, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")
    if interpolation_mode == 2 and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _checked_sampler(dims, input, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler(input, grid, interpolation_mode)
    if input.ndim != dims + 2:  # torch's message counts the grid's dims
        raise RuntimeError(f"grid_sampler(): expected {dims + 2}D input and grid with same "
                           f"number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    check_float("grid_sampler_2d_cpu_kernel_impl" if dims == 2 else "grid_sampler3d_cpu", input)
    if input.dtype is not grid.dtype:  # the kernel's check, after its dispatch on input's
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{grid.dtype.legacy_name}")
    op = grid_sampler_2d_op if dims == 2 else grid_sampler_3d_op
    return op(input, grid, interpolation_mode, padding_mode, bool(align_corners))


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2); modes as grid_sampler's ints."""
    return _checked_sampler(2, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """input (N, C, D, H, W) sampled at grid (N, Do, Ho, Wo, 3)."""
    return _checked_sampler(3, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler_2d or grid_sampler_3d, by the input's dims."""
    _check_grid_sampler(input, grid, interpolation_mode)
    dims = 3 if input.ndim == 5 else 2
    return _checked_sampler(dims, input, grid, interpolation_mode, padding_mode, align_corners)


_ALIGN_CORNERS_DEFAULT = ("Default grid_sample and affine_grid behavior has changed to "
                          "align_corners=False since 1.3.0. Please specify align_corners=True if "
                          "the old behavior is desired. See the documentation of grid_sample for "
                          "details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input sampled at the normalised positions of grid ([-1, 1] spans the input). Differs
    from torch: a NaN grid position samples 0 (torch's bilinear and bicubic give NaN there,
    its backward gives them no gradient, and with border padding it crashes)."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn(_ALIGN_CORNERS_DEFAULT)
        align_corners = False
    return grid_sampler(input, grid, _MODES.index(mode), _PADDINGS.index(padding_mode),
                        align_corners)


# ---- affine_grid -------------------------------------------------------------------------------

def _base_grid(sizes, align_corners, dtype):
    """(prod(sizes), nd + 1): each output position's (x, y[, z], 1), x along the last dim."""
    axes = []
    for size in sizes:
        steps = np.linspace(-1, 1, size) if size > 1 else np.zeros(size)
        if not align_corners:
            steps = steps * (size - 1) / size
        axes.append(steps.astype(dtype))
    mesh = np.meshgrid(*axes, indexing="ij")
    columns = [position.reshape(-1) for position in reversed(mesh)]
    return np.stack(columns + [np.ones_like(columns[0])], axis=1)


@defop("AffineGridGeneratorBackward0", save=("size", "align_corners"))
def _affine_grid_generator(xp, theta: Tensor, size, align_corners):
    base = _backend.beside(theta, _base_grid(size[2:], align_corners, theta.dtype))
    grid = (base @ theta.swapaxes(1, 2)).astype(theta.dtype, copy=False)  # bfloat16's is float32
    return grid.reshape(size[0], *size[2:], len(size) - 2)


def _affine_grid_backward(ctx):
    nd = len(ctx.size) - 2
    grad = reshape(ctx.grad, (ctx.size[0], -1, nd))
    base = _base_grid(ctx.size[2:], ctx.align_corners, array_of(grad).dtype)
    return matmul(transpose(grad, 1, 2), constant_like(grad, base))


_affine_grid_generator.derivatives(theta=_affine_grid_backward)


def affine_grid_generator(theta, size, align_corners):
    """The grid of output positions (N, *spatial, nd) under the affine maps theta."""
    size = [int(s) for s in size]
    if theta.shape[0] != size[0]:  # torch's batched matrix product refuses it
        rows = theta.shape[-1]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {rows}] but got: [{theta.shape[0]}, {rows}].")
    return _affine_grid_generator(theta, tuple(size), bool(align_corners))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps theta (N, 2, 3) or (N, 3, 4), for grid_sample."""
    if align_corners is None:
        warn(_ALIGN_CORNERS_DEFAULT)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
            raise ValueError(f"Expected a batch of {nd}D affine matrices of shape "
                             f"Nx{nd}x{nd + 1} for size {size}. Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
             "align_corners=True. This is not an intended use case of affine_grid. See the "
             "documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


FUNCTIONS = ["affine_grid_generator", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d"]
NN_FUNCTIONS = ["affine_grid", "grid_sample"]
