"""dtype objects, the default dtype and torch's type-promotion rules."""
from __future__ import annotations

import builtins
from typing import Any, Collection, Iterable

import numpy as np

# This module's bool, float and int are dtypes: annotations name Python's types through these.
_bool = builtins.bool
_int = builtins.int
_float = builtins.float
_complex = builtins.complex


class dtype:
    __slots__ = ("name", "numpy", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "is_differentiable", "legacy_name")
    name: str
    numpy: np.dtype[Any]
    is_floating_point: _bool
    is_complex: _bool
    is_signed: _bool
    itemsize: _int
    is_differentiable: _bool
    legacy_name: str

    def __init__(self, name: str, numpy_dtype: Any, legacy_name: str,
                 kind: str | None = None) -> None:
        self.name = name
        self.legacy_name = legacy_name  # torch's old type name (Float for FloatTensor)
        self.numpy = np.dtype(numpy_dtype)
        self._set_kind(kind or self.numpy.kind, self.numpy.itemsize)

    def _set_kind(self, kind: str, itemsize: _int) -> None:
        """kind: NumPy's letter, "f" also for extension floats (ml_dtypes' bfloat16 is "V")."""
        self.is_floating_point = kind == "f"
        self.is_complex = kind == "c"
        self.is_signed = kind in "fic"
        self.itemsize = itemsize
        self.is_differentiable = self.is_floating_point or self.is_complex

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def to_real(self) -> dtype:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> dtype:
        return {"float32": complex64, "float64": complex128}.get(self.name, self)


float16 = dtype("float16", np.float16, "Half")
float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
complex64 = dtype("complex64", np.complex64, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, "ComplexDouble")
uint8 = dtype("uint8", np.uint8, "Byte")
uint64 = dtype("uint64", np.uint64, "UInt64")  # only hash_tensor makes one
int8 = dtype("int8", np.int8, "Char")
int16 = dtype("int16", np.int16, "Short")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
bool = dtype("bool", np.bool_, "Bool")


class _BFloat16(dtype):
    """torch.bfloat16 until its NumPy type is first needed. NumPy has no bfloat16; the ml_dtypes
    package adds one, but importing it takes several times as long as the rest of tapegrad.
    Once imported, bfloat16 becomes a plain dtype (see _numpy_bfloat16). Without ml_dtypes the
    dtype still exists (comparisons, reprs, promotion) and making an array of it raises."""
    __slots__ = ()

    def __init__(self) -> None:
        self.name, self.legacy_name = "bfloat16", "BFloat16"
        self._set_kind("f", 2)  # ml_dtypes' bfloat16 has NumPy's kind "V"

    @property
    def numpy(self) -> np.dtype[Any]:  # type: ignore[override]  # read-only until ml_dtypes
        numpy_dtype = _numpy_bfloat16()
        if numpy_dtype is None:
            raise RuntimeError(BFLOAT16_NEEDS_ML_DTYPES)
        return numpy_dtype


BFLOAT16_NEEDS_ML_DTYPES = ("tapegrad.bfloat16 needs the ml_dtypes package (pip install "
                            "ml_dtypes): NumPy has no bfloat16 type of its own")
bfloat16: dtype = _BFloat16()
# "bfloat16": its NumPy dtype, or None without ml_dtypes, once looked for
_ML_DTYPES: dict[str, np.dtype[Any] | None] = {}


def _numpy_bfloat16() -> np.dtype[Any] | None:
    """ml_dtypes' bfloat16 as a NumPy dtype, None if not installed. Found, it is registered in
    _BY_NUMPY and held in bfloat16's own slot: bfloat16 becomes a plain dtype, read as fast as
    the others, and type(torch.bfloat16) is torch.dtype as in torch."""
    if "bfloat16" not in _ML_DTYPES:
        try:
            from ml_dtypes import bfloat16 as numpy_type
        except ImportError:
            _ML_DTYPES["bfloat16"] = None
        else:
            numpy_dtype = _ML_DTYPES["bfloat16"] = np.dtype(numpy_type)
            _BY_NUMPY[numpy_dtype] = bfloat16
            bfloat16.__class__ = dtype  # same layout: _BFloat16 adds no slots
            bfloat16.numpy = numpy_dtype
    return _ML_DTYPES["bfloat16"]


half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128


class _ByNumpy(dict):
    """NumPy dtype -> tapegrad dtype. bfloat16 joins when ml_dtypes is first imported; an array
    of ml_dtypes' bfloat16 made before that (by the user) still finds it."""

    def __missing__(self, numpy_dtype: Any) -> dtype:
        if getattr(numpy_dtype, "name", None) == "bfloat16":
            _numpy_bfloat16()  # registers it if ml_dtypes, which makes such dtypes, is there
            if numpy_dtype in self:
                return dict.__getitem__(self, numpy_dtype)
        raise KeyError(numpy_dtype)

    def values(self) -> Collection[dtype]:  # type: ignore[override]  # a list, or dict's view
        """Every dtype, bfloat16 too before ml_dtypes is imported (Tensor.type finds names here:
        x.type('torch.FloatTensor') need not import it)."""
        dtypes = super().values()
        return dtypes if bfloat16 in dtypes else [*dtypes, bfloat16]


_BY_NUMPY = _ByNumpy({d.numpy: d for d in (float16, float32, float64, complex64, complex128,
                                           uint8, int8, int16, int32, int64, bool, uint64)})


def from_numpy_dtype(numpy_dtype: Any) -> dtype:
    """The tapegrad dtype of a NumPy dtype; TypeError for ones torch has no counterpart of."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(numpy_dtype).name}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint8, and bool.") from None


_default = float32


def get_default_dtype() -> dtype:
    return _default


def set_default_dtype(d: dtype) -> None:
    global _default
    if d not in (float16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def _category(d: dtype) -> _int:
    return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is bool else 1


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both can be cast to, by torch's lattice."""
    if type1 is type2:
        return type1
    if uint64 in (type1, type2) and not (type1.is_floating_point or type2.is_floating_point):
        first, second = (type1, type2) if type1 is uint64 else (type2, type1)
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {first.legacy_name} and {second.legacy_name}")
    category1, category2 = _category(type1), _category(type2)
    if category1 != category2:
        # Unlike NumPy, a float beats any integer whatever its width (int64 + float16 -> float16).
        higher, lower = (type1, type2) if category1 > category2 else (type2, type1)
        widened = lower.to_complex() if higher.is_complex else lower
        # half floats have no complex type here (torch's complex32): any complex holds them
        if widened.is_complex:
            return promote_types(higher, widened)
        return higher
    if bfloat16 in (type1, type2) and category1 == 2:
        # neither half type holds the other: bfloat16 with float16 is float32, as in torch
        other = type2 if type1 is bfloat16 else type1
        return float32 if other is float16 else other
    return from_numpy_dtype(np.promote_types(type1.numpy, type2.numpy))


def scalar_dtype(value: object) -> dtype:
    """The dtype a number takes in type promotion, as torch reads it: Python bools are bool,
    Python and NumPy ints int64, Python complex numbers complex; anything else (np.float32,
    np.bool_ and np.complex64 too) a float of the default dtype."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, (builtins.int, np.integer)):
        return int64
    if isinstance(value, builtins.complex):
        return _default.to_complex()
    return _default


def python_number(value: Any) -> _int | _float | _complex:
    """A NumPy scalar as the Python number torch reads it as (see scalar_dtype): NumPy 2's
    scalars keep their own dtype in arithmetic, which would widen a float32 result."""
    if isinstance(value, np.integer):
        return builtins.int(value)
    if isinstance(value, builtins.complex):
        return builtins.complex(value)
    return builtins.float(value)


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # Mirrors torch's combine_categories: a lower-priority group only counts when it adds a
    # higher category (a float 0-d tensor makes an int tensor float; an int64 one does not
    # widen int32).
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex and higher.is_floating_point:
        # float32 tensor + 1j is complex64, whatever the default (half floats: no complex32)
        widened = higher.to_complex()
        return widened if widened.is_complex else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point or lower.is_complex:
        return promote_types(higher, lower)
    return higher


def result_type(dim_tensors: Iterable[dtype], zero_dim_tensors: Iterable[dtype],
                scalars: Iterable[object]) -> dtype | None:
    """torch.result_type over three priority groups: tensors with dims, 0-d tensors, numbers
    (None when all three are empty)."""
    groups: list[dtype | None] = []
    for dtypes in (dim_tensors, zero_dim_tensors):
        result = None
        for d in dtypes:
            result = d if result is None else promote_types(result, d)
        groups.append(result)
    wrapped: dtype | None = None
    for value in scalars:
        d = scalar_dtype(value)
        wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(groups[0], _combine(groups[1], wrapped))
