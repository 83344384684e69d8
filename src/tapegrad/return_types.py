"""torch.return_types: the named tuples returned by max(dim), sort, topk, linalg.qr, ..."""
from typing import TYPE_CHECKING

from .ops.reduction import RETURN_TYPES

globals().update(RETURN_TYPES)

if TYPE_CHECKING:  # the named tuples' fields, for type checkers (tools/stubs.py)
    from ._return_types import *  # noqa: F403
