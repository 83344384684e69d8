"""LinearCrossEntropyOptions, as torch.nn: how F.linear_cross_entropy chunks the batch.
tapegrad reads batch_chunk_size (None: one chunk) and allow_retain_graph; the other fields are
checked as torch checks them and change nothing here (they pick torch kernels' precision)."""
from __future__ import annotations

import dataclasses

from ... import _dtype

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Options of F.linear_cross_entropy's chunked path."""
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method not in (None, "auto"):
            name, colon, factor = self.chunking_method.partition(":")
            factor = factor if colon else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                   and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        allowed = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)
        if self.acc_dtype is not None and self.acc_dtype not in allowed:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")
