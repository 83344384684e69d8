"""Run under mpiexec -n N: every collective against the values one process computes from all
ranks' inputs (each rank can rebuild any rank's input from its number). Prints OK on success."""
import numpy as np

import tapegrad as torch
import tapegrad.distributed as dist

dist.init_process_group("gloo")
rank, size = dist.get_rank(), dist.get_world_size()


def data(r, dtype, shape=(2, 3)):
    """Rank r's input: small distinct integers, exact in every dtype and under every op."""
    values = np.arange(int(np.prod(shape))).reshape(shape) % 5 + r + 1
    return torch.tensor(values.astype(dtype))


def check(got, expected):
    got = got.numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)


reductions = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.PRODUCT: np.prod,
              dist.ReduceOp.MIN: np.min, dist.ReduceOp.MAX: np.max}
for dtype in ("float32", "float64", "int64"):
    for shape in ((2, 3), (0,), (0, 4)):
        every = np.stack([data(r, dtype, shape).numpy() for r in range(size)])
        mine = data(rank, dtype, shape)
        for op, numpy_op in reductions.items():
            t = mine.clone()
            assert dist.all_reduce(t, op=op) is None
            check(t, numpy_op(every, axis=0).astype(dtype))
        if dtype != "int64":
            t = mine.clone()
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
            check(t, (every.sum(0) / size).astype(dtype))
        t = mine.clone()
        work = dist.all_reduce(t, async_op=True)
        work.wait()
        assert work.is_completed()
        check(t, every.sum(0))
        for root in range(size):
            t = mine.clone()
            dist.reduce(t, dst=root)
            if rank == root:
                check(t, every.sum(0))
            t = mine.clone()
            dist.broadcast(t, src=root)
            check(t, every[root])
            gathered = [torch.zeros_like(mine) for _ in range(size)] if rank == root else None
            dist.gather(mine, gathered, dst=root)
            if rank == root:
                for r in range(size):
                    check(gathered[r], every[r])
            t = torch.zeros_like(mine)
            dist.scatter(t, [data(r, dtype, shape) * (root + 1) for r in range(size)]
                         if rank == root else None, src=root)
            check(t, every[rank] * (root + 1))
        outputs = [torch.zeros_like(mine) for _ in range(size)]
        dist.all_gather(outputs, mine)
        for r in range(size):
            check(outputs[r], every[r])
        out = torch.zeros((size * shape[0],) + shape[1:], dtype=mine.dtype)
        dist.all_gather_into_tensor(out, mine)
        check(out, np.concatenate(list(every)))
        # reduce_scatter: rank r's list entry j is data(r) + j; rank j keeps sum over r
        out = torch.zeros_like(mine)
        dist.reduce_scatter(out, [mine + j for j in range(size)])
        check(out, (every + rank).sum(0))
        big = torch.cat([mine + j for j in range(size)]) if shape[0] else \
            torch.zeros((0,) + shape[1:], dtype=mine.dtype)
        out = torch.zeros_like(mine)
        dist.reduce_scatter_tensor(out, big)
        check(out, (every + rank).sum(0) if shape[0] else every.sum(0))
        # all_to_all: rank r sends data(r) * (j + 1) to rank j
        outputs = [torch.zeros_like(mine) for _ in range(size)]
        dist.all_to_all(outputs, [mine * (j + 1) for j in range(size)])
        for r in range(size):
            check(outputs[r], every[r] * (rank + 1))
        if shape[0]:
            out = torch.zeros((size * shape[0],) + shape[1:], dtype=mine.dtype)
            dist.all_to_all_single(out, torch.cat([mine * (j + 1) for j in range(size)]))
            check(out, np.concatenate([every[r] * (rank + 1) for r in range(size)]))

# point to point: a ring, blocking and nonblocking
mine = data(rank, "float64")
received = torch.zeros_like(mine)
right, left = (rank + 1) % size, (rank - 1) % size
recv_work = dist.irecv(received, src=left)
send_work = dist.isend(mine, dst=right)
send_work.wait(), recv_work.wait()
check(received, data(left, "float64").numpy())
if rank == 0:
    dist.send(mine * 10, dst=1)
elif rank == 1:
    t = torch.zeros_like(mine)
    assert dist.recv(t) == 0
    check(t, data(0, "float64").numpy() * 10)

# non-contiguous and bool tensors are written back in place
t = data(rank, "float64", (3, 4)).t()
dist.all_reduce(t)
check(t, np.stack([data(r, "float64", (3, 4)).numpy().T for r in range(size)]).sum(0))
for dtype in (torch.float16, torch.complex128):  # staged through float32 / sent as is
    t = torch.tensor([1.5, 2.25]).to(dtype) * (rank + 1)
    dist.all_reduce(t)
    assert t.dtype == dtype and t.tolist() == (torch.tensor([1.5, 2.25]).to(dtype)
                                               * (size * (size + 1) // 2)).tolist()
flags = torch.tensor([rank == 0, True, False])
dist.all_reduce(flags, op=dist.ReduceOp.MAX)
check(flags, np.array([True, True, False]))

objects = [{"rank": rank}, "x"] if rank == 0 else [None, None]
dist.broadcast_object_list(objects, src=0)
assert objects == [{"rank": 0}, "x"]
gathered = [None] * size
dist.all_gather_object(gathered, ("hello", rank))
assert gathered == [("hello", r) for r in range(size)]

# a subgroup of the even ranks: ranks are global in src, local in get_rank
evens = dist.new_group(list(range(0, size, 2)))
if rank % 2 == 0:
    t = data(rank, "int64")
    dist.all_reduce(t, group=evens)
    check(t, sum(data(r, "int64").numpy() for r in range(0, size, 2)))
    assert dist.get_rank(evens) == rank // 2
else:
    assert evens == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(evens) == -1

try:
    dist.all_gather([torch.zeros(2) for _ in range(size)], torch.zeros(3))
    raise AssertionError("all_gather accepted mismatched shapes")
except RuntimeError as error:
    assert "invalid tensor size at index 0 (expected (3), got (2))" in str(error), error
dist.barrier()
assert dist.get_backend() == "gloo"
dist.destroy_process_group()
assert not dist.is_initialized()
print("OK", rank)
