"""NumPy kernel of the nn_unpool family: max_unpool2d/3d.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_unpool.py, the
public functions in nn/functional/pool_more.py.
"""
from __future__ import annotations

import numpy as np

from .nn_conv import _prod


def _max_unpool_kernel(x, indices, output_size):
    """Each value of ``x`` written at its flat position (``indices``, over the last
    len(output_size) dims) of a zero plane of ``output_size``; ``x`` may carry extra
    leading dims (batched rules).  At a repeated index the later value wins (PyTorch's CPU
    kernel writes them in order)."""
    k = len(output_size)
    planes = x.shape[:x.ndim - k]
    P = _prod(output_size)
    n = _prod(planes)
    out = np.zeros((n, P), x.dtype)
    idx = np.broadcast_to(indices, x.shape).reshape(n, -1)
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= P:
            raise RuntimeError(f"Found an invalid max index: {hi if hi >= P else lo} (output "
                               f"volumes are of size {'x'.join(map(str, output_size))}) "
                               f"[max_unpool{max(k, 2)}d: the indices must be positions in "
                               "the output plane, as max_pool's return_indices gives]")
    out[np.arange(n)[:, None], idx] = x.reshape(n, -1)
    return out.reshape(planes + tuple(output_size))
