"""Print "Differences from PyTorch" as Markdown, from the test suite's xfail tables.

The documentation runs this at build time (docs/differences.md, through markdown-exec), so
the page lists exactly the strict xfails the tests hold: when one is fixed and its entry
removed, it leaves the page too. Needs no torch: it reads the tables, not the databases.
"""
import collections
import importlib
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"

TABLES = (
    ("torch_op_db_xfails", "PyTorch's op database (`tests/test_torch_op_db.py`)",
     "OpInfo"),
    ("torch_module_db_xfails", "PyTorch's module database (`tests/test_torch_module_db.py`)",
     "ModuleInfo"),
    ("torch_optim_db_xfails", "PyTorch's optimiser database (`tests/test_torch_optim_db.py`)",
     "OptimizerInfo"),
    ("torch_op_db_complex_xfails",
     "The op database in complex64 and complex128 (`tests/test_torch_op_db_complex.py`)",
     "OpInfo|dtype"),
    ("torch_op_db_variant_xfails",
     "Derived samples: strided layouts and edge values (`tests/test_torch_op_db_variants.py`)",
     "OpInfo|derived sample"),
)


def load_tables():
    """{module name: XFAILS dict} for every table above."""
    sys.path.insert(0, str(TESTS))
    try:
        return {name: importlib.import_module(name).XFAILS for name, _, _ in TABLES}
    finally:
        sys.path.remove(str(TESTS))


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(tables):
    lines = []
    for name, title, what in TABLES:
        xfails = tables[name]
        lines += [f"## {title}", ""]
        if not xfails:
            lines += [f"Every {what.split('|')[0]} passes: nothing is expected to fail.", ""]
            continue
        # entries sharing a reason are one row, so a shared cause reads once
        by_reason = collections.defaultdict(list)
        for key, reason in xfails.items():
            by_reason[reason].append(key)
        lines += [f"Expected failures: {len(xfails)}, with {len(by_reason)} distinct reasons.", "",
                  f"| {_cell(what)} | why |", "|---|---|"]
        for reason, keys in sorted(by_reason.items(), key=lambda item: sorted(item[1])[0]):
            shown = ", ".join(f"`{_cell(key)}`" for key in sorted(keys)[:12])
            if len(keys) > 12:
                shown += f" and {len(keys) - 12} more"
            lines.append(f"| {shown} | {_cell(reason)} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(load_tables()))
