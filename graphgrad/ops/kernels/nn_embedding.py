"""NumPy kernels of the nn_embedding family: embedding (with max_norm renormalisation).

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_embedding.py, the
public functions in nn/functional/embedding.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16
from .nn_conv import _prod


# ====================================================================== embedding
def _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """Per-lookup gradient factor: 1/count with scale_grad_by_freq, 0 at padding_idx."""
    f = None
    if scale_grad_by_freq:
        counts = np.bincount(indices.ravel(), minlength=num_weights)
        f = (1.0 / counts[indices]).astype(dtype)
    if padding_idx >= 0:
        m = indices != padding_idx
        f = m.astype(dtype) if f is None else f * m
    return f


def _embedding_backward_kernel(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    d = grad.shape[-1]
    lead = grad.shape[:grad.ndim - indices.ndim - 1]
    f = _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
    g = grad if f is None else grad * f[..., None]
    idx = indices.ravel()
    nb = _prod(lead)
    out = np.zeros((nb * num_weights, d), grad.dtype)
    flat = idx if nb == 1 else \
        (np.arange(nb, dtype=np.int64)[:, None] * num_weights + idx[None, :]).ravel()
    if flat.size:
        _add_rows_at(out, flat, g.reshape(nb * idx.size, d))
    return out.reshape(lead + (num_weights, d))


_MAX_LEVELS = 64


def _add_rows_at(out, flat, rows):
    """``np.add.at(out, flat, rows)`` (``out`` zeros): the same sums in the same order,
    without add.at's per-element cost.  The lookups are sorted by index (stable: each
    index's lookups keep their order); the first lookup of every index is assigned, then
    its second, third, ... are added level by level (no index repeats within a level, so
    a fancy-indexed ``+=`` is exact).  An index looked up more than _MAX_LEVELS times makes
    the levels slower than one ``np.add.reduceat`` per run of equal indices, whose sums
    (NumPy's, in another order) are taken then."""
    n = flat.size
    order = np.argsort(flat, kind="stable")
    sf = flat[order]
    first = np.empty(n, bool)
    first[0] = True
    np.not_equal(sf[1:], sf[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == n:  # every index once
        out[sf] = rows[order]
        return
    at = np.arange(n)
    level = at - np.repeat(starts, np.diff(np.append(starts, n)))  # rank within its run
    if int(level.max()) >= _MAX_LEVELS:
        out[sf[starts]] = np.add.reduceat(rows[order], starts, axis=0)
        return
    out[sf[starts]] = rows[order[starts]]
    k = 1
    while True:
        sel = np.flatnonzero(level == k)
        if not sel.size:
            return
        out[sf[sel]] += rows[order[sel]]
        k += 1


def _embedding_gather_kernel(x, indices, padding_idx, scale_grad_by_freq):
    r = np.take(x, indices, axis=x.ndim - 2)
    f = _embedding_factor(indices, x.shape[-2], padding_idx, scale_grad_by_freq, x.dtype)
    return r if f is None else r * f[..., None]


# ====================================================================== embedding_bag
def _bag_layout(indices, offsets, include_last_offset, padding_idx):
    """From the 1-D ``indices`` and ``offsets``: the bag of each index (0 for an index in
    none), the number of bags and ``keep``, whether each index counts (it is in a bag:
    with include_last_offset, those after the last offset are in none; and it is not
    padding_idx, -1 for none)."""
    n = indices.size
    off = np.asarray(offsets).astype(np.int64, copy=False)
    num_bags = max(off.size - 1, 0) if include_last_offset else off.size
    end = int(off[num_bags]) if include_last_offset and off.size else n
    at = np.arange(n)
    bag = np.searchsorted(off[:num_bags], at, side="right") - 1
    keep = (bag >= 0) & (at < end)
    if padding_idx >= 0:
        keep &= indices != padding_idx
    return np.where(keep, bag, 0), num_bags, keep


def _embedding_bag_kernel(weight, per_sample_weights, indices, offsets, mode,
                          include_last_offset, padding_idx):
    """Bags of rows of ``weight`` (num_weights, d) (see _bag_layout).  Returns the
    (num_bags, d) sums (mode 0; rows times per_sample_weights), means (mode 1) or maxima
    (mode 2), 0 for an empty bag, and for mode 2 the row index of each maximum (-1 for an
    empty bag; the first one when rows tie), else an empty array."""
    indices = indices.astype(np.int64, copy=False)
    bag, num_bags, keep = _bag_layout(indices, offsets, include_last_offset, padding_idx)
    d = weight.shape[-1]
    dt = weight.dtype
    half = dt in (FLOAT16, BFLOAT16)  # (summed in float32, as PyTorch does)
    if half:
        weight, per_sample_weights = weight.astype(np.float32), \
            per_sample_weights.astype(np.float32)
    if mode != 2:
        # (a bag's rows are contiguous and in order: one sum per segment of the kept rows,
        # added in order)
        out = np.zeros((num_bags, d), weight.dtype)
        sel = np.flatnonzero(keep)
        if sel.size:
            f = per_sample_weights[sel].astype(weight.dtype, copy=False)
            b = bag[sel]
            starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
            out[b[starts]] = np.add.reduceat(weight[indices[sel]] * f[:, None], starts, axis=0)
        if mode == 1:
            if half:  # (PyTorch rounds the sum to the half type before dividing)
                out = out.astype(dt).astype(np.float32)
            counts = np.bincount(bag[keep], minlength=num_bags)
            out /= np.maximum(counts, 1)[:, None].astype(out.dtype)
        return out.astype(dt, copy=False), np.zeros(0, np.int64)
    # (a bag's rows are contiguous and in order: each bag is one segment of the kept rows)
    rows, bag, idx = weight[indices[keep]], bag[keep], indices[keep]
    out = np.zeros((num_bags, d), weight.dtype)
    max_idx = np.full((num_bags, d), -1, np.int64)
    if idx.size:
        starts = np.flatnonzero(np.r_[True, bag[1:] != bag[:-1]])
        ub = bag[starts]
        # PyTorch's loop: the bag's first row, replaced by each later row that is greater:
        # so a NaN first row stays, later NaNs are passed over (fmax), ties keep the first
        best = np.fmax.reduceat(rows, starts, axis=0)
        first = rows[starts]
        best = np.where(np.isnan(first), first, best)
        seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, idx.size]))
        at = np.arange(idx.size)[:, None]
        hit = (rows == best[seg]) | (at == starts[seg][:, None]) & np.isnan(best[seg])
        pos = np.minimum.reduceat(np.where(hit, at, idx.size), starts, axis=0)
        out[ub] = best
        max_idx[ub] = idx[pos]
    return out.astype(dt, copy=False), max_idx
