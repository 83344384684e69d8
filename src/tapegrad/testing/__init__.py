"""torch.testing: `assert_close` for tests' comparisons, `make_tensor` for their inputs, and the
deprecated `assert_allclose`.

Differs from torch: no `FileCheck` (it checks TorchScript graphs, which tapegrad does not have).
"""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
