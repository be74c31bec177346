"""NumPy kernels of the nn_pool_adaptive family: 1-d pools and adaptive pools.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_pool_adaptive.py,
the public functions in nn/functional/pool_adaptive.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32


# ====================================================================== adaptive pools
def _windows(n, m):
    """Start and end of the ``m`` adaptive windows over ``n`` elements."""
    i = np.arange(m)
    return (i * n) // m, -((-(i + 1) * n) // m)


def _window_matrix(n, m):
    """(m, n) 0/1 matrix of the adaptive windows, and their sizes."""
    start, end = _windows(n, m)
    j = np.arange(n)
    mat = ((j >= start[:, None]) & (j < end[:, None])).astype(np.float64)
    return mat, (end - start).astype(np.float64)


@half_in_float32
def _adaptive_avg_kernel(x, output_size):
    H, W = x.shape[-2:]
    ph, ch = _window_matrix(H, output_size[0])
    pw, cw = _window_matrix(W, output_size[1])
    dt = x.dtype
    s = np.einsum("...hw,oh,pw->...op", x, ph.astype(dt), pw.astype(dt), optimize=True)
    return np.ascontiguousarray(s / np.multiply.outer(ch, cw).astype(dt))


@half_in_float32
def _adaptive_avg_backward_kernel(g, self_sizes):
    H, W = self_sizes[-2:]
    oh, ow = g.shape[-2:]
    ph, ch = _window_matrix(H, oh)
    pw, cw = _window_matrix(W, ow)
    dt = g.dtype
    gd = g / np.multiply.outer(ch, cw).astype(dt)
    return np.ascontiguousarray(np.einsum("...op,oh,pw->...hw", gd, ph.astype(dt),
                                          pw.astype(dt), optimize=True))


def _adaptive_max_kernel(x, output_size):
    H, W = x.shape[-2:]
    oh, ow = output_size
    idx = []
    for n, m in ((H, oh), (W, ow)):
        start, end = _windows(n, m)
        L = int((end - start).max()) if m else 0
        j = start[:, None] + np.arange(L)
        idx.append((np.minimum(j, n - 1), j < end[:, None]))
    (ih, mh), (iw, mw) = idx
    win = x[..., ih[:, :, None, None], iw[None, None, :, :]]        # (..., oh, Lh, ow, Lw)
    win = np.moveaxis(win, -3, -2)                                  # (..., oh, ow, Lh, Lw)
    mask = (mh[:, None, :, None] & mw[None, :, None, :])
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    win = np.where(mask, win, np.asarray(fill, x.dtype))
    lh, lw = win.shape[-2:]
    flat = win.reshape(win.shape[:-2] + (lh * lw,))
    am = flat.argmax(axis=-1) if flat.shape[-1] else np.zeros(flat.shape[:-1], np.int64)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0] if flat.shape[-1] else \
        np.zeros(flat.shape[:-1], x.dtype)
    ki, kj = np.divmod(am, max(lw, 1))
    hh = ih[np.arange(oh)[:, None], ki]
    ww = iw[np.arange(ow)[None, :], kj]
    return np.ascontiguousarray(vals), (hh * W + ww).astype(np.int64)
