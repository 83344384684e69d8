"""Anomaly detection: remember where each node was made, and name it when backward fails.

Global, not thread-local, as in torch.
"""
from __future__ import annotations

import functools
import os
import traceback
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np
from .._warnings import warn

if TYPE_CHECKING:
    from .graph import Grads, Node

F = TypeVar("F", bound=Callable[..., Any])

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_enabled = False
_check_nan = True


def is_anomaly_enabled() -> bool:
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """torch.set_anomaly_enabled: anomaly detection on or off from here on."""
    global _enabled, _check_nan
    _enabled, _check_nan = enabled, check_nan


class detect_anomaly:
    """Context manager and decorator: anomaly detection on inside, the previous mode after."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warn("Anomaly Detection has been enabled. This mode will increase the runtime "
             "and should only be enabled for debugging.", UserWarning)

    def __enter__(self) -> None:
        self.prev = (_enabled, _check_nan)
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info: object) -> None:
        set_anomaly_enabled(*self.prev)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]  # wraps keeps func's signature


class set_detect_anomaly:
    """Sets the mode at once, so it works as a call or as a context manager restoring it."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_enabled, _check_nan)
        set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: object) -> None:
        set_anomaly_enabled(*self.prev)


def record_forward_trace(node: Node) -> None:
    """Keep the user's stack (tapegrad's own innermost frames dropped) in node.metadata."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE_DIR):
        frames.pop()
    node.metadata["traceback_"] = traceback.format_list(frames)


def checked_apply(node: Node, apply: Callable[[], Grads]) -> Grads:
    """Run apply() for `node`; on failure, warn with the forward trace and re-raise; with
    check_nan, a NaN in any input gradient is a failure."""
    try:
        grad_inputs = apply()
        if _check_nan:
            for i, grad in enumerate(grad_inputs):
                if grad is not None and np.isnan(grad._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output.")
        return grad_inputs
    except Exception:
        trace = node.metadata.get("traceback_")
        if trace is None:
            warn(f"Error detected in {node.name()}. No forward pass information "
                 "available. Enable detect anomaly during forward pass for more "
                 "information.", UserWarning)
        else:
            warn(f"Error detected in {node.name()}. Traceback of forward call that "
                 f"caused the error:\n{''.join(trace)}", UserWarning)
        raise
