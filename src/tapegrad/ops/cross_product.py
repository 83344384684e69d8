"""The cross product of 3-vectors along a dim: torch.cross and torch.linalg.cross (one node,
LinalgCrossBackward0, whose derivatives are cross products again)."""

from .._tensor import Tensor
from ._checks import broadcast_shapes, wrap_dim
from ._define import defop
from .complex_parts import conj_of
from .._warnings import warn


@defop("LinalgCrossBackward0", save=("input", "other", "dim"))
def _cross(xp, input: Tensor, other: Tensor, dim):
    shape = broadcast_shapes(input.shape, other.shape)
    return xp.cross(xp.broadcast_to(input, shape), xp.broadcast_to(other, shape), axis=dim)


# Complex operands enter conjugated (torch: linalg_cross(other.conj(), grad, dim)).
_cross.derivatives(input=lambda ctx: _cross(conj_of(ctx.other), ctx.grad, ctx.dim),
                   other=lambda ctx: _cross(ctx.grad, conj_of(ctx.input), ctx.dim))


def _check_same_ndim(input, other):
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")


def linalg_cross(input, other, *, dim=-1):
    """The cross product along dim, which must have 3 elements in both (broadcast) inputs."""
    _check_same_ndim(input, other)
    wrapped = wrap_dim(dim, input.ndim)
    if input.shape[wrapped] != 3 or other.shape[wrapped] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[wrapped]} and {other.shape[wrapped]}")
    broadcast_shapes(input.shape, other.shape)
    if input.dtype is not other.dtype:  # torch does not promote here
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{other.dtype.legacy_name}")
    return _cross(input, other, wrapped)


_WARNED = []  # torch warns once per process that dim should be given


def cross(input, other, dim=None):
    """linalg.cross; without dim, along the first dim of size 3 (deprecated, as in torch)."""
    return linalg_cross(input, other, dim=_default_dim(input, other) if dim is None else dim)


def _default_dim(input, other):
    if not _WARNED:
        _WARNED.append(True)
        warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
             "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
             "default value of dim will change to agree with that of linalg.cross in "
             "a future release.", UserWarning)
    _check_same_ndim(input, other)
    shape = broadcast_shapes(input.shape, other.shape)
    dim = next((d for d, size in enumerate(shape) if size == 3), None)
    if dim is None:
        raise RuntimeError("no dimension of size 3 in input")
    return dim


FUNCTIONS = ["cross"]
METHODS = ["cross"]
LINALG_FUNCTIONS = {"cross": linalg_cross}
