"""Argument checks shared by op families; each raises torch's error type and text."""
import numpy as np

from .._dtype import python_number
from .._tensor import Tensor


def type_name(value):
    """A value's type as torch's argument errors name it: list, NoneType, numpy.ndarray."""
    kind = type(value)
    if isinstance(value, Tensor):
        return "Tensor"
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def int_list(values, name, arg, position=1, varargs=True, keyword=False):
    """A `tuple of ints` argument as a tuple of Python ints, parsed as torch does: varargs
    (x.view(2, 3)) takes the ints one by one or one sequence (x.view((2, 3))); entries may be
    NumPy integers or integer tensors of one element. keyword: given by name. Anything else
    raises torch's TypeError."""
    if varargs and not keyword:
        if len(values) == 1 and isinstance(values[0], (tuple, list)):
            values = values[0]
        elif len(values) > 1 and as_int(values[0]) is None:
            raise TypeError(f"{name}() takes 1 positional argument but {len(values)} were given")
        elif len(values) == 1 and as_int(values[0]) is None:
            _not_ints(values[0], name, arg, position, keyword)
    elif not isinstance(values, (tuple, list)):
        _not_ints(values, name, arg, position, keyword)
    if all(type(value) is int for value in values):
        return tuple(values)
    ints = tuple(map(as_int, values))
    if None in ints:
        bad = ints.index(None)
        kind = type_name(values[bad])
        if bad == 0:
            where = "" if keyword else f" (position {position})"
            raise TypeError(f"{name}(): argument '{arg}'{where} must be tuple of ints, "
                            + (f"not {type(values).__name__}" if keyword else
                               f"but found element of type {kind} at pos 0"))
        raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                        f"{bad + 1} with error \"type must be tuple of ints,but got {kind}\"")
    return ints


def _not_ints(value, name, arg, position, keyword):
    where = "" if keyword else f" (position {position})"
    raise TypeError(f"{name}(): argument '{arg}'{where} must be tuple of ints, not "
                    f"{type_name(value)}")


def as_int(value):
    """value as a Python int where torch reads it as one (not bool), else None."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if (isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "iu"):
        return int(value._data.item())
    return None


def numel(shape):
    count = 1
    for size in shape:
        count *= size
    return count


def wrap_dim(dim, ndim):
    """A possibly negative dim as an index into a tensor of `ndim` dims (0-d acts as 1-d)."""
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-size}, {size - 1}], but got {dim})")
    return dim % size


def wrap_dims(dims, ndim):
    """dim=int or a tuple/list of ints, as a sorted tuple of non-negative dims."""
    if isinstance(dims, int):
        dims = (dims,)
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    return tuple(sorted(wrapped))


def broadcast_shapes(*shapes):
    """The broadcast shape, or torch's error naming the rightmost mismatching dimension."""
    ndim = max(len(s) for s in shapes)
    result = [1] * ndim
    for shape in shapes:
        for i in range(1, len(shape) + 1):
            size = shape[-i]
            if size != 1 and result[-i] not in (1, size):
                raise RuntimeError(
                    f"The size of tensor a ({result[-i]}) must match the size of tensor b "
                    f"({size}) at non-singleton dimension {ndim - i}")
            if size != 1:
                result[-i] = size
    return tuple(result)


def number(value, name, arg):
    """A torch Number argument (alpha=, value=) as a Python number: NumPy scalars read as the
    Python numbers they hold (so they never widen a result), one-element tensors as their
    value; anything else raises torch's TypeError."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.number):  # before Python's types: np.float64 is a float
        return python_number(value)
    if isinstance(value, (int, float, complex)):
        return value
    if isinstance(value, Tensor) and value._data.size == 1:
        return value._data.item()
    raise TypeError(f"{name}(): argument '{arg}' must be Number, not {type_name(value)}")


def scaled(value, alpha, name):
    """value * alpha for the alpha of add/sub/rsub (an array, or a number): the product keeps
    value's dtype, as torch's Number alpha never takes part in promotion."""
    alpha = number(alpha, name, "alpha")
    kind = value.dtype.kind if isinstance(value, np.ndarray) else "f"
    if isinstance(alpha, bool) and kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, complex) and kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")
    if isinstance(alpha, float) and kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    product = value * alpha
    return product.astype(bool) if kind == "b" else product
