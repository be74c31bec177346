"""NumPy kernels of the padding family: constant, reflection and replication padding.

Functions of ndarrays; the entries that use them are in ops/derivatives/padding.py, the
public functions in ops/api/padding.py.
"""
from __future__ import annotations

import numpy as np


# ------------------------------------------------------------ constant
def _constant_pad_kernel(a, pad, value):
    nd = a.ndim
    key = [slice(None)] * nd
    widths = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        ax = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        key[ax] = slice(max(-lo, 0), a.shape[ax] - max(-hi, 0))
        widths[ax] = (max(lo, 0), max(hi, 0))
    return np.pad(a[tuple(key)], widths, mode="constant",
                  constant_values=0 if value is None else value)


# ------------------------------------------------------------ reflect / replicate
def _source_index(n, lo, hi, mode):
    """For each output position along a padded dim, the input position it copies."""
    p = np.arange(-lo, n + hi)
    if mode == "reflect":
        p = np.abs(p)
        return np.where(p >= n, 2 * (n - 1) - p, p)
    if mode == "replicate":
        return np.clip(p, 0, n - 1)
    return p % n


def _index_pad_kernel(mode):
    def kernel(a, pad):
        for i in range(len(pad) // 2):
            ax = a.ndim - 1 - i
            a = np.take(a, _source_index(a.shape[ax], pad[2 * i], pad[2 * i + 1], mode), axis=ax)
        return a
    return kernel


def _index_pad_backward_kernel(mode):
    def kernel(grad, sizes, pad):
        g = grad
        for i in reversed(range(len(pad) // 2)):
            n = sizes[len(sizes) - 1 - i]
            idx = _source_index(n, pad[2 * i], pad[2 * i + 1], mode)
            shp = list(g.shape)
            shp[g.ndim - 1 - i] = n
            z = np.zeros(shp, g.dtype)
            np.add.at(z, (Ellipsis, idx) + (slice(None),) * i, g)
            g = z
        return g
    return kernel
