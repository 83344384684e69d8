"""Run under mpiexec -n 2: the first bucket's all-reduce starts while backward is still
running -- before the gradient of the model's input (the last thing backward computes) exists.
Prints OK on success."""
import tapegrad as torch
import tapegrad.distributed as dist
from tapegrad import nn
from tapegrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
events = []
real_all_reduce = dist.all_reduce


def logged_all_reduce(tensor, *args, **kwargs):
    events.append("all_reduce")
    return real_all_reduce(tensor, *args, **kwargs)


dist.all_reduce = logged_all_reduce
model = nn.Sequential(*[nn.Linear(32, 32) for _ in range(6)])
ddp = DDP(model, bucket_cap_mb=32 * 33 * 4 / 2 ** 20)  # one layer a bucket
x = torch.randn(4, 32, requires_grad=True)
x.register_hook(lambda grad: events.append("input grad"))
ddp(x).sum().backward()
first_input_grad = events.index("input grad")
assert events.count("all_reduce") >= 6, events
assert events.index("all_reduce") < first_input_grad, events
assert events[:first_input_grad].count("all_reduce") >= 5, events  # all layers but the first
print("OK", dist.get_rank(), events)
dist.destroy_process_group()
