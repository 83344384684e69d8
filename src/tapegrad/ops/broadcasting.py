"""Broadcasting and grids: broadcast_shapes, broadcast_tensors, meshgrid, and the grids built on
it, cartesian_prod and combinations (composed as torch composes them, so their graphs are
torch's: expands, views, masked_select and stack)."""
import itertools

import numpy as np

from .._tensor import Size
from ._checks import broadcast_shapes as _broadcast_shape
from .indexing import masked_select
from .joining import stack, tensor_list
from .shape import constant_beside, expand, flatten, zeros_of
from .._warnings import warn


def broadcast_shapes(*shapes):
    """The shape that tensors of all these shapes broadcast to (ints count as 1-D shapes)."""
    shapes = [(shape,) if isinstance(shape, int) else shape for shape in shapes
              if shape is not None]
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * max((len(shape) for shape in shapes), default=0)
    for position, shape in enumerate(shapes):
        for i in range(-1, -len(shape) - 1, -1):
            size = shape[i]
            if size == common[i]:
                continue
            if common[i] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = size
            elif size != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at "
                                   f"{i}! Mismatching argument at index {position} had {shape}; "
                                   f"but expected shape should be broadcastable to {common}")
    for i, size in enumerate(common):
        if not isinstance(size, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                            f"'{type(size).__name__}')")
    return Size(common)


def _tensors(args):
    """Tensors given one by one or as one list."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    return args


def broadcast_tensors(*tensors):
    """Each tensor expanded to the common shape (a tensor already of that shape as it is)."""
    tensor_list("broadcast_tensors", tensors)
    shape = _broadcast_shape(*(tensor.shape for tensor in tensors)) if tensors else ()
    return tuple(tensor if tensor.shape == shape else expand(tensor, shape)
                 for tensor in tensors)


def meshgrid(*tensors, indexing=None):
    """Grids from 0-d or 1-D tensors: output i varies along dim i ("ij"), or with the first two
    dims swapped ("xy", as NumPy's default)."""
    tensors = _tensors(tensors)
    if indexing is None:
        warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
             "indexing argument.", UserWarning)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tensor in tensors:
        if tensor.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {tensor.ndim}D tensor of shape {list(tensor.shape)}")
    if any(tensor.dtype is not tensors[0].dtype for tensor in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors = (tensors[1], tensors[0]) + tuple(tensors[2:])
    shape = tuple(tensor.numel() for tensor in tensors)
    grids = []
    for i, tensor in enumerate(tensors):
        along = (1,) * i + (-1,) + (1,) * (len(tensors) - i - 1)
        grids.append(expand(tensor.view(along), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _check_vector(tensor):
    if tensor.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(tensor.shape)}")


def cartesian_prod(*tensors):
    """Every tuple of one element from each vector, as the rows of a matrix (one vector: it)."""
    for tensor in tensors:
        _check_vector(tensor)
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(grid) for grid in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a vector's elements (in order), as rows."""
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return zeros_of(input, (0,))
    grids = meshgrid(*[input] * r, indexing="ij")
    mask = constant_beside(input, _ordered_mask(input.numel(), r, with_replacement))
    return stack([masked_select(grid, mask) for grid in grids], 1)


def _ordered_mask(size, r, with_replacement):
    """True where the r indices of a grid position increase (or do not decrease)."""
    mask = np.ones((size,) * r, bool)
    for earlier, later in itertools.pairwise(np.indices((size,) * r)):
        mask &= (earlier <= later) if with_replacement else (earlier < later)
    return mask


FUNCTIONS = "broadcast_shapes broadcast_tensors cartesian_prod combinations meshgrid".split()
