"""torch.random: the default CPU generator's seed and state, and fork_rng."""
import contextlib

from ._random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the block, then put the random state back as it was: the CPU generator's (there is
    no accelerator whose generators would need saving too)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
