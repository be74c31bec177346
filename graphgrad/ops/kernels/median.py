"""NumPy kernels of the median family: median / nanmedian, whole tensor or along a dim.

Functions of ndarrays; the entries that use them are in ops/derivatives/median.py, the
public functions in ops/api/median.py.
"""
from __future__ import annotations

import numpy as np

from .reductions import _c


def _has_nan(a):
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


def _whole_kernel(ignore_nan):
    def kernel(a):
        flat = a.reshape(-1)
        nan = _has_nan(flat)
        if flat.size == 0 or (nan.any() and not ignore_nan) or nan.all():
            return np.asarray(np.nan if a.dtype.kind in "fc" else 0, a.dtype)
        s = np.sort(flat[~nan]) if ignore_nan else np.sort(flat)
        return np.asarray(s[(s.size - 1) // 2])
    return kernel


def _dim_kernel(ignore_nan):
    def kernel(a, dim, keepdim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        n = a.shape[dim]
        order = np.argsort(a, axis=dim, kind="stable")        # NaNs sort last
        cnt = (~_has_nan(a)).sum(axis=dim, keepdims=True)     # non-NaN values per row
        if ignore_nan:
            k = np.where(cnt > 0, (cnt - 1) // 2, 0)
        else:
            k = np.where(cnt < n, cnt, (n - 1) // 2)          # first NaN, or the middle
        idx = np.take_along_axis(order, k, axis=dim)
        vals = np.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
        return _c(vals), _c(idx.astype(np.int64, copy=False))
    return kernel
