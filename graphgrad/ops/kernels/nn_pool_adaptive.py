"""NumPy kernels of the nn_pool_adaptive family: 1-d pools and adaptive pools.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_pool_adaptive.py,
the public functions in nn/functional/pool_adaptive.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16, half_in_float32


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


def _adaptive_avg3d_kernel(x, output_size):
    """PyTorch's adaptive_avg_pool3d: each window summed in the input's dtype in (d, h, w)
    order, then divided by its depth, height and width in turn (each result rounded to the
    dtype: float16/bfloat16 sums are half-precision sums, as PyTorch's).  Vectorised over
    the output cells: step t of the loop adds the t-th element of every window (0 past a
    window's end)."""
    dt = x.dtype
    f = np.float32 if dt in (FLOAT16, BFLOAT16) else dt
    dims = x.shape[-3:]
    wins = [_windows(n, m) for n, m in zip(dims, output_size)]
    lens = [e - s for s, e in wins]
    grids = []
    for k, ((start, end), L) in enumerate(zip(wins, lens)):
        j = start[:, None] + np.arange(int(L.max()) if L.size else 0)
        grids.append((np.minimum(j, dims[k] - 1), j < end[:, None]))
    (id_, md), (ih, mh), (iw, mw) = grids
    od, oh, ow = output_size
    acc = np.zeros(x.shape[:-3] + tuple(output_size), dt)
    for a in range(id_.shape[1]):
        xa = x[..., id_[:, a], :, :]
        for b in range(ih.shape[1]):
            xb = xa[..., ih[:, b], :]
            for c in range(iw.shape[1]):
                m = md[:, a][:, None, None] & mh[:, b][None, :, None] & mw[:, c][None, None, :]
                acc = np.where(m, (acc.astype(f) + xb[..., iw[:, c]].astype(f)).astype(dt), acc)
    out = acc
    for k, L in enumerate(lens):
        shape = [1, 1, 1]
        shape[k] = -1
        out = (out.astype(f) / L.astype(f).reshape(shape)).astype(dt)
    return np.ascontiguousarray(out)


@half_in_float32
def _adaptive_avg3d_backward_kernel(g, self_sizes):
    D, H, W = self_sizes[-3:]
    (pd, cd), (ph, ch), (pw, cw) = (_window_matrix(n, m) for n, m in
                                    zip((D, H, W), g.shape[-3:]))
    dt = g.dtype
    gd = g / np.multiply.outer(np.multiply.outer(cd, ch), cw).astype(dt)
    return np.ascontiguousarray(np.einsum("...opq,od,ph,qw->...dhw", gd, pd.astype(dt),
                                          ph.astype(dt), pw.astype(dt), optimize=True))


def _adaptive_max_kernel(x, output_size):
    """Adaptive max pooling over the last len(output_size) dims: every window gathered,
    padded to the longest one with the dtype's minimum, its first maximum (or its last
    NaN, as PyTorch's) and that element's flat position in the plane."""
    k = len(output_size)
    sizes = x.shape[x.ndim - k:]
    idx = []
    for n, m in zip(sizes, output_size):
        start, end = _windows(n, m)
        L = int((end - start).max()) if m else 0
        j = start[:, None] + np.arange(L)
        idx.append((np.minimum(j, n - 1), j < end[:, None]))
    # window element (o_1, l_1, ..., o_k, l_k): index d on axes 2d, 2d + 1 of 2k
    grids = []
    mask = True
    for d, (ij, mj) in enumerate(idx):
        shape = [1] * (2 * k)
        shape[2 * d], shape[2 * d + 1] = ij.shape
        grids.append(ij.reshape(shape))
        mask = mask & mj.reshape(shape)
    win = x[(Ellipsis,) + tuple(grids)]                       # (..., o1, L1, ..., ok, Lk)
    nl = win.ndim - 2 * k
    order = [nl + 2 * d for d in range(k)] + [nl + 2 * d + 1 for d in range(k)]
    win = win.transpose(tuple(range(nl)) + tuple(order))      # (..., *out, *L)
    mask = mask.transpose([o - nl for o in order])
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    win = np.where(mask, win, np.asarray(fill, x.dtype))
    lens = win.shape[win.ndim - k:]
    nk = int(np.prod(lens))
    flat = win.reshape(win.shape[:win.ndim - k] + (nk,))
    am = flat.argmax(axis=-1) if nk else np.zeros(flat.shape[:-1], np.int64)
    if nk and x.dtype.kind in "fV":
        isn = flat != flat      # a NaN wins, the last one in the window (as in PyTorch)
        has = isn.any(axis=-1)
        if has.any():
            am = np.where(has, nk - 1 - isn[..., ::-1].argmax(axis=-1), am)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0] if nk else \
        np.zeros(flat.shape[:-1], x.dtype)
    digits = np.unravel_index(am, tuple(max(v, 1) for v in lens))
    pos = 0
    for d, ((ij, _), n) in enumerate(zip(idx, sizes)):
        o = np.arange(output_size[d]).reshape([-1 if e == d else 1 for e in range(k)])
        pos = pos * n + ij[o, digits[d]]
    return np.ascontiguousarray(vals), np.asarray(pos, np.int64)
