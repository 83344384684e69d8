"""Runs PyTorch's own op database (torch.testing's `op_db`) against tapegrad.

For every OpInfo and every sample input it makes, the same call runs on torch and on tapegrad
(the sample converted tensor by tensor, same dtype and requires_grad) and the two are compared:
output structure, shapes, dtypes, values, requires_grad, and the vector-Jacobian product for a
fixed cotangent. Torch's callables are translated to tapegrad's by where they live (torch.X,
Tensor.X, torch.nn.functional.X, torch.linalg.X); a lambda written in torch's test code runs
with its torch globals replaced by tapegrad's, so `lambda x: x.foo(2)` tests tapegrad's foo.
Tolerances: 1e-7 in float64 and 1e-5 in float32, relative, and absolute scaled by the largest
expected magnitude. Random ops (and attention with dropout) compare shapes and dtypes only.
"""
import dataclasses
import functools
import importlib
import pathlib
import re
import types

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db

import tapegrad

# torch's thread pool costs more than it saves on these small samples (on a busy machine,
# milliseconds per call)
torch.set_num_threads(1)

DTYPES = {"float64": (torch.float64, 1e-7), "float32": (torch.float32, 1e-5)}
# run by test_torch_op_db_complex.py (and `python torch_op_db.py --complex ...`)
COMPLEX_DTYPES = {"complex128": (torch.complex128, 1e-7), "complex64": (torch.complex64, 1e-5)}

def has_float_cpu(op):
    if op.name.startswith(("_", "jiterator_")) or op.name.endswith("_backward") \
            or isinstance(op.op, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        return False  # torch-internal names, torch.ops.aten.*, CUDA-only jiterator ops
    return any(dtype in op.supported_dtypes("cpu") for dtype, _ in DTYPES.values())


def key(op):
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


OPS = {key(op): op for op in op_db if has_float_cpu(op)}

# Ops whose values are random (or uninitialised): only shapes and dtypes are compared.
RANDOM = {"bernoulli", "multinomial", "normal", "poisson", "rand_like", "randn_like",
          "randint_like", "randint", "randn", "rand", "uniform", "empty", "empty_like",
          "new_empty", "new_empty_strided", "empty_strided", "empty_permuted", "exponential",
          "geometric", "cauchy", "log_normal", "nn.functional.dropout", "nn.functional.dropout1d",
          "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
          "nn.functional.feature_alpha_dropout", "nn.functional.rrelu"}


def is_random(op, sample):
    """Random values: a random op, or attention with dropout (sdpa's keyword dropout_p, the
    tenth positional argument of multi_head_attention_forward in training)."""
    if op.name == "nn.functional.multi_head_attention_forward":
        return sample.kwargs.get("training", True) and sample.args[9] > 0
    return op.name in RANDOM or sample.kwargs.get("dropout_p", 0) > 0


# ---- translating torch's objects into tapegrad's ----------------------------------------

class Missing(Exception):
    """tapegrad has no counterpart of a torch name the op needs."""


_NAMESPACES = {"torch": "tapegrad", "torch.nn.functional": "tapegrad.nn.functional",
               "torch.linalg": "tapegrad.linalg", "torch.special": "tapegrad.special",
               "torch.fft": "tapegrad.fft", "torch.nn": "tapegrad.nn",
               "torch.masked": "tapegrad.masked", "torch.signal": "tapegrad.signal",
               "torch.signal.windows": "tapegrad.signal.windows",
               "torch.autograd": "tapegrad.autograd"}


def _where_torch_keeps():
    """id(object) -> (namespace, name) for every public callable of torch's namespaces."""
    places = {}
    for namespace in reversed(list(_NAMESPACES)):  # torch.X wins over torch.nn.functional.X
        module = importlib.import_module(namespace)
        for name in dir(module):
            places[id(getattr(module, name))] = (namespace, name)
    for name in dir(torch.Tensor):
        places.setdefault(id(getattr(torch.Tensor, name)), ("Tensor", name))
    return places


_PLACES = _where_torch_keeps()


def _counterpart(namespace, name):
    if namespace == "Tensor":
        owner = tapegrad.Tensor
    else:
        try:
            owner = importlib.import_module(_NAMESPACES[namespace])
        except ImportError:
            raise Missing(f"{_NAMESPACES[namespace]} is missing") from None
    if not hasattr(owner, name):
        raise Missing(f"{_NAMESPACES.get(namespace, 'Tensor')}.{name} is missing")
    return getattr(owner, name)


class _Module:
    """A torch module seen from torch's test lambdas: its names looked up in tapegrad."""

    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        if name in ("Tensor", "Size", "dtype", "device") and self._namespace == "torch":
            return getattr(tapegrad, name)
        submodule = f"{self._namespace}.{name}"
        if submodule in _NAMESPACES:
            return _Module(submodule)
        if self._namespace not in _NAMESPACES:
            raise Missing(f"{self._namespace}.{name} has no tapegrad namespace")
        value = getattr(importlib.import_module(self._namespace), name, None)
        if isinstance(value, torch.dtype):
            return to_tapegrad(value)
        return _counterpart(self._namespace, name)


def _code_names(code):
    names, codes = set(), [code]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def _rebound(function):
    """A function of torch's test code, with the torch objects it reads replaced."""
    names = {}
    for name in _code_names(function.__code__):
        if name in function.__globals__:
            names[name] = to_tapegrad(function.__globals__[name])
    cells = function.__closure__ and tuple(types.CellType(to_tapegrad(c.cell_contents))
                                           for c in function.__closure__)
    defaults = function.__defaults__ and tuple(to_tapegrad(d) for d in function.__defaults__)
    rebound = types.FunctionType(function.__code__, {**function.__globals__, **names},
                                 function.__name__, defaults, cells)
    rebound.__kwdefaults__ = function.__kwdefaults__ and {
        k: to_tapegrad(v) for k, v in function.__kwdefaults__.items()}
    return rebound


def _seeded(op, *args, **kwargs):
    """torch.testing's wrapper_set_seed, on tapegrad's generator."""
    state = tapegrad.get_rng_state()
    tapegrad.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        tapegrad.set_rng_state(state)


_REPLACED = {id(torch.testing._utils.wrapper_set_seed): _seeded}


def _module_counterpart(module):
    """A default-constructed torch.nn module (PairwiseDistance()) as tapegrad's."""
    cls = getattr(tapegrad.nn, type(module).__name__, None)
    if cls is None:
        raise Missing(f"tapegrad.nn.{type(module).__name__} is missing")
    mine = cls()
    if mine.extra_repr() != module.extra_repr():
        raise Missing(f"no translation for {module!r}")
    return mine


def to_tapegrad(value, memo=None):
    """The tapegrad counterpart of a torch value: tensors, dtypes, callables, containers.
    memo maps torch tensors already converted, so a tensor passed twice stays one tensor."""
    memo = {} if memo is None else memo
    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            result = _partial_view(value) if value.storage_offset() else tapegrad.tensor(
                value.detach().cpu().resolve_conj().resolve_neg().numpy(),
                dtype=to_tapegrad(value.dtype))
            memo[id(value)] = result.requires_grad_() if value.requires_grad else result
        return memo[id(value)]
    if id(value) in _REPLACED:
        return _REPLACED[id(value)]
    if isinstance(value, torch.nn.Module):
        return _module_counterpart(value)
    if isinstance(value, torch.dtype):
        return _counterpart("torch", str(value).split(".")[1])
    if isinstance(value, torch.Size):
        return tapegrad.Size(value)
    if isinstance(value, torch.device):
        return tapegrad.device(str(value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_tapegrad(v, memo) for v in value)
    if isinstance(value, dict):
        return {k: to_tapegrad(v, memo) for k, v in value.items()}
    if isinstance(value, types.ModuleType):
        return _Module(value.__name__) if value.__name__.startswith("torch") else value
    if callable(value) and id(value) in _PLACES:
        return _counterpart(*_PLACES[id(value)])
    if isinstance(value, types.FunctionType) and value.__module__.startswith("torch"):
        return _rebound(value)
    if isinstance(value, functools.partial):
        return functools.partial(to_tapegrad(value.func), *to_tapegrad(value.args),
                                 **to_tapegrad(value.keywords))
    if isinstance(value, (torch.memory_format, torch.layout)):
        return _counterpart("torch", str(value).split(".")[1])
    return value


def _partial_view(value):
    """A torch tensor that starts inside its storage (base[5:15]) as the same view of a copy
    of that storage, so that ops reading the storage (as_strided) see what torch's see."""
    detached = value.detach().resolve_conj().resolve_neg()
    length = detached.untyped_storage().nbytes() // detached.element_size()
    storage = torch.as_strided(detached, (length,), (1,), 0).numpy()
    base = tapegrad.tensor(storage, dtype=to_tapegrad(value.dtype))
    return tapegrad.as_strided(base, tuple(value.shape), value.stride(), value.storage_offset())




# ---- one OpInfo, one dtype ---------------------------------------------------------------

@dataclasses.dataclass
class Failure(Exception):
    kind: str  # "missing", "error" or "mismatch"
    detail: str

    def __str__(self):
        return f"{self.kind}: {self.detail}"


def _tensors(value):
    if isinstance(value, (torch.Tensor, tapegrad.Tensor)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _structure(value):
    """What must agree besides tensor contents: containers, lengths, plain values."""
    if isinstance(value, (torch.Tensor, tapegrad.Tensor)):
        return "tensor"
    if isinstance(value, (list, tuple)):
        return [_structure(v) for v in value]
    if isinstance(value, (torch.dtype, tapegrad.dtype)):
        return str(value)
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def _compare_arrays(what, expected, actual, tolerance, values=True):
    if tuple(actual.shape) != tuple(expected.shape):
        raise Failure("mismatch", f"{what} shape {tuple(actual.shape)} != "
                                  f"{tuple(expected.shape)}")
    if str(actual.dtype) != str(expected.dtype):
        raise Failure("mismatch", f"{what} dtype {actual.dtype} != {expected.dtype}")
    if not values:
        return
    if expected.dtype == torch.bfloat16:  # NumPy has no bfloat16: compare the values as float32
        expected, actual = expected.float(), actual.float()
    want = expected.detach().resolve_conj().resolve_neg().numpy(force=True)  # a ZeroTensor too
    got = np.asarray(actual.detach().numpy())
    if want.dtype == np.bool_ or not np.issubdtype(want.dtype, np.inexact):
        same = np.array_equal(want, got)
    else:
        if want.dtype in (np.float32, np.complex64):  # a float32 tensor in a float64 sample
            tolerance = max(tolerance, DTYPES["float32"][1])
        # Rounding errors grow with the operands' magnitude (torch's samples reach +-9), so the
        # absolute tolerance scales with the largest finite expected value.
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        same = np.allclose(got, want, rtol=tolerance, atol=tolerance * scale, equal_nan=True)
    if not same:
        kind = complex if want.dtype.kind == "c" else float
        difference = np.abs(got.astype(kind) - want.astype(kind))
        worst = np.nanmax(difference) if np.isfinite(difference).any() else np.nan
        raise Failure("mismatch", f"{what} values differ (max abs diff {worst:.3g})")


def _compare_results(expected, actual, tolerance, values):
    if _structure(actual) != _structure(expected):
        raise Failure("mismatch", f"result {_structure(actual)!r} != {_structure(expected)!r}")
    pairs = list(zip(_tensors(expected), _tensors(actual)))
    for i, (want, got) in enumerate(pairs):
        _compare_arrays(f"output {i}", want, got, tolerance, values)
        if got.requires_grad != want.requires_grad:
            raise Failure("mismatch", f"output {i} requires_grad {got.requires_grad}")
    return pairs


def _cotangent(tensor):
    rng = np.random.default_rng(tensor.numel())
    cotangent = rng.uniform(-1, 1, tuple(tensor.shape))
    if tensor.is_complex():  # both parts vary, so a gradient's conjugation shows
        return np.asarray(cotangent + 1j * rng.uniform(-1, 1, tuple(tensor.shape)))
    return cotangent


class _Converted:
    """A sample's input, args and kwargs as tapegrad values. With keep_layout, a strided torch
    tensor (transposed, sliced, expanded) becomes the same view of a copy of its storage."""

    def __init__(self, sample, keep_layout=False):
        memo = {}
        for tensor in _tensors(_parts(sample)) if keep_layout else ():
            if id(tensor) not in memo and not tensor.is_contiguous():
                view = _partial_view(tensor)
                memo[id(tensor)] = view.requires_grad_() if tensor.requires_grad else view
        self.input = to_tapegrad(sample.input, memo)
        self.args = to_tapegrad(tuple(sample.args), memo)
        self.kwargs = to_tapegrad(dict(sample.kwargs), memo)


def _parts(sample):
    return [sample.input, list(sample.args), dict(sample.kwargs)]


def _on_tapegrad(run):
    """run() on tapegrad's side, its exceptions sorted into missing names and errors."""
    try:
        return run()
    except (Missing, Failure) as failure:
        raise Failure("missing", str(failure)) if isinstance(failure, Missing) else failure
    except Exception as error:
        text = str(error)
        if isinstance(error, AttributeError) and (
                "tapegrad" in text or "'Tensor' has no attribute" in text
                or "'Tensor' object has no attribute" in text):
            raise Failure("missing", f"{type(error).__name__}: {error}") from None
        raise Failure("error", f"{type(error).__name__}: {error}") from error


def check_sample(op, sample, tolerance, keep_layout=False):
    """Compare one sample on both libraries; raise Failure on the first difference. Where torch
    refuses the sample (a derived one: edge values, strided inputs), tapegrad must refuse it
    with the same exception class."""
    values = not is_random(op, sample)
    mine = _on_tapegrad(lambda: _Converted(sample, keep_layout))

    def call():
        function, wrap, post = (to_tapegrad(f) for f in (
            op.op, op.gradcheck_wrapper, sample.output_process_fn_grad))
        return post(wrap(function, mine.input, *mine.args, **mine.kwargs))
    try:
        expected = sample.output_process_fn_grad(
            op.gradcheck_wrapper(op.op, sample.input, *sample.args, **sample.kwargs))
    except Exception as refused:
        return _refuses_alike(refused, call)
    pairs = _compare_results(expected, _on_tapegrad(call), tolerance, values)
    if values:
        _compare_vjp(sample, mine, pairs, tolerance)
    variants = [(op.method_variant, False), (op.inplace_variant, True)]
    for alias in op.aliases:  # torch's other names for the op: arctan2, greater, clip, ...
        variants += [(alias.op, False), (alias.method_variant, False),
                     (alias.inplace_variant, True)]
    for variant, in_place in variants:
        if variant is not None and variant is not op.op:
            _check_variant(variant, in_place, sample, tolerance, values, keep_layout)


def _refuses_alike(refused, run):
    """tapegrad's run() must raise an exception of the class torch raised (refused)."""
    try:
        _on_tapegrad(run)
    except Failure as failure:
        if failure.kind == "error" and failure.detail.startswith(type(refused).__name__ + ":"):
            return
        raise Failure(failure.kind, f"torch raises {type(refused).__name__}: {refused}; "
                                    f"tapegrad {failure.detail}") from None
    raise Failure("mismatch", f"tapegrad accepts what torch refuses with "
                              f"{type(refused).__name__}: {str(refused)[:150]}")


def _check_variant(variant, in_place, sample, tolerance, values, keep_layout=False):
    """The method or in-place variant: values only, without grad, as torch's variant test."""
    if in_place and (sample.broadcasts_input or not isinstance(sample.input, torch.Tensor)):
        return
    process = sample.output_process_fn_grad  # makes results comparable (svd's signs)
    with torch.no_grad():
        target = sample.input.clone() if in_place else sample.input
        try:
            expected = process(variant(target, *sample.args, **sample.kwargs))
        except Exception as error:
            refused = error
        else:
            refused = None
    mine = _on_tapegrad(lambda: _Converted(sample, keep_layout))

    def call():
        with tapegrad.no_grad():
            target = mine.input.clone() if in_place else mine.input
            try:
                result = to_tapegrad(variant)(target, *mine.args, **mine.kwargs)
            except Exception as error:
                if refused is not None and type(error).__name__ == type(refused).__name__:
                    return None
                raise
            if refused is not None:
                raise Failure("mismatch", f"torch refuses with {type(refused).__name__}: "
                                          f"{refused}")
            if in_place and result is not target:
                raise Failure("mismatch", "the in-place variant returns a new tensor")
            return to_tapegrad(process)(result)
    name = getattr(variant, "__name__", "variant")
    result = _on_tapegrad(call)
    if refused is None:
        try:
            _compare_results(expected, result, tolerance, values)
        except Failure as failure:
            failure.detail = f"{name}: {failure.detail}"
            raise


def _compare_vjp(sample, mine, outputs, tolerance):
    wants = [(want, got) for want, got in outputs if want.requires_grad]
    leaves = [(t, m) for t, m in zip(_tensors(_parts(sample)), _tensors(_parts(mine)))
              if t.requires_grad]
    if not wants or not leaves:
        return
    cotangents = [_cotangent(want) for want, _ in wants]

    def mine_grad():
        return tapegrad.autograd.grad(
            [got for _, got in wants], [leaf for _, leaf in leaves],
            [tapegrad.tensor(c, dtype=got.dtype) for c, (_, got) in zip(cotangents, wants)],
            allow_unused=True)
    try:
        expected = torch.autograd.grad(
            [want for want, _ in wants], [leaf for leaf, _ in leaves],
            [torch.from_numpy(c).to(want.dtype) for c, (want, _) in zip(cotangents, wants)],
            allow_unused=True)
    except Exception as refused:
        return _refuses_alike(refused, mine_grad)
    actual = _on_tapegrad(mine_grad)
    for i, (want, got, (leaf, mine_leaf)) in enumerate(zip(expected, actual, leaves)):
        want = torch.zeros_like(leaf) if want is None else want
        got = tapegrad.zeros_like(mine_leaf) if got is None else got
        _compare_arrays(f"gradient {i}", want, got, tolerance)


def run(op, dtype_name):
    """Check every sample of one OpInfo in one dtype: None if all pass, else the Failure."""
    dtype, tolerance = {**DTYPES, **COMPLEX_DTYPES}[dtype_name]
    torch.manual_seed(0)
    requires_grad = op.supports_autograd and dtype in op.supported_backward_dtypes("cpu")
    for sample in op.sample_inputs("cpu", dtype, requires_grad=requires_grad):
        try:
            check_sample(op, sample, tolerance)
        except Failure as failure:
            failure.detail += f" [sample {sample.name or ''} {_describe(sample)}]"
            return failure
    return None


def _describe(sample):
    def short(value):
        if isinstance(value, torch.Tensor):
            return f"T{tuple(value.shape)}:{str(value.dtype)[6:]}"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(short(v) for v in value) + "]"
        return repr(value)
    parts = [short(sample.input), *(short(a) for a in sample.args),
             *(f"{k}={short(v)}" for k, v in sample.kwargs.items())]
    return ", ".join(parts)[:200]


def raises_matching(run, error_type, pattern):
    """run() on tapegrad must raise error_type with a message matching torch's pattern (the
    error inputs of the module and optimiser databases)."""
    try:
        _on_tapegrad(run)
    except Failure as failure:
        if failure.kind == "missing":
            raise
        cause = failure.__cause__
        if type(cause).__name__ != error_type.__name__ or not re.search(pattern, str(cause)):
            raise Failure("mismatch", f"torch raises {error_type.__name__} matching "
                                      f"{pattern!r}; tapegrad {failure.detail}") from None
        return
    raise Failure("mismatch", f"tapegrad accepts what torch refuses with {error_type.__name__}")


def write_xfails(path, failures, docstring=None, dtype_count=None):
    """Write {name or name|dtype: first failure}: one key per name when every dtype it runs in
    fails alike. Also used by torch_module_db.py and torch_optim_db.py (their docstring and
    their count of dtypes per name)."""
    docstring = docstring or ("OpInfos of torch's op database that tapegrad does not pass yet, "
                              "and why (written by\n`python tests/torch_op_db.py "
                              "--write-xfails`, from what each one's run reported).")
    dtype_count = dtype_count or (lambda name: len(_dtypes_of(OPS[name])))
    lines = [f'"""{docstring}"""', "XFAILS = {"]
    for name in sorted({name for name, _ in failures}):
        reasons = {dtype_name: failures[name, dtype_name] for n, dtype_name in failures
                   if n == name}
        alike = {reason.replace(dtype_name, "") for dtype_name, reason in reasons.items()}
        if len(alike) == 1 and len(reasons) == dtype_count(name):
            lines.append(f"    {name!r}: {next(iter(reasons.values()))!r},")
        else:
            lines.extend(f"    {name + '|' + d!r}: {r!r}," for d, r in reasons.items())
    pathlib.Path(path).write_text("\n".join(lines) + "\n}\n")


def _dtypes_of(op, dtypes=DTYPES):
    return [name for name, (dtype, _) in dtypes.items() if dtype in op.supported_dtypes("cpu")]


def has_complex_cpu(op):
    """An OpInfo that test_torch_op_db_complex.py runs: complex CPU kernels, a public name."""
    return not op.name.startswith(("_", "jiterator_")) and not op.name.endswith("_backward") \
        and not isinstance(op.op, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)) \
        and any(dtype in op.supported_dtypes("cpu") for dtype, _ in COMPLEX_DTYPES.values())


if __name__ == "__main__":
    # python tests/torch_op_db.py [--write-xfails] [name or prefix. ...]: each OpInfo's first
    # failure per dtype, and the counts ("fft." runs every OpInfo whose name starts so).
    import collections
    import sys
    import warnings
    warnings.filterwarnings("ignore")
    arguments = sys.argv[1:]
    write = "--write-xfails" in arguments
    in_complex = "--complex" in arguments  # the complex dtypes instead of the float ones
    known = {key(op): op for op in op_db if has_complex_cpu(op)} if in_complex else OPS
    names = [name for a in arguments if a not in ("--write-xfails", "--complex")
             for name in ([n for n in known if n.startswith(a)] if a.endswith(".") else [a])
             ] or list(known if in_complex else OPS)
    counts, failures = collections.Counter(), {}
    for name in names:
        for dtype_name in _dtypes_of(known[name], COMPLEX_DTYPES if in_complex else DTYPES):
            failure = run(known[name], dtype_name)
            counts[dtype_name, failure.kind if failure else "pass"] += 1
            if failure:
                failures[name, dtype_name] = str(failure).split("\n")[0][:300]
                print(f"{name} [{dtype_name}] {failure}")
    print(sorted(counts.items()))
    if write:
        write_xfails(pathlib.Path(__file__).with_name("torch_op_db_xfails.py"), failures)
