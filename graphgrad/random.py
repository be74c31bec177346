"""``graphgrad.random``: PyTorch's ``torch.random`` module (seeding, the default generator's
state, ``fork_rng``)."""
from __future__ import annotations

import contextlib

from ._tensor.random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                             set_rng_state)

__all__ = ["default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Restore the default generator's state on exit (there are no CUDA generators)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
