"""dtype objects, the default dtype and torch's type-promotion rules."""
import builtins

import numpy as np


class dtype:
    __slots__ = ("name", "numpy", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "is_differentiable", "legacy_name")

    def __init__(self, name, numpy_dtype, legacy_name):
        self.name = name
        self.legacy_name = legacy_name  # torch's old type name (Float for FloatTensor)
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_complex = self.numpy.kind == "c"
        self.is_signed = self.numpy.kind in "fic"
        self.itemsize = self.numpy.itemsize
        self.is_differentiable = self.is_floating_point or self.is_complex

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name

    def to_real(self):
        return self

    def to_complex(self):
        return {"float32": complex64, "float64": complex128}.get(self.name, self)


float16 = dtype("float16", np.float16, "Half")
float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
complex64 = dtype("complex64", np.complex64, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, "ComplexDouble")
uint8 = dtype("uint8", np.uint8, "Byte")
int8 = dtype("int8", np.int8, "Char")
int16 = dtype("int16", np.int16, "Short")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
bool = dtype("bool", np.bool_, "Bool")

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

_BY_NUMPY = {d.numpy: d for d in (float16, float32, float64, complex64, complex128,
                                  uint8, int8, int16, int32, int64, bool)}


def from_numpy_dtype(numpy_dtype):
    """The tapegrad dtype of a NumPy dtype; TypeError for ones torch has no counterpart of."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype).name}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint8, and bool.") from None


_default = float32


def get_default_dtype():
    return _default


def set_default_dtype(d):
    global _default
    if d not in (float16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def _category(d):
    return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is bool else 1


def promote_types(type1, type2):
    """torch.promote_types: the smallest dtype both can be cast to, by torch's lattice."""
    if type1 is type2:
        return type1
    category1, category2 = _category(type1), _category(type2)
    if category1 != category2:
        # Unlike NumPy, a float beats any integer whatever its width (int64 + float16 -> float16).
        higher, lower = (type1, type2) if category1 > category2 else (type2, type1)
        if higher.is_complex and lower.is_floating_point:
            return promote_types(higher, lower.to_complex())
        return higher
    return from_numpy_dtype(np.promote_types(type1.numpy, type2.numpy))


def scalar_dtype(value):
    """The dtype a Python number takes as a tensor of its own (torch.tensor(value))."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.complex):
        return _default.to_complex()
    return _default


def _combine(higher, lower):
    # Mirrors torch's combine_categories: a lower-priority group only counts when it adds a
    # higher category (a float 0-d tensor makes an int tensor float; an int64 one does not
    # widen int32).
    if higher is None:
        return lower
    if lower is None or higher.is_complex or higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point or lower.is_complex:
        return promote_types(higher, lower)
    return higher


def result_type(dim_tensors, zero_dim_tensors, scalars):
    """torch.result_type over three priority groups: tensors with dims, 0-d tensors, numbers."""
    groups = []
    for dtypes in (dim_tensors, zero_dim_tensors):
        result = None
        for d in dtypes:
            result = d if result is None else promote_types(result, d)
        groups.append(result)
    wrapped = None
    for value in scalars:
        d = scalar_dtype(value)
        wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(groups[0], _combine(groups[1], wrapped))
