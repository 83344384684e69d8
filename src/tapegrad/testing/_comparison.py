"""assert_close and assert_allclose: torch.testing's comparisons, with its tolerances and texts.

The inputs are walked first (sequences item by item, mappings key by key) and every leaf is
paired with a check: None with None, bools with bools, Python or NumPy numbers with numbers,
tensor-likes of related types as tensors. Errors in that walk (lengths, keys, types,
tolerances) are raised at once; then every check runs and the first failure is raised, its
text replaced or rewritten by `msg`, as torch does.
"""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import Tensor, _dtype, as_tensor, isclose, no_grad, strided, tensor
from .._sparse import SparseTensor

# {dtype: (rtol, atol)}; any other dtype (bool, integers) is compared exactly
_PRECISIONS = {
    _dtype.float16: (1e-3, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}
# the dtype a Python number is compared as, for its default tolerances
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}
_BOOLS = (bool, np.bool_)
_NUMBERS = (int, float, complex, np.number)


class _Failure(Exception):
    """A failed check: the exception type torch raises, its text, and the item it was found at
    (the keys and indices leading to it in nested inputs)."""

    def __init__(self, kind: type[Exception], text: str, item: tuple[Any, ...] = ()) -> None:
        super().__init__(text)
        self.kind, self.text, self.item = kind, text, item

    def error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text
        if self.item:
            text += "\n\nThe failure occurred for item " + "".join(str([key]) for key in self.item)
        return self.kind(msg(text) if callable(msg) else text)


@dataclass(frozen=True)
class _Options:
    allow_subclasses: bool
    rtol: float | None
    atol: float | None
    equal_nan: bool
    check_device: bool
    check_dtype: bool
    check_layout: bool
    check_stride: bool


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg: str | Callable[[str], str] | None = None) -> None:
    """Raise AssertionError unless actual and expected are close: |actual - expected| <= atol +
    rtol * |expected| elementwise, with equal shapes (and devices, dtypes, layouts, strides as
    asked), through nested sequences and mappings."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    options = _Options(allow_subclasses, rtol, atol, equal_nan, check_device, check_dtype,
                       check_layout, check_stride)
    checks: list[Callable[[], None]] = []
    try:
        _collect(actual, expected, (), options, checks)
    except _Failure as failure:
        raise failure.error() from None
    failures = []
    for check in checks:
        try:
            check()
        except _Failure as failure:
            failures.append(failure)
    if failures:
        raise failures[0].error(msg)


_ALLCLOSE_DEPRECATION = (
    "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
    "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
    "instructions in https://github.com/pytorch/pytorch/issues/61844.")
# assert_allclose's own, looser defaults
_ALLCLOSE_PRECISIONS = {_dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5),
                        _dtype.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated comparison (warns FutureWarning): expected takes actual's dtype, NaNs are
    equal, and the default tolerances are looser than assert_close's."""
    __tracebackhide__ = True
    warnings.warn(_ALLCLOSE_DEPRECATION, FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances((actual.dtype, expected.dtype), None, None, (),
                                 _ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


def _tolerances(dtypes: tuple[_dtype.dtype, ...], rtol: float | None, atol: float | None,
                item: tuple[Any, ...], precisions: dict[_dtype.dtype, tuple[float, float]]
                = _PRECISIONS) -> tuple[float, float]:
    """The tolerances given, or the loosest defaults of the dtypes; one alone is refused, as it
    would leave the other at a default that may hide a mismatch."""
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {missing}.", item)
    if rtol is not None and atol is not None:
        return rtol, atol
    defaults = [precisions.get(dtype, (0.0, 0.0)) for dtype in dtypes]
    return max(rtol for rtol, _ in defaults), max(atol for _, atol in defaults)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _collect(actual: Any, expected: Any, item: tuple[Any, ...], options: _Options,
             checks: list[Callable[[], None]]) -> None:
    """Append to checks one check per pair of leaves, walking nested sequences and mappings."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}", item)
        for index in range(len(actual)):
            _collect(actual[index], expected[index], (*item, index), options, checks)
    elif (isinstance(actual, collections.abc.Mapping)
          and isinstance(expected, collections.abc.Mapping)):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: "
                           f"{sorted(expected_keys - actual_keys)}\n"
                           f"Additional keys in the actual mapping: "
                           f"{sorted(actual_keys - expected_keys)}", item)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):  # sorted when the keys allow it: deterministic
            keys = sorted(keys)
        for key in keys:
            _collect(actual[key], expected[key], (*item, key), options, checks)
    else:
        checks.append(_check_for(actual, expected, item, options))


def _check_for(actual: Any, expected: Any, item: tuple[Any, ...],
               options: _Options) -> Callable[[], None]:
    if actual is None or expected is None:
        return lambda: _compare_nones(actual, expected, item)
    if isinstance(actual, _BOOLS) and isinstance(expected, _BOOLS):
        return lambda: _compare_bools(bool(actual), bool(expected), item)
    if isinstance(actual, _NUMBERS) and isinstance(expected, _NUMBERS):
        return _number_check(actual, expected, item, options)
    tensors = _as_tensors(actual, expected, options.allow_subclasses)
    if tensors is None:
        raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                                  f"{_public_type(actual)} and {_public_type(expected)}.", item)
    return _tensor_check(*tensors, item, options)


def _compare_nones(actual: Any, expected: Any, item: tuple[Any, ...]) -> None:
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", item)


def _compare_bools(actual: bool, expected: bool, item: tuple[Any, ...]) -> None:
    if actual is not expected:
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", item)


def _number_check(actual: Any, expected: Any, item: tuple[Any, ...],
                  options: _Options) -> Callable[[], None]:
    actual, expected = (value.item() if isinstance(value, np.number) else value
                        for value in (actual, expected))
    if type(actual) not in _NUMBER_DTYPES or type(expected) not in _NUMBER_DTYPES:
        # torch fails here too (a RuntimeError): a bool is paired with a number
        raise RuntimeError(f"Cannot compare {type(actual).__name__}() {actual!r} with "
                           f"{type(expected).__name__}() {expected!r}: numbers are compared "
                           "with int, float or complex numbers, and bools with bools")
    rtol, atol = _tolerances((_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]),
                             options.rtol, options.atol, item)

    def check() -> None:
        if options.check_dtype and type(actual) is not type(expected):
            raise _Failure(AssertionError, "The (d)types do not match: "
                                           f"{type(actual)} != {type(expected)}.", item)
        if actual == expected:
            return
        if options.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        difference = abs(actual - expected)
        if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_mismatch(actual, expected, rtol, atol), item)
    return check


def _public_type(value: Any) -> type:
    """The class torch would see: tapegrad keeps sparse tensors in a subclass of Tensor."""
    return Tensor if isinstance(value, SparseTensor) else type(value)


def _as_tensors(actual: Any, expected: Any, allow_subclasses: bool) -> tuple[Tensor, Tensor] | None:
    """Both as tensors, or None when their types are unrelated (one not an instance of the
    other's), differ while subclasses are not allowed, or as_tensor refuses one."""
    actual_type, expected_type = _public_type(actual), _public_type(expected)
    if not (issubclass(actual_type, expected_type) or issubclass(expected_type, actual_type)):
        return None
    if not allow_subclasses and actual_type is not expected_type:
        return None
    try:
        return (actual if isinstance(actual, Tensor) else as_tensor(actual),
                expected if isinstance(expected, Tensor) else as_tensor(expected))
    except Exception:
        return None


def _tensor_check(actual: Tensor, expected: Tensor, item: tuple[Any, ...],
                  options: _Options) -> Callable[[], None]:
    rtol, atol = _tolerances((actual.dtype, expected.dtype), options.rtol, options.atol, item)

    def check() -> None:
        _compare_attributes(actual, expected, options, item)
        with no_grad():
            _compare_values(*_equalized(actual.detach(), expected.detach()), rtol, atol,
                            options.equal_nan, item)
    return check


def _compare_attributes(actual: Tensor, expected: Tensor, options: _Options,
                        item: tuple[Any, ...]) -> None:
    def mismatch(name: str, actual_value: Any, expected_value: Any) -> _Failure:
        return _Failure(AssertionError, f"The values for attribute '{name}' do not match: "
                                        f"{actual_value} != {expected_value}.", item)

    if actual.shape != expected.shape:
        raise mismatch("shape", actual.shape, expected.shape)
    if actual.layout != expected.layout:
        if options.check_layout:
            raise mismatch("layout", actual.layout, expected.layout)
    elif actual.layout == strided and options.check_stride and actual.stride() != expected.stride():
        raise mismatch("stride()", actual.stride(), expected.stride())
    if options.check_device and actual.device != expected.device:
        raise mismatch("device", actual.device, expected.device)
    if options.check_dtype and actual.dtype != expected.dtype:
        raise mismatch("dtype", actual.dtype, expected.dtype)


def _equalized(actual: Tensor, expected: Tensor) -> tuple[Tensor, Tensor]:
    """Both on one device (the CPU when they differ) and in one layout (strided when they
    differ); their dtypes are made one where the values are compared."""
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.layout != expected.layout:
        actual, expected = (value.to_dense() if isinstance(value, SparseTensor) else value
                            for value in (actual, expected))
    return actual, expected


def _compare_values(actual: Tensor, expected: Tensor, rtol: float, atol: float, equal_nan: bool,
                    item: tuple[Any, ...]) -> None:
    if not (isinstance(actual, SparseTensor) and isinstance(expected, SparseTensor)):
        _compare_close(actual, expected, rtol, atol, equal_nan, None, item)
        return
    # sparse COO: the structure must be equal, the values close
    for what, actual_count, expected_count in (
            ("The number of sparse dimensions in sparse COO tensors",
             actual.sparse_dim(), expected.sparse_dim()),
            ("The number of specified values in sparse COO tensors",
             actual._nnz(), expected._nnz())):
        if actual_count != expected_count:
            raise _Failure(AssertionError, f"{what} does not match: "
                                           f"{actual_count} != {expected_count}", item)
    _compare_close(actual._indices(), expected._indices(), 0, 0, False, "Sparse COO indices",
                   item)
    _compare_close(actual._values(), expected._values(), rtol, atol, equal_nan,
                   "Sparse COO values", item)


def _promoted(actual: Tensor, expected: Tensor) -> tuple[Tensor, Tensor]:
    """Both in their promoted dtype; unsigned 64-bit integers count as int64 here, which
    promote_types refuses to mix (big values wrap, which tests are unlikely to meet)."""
    if actual.dtype == expected.dtype:
        return actual, expected
    dtypes = [_dtype.int64 if value.dtype == _dtype.uint64 else value.dtype
              for value in (actual, expected)]
    common = _dtype.promote_types(*dtypes)
    return actual.to(common), expected.to(common)


def _compare_close(actual: Tensor, expected: Tensor, rtol: float, atol: float, equal_nan: bool,
                   identifier: str | None, item: tuple[Any, ...]) -> None:
    """Fail unless close; the text names the values identifier, or by default "Scalars" for
    0-d tensors and "Tensor-likes" for the others."""
    actual, expected = _promoted(actual, expected)
    matches = isclose(actual, expected, rtol, atol, equal_nan)  # (of one dtype now)
    if bool(matches.all()):
        return
    if actual.ndim == 0:
        text = _scalar_mismatch(actual.item(), expected.item(), rtol, atol,
                                identifier or "Scalars")
    else:
        text = _tensor_mismatch(actual, expected, matches, rtol, atol,
                                identifier or "Tensor-likes")
    raise _Failure(AssertionError, text, item)


def _inexact(value: Tensor) -> bool:
    return value.dtype.is_floating_point or value.dtype.is_complex


def _tensor_mismatch(actual: Tensor, expected: Tensor, matches: Tensor, rtol: float, atol: float,
                     identifier: str) -> str:
    total = matches.numel()
    mismatched = total - int(matches.sum())
    counts = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    shape = matches.shape
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not _inexact(actual):  # differences of bools and unsigned integers need signed ones
        actual, expected = actual.to(_dtype.int64), expected.to(_dtype.int64)
    # the greatest differences among the mismatched elements only
    absolute = (actual - expected).abs().masked_fill(matches, 0)
    relative = (absolute / expected.abs()).masked_fill(matches, 0)
    greatest = []
    for difference in (absolute, relative):
        value, flat_index = difference.max(0)
        index = tuple(int(i) for i in np.unravel_index(int(flat_index), tuple(shape)))
        greatest.append((value.item(), index))
    (abs_diff, abs_index), (rel_diff, rel_index) = greatest
    return _mismatch_text(identifier, counts, abs_diff, abs_index, atol, rel_diff, rel_index, rtol)


def _scalar_mismatch(actual: Any, expected: Any, rtol: float, atol: float,
                     identifier: str = "Scalars") -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text(identifier, f"Expected {expected} but got {actual}.", abs_diff, None,
                          atol, rel_diff, None, rtol)


def _mismatch_text(identifier: str, extra: str, abs_diff: Any, abs_index: tuple[int, ...] | None,
                   atol: float, rel_diff: Any, rel_index: tuple[int, ...] | None,
                   rtol: float) -> str:
    exact = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if exact else 'close'}!", "", extra]
    for kind, difference, index, tolerance in (("absolute", abs_diff, abs_index, atol),
                                               ("relative", rel_diff, rel_index, rtol)):
        line = (f"{kind.title()} difference: {difference}" if index is None
                else f"Greatest {kind} difference: {difference} at index {index}")
        lines.append(line if exact else f"{line} (up to {tolerance} allowed)")
    return "\n".join(lines)
