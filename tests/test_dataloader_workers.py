"""DataLoader with worker processes (num_workers > 0), against num_workers=0 and torch: the
same batches in the same order, worker info and seeds as torch's, worker_init_fn, iterable
datasets sharded by worker, persistent workers, errors raised in workers, timeouts. Each test
starts at most two workers, which stop with the iteration."""
import os
import time
import warnings

import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip


def _dataset_class(lib):
    class Numbers(lib.utils.data.Dataset):
        """Sample i: (i, a random number drawn in the process that fetches it, worker id)."""

        def __len__(self):
            return 11

        def __getitem__(self, index):
            info = lib.utils.data.get_worker_info()
            return lib.tensor([float(index), float(lib.rand(()).item()),
                               -1.0 if info is None else float(info.id)], dtype=lib.float64)
    return Numbers


def _batches(lib, num_workers, **options):
    lib.manual_seed(0)
    loader = lib.utils.data.DataLoader(_dataset_class(lib)(), batch_size=3, shuffle=True,
                                       num_workers=num_workers, **options)
    return [batch.numpy() for batch in loader]


def test_workers_give_the_batches_of_the_main_process():
    alone, shared = _batches(tapegrad, 0), _batches(tapegrad, 2)
    assert [b[:, 0].tolist() for b in alone] == [b[:, 0].tolist() for b in shared]
    assert {b[0, 2] for b in shared} == {0.0, 1.0}  # both workers fetched batches
    assert all((b[:, 2] == -1).all() for b in alone)


def test_workers_match_torch_batches_and_worker_seeds():
    torch = torch_or_skip()
    mine, theirs = _batches(tapegrad, 2), _batches(torch, 2)
    assert len(mine) == len(theirs)
    for got, want in zip(mine, theirs):
        # indices, which worker fetched them, and the numbers each worker's seeded
        # generator drew (seed = base seed + worker id, as torch)
        np.testing.assert_array_equal(got, want)


def test_shuffle_order_follows_torch_across_epochs():
    torch = torch_or_skip()
    orders = []
    for lib in (tapegrad, torch):
        lib.manual_seed(3)
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(9)),
                                           batch_size=4, shuffle=True)
        orders.append([[b[0].tolist() for b in loader] for _ in range(2)] + [lib.rand(2)
                                                                             .tolist()])
    assert orders[0] == orders[1]


class _Shards(tapegrad.utils.data.IterableDataset):
    """0..9, each worker taking every num_workers-th number from its id on."""

    def __iter__(self):
        info = tapegrad.utils.data.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, 10, step))


def test_iterable_dataset_is_read_by_each_worker_in_turn():
    loader = tapegrad.utils.data.DataLoader(_Shards(), batch_size=2, num_workers=2)
    batches = [batch.tolist() for batch in loader]
    # worker 0 has 0 2 4 6 8, worker 1 has 1 3 5 7 9: their batches alternate
    assert batches == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]


_INIT_MARK = {"value": None}


def _mark_worker(worker_id):
    _INIT_MARK["value"] = 100 + worker_id


class _InitMarks(tapegrad.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        info = tapegrad.utils.data.get_worker_info()
        return tapegrad.tensor([_INIT_MARK["value"], info.num_workers, os.getpid()])


def test_worker_init_fn_runs_in_each_worker_and_persistent_workers_stay():
    loader = tapegrad.utils.data.DataLoader(_InitMarks(), batch_size=1, num_workers=2,
                                            worker_init_fn=_mark_worker,
                                            persistent_workers=True)
    first = [batch[0].tolist() for batch in loader]
    second = [batch[0].tolist() for batch in loader]
    assert sorted({row[0] for row in first}) == [100, 101] and {row[1] for row in first} == {2}
    assert {row[2] for row in first} == {row[2] for row in second}  # the same processes
    assert os.getpid() not in {row[2] for row in first}
    loader._pool.shutdown()


class _Failing(tapegrad.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        if index == 2:
            raise ValueError("no sample 2")
        return tapegrad.tensor(index)


def test_an_error_in_a_worker_is_raised_in_the_main_process():
    loader = tapegrad.utils.data.DataLoader(_Failing(), batch_size=1, num_workers=2)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0"
                                         "(.|\n)*no sample 2"):
        list(loader)


class _Sleepy(tapegrad.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, index):
        time.sleep(3)
        return tapegrad.tensor(index)


def test_timeout_is_torchs_error():
    loader = tapegrad.utils.data.DataLoader(_Sleepy(), num_workers=1, timeout=0.5)
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.5 seconds$"):
        next(iter(loader))


def test_batches_out_of_order_are_all_delivered():
    loader = tapegrad.utils.data.DataLoader(_dataset_class(tapegrad)(), batch_size=2,
                                            num_workers=2, in_order=False)
    seen = sorted(int(i) for batch in loader for i in batch[:, 0].tolist())
    assert seen == list(range(11))


def test_worker_info_is_none_in_the_main_process_and_pin_memory_warns_as_torch():
    torch = torch_or_skip()
    assert tapegrad.utils.data.get_worker_info() is None
    texts = []
    for lib in (tapegrad, torch):
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(3)),
                                           pin_memory=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            iter(loader)
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1]


def test_workers_stop_when_the_iterator_is_dropped_half_way():
    loader = tapegrad.utils.data.DataLoader(_dataset_class(tapegrad)(), batch_size=2,
                                            num_workers=2)
    iterator = iter(loader)
    next(iterator)
    processes = list(iterator.pool.processes)
    del iterator
    for process in processes:
        process.join(timeout=10)
    assert not any(process.is_alive() for process in processes)
