"""``graphgrad.cpu.amp.autocast``: the deprecated spelling of ``amp.autocast("cpu", ...)``."""
from __future__ import annotations

import warnings

from ..._core.dtypes import bfloat16
from ...amp import autocast_mode as _autocast_mode

__all__ = ["autocast"]


class autocast(_autocast_mode.autocast):
    """``graphgrad.cpu.amp.autocast(enabled=True, dtype=bfloat16, cache_enabled=True)``:
    deprecated as in PyTorch (a FutureWarning); use ``graphgrad.amp.autocast("cpu", ...)``."""

    def __init__(self, enabled=True, dtype=bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
