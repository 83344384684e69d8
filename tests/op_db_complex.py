"""op_db rows of the complex-number constructors and parts (ops/complex_parts.py): complex,
polar and imag, checked through real views so that gradcheck sees real tensors."""
from op_db import OpRow, S

ROWS = (
    # torch's own backward of view_as_real fails on empty inputs: no empty sample
    OpRow("complex_construction", lambda lib, x, y: lib.view_as_real(
        lib.polar(x.abs() + 1, y) * lib.complex(x, y)).sum(-1) + lib.complex(x, y).imag,
        (S((3, 4), (3, 4)), S((3, 4), (4,)), S((2, 3), ()), S((), ())),
        ops=("complex", "polar", "imag")),
)
