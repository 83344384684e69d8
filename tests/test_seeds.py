"""The seed tutorials must run unchanged on tapegrad and print what PyTorch 2.13 prints.

tests/seeds/DOC_NN.py is code block NN of the tutorial /work/shared/seeds/DOC_*.txt,
copied verbatim; only the indentation that the text export lost is restored.
tests/seeds/DOC_NN.expected.txt is what torch 2.13 printed for that block.
Regenerate the goldens with real torch installed:

    python tests/test_seeds.py --regen

Blocks run the way the tutorials (notebook dumps) ran them:
* the blocks of one document are cells of one notebook: they run in order in one
  shared namespace, because later blocks use names made by earlier ones;
* a cell ending in a bare expression prints its repr unless it is None, as a notebook
  shows it (004_18 is just `x6`; 000_06 ends with `x1.grad.data.zero_()`);
* an exception ends its cell and is printed as "Type: message", and the next cells
  still run; 004_17 fails on purpose (x6.grad is None before backward);
* warnings are printed where they first happen in a cell, as "Category: first line of
  message", once per cell however often they fire (torch warns some things only once
  per process, so lib.set_warn_always(True) is on while cells run);
* `import torch` in a cell imports the library under test;
* each cell starts with lib.manual_seed(SEED), so that its random numbers do not depend
  on what ran before; tapegrad draws torch's streams, so they print the same numbers.
Object addresses ("object at 0x...") are masked before comparing.
"""
import ast
import builtins
import contextlib
import difflib
import functools
import io
import re
import sys
import traceback
import warnings
from pathlib import Path

import pytest

SEEDS = Path(__file__).with_name("seeds")
SNIPPETS = sorted(path.stem for path in SEEDS.glob("*.py"))
# Cells the tutorials show failing; anywhere else an exception under torch is a harness bug.
EXPECTED_ERRORS = {"004_17"}
SEED = 0
_ADDRESS = re.compile(r"object at 0x[0-9a-fA-F]+")


@contextlib.contextmanager
def _deterministic(lib):
    """Seed lib's generator, and make warnings independent of what ran earlier in the
    process."""
    with contextlib.ExitStack() as stack:
        lib.manual_seed(SEED)
        if hasattr(lib, "set_warn_always"):
            # torch warns some things once per process; force them so test order is irrelevant.
            stack.callback(lib.set_warn_always, lib.is_warn_always_enabled())
            lib.set_warn_always(True)
        yield


def _builtins_importing(lib):
    """Builtins whose __import__ maps `torch` (and torch.*) to lib."""
    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            name = lib.__name__ + name[len("torch"):]
        return builtins.__import__(name, globals, locals, fromlist, level)
    return {**vars(builtins), "__import__": _import}


def _run_cell(path, namespace, lib):
    """Run one snippet; return (printed text, traceback text or None)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out, error, warned = io.StringIO(), None, set()

    def show_warning(message, category, *args, **kwargs):
        line = f"{category.__name__}: {str(message).splitlines()[0]}\n"
        if line not in warned:  # each distinct warning once per cell, however often it fired
            warned.add(line)
            out.write(line)

    with contextlib.redirect_stdout(out), warnings.catch_warnings(), _deterministic(lib):
        warnings.simplefilter("always")  # a warning seen earlier in the process still counts
        warnings.showwarning = show_warning
        try:
            # dont_inherit: this module's __future__ flags must not leak into the snippet.
            exec(compile(tree, str(path), "exec", dont_inherit=True), namespace)
            if last is not None:
                expr = compile(ast.Expression(last.value), str(path), "eval", dont_inherit=True)
                value = eval(expr, namespace)
                if value is not None:
                    print(repr(value))
        except Exception as exc:
            print(f"{type(exc).__name__}: {exc}")
            error = traceback.format_exc()
    return _ADDRESS.sub("object at 0xADDR", out.getvalue()), error


@functools.cache
def run_document(doc, lib):
    """Run every cell of document `doc` under lib: {snippet name: (output, traceback)}."""
    namespace = {"__name__": "__main__", "__builtins__": _builtins_importing(lib)}
    return {path.stem: _run_cell(path, namespace, lib)
            for path in sorted(SEEDS.glob(f"{doc}_*.py"))}


def run_snippet(name, lib):
    return run_document(name.split("_")[0], lib)[name]


def _golden(name):
    return SEEDS / f"{name}.expected.txt"


def _assert_matches_golden(name, lib):
    output, error = run_snippet(name, lib)
    expected = _golden(name).read_text(encoding="utf-8")
    if output != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), output.splitlines(keepends=True),
            "expected (torch 2.13)", f"actual ({lib.__name__})"))
        pytest.fail(f"{name}.py prints differently:\n{diff}" + (f"\n{error}" if error else ""),
                    pytrace=False)


@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_prints_like_torch(name):
    import tapegrad  # the product itself: failing to import must fail, not skip
    _assert_matches_golden(name, tapegrad)


@pytest.mark.parametrize("name", SNIPPETS)
def test_golden_is_what_torch_prints(name):
    torch = pytest.importorskip("torch")
    _assert_matches_golden(name, torch)
    _, error = run_snippet(name, torch)
    assert (error is not None) == (name in EXPECTED_ERRORS), error


def regenerate():
    import torch
    for name in SNIPPETS:
        output, error = run_snippet(name, torch)
        if error and name not in EXPECTED_ERRORS:
            sys.exit(f"{name}.py raised under torch {torch.__version__}:\n{error}")
        _golden(name).write_text(output, encoding="utf-8")
    print(f"wrote {len(SNIPPETS)} goldens with torch {torch.__version__}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit(f"usage: python {sys.argv[0]} --regen")
    regenerate()
