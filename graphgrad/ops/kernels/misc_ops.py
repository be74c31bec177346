"""NumPy kernels of the misc_ops family: isin, the unsafe_split family.

Functions of ndarrays; the entries that use them are in ops/derivatives/misc_ops.py, the
public functions in ops/api/misc_ops.py.
"""
from __future__ import annotations

import numpy as np


# ------------------------------------------------------------------ channels_last layouts
def _channels_last_kernel(a, nd):
    """A copy of ``a`` whose memory runs channels-last over its last ``nd`` dims (N, C,
    spatial...): the channel dim becomes the fastest-varying one."""
    c = a.ndim - nd + 1
    return np.moveaxis(np.ascontiguousarray(np.moveaxis(a, c, -1)), -1, c)
