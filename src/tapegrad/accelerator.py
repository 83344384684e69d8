"""torch.accelerator without one: none is available, there are no devices, and every call that
needs the current accelerator raises torch's RuntimeError."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NoReturn

from ._device import NO_ACCELERATOR

if TYPE_CHECKING:
    from ._device import device


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False) -> device | None:
    return None


def device_count() -> int:
    return 0


def _no_accelerator(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError(NO_ACCELERATOR)


# Each of these asks the (missing) current accelerator first.
current_device_index = current_device_idx = set_device_index = set_device_idx = _no_accelerator
synchronize = current_stream = empty_cache = empty_host_cache = _no_accelerator
get_device_capability = get_memory_info = memory_stats = memory_allocated = _no_accelerator
max_memory_allocated = memory_reserved = max_memory_reserved = _no_accelerator
reset_peak_memory_stats = reset_accumulated_memory_stats = _no_accelerator


class device_index:
    """Make accelerator device idx current inside a `with` block; None does nothing."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _no_accelerator()

    def __exit__(self, *exc_info: object) -> Literal[False]:
        return False
