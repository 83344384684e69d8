"""PyTorch's own op database, run against tapegrad (see torch_op_db.py for what is compared).

One test per OpInfo and dtype. An OpInfo that does not pass every sample is a strict xfail
whose reason is in torch_op_db_xfails.py; the run's counts are printed at the end."""
import collections

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing's op database imports it

import torch_op_db  # noqa: E402  (needs torch)
from torch_op_db_xfails import XFAILS  # noqa: E402

# torch's deprecation and beta warnings about the ops under test are not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore")

# xfails whose outcome depends on the CPU's BLAS kernels (they pass on AVX2 machines):
# non-strict. Kept here, not in the xfail table, which --write-xfails rewrites.
PLATFORM = {"linalg.householder_product|float32"}
COUNTS = collections.Counter()  # (dtype, outcome) -> OpInfos; printed by conftest.py


def cases():
    for name, op in torch_op_db.OPS.items():
        for dtype_name, (dtype, _) in torch_op_db.DTYPES.items():
            if dtype in op.supported_dtypes("cpu"):
                key = f"{name}|{dtype_name}"
                reason = XFAILS.get(key, XFAILS.get(name))
                marks = [pytest.mark.xfail(reason=reason, strict=key not in PLATFORM)
                         ] if reason else []
                yield pytest.param(name, dtype_name, id=f"{name}-{dtype_name}", marks=marks)


@pytest.mark.parametrize("name, dtype_name", cases())
def test_op_db(name, dtype_name):
    failure = torch_op_db.run(torch_op_db.OPS[name], dtype_name)
    COUNTS[dtype_name, failure.kind if failure else "pass"] += 1
    if failure:
        pytest.fail(str(failure), pytrace=False)
