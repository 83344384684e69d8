"""torch.cpu: the cpu as a device module (always available, one device), and torch.cpu.amp."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: cpu ops finish before they return."""


def __getattr__(name: str) -> ModuleType:
    # torch.cpu.amp, imported when first asked for (tapegrad.amp is not part of `import tapegrad`)
    if name == "amp":
        from .amp.deprecated import cpu_amp
        return cpu_amp
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
