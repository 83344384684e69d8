"""Smoke test of benchmarks/: every workload builds at its tiny size and every
installed version (tapegrad, torch, MyGrad, HIPS autograd) agrees with the
hand-written NumPy floor (or with tapegrad where there is no floor)."""
import importlib
import sys
from pathlib import Path

import pytest

import tapegrad

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))
run = importlib.import_module("run")
workloads = importlib.import_module("workloads")


def installed_libs():
    libs = [("tapegrad", tapegrad)]
    for name in ("torch", "mygrad", "autograd"):
        try:
            libs.append((name, importlib.import_module(name)))
        except ImportError:                 # peers are optional: test what is there
            pass
    return libs


@pytest.mark.parametrize("name", list(workloads.WORKLOADS))
def test_workload_agrees_at_tiny_size(name):
    libs = installed_libs()
    steps, status, _ = run.build(name, libs, tiny=True)
    assert not any(status.values()), status
    workload = workloads.WORKLOADS[name]
    expected = {"tapegrad"} | ({run.FLOOR} if workload.floor else set())
    expected |= {label for label, mod in libs
                 if mod.__name__ not in workloads.PEERS or workload.peer}
    assert set(steps) == expected


def test_a_wrong_version_is_reported():
    # the check must be able to fail: a floor whose gradient is off by 1%
    step, grads = workloads.mlp_batch_floor(batch=4)
    want, problem = run.check(step, grads, None)
    assert problem == ""
    _, problem = run.check(step, lambda: [g * 1.01 for g in grads()], want)
    assert problem == "grad 0 differs"


def test_paired_ratios():
    stats = run.paired({"a": [2.0, 3.0, 8.0], "b": [1.0, 1.0, 2.0]}, "a", "b")
    assert (stats["median"], stats["min"], stats["max"]) == (3.0, 2.0, 4.0)
    assert stats["rounds"] == [2.0, 3.0, 4.0]


def test_missing_peer_is_skipped_with_a_note(monkeypatch):
    try:                                    # import_libs sets one thread: not for the session
        import torch
        monkeypatch.setattr(torch, "set_num_threads", lambda n: None)
    except ImportError:
        pass
    libs, notes = run.import_libs(["tapegrad", "no_such_autograd_lib"])
    assert [label for label, _ in libs] == ["tapegrad"]
    assert any("no_such_autograd_lib is not installed" in n for n in notes)


def test_cuda_device_needs_a_gpu():
    assert run.parse_args(["--device", "cuda"]).device == "cuda"
    with pytest.raises(SystemExit, match="--device cuda: tapegrad.cuda.is_available\\(\\) is "
                                         "False on this machine"):
        run.main(["--device", "cuda", "--tiny", "--libs", "tapegrad,torch"])


def test_chart_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    times = {"tapegrad": [2.0, 2.2], "torch": [1.0, 1.0], "numpy": [0.5, 0.6]}
    results = [{"workload": "w", "times_s": times}]
    run.draw_chart(results, ["tapegrad", "torch"], tmp_path / "c.png", "title")
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
