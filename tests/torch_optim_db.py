"""Runs PyTorch's own optimiser database (torch.testing's `optim_db`) against tapegrad.optim.

For every OptimizerInfo and every OptimizerInput its function makes (the constructor's keyword
arguments), torch's optimiser and tapegrad's take the same parameters (a weight matrix and a
bias of a least-squares problem, from a fixed seed) and run STEPS steps of the same loss,
with a closure where the optimiser needs one; an optimiser that takes only sparse gradients
(SparseAdam) gets an embedding table instead, read with sparse=True at fixed rows, some
repeated and some never read. After each step the parameters must agree; at
the end, the optimiser's state_dict: the per-parameter state (names and values) and every
param_group setting. The error inputs (optim_error_inputs_func) must raise torch's exception
class, or warn its warning, with a message matching torch's pattern, at construction or at
step as torch does. Tolerances: 1e-7 in float64, 1e-4 in float32 (see TOLERANCES).
"""
import pathlib
import re
import warnings

import numpy as np
import torch
from torch.testing._internal.common_optimizers import OptimizerErrorEnum, optim_db

import tapegrad
from torch_op_db import (DTYPES, Failure, Missing, _compare_arrays, _on_tapegrad, _tensors,
                         raises_matching, to_tapegrad, write_xfails)

torch.set_num_threads(1)

OPTIMIZERS = {info.optim_cls.__name__: info for info in optim_db}
STEPS = 5


def _problem(lib, dtype, sparse_grads=False):
    """Parameters (weight, bias; or one embedding table when sparse_grads) and a loss closure
    over fixed data, in lib."""
    rng = np.random.default_rng(0)
    if sparse_grads:
        return _sparse_problem(lib, dtype, rng)
    data, target = rng.standard_normal((8, 3)), rng.standard_normal((8, 2))
    # a bias of shape (1, 2): Muon takes only matrices
    weight, bias = rng.standard_normal((3, 2)), rng.standard_normal((1, 2))
    as_lib = (lambda a: torch.tensor(a, dtype=dtype)) if lib is torch else (
        lambda a: tapegrad.tensor(a, dtype=to_tapegrad(dtype)))
    data, target = as_lib(data), as_lib(target)
    params = [as_lib(weight).requires_grad_(), as_lib(bias).requires_grad_()]

    def loss():
        return ((data @ params[0] + params[1] - target) ** 2).mean()
    return params, loss


def _sparse_problem(lib, dtype, rng):
    """An embedding table whose gradient is sparse COO: rows 1 and 4 read twice, row 3 never."""
    table, data, target = (rng.standard_normal(shape) for shape in ((6, 3), (7, 3), (7,)))
    as_lib = (lambda a: torch.tensor(a, dtype=dtype)) if lib is torch else (
        lambda a: tapegrad.tensor(a, dtype=to_tapegrad(dtype)))
    rows = lib.tensor([4, 0, 1, 5, 1, 2, 4])
    data, target, params = as_lib(data), as_lib(target), [as_lib(table).requires_grad_()]

    def loss():
        picked = lib.nn.functional.embedding(rows, params[0], sparse=True)
        return (((picked * data).sum(1) - target) ** 2).mean()
    return params, loss


def _optimizer(lib, name, params, kwargs):
    cls = getattr(lib.optim, name, None)
    if cls is None:
        raise Missing(f"tapegrad.optim.{name} is missing")
    return cls(params, **kwargs)


def _trajectory(lib, info, kwargs, dtype, after_step):
    params, loss = _problem(lib, dtype, info.only_supports_sparse_grads)
    optimizer = _optimizer(lib, info.optim_cls.__name__, params, kwargs)

    def closure():
        optimizer.zero_grad()
        value = loss()
        value.backward()
        return value
    for step in range(STEPS):
        if info.step_requires_closure:
            optimizer.step(closure)
        else:
            closure()
            optimizer.step()
        after_step(step, params)
    return optimizer


def check_input(info, optim_input, dtype, tolerance):
    """One OptimizerInput: the two trajectories and the final state_dicts agree."""
    kwargs = optim_input.kwargs
    expected = []
    torch.manual_seed(0)
    theirs = _trajectory(torch, info, kwargs, dtype,
                         lambda step, params: expected.append([p.detach().clone()
                                                               for p in params]))

    def compare(step, params):
        for i, (want, got) in enumerate(zip(expected[step], params)):
            _compare_arrays(f"step {step + 1} parameter {i}", want, got.detach(), tolerance)
    tapegrad.manual_seed(0)
    mine = _on_tapegrad(lambda: _trajectory(tapegrad, info, to_tapegrad(kwargs), dtype, compare))
    _compare_state_dicts(theirs.state_dict(), _on_tapegrad(mine.state_dict), tolerance)


def _compare_state_dicts(expected, actual, tolerance):
    if sorted(actual["state"]) != sorted(expected["state"]):
        raise Failure("mismatch", f"state for parameters {sorted(actual['state'])} != "
                                  f"{sorted(expected['state'])}")
    for index, state in expected["state"].items():
        if sorted(actual["state"][index]) != sorted(state):
            raise Failure("mismatch", f"state[{index}] keys {sorted(actual['state'][index])}"
                                      f" != {sorted(state)}")
        for key, want in state.items():
            _compare_value(f"state[{index}][{key!r}]", want, actual["state"][index][key],
                           tolerance)
    if len(actual["param_groups"]) != len(expected["param_groups"]):
        raise Failure("mismatch", "a different number of param_groups")
    for group, (want, got) in enumerate(zip(expected["param_groups"], actual["param_groups"])):
        if sorted(got) != sorted(want):
            raise Failure("mismatch", f"param_groups[{group}] keys {sorted(got)} != "
                                      f"{sorted(want)}")
        for key, value in want.items():
            _compare_value(f"param_groups[{group}][{key!r}]", value, got[key], tolerance)


def _compare_value(what, want, got, tolerance):
    if isinstance(want, torch.Tensor):
        if not isinstance(got, tapegrad.Tensor):
            raise Failure("mismatch", f"{what} is {type(got).__name__}, torch's a tensor")
        _compare_arrays(what, want, got, tolerance)
    elif isinstance(want, (list, tuple)):
        if type(got) is not type(want) or len(got) != len(want):
            raise Failure("mismatch", f"{what} {got!r} != {want!r}")
        for i, (w, g) in enumerate(zip(want, got)):
            _compare_value(f"{what}[{i}]", w, g, tolerance)
    elif isinstance(want, float) and isinstance(got, float):
        if not np.isclose(got, want, rtol=tolerance, atol=tolerance, equal_nan=True):
            raise Failure("mismatch", f"{what} {got!r} != {want!r}")
    elif callable(want) and not isinstance(want, type):
        return  # a scheduler's or the user's function: not comparable across libraries
    elif got != want or type(got) is not type(want):
        raise Failure("mismatch", f"{what} {got!r} != {want!r}")


def check_error(info, error_input):
    """tapegrad refuses (or warns about) the error input as torch does."""
    optim_input = error_input.optimizer_error_input
    name, wanted = info.optim_cls.__name__, error_input.error_type
    memo = {}
    for tensor in _tensors(optim_input.params):  # sparse ones first: to_tapegrad keeps them
        if tensor.is_sparse:
            memo[id(tensor)] = tapegrad.sparse_coo_tensor(
                to_tapegrad(tensor._indices()), to_tapegrad(tensor._values()), tensor.shape)
    params, kwargs = to_tapegrad(optim_input.params, memo), to_tapegrad(optim_input.kwargs)
    for tensor in _tensors(optim_input.params):  # the gradients a step error needs
        if tensor.grad is not None:
            memo[id(tensor)].grad = to_tapegrad(tensor.grad)

    def run():
        optimizer = _optimizer(tapegrad, name, params, kwargs)
        if error_input.error_on == OptimizerErrorEnum.STEP_ERROR:
            optimizer.step()
    if issubclass(wanted, Warning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _on_tapegrad(run)
        if not any(issubclass(w.category, wanted) and re.search(error_input.error_regex,
                                                                str(w.message)) for w in caught):
            raise Failure("mismatch", f"no {wanted.__name__} matching "
                                      f"{error_input.error_regex!r}")
        return
    raises_matching(run, wanted, error_input.error_regex)


# float32 trajectories compound rounding over the steps (L-BFGS runs 20 iterations in each):
# torch's own optimizer tests compare float32 implementations to about 1e-4 too
TOLERANCES = {"float64": 1e-7, "float32": 1e-4}


def run(info, dtype_name):
    """Every OptimizerInput of one OptimizerInfo in one dtype, then its error inputs: None if
    all pass, else the first Failure."""
    dtype, tolerance = DTYPES[dtype_name][0], TOLERANCES[dtype_name]
    for i, optim_input in enumerate(info.optim_inputs_func(device="cpu", dtype=dtype)):
        try:
            check_input(info, optim_input, dtype, tolerance)
        except Failure as failure:
            failure.detail += f" [input {i} {optim_input.desc!r}: {optim_input.kwargs}]"
            return failure
    for error_input in info.optim_error_inputs_func(device="cpu", dtype=dtype):
        try:
            check_error(info, error_input)
        except Failure as failure:
            failure.detail += f" [error input {error_input.error_regex!r}]"
            return failure
    return None


if __name__ == "__main__":
    # python tests/torch_optim_db.py [--write-xfails] [name ...]: each OptimizerInfo's first
    # failure per dtype, and the counts
    import collections
    import sys
    warnings.filterwarnings("ignore")
    arguments = sys.argv[1:]
    counts, failures = collections.Counter(), {}
    for name in [a for a in arguments if a != "--write-xfails"] or list(OPTIMIZERS):
        for dtype_name in DTYPES:
            failure = run(OPTIMIZERS[name], dtype_name)
            counts[dtype_name, failure.kind if failure else "pass"] += 1
            if failure:
                failures[name, dtype_name] = str(failure).split("\n")[0][:300]
                print(f"{name} [{dtype_name}] {failures[name, dtype_name]}")
    print(sorted(counts.items()))
    if "--write-xfails" in arguments:
        write_xfails(pathlib.Path(__file__).with_name("torch_optim_db_xfails.py"), failures,
                     "OptimizerInfos of torch's optimiser database that tapegrad does not pass, "
                     "and\nwhy (`python tests/torch_optim_db.py --write-xfails` writes it from "
                     "a run: each\nentry is the first failure reported).",
                     lambda name: len(DTYPES))
