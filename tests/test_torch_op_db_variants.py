"""torch's op database on derived samples: strided layouts and edge values (issue 11, parts 3
and 6).

From the first samples of every OpInfo that tests/torch_op_db.py runs, in float64 (in float32
the edge values only), each kind below derives new samples, which go through the harness's
comparison with torch (values NaN- and inf-aware, dtypes, requires_grad, the VJP for a fixed
cotangent, the method and in-place variants); where torch refuses a derived sample, tapegrad
must raise the same exception class, in the forward or in the backward.
- layouts, the values unchanged: torch's `noncontiguous()` (every tensor's last dimension
  strided by 2), `transposed` (column-major storage), `sliced` (rows cut out of wider rows, at
  an offset); `expanded` (a floating tensor's first slice broadcast along a dimension by a
  stride of 0, so its values repeat). tapegrad gets the same strides (keep_layout).
- edge values in every floating tensor, at two fixed places (the first element and the middle
  one): 0 and -0, +inf and -inf, NaN, +-huge (1e300, 3e38), +-the smallest subnormal, and ties
  (every value rounded to an integer, so values repeat).
A kind that leaves a sample unchanged derives nothing from it. Known differences are strict
xfails with their reasons in torch_op_db_variant_xfails.py, non-strict where which samples
differ depends on the CPU's BLAS and LAPACK kernels. The number of derived samples
compared is written at the end of the module's run.
"""
import collections
import functools
import itertools

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing's op database imports it

import torch  # noqa: E402
import torch_op_db  # noqa: E402  (needs torch)
from torch.testing._internal.common_utils import noncontiguous_like  # noqa: E402
from torch_op_db_variant_xfails import ARBITRARY, PLATFORM, XFAILS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

# derived samples per OpInfo and kind, by dtype: what the time budget (~90 s) allows
SAMPLES_PER_KIND = {"float64": 2, "float32": 1}
HUGE = {torch.float64: 1e300, torch.float32: 3e38}
TINY = {torch.float64: 5e-324, torch.float32: 1e-45}

COUNTS = collections.Counter()  # (kind, outcome) -> derived samples compared


def _leaf_like(tensor, values):
    return values.requires_grad_(tensor.requires_grad)


def _noncontiguous(tensor):
    return noncontiguous_like(tensor) if tensor.numel() > 1 else tensor


def _transposed(tensor):
    if tensor.dim() < 2 or tensor.shape[-1] < 2 or tensor.shape[-2] < 2:
        return tensor
    return _leaf_like(tensor, tensor.detach().mT.contiguous().mT)


def _sliced(tensor):
    if tensor.dim() < 1 or tensor.numel() == 0:
        return tensor
    # the gaps hold NaN (0 for integers): a value read from them would show
    wide = torch.zeros((*tensor.shape[:-1], tensor.shape[-1] + 3), dtype=tensor.dtype)
    if tensor.is_floating_point():
        wide.fill_(float("nan"))
    wide[..., 2:-1] = tensor.detach()
    return _leaf_like(tensor, wide[..., 2:-1])


def _expanded(tensor):
    dims = [d for d, size in enumerate(tensor.shape) if size > 1]
    if not tensor.is_floating_point() or not dims:
        return tensor
    first = tensor.detach().narrow(dims[0], 0, 1).clone()
    return _leaf_like(tensor, first.expand(tensor.shape))


def _with_values(tensor, first, middle):
    """The floating tensor with its first and middle elements replaced (None: kept)."""
    if not tensor.is_floating_point() or tensor.numel() < 2:
        return tensor
    # no view: torch's views of views differ under no_grad
    values = tensor.detach().clone(memory_format=torch.contiguous_format)
    for place, value in ((0, first), (tensor.numel() // 2, middle)):
        if value is not None:
            values.view(-1)[place] = value
    return _leaf_like(tensor, values)


def _ties(tensor):
    if not tensor.is_floating_point() or tensor.numel() < 2:
        return tensor
    return _leaf_like(tensor, tensor.detach().round())


KINDS = {
    "noncontiguous": _noncontiguous,
    "transposed": _transposed,
    "sliced": _sliced,
    "expanded": _expanded,
    "zero": lambda t: _with_values(t, 0.0, -0.0),
    "inf": lambda t: _with_values(t, float("inf"), float("-inf")),
    "nan": lambda t: _with_values(t, None, float("nan")),
    "huge": lambda t: _with_values(t, HUGE.get(t.dtype, 1e300), -HUGE.get(t.dtype, 1e300)),
    "tiny": lambda t: _with_values(t, TINY.get(t.dtype, 5e-324), -TINY.get(t.dtype, 5e-324)),
    "ties": _ties,
}


# float32 runs the edge values only: a layout's strides are the same in either dtype (and the
# time budget is spent better there)
EDGE_KINDS = ("zero", "inf", "nan", "huge", "tiny", "ties")


def derived(op, dtype, kind):
    """The first samples the kind derives from op's samples (changed ones only)."""
    change = KINDS[kind]
    wanted = SAMPLES_PER_KIND[str(dtype).removeprefix("torch.")]
    found = []
    for sample in _samples(op.name, op.variant_test_name, dtype):
        changed = []

        def tracked(value):
            result = change(value) if isinstance(value, torch.Tensor) else value
            changed.append(result is not value)
            return result
        new = sample.transform(tracked)
        if any(changed):
            found.append(new)
        if len(found) == wanted:
            break
    return found


@functools.lru_cache(maxsize=2)
def _samples(name, variant_test_name, dtype):
    op = torch_op_db.OPS[f"{name}.{variant_test_name}" if variant_test_name else name]
    torch.manual_seed(0)
    requires_grad = op.supports_autograd and dtype in op.supported_backward_dtypes("cpu")
    return tuple(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=requires_grad),
                                  8))


def check(name, dtype_name, kind):
    """None when every derived sample agrees with torch, else the first Failure."""
    op = torch_op_db.OPS[name]
    dtype, tolerance = torch_op_db.DTYPES[dtype_name]
    for sample in derived(op, dtype, kind):
        try:
            torch_op_db.check_sample(op, sample, tolerance, keep_layout=True)
        except torch_op_db.Failure as failure:
            COUNTS[kind, "fail"] += 1
            failure.detail += f" [sample {torch_op_db._describe(sample)}]"
            return failure
        COUNTS[kind, "pass"] += 1
    return None


def cases():
    for name, op in torch_op_db.OPS.items():
        for dtype_name, (dtype, _) in torch_op_db.DTYPES.items():
            if dtype not in op.supported_dtypes("cpu"):
                continue
            for kind in KINDS if dtype_name == "float64" else EDGE_KINDS:
                reason = XFAILS.get(f"{name}|{kind}|{dtype_name}", XFAILS.get(f"{name}|{kind}"))
                marks = [pytest.mark.xfail(reason=reason, strict=reason not in PLATFORM)
                         ] if reason else []
                if f"{name}|{kind}" in ARBITRARY:
                    marks = [pytest.mark.xfail(reason=ARBITRARY[f"{name}|{kind}"], strict=False)]
                yield pytest.param(name, dtype_name, kind, id=f"{name}-{dtype_name}-{kind}",
                                   marks=marks)


@pytest.fixture(scope="module", autouse=True)
def _report_corpus(request):
    """The corpus size: derived samples compared, per kind, written after the module's run."""
    yield
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is not None and capture is not None and COUNTS:
        total = sum(COUNTS.values())
        kinds = ", ".join(f"{kind} {COUNTS[kind, 'pass']}/"
                          f"{COUNTS[kind, 'pass'] + COUNTS[kind, 'fail']}" for kind in KINDS)
        with capture.global_and_fixture_disabled():
            reporter.write_line(f"\nderived op-database samples compared: {total} (passing per "
                                f"kind: {kinds})")


@pytest.mark.parametrize("name, dtype_name, kind", list(cases()))
def test_derived_samples_match_torch(name, dtype_name, kind):
    failure = check(name, dtype_name, kind)
    if failure:
        pytest.fail(str(failure), pytrace=False)


if __name__ == "__main__":
    # python tests/test_torch_op_db_variants.py [name ...]: every failure, and the counts
    import sys
    import time
    import warnings
    warnings.filterwarnings("ignore")
    names = set(sys.argv[1:] or torch_op_db.OPS)
    for case in cases():
        if case.values[0] in names:
            start = time.perf_counter()
            failure = check(*case.values)
            seconds = time.perf_counter() - start
            if failure or seconds > 1:
                print("|".join(case.values), f"{seconds:.1f}s", str(failure)[:400], flush=True)
    print(sorted(COUNTS.items()))
