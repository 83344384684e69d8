"""PyTorch's own op database in complex64 and complex128 (see torch_op_db.py for what is
compared: values, dtypes, VJPs with complex cotangents, method and in-place variants).

The OpInfos are those with complex CPU kernels, outside the families other work brings
(torch.fft, torch.linalg, torch.masked, sparse). An OpInfo that does not pass every sample is a
strict xfail whose reason says what is missing and where; the counts are printed at the end."""
import collections

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing's op database imports it

import torch_op_db  # noqa: E402  (needs torch)
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

OTHER_FAMILIES = ("fft.", "linalg.", "masked.", "sparse.")
OPS = {torch_op_db.key(op): op for op in op_db if torch_op_db.has_complex_cpu(op)
       and not op.name.startswith(OTHER_FAMILIES)}

# Fixed by /tmp/complex_others.patch (conj_of in ops/linalg.py's, reduction.py's and shape.py's
# formulas, mean of complex), which touches files this work does not own; once it is applied
# these entries go.
_CONJ_IN_LINALG = ("the matrix product's formulas in ops/linalg.py do not conjugate the other "
                   "operand (torch: grad @ other.mH)")
_CONJ_IN_REDUCTION = "ops/reduction.py's formula does not conjugate input and result"
_MEAN_OF_COMPLEX = "ops/reduction.py's mean refuses complex input (its dtype check)"
NEEDS_PATCH = {
    **dict.fromkeys("addbmm addmm addmm.decomposed addmv addr baddbmm bmm dot einsum inner "
                    "matmul mm mv nn.functional.linear tensordot".split(), _CONJ_IN_LINALG),
    "vdot": "ops/linalg.py's vdot formula does not conjugate the gradient (torch: "
            "grad.conj() * other)",
    "prod": _CONJ_IN_REDUCTION, "cumprod": _CONJ_IN_REDUCTION,
    **dict.fromkeys("mean std std.unbiased std_mean std_mean.unbiased var var.unbiased "
                    "var_mean var_mean.unbiased".split(), _MEAN_OF_COMPLEX),
    "H": "ops/shape.py's Tensor.H does not conjugate",
    "mH": "ops/shape.py's mH does not conjugate; with that, its no_grad method variant still "
          "does not require grad (Note [Conjugate bit] in ops/complex_parts.py)",
}

_CONJ_IS_A_COPY = ("Note [Conjugate bit]: conj() is a copy here, so made under no_grad it does "
                   "not require grad as torch's lazy conjugate view does")
_COMPLEX_LINALG = "complex linear algebra (ops/linalg.py, factorization.py) is not written yet"
_CONV = "ops/conv.py's formulas do not conjugate the other operand"
XFAILS = {
    **NEEDS_PATCH,
    "conj": _CONJ_IS_A_COPY,
    "chalf": "NumPy has no complex32: Tensor.chalf() raises NotImplementedError",
    **dict.fromkeys("cholesky logdet pca_lowrank svd svd_lowrank".split(), _COMPLEX_LINALG),
    **dict.fromkeys("nn.functional.conv1d nn.functional.conv2d nn.functional.conv3d "
                    "nn.functional.conv_transpose1d nn.functional.conv_transpose2d "
                    "nn.functional.conv_transpose3d".split(), _CONV),
    "cross": "ops/cross_product.py's formula does not conjugate the other operand",
    "as_strided_scatter": "the gradient of as_strided_scatter's input differs for complex "
                          "(ops/strided.py)",
    "cov": "ops/statistics.py's cov does not conjugate (torch: x @ x.mH)",
    "corrcoef": "ops/statistics.py's corrcoef clamps its complex result",
    "nn.functional.normalize": "nn.functional.normalize clamps a complex norm (norm of complex "
                               "is not real yet, ops/reduction.py)",
    "norm": "ops/reduction.py's norm of a complex tensor is complex (torch: real)",
    "renorm": "ops/reduction.py's renorm takes the norm of complex values as complex",
    "logsumexp": "ops/reduction.py's logsumexp of complex values is not torch's",
    "logcumsumexp": "ops/scans.py's logcumsumexp compares complex values",
    "gradient": "ops/calculus.py's gradient makes its spacing float32 for complex input",
    "isreal": "ops/value_tests.py's isreal is always True (torch: imag == 0)",
    "nn.functional.silu.complex": "ops/activation.py's silu refuses complex",
    "nn.functional.rms_norm": "rms_norm refuses complex",
    "istft": "torch.istft's window gradient differs for complex (ops/spectral.py)",
    "to_sparse": "tapegrad has no sparse layouts",
}

COUNTS = collections.Counter()  # (dtype, outcome) -> OpInfos


def cases():
    for name, op in OPS.items():
        for dtype_name in torch_op_db._dtypes_of(op, torch_op_db.COMPLEX_DTYPES):
            reason = XFAILS.get(f"{name}|{dtype_name}", XFAILS.get(name))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(name, dtype_name, id=f"{name}-{dtype_name}", marks=marks)


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request):
    """The counts per dtype, written after pytest's summary (conftest.py's summary of the
    float op database does not know this module)."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        request.config.add_cleanup(lambda: _write_counts(reporter))


def _write_counts(reporter):
    if not COUNTS:
        return
    reporter.section("torch op database in complex dtypes (OpInfos per dtype)")
    for dtype_name in torch_op_db.COMPLEX_DTYPES:
        counts = {kind: n for (dtype, kind), n in COUNTS.items() if dtype == dtype_name}
        reporter.write_line(f"{dtype_name}: {sum(counts.values())} OpInfos, "
                            + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))


@pytest.mark.parametrize("name, dtype_name", list(cases()))
def test_op_db_complex(name, dtype_name):
    failure = torch_op_db.run(OPS[name], dtype_name)
    COUNTS[dtype_name, failure.kind if failure else "pass"] += 1
    if failure:
        pytest.fail(str(failure), pytrace=False)
