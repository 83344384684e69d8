"""Runs PyTorch's own module database (torch.testing's `module_db`) against tapegrad.nn.

For every ModuleInfo and every ModuleInput its function makes, torch's module and tapegrad's
are built from the same constructor arguments (a lazy module then runs the forward input once,
to infer its parameters); tapegrad's must have the same state_dict keys,
and is then given torch's parameter and buffer values. The same forward input goes through
both (each module's own copy, so in-place modules write their own), and what is compared:
the outputs (structure, shapes, dtypes, values, requires_grad), the vector-Jacobian product
for a fixed cotangent with respect to every input and parameter that requires grad, and the
state_dict after the forward (running statistics). Modules that draw random numbers compare
shapes and dtypes only. The error inputs (module_error_inputs_func) must raise torch's
exception class with a message matching torch's pattern. Both training and eval mode run
where the ModuleInfo says they differ. Tolerances are torch_op_db's.
"""
import functools
import pathlib

import torch
from torch.testing._internal.common_modules import ModuleErrorEnum, module_db

import tapegrad
from torch_op_db import (DTYPES, Failure, Missing, _compare_arrays, _compare_results,
                         _cotangent, _on_tapegrad, _tensors, raises_matching, to_tapegrad,
                         write_xfails)

torch.set_num_threads(1)

MODULES = {info.module_cls.__name__: info for info in module_db}

# Modules whose outputs are random in training mode: shapes and dtypes only.
RANDOM = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
          "FeatureAlphaDropout", "RReLU", "FractionalMaxPool2d", "FractionalMaxPool3d"}


def modes(info):
    return (True, False) if info.train_and_eval_differ else (True,)


def _remember_constructor_arguments(cls):
    """Wrap cls.__init__ so its instances keep what they were built from: a module given to
    another's constructor (TransformerEncoder's encoder_layer) is rebuilt from it."""
    init = cls.__dict__["__init__"]

    @functools.wraps(init)
    def wrapped(self, *args, **kwargs):
        if "_constructed_from" not in self.__dict__:  # the outermost class's arguments
            self.__dict__["_constructed_from"] = (type(self).__name__, args, kwargs)
        init(self, *args, **kwargs)
    cls.__init__ = wrapped


for _cls in vars(torch.nn).values():
    if isinstance(_cls, type) and issubclass(_cls, torch.nn.Module) and "__init__" in vars(_cls):
        _remember_constructor_arguments(_cls)


def _rebuilt(value):
    """to_tapegrad, with torch modules rebuilt from their constructor arguments."""
    if isinstance(value, torch.nn.Module) and "_constructed_from" in value.__dict__:
        return _module(*value.__dict__["_constructed_from"])
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuilt(v) for v in value)
    if isinstance(value, dict):
        return {k: _rebuilt(v) for k, v in value.items()}
    return to_tapegrad(value)


def _module(name, args, kwargs):
    cls = getattr(tapegrad.nn, name, None)
    if cls is None:
        raise Missing(f"tapegrad.nn.{name} is missing")
    return cls(*_rebuilt(args), **_rebuilt(kwargs))


def _built(info, module_input, dtype, training):
    """(torch's module, tapegrad's module with torch's parameters and buffers)."""
    constructor = module_input.constructor_input
    torch.manual_seed(0)
    theirs = info.module_cls(*constructor.args, **constructor.kwargs).to(dtype)
    theirs.train(training)
    mine = _on_tapegrad(lambda: _module(info.module_cls.__name__, constructor.args,
                                        constructor.kwargs).to(to_tapegrad(dtype)))
    mine.train(training)
    if info.is_lazy:  # a first forward gives both their parameters (and their shapes)
        forward = module_input.forward_input
        with torch.no_grad():
            theirs(*forward.args, **forward.kwargs)
        with tapegrad.no_grad():
            _on_tapegrad(lambda: mine(*to_tapegrad(forward.args), **to_tapegrad(forward.kwargs)))
    expected, actual = list(theirs.state_dict()), list(mine.state_dict())
    if actual != expected:
        raise Failure("mismatch", f"state_dict keys {actual} != {expected}")
    values = {name: to_tapegrad(value.detach()) for name, value in theirs.state_dict().items()}
    _on_tapegrad(lambda: mine.load_state_dict(values))
    return theirs, mine


def check_input(info, module_input, dtype, tolerance, training):
    """Compare one ModuleInput on both libraries; raise Failure on the first difference."""
    if module_input.forward_input is None:
        return
    theirs, mine = _built(info, module_input, dtype, training)
    forward = module_input.forward_input
    memo = {}
    mine_args = to_tapegrad(forward.args, memo)
    mine_kwargs = to_tapegrad(forward.kwargs, memo)
    # torch's inputs are cloned so that an in-place module leaves the leaves as they were
    args = [a.clone() if isinstance(a, torch.Tensor) and not a.is_leaf else a
            for a in forward.args]
    values = not (training and info.module_cls.__name__ in RANDOM)
    expected = theirs(*args, **forward.kwargs)
    actual = _on_tapegrad(lambda: mine(*mine_args, **mine_kwargs))
    pairs = _compare_results(expected, actual, tolerance, values)
    if values:
        _compare_vjp(theirs, mine, forward, memo, pairs, tolerance)
        for (name, want), got in zip(theirs.state_dict().items(), mine.state_dict().values()):
            _compare_arrays(f"state_dict[{name!r}] after forward", want, got, tolerance)


def _compare_vjp(theirs, mine, forward, memo, pairs, tolerance):
    wants = [(want, got) for want, got in pairs if want.requires_grad]
    inputs = [t for t in _tensors([list(forward.args), dict(forward.kwargs)])
              if t.requires_grad and t.is_leaf]
    leaves = [(t, memo[id(t)]) for t in inputs]
    leaves += [(p, q) for p, q in zip(theirs.parameters(), mine.parameters()) if p.requires_grad]
    if not wants or not leaves:
        return
    cotangents = [_cotangent(want) for want, _ in wants]
    expected = torch.autograd.grad(
        [want for want, _ in wants], [leaf for leaf, _ in leaves],
        [torch.from_numpy(c).to(want.dtype) for c, (want, _) in zip(cotangents, wants)],
        allow_unused=True)
    actual = _on_tapegrad(lambda: tapegrad.autograd.grad(
        [got for _, got in wants], [leaf for _, leaf in leaves],
        [tapegrad.tensor(c, dtype=got.dtype) for c, (_, got) in zip(cotangents, wants)],
        allow_unused=True))
    for i, (want, got, (leaf, mine_leaf)) in enumerate(zip(expected, actual, leaves)):
        want = torch.zeros_like(leaf) if want is None else want
        got = tapegrad.zeros_like(mine_leaf) if got is None else got
        _compare_arrays(f"gradient {i}", want, got, tolerance)


def check_error(info, error_input):
    """tapegrad refuses the error input as torch does: same class, message matching."""
    module_input = error_input.module_error_input
    constructor, forward = module_input.constructor_input, module_input.forward_input

    def run():
        mine = _module(info.module_cls.__name__, constructor.args, constructor.kwargs)
        if error_input.error_on == ModuleErrorEnum.FORWARD_ERROR:
            mine(*to_tapegrad(forward.args), **to_tapegrad(forward.kwargs))
    raises_matching(run, error_input.error_type, error_input.error_regex)


def run(info, dtype_name):
    """Every ModuleInput of one ModuleInfo in one dtype, in each mode, then its error inputs:
    None if all pass, else the first Failure."""
    dtype, tolerance = DTYPES[dtype_name]
    for training in modes(info):
        torch.manual_seed(0)
        module_inputs = info.module_inputs_func(info, device="cpu", dtype=dtype,
                                                requires_grad=True, training=training)
        for i, module_input in enumerate(module_inputs):
            try:
                check_input(info, module_input, dtype, tolerance, training)
            except Failure as failure:
                failure.detail += (f" [input {i} {module_input.desc!r}"
                                   f"{'' if training else ', eval'}]")
                return failure
    if info.module_error_inputs_func is not None:
        for error_input in info.module_error_inputs_func(info, device="cpu", dtype=dtype,
                                                         requires_grad=False, training=True):
            try:
                check_error(info, error_input)
            except Failure as failure:
                failure.detail += f" [error input {error_input.module_error_input.desc!r}]"
                return failure
    return None


def dtypes_of(info):
    return [name for name, (dtype, _) in DTYPES.items() if dtype in info.dtypes]


if __name__ == "__main__":
    # python tests/torch_module_db.py [--write-xfails] [name ...]: each ModuleInfo's first
    # failure per dtype, and the counts
    import collections
    import sys
    import warnings
    warnings.filterwarnings("ignore")
    arguments = sys.argv[1:]
    counts, failures = collections.Counter(), {}
    for name in [a for a in arguments if a != "--write-xfails"] or list(MODULES):
        for dtype_name in dtypes_of(MODULES[name]):
            failure = run(MODULES[name], dtype_name)
            counts[dtype_name, failure.kind if failure else "pass"] += 1
            if failure:
                failures[name, dtype_name] = str(failure).split("\n")[0][:300]
                print(f"{name} [{dtype_name}] {failures[name, dtype_name]}")
    print(sorted(counts.items()))
    if "--write-xfails" in arguments:
        write_xfails(pathlib.Path(__file__).with_name("torch_module_db_xfails.py"), failures,
                     "ModuleInfos of torch's module database that tapegrad does not pass, and "
                     "why\n(`python tests/torch_module_db.py --write-xfails` writes it from a "
                     "run: each entry\nis the first failure reported).",
                     lambda name: len(dtypes_of(MODULES[name])))
