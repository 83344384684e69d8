"""DistributedDataParallel step time on 1 and 2 MPI ranks, MLP and CNN, with the share of the
step spent communicating.

    python benchmarks/ddp.py            # starts mpiexec -n 1 and -n 2, prints a table
    python benchmarks/ddp.py --ranks 1 2 4 --steps 50

Strong scaling: the global batch is fixed (MLP 784-128-10 on 64 rows, CNN of
benchmarks/workloads.py on 32 images of 3x32x32, float32), each rank takes 1/N of it. One step
is forward, backward (with DDP's bucketed all-reduces) and SGD. The communication share is
1 - (the same step under no_sync(), which skips every all-reduce) / (the synchronised step):
the communication that backward did not hide.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

WORKLOADS = {"mlp": 64, "cnn": 32}  # global batch


def make_model(name):
    from tapegrad import nn
    if name == "mlp":
        return nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 8 * 8, 10))


def worker(steps):
    import tapegrad as torch
    import tapegrad.distributed as dist
    from tapegrad.nn.parallel import DistributedDataParallel
    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    results = {}
    for name, global_batch in WORKLOADS.items():
        torch.manual_seed(0)
        ddp = DistributedDataParallel(make_model(name))
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
        rng = np.random.default_rng(rank)
        shape = (global_batch // size, 784) if name == "mlp" else (global_batch // size, 3, 32, 32)
        x = torch.tensor(rng.standard_normal(shape).astype(np.float32))
        y = torch.tensor(rng.integers(0, 10, shape[0]))
        loss_fn = torch.nn.CrossEntropyLoss()

        def step():
            optimizer.zero_grad()
            loss_fn(ddp(x), y).backward()
            optimizer.step()

        def local_step():
            with ddp.no_sync():
                step()

        # alternating the two kinds of step spreads the machine's other load over both
        times = {step: [], local_step: []}
        for i in range(5 + steps):
            for run in (step, local_step):
                dist.barrier()
                start = time.perf_counter()
                run()
                if i >= 5:
                    times[run].append(time.perf_counter() - start)
        synced, local = statistics.median(times[step]), statistics.median(times[local_step])
        params = sum(p.numel() for p in ddp.parameters())
        results[name] = {"step_ms": 1e3 * synced, "local_step_ms": 1e3 * local,
                         "comm_share": max(0.0, 1 - local / synced), "params": params,
                         "buckets": len(ddp._buckets)}
    if rank == 0:
        print(json.dumps(results))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.steps)
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    runs = {}
    for ranks in args.ranks:
        out = subprocess.run([mpiexec, "-n", str(ranks), sys.executable, __file__, "--worker",
                              "--steps", str(args.steps)], capture_output=True, text=True,
                             env=env, check=True, timeout=600).stdout
        runs[ranks] = json.loads(out.strip().splitlines()[-1])
    print(f"{'model':6} {'ranks':>5} {'step ms':>8} {'no-sync ms':>10} {'comm':>6} "
          f"{'speedup':>8} {'efficiency':>10}")
    for name in WORKLOADS:
        base = runs[args.ranks[0]][name]["step_ms"]
        for ranks, result in runs.items():
            speedup = base / result[name]["step_ms"]
            print(f"{name:6} {ranks:5d} {result[name]['step_ms']:8.2f} "
                  f"{result[name]['local_step_ms']:10.2f} {result[name]['comm_share']:6.1%} "
                  f"{speedup:8.2f} {speedup / ranks * args.ranks[0]:10.1%}")


if __name__ == "__main__":
    main()
