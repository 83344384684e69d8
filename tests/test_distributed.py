"""tapegrad.distributed, DistributedDataParallel and DistributedSampler.

The multi-rank checks are scripts under tests/distributed/, started here with `mpiexec -n 2`
and `-n 4` on loopback (each bounded by a timeout); they skip where mpi4py or mpiexec is absent.
The rest runs in this process: errors before init, DistributedSampler against torch's, and a
world of one rank (MPI's singleton init, no mpiexec).
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tapegrad
import tapegrad.distributed as dist
from tapegrad import nn
from tapegrad.nn.parallel import DistributedDataParallel
from tapegrad.utils.data import DistributedSampler

SCRIPTS = os.path.join(os.path.dirname(__file__), "distributed")
MPIEXEC = os.path.join(os.path.dirname(sys.executable), "mpiexec")
MPIEXEC = MPIEXEC if os.path.exists(MPIEXEC) else shutil.which("mpiexec")
needs_mpi = pytest.mark.skipif(not dist.is_available() or MPIEXEC is None,
                               reason="needs mpi4py and mpiexec: pip install '.[distributed]'")
NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                   "init_process_group.")


def run_ranks(command, ranks):
    """Start the command on `ranks` processes; each must print OK."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(name, None)
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env,
                            cwd=os.path.dirname(SCRIPTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("OK") == ranks, result.stdout + result.stderr
    return result.stdout


@needs_mpi
@pytest.mark.parametrize("script,ranks", [("collectives.py", 2), ("collectives.py", 4),
                                          ("ddp_train.py", 2), ("ddp_train.py", 4),
                                          ("ddp_overlap.py", 2), ("sync_batchnorm.py", 2),
                                          ("sync_batchnorm.py", 4)])
def test_ranks(script, ranks):
    run_ranks([MPIEXEC, "-n", str(ranks), sys.executable, os.path.join(SCRIPTS, script)], ranks)


@needs_mpi
def test_launcher_sets_torch_environment():
    out = run_ranks([sys.executable, "-m", "tapegrad.distributed.run", "--nproc-per-node", "2",
                     os.path.join(SCRIPTS, "env_check.py"), "--flag", "x"], 2)
    assert out.count("--flag x") == 2


@needs_mpi
def test_environment_must_agree_with_mpi():
    code = "import tapegrad.distributed as d; d.init_process_group('gloo')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, env=dict(os.environ, RANK="1", WORLD_SIZE="2"))
    assert result.returncode != 0
    assert "ValueError: environment variable RANK=1 disagrees with MPI" in result.stderr


def test_import_without_mpi4py():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import tapegrad.distributed as d\n"
            "assert not d.is_available()\n"
            "try:\n    d.init_process_group('gloo')\nexcept ImportError as e:\n    print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "tapegrad[distributed]" in result.stdout


@pytest.mark.parametrize("call", [dist.get_rank, dist.get_world_size, dist.get_backend,
                                  dist.barrier, lambda: dist.all_reduce(tapegrad.ones(2)),
                                  lambda: dist.broadcast(tapegrad.ones(2), 0)])
def test_errors_before_init(call):
    with pytest.raises(ValueError, match="^" + NOT_INITIALIZED.replace(".", r"\.") + "$"):
        call()


def test_error_before_init_matches_torch():
    torch_dist = pytest.importorskip("torch.distributed")
    with pytest.raises(ValueError) as expected:
        torch_dist.get_rank()
    assert str(expected.value) == NOT_INITIALIZED
    assert not dist.is_initialized()


def test_reduce_op_names_are_torchs():
    torch_dist = pytest.importorskip("torch.distributed")
    torch_names = set(torch_dist.ReduceOp.RedOpType.__members__) - {"PREMUL_SUM"}
    assert {op.name for op in dist.ReduceOp.RedOpType} == torch_names
    assert dist.ReduceOp.SUM is dist.ReduceOp.RedOpType.SUM


@pytest.mark.parametrize("size,replicas,drop_last,shuffle",
                         [(10, 3, False, True), (10, 3, True, True), (2, 4, False, True),
                          (11, 2, False, False), (7, 4, True, False), (100, 8, False, True)])
def test_sampler_order_matches_torch(size, replicas, drop_last, shuffle):
    torch_data = pytest.importorskip("torch.utils.data.distributed")
    for epoch in (0, 3):
        for rank in range(replicas):
            ours = DistributedSampler(range(size), replicas, rank, shuffle, 5, drop_last)
            theirs = torch_data.DistributedSampler(range(size), replicas, rank, shuffle, 5,
                                                   drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_sampler_invalid_rank_matches_torch():
    torch_data = pytest.importorskip("torch.utils.data.distributed")
    with pytest.raises(ValueError) as expected:
        torch_data.DistributedSampler(range(4), 2, 2)
    with pytest.raises(ValueError, match=r"^Invalid rank 2, rank should be in the interval "
                                         r"\[0, 1\]$"):
        DistributedSampler(range(4), 2, 2)
    assert "Invalid rank 2, rank should be in the interval [0, 1]" == str(expected.value)


@pytest.fixture
def world_of_one():
    if not dist.is_available():
        pytest.skip("needs mpi4py: pip install '.[distributed]'")
    dist.init_process_group("gloo")
    yield
    dist.destroy_process_group()


def test_world_of_one(world_of_one):
    assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
    assert dist.get_backend() == "gloo"
    with pytest.raises(ValueError, match="^trying to initialize the default process group "
                                         "twice!$"):
        dist.init_process_group("gloo")
    t = tapegrad.arange(6.).reshape(2, 3)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.tolist() == [[0., 1., 2.], [3., 4., 5.]]
    with pytest.raises(RuntimeError, match=r"broadcast: invalid root rank: 3$"):
        dist.broadcast(t, src=3)
    with pytest.raises(ValueError, match="^Invalid destination rank: destination rank should "
                                         "not be the same as the rank of the current process.$"):
        dist.send(t, 0)
    with pytest.raises(ValueError, match=r"^Argument ``gather_list`` must be specified on "
                                         r"destination rank\.$"):
        dist.gather_object("mine", None, dst=0)


def test_ddp_world_of_one_trains_as_the_module(world_of_one):
    tapegrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).double()
    plain = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).double()
    plain.load_state_dict(model.state_dict())
    ddp = DistributedDataParallel(model)
    assert ddp.module is model
    assert list(ddp.state_dict()) == ["module." + k for k in model.state_dict()]
    x = tapegrad.randn(8, 3, dtype=tapegrad.float64)
    for net in (ddp, plain):
        net(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), plain.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_ddp_unused_parameter_error(world_of_one):
    class Partial(nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(2, 2), nn.Linear(2, 2)

        def forward(self, x):
            return self.used(x)

    ddp = DistributedDataParallel(Partial())
    ddp(tapegrad.ones(1, 2)).sum().backward()
    with pytest.raises(RuntimeError, match="^Expected to have finished reduction in the prior "
                                           "iteration before starting a new one"):
        ddp(tapegrad.ones(1, 2))
    ddp = DistributedDataParallel(Partial(), find_unused_parameters=True)
    for _ in range(2):
        ddp(tapegrad.ones(1, 2)).sum().backward()
    assert ddp.module.unused.weight.grad is None
    assert ddp.module.used.weight.grad.tolist() == [[2., 2.], [2., 2.]]


def test_sync_batchnorm_without_group_is_batchnorm_as_torchs():
    torch = pytest.importorskip("torch")
    ours, theirs = tapegrad.nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    x = np.random.default_rng(0).standard_normal((4, 3, 2))
    a, b = tapegrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours(a).pow(3).sum().backward()
    theirs(b).pow(3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)
    for name, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), value.numpy(), rtol=1e-12)
    assert repr(ours) == repr(theirs)
    with pytest.raises(ValueError, match=r"^expected at least 2D input \(got 1D input\)$"):
        ours(tapegrad.ones(3))


@needs_mpi
def test_digits_example_trains_data_parallel(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    result = subprocess.run(
        [sys.executable, "-m", "tapegrad.distributed.run", "--nproc_per_node", "2", "-m",
         "tapegrad.examples.digits", "--distributed", "--model", "mlp", "--epochs", "3",
         "--plot", str(tmp_path / "plot.png")],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr
    finals = [line for line in result.stdout.splitlines() if "final test accuracy" in line]
    assert len(finals) == 1, result.stdout  # rank 0 alone reports
    assert float(finals[0].split("accuracy ")[1].split("%")[0]) > 85, finals
