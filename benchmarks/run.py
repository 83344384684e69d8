"""Time tapegrad against torch and a hand-written NumPy floor, in one process.

    python benchmarks/run.py                   # full run
    python benchmarks/run.py --quick           # short run
    python benchmarks/run.py --only mlp_batch --repeats 9 --json out.json
    python benchmarks/run.py --libs torch,torch   # check the harness itself

Per workload and repeat, each version (subject, reference, numpy floor) is
timed in turn (round-robin), over enough calls to last about --target seconds.
Reported: the median time per call of each version over the repeats, and the
median over repeats of the per-repeat ratios subject/reference and
subject/numpy (pairing samples of the same round cancels slow drifts of a
noisy machine).
"""

import argparse
import gc
import importlib
import json
import os
import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))       # tapegrad importable uninstalled

import numpy as np  # noqa: E402

from workloads import WORKLOADS  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4                     # float32 agreement with the floor
HINT = "  To check the harness itself: python benchmarks/run.py --libs torch,torch"
BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="short run: 3 repeats of ~0.05 s per sample")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="workload(s) to run, repeatable or comma separated; "
                        f"one of {', '.join(WORKLOADS)}")
    p.add_argument("--repeats", type=int, help="rounds (default 7, quick 3)")
    p.add_argument("--target", type=float,
                   help="seconds per timed sample (default 0.2, quick 0.05)")
    p.add_argument("--libs", default="tapegrad,torch", metavar="SUBJECT,REF",
                   help="module under test and reference (default "
                        "tapegrad,torch; torch,torch checks the harness)")
    p.add_argument("--json", metavar="PATH", help="also write results as JSON")
    p.add_argument("--traceback", action="store_true",
                   help="print the traceback of a workload that fails")
    args = p.parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 7)
    args.target = args.target or (0.05 if args.quick else 0.2)
    names = [n for item in args.only or WORKLOADS for n in item.split(",") if n]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        p.error(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    args.only = names
    args.libs = args.libs.split(",")
    if len(args.libs) != 2:
        p.error("--libs takes SUBJECT,REF")
    return args


def import_libs(subject, reference):
    """Return [(label, module)] and notes; exit clearly if the subject fails."""
    notes = []
    try:
        subj = importlib.import_module(subject)
    except Exception as e:                  # the package may be half written
        sys.exit(f"error: cannot import {subject!r} (src/ is searched first: "
                 f"{REPO / 'src'}):\n  {type(e).__name__}: {e}\n{HINT}")
    if not hasattr(subj, "tensor"):
        where = getattr(subj, "__file__", None) or (
            f"{list(subj.__path__)} (no __init__.py)")
        sys.exit(f"error: {subject!r} imported from {where} but has no "
                 f"tensor(); is the package written yet?\n{HINT}")
    libs = [(subject, subj)]
    try:
        ref = importlib.import_module(reference)
        label = reference if reference != subject else reference + "[ref]"
        libs.append((label, ref))
    except ImportError as e:
        notes.append(f"{reference} is missing ({e}): only {subject} and the "
                     "numpy floor are timed")
    try:
        import torch
        torch.set_num_threads(1)
        notes.append("torch.set_num_threads(1); NumPy threads left as is")
    except ImportError:
        pass
    if not any(os.environ.get(v) for v in BLAS_ENV):
        notes.append("NumPy BLAS may use several threads: on a busy machine "
                     "matmul times jump; OPENBLAS_NUM_THREADS=1 steadies them")
    return libs, notes


def sample(step, calls):
    """Mean seconds per call of step() over `calls` calls: the timing loop."""
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(calls):
        step()
    return (time.perf_counter() - t0) / calls


def calls_for(step, target):
    """Calls that make a sample last about `target` seconds (after warm-up)."""
    t = sample(step, 1)
    if t < target / 20:                     # one call is too short to trust
        t = sample(step, max(1, int(target / 20 / t)))
    return max(1, round(target / t))


def to_numpy(x):
    if hasattr(x, "detach"):
        x = x.detach()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=np.float64)


def check(step, grads, want):
    """Run once; '' if loss and grads match `want` (the floor's), else why."""
    loss = to_numpy(step())
    got = [to_numpy(g) if g is not None else None for g in grads()]
    if want is None:
        return (loss, got), ""
    want_loss, want_grads = want
    if not np.allclose(loss, want_loss, RTOL, ATOL):
        return (loss, got), f"loss {float(loss):.6g} != {float(want_loss):.6g}"
    for i, (g, w) in enumerate(zip(got, want_grads)):
        if g is None or g.shape != w.shape or not np.allclose(
                g, w, RTOL, ATOL * max(1.0, np.abs(w).max())):
            return (loss, got), f"grad {i} differs"
    if len(got) != len(want_grads):
        return (loss, got), "wrong number of grads"
    return (loss, got), ""


def run_workload(name, libs, args):
    """Time one workload; return a result dict."""
    make, floor = WORKLOADS[name]
    makers = [("numpy", floor)] + [(label, lambda m=mod: make(m))
                                   for label, mod in libs]
    steps, status, want = {}, {}, None
    for label, maker in makers:             # floor first: it is the reference
        try:
            step, grads = maker()
            result, problem = check(step, grads, want)
            want = want or result
            status[label] = problem and "WRONG: " + problem
            steps[label] = step
        except Exception as e:
            status[label] = f"ERROR: {type(e).__name__}: {e}"
            if args.traceback:
                traceback.print_exc()
    order = [label for label, _ in libs] + ["numpy"]    # round-robin order
    order = [label for label in order if label in steps]
    calls = {label: calls_for(steps[label], args.target) for label in order}
    times = {label: [] for label in order}
    for _ in range(args.repeats):
        for label in order:
            times[label].append(sample(steps[label], calls[label]))

    subject = libs[0][0]
    ratios = {}
    for other in order[1:]:
        if subject in times:
            ratios[f"{subject}/{other}"] = statistics.median(
                a / b for a, b in zip(times[subject], times[other]))
    return {"workload": name, "calls_per_sample": calls, "times_s": times,
            "median_s": {k: statistics.median(v) for k, v in times.items()},
            "ratios": ratios, "status": status}


def fmt_time(s):
    return "-" if s is None else f"{s * 1e3:.3f}"


def print_table(results, libs):
    subject = libs[0][0]
    cols = [label for label, _ in libs] + ["numpy"]
    ratio_cols = [f"{subject}/{c}" for c in cols[1:]]
    head = (["workload"] + [f"{c} ms" for c in cols] + ratio_cols + ["check"])
    rows = []
    for r in results:
        st = r["status"]
        problems = [f"{k}: {v}" for k, v in st.items() if v]
        rows.append([r["workload"]]
                    + [fmt_time(r["median_s"].get(c)) for c in cols]
                    + [f"{r['ratios'][c]:.2f}x" if c in r["ratios"] else "-"
                       for c in ratio_cols]
                    + ["; ".join(problems) or "ok"])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for row in [head] + rows:
        cells = [str(x).ljust(w) if i in (0, len(row) - 1) else str(x).rjust(w)
                 for i, (x, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())


def main(argv=None):
    args = parse_args(argv)
    libs, notes = import_libs(*args.libs)
    versions = {label: getattr(mod, "__version__", "?") for label, mod in libs}
    versions.update(numpy=np.__version__, python=platform.python_version())
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for note in notes:
        print("note: " + note)
    print(f"{args.repeats} repeats of ~{args.target} s per sample, round-robin "
          f"{' -> '.join([label for label, _ in libs] + ['numpy'])}; "
          f"times are medians per call, ratios medians of per-round ratios")
    results = []
    for name in args.only:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.append(run_workload(name, libs, args))
    print()
    print_table(results, libs)
    if args.json:
        meta = {"versions": versions, "notes": notes, "repeats": args.repeats,
                "blas_env": {v: os.environ.get(v) for v in BLAS_ENV},
                "target_s": args.target, "libs": [label for label, _ in libs],
                "cpu_count": os.cpu_count(), "platform": platform.platform()}
        Path(args.json).write_text(json.dumps(
            {"meta": meta, "results": results}, indent=2))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
