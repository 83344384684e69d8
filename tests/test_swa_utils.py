"""optim.swa_utils against torch: AveragedModel (equal and exponential averages, buffers),
SWALR's lr schedule, update_bn's recomputed statistics."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip


def _model(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2)).double()


def _averaging_run(lib, options):
    """Three SGD steps, the average updated after each; returns every averaged tensor."""
    lib.manual_seed(0)
    model = _model(lib)
    averaged = lib.optim.swa_utils.AveragedModel(model, **options(lib))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    data = lib.tensor(np.random.default_rng(0).standard_normal((8, 3)))
    for _ in range(3):
        opt.zero_grad()
        model(data).square().mean().backward()
        opt.step()
        averaged.update_parameters(model)
    return [t.detach().numpy() for t in averaged.state_dict().values()] + [
        averaged(data).detach().numpy()]


OPTIONS = {
    "swa": lambda lib: {},
    "ema": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
    "ema_avg_fn": lambda lib: {"avg_fn": lib.optim.swa_utils.get_ema_avg_fn(0.8)},
    "ema_buffers": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.7),
                                "use_buffers": True},
}


@pytest.mark.parametrize("name", OPTIONS)
def test_averaged_model_matches_torch(name):
    torch = torch_or_skip()
    mine, theirs = (_averaging_run(lib, OPTIONS[name]) for lib in (tapegrad, torch))
    assert len(mine) == len(theirs)
    for got, want in zip(mine, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _swalr_lrs(lib, **options):
    param = lib.zeros(1, requires_grad=True)
    opt = lib.optim.SGD([param], lr=0.5)
    scheduler = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, **options)
    lrs = []
    for _ in range(8):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return lrs


@pytest.mark.parametrize("options", [{}, {"anneal_epochs": 3, "anneal_strategy": "linear"},
                                     {"anneal_epochs": 0}])
def test_swalr_schedule_matches_torch(options):
    torch = torch_or_skip()
    assert _swalr_lrs(tapegrad, **options) == _swalr_lrs(torch, **options)


def test_update_bn_matches_torch():
    torch = torch_or_skip()
    stats = []
    for lib in (tapegrad, torch):
        lib.manual_seed(0)
        model = _model(lib)
        model.eval()
        rows = lib.tensor(np.random.default_rng(1).standard_normal((12, 3)))
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(rows), batch_size=5)
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        stats.append([bn.running_mean.numpy(), bn.running_var.numpy(),
                      int(bn.num_batches_tracked), bn.momentum, model.training])
    for got, want in zip(*stats):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_errors_match_torch():
    torch = torch_or_skip()
    # an equal-weight average of the integer batch count: torch refuses its integer addcdiv
    def options(lib):
        return {"multi_avg_fn": lib.optim.swa_utils.get_swa_multi_avg_fn(), "use_buffers": True}
    with pytest.raises(RuntimeError, match="Integer division with addcdiv") as mine:
        _averaging_run(tapegrad, options)
    with pytest.raises(RuntimeError) as theirs:
        _averaging_run(torch, options)
    assert str(mine.value) == str(theirs.value)
    for call in (lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5),
                 lambda lib: lib.optim.swa_utils.SWALR(
                     lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1), 0.1,
                     anneal_strategy="step")):
        errors = []
        for lib in (tapegrad, torch):
            with pytest.raises(ValueError) as info:
                call(lib)
            errors.append(str(info.value))
        assert errors[0] == errors[1]
