"""Run under mpiexec -n N: SyncBatchNorm's outputs, input and parameter gradients and running
statistics on each rank equal BatchNorm2d's on all ranks' batches together (float64).
Prints OK on success."""
import numpy as np

import tapegrad as torch
import tapegrad.distributed as dist
from tapegrad import nn

dist.init_process_group("gloo")
rank, size = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(0)
every = torch.tensor(rng.standard_normal((size, 3, 4, 5, 5)) * 2 + 1)
weights = torch.tensor(rng.standard_normal((size, 3, 4, 5, 5)))

reference = nn.BatchNorm2d(4).double()
with torch.no_grad():
    reference.weight.uniform_(0.5, 1.5, generator=torch.Generator().manual_seed(1))
model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4).double()))
model[0].load_state_dict(reference.state_dict())
assert isinstance(model[0], nn.SyncBatchNorm)

for step in range(2):
    x_all = (every + step).requires_grad_()
    expected = reference(x_all.reshape(size * 3, 4, 5, 5))
    (expected * weights.reshape(size * 3, 4, 5, 5)).sum().backward()
    x = (every[rank] + step).detach().requires_grad_()
    out = model(x)
    np.testing.assert_allclose(out.detach().numpy(), expected[3 * rank:3 * rank + 3].detach()
                               .numpy(), rtol=1e-10, atol=1e-12)
    (out * weights[rank]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x_all.grad[rank].numpy(), rtol=1e-10, atol=1e-12)
# each rank's parameter gradient is its share; their sum is the global one
for name in ("weight", "bias"):
    grad = getattr(model[0], name).grad.clone()
    dist.all_reduce(grad)
    np.testing.assert_allclose(grad.numpy(), getattr(reference, name).grad.numpy(), rtol=1e-10)
for name in ("running_mean", "running_var", "num_batches_tracked"):
    np.testing.assert_allclose(getattr(model[0], name).numpy(), getattr(reference, name).numpy(),
                               rtol=1e-12, err_msg=name)
model.eval()
reference.eval()
np.testing.assert_allclose(model(every[rank]).detach().numpy(),
                           reference(every[rank]).detach().numpy(), rtol=1e-12)
dist.destroy_process_group()
print("OK", rank)
