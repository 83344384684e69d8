import collections
import os
import sys

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the fuzz tests skip themselves without hypothesis
    settings = None

if settings is not None:
    # "ci" (the default) is derandomized with a fixed budget that fits CI's time; "long" is for
    # local bug hunts: HYPOTHESIS_PROFILE=long python -m pytest tests/test_fuzz*.py
    _relaxed = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None,
                              database=None, suppress_health_check=_relaxed, print_blob=True)
    settings.register_profile("long", max_examples=2000, deadline=None,
                              suppress_health_check=_relaxed, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure():
    """Note [Formulas on arrays] (ops/_define.py): throughout the suite, every derivative
    formula that runs on arrays also runs on Tensors, and the two results must agree."""
    from tapegrad.ops import _define
    _define.CHECK_ARRAYS = True


def pytest_terminal_summary(terminalreporter):
    _write_torch_skips(terminalreporter)
    _write_database_counts(terminalreporter)


def _write_torch_skips(terminalreporter):
    """One line: how many tests skipped their comparison with torch, and why, since without
    torch about half of the suite skips and the plain skip count does not say so."""
    reasons = collections.Counter()
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if "'torch'" in reason or "torch." in reason:
            reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        why = "; ".join(f"{n} x {reason}" for reason, n in reasons.most_common(3))
        more = f"; {len(reasons) - 3} other reasons" if len(reasons) > 3 else ""
        terminalreporter.write_line(
            f"torch comparisons skipped: {sum(reasons.values())} ({why}{more}); install the "
            "oracle to run them: pip install torch==2.13.0")


def _write_database_counts(terminalreporter):
    """The counts of torch's op, module and optimiser databases (tests/test_torch_op_db.py,
    test_torch_op_db_complex.py, test_torch_module_db.py, test_torch_optim_db.py), for the
    modules that ran."""
    for module_name, title in (
            ("test_torch_op_db", "torch op database (OpInfos per dtype)"),
            ("test_torch_op_db_complex", "torch op database in complex dtypes (OpInfos per "
                                         "dtype)"),
            ("test_torch_module_db", "torch module database (ModuleInfos per dtype)"),
            ("test_torch_optim_db", "torch optimiser database (OptimizerInfos per dtype)")):
        module = sys.modules.get(module_name)
        if module is not None and module.COUNTS:
            terminalreporter.section(title)
            _write_counts(terminalreporter, module.COUNTS)


def _write_counts(terminalreporter, counts_by_dtype):
    for dtype_name in dict.fromkeys(dtype for dtype, _ in sorted(counts_by_dtype, reverse=True)):
        counts = {kind: n for (dtype, kind), n in counts_by_dtype.items() if dtype == dtype_name}
        total = sum(counts.values())
        line = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        terminalreporter.write_line(
            f"{dtype_name}: {counts.get('pass', 0)}/{total} pass "
            f"({100 * counts.get('pass', 0) / max(total, 1):.1f}%); {line}")
