"""op_db rows of the remaining nn.functional, normalisation, resampling and product ops:
addbmm and addr (tapegrad/ops/linalg.py), the native_* norms, local_response_norm, the
interpolation modes beyond bilinear, linear_cross_entropy and the linalg decompositions on
empty batches."""
from op_db import OpRow, S

ROWS = (
    OpRow("addbmm", lambda lib, i, a, b, **scales: lib.addbmm(i, a, b, **scales), (
        S((2, 4), (3, 2, 5), (3, 5, 4)),
        S((4,), (3, 2, 5), (3, 5, 4), constants={"beta": 0.5, "alpha": -2},
          label="broadcast-scaled"),
        S((), (2, 2, 3), (2, 3, 2), constants={"beta": 0}, label="0d-beta0"),
        S((2, 2), (0, 2, 3), (0, 3, 2), label="empty-batch"),
    ), ops=("addbmm",)),
    OpRow("addbmm_method", lambda lib, i, a, b: i.addbmm(a, b, alpha=3),
          (S((2, 2), (2, 2, 3), (2, 3, 2)),), ops=("addbmm",)),
    OpRow("addr", lambda lib, i, a, b, **scales: lib.addr(i, a, b, **scales), (
        S((3, 4), (3,), (4,)),
        S((4,), (3,), (4,), constants={"beta": 2, "alpha": 0.5}, label="broadcast-scaled"),
        S((), (3,), (4,), constants={"beta": 0}, label="0d-beta0"),
        S((3, 4), (3,), (4,), layouts=("t", None, None), requires_grad=(True, False, True),
          label="t-vec2-only"),
    ), ops=("addr",)),
    OpRow("addr_method", lambda lib, i, a, b: i.addr(a, b), (S((2, 3), (2,), (3,)),),
          ops=("addr",)),
)
