"""The API reference's tables: every public name of a namespace, with its signature, the first
line of its docstring and the torch name it mirrors.

docs/api/*.md call `print(table("nn"))` at build time (markdown-exec), next to mkdocstrings'
pages for the documented classes; tools/api_coverage.py counts the names these tables give
against the public names of the package. Ops are `Op` objects bound by ops/__init__.py at
import, which static docstring tools cannot see, so the tables are built by inspection.
"""
import importlib
import inspect
import re

# page -> (object path, the torch name it mirrors)
NAMESPACES = {
    "tapegrad": ("tapegrad", "torch"),
    "tensor": ("tapegrad.Tensor", "torch.Tensor"),
    "nn": ("tapegrad.nn", "torch.nn"),
    "functional": ("tapegrad.nn.functional", "torch.nn.functional"),
    "optim": ("tapegrad.optim", "torch.optim"),
    "autograd": ("tapegrad.autograd", "torch.autograd"),
    "linalg": ("tapegrad.linalg", "torch.linalg"),
    "utils.data": ("tapegrad.utils.data", "torch.utils.data"),
    "utils.checkpoint": ("tapegrad.utils.checkpoint", "torch.utils.checkpoint"),
}


def resolve(path):
    """The object at a dotted path such as "tapegrad.nn.functional" or "tapegrad.Tensor"."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


def public_names(path):
    """{name: object} of the public, non-module attributes at path."""
    namespace = resolve(path)
    names = {}
    for name in sorted(dir(namespace)):
        if name.startswith("_"):
            continue
        value = getattr(namespace, name, None)
        if not inspect.ismodule(value):
            names[name] = value
    return names


def kind(value):
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    if isinstance(value, property):
        return "property"
    return "attribute"


# how a signature reads in the table: annotations unquoted (modules written with
# `from __future__ import annotations` keep them as strings), without module paths, a
# function default by its name, and no `-> None` on a class
_READABLE = ((re.compile(r"(: |-> )'([^']*)'"), r"\1\2"),
             (re.compile(r"\b(?:collections\.abc|typing|tapegrad\._tensor)\."), ""),
             (re.compile(r"<function (\w+) at 0x[0-9a-f]+>"), r"\1"))


def signature(value):
    try:
        text = str(inspect.signature(value))
    except (TypeError, ValueError):
        op_signature = getattr(value, "signature", None)  # an Op keeps torch's signature
        text = str(op_signature) if op_signature else ""
    for pattern, replacement in _READABLE:
        text = pattern.sub(replacement, text)
    return text.removesuffix(" -> None") if inspect.isclass(value) else text


def summary(value):
    """The first line of value's own docstring (not one inherited from a base class or its
    type), else, for an op, the backward node it records."""
    doc = getattr(value, "__doc__", None)
    if isinstance(doc, str) and doc.strip() and (inspect.isclass(value)
                                                 or doc != type(value).__doc__):
        return inspect.cleandoc(doc).splitlines()[0]
    node_class = getattr(value, "node_class", None)  # an Op declared with defop
    if inspect.isclass(node_class):
        return f"An op; backward records `{node_class.__name__}`."
    return ""


def _cell(text):
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def table(page):
    """A Markdown table of the page's namespace: one row, and one anchor, per public name."""
    path, torch_path = NAMESPACES[page]
    names = public_names(path)
    rows = [f"`{path}` mirrors `{torch_path}`: {len(names)} public names; each row's torch "
            f"equivalent is `{torch_path}.<name>`.", "",
            "| name | kind | signature | summary |", "|---|---|---|---|"]
    for name, value in names.items():
        if path == "tapegrad.Tensor":
            value = inspect.getattr_static(resolve(path), name)
        anchor = f'<a id="{path}.{name}"></a>'
        shown = signature(value) if kind(value) in ("function", "class") else ""
        rows.append(f"| {anchor}`{name}` | {kind(value)} | `{_cell(shown)}` | "
                    f"{_cell(summary(value))} |" if shown else
                    f"| {anchor}`{name}` | {kind(value)} | | {_cell(summary(value))} |")
    return "\n".join(rows)
