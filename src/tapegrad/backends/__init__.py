"""torch.backends as a CPU-only torch build has it (cudnn, cuda, mps), plus the process-wide
algorithm switches torch keeps beside them: deterministic algorithms and float32 matmul
precision. tapegrad computes with NumPy either way; the switches are kept and reported."""

from __future__ import annotations

from . import cuda, cudnn, mps  # noqa: F401  (torch.backends.cudnn, ... after import torch)
from .._warnings import warn

_deterministic = {"mode": False, "warn_only": False}
_MATMUL_PRECISIONS = ("highest", "high", "medium")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether deterministic algorithms are required (NumPy's always are)."""
    for name, value, position in (("mode", mode, " (position 1)"), ("warn_only", warn_only, "")):
        if not isinstance(value, bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{position} must "
                            f"be bool, not {type(value).__name__}")
    _deterministic.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _deterministic["warn_only"]


def get_float32_matmul_precision() -> str:
    return cuda.matmul._precision


def set_float32_matmul_precision(precision: str) -> None:
    """'highest', 'high' or 'medium'; anything else warns and changes nothing, as in torch."""
    if precision not in _MATMUL_PRECISIONS:
        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
             "setFloat32MatmulPrecision call has no effect.", UserWarning)
        return
    cuda.matmul._precision = precision
