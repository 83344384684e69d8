"""torch.return_types: the named tuples returned by max(dim), sort, topk, linalg.qr, ..."""
from .ops.reduction import RETURN_TYPES

globals().update(RETURN_TYPES)
