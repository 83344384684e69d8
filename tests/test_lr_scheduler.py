"""tapegrad.optim.lr_scheduler, checked against torch.optim.lr_scheduler.

Each scheduler drives the same two-group optimizer in both libraries for 40 epochs; the
learning rates (and momenta, for OneCycleLR) must be equal to the last bit, since both
sides do the same Python float arithmetic. state_dicts are compared as dicts.
"""
import copy
import math
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip
import tapegrad.optim as optim
from tapegrad.optim import lr_scheduler

EPOCHS = 40


def _optimizer(lib, name="SGD"):
    params = [lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, name)(groups, lr=0.1)


class Halve:
    """A callable object: its __dict__ is what LambdaLR saves in its state_dict."""

    def __init__(self):
        self.calls = 0

    def __call__(self, epoch):
        self.calls += 1
        return 0.5 ** (epoch // 7)


SCHEDULERS = {
    "StepLR": lambda L, o: L.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, T_max=9),
    "CosineAnnealingLR-eta_min": lambda L, o: L.CosineAnnealingLR(o, T_max=15, eta_min=0.01),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=EPOCHS + 1),
    "OneCycleLR-linear": lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 0.5], epochs=6,
                                                   steps_per_epoch=7, pct_start=0.25,
                                                   anneal_strategy="linear"),
    "OneCycleLR-three_phase": lambda L, o: L.OneCycleLR(o, max_lr=0.8, total_steps=50,
                                                        three_phase=True,
                                                        base_momentum=[0.8, 0.7]),
    "OneCycleLR-no_momentum": lambda L, o: L.OneCycleLR(o, max_lr=0.8, total_steps=45,
                                                        cycle_momentum=False),
    "CyclicLR": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.5, step_size_up=4),
    "CyclicLR-triangular2": lambda L, o: L.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.5,
                                                    step_size_up=3, step_size_down=5,
                                                    mode="triangular2"),
    "CyclicLR-exp_range": lambda L, o: L.CyclicLR(o, 0.01, 0.4, step_size_up=5,
                                                  mode="exp_range", gamma=0.97,
                                                  base_momentum=[0.7, 0.75]),
    "CyclicLR-scale_fn": lambda L, o: L.CyclicLR(o, 0.01, 0.4, step_size_up=3,
                                                 scale_fn=lambda x: 1 / (1 + x),
                                                 scale_mode="iterations",
                                                 cycle_momentum=False),
    "LambdaLR": lambda L, o: L.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch),
    "LambdaLR-list": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (1 + e), Halve()]),
    "LinearLR": lambda L, o: L.LinearLR(o),
    "LinearLR-down": lambda L, o: L.LinearLR(o, start_factor=1.0, end_factor=0.1,
                                             total_iters=25),
    "ConstantLR": lambda L, o: L.ConstantLR(o, factor=0.25, total_iters=8),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda epoch: 0.97),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, total_iters=30, power=2.0),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=6),
    "CosineAnnealingWarmRestarts-mult": lambda L, o: L.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001),
    "SequentialLR": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, start_factor=0.1, total_iters=5), L.ExponentialLR(o, 0.9),
            L.CosineAnnealingLR(o, T_max=10)], milestones=[5, 20]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.5, total_iters=4), L.ExponentialLR(o, gamma=0.9)]),
}
ADAM_SCHEDULERS = ["OneCycleLR", "OneCycleLR-three_phase", "CyclicLR", "CyclicLR-exp_range"]


def _momenta(opt):
    return [group.get("momentum", group.get("betas")) for group in opt.param_groups]


def _lr_sequence(lib, key, optimizer_name="SGD", epochs=EPOCHS):
    """[(last_lr, group lrs, momenta)] for the construction and each epoch; and the scheduler."""
    opt = _optimizer(lib, optimizer_name)
    scheduler = SCHEDULERS[key](lib.optim.lr_scheduler, opt)
    sequence = [(scheduler.get_last_lr(), [g["lr"] for g in opt.param_groups], _momenta(opt))]
    for _ in range(epochs):
        opt.step()
        scheduler.step()
        sequence.append((scheduler.get_last_lr(), [g["lr"] for g in opt.param_groups],
                         _momenta(opt)))
    return sequence, scheduler


def _comparable(state):
    """A scheduler state_dict with nested schedulers and lambda states made comparable."""
    return {key: ([_comparable(s) for s in value] if key == "_schedulers" else value)
            for key, value in state.items()}


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_scheduler_lr_sequence_matches_torch(key):
    torch = torch_or_skip()
    ours, our_scheduler = _lr_sequence(tapegrad, key)
    theirs, their_scheduler = _lr_sequence(torch, key)
    assert ours == theirs  # exact: both sides do the same float arithmetic
    assert _comparable(our_scheduler.state_dict()) == _comparable(their_scheduler.state_dict())
    assert list(our_scheduler.state_dict()) == list(their_scheduler.state_dict())
    assert (list(our_scheduler.optimizer.param_groups[0])
            == list(their_scheduler.optimizer.param_groups[0]))


@pytest.mark.parametrize("key", ADAM_SCHEDULERS)
def test_cyclic_schedulers_cycle_adam_beta1_like_torch(key):
    torch = torch_or_skip()
    ours, scheduler = _lr_sequence(tapegrad, key, "Adam")
    theirs, _ = _lr_sequence(torch, key, "Adam")
    assert ours == theirs
    top = scheduler.optimizer.param_groups[0]["max_momentum"]
    assert ours[0][2][0] == (top, 0.999)  # the cycle starts from max_momentum


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_scheduler_state_dict_round_trip(key):
    _, reference = _lr_sequence(tapegrad, key, epochs=0)
    opt = reference.optimizer
    for _ in range(12):
        opt.step()
        reference.step()
    saved = copy.deepcopy(reference.state_dict())
    fresh_opt = _optimizer(tapegrad)
    resumed = SCHEDULERS[key](lr_scheduler, fresh_opt)
    resumed.load_state_dict(saved)
    fresh_opt.load_state_dict(opt.state_dict())
    for _ in range(20):
        for o, s in ((opt, reference), (fresh_opt, resumed)):
            o.step()
            s.step()
        assert resumed.get_last_lr() == reference.get_last_lr()
        assert [g["lr"] for g in fresh_opt.param_groups] == [g["lr"] for g in opt.param_groups]
    assert _comparable(resumed.state_dict()) == _comparable(reference.state_dict())


def test_lambda_lr_state_dict_saves_callable_objects_only():
    opt = _optimizer(tapegrad)
    halve = Halve()
    scheduler = lr_scheduler.LambdaLR(opt, [lambda e: 1.0, halve])
    opt.step()
    scheduler.step()
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [None, {"calls": 2}]
    other = Halve()
    restored = lr_scheduler.LambdaLR(_optimizer(tapegrad), [lambda e: 1.0, other])
    restored.load_state_dict(state)
    assert other.calls == 2 and "lr_lambdas" in state


PLATEAU_CASES = {
    "min-rel": {},
    "min-abs-cooldown": {"threshold_mode": "abs", "threshold": 0.05, "cooldown": 2,
                         "patience": 1},
    "max-rel": {"mode": "max", "patience": 2, "factor": 0.5},
    "max-abs-min_lr": {"mode": "max", "threshold_mode": "abs", "patience": 0,
                       "min_lr": [0.02, 0.01], "factor": 0.5},
    "eps": {"patience": 0, "factor": 0.5, "eps": 0.01, "min_lr": 0.001},
}


def _metrics():
    rng = np.random.default_rng(3)
    trend = np.concatenate([np.linspace(1.0, 0.5, 10), np.full(15, 0.5), np.linspace(0.5, 0.3, 8),
                            np.full(12, 0.3)])
    return trend + rng.normal(0, 0.01, trend.size)


@pytest.mark.parametrize("key", sorted(PLATEAU_CASES))
def test_reduce_lr_on_plateau_matches_torch(key):
    torch = torch_or_skip()
    runs = []
    for lib in (tapegrad, torch):
        opt = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU_CASES[key])
        sequence = []
        for value in _metrics():
            opt.step()
            scheduler.step(lib.tensor(float(value), dtype=lib.float64))
            sequence.append((scheduler.get_last_lr(), scheduler.num_bad_epochs,
                             scheduler.cooldown_counter, scheduler.best))
        runs.append((sequence, scheduler.state_dict()))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]
    assert list(runs[0][1]) == list(runs[1][1])


def test_reduce_lr_on_plateau_reduces_after_patience_without_torch():
    opt = optim.SGD([tapegrad.ones(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1)
    lrs = []
    for metric in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5]:
        scheduler.step(metric)
        lrs.append(opt.param_groups[0]["lr"])
    # Bad epochs 1, 2, 3 -> cut at the 4th metric; the cooldown epoch resets the count, so
    # the next two bad epochs stay within patience; 0.5 is a new best.
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5]
    for _ in range(3):
        scheduler.step(1.0)
    assert opt.param_groups[0]["lr"] == 0.25 and scheduler.cooldown_counter == 1


def test_step_lr_and_cosine_values_without_torch():
    opt = optim.SGD([tapegrad.ones(1, requires_grad=True)], lr=1.0)
    step = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    seen = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        opt.step()
        step.step()
        seen.append(step.get_last_lr()[0])
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    opt = optim.SGD([tapegrad.ones(1, requires_grad=True)], lr=1.0)
    cosine = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.1)
    for epoch in range(1, 25):
        opt.step()
        cosine.step()
        closed = 0.1 + 0.9 * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert abs(cosine.get_last_lr()[0] - closed) < 1e-12


def test_scheduler_sets_initial_lr_and_base_lrs():
    opt = _optimizer(tapegrad)
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    assert scheduler.base_lrs == [0.1, 0.05]
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert scheduler.last_epoch == 0


def test_closed_form_step_with_epoch_matches_torch():
    torch = torch_or_skip()
    runs = []
    for lib in (tapegrad, torch):
        opt = _optimizer(lib)
        schedulers = [lib.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5),
                      lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 4, T_mult=2)]
        lrs = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in [5, 2, 9, 0, 13.5]:
                opt.step()
                for scheduler in schedulers:
                    scheduler.step(epoch)
                    lrs.append(scheduler.get_last_lr())
        runs.append((lrs, sorted({str(w.message) for w in caught})))
    assert runs[0] == runs[1]
    assert len(runs[0][1]) == 1  # the epoch-deprecation warning


def _warnings_of(lib, action):
    opt = _optimizer(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action(lib, opt)
    return [(w.category.__name__, str(w.message)) for w in caught]


WARNING_CASES = {
    "scheduler_before_optimizer": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 2).step(),
    "optimizer_first": lambda lib, o: (lambda s: (o.step(), s.step()))(
        lib.optim.lr_scheduler.StepLR(o, 2)),
    "step_overridden": lambda lib, o: (lambda s: (setattr(o, "step", lambda: None),
                                                  s.step()))(lib.optim.lr_scheduler.StepLR(o, 2)),
    "get_lr_outside_step": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, 0.5).get_lr(),
}


@pytest.mark.parametrize("case", sorted(WARNING_CASES))
def test_scheduler_warnings_match_torch(case):
    torch = torch_or_skip()
    assert _warnings_of(tapegrad, WARNING_CASES[case]) == _warnings_of(torch, WARNING_CASES[case])


def _two_group(lib):
    return _optimizer(lib)


ERROR_CASES = {
    "not_optimizer": lambda L, o: L.StepLR(object(), 2),
    "plateau_not_optimizer": lambda L, o: L.ReduceLROnPlateau(object()),
    "resume_without_initial_lr": lambda L, o: L.StepLR(o, 2, last_epoch=3),
    "lambda_count": lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
    "multiplicative_not_callable": lambda L, o: L.MultiplicativeLR(o, [1.0, 2.0]),
    "constant_factor": lambda L, o: L.ConstantLR(o, factor=1.5),
    "linear_start": lambda L, o: L.LinearLR(o, start_factor=0),
    "linear_end": lambda L, o: L.LinearLR(o, end_factor=2),
    "plateau_factor": lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    "plateau_mode": lambda L, o: L.ReduceLROnPlateau(o, mode="up"),
    "plateau_threshold_mode": lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="pct"),
    "plateau_min_lrs": lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    "warm_restarts_t0": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=0),
    "warm_restarts_mult": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    "warm_restarts_eta": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    "warm_restarts_epoch": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    "one_cycle_no_steps": lambda L, o: L.OneCycleLR(o, max_lr=1.0),
    "one_cycle_total": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=0),
    "one_cycle_epochs": lambda L, o: L.OneCycleLR(o, max_lr=1.0, epochs=0, steps_per_epoch=2),
    "one_cycle_per_epoch": lambda L, o: L.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=1.5),
    "one_cycle_pct": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=1),
    "one_cycle_anneal": lambda L, o: L.OneCycleLR(o, 1.0, total_steps=10,
                                                  anneal_strategy="exp"),
    "one_cycle_max_lr": lambda L, o: L.OneCycleLR(o, max_lr=[1.0], total_steps=10),
    "one_cycle_overrun": lambda L, o: [s.step() for s in
                                       [L.OneCycleLR(o, max_lr=1.0, total_steps=3)]
                                       for _ in range(4)],
    "cyclic_mode": lambda L, o: L.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    "cyclic_base_lr": lambda L, o: L.CyclicLR(o, [0.01, 0.02, 0.03], 0.1),
    "sequential_empty": lambda L, o: L.SequentialLR(o, [], []),
    "sequential_milestones": lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], [3]),
    "sequential_plateau": lambda L, o: L.SequentialLR(o, [L.ReduceLROnPlateau(o)], []),
    "chained_empty": lambda L, o: L.ChainedScheduler([]),
    "chained_no_optimizer": lambda L, o: L.ChainedScheduler([L.StepLR(o, 2), object()]),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_scheduler_errors_match_torch(case):
    def make(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ERROR_CASES[case](lib.optim.lr_scheduler, _two_group(lib))
    same_error(make)


def test_one_cycle_momentum_error_matches_torch():
    def make(lib):
        opt = lib.optim.Adagrad([lib.ones(1, requires_grad=True)])
        return lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5)
    same_error(make)


def test_sequential_other_optimizer_error_matches_torch():
    def make(lib):
        opt, other = _optimizer(lib), _optimizer(lib)
        L = lib.optim.lr_scheduler
        return L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(other, 2)], milestones=[3])
    same_error(make)


def test_tensor_lr_is_updated_in_place_like_torch():
    torch = torch_or_skip()
    runs = []
    for lib in (tapegrad, torch):
        param = lib.ones(2, dtype=lib.float64, requires_grad=True)
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.SGD([param], lr=lr, momentum=0.9)
        scheduler = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        for _ in range(4):
            param.grad = lib.ones(2, dtype=lib.float64)
            opt.step()
            scheduler.step()
        assert opt.param_groups[0]["lr"] is lr  # filled in place, never replaced
        assert scheduler.get_last_lr()[0] is not lr
        runs.append((lr.item(), param.detach().numpy().tolist(), repr(opt)))
    assert runs[0] == runs[1]
