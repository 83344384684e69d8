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
from torch_op_db_complex_xfails import XFAILS  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

OTHER_FAMILIES = ("fft.", "linalg.", "masked.", "sparse.")
OPS = {torch_op_db.key(op): op for op in op_db if torch_op_db.has_complex_cpu(op)
       and not op.name.startswith(OTHER_FAMILIES)}

COUNTS = collections.Counter()  # (dtype, outcome) -> OpInfos; printed by conftest.py


def cases():
    for name, op in OPS.items():
        for dtype_name in torch_op_db._dtypes_of(op, torch_op_db.COMPLEX_DTYPES):
            reason = XFAILS.get(f"{name}|{dtype_name}", XFAILS.get(name))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(name, dtype_name, id=f"{name}-{dtype_name}", marks=marks)


@pytest.mark.parametrize("name, dtype_name", list(cases()))
def test_op_db_complex(name, dtype_name):
    failure = torch_op_db.run(OPS[name], dtype_name)
    COUNTS[dtype_name, failure.kind if failure else "pass"] += 1
    if failure:
        pytest.fail(str(failure), pytrace=False)
