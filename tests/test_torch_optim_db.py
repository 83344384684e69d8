"""PyTorch's own optimiser database, run against tapegrad.optim (see torch_optim_db.py for what
is compared).

One test per OptimizerInfo and dtype. An OptimizerInfo that does not pass every input is a
strict xfail whose reason is in torch_optim_db_xfails.py; the counts are printed at the end."""
import collections

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing's databases import it

import torch_optim_db  # noqa: E402  (needs torch)
from torch_optim_db_xfails import XFAILS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

COUNTS = collections.Counter()  # (dtype, outcome) -> OptimizerInfos; printed by conftest.py


def cases():
    for name in torch_optim_db.OPTIMIZERS:
        for dtype_name in torch_optim_db.DTYPES:
            reason = XFAILS.get(f"{name}|{dtype_name}", XFAILS.get(name))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(name, dtype_name, id=f"{name}-{dtype_name}", marks=marks)


@pytest.mark.parametrize("name, dtype_name", list(cases()))
def test_optim_db(name, dtype_name):
    failure = torch_optim_db.run(torch_optim_db.OPTIMIZERS[name], dtype_name)
    COUNTS[dtype_name, failure.kind if failure else "pass"] += 1
    if failure:
        pytest.fail(str(failure), pytrace=False)
