"""tapegrad.optim optimizers, checked against torch.optim step by step.

Every optimizer runs 20 steps in both libraries from the same float64 weights. Each step's
gradient comes from one fixed noisy quadratic, evaluated in NumPy on each library's own
current weights, so any difference in an update feeds into later gradients and grows.
"""
import copy
import importlib
import math
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip
import tapegrad.optim as optim

SHAPES = [(3, 4), (5,)]
STEPS = 20

# Option grids: every branch of each update rule (momentum, nesterov, weight decay,
# maximize, amsgrad, centered, decoupled decay ...) appears at least once.
CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "nesterov": True, "weight_decay": 0.2,
             "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "betas": (0.8, 0.99), "eps": 1e-6}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "maximize": True, "weight_decay": 0.05}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.2, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1,
                 "alpha": 0.9}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.3}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True, "eps": 1e-6}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True, "eps": 1e-4}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "betas": (0.8, 0.99)}),
    ("Adamax", {"lr": 0.05, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.05, "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05, "maximize": True, "betas": (0.5, 0.9)}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    # t0 within the run: the average of the iterates starts moving at step 6
    ("ASGD", {"lr": 0.05, "t0": 5, "lambd": 1e-2, "alpha": 0.5, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 3, "maximize": True}),
]
NAMES = sorted({name for name, _ in CASES})


def _case_id(case):
    name, options = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in options.items())


def _problem(seed=0):
    """Initial weights, the quadratic's curvature and the per-step gradient noise."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(shape) for shape in SHAPES]
    curvature = [rng.uniform(0.5, 2.0, shape) for shape in SHAPES]
    noise = [[rng.standard_normal(shape) * 0.3 for shape in SHAPES] for _ in range(STEPS)]
    return weights, curvature, noise


def _params(lib, weights):
    return [lib.tensor(w, dtype=lib.float64, requires_grad=True) for w in weights]


def _set_grads(lib, params, curvature, noise):
    # Gradient of sum(c * p**2 / 2) plus noise, from this library's own current weights.
    for param, scale, extra in zip(params, curvature, noise):
        param.grad = lib.tensor(scale * param.detach().numpy() + extra, dtype=lib.float64)


def _run(lib, name, options, groups=None, steps=STEPS, seed=0):
    """Run `steps` updates; returns (params, frozen param, optimizer, weights after each step)."""
    weights, curvature, noise = _problem(seed)
    params = _params(lib, weights)
    frozen = lib.tensor(np.ones(2), dtype=lib.float64, requires_grad=True)  # never gets a grad
    if groups is None:
        opt = getattr(lib.optim, name)(params + [frozen], **options)
    else:
        opt = getattr(lib.optim, name)(
            [{"params": [params[0], frozen], **groups[0]}, {"params": [params[1]], **groups[1]}],
            **options)
    history = []
    for step in range(steps):
        opt.zero_grad()
        _set_grads(lib, params, curvature, noise[step])
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return params, frozen, opt, history


def _describe(value):
    """A comparable summary of a state entry: type, dtype name, shape."""
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return ("Tensor", str(value.dtype), tuple(value.shape))
    return (type(value).__name__,)


def _assert_same_state_dict(ours, theirs, rtol=1e-12):
    assert list(ours) == list(theirs) == ["state", "param_groups"]
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["state"]) == list(theirs["state"])
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            mine = ours["state"][index][key]
            assert _describe(mine) == _describe(value), key
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_optimizer_trajectory_matches_torch(case):
    torch = torch_or_skip()
    name, options = case
    ours = _run(tapegrad, name, options)
    theirs = _run(torch, name, options)
    for step, (mine, reference) in enumerate(zip(ours[3], theirs[3])):
        for a, b in zip(mine, reference):
            # float64 throughout; the only differences are rounding (torch fuses some
            # multiply-adds), and 20 steps of feedback keep them near 1e-15.
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"step {step}")
    assert np.array_equal(ours[1].detach().numpy(), np.ones(2))
    _assert_same_state_dict(ours[2].state_dict(), theirs[2].state_dict())
    assert repr(ours[2]) == repr(theirs[2])


@pytest.mark.parametrize("name", NAMES)
def test_optimizer_param_groups_with_different_lr_match_torch(name):
    torch = torch_or_skip()
    options = dict(next(o for n, o in CASES if n == name))
    options.pop("lr", None)
    groups = [{"lr": 0.03}, {"lr": 0.2, "weight_decay": 0.1}]
    ours = _run(tapegrad, name, options, groups=groups)
    theirs = _run(torch, name, options, groups=groups)
    for mine, reference in zip(ours[3][-1], theirs[3][-1]):
        np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-14)
    _assert_same_state_dict(ours[2].state_dict(), theirs[2].state_dict())
    assert repr(ours[2]) == repr(theirs[2])


@pytest.mark.parametrize("name", NAMES)
def test_optimizer_defaults_and_repr_match_torch(name):
    torch = torch_or_skip()
    ours = getattr(optim, name)([tapegrad.zeros(2, requires_grad=True)])
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    assert list(ours.defaults.items()) == list(theirs.defaults.items())
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", NAMES)
def test_optimizer_load_state_dict_resumes_like_torch(name):
    torch = torch_or_skip()
    options = next(o for n, o in CASES if n == name)
    results = []
    for lib in (tapegrad, torch):
        _, _, first, _ = _run(lib, name, options, steps=10)
        saved = copy.deepcopy(first.state_dict())
        params, _, resumed, _ = _run(lib, name, options, steps=0, seed=0)
        with lib.no_grad():
            for param, trained in zip(params, first.param_groups[0]["params"]):
                param.copy_(trained)
        resumed.load_state_dict(saved)
        weights, curvature, noise = _problem(0)
        for step in range(10, STEPS):
            _set_grads(lib, params, curvature, noise[step])
            resumed.step()
        results.append(([p.detach().numpy() for p in params], resumed.state_dict()))
    for mine, reference in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-14)
    _assert_same_state_dict(results[0][1], results[1][1])
    # Resuming continues the uninterrupted run. Not bit for bit for NAdam: loading casts its
    # float32 mu_product to the parameters' float64, as torch does.
    _, _, _, uninterrupted = _run(tapegrad, name, options)
    for resumed_weights, straight in zip(results[0][0], uninterrupted[-1]):
        np.testing.assert_allclose(resumed_weights, straight, rtol=1e-9, atol=1e-12)


def test_optimizer_load_state_dict_casts_to_param_dtype_like_torch():
    torch = torch_or_skip()
    described = []
    for lib in (tapegrad, torch):
        source = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        source.grad = lib.ones(3, dtype=lib.float64)
        first = lib.optim.Adam([source])
        first.step()
        target = lib.zeros(3, requires_grad=True)
        second = lib.optim.Adam([target])
        second.load_state_dict(first.state_dict())
        state = second.state[target]
        described.append({key: _describe(value) for key, value in state.items()})
        # torch keeps a state tensor that already has the right dtype (no copy).
        assert (second.state_dict()["state"][0]["step"] is first.state[source]["step"])
    assert described[0] == described[1]


def test_sgd_momentum_step_by_hand():
    param = tapegrad.tensor([1.0, -2.0], dtype=tapegrad.float64, requires_grad=True)
    opt = optim.SGD([param], lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.5)
    grads = [np.array([0.5, 1.0]), np.array([-1.0, 2.0])]
    expected, buffer = np.array([1.0, -2.0]), None
    for grad in grads:
        param.grad = tapegrad.tensor(grad, dtype=tapegrad.float64)
        opt.step()
        decayed = grad + 0.5 * expected
        buffer = decayed if buffer is None else 0.9 * buffer + 0.8 * decayed
        expected = expected - 0.1 * buffer
        np.testing.assert_allclose(param.detach().numpy(), expected, rtol=1e-15)
    assert list(opt.state[param]) == ["momentum_buffer"]
    np.testing.assert_allclose(opt.state[param]["momentum_buffer"].numpy(), buffer, rtol=1e-15)


def test_adam_first_step_by_hand():
    param = tapegrad.tensor([1.0, -2.0, 0.5], dtype=tapegrad.float64, requires_grad=True)
    param.grad = tapegrad.tensor([0.3, -0.1, 2.0], dtype=tapegrad.float64)
    optim.Adam([param], lr=0.01, betas=(0.9, 0.99), eps=1e-8).step()
    grad = np.array([0.3, -0.1, 2.0])
    exp_avg, exp_avg_sq = 0.1 * grad, 0.01 * grad ** 2
    denom = np.sqrt(exp_avg_sq) / math.sqrt(1 - 0.99) + 1e-8
    expected = np.array([1.0, -2.0, 0.5]) - (0.01 / (1 - 0.9)) * exp_avg / denom
    np.testing.assert_allclose(param.detach().numpy(), expected, rtol=1e-14)
    # The first Adam step moves every coordinate by about lr, whatever the gradient's size.
    np.testing.assert_allclose(np.abs(expected - [1.0, -2.0, 0.5]), 0.01, rtol=1e-6)


def test_adam_state_layout_without_torch():
    param = tapegrad.zeros(3, dtype=tapegrad.float64, requires_grad=True)
    param.grad = tapegrad.ones(3, dtype=tapegrad.float64)
    opt = optim.Adam([param], amsgrad=True)
    opt.step()
    opt.step()
    state = opt.state_dict()["state"][0]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert state["step"].dtype == tapegrad.float32 and state["step"].ndim == 0
    assert state["step"].item() == 2.0
    assert state["exp_avg"].dtype == tapegrad.float64


def test_step_closure_returns_loss_and_runs_with_grad():
    param = tapegrad.tensor([3.0], requires_grad=True)
    opt = optim.SGD([param], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (param ** 2).sum()
        loss.backward()
        return loss

    with tapegrad.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0
    assert param.item() == 1.5  # 3 - 0.25 * 6
    assert not param.requires_grad or param.grad_fn is None


def test_zero_grad_set_to_none_and_zeros():
    param = tapegrad.ones(3, requires_grad=True)
    opt = optim.SGD([param], lr=0.1)
    param.grad = tapegrad.ones(3)
    opt.zero_grad(set_to_none=False)
    assert np.array_equal(param.grad.numpy(), np.zeros(3))
    opt.zero_grad()
    assert param.grad is None


def test_optimizer_groups_fill_defaults_and_add_param_group():
    first, second = tapegrad.ones(2, requires_grad=True), tapegrad.ones(3, requires_grad=True)
    opt = optim.SGD([{"params": first, "lr": 0.5}], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": [second]})
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.1]
    assert all(g["momentum"] == 0.9 for g in opt.param_groups)
    assert opt.param_groups[0]["params"] == [first]
    assert opt.state_dict()["param_groups"][1]["params"] == [1]


def test_optimizer_named_params_match_torch():
    torch = torch_or_skip()
    dicts = []
    for lib in (tapegrad, torch):
        named = [("w", lib.ones(2, requires_grad=True)), ("b", lib.ones(1, requires_grad=True))]
        dicts.append(lib.optim.Adam(named).state_dict())
    assert dicts[0] == dicts[1]
    assert dicts[0]["param_groups"][0]["param_names"] == ["w", "b"]


ERROR_CASES = {
    "empty": lambda lib: lib.optim.SGD([]),
    "tensor_params": lambda lib: lib.optim.SGD(lib.ones(2, requires_grad=True)),
    "not_tensor": lambda lib: lib.optim.SGD([1.0]),
    "non_leaf": lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2]),
    "set_params": lambda lib: lib.optim.SGD([{"params": {lib.ones(1, requires_grad=True)}}]),
    "duplicate": lambda lib: (lambda p: lib.optim.SGD([{"params": [p]}, {"params": [p]}]))(
        lib.ones(1, requires_grad=True)),
    "group_not_dict": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)])
    .add_param_group([1]),
    "mixed_names": lambda lib: lib.optim.SGD([("a", lib.ones(1, requires_grad=True)),
                                              lib.ones(1, requires_grad=True)]),
    "nesterov": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], nesterov=True),
    "nesterov_dampening": lambda lib: lib.optim.SGD(
        [lib.ones(1, requires_grad=True)], momentum=0.9, dampening=0.1, nesterov=True),
    "sgd_lr": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=-1),
    "sgd_momentum": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)], momentum=-1),
    "sgd_decay": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)],
                                           weight_decay=-0.5),
    "adam_eps": lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)], eps=-1e-3),
    "adam_beta0": lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)],
                                             betas=(1.0, 0.9)),
    "adam_beta1": lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)],
                                             betas=(0.9, -0.1)),
    "adam_fused_foreach": lambda lib: lib.optim.Adam([lib.ones(1, requires_grad=True)],
                                                     fused=True, foreach=True),
    "rmsprop_alpha": lambda lib: lib.optim.RMSprop([lib.ones(1, requires_grad=True)],
                                                   alpha=-1),
    "adagrad_decay": lambda lib: lib.optim.Adagrad([lib.ones(1, requires_grad=True)],
                                                   lr_decay=-1),
    "adagrad_init": lambda lib: lib.optim.Adagrad([lib.ones(1, requires_grad=True)],
                                                  initial_accumulator_value=-1),
    "adadelta_rho": lambda lib: lib.optim.Adadelta([lib.ones(1, requires_grad=True)], rho=1.5),
    "nadam_momentum_decay": lambda lib: lib.optim.NAdam([lib.ones(1, requires_grad=True)],
                                                        momentum_decay=-1),
    "radam_beta": lambda lib: lib.optim.RAdam([lib.ones(1, requires_grad=True)],
                                              betas=(0.9, 1.0)),
    "load_group_count": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)])
    .load_state_dict({"state": {}, "param_groups": []}),
    "load_group_size": lambda lib: lib.optim.SGD([lib.ones(1, requires_grad=True)])
    .load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]}),
    "base_step": lambda lib: (lambda p: (setattr(p, "grad", lib.ones(1)),
                                         lib.optim.Optimizer([p], {}).step()))(
        lib.ones(1, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_optimizer_errors_match_torch(case):
    same_error(ERROR_CASES[case])


def test_duplicate_params_in_group_warn_like_torch():
    torch = torch_or_skip()
    messages = []
    for lib in (tapegrad, torch):
        param = lib.ones(1, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([param, param])
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_adagrad_creates_state_eagerly_like_torch():
    torch = torch_or_skip()
    states = []
    for lib in (tapegrad, torch):
        opt = lib.optim.Adagrad([lib.ones(2, requires_grad=True)], initial_accumulator_value=0.5)
        states.append({k: (_describe(v), v.tolist()) for k, v in opt.state_dict()["state"][0]
                       .items()})
    assert states[0] == states[1]


def test_float32_adam_matches_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        param = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        opt = lib.optim.Adam([param], lr=0.1, amsgrad=True)
        for step in range(STEPS):
            param.grad = lib.tensor([math.sin(step), 0.1 * step, -1.0])
            opt.step()
        results.append(param.detach().numpy())
    assert results[0].dtype == np.float32
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def _rosenbrock(lib, start=(-1.2, 1.0)):
    point = lib.tensor(start, dtype=lib.float64, requires_grad=True)

    def loss():
        x, y = point[0], point[1]
        return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2
    return point, loss


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_finds_the_rosenbrock_minimum(line_search_fn):
    point, loss = _rosenbrock(tapegrad)
    opt = optim.LBFGS([point], lr=1 if line_search_fn else 0.1, max_iter=50,
                      line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        value = loss()
        value.backward()
        return value
    for _ in range(20 if line_search_fn else 200):
        opt.step(closure)
    np.testing.assert_allclose(point.detach().numpy(), [1.0, 1.0], atol=1e-4)


@pytest.mark.parametrize("options", [{}, {"line_search_fn": "strong_wolfe"},
                                     {"history_size": 2, "max_iter": 7, "lr": 0.5}])
def test_lbfgs_rosenbrock_steps_match_torch(options):
    torch = torch_or_skip()
    runs = []
    for lib in (tapegrad, torch):
        point, loss = _rosenbrock(lib)
        opt = lib.optim.LBFGS([point], **options)

        def closure():
            opt.zero_grad()
            value = loss()
            value.backward()
            return value
        runs.append([(float(opt.step(closure)), point.detach().numpy().copy())
                     for _ in range(4)])
        runs[-1].append(opt.state_dict()["state"][0]["func_evals"])
    (*mine, mine_evals), (*theirs, their_evals) = runs
    # up to 80 inner iterations grow the last bits of dot products (torch's vectorised kernels
    # sum in their own order) to ~2e-9 on some CPUs
    for (my_loss, my_point), (their_loss, their_point) in zip(mine, theirs):
        assert my_loss == pytest.approx(their_loss, rel=1e-8)
        np.testing.assert_allclose(my_point, their_point, rtol=1e-8)
    assert mine_evals == their_evals


def test_lbfgs_refuses_parameter_groups_and_other_line_searches():
    first, second = (tapegrad.zeros(2, requires_grad=True) for _ in range(2))
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [first]}, {"params": [second]}])
    opt = optim.LBFGS([first], line_search_fn="backtracking")
    first.grad = tapegrad.ones(2)
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(lambda: (first ** 2).sum())


def _hook_trace(lib):
    """What step and state_dict hooks see and do, in order."""
    trace = []
    module = importlib.import_module(f"{lib.__name__}.optim.optimizer")
    param = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.SGD([param], lr=0.1)
    handles = [
        module.register_optimizer_step_pre_hook(
            lambda o, args, kwargs: trace.append(("global pre", len(args), kwargs))),
        opt.register_step_pre_hook(lambda o, args, kwargs: trace.append(("pre", o is opt))),
        opt.register_step_post_hook(lambda o, args, kwargs: trace.append(
            ("post", param.detach().tolist()))),
        module.register_optimizer_step_post_hook(
            lambda o, args, kwargs: trace.append(("global post",))),
        opt.register_state_dict_pre_hook(lambda o: trace.append(("sd pre",))),
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1}),
        opt.register_state_dict_pre_hook(lambda o: trace.append(("sd first",)), prepend=True),
        opt.register_load_state_dict_pre_hook(
            lambda o, sd: {k: v for k, v in sd.items() if k != "extra"}),
        opt.register_load_state_dict_post_hook(lambda o: trace.append(("loaded",))),
    ]
    param.grad = lib.ones(2, dtype=lib.float64)
    opt.step()
    saved = opt.state_dict()
    trace.append(sorted(saved))
    opt.load_state_dict(saved)
    for handle in handles:
        handle.remove()
    opt.step()  # no hook runs any more
    trace.append(param.detach().tolist())
    return trace


def test_optimizer_hooks_match_torch():
    torch = torch_or_skip()
    assert _hook_trace(tapegrad) == _hook_trace(torch)


def test_step_pre_hook_can_replace_the_arguments():
    param = tapegrad.zeros(1, requires_grad=True)
    opt = optim.SGD([param], lr=1.0)
    param.grad = tapegrad.ones(1)
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: calls.append(1)
                                                              or 0.0}))
    opt.step()
    assert calls == [1]
    opt.register_step_pre_hook(lambda o, args, kwargs: "wrong")
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()
