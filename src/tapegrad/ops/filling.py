"""torch.fill (out of place, differentiable) and torch.zero_: the values are replaced, so no
gradient reaches the input (a zero tensor, as torch gives); a tensor value gets the sum."""
from .._tensor import Tensor
from ._define import defop
from ._inplace import zero_
from .shape import zeros_of


@defop("FillBackward0")
def _filled_like(xp, input: Tensor, value):
    return xp.full_like(input, value)


_filled_like.derivatives(input=lambda ctx: zeros_of(ctx.grad))


@defop("FillBackward1")
def _filled_like_tensor(xp, input: Tensor, value: Tensor):
    return xp.full_like(input, value)


_filled_like_tensor.derivatives(input=lambda ctx: zeros_of(ctx.grad),
                                value=lambda ctx: ctx.grad.sum())


def fill(input, value):
    """A tensor like input, every element value."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        return _filled_like_tensor(input, value)
    return _filled_like(input, value)


FUNCTIONS = {"fill": fill, "zero_": zero_}
