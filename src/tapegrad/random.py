"""torch.random: the default CPU generator's seed and state, and fork_rng."""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

from . import _backend
from ._random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

if TYPE_CHECKING:
    from ._tensor import Tensor

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
    devices = every_device() if devices is None else list(devices)
    saved = states_of(devices)
    try:
        yield
    finally:
        restore_states(devices, saved)


def every_device() -> list[int]:
    """Every cuda device's index (none without a backend, which is not loaded to ask)."""
    from . import cuda
    return list(range(cuda.device_count())) if _backend.active else []


def states_of(devices: Iterable[int]) -> tuple[Tensor, list[Tensor]]:
    """The cpu generator's state and those of the cuda devices `devices` (fork_rng,
    checkpoint's and vmap's replays)."""
    from . import cuda
    return get_rng_state(), [cuda.get_rng_state(index) for index in devices]


def restore_states(devices: Iterable[int], states: tuple[Tensor, list[Tensor]]) -> None:
    from . import cuda
    set_rng_state(states[0])
    for index, state in zip(devices, states[1]):
        cuda.set_rng_state(state, index)
