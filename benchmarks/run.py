"""Time tapegrad against torch, NumPy autograds and a NumPy floor, in one process.

    python benchmarks/run.py                   # full run
    python benchmarks/run.py --quick           # short run
    python benchmarks/run.py --only mlp_batch --repeats 9 --json out.json
    python benchmarks/run.py --chart benchmarks/results.png
    python benchmarks/run.py --tiny            # check every version, time nothing
    python benchmarks/run.py --libs torch,torch   # check the harness itself

Per workload and repeat, each version (the subject, the other libraries, the
numpy floor) is timed in turn (round-robin), over enough calls to last about
--target seconds. Reported: the median time per call of each version over the
repeats, and the median and range over repeats of the per-repeat ratios
subject/other (pairing samples of the same round cancels slow drifts of a
noisy machine); then the peak memory of one step, traced by tracemalloc.
"""

import argparse
import gc
import importlib
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))       # tapegrad importable uninstalled

import numpy as np  # noqa: E402

from workloads import PEERS, WORKLOADS  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4                     # float32 agreement with the floor
HINT = "  To check the harness itself: python benchmarks/run.py --libs torch,torch"
BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
DEFAULT_LIBS = "tapegrad,torch,mygrad,autograd"
FLOOR = "numpy"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="short run: 3 repeats of ~0.05 s per sample")
    p.add_argument("--tiny", action="store_true",
                   help="small sizes, build and check every version, time nothing")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="workload(s) to run, repeatable or comma separated; "
                        f"one of {', '.join(WORKLOADS)}")
    p.add_argument("--repeats", type=int, help="rounds (default 7, quick 3)")
    p.add_argument("--target", type=float,
                   help="seconds per timed sample (default 0.2, quick 0.05)")
    p.add_argument("--libs", default=DEFAULT_LIBS, metavar="SUBJECT,OTHER,...",
                   help=f"module under test, then those compared with it (default "
                        f"{DEFAULT_LIBS}; a missing one other than the subject "
                        "is skipped; torch,torch checks the harness)")
    p.add_argument("--no-memory", action="store_true",
                   help="skip the peak-memory measurement")
    p.add_argument("--device", default="cpu",
                   help="where tapegrad's and torch's tensors live (cuda: their default "
                        "device; the NumPy floor and peers stay on the cpu)")
    p.add_argument("--json", metavar="PATH", help="also write results as JSON")
    p.add_argument("--chart", metavar="PATH.png",
                   help="also draw each version's time relative to torch (matplotlib)")
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
    if len(args.libs) < 2:
        p.error("--libs takes SUBJECT,OTHER[,...]")
    return args


def import_libs(names):
    """Return [(label, module)] and notes; exit clearly if the subject fails."""
    subject, others = names[0], names[1:]
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
    for name in others:
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            notes.append(f"{name} is not installed ({e}): skipped "
                         "(pip install -e '.[bench]' installs the peers)")
            continue
        labels = [label for label, _ in libs]
        libs.append((name if name not in labels else name + "[ref]", mod))
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


def source_commit():
    """The checkout's commit, '+' if src/ has uncommitted changes; None outside git."""
    def git(*cmd):
        return subprocess.run(["git", "-C", str(REPO), *cmd], capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        dirty = git("status", "--porcelain", "src")
        return git("rev-parse", "--short", "HEAD") + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def version_of(module):
    try:
        return module.__version__
    except AttributeError:                  # HIPS autograd has none
        try:
            return importlib.metadata.version(module.__name__)
        except importlib.metadata.PackageNotFoundError:
            return "?"


def traced(module):
    """Whether tracemalloc sees the module's arrays: NumPy reports its
    allocations to it, torch's C++ allocator does not."""
    return module is None or module.__name__ != "torch"


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


def peak_bytes(step):
    """Peak of the memory newly allocated during one step() (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        step()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def to_numpy(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu()
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


def makers_for(workload, libs, size):
    """[(label, module or None, maker)] of the versions this workload has, floor first."""
    makers = []
    if workload.floor:
        makers.append((FLOOR, None, lambda: workload.floor(**size)))
    for label, mod in libs:
        peer_step = PEERS.get(mod.__name__)
        if peer_step is None:               # the torch API
            makers.append((label, mod, lambda m=mod: workload.make(m, **size)))
        elif workload.peer:
            makers.append((label, mod, lambda s=peer_step: s(*workload.peer(**size))))
    return makers


def build(name, libs, tiny=False, show_traceback=False):
    """Build and check every version of a workload: ({label: step}, {label: status},
    {label: module}); status is '' when the version agrees with the first one
    (the floor where there is one)."""
    workload = WORKLOADS[name]
    steps, status, modules, want = {}, {}, {}, None
    for label, mod, maker in makers_for(workload, libs, workload.tiny if tiny else {}):
        try:
            step, grads = maker()
            result, problem = check(step, grads, want)
            want = want or result
            status[label] = problem and "WRONG: " + problem
            steps[label], modules[label] = step, mod
        except Exception as e:
            status[label] = f"ERROR: {type(e).__name__}: {e}"
            if show_traceback:
                traceback.print_exc()
    return steps, status, modules


def paired(times, a, b):
    """Per-round ratios a/b with their median, range and quartiles."""
    rounds = [x / y for x, y in zip(times[a], times[b])]
    q1, _, q3 = (statistics.quantiles(rounds, n=4, method="inclusive")
                 if len(rounds) > 1 else rounds * 3)
    return {"median": statistics.median(rounds), "min": min(rounds), "max": max(rounds),
            "q1": q1, "q3": q3, "rounds": rounds}


def run_workload(name, libs, args):
    """Time one workload (and its peak memory); return a result dict."""
    steps, status, modules = build(name, libs, show_traceback=args.traceback)
    order = [label for label in [label for label, _ in libs] + [FLOOR] if label in steps]
    calls = {label: calls_for(steps[label], args.target) for label in order}
    times = {label: [] for label in order}
    for _ in range(args.repeats):
        for label in order:
            times[label].append(sample(steps[label], calls[label]))
    subject = libs[0][0]
    ratios = {f"{subject}/{other}": paired(times, subject, other)
              for other in order if subject in times and other != subject}
    memory = {} if args.no_memory else {
        label: peak_bytes(steps[label]) for label in order if traced(modules[label])}
    return {"workload": name, "calls_per_sample": calls, "times_s": times,
            "median_s": {k: statistics.median(v) for k, v in times.items()},
            "ratios": ratios, "peak_bytes": memory, "status": status}


def print_rows(head, rows):
    """Columns aligned; the first and last left-aligned, the others right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for row in [head] + rows:
        cells = [str(x).ljust(w) if i in (0, len(row) - 1) else str(x).rjust(w)
                 for i, (x, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())


def fmt_ratio(r):
    return "-" if r is None else f"{r['median']:.2f}x ({r['min']:.2f}-{r['max']:.2f})"


def print_tables(results, labels):
    """Times with the check, ratios with their ranges, then peak memory."""
    cols = labels + [FLOOR]
    rows = [[r["workload"]]
            + [f"{r['median_s'][c] * 1e3:.3f}" if c in r["median_s"] else "-" for c in cols]
            + ["; ".join(f"{k}: {v}" for k, v in r["status"].items() if v) or "ok"]
            for r in results]
    print("median time per step (ms)")
    print_rows(["workload"] + cols + ["check"], rows)

    ratio_cols = [f"{labels[0]}/{c}" for c in cols[1:]]
    print("\nratio: median of per-round ratios (min-max over rounds)")
    print_rows(["workload"] + ratio_cols + [""],
               [[r["workload"]] + [fmt_ratio(r["ratios"].get(c)) for c in ratio_cols] + [""]
                for r in results])

    measured = [r for r in results if r["peak_bytes"]]
    if not measured:
        return
    mem_cols = [c for c in cols if any(c in r["peak_bytes"] for r in measured)]
    print("\npeak traced memory of one step (MB, tracemalloc; torch's allocator is not traced)")
    rows = []
    for r in measured:
        peak = r["peak_bytes"]
        ratio = (f"{peak[labels[0]] / peak[FLOOR]:.2f}x"
                 if labels[0] in peak and peak.get(FLOOR) else "-")
        rows.append([r["workload"]]
                    + [f"{peak[c] / 1e6:.2f}" if c in peak else "-" for c in mem_cols]
                    + [ratio])
    print_rows(["workload"] + mem_cols + [f"{labels[0]}/{FLOOR}"], rows)


def draw_chart(results, labels, path, title):
    """Horizontal bars: each version's time over torch's per workload, log scale,
    error bars the min-max of the per-round ratios."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ref = "torch"
    shown = [r for r in results if ref in r["times_s"]]
    versions = [c for c in labels + [FLOOR]
                if c != ref and any(c in r["times_s"] for r in shown)]
    if not shown or not versions:
        print(f"note: no chart: {ref} was not timed", file=sys.stderr)
        return
    height = 0.8 / len(versions)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.22 * len(shown) * len(versions)))
    colors = dict(zip(versions, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for i, r in enumerate(shown):           # each workload's bars centred on its row
        present = [v for v in versions if v in r["times_s"]]
        for k, version in enumerate(present):
            y = i + (k - (len(present) - 1) / 2) * height
            stats = paired(r["times_s"], version, ref)
            m = stats["median"]
            ax.barh(y, m, height, xerr=[[m - stats["min"]], [stats["max"] - m]],
                    color=colors[version], capsize=2,
                    label=FLOOR + " (by hand, no autograd)" if version == FLOOR else version)
            ax.text(stats["max"] * 1.08, y, f"{m:.2g}x", va="center", fontsize=7)
    handles, names = ax.get_legend_handles_labels()
    by_name = dict(zip(names, handles))     # one legend entry per version
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(shown)), [r["workload"] for r in shown])
    ax.invert_yaxis()
    ax.set_xlabel(f"time relative to {ref} (median of per-round ratios; "
                  "bars: min-max; < 1 is faster)")
    ax.set_title(title, fontsize=9)
    ax.legend(by_name.values(), by_name.keys(), fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def run_tiny(args, libs):
    """Build and check every version at small sizes; exit 1 if one is wrong."""
    failed = False
    for name in args.only:
        _, status, _ = build(name, libs, tiny=True, show_traceback=args.traceback)
        print(f"{name}: " + ", ".join(f"{k} {v or 'ok'}" for k, v in status.items()))
        failed = failed or any(status.values())
    sys.exit(1 if failed else 0)


def main(argv=None):
    args = parse_args(argv)
    libs, notes = import_libs(args.libs)
    if args.device != "cpu":  # every factory of the torch-like libraries makes tensors there
        subject = libs[0][1]
        if not subject.cuda.is_available():
            sys.exit(f"error: --device {args.device}: {libs[0][0]}.cuda.is_available() is "
                     "False on this machine (the gpu extra and an NVIDIA GPU are needed)")
        for label, module in libs:
            if hasattr(module, "set_default_device"):
                module.set_default_device(args.device)
                notes.append(f"{label}: tensors on {args.device}")
    labels = [label for label, _ in libs]
    versions = {label: version_of(mod) for label, mod in libs}
    versions.update(numpy=np.__version__, python=platform.python_version())
    if commit := source_commit():
        versions["commit"] = commit
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for note in notes:
        print("note: " + note)
    if args.tiny:
        run_tiny(args, libs)
    print(f"{args.repeats} repeats of ~{args.target} s per sample, round-robin "
          f"{' -> '.join(labels + [FLOOR])}; times are medians per call, "
          "ratios medians of per-round ratios")
    results = []
    for name in args.only:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.append(run_workload(name, libs, args))
    print()
    print_tables(results, labels)
    meta = {"versions": versions, "notes": notes, "repeats": args.repeats,
            "blas_env": {v: os.environ.get(v) for v in BLAS_ENV},
            "target_s": args.target, "libs": labels, "device": args.device,
            "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"meta": meta, "results": results}, indent=2))
        print(f"\nwrote {args.json}")
    if args.chart:
        draw_chart(results, labels, args.chart,
                   f"{', '.join(f'{k} {v}' for k, v in versions.items())}\n"
                   f"{args.repeats} interleaved rounds, {meta['date']}, "
                   f"{os.cpu_count()} CPUs, "
                   f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")


if __name__ == "__main__":
    main()
