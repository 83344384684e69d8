"""Run under mpiexec -n N: DDP with a DistributedSampler against one process trained on each
step's global batch, in float64 (parameters equal to 1e-9): plain steps, gradient accumulation
under no_sync(), and find_unused_parameters. Prints OK on success."""
import copy

import numpy as np

import tapegrad as torch
import tapegrad.distributed as dist
from tapegrad import nn
from tapegrad.nn.parallel import DistributedDataParallel as DDP
from tapegrad.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("mpi")
rank, size = dist.get_rank(), dist.get_world_size()
torch.set_default_dtype(torch.float64)

rng = np.random.default_rng(0)
features = torch.tensor(rng.standard_normal((96, 5)))
targets = torch.tensor(rng.standard_normal((96, 2)))
dataset = TensorDataset(features, targets)
BATCH = 3  # per rank and micro-batch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh())
        self.head = nn.Linear(16, 2)
        self.spare = nn.Linear(16, 2)  # used only when asked: find_unused_parameters

    def forward(self, x, use_spare=False):
        hidden = self.body(x)
        return self.head(hidden) + (self.spare(hidden) if use_spare else 0)


def global_batches(epoch):
    """What every rank reads at each step of the epoch, per rank, in the sampler's order."""
    per_rank = []
    for r in range(size):
        sampler = DistributedSampler(dataset, num_replicas=size, rank=r, seed=7)
        sampler.set_epoch(epoch)
        order = list(sampler)
        per_rank.append([order[i:i + BATCH] for i in range(0, len(order), BATCH)])
    return list(zip(*per_rank))


def train(accumulate, use_spare_on=None):
    torch.manual_seed(100 + rank)  # different replicas: DDP's broadcast must align them
    model = Net()
    if use_spare_on is None:  # an unused trainable parameter needs find_unused_parameters
        model.spare.requires_grad_(False)
    ddp = DDP(model, bucket_cap_mb=0.001, find_unused_parameters=use_spare_on is not None)
    if rank == 0:
        reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    sampler = DistributedSampler(dataset, seed=7)
    sampler.set_epoch(1)
    loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    steps = min(6, len(loader) // accumulate)
    loader = iter(loader)
    batches = iter(global_batches(1))
    ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9) \
        if rank == 0 else None
    for step in range(steps):
        optimizer.zero_grad()
        indices = []
        for micro in range(accumulate):
            x, y = next(loader)
            use_spare = use_spare_on is not None and rank in use_spare_on.get(step, ())
            last = micro == accumulate - 1
            context = ddp.no_sync() if not last else _nothing()
            with context:
                loss = ((ddp(x, use_spare=use_spare) - y) ** 2).mean() / accumulate
                loss.backward()
            indices.append(next(batches))
        optimizer.step()
        if rank == 0:
            # one process: the mean loss over all ranks' micro-batches, the same optimiser
            ref_optimizer.zero_grad()
            total = 0
            for micro, per_rank in enumerate(indices):
                for r, idx in enumerate(per_rank):
                    use_spare = use_spare_on is not None and r in use_spare_on.get(step, ())
                    out = reference(features[idx], use_spare=use_spare)
                    total = total + ((out - targets[idx]) ** 2).mean()
            (total / (accumulate * size)).backward()
            ref_optimizer.step()
    for tensor in ddp.module.parameters():
        gathered = [torch.zeros_like(tensor) for _ in range(size)]
        dist.all_gather(gathered, tensor.detach())
        assert all(torch.equal(g, tensor) for g in gathered), "replicas diverged"
    if rank == 0:
        for (name, p), q in zip(ddp.module.named_parameters(), reference.parameters()):
            if use_spare_on is not None and name.startswith("spare") and p.grad is None:
                assert q.grad is None
                continue
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=0,
                                       atol=1e-9, err_msg=name)
        assert list(ddp.state_dict())[0].startswith("module.")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


train(accumulate=1)
train(accumulate=3)
# the spare head is used by rank 0 only on step 1, by no rank otherwise
train(accumulate=1, use_spare_on={1: (0,)})
dist.destroy_process_group()
print("OK", rank)
