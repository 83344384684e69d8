"""op_db rows of the factory family's one differentiable op, torch.fill (out of place): the
input gets a zero gradient, a tensor fill value the sum of the incoming gradient."""
from op_db import UNARY, OpRow, S

ROWS = (
    OpRow("fill_number", lambda lib, x: lib.fill(x, 2.5), UNARY, ops=("fill",)),
    OpRow("fill_tensor", lambda lib, x, value: lib.fill(x, value),
          (S((3, 4), ()), S((), ()), S((0, 3), ()), S((4, 3), (), layouts=("t", None))),
          ops=("fill",)),
)
