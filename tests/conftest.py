import sys


def pytest_terminal_summary(terminalreporter):
    """The op-database counts (tests/test_torch_op_db.py), when that module ran."""
    module = sys.modules.get("test_torch_op_db")
    if module is None or not module.COUNTS:
        return
    terminalreporter.section("torch op database (OpInfos per dtype)")
    for dtype_name in ("float64", "float32"):
        counts = {kind: n for (dtype, kind), n in module.COUNTS.items() if dtype == dtype_name}
        total = sum(counts.values())
        line = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        terminalreporter.write_line(
            f"{dtype_name}: {counts.get('pass', 0)}/{total} pass "
            f"({100 * counts.get('pass', 0) / max(total, 1):.1f}%); {line}")
