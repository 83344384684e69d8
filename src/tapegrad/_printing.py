"""Tensor repr that matches torch 2.13 character for character.

The layout rules follow ``torch/_tensor_str.py``: one formatter (shared width,
integer/fixed/scientific mode) is derived from the elements that will actually
be displayed, then the nested brackets are laid out with torch's indentation,
line wrapping and ``...`` summarisation, and finally the suffixes
(``size=``, ``dtype=``, autograd tails) are appended with torch's wrapping rule.

Only numpy and the standard library are used so the module can be imported on
its own.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

_DEFAULTS: dict[str, Any] = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

# Module-level print options, same keys and key order as torch.get_printoptions().
_OPTS = dict(_DEFAULTS, sci_mode=None)


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Change the print options; same semantics as ``torch.set_printoptions``."""
    if profile in _PROFILES:  # torch silently ignores unknown profile names
        _OPTS.update(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold,
             "edgeitems": edgeitems, "linewidth": linewidth}
    _OPTS.update({key: value for key, value in given.items() if value is not None})
    # torch assigns sci_mode unconditionally, so omitting it resets it to automatic.
    _OPTS["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current print options as a dict accepted by set_printoptions()."""
    return dict(_OPTS)


def format_tensor(data: np.ndarray, dtype_name: str, default_dtype_name: str,
                  tail: tuple[str, ...] = (), prefix: str = "tensor(",
                  device: object = None) -> str:
    """Return torch's repr of a tensor holding ``data`` with dtype ``torch.<dtype_name>``.

    ``tail`` holds preformatted suffixes such as ``grad_fn=<MulBackward0>``;
    ``prefix`` sets the opening text, whose length drives continuation indents;
    ``device``, when not None, is named first among the suffixes, as torch does off the cpu.
    """
    arr = np.asarray(data)
    indent = len(prefix)
    suffixes = [] if device is None else [f"device='{device}'"]
    if arr.size == 0:
        # Shape (0,) is implied by "[]"; any other empty shape must be spelled out.
        if arr.ndim != 1:
            suffixes.append(f"size={_shape_str(arr.shape)}")
        # No element can hint that the dtype is integral, so only the default
        # float dtype goes unnamed here (int64 and bool are named, unlike below).
        if dtype_name != default_dtype_name:
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = "[]"
    else:
        if not _OPTS["edgeitems"]:
            suffixes.append(f"size={_shape_str(arr.shape)}")
        if dtype_name not in (default_dtype_name, _COMPLEX_OF[default_dtype_name], "int64",
                              "bool"):
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = _tensor_body(arr, _is_float(dtype_name), indent)
    return _add_suffixes(prefix + body, suffixes + list(tail), indent)


# torch names the default complex dtype no more than the default float one
_COMPLEX_OF = {"float64": "complex128", "float32": "complex64", "float16": "complex32"}


def _is_float(dtype_name):
    return "float" in dtype_name


def _shape_str(shape):
    return str(tuple(int(size) for size in shape))


def _tensor_body(arr, is_float, indent):
    """Bracketed element text for a non-empty array (the part after the prefix)."""
    edge = _OPTS["edgeitems"]
    summarize = arr.size > _OPTS["threshold"]
    if summarize and not edge and arr.ndim > 0:
        return "[...]"
    # A dimension is cut when summarising and it is longer than both edges.
    cut = [summarize and size > 2 * edge for size in arr.shape]
    shown = arr
    for axis, is_cut in enumerate(cut):
        if is_cut:
            size = arr.shape[axis]
            keep = np.r_[0:edge, size - edge:size]
            shown = np.take(shown, keep, axis=axis)
    if shown.dtype.kind == "c":
        strings, width = _complex_strings(shown.ravel())
    elif is_float:
        strings, width = _float_strings(shown.ravel().astype(np.float64))
    else:
        strings, width = _plain_strings(shown.ravel())
    if arr.ndim == 0:
        return strings[0]
    return _layout(strings, shown.shape, cut, indent, width)


def _plain_strings(values):
    """Right-aligned str() of integer or bool values, plus their common width."""
    raw = [str(value) for value in values.tolist()]
    width = max(1, max(len(text) for text in raw))
    return [text.rjust(width) for text in raw], width


def _float_mode(values):
    """Pick int_mode and sci_mode from the finite non-zero values, as torch does.

    Also returns the mask of those values, the only ones that set the width.
    """
    measured = np.isfinite(values) & (values != 0)
    if not measured.any():
        # Nothing to measure: plain integer style, even if sci_mode is forced.
        return True, False, measured
    finite = values[measured]
    int_mode = bool((np.ceil(finite) == finite).all())
    magnitudes = np.abs(finite)
    largest, smallest = float(magnitudes.max()), float(magnitudes.min())
    sci_mode = _OPTS["sci_mode"]
    if sci_mode is None:
        sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    return int_mode, sci_mode, measured


def _float_strings(values):
    """Right-aligned text of float64 values, plus the width torch would compute.

    The width only counts finite non-zero values, so nan, inf or -0. may end up
    wider than their neighbours; torch leaves them unpadded and so do we.
    """
    int_mode, sci_mode, measured = _float_mode(values)
    precision = _OPTS["precision"]
    if sci_mode:
        spec = f".{precision}e"
    elif int_mode:
        spec = ".0f"
    else:
        spec = f".{precision}f"
    raw = [format(value, spec) for value in values.tolist()]
    if int_mode and not sci_mode:
        # The trailing dot marks a float tensor whose values are all integral;
        # nan, inf and -inf (ending in 'n' or 'f') are left as they are.
        raw = [text if text[-1] in "nf" else text + "." for text in raw]
    width = max([1] + [len(raw[i]) for i in np.flatnonzero(measured)])
    return [text.rjust(width) for text in raw], width


def _complex_strings(values):
    """torch's complex text: the real parts and the imaginary parts each formatted as a float
    tensor of their own; the imaginary text loses its padding and gets a sign and a j."""
    reals, real_width = _float_strings(values.real.astype(np.float64))
    imags, imag_width = _float_strings(values.imag.astype(np.float64))
    strings = []
    for real, imag in zip(reals, imags):
        imag = imag.lstrip()
        strings.append(real + ("" if imag[0] == "-" else "+") + imag + "j")
    # an element costs both widths and the j (torch's element_length)
    return strings, real_width + imag_width + 1


def _layout(strings, shape, cut, indent, width):
    """Nest the flat list of element strings into torch's bracket layout."""
    edge = _OPTS["edgeitems"]
    if len(shape) == 1:
        items = list(strings)
        if cut[0]:
            items[edge:edge] = [" ..."]
        # Each element costs its width plus ", "; wrap within the line width.
        per_line = max(1, math.floor((_OPTS["linewidth"] - indent) / (width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    step = len(strings) // shape[0]
    blocks = [_layout(strings[i * step:(i + 1) * step], shape[1:], cut[1:], indent + 1, width)
              for i in range(shape[0])]
    if cut[0]:
        blocks[edge:edge] = ["..."]
    # Sub-blocks are separated by dim-1 newlines, i.e. blank lines from 3-D up.
    separator = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _add_suffixes(text, suffixes, indent):
    """Append ", suffix" items, moving one to a new line when it would overflow.

    torch measures the last line as two characters longer than it is until the
    first wrap (its own off-by-two); that is reproduced so wrapping matches.
    """
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _OPTS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
