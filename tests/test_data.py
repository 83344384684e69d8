"""tapegrad.utils.data: datasets, samplers, collation and the DataLoader, checked against torch.

Most checks build the same pipeline from the same source with `lib` set to tapegrad or torch
and compare the batches (values, dtypes, container types) or the errors (type and text).
Shuffled orders come from different random streams, so for those only reproducibility and
the permutation property are checked.
"""
import collections
import warnings

import numpy as np
import pytest

import tapegrad
import tapegrad.utils.data as data
from compare import same_error, torch_or_skip

Point = collections.namedtuple("Point", "x y")


def _assert_same(ours, theirs):
    """Batches equal in structure, container types, tensor dtypes and values."""
    torch = torch_or_skip()
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tapegrad.Tensor)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    elif isinstance(theirs, (dict, list, tuple)):
        assert type(ours) is type(theirs)
        assert len(ours) == len(theirs)
        if isinstance(theirs, dict):
            assert list(ours) == list(theirs)
            ours, theirs = list(ours.values()), list(theirs.values())
        for mine, other in zip(ours, theirs):
            _assert_same(mine, other)
    else:
        assert type(ours) is type(theirs) and ours == theirs


def _tensor_dataset(lib, n=10):
    features = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    return lib.utils.data.TensorDataset(lib.from_numpy(features),
                                        lib.from_numpy(np.arange(n) % 3))


class SampleDataset:
    """Map-style dataset whose samples mix NumPy arrays, numbers, strings and containers."""

    def __init__(self, make_sample, n=7):
        self.make_sample, self.n = make_sample, n

    def __getitem__(self, index):
        return self.make_sample(index)

    def __len__(self):
        return self.n


def _compare_loaders(dataset, **options):
    torch = torch_or_skip()
    ours = list(data.DataLoader(dataset, **options))
    theirs = list(torch.utils.data.DataLoader(dataset, **options))
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        _assert_same(mine, other)
    return ours


# ---- datasets --------------------------------------------------------------------------------

def test_tensor_dataset_indexing_and_length():
    dataset = _tensor_dataset(tapegrad)
    features, label = dataset[4]
    assert len(dataset) == 10
    np.testing.assert_array_equal(features.numpy(), [12.0, 13.0, 14.0])
    assert label.item() == 1 and label.dtype is tapegrad.int64


def test_tensor_dataset_size_mismatch_error():
    same_error(lambda lib: lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4)))
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(tapegrad.zeros(3), tapegrad.zeros(4))


def test_dataset_base_getitem_error():
    same_error(lambda lib: lib.utils.data.Dataset()[0])


def test_concat_dataset_indexing():
    first, second = list(range(3)), list(range(10, 15))
    both = data.ConcatDataset([first, second])
    assert len(both) == 8 and both.cumulative_sizes == [3, 8]
    assert [both[i] for i in range(8)] == first + second
    assert both[-1] == 14 and both[-8] == 0


def test_concat_dataset_errors_match_torch():
    same_error(lambda lib: lib.utils.data.ConcatDataset([]))
    same_error(lambda lib: lib.utils.data.ConcatDataset([[1, 2]])[-3])
    same_error(lambda lib: lib.utils.data.ConcatDataset([CountUp(lib.utils.data, 2)]))


def test_dataset_add_makes_concat():
    joined = _tensor_dataset(tapegrad, 4) + _tensor_dataset(tapegrad, 2)
    assert isinstance(joined, data.ConcatDataset) and len(joined) == 6
    assert joined[5][0].tolist() == [3.0, 4.0, 5.0]


def test_subset_reads_given_indices():
    subset = data.Subset(list("abcdef"), [4, 0, 2])
    assert len(subset) == 3
    assert [subset[i] for i in range(3)] == ["e", "a", "c"]
    assert subset.__getitems__([2, 1]) == ["c", "a"]


def test_dataset_generic_subscription():
    class Numbers(data.Dataset[int]):
        def __getitem__(self, index):
            return index
    assert Numbers()[3] == 3


# ---- random_split ----------------------------------------------------------------------------

def test_random_split_lengths_disjoint_and_covering():
    parts = data.random_split(range(30), [5, 10, 15], generator=tapegrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 10, 15]
    seen = [parts[k][i] for k in range(3) for i in range(len(parts[k]))]
    assert sorted(seen) == list(range(30))


def test_random_split_fractions_match_torch_sizes():
    torch = torch_or_skip()
    for total, fractions in [(10, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (7, [0.1, 0.2, 0.7])]:
        ours = data.random_split(range(total), fractions)
        theirs = torch.utils.data.random_split(range(total), fractions)
        assert [len(p) for p in ours] == [len(p) for p in theirs]


def test_random_split_reproducible_with_generator():
    def split():
        parts = data.random_split(range(20), [0.5, 0.5],
                                  generator=tapegrad.Generator().manual_seed(7))
        return [list(p.indices) for p in parts]
    assert split() == split()
    tapegrad.manual_seed(3)
    first = [list(p.indices) for p in data.random_split(range(20), [10, 10])]
    tapegrad.manual_seed(3)
    assert first == [list(p.indices) for p in data.random_split(range(20), [10, 10])]


def test_random_split_errors_match_torch():
    same_error(lambda lib: lib.utils.data.random_split(range(10), [3, 3]))
    same_error(lambda lib: lib.utils.data.random_split(range(10), [1.5, -0.5]))


def test_random_split_empty_part_warns():
    with pytest.warns(UserWarning) as record:
        parts = data.random_split(range(2), [0.9, 0.05, 0.05])
    assert [len(p) for p in parts] == [2, 0, 0]  # floors 1, 0, 0; the remainder goes first
    assert [str(w.message) for w in record] == [
        f"Length of split at index {i} is 0. This might result in an empty dataset."
        for i in (1, 2)]


# ---- samplers --------------------------------------------------------------------------------

def test_sequential_and_batch_sampler_match_torch():
    torch = torch_or_skip()
    for drop_last in (False, True):
        ours = data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last)
        theirs = torch.utils.data.BatchSampler(range(10), 3, drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_batch_sampler_errors_match_torch():
    same_error(lambda lib: lib.utils.data.BatchSampler(range(4), 0, False))
    same_error(lambda lib: lib.utils.data.BatchSampler(range(4), True, False))
    same_error(lambda lib: lib.utils.data.BatchSampler(range(4), 2, 1))


def test_random_sampler_is_a_seeded_permutation():
    def order(seed):
        return list(data.RandomSampler(range(50), generator=tapegrad.Generator().manual_seed(seed)))
    assert sorted(order(0)) == list(range(50))
    assert order(0) == order(0)
    assert order(0) != order(1)


def test_random_sampler_num_samples_and_replacement():
    generator = tapegrad.Generator().manual_seed(0)
    more = list(data.RandomSampler(range(4), num_samples=10, generator=generator))
    assert len(more) == 10 and sorted(more[:8]) == [0, 0, 1, 1, 2, 2, 3, 3]
    drawn = list(data.RandomSampler(range(4), replacement=True, num_samples=200,
                                    generator=generator))
    assert len(drawn) == 200 and set(drawn) == {0, 1, 2, 3}


def test_random_sampler_errors_match_torch():
    same_error(lambda lib: lib.utils.data.RandomSampler(range(4), replacement=1))
    same_error(lambda lib: lib.utils.data.RandomSampler(range(4), num_samples=0))
    same_error(lambda lib: lib.utils.data.RandomSampler([]))


def test_subset_random_sampler_permutes_indices():
    sampler = data.SubsetRandomSampler([3, 5, 9, 11], generator=tapegrad.Generator().manual_seed(2))
    assert sorted(sampler) == [3, 5, 9, 11] and len(sampler) == 4


def test_weighted_random_sampler_follows_weights():
    generator = tapegrad.Generator().manual_seed(0)
    drawn = np.array(list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000,
                                                     generator=generator)))
    assert 0 not in drawn
    # Binomial(4000, 0.75) has standard deviation 27: 0.03 is over 4 of them.
    assert abs(np.mean(drawn == 2) - 0.75) < 0.03
    unique = list(data.WeightedRandomSampler([1.0, 0.0, 2.0, 5.0], 3, replacement=False,
                                             generator=generator))
    assert sorted(unique) == [0, 2, 3]


def test_weighted_random_sampler_errors_match_torch():
    same_error(lambda lib: lib.utils.data.WeightedRandomSampler([[1.0]], 2))
    same_error(lambda lib: lib.utils.data.WeightedRandomSampler([1.0], -1))
    same_error(lambda lib: list(lib.utils.data.WeightedRandomSampler([1.0, 0.0], 3, False)))
    same_error(lambda lib: list(lib.utils.data.WeightedRandomSampler([0.0, 0.0], 1)))
    same_error(lambda lib: list(lib.utils.data.WeightedRandomSampler([-1.0, 1.0], 1)))


def test_weighted_random_sampler_zero_weights_come_last():
    generator = tapegrad.Generator().manual_seed(1)
    for _ in range(5):
        drawn = list(data.WeightedRandomSampler([0.0, 2.0, 0.0, 1.0], 4, False, generator))
        assert sorted(drawn[:2]) == [1, 3] and sorted(drawn[2:]) == [0, 2]


# ---- collation --------------------------------------------------------------------------------

@pytest.mark.parametrize("make_sample", [
    lambda i: (np.full(2, i, np.float32), i),
    lambda i: {"image": np.full((2, 2), i, np.float64), "label": i, "name": f"s{i}"},
    lambda i: Point(float(i), np.int32(i)),
    lambda i: [np.float32(i), i % 2 == 0, np.int16(i)],
    lambda i: {"nested": {"a": (i, 2.5 * i)}, "flag": np.bool_(i % 2)},
    lambda i: np.uint8(i),
    lambda i: b"bytes",
], ids=["tuple", "dict", "namedtuple", "list", "nested", "numpy_scalar", "bytes"])
def test_default_collate_matches_torch(make_sample):
    _compare_loaders(SampleDataset(make_sample), batch_size=3)


def test_dataloader_tensor_batches_match_torch():
    torch = torch_or_skip()
    for options in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 4},
                    {"batch_size": 1}):
        ours = data.DataLoader(_tensor_dataset(tapegrad), **options)
        theirs = torch.utils.data.DataLoader(_tensor_dataset(torch), **options)
        assert len(ours) == len(theirs)
        for mine, other in zip(ours, theirs):
            _assert_same(mine, other)


def test_default_collate_known_structures():
    batch = [(np.full(2, i, np.float32), i, {"name": f"s{i}", "value": i / 2}) for i in range(3)]
    images, labels, info = data.default_collate(batch)
    assert images.dtype is tapegrad.float32 and images.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert labels.dtype is tapegrad.int64 and labels.tolist() == [0, 1, 2]
    assert info["name"] == ["s0", "s1", "s2"] and info["value"].tolist() == [0.0, 0.5, 1.0]
    point = data.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(point) is Point and point.x.tolist() == [1, 3] and point.y.tolist() == [2.0, 4.0]


def test_dataloader_known_batches():
    loader = data.DataLoader(_tensor_dataset(tapegrad, 5), batch_size=2)
    batches = [(features.tolist(), labels.tolist()) for features, labels in loader]
    assert len(loader) == 3 and batches == [
        ([[0, 1, 2], [3, 4, 5]], [0, 1]), ([[6, 7, 8], [9, 10, 11]], [2, 0]),
        ([[12, 13, 14]], [1])]
    loader = data.DataLoader(_tensor_dataset(tapegrad, 5), batch_size=2, drop_last=True)
    assert len(loader) == 2 and len(list(loader)) == 2


def test_dataloader_without_batching_converts_like_torch():
    batches = _compare_loaders(SampleDataset(lambda i: (np.ones(2) * i, i)), batch_size=None)
    assert len(batches) == 7


def test_default_collate_errors_match_torch():
    same_error(lambda lib: lib.utils.data.default_collate([[1, 2], [3]]))
    same_error(lambda lib: lib.utils.data.default_collate([object(), object()]))
    same_error(lambda lib: lib.utils.data.default_collate([np.array(["a"]), np.array(["b"])]))


def test_default_collate_numbers_dtypes():
    assert data.default_collate([1.0, 2.0]).dtype is tapegrad.float64
    assert data.default_collate([1, 2]).dtype is tapegrad.int64
    assert data.default_collate([True, False]).dtype is tapegrad.bool
    assert data.default_collate(["a", "b"]) == ["a", "b"]


# ---- DataLoader -------------------------------------------------------------------------------

def _label_order(loader):
    return [label for _, labels in loader for label in labels.tolist()]


def test_dataloader_shuffle_with_generator_is_reproducible():
    def loader(seed):
        return data.DataLoader(data.TensorDataset(tapegrad.arange(40)), batch_size=6,
                               shuffle=True, generator=tapegrad.Generator().manual_seed(seed))
    first = [batch[0].tolist() for batch in loader(0)]
    assert first == [batch[0].tolist() for batch in loader(0)]
    assert sorted(sum(first, [])) == list(range(40))
    assert [len(b) for b in first] == [6] * 6 + [4]
    same_loader = loader(0)
    epochs = [[b[0].tolist() for b in same_loader] for _ in range(2)]
    assert epochs[0] == first and epochs[1] != first  # the generator moves on between epochs


def test_dataloader_shuffle_follows_global_seed():
    dataset = _tensor_dataset(tapegrad, 30)
    tapegrad.manual_seed(5)
    first = _label_order(data.DataLoader(dataset, batch_size=4, shuffle=True))
    tapegrad.manual_seed(5)
    assert first == _label_order(data.DataLoader(dataset, batch_size=4, shuffle=True))


def test_dataloader_custom_sampler_and_batch_sampler():
    dataset = list(range(10, 20))
    reverse = list(range(9, -1, -1))
    loader = data.DataLoader(dataset, batch_size=4, sampler=reverse)
    assert [b.tolist() for b in loader] == [[19, 18, 17, 16], [15, 14, 13, 12], [11, 10]]
    loader = data.DataLoader(dataset, batch_sampler=[[0, 1], [5, 6, 7]])
    assert [b.tolist() for b in loader] == [[10, 11], [15, 16, 17]] and len(loader) == 2


def test_dataloader_custom_collate_fn():
    loader = data.DataLoader(range(5), batch_size=2, collate_fn=lambda batch: sum(batch))
    assert list(loader) == [1, 5, 4]


def test_dataloader_uses_getitems_when_present():
    class Batched(data.Dataset):
        calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [tapegrad.tensor(i) for i in indices]

        def __len__(self):
            return 5
    assert [b.tolist() for b in data.DataLoader(Batched(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert Batched.calls == [[0, 1], [2, 3], [4]]


def test_dataloader_workers_give_the_same_batches():
    plain = [b[1].tolist() for b in data.DataLoader(_tensor_dataset(tapegrad), batch_size=4)]
    workers = data.DataLoader(_tensor_dataset(tapegrad), batch_size=4, num_workers=2,
                              persistent_workers=True, prefetch_factor=2)
    assert [b[1].tolist() for b in workers] == plain
    assert data.get_worker_info() is None


@pytest.mark.parametrize("options", [
    {"shuffle": True, "sampler": [0, 1]},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True},
    {"num_workers": -1},
    {"timeout": -1},
    {"prefetch_factor": 2},
    {"persistent_workers": True},
    {"multiprocessing_context": "spawn"},
], ids=["sampler_shuffle", "batch_sampler_size", "batch_sampler_drop", "none_drop",
        "workers", "timeout", "prefetch", "persistent", "context"])
def test_dataloader_option_errors_match_torch(options):
    with pytest.raises(ValueError):
        data.DataLoader(list(range(4)), **options)
    same_error(lambda lib: lib.utils.data.DataLoader(list(range(4)), **options))


def test_dataloader_attribute_frozen_after_init():
    same_error(lambda lib: setattr(lib.utils.data.DataLoader([1, 2]), "batch_size", 2))
    loader = data.DataLoader([1, 2])
    loader.num_workers = 0  # not frozen in torch either
    assert loader.num_workers == 0


# ---- iterable datasets ------------------------------------------------------------------------

def CountUp(module, n):
    class Stream(module.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


@pytest.mark.parametrize("options", [{"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                     {"batch_size": None}, {}])
def test_iterable_dataset_batches_match_torch(options):
    torch = torch_or_skip()
    ours = data.DataLoader(CountUp(data, 8), **options)
    theirs = torch.utils.data.DataLoader(CountUp(torch.utils.data, 8), **options)
    assert len(ours) == len(theirs)
    batches = list(ours)
    assert len(batches) == len(list(theirs))
    for mine, other in zip(batches, theirs):
        _assert_same(mine, other)


def test_iterable_dataset_option_errors_match_torch():
    same_error(lambda lib: lib.utils.data.DataLoader(CountUp(lib.utils.data, 3), shuffle=True))
    same_error(lambda lib: lib.utils.data.DataLoader(CountUp(lib.utils.data, 3),
                                                      batch_sampler=[[0]]))


def test_chain_dataset_and_add():
    chained = CountUp(data, 2) + CountUp(data, 3)
    assert isinstance(chained, data.ChainDataset)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5


def test_iterable_dataset_base_iter_error():
    with pytest.raises(NotImplementedError):
        iter(data.IterableDataset())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(data.DataLoader(CountUp(data, 2), batch_size=5))[0].tolist() == [0, 1]


class _RowByRow(data.TensorDataset):
    """A TensorDataset subclass: the DataLoader fetches it sample by sample."""


@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_dataset_batches_are_the_stacked_samples(drop_last):
    features = tapegrad.arange(42.0).reshape(7, 3, 2).transpose(1, 2)  # not contiguous
    labels = tapegrad.arange(7)
    batches = []
    for dataset_type in (data.TensorDataset, _RowByRow):
        tapegrad.manual_seed(3)
        loader = data.DataLoader(dataset_type(features, labels), batch_size=3, shuffle=True,
                                 drop_last=drop_last)
        batches.append(list(loader))
    whole, row_by_row = batches
    assert len(whole) == len(row_by_row) == (2 if drop_last else 3)
    for ours, stacked in zip(whole, row_by_row):
        assert type(ours) is type(stacked) is list
        for a, b in zip(ours, stacked):
            assert a.dtype is b.dtype and a.shape == b.shape and a.is_contiguous()
            assert a.tolist() == b.tolist() and a.grad_fn is None and b.grad_fn is None


@pytest.mark.parametrize("replacement, num_samples", [(False, None), (False, 23), (True, 70)])
def test_random_sampler_order_matches_torch_under_a_seed(replacement, num_samples):
    torch = torch_or_skip()
    orders = []
    for lib in (tapegrad, torch):
        lib.manual_seed(5)
        sampler = lib.utils.data.RandomSampler(range(10), replacement=replacement,
                                               num_samples=num_samples)
        orders.append([list(sampler), list(sampler), lib.rand(()).item()])  # 2 epochs, then
    assert orders[0] == orders[1]                                          # the global stream


@pytest.mark.parametrize("named", [False, True])
def test_stack_dataset_matches_torch(named):
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        images = lib.utils.data.TensorDataset(lib.arange(12.0).reshape(6, 2))
        labels = list(range(10, 16))
        stacked = (lib.utils.data.StackDataset(image=images, label=labels) if named
                   else lib.utils.data.StackDataset(images, labels))
        loader = lib.utils.data.DataLoader(stacked, batch_size=4)
        results.append([len(stacked), repr(stacked[1]).replace("torch.", ""),
                        [repr(batch) for batch in loader], repr(stacked.__getitems__([0, 5]))])
    assert results[0] == results[1]


@pytest.mark.parametrize("call", [lambda lib: lib.utils.data.StackDataset(),
                                  lambda lib: lib.utils.data.StackDataset([1], b=[2]),
                                  lambda lib: lib.utils.data.StackDataset([1, 2], [3])])
def test_stack_dataset_errors_match_torch(call):
    same_error(call)
