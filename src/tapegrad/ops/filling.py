"""torch.fill (out of place, differentiable) and torch.zero_: the values are replaced, so no
gradient reaches the input (a zero tensor, as torch gives); a tensor value gets the sum."""
from ._checks import fill_value
from ._inplace import fill_op_for, fill_ops, zero_


_filled, _filled_with_tensor = fill_ops("FillBackward0", "FillBackward1", "_filled_like")


def fill(input, value):
    """A tensor like input, every element value."""
    fill_value("fill", "Tensor input, ", (input, value))
    return fill_op_for(value, _filled, _filled_with_tensor)(input, value)


FUNCTIONS = {"fill": fill, "zero_": zero_}
