"""NumPy kernels of unique / unique_consecutive (PyTorch's _unique2, unique_dim,
unique_consecutive): values, inverse indices and counts, int64 as PyTorch's.

NaNs are all distinct (PyTorch's CPU unique does not merge them; NumPy's would).
"""
from __future__ import annotations

import numpy as np


def _groups(sorted_keys_differ, n):
    """Group starts from a bool array 'row i differs from row i-1' (i >= 1)."""
    starts = np.flatnonzero(np.r_[True, sorted_keys_differ]) if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, n]).astype(np.int64)
    return starts, counts


def _unique2_kernel(a, sorted, return_inverse, return_counts):  # noqa: A002
    flat = a.reshape(-1)
    n = flat.size
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    starts, counts = _groups(s[1:] != s[:-1], n)
    inverse = np.empty(n, np.int64)
    gid = np.zeros(n, np.int64)
    if n:
        gid[starts[1:]] = 1
    inverse[order] = np.cumsum(gid)
    return s[starts].copy(), inverse.reshape(a.shape), counts


def _rows_differ(rows):
    if rows.shape[0] < 2:
        return np.zeros(0, bool)
    d = rows[1:] != rows[:-1]
    return d.any(axis=1) if d.ndim > 1 else d


def _unique_dim_kernel(a, dim, sorted, return_inverse, return_counts):  # noqa: A002
    x = np.moveaxis(a, dim, 0)
    n = x.shape[0]
    rows = x.reshape(n, -1)
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(n)
    srt = rows[order]
    starts, counts = _groups(_rows_differ(srt), n)
    gid = np.zeros(n, np.int64)
    if n:
        gid[starts[1:]] = 1
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(gid)
    vals = x[order[starts]] if n else x[:0]
    return np.ascontiguousarray(np.moveaxis(vals, 0, dim)), inverse, counts


def _unique_consecutive_kernel(a, return_inverse, return_counts, dim):
    if dim is None:
        flat = a.reshape(-1)
        starts, counts = _groups(flat[1:] != flat[:-1], flat.size)
        inverse = (np.cumsum(np.isin(np.arange(flat.size), starts[1:])).astype(np.int64)
                   .reshape(a.shape))
        return flat[starts].copy(), inverse, counts
    x = np.moveaxis(a, dim, 0)
    n = x.shape[0]
    starts, counts = _groups(_rows_differ(x.reshape(n, -1)), n)
    inverse = np.cumsum(np.isin(np.arange(n), starts[1:])).astype(np.int64)
    return np.ascontiguousarray(np.moveaxis(x[starts], 0, dim)), inverse, counts
