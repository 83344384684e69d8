"""PyTorch's own module database, run against tapegrad.nn (see torch_module_db.py for what is
compared).

One test per ModuleInfo and dtype. A ModuleInfo that does not pass every input is a strict
xfail whose reason is in torch_module_db_xfails.py; the counts are printed at the end."""
import collections

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing's databases import it

import torch_module_db  # noqa: E402  (needs torch)
from torch_module_db_xfails import XFAILS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

COUNTS = collections.Counter()  # (dtype, outcome) -> ModuleInfos; printed by conftest.py


def cases():
    for name, info in torch_module_db.MODULES.items():
        for dtype_name in torch_module_db.dtypes_of(info):
            reason = XFAILS.get(f"{name}|{dtype_name}", XFAILS.get(name))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(name, dtype_name, id=f"{name}-{dtype_name}", marks=marks)


@pytest.mark.parametrize("name, dtype_name", list(cases()))
def test_module_db(name, dtype_name):
    failure = torch_module_db.run(torch_module_db.MODULES[name], dtype_name)
    COUNTS[dtype_name, failure.kind if failure else "pass"] += 1
    if failure:
        pytest.fail(str(failure), pytrace=False)
