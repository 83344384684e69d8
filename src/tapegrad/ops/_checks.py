"""Argument checks shared by op families; each raises torch's error type and text."""


def type_name(value):
    """A value's type as torch's argument errors name it: list, NoneType, numpy.ndarray."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


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
