"""python -m tapegrad.distributed.run --nproc-per-node N script.py args: torchrun's command line,
started as `mpiexec -n N python script.py args`.

Each process first sets torch's environment variables (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) from MPI, so scripts written for torchrun that read
them work unchanged, then runs the script as __main__.
"""
from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys

_WORKER_FLAG = "--tapegrad-worker"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tapegrad.distributed.run",
        description="Start a training script on N processes with mpiexec (torchrun's flags).")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1,
                        help="processes to start (one MPI rank each)")
    parser.add_argument("--nnodes", type=str, default="1",
                        help="only 1 here: for several machines use your MPI's mpiexec with "
                             "a host file")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0)
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                        help="accepted for torchrun scripts; MPI makes its own connections")
    parser.add_argument("--master-port", "--master_port", type=int, default=29500)
    parser.add_argument("--standalone", action="store_true")
    parser.add_argument("-m", "--module", action="store_true",
                        help="run the script argument as a module, as python -m")
    parser.add_argument("--mpiexec", default=None, help="the mpiexec to use (default: the one "
                        "beside this Python, else on PATH)")
    parser.add_argument("script", help="the training script (or module with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    return parser


def _mpiexec(explicit: str | None) -> str:
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if found is None:
        raise SystemExit("mpiexec not found: pip install 'tapegrad[distributed]' (mpi4py and "
                         "mpich) or put your MPI's mpiexec on PATH")
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == _WORKER_FLAG:
        return _worker(argv[1:])
    args = _parser().parse_args(argv)
    if args.nnodes not in ("1", "1:1"):
        raise SystemExit("--nnodes > 1 is not supported by this launcher: run your cluster's "
                         "mpiexec (with a host file) on `python script.py` directly")
    command = [_mpiexec(args.mpiexec), "-n", str(args.nproc_per_node), sys.executable, "-m",
               "tapegrad.distributed.run", _WORKER_FLAG, args.master_addr, str(args.master_port),
               "-m" if args.module else "-", args.script, *args.script_args]
    return subprocess.call(command)


def _worker(argv: list[str]) -> int:
    """Inside one rank: torch's variables from MPI, then the script as __main__."""
    master_addr, master_port, mode, script, *script_args = argv
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    node = world.Split_type(MPI.COMM_TYPE_SHARED)
    os.environ.update(RANK=str(world.Get_rank()), WORLD_SIZE=str(world.Get_size()),
                      LOCAL_RANK=str(node.Get_rank()), LOCAL_WORLD_SIZE=str(node.Get_size()),
                      GROUP_RANK="0", MASTER_ADDR=master_addr, MASTER_PORT=master_port)
    node.Free()
    sys.argv = [script, *script_args]
    if mode == "-m":
        runpy.run_module(script, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
