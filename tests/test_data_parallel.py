"""nn.DataParallel: without a cuda device it is the module, as on torch's CPU build; on the
test double's two devices (tests/device_double.py) the batch is split across them and the
outputs, gradients and running statistics equal the module's on one device."""
import warnings

import numpy as np
import pytest

import device_double
import tapegrad
from tapegrad import nn
from tapegrad.nn.parallel import data_parallel, gather, scatter


@pytest.fixture
def two_devices():
    yield device_double.install(count=2)
    device_double.uninstall()


def _model(seed=0):
    tapegrad.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 3))


def test_without_a_device_it_calls_the_module():
    model = _model()
    wrapped = nn.DataParallel(model)
    x = tapegrad.randn(5, 4)
    assert wrapped.device_ids == [] and wrapped.module is model
    assert tapegrad.equal(wrapped(x), model(x))
    assert list(wrapped.state_dict()) == ["module." + key for key in model.state_dict()]
    with pytest.raises(RuntimeError, match="^device type could not be determined$"):
        data_parallel(model, x)


def test_the_keys_and_errors_are_torchs():
    torch = pytest.importorskip("torch")
    ours = nn.DataParallel(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(2, 2),
                                                       torch.nn.BatchNorm1d(2)))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.device_ids == theirs.device_ids == []
    with pytest.raises(RuntimeError) as error:
        torch.nn.parallel.data_parallel(theirs.module, torch.ones(2, 2))
    with pytest.raises(RuntimeError, match=f"^{error.value}$"):
        data_parallel(ours.module, tapegrad.ones(2, 2))


def test_two_devices_give_one_devices_values_and_gradients(two_devices):
    x = tapegrad.randn(7, 4, dtype=tapegrad.float64)
    single, parallel = _model().double().cuda(), _model().double().cuda()
    wrapped = nn.DataParallel(parallel)
    assert (wrapped.device_ids, wrapped.output_device) == ([0, 1], 0)
    # BatchNorm normalises each device's chunk by its own statistics, as torch's does
    chunks = x.cuda().chunk(2)
    expected = tapegrad.cat([single(chunk) for chunk in chunks])
    out = wrapped(x)
    assert out.device == tapegrad.device("cuda", 0)
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected.detach().cpu().numpy(),
                               rtol=1e-12)
    expected.square().sum().backward()
    out.square().sum().backward()
    for mine, reference in zip(parallel.parameters(), single.parameters()):
        assert mine.grad.device == tapegrad.device("cuda", 0)
        np.testing.assert_allclose(mine.grad.cpu().numpy(), reference.grad.cpu().numpy(),
                                   rtol=1e-10)
    # running statistics: only device 0's replica holds the module's own buffers
    single_first = _model().double().cuda()
    single_first(chunks[0])
    np.testing.assert_allclose(parallel[1].running_mean.cpu().numpy(),
                               single_first[1].running_mean.cpu().numpy(), rtol=1e-12)
    assert int(parallel[1].num_batches_tracked) == 1


def test_the_module_must_be_on_the_first_device(two_devices):
    with pytest.raises(RuntimeError, match=r"^module must have its parameters and buffers on "
                       r"device cuda:0 \(device_ids\[0\]\) but found one of them on device: "
                       r"cpu$"):
        nn.DataParallel(nn.Linear(2, 2))(tapegrad.ones(4, 2))
    # one device: the module is moved there at construction
    assert nn.DataParallel(nn.Linear(2, 2), device_ids=[1]).module.weight.device.index == 1


def test_scatter_and_gather_follow_containers(two_devices):
    x = tapegrad.arange(6.).view(3, 2)
    pieces = scatter((x, {"scale": 2.0, "y": x}), [0, 1])
    assert len(pieces) == 2 and pieces[1][1]["scale"] == 2.0
    assert [piece[0].device.index for piece in pieces] == [0, 1]
    assert [piece[0].shape[0] for piece in pieces] == [2, 1]
    assert len(scatter(tapegrad.ones(1, 2), [0, 1])) == 1  # fewer slices than devices
    outputs = [{"a": (piece[0], None)} for piece in pieces]
    gathered = gather(outputs, "cpu")
    assert gathered["a"][1] is None and tapegrad.equal(gathered["a"][0], x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vector = gather([tapegrad.tensor(1.).cuda(0), tapegrad.tensor(2.).cuda(1)], 0)
    assert vector.tolist() == [1.0, 2.0] and "all input tensors were scalars" in str(
        caught[0].message)


def test_keyword_arguments_are_split_too(two_devices):
    class Scaled(nn.Module):
        def forward(self, x, *, scale):
            return x * scale

    wrapped = nn.DataParallel(Scaled())
    x, scale = tapegrad.randn(4, 3), tapegrad.randn(4, 1)
    assert tapegrad.allclose(wrapped(x, scale=scale).cpu(), x * scale)
