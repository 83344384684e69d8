"""tapegrad.distributed: torch.distributed's collectives, carried by MPI (mpi4py).

Every byte between processes goes through MPI: the collectives hand the tensors' NumPy arrays
to mpi4py's buffer API (Allreduce, Bcast, ...) and work on them in place, as torch does on its
storages. Both "mpi" and "gloo" (the backend torch CPU scripts name) run on MPI. Rank and world
size are MPI's; torch's environment variables (RANK, WORLD_SIZE), when set, must agree.
mpi4py is imported only when a process group is made, so this module imports without it.
"""
from __future__ import annotations

import enum
import os
import pickle
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from datetime import timedelta

    from .._device import device as _device
    from .._tensor import Tensor

__all__ = ["GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
           "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all",
           "all_to_all_single", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "gather_object", "get_backend", "get_rank",
           "get_world_size", "group", "init_process_group", "irecv", "is_available",
           "is_gloo_available", "is_initialized", "is_mpi_available", "isend", "new_group",
           "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send"]

_BACKENDS = ("mpi", "gloo")
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def _mpi() -> Any:
    """mpi4py's MPI module, or an ImportError that names the extra to install."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError("tapegrad.distributed needs mpi4py and an MPI library: "
                          "pip install 'tapegrad[distributed]' (mpi4py and mpich)") from error
    return MPI


def is_available() -> bool:
    """Whether process groups can be made: mpi4py (and the MPI it loads) importable."""
    try:
        _mpi()
    except ImportError:
        return False
    return True


is_mpi_available = is_gloo_available = is_available


class ReduceOp:
    """The reductions of all_reduce, reduce and reduce_scatter (torch's names)."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


def _mpi_op(op: ReduceOp.RedOpType) -> Any:
    MPI = _mpi()
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


class ProcessGroup:
    """A set of ranks with its own MPI communicator (the world's, or one new_group made)."""

    def __init__(self, comm: Any, backend: str) -> None:
        self.comm = comm  # an mpi4py Comm
        self.backend = backend

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def group_rank(self, global_rank: int) -> int:
        """The rank in this group of a rank of the world (torch's src/dst are global)."""
        MPI = _mpi()
        if self is _world() or not 0 <= global_rank < _world().size():
            return global_rank  # out of range: the op's own check names it
        rank, = MPI.Group.Translate_ranks(_world().comm.Get_group(), [global_rank],
                                          self.comm.Get_group())
        if rank == MPI.UNDEFINED:
            raise ValueError(f"Group {self} does not contain global rank {global_rank}.")
        return rank

    def name(self) -> str:
        return "ProcessGroupGloo" if self.backend == "gloo" else "ProcessGroupMPI"


class GroupMember:
    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD: ProcessGroup | None = None


def _world() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _group(group: ProcessGroup | None) -> ProcessGroup | None:
    """The group an op runs on; None for a rank outside it (the op is then skipped)."""
    world = _world()
    if group is None or group is GroupMember.WORLD:
        return world
    return None if group == GroupMember.NON_GROUP_MEMBER else group


class Work:
    """The handle of an async_op=True collective or of isend/irecv: wait() completes it."""

    def __init__(self, requests: Any = (), finish: Callable[[], Any] | None = None) -> None:
        self._requests = list(requests)  # mpi4py Requests
        self._finish = finish
        self._done = False
        self._result: Any = None

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._result = self._finish()

    def wait(self, timeout: timedelta | None = None) -> bool:
        if not self._done:
            _mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self) -> bool:
        if not self._done and _mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def result(self) -> Any:
        self.wait()
        return self._result


class _ReceiveWork(Work):
    """irecv's handle: Request.Waitall fills no status, so wait() takes it from Wait, and
    recv can name the sender."""

    def __init__(self, request: Any, status: Any, finish: Callable[[], Any]) -> None:
        super().__init__([request], finish)
        self._status = status

    def wait(self, timeout: timedelta | None = None) -> bool:
        if not self._done:
            self._requests[0].Wait(self._status)
            self._complete()
        return True


def _run(async_op: bool, start: Callable[[], list[Any]],
         finish: Callable[[], Any] | None = None) -> Work | None:
    """start() posts nonblocking MPI requests; finish() copies results back once they are done."""
    work = Work(start(), finish)
    if async_op:
        return work
    work.wait()
    return None


# ---- buffers: the arrays MPI reads and writes -----------------------------------------------

def _buffer(tensor: Tensor) -> tuple[np.ndarray, Callable[[], None]]:
    """A C-contiguous array MPI can write into, and how to put it back into the tensor."""
    array = tensor._data
    if array.flags.c_contiguous and array.flags.writeable and _has_mpi_type(array.dtype):
        return array, lambda: None
    staging = np.ascontiguousarray(array, dtype=_transport_dtype(array.dtype))

    def write_back() -> None:
        array[...] = staging.astype(array.dtype, copy=False)
    return staging, write_back


def _has_mpi_type(dtype: np.dtype) -> bool:
    return (dtype.kind in "iu" or dtype.kind == "f" and dtype.itemsize in (4, 8)
            or dtype.kind == "c" and dtype.itemsize in (8, 16))


def _transport_dtype(dtype: np.dtype) -> np.dtype:
    """An MPI-reducible dtype holding every value of dtype exactly (half, bfloat16 and bool
    have no MPI reduction)."""
    if _has_mpi_type(dtype):
        return dtype
    if dtype == np.bool_:
        return np.dtype(np.uint8)
    return np.dtype(np.float32)


def _check_same_shape(group: ProcessGroup, op_name: str, expected: Tensor,
                      tensors: list[Tensor], role: str) -> None:
    """One tensor per rank (role: "input" or "output"), each of expected's shape and dtype."""
    if len(tensors) != group.size():
        raise RuntimeError(f"{group.name()}::{op_name}: invalid {role} tensor list size "
                           f"(expected {group.size()}, got {len(tensors)})")
    for i, tensor in enumerate(tensors):
        if tuple(tensor.shape) != tuple(expected.shape) or tensor.dtype != expected.dtype:
            shape = ", ".join(map(str, expected.shape))
            got = ", ".join(map(str, tensor.shape))
            raise RuntimeError(f"{group.name()}::{op_name}: invalid tensor size at index {i} "
                               f"(expected ({shape}), got ({got}))")


def _check_root(group: ProcessGroup, op_name: str, root: int) -> None:
    if not 0 <= root < group.size():
        raise RuntimeError(f"{group.name()}::{op_name}: invalid root rank: {root}")


def _root(group: ProcessGroup, op_name: str, src: int, group_src: int | None) -> int:
    root = group.group_rank(src) if group_src is None else group_src
    _check_root(group, op_name, root)
    return root


def _average(array: np.ndarray, size: int) -> None:
    if array.dtype.kind in "iub":
        np.floor_divide(array, size, out=array)
    else:
        np.divide(array, size, out=array)


# ---- the process group ----------------------------------------------------------------------

def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: _device | int | None = None) -> None:
    """Join the default group: every process mpiexec started. init_method, store and timeout
    are accepted for torch scripts and unused: MPI has already met its peers."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    backend = "gloo" if backend is None else str(backend).lower()
    if backend not in _BACKENDS:
        raise ValueError(f"Invalid backend: '{backend}'. tapegrad.distributed runs on MPI "
                         f"and accepts the backends {list(_BACKENDS)}.")
    MPI = _mpi()
    comm = MPI.COMM_WORLD.Dup()
    for name, given in (("rank", rank), ("world_size", world_size)):
        mpi_value = comm.Get_rank() if name == "rank" else comm.Get_size()
        env_name = name.upper()
        claims = [(f"{name}={given}", int(given))] if given != -1 else []
        if os.environ.get(env_name):
            claims.append((f"environment variable {env_name}={os.environ[env_name]}",
                           int(os.environ[env_name])))
        for what, value in claims:
            if value != mpi_value:
                comm.Free()
                raise ValueError(f"{what} disagrees with MPI, which gives this process "
                                 f"{name} {mpi_value}: launch the script with "
                                 f"`mpiexec -n N` (or python -m tapegrad.distributed.run)")
    GroupMember.WORLD = group.WORLD = ProcessGroup(comm, backend)


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    if group is None or group is GroupMember.WORLD:
        _world().comm.Free()
        GroupMember.WORLD = globals()["group"].WORLD = None
    elif group != GroupMember.NON_GROUP_MEMBER:
        group.comm.Free()


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in group; -1 when it is not a member."""
    group = _group(group)
    return -1 if group is None else group.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    group = _group(group)
    return -1 if group is None else group.size()


def get_backend(group: ProcessGroup | None = None) -> str:
    group = _group(group)
    if group is None:
        raise ValueError("Invalid process group specified")
    return group.backend


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None,
              backend: str | None = None, pg_options: Any = None,
              use_local_synchronization: bool = False, group_desc: str | None = None,
              device_id: _device | None = None) -> Any:
    """A group of the given world ranks; every world rank must call it, as in torch. A rank
    outside it gets GroupMember.NON_GROUP_MEMBER (an int, as in torch: hence Any, so that
    either passes as a group)."""
    world = _world()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    members = world.comm.Get_group().Incl(ranks)
    comm = world.comm.Create_group(members)
    members.Free()
    if comm == _mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, world.backend if backend is None else str(backend).lower())


# ---- collectives ----------------------------------------------------------------------------

def barrier(group: ProcessGroup | None = None, async_op: bool = False,
            device_ids: list[int] | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    return _run(async_op, lambda: [group.comm.Ibarrier()])


def all_reduce(tensor: Tensor, op: ReduceOp.RedOpType = ReduceOp.SUM,
               group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Reduce tensor over the group, leaving the result in it on every rank."""
    group = _group(group)
    if group is None:
        return None
    buffer, write_back = _buffer(tensor)

    def finish():
        if op == ReduceOp.AVG:
            _average(buffer, group.size())
        write_back()
    return _run(async_op, lambda: [group.comm.Iallreduce(_mpi().IN_PLACE, buffer, _mpi_op(op))],
                finish)


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp.RedOpType = ReduceOp.SUM,
           group: ProcessGroup | None = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    root = _root(group, "reduce", 0 if dst is None else dst, group_dst)
    buffer, write_back = _buffer(tensor)
    is_root = group.rank() == root
    send = _mpi().IN_PLACE if is_root else buffer

    def finish():
        if is_root:
            if op == ReduceOp.AVG:
                _average(buffer, group.size())
            write_back()
    return _run(async_op, lambda: [group.comm.Ireduce(send, buffer if is_root else None,
                                                      _mpi_op(op), root)], finish)


def broadcast(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
              async_op: bool = False, group_src: int | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    root = _root(group, "broadcast", 0 if src is None else src, group_src)
    buffer, write_back = _buffer(tensor)
    return _run(async_op, lambda: [group.comm.Ibcast(buffer, root)], write_back)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """tensor from every rank into tensor_list[rank]."""
    group = _group(group)
    if group is None:
        return None
    _check_same_shape(group, "allgather", tensor, tensor_list, "output")
    send = _send_array(tensor)
    gathered = np.empty((group.size(),) + send.shape, send.dtype)

    def finish():
        for row, out in zip(gathered, tensor_list):
            out._data[...] = row
    return _run(async_op, lambda: [group.comm.Iallgather(send, gathered)], finish)


def _send_array(tensor: Tensor) -> np.ndarray:
    return np.ascontiguousarray(tensor._data, dtype=_transport_dtype(tensor._data.dtype))


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor,
                           group: ProcessGroup | None = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's input, concatenated along dim 0 (or stacked) into output_tensor."""
    group = _group(group)
    if group is None:
        return None
    if output_tensor.numel() != group.size() * input_tensor.numel() or \
            output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"{group.name()}::allgather: invalid tensor size at index 0 "
                           f"(expected ({', '.join(map(str, input_tensor.shape))}), got "
                           f"({', '.join(map(str, output_tensor.shape))}))")
    send = _send_array(input_tensor)
    buffer, write_back = _buffer(output_tensor)
    return _run(async_op, lambda: [group.comm.Iallgather(send, buffer)], write_back)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: ProcessGroup | None = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    root = _root(group, "gather", 0 if dst is None else dst, group_dst)
    is_root = group.rank() == root
    send = _send_array(tensor)
    if is_root:
        if gather_list is None or len(gather_list) != group.size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_same_shape(group, "gather", tensor, gather_list, "output")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    gathered = np.empty((group.size(),) + send.shape, send.dtype) if is_root else None

    def finish():
        if is_root:
            for row, out in zip(gathered, gather_list):
                out._data[...] = row
    return _run(async_op, lambda: [group.comm.Igather(send, gathered, root)], finish)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: ProcessGroup | None = None, async_op: bool = False,
            group_src: int | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    root = _root(group, "scatter", 0 if src is None else src, group_src)
    is_root = group.rank() == root
    if is_root:
        if scatter_list is None or len(scatter_list) != group.size():
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_same_shape(group, "scatter", tensor, scatter_list, "input")
        send = np.stack([_send_array(t) for t in scatter_list]) if scatter_list[0].numel() \
            else np.empty((group.size(),) + tuple(tensor.shape), _send_array(tensor).dtype)
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    else:
        send = None
    buffer, write_back = _buffer(tensor)
    return _run(async_op, lambda: [group.comm.Iscatter(send, buffer, root)], write_back)


def reduce_scatter_tensor(output: Tensor, input: Tensor,
                          op: ReduceOp.RedOpType = ReduceOp.SUM,
                          group: ProcessGroup | None = None,
                          async_op: bool = False) -> Work | None:
    """Reduce input over the group; rank r keeps the r-th of its world_size equal blocks."""
    group = _group(group)
    if group is None:
        return None
    if input.numel() != group.size() * output.numel() or output.dtype != input.dtype:
        raise RuntimeError(f"{group.name()}::reduce_scatter: invalid tensor size at index 0 "
                           f"(expected ({', '.join(map(str, output.shape))}), got "
                           f"({', '.join(map(str, input.shape))}))")
    send = _send_array(input)
    buffer, write_back = _buffer(output)

    def finish():
        if op == ReduceOp.AVG:
            _average(buffer, group.size())
        write_back()
    return _run(async_op, lambda: [group.comm.Ireduce_scatter_block(send, buffer, _mpi_op(op))],
                finish)


def reduce_scatter(output: Tensor, input_list: list[Tensor],
                   op: ReduceOp.RedOpType = ReduceOp.SUM, group: ProcessGroup | None = None,
                   async_op: bool = False) -> Work | None:
    """Reduce the list over the group; rank r keeps the reduction of input_list[r]."""
    group = _group(group)
    if group is None:
        return None
    _check_same_shape(group, "reduce_scatter", output, input_list, "input")
    from .. import stack
    return reduce_scatter_tensor(output, stack(list(input_list)), op, group, async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None,
                      group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Rank r sends the r-th dim-0 slice of input to every rank, receiving theirs into output."""
    group = _group(group)
    if group is None:
        return None
    size = group.size()
    row = int(np.prod(input.shape[1:], dtype=np.int64))
    in_splits = input_split_sizes or [input.shape[0] // size] * size if input.dim() else [0] * size
    out_splits = output_split_sizes or [output.shape[0] // size] * size if output.dim() else \
        [0] * size
    if sum(in_splits) * row != input.numel() or sum(out_splits) * row != output.numel():
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    send = _send_array(input)
    buffer, write_back = _buffer(output)
    send_counts = [n * row for n in in_splits]
    recv_counts = [n * row for n in out_splits]
    return _run(async_op, lambda: [group.comm.Ialltoallv(
        (send, (send_counts, np.cumsum([0] + send_counts[:-1]).tolist())),
        (buffer, (recv_counts, np.cumsum([0] + recv_counts[:-1]).tolist())))], write_back)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """input_tensor_list[j] of rank r goes to output_tensor_list[r] of rank j."""
    group = _group(group)
    if group is None:
        return None
    sends = [_send_array(t).reshape(-1) for t in input_tensor_list]
    dtype = sends[0].dtype
    send = np.concatenate(sends) if sends else np.empty(0, dtype)
    receive = np.empty(sum(t.numel() for t in output_tensor_list), dtype)
    send_counts = [s.size for s in sends]
    recv_counts = [t.numel() for t in output_tensor_list]
    recv_offsets = np.cumsum([0] + recv_counts[:-1]).tolist()

    def finish():
        for out, start, count in zip(output_tensor_list, recv_offsets, recv_counts):
            out._data[...] = receive[start:start + count].reshape(out.shape)
    return _run(async_op, lambda: [group.comm.Ialltoallv(
        (send, (send_counts, np.cumsum([0] + send_counts[:-1]).tolist())),
        (receive, (recv_counts, recv_offsets)))], finish)


# ---- point to point -------------------------------------------------------------------------

def _peer(group, peer, group_peer, what):
    rank = group.group_rank(peer) if group_peer is None else group_peer
    if rank == group.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank "
                         "of the current process.")
    return rank


def isend(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None,
          tag: int = 0, group_dst: int | None = None) -> Work | None:
    group = _group(group)
    if group is None:
        return None
    peer = _peer(group, dst, group_dst, "destination")
    send = _send_array(tensor)
    return Work([group.comm.Isend(send, peer, tag)])


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
          tag: int = 0, group_src: int | None = None) -> Work | None:
    """Receive into tensor; with src None, from any rank (wait(); the work's result() is it)."""
    MPI = _mpi()
    group = _group(group)
    if group is None:
        return None
    peer = MPI.ANY_SOURCE if src is None and group_src is None else \
        _peer(group, src, group_src, "source")
    buffer, write_back = _buffer(tensor)
    status = MPI.Status()
    request = group.comm.Irecv(buffer, peer, tag)

    def finish() -> int:
        write_back()
        return status.Get_source()
    return _ReceiveWork(request, status, finish)


def send(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None,
         tag: int = 0, group_dst: int | None = None) -> None:
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:  # None on a rank outside the group, which skips the send (torch's)
        work.wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
         tag: int = 0, group_src: int | None = None) -> int:
    """Receive into tensor; returns the sender's rank (in the world, as torch)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    group = _group(group)
    sender = work._result
    return _world_rank(group, sender)


def _world_rank(group, rank):
    rank, = _mpi().Group.Translate_ranks(group.comm.Get_group(), [rank],
                                         _world().comm.Get_group())
    return rank


# ---- Python objects (pickled, then through MPI) ---------------------------------------------

def broadcast_object_list(object_list: list[Any], src: int | None = None,
                          group: ProcessGroup | None = None, device: _device | None = None,
                          group_src: int | None = None) -> None:
    group = _group(group)
    if group is None:
        return
    root = _root(group, "broadcast", 0 if src is None else src, group_src)
    payload = pickle.dumps(list(object_list)) if group.rank() == root else None
    object_list[:] = pickle.loads(group.comm.bcast(payload, root))


def all_gather_object(object_list: list[Any], obj: Any,
                      group: ProcessGroup | None = None) -> None:
    group = _group(group)
    if group is None:
        return
    object_list[:] = [pickle.loads(p) for p in group.comm.allgather(pickle.dumps(obj))]


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None,
                  group: ProcessGroup | None = None, group_dst: int | None = None) -> None:
    group = _group(group)
    if group is None:
        return
    root = _root(group, "gather", 0 if dst is None else dst, group_dst)
    gathered = group.comm.gather(pickle.dumps(obj), root)
    if group.rank() == root:
        if object_gather_list is None:  # checked after the gather, so the others do not hang
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        object_gather_list[:] = [pickle.loads(p) for p in gathered]
