"""Argument checks shared by op families; each raises torch's error type and text."""
import inspect
import re
import types

import numpy as np

from .._dtype import python_number
# NumPy dtypes that are real floating (bfloat16's kind is "V"), and half precision of them
from .._mt import is_floating as is_floating_kind, is_reduced  # noqa: F401 (for the ops)
from .._tensor import Tensor


def refuse_half(kernel, tensor):
    """torch's error from a CPU kernel that has no bfloat16 or float16 loop."""
    if tensor.dtype.is_floating_point and tensor.dtype.itemsize == 2:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{tensor.dtype.legacy_name}'")


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


def is_number(value):
    """Whether torch reads value as a Number (a Python or NumPy scalar, bool included)."""
    return isinstance(value, (int, float, complex, np.number, np.bool_))


def overload_error(name, overloads, args, kwargs=()):
    """torch's TypeError for arguments that fit none of torch.<name>'s overloads (each spelled
    as torch lists it); args as given by position, kwargs as (name, value) pairs."""
    got = [type(v).__name__ if not isinstance(v, Tensor) else "Tensor" for v in args]
    got += [f"{key}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}"
            for key, v in kwargs]
    listed = "".join(f" * ({signature})\n" for signature in overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{listed}")


def fill_value(name, leading, args):
    """torch's TypeError where a fill's value (the last of args) is neither a tensor nor a
    number; leading: the parameters before it, as torch's overloads spell them."""
    value = args[-1]
    if isinstance(value, Tensor) or is_number(value):
        return
    def kind(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__
    shown = kind(value)
    if isinstance(value, (list, tuple)):
        shown += f" of [{', '.join(map(kind, value))}]"
    marks = ", ".join([*map(kind, args[:-1]), f"!{shown}!"])
    reason = f"      didn't match because some of the arguments have invalid types: ({marks})\n"
    listed = "".join(f" * ({leading}{overload} value)\n{reason}"
                     for overload in ("Tensor", "Number"))
    raise TypeError(f"{name}() received an invalid combination of arguments - got "
                    f"({', '.join(map(kind, args))}), but expected one of:\n{listed}")


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


# Names of parameters that are never tensors: a list there is no tensor in a tensor's place.
_NOT_TENSOR_PARAMETERS = frozenset(
    "dim dims size shape sizes dtype keepdim out layout device memory_format split_size "
    "split_size_or_sections sections indices_or_sections repeats chunks start_dim end_dim "
    "source_dims destination_dims stride storage_offset correction unbiased p ord "
    "pad reduction mode".split())


# torch's functions written in Python that use a list as a tensor before any check (it fails
# there with Python's AttributeError, as here)
_TORCH_PYTHON_FUNCTIONS = frozenset(
    "broadcast_shapes einsum chain_matmul istft lu norm pca_lowrank split stft svd_lowrank "
    "tensordot unique unique_consecutive unravel_index".split())


# torch.nn.functional's functions that refuse a non-tensor with torch's TypeError (the others
# are Python in torch and fail on it with an AttributeError, as here), by the name torch's
# message gives (the op they reach)
NN_TORCH_NAMES = {name: name for name in (
    "adaptive_avg_pool1d adaptive_max_pool1d avg_pool1d avg_pool2d avg_pool3d batch_norm "
    "bilinear celu conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d "
    "cosine_embedding_loss cosine_similarity elu embedding gelu hardshrink hardsigmoid "
    "hardswish hinge_embedding_loss kl_div layer_norm leaky_relu linear max_pool1d max_pool2d "
    "mish multi_margin_loss multilabel_margin_loss one_hot pad pairwise_distance rrelu "
    "scaled_dot_product_attention selu silu soft_margin_loss softplus softshrink "
    "triplet_margin_loss").split()}
NN_TORCH_NAMES.update(cross_entropy="cross_entropy_loss", logsigmoid="log_sigmoid",
                      nll_loss="nll_loss_nd", unfold="im2col")


# Set by tapegrad.amp, with ops/_define.py's, while some thread has autocast on
autocast_hook = None


def public(function, name, method=False):
    """What tapegrad exports for one of its functions as torch.<name> or Tensor.<name>: a
    Python function wrapped by `diagnosed` (declared ops check their inputs themselves)."""
    if type(function) is not types.FunctionType or name in _TORCH_PYTHON_FUNCTIONS:
        return function
    return diagnosed(function, name, method)


def diagnosed(function, name, method=False):
    """function, raising torch's TypeError ("index_select(): argument 'index' (position 3)
    must be Tensor, not list") where a list, ndarray, number or None in a tensor's place
    makes it fail inside (an AttributeError such as "'list' object has no attribute 'ndim'").
    The diagnosis runs only once the call has failed. method: called as Tensor.<name>, whose
    positions do not count the tensor."""
    def call(*args, **kwargs):
        try:
            if autocast_hook is not None:  # Note [Autocast] in amp/autocast_mode.py
                return autocast_hook(name, args, kwargs, function)
            return function(*args, **kwargs)
        except (AttributeError, TypeError) as error:
            blame(error, name, function, args, kwargs, method)
            raise
    call.__name__, call.__qualname__ = function.__name__, function.__qualname__
    call.__doc__, call.__module__, call.__wrapped__ = (function.__doc__, function.__module__,
                                                       function)
    return call


def _parameter_names(function):
    """The names of function's positional parameters, up to "*" for a *tensors parameter
    (other *args pass their arguments on: their names are not known here)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return ()
    names = []
    for p in parameters:
        if p.kind is p.VAR_POSITIONAL:
            if p.name == "tensors":
                return (*names, "*")
            inner = [c.cell_contents for c in function.__closure__ or ()
                     if type(c.cell_contents) is types.FunctionType]
            # a method made by a decorator, passing (self, *args) on: the function's names
            return _parameter_names(inner[0]) if names == ["self"] and inner else tuple(names)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return tuple(names)


def blame(error, name, function, args, kwargs, method=False):
    """Raise torch's TypeError for the first argument of function(*args, **kwargs) whose type
    the error names, if it stands where a tensor belongs (name: the function's, as torch's)."""
    parameters = _parameter_names(function)
    text = str(error)
    if "(): argument '" in text:
        # torch's words from an op this one calls (sum_all for sum): said for this one
        inner = text.partition("(): argument '")[0]
        if inner == name and method and counts_tensor(error):  # Tensor.<name> does not
            raise in_place_words(error, name, True, name) from None
        if inner == name or " must be Tensor, not " not in text:
            return
        text = f"'{text.rpartition(' must be Tensor, not ')[2].rpartition('.')[2]}'"
    elif _TORCH_WORDS.match(text):  # torch's own error ("new(): invalid data type 'str'")
        return
    n_named = parameters.index("*") if "*" in parameters else len(parameters)
    given = [(p, parameters[p], value) for p, value in enumerate(args[:n_named])]
    if "*" in parameters:
        rest = args[n_named:]
        if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
            rest = rest[0]  # the tensors given as one sequence
        given += [(p, "*", value) for p, value in enumerate(rest)]
    given += [(None, key, value) for key, value in kwargs.items()]
    for position, parameter, value in given[1 if method else 0:]:
        if (isinstance(value, Tensor) or parameter in _NOT_TENSOR_PARAMETERS
                or parameter in _INT_PARAMETERS or f"'{type(value).__name__}'" not in text):
            continue
        if parameter == "*":  # torch.block_diag(x, [1.])
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got "
                            f"{type_name(value)}") from None
        where = "" if position is None else f" (position {position + (not method)})"
        raise TypeError(f"{name}(): argument '{parameter}'{where} must be Tensor, not "
                        f"{type_name(value)}") from None
    if isinstance(error, TypeError) and ("integer" in text or "non-int" in text):
        _blame_int(error, name, given[1 if method else 0:], method)  # Python's words


_TORCH_WORDS = re.compile(r"\w+\(\)(: | received an invalid combination)")


# Parameters torch types as int; Python's own TypeError about a float or str there (it
# "cannot be interpreted as an integer") is torch's "must be int, not float".
_INT_PARAMETERS = frozenset("dim k n chunks start length step dimension dim0 dim1 "
                            "diagonal offset start_dim end_dim source destination".split())


def _blame_int(error, name, given, method):
    for position, parameter, value in given:
        if parameter in _INT_PARAMETERS and isinstance(value, (float, str, np.floating)):
            where = "" if position is None else f" (position {position + (not method)})"
            raise TypeError(f"{name}(): argument '{parameter}'{where} must be int, not "
                            f"{type_name(value)}") from None


def in_place_words(error, name, counts_tensor, said_as=None):
    """The TypeError of Tensor.<name>_ where Tensor.<name> (or an op it calls) raised `error`
    in torch's words:
    torch names the in-place method, and counts positions after the tensor (counts_tensor:
    the text counts the tensor as position 1, as a function's). said_as: the name to use."""
    text = str(error)
    inner, found, rest = text.partition("(): argument '")
    if not found or not inner.isidentifier():  # (true_divide's words for div_ too)
        return error
    text = f"{said_as or name + '_'}(): argument '" + rest
    before, found, after = text.partition(" (position ")
    if found and counts_tensor:
        number, _, rest = after.partition(")")
        text = f"{before}{found}{int(number) - 1}){rest}"
    return TypeError(text)


def counts_tensor(error):
    """Whether error is a declared op's argument error, whose positions count the tensor as
    position 1 (as torch.<name>'s), where Tensor.<name>'s count from the next argument."""
    trace = error.__traceback__
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_code in _COUNTING_TENSOR


_COUNTING_TENSOR = set()  # the code of the checks that count so (Op._arrays, require_tensors)


def counting_tensor(function):
    """Mark function as raising argument errors that count the tensor (see counts_tensor)."""
    _COUNTING_TENSOR.add(function.__code__)
    return function
