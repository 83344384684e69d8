"""torch.random: the default CPU generator's seed and state, and fork_rng."""
from __future__ import annotations

import contextlib
from typing import Iterable, Iterator, Optional

from . import _backend
from ._random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices: Optional[Iterable[int]] = None, enabled: bool = True,
             _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: Optional[str] = None) -> Iterator[None]:
    """Run the block, then put the random states back as they were: the CPU generator's and,
    with a GPU, those of `devices` (default: every cuda device)."""
    if not enabled:
        yield
        return
    from . import cuda
    if devices is None:
        devices = range(cuda.device_count()) if _backend.active else ()
    devices = list(devices)
    state = get_rng_state()
    device_states = [cuda.get_rng_state(index) for index in devices]
    try:
        yield
    finally:
        set_rng_state(state)
        for index, device_state in zip(devices, device_states):
            cuda.set_rng_state(device_state, index)
