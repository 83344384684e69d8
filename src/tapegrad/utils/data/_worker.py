"""DataLoader worker processes, as torch's: each worker gets tasks (a send index and the
indices of one batch) on its own queue, fetches and collates the batch from its copy of the
dataset, and puts (send index, batch) on the shared result queue; the main process hands out
tasks round-robin, keeps prefetch_factor of them per worker in flight, and yields the batches
in the order they were sent."""
import itertools
import queue
import random
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

POLL_SECONDS = 5.0  # how often a waiting main process checks that its workers are alive


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed, dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: Any  # the worker's copy of the DataLoader's dataset

    def __init__(self, id: int, num_workers: int, seed: int, dataset: Any) -> None:
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value}" for key, value in self.__dict__.items())
        return f"{type(self).__name__}({fields})"


current: WorkerInfo | None = None  # this process's WorkerInfo, in a worker


class _Failure:
    """An exception raised in a worker, carried to the main process as text."""

    def __init__(self, worker_id, error):
        self.kind = type(error)
        self.text = (f"Caught {type(error).__name__} in DataLoader worker process {worker_id}."
                     f"\nOriginal {traceback.format_exc()}")

    def reraise(self):
        try:
            error = self.kind(self.text)
        except Exception:  # noqa: BLE001 - an exception class that takes other arguments
            error = RuntimeError(self.text)
        raise error


class _StreamEnd:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


_RESUME = "resume"  # a persistent worker starts a new epoch


def _seed_worker(seed, base_seed, worker_id):
    """torch's seeding of a worker: Python's and tapegrad's generators from base_seed +
    worker_id, NumPy's global one from a SeedSequence of both."""
    import tapegrad
    random.seed(seed)
    tapegrad.manual_seed(seed)
    mask = 0xFFFFFFFF
    np.random.seed(np.random.SeedSequence([worker_id, base_seed & mask,
                                           base_seed >> 32]).generate_state(4))


# The queues and the context are multiprocessing's (typeshed's BaseContext lacks Process and
# its Queue is not subscriptable at run time), so they are typed Any.
def worker_loop(fetch_factory: Callable[[], Callable[[Any], Any]], tasks: Any, results: Any,
                base_seed: int, init_fn: Callable[[int], None] | None, worker_id: int,
                num_workers: int, dataset: Any) -> None:
    """A worker's life: seed, init_fn, then fetch every task until told to stop (None)."""
    global current
    seed = base_seed + worker_id
    current = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    _seed_worker(seed, base_seed, worker_id)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetch = fetch_factory()
    except Exception as error:  # noqa: BLE001 - reported with the first task's answer
        fetch, failure = None, _Failure(worker_id, error)
    while True:
        task = tasks.get()
        if task is None:
            break
        if task == _RESUME:
            fetch = fetch_factory()
            results.put((_RESUME, worker_id))
            continue
        send_index, indices = task
        if fetch is None:
            results.put((send_index, failure))
            continue
        try:
            data = fetch(indices)
        except StopIteration:
            data = _StreamEnd(worker_id)
        except Exception as error:  # noqa: BLE001 - raised again in the main process
            data = _Failure(worker_id, error)
        results.put((send_index, data))


class WorkerPool:
    """num_workers processes and their queues, started once (and kept when persistent)."""

    def __init__(self, context: Any, num_workers: int,
                 fetch_factory: Callable[[], Callable[[Any], Any]], base_seed: int,
                 init_fn: Callable[[int], None] | None, dataset: Any) -> None:
        self.tasks = [context.Queue() for _ in range(num_workers)]
        self.results = context.Queue()
        self.processes = [
            context.Process(target=worker_loop, daemon=True,
                            args=(fetch_factory, self.tasks[i], self.results, base_seed,
                                  init_fn, i, num_workers, dataset))
            for i in range(num_workers)]
        for process in self.processes:
            process.start()

    def resume(self) -> None:
        """A new epoch for persistent workers: each rebuilds its fetcher, then says so."""
        for task_queue in self.tasks:
            task_queue.put(_RESUME)
        waiting = len(self.tasks)
        while waiting:
            if self.results.get(timeout=60)[0] == _RESUME:
                waiting -= 1

    def get(self, timeout: float) -> tuple[Any, Any]:
        """The next (send index, data) any worker finished; torch's errors for a timeout or
        a worker that died."""
        waited = 0.0
        while True:
            wait = timeout if timeout > 0 else POLL_SECONDS
            try:
                return self.results.get(timeout=wait)
            except queue.Empty:
                waited += wait
                if timeout > 0:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
                dead = [str(p.pid) for p in self.processes if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited "
                                       "unexpectedly") from None

    def shutdown(self) -> None:
        for task_queue, process in zip(self.tasks, self.processes):
            if process.is_alive():
                task_queue.put(None)
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for task_queue in (*self.tasks, self.results):
            task_queue.cancel_join_thread()
            task_queue.close()


_SKIP = object()  # a send index that yields nothing: its worker's stream had ended


class MultiProcessIterator:
    """Batches from a WorkerPool in sampler order (or as they arrive, when not in_order)."""

    def __init__(self, pool: WorkerPool, tasks: Iterator[Any], num_workers: int, prefetch: int,
                 timeout: float, in_order: bool, on_end: Callable[[], None]) -> None:
        self.pool, self.tasks, self.timeout, self.in_order = pool, tasks, timeout, in_order
        self.on_end = on_end  # called once the epoch is over (shuts a non-persistent pool)
        self.closed = False
        self.active = [True] * num_workers
        self.next_worker = itertools.cycle(range(num_workers))
        self.sent = self.received = 0
        self.waiting: set[int] = set()  # send indices whose data has not arrived
        self.arrived: dict[int, Any] = {}  # send index -> data that came before its turn
        for _ in range(prefetch * num_workers):
            self._send()

    def _send(self):
        """Hand the next task to the next worker whose stream has not ended."""
        task = next(self.tasks, _SKIP)
        if task is _SKIP or not any(self.active):
            return
        worker = next(self.next_worker)
        while not self.active[worker]:
            worker = next(self.next_worker)
        self.pool.tasks[worker].put((self.sent, task))
        self.waiting.add(self.sent)
        self.sent += 1

    def __iter__(self) -> "MultiProcessIterator":
        return self

    def __next__(self) -> Any:
        while True:
            while self.arrived.get(self.received) is _SKIP:
                del self.arrived[self.received]
                self.received += 1
            if self.received in self.arrived:
                return self._deliver(self.arrived.pop(self.received))
            if not self.waiting:
                self.close()
                raise StopIteration
            index, data = self.pool.get(self.timeout)
            self.waiting.discard(index)
            if isinstance(data, _StreamEnd):
                self.active[data.worker_id] = False
                if self.in_order:
                    self.arrived[index] = _SKIP
                self._send()
            elif self.in_order and index != self.received:
                self.arrived[index] = data
            else:
                return self._deliver(data)

    def _deliver(self, data):
        self.received += 1
        self._send()
        if isinstance(data, _Failure):
            self.close()
            data.reraise()
        return data

    def close(self) -> None:
        """End the epoch: its last batch, an error, or the iterator dropped half way (a
        non-persistent pool's workers stop then)."""
        if not self.closed:
            self.closed = True
            self.on_end()

    __del__ = close
