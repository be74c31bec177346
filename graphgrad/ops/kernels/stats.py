"""NumPy kernels of the statistics family: nansum, aminmax, kthvalue, mode, logcumsumexp,
dist, renorm.

Functions of ndarrays; the entries that use them are in ops/derivatives/stats.py, the public
functions in ops/api/stats.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, half_in_float32
from .mode_order import introsort_order
from .reductions import _c, _sum_kernel, _vector_norm_kernel


def _is_float(dt):
    return dt.kind in "fc" or dt == BFLOAT16


def _isnan(a):
    return np.isnan(a) if _is_float(a.dtype) else np.zeros(a.shape, bool)


# ============================================================ nansum
def _nansum_kernel(a, dim, keepdim, dtype):
    if _is_float(a.dtype):
        a = np.where(np.isnan(a), np.zeros((), a.dtype), a)
    return _sum_kernel(a, dim, keepdim, dtype)


# ============================================================ aminmax
def _aminmax_kernel(a, dim, keepdim):
    if a.ndim == 0:
        return a.copy(), a.copy()
    axis = None if dim is None else dim
    lo = np.amin(a, axis=axis, keepdims=keepdim)
    hi = np.amax(a, axis=axis, keepdims=keepdim)
    return _c(lo), _c(hi)


# ============================================================ kthvalue
def _gt_or_nan(x, y):
    """x > y with NaN the largest value (PyTorch's selection order)."""
    return (x != x and y == y) or x > y


def _select_row(vals, k):
    """The index of the k-th smallest (0-based) of ``vals`` by the classic median-of-three
    quickselect (Numerical Recipes' ``select``), which is how PyTorch's CPU kthvalue picks
    among tied values; run only for rows whose k-th value is tied."""
    arr = list(vals.tolist())
    idx = list(range(len(arr)))

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return idx[k]
        if hi == lo + 1:
            if _gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            return idx[k]
        mid = lo + (hi - lo) // 2
        swap(mid, lo + 1)
        if _gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while _gt_or_nan(piv, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def _kthvalue_kernel(a, k, dim, keepdim):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    x = np.moveaxis(a, dim, -1)
    rows = x.reshape(-1, x.shape[-1])
    order = np.argsort(rows, axis=-1, kind="stable")            # NaNs last, as PyTorch's
    idx = order[:, k - 1].copy()
    kth = np.take_along_axis(rows, idx[:, None], axis=-1)[:, 0]
    same = (rows == kth[:, None]) | (_isnan(rows) & _isnan(kth)[:, None])
    for r in np.nonzero(same.sum(axis=-1) > 1)[0]:
        idx[r] = _select_row(rows[r], k - 1)
    idx = idx.reshape(x.shape[:-1])
    vals = kth.reshape(x.shape[:-1])
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return _c(vals), _c(idx.astype(np.int64))


# ============================================================ mode
def _mode_kernel(a, dim, keepdim):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    x = np.moveaxis(a, dim, -1)
    rows = x.reshape(-1, x.shape[-1])
    n = rows.shape[-1]
    vals = np.empty(rows.shape[0], a.dtype)
    idx = np.zeros(rows.shape[0], np.int64)
    nan_rows = _isnan(rows).any(axis=-1)
    for r in range(rows.shape[0]):
        row = rows[r]
        order = np.argsort(row, kind="stable")
        s = row[order]
        # runs of equal values in sorted order (NaNs compare unequal: each its own run)
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        counts = np.diff(np.r_[starts, n])
        best = int(np.argmax(counts))          # the smallest value among the most frequent
        end = starts[best] + counts[best] - 1
        if (n > 16 and counts[best] > 1) or nan_rows[r]:
            # PyTorch's runs and index come from std::sort's (unstable) order; NaNs, which
            # compare false, stay where its partitions leave them
            o2 = np.asarray(introsort_order(row.tolist()), np.int64)
            s2 = row[o2]
            st2 = np.flatnonzero(np.r_[True, s2[1:] != s2[:-1]])
            c2 = np.diff(np.r_[st2, n])
            b2 = int(np.argmax(c2))
            idx[r] = o2[st2[b2] + c2[b2] - 1]
        else:
            idx[r] = order[end]                # (<= 16: insertion sort, stable: the last)
        vals[r] = row[idx[r]]
    vals = vals.reshape(x.shape[:-1])
    idx = idx.reshape(x.shape[:-1])
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return _c(vals), _c(idx)


# ============================================================ logcumsumexp
@half_in_float32
def _logcumsumexp(a, dim):
    if a.dtype.kind == "c":
        m = np.max(a.real, axis=dim, keepdims=True)
        m = np.where(np.isfinite(m), m, np.zeros((), m.dtype))
        with np.errstate(divide="ignore"):
            return np.log(np.cumsum(np.exp(a - m), axis=dim)) + m
    return np.logaddexp.accumulate(a, axis=dim)


def _logcumsumexp_kernel(a, dim):
    if a.ndim == 0:
        return a.copy()
    return _c(_logcumsumexp(a, dim))


# ============================================================ dist / renorm
def _dist_kernel(a, b, p):
    d = np.subtract(a, b)
    return _vector_norm_kernel(d, p, None, False, None)


def _renorm_factor(a, p, dim, maxnorm):
    dims = tuple(i for i in range(a.ndim) if i != dim)
    norm = _vector_norm_kernel(a, p, dims, True, None)
    with np.errstate(divide="ignore"):
        f = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return f.astype(norm.dtype, copy=False)


def _renorm_kernel(a, p, dim, maxnorm):
    if a.dtype.itemsize == 2 and a.dtype.kind != "c":
        # half precision as PyTorch's: the norm and factor in float32, the factor rounded to
        # the input's dtype, the product in float32 rounded once
        x = a.astype(np.float32)
        f = _renorm_factor(x, p, dim, maxnorm).astype(a.dtype).astype(np.float32)
        return _c((x * f).astype(a.dtype))
    return _c((a * _renorm_factor(a, p, dim, maxnorm)).astype(a.dtype, copy=False))


# ============================================================ pdist
def _pairs(n):
    return np.triu_indices(n, 1)


def _pdist_kernel(a, p):
    i, j = _pairs(a.shape[0])
    if i.size == 0:
        return np.zeros(0, a.dtype)
    return _vector_norm_kernel(a[i] - a[j], p, (1,), False, None)


def _pdist_backward_kernel(grad, a, pdist, p, unit_fn):
    """The gradient of pdist for ``grad`` (with any leading batch dims): each pair's
    d norm / d (x_i - x_j) added to row i and subtracted from row j."""
    n, m = a.shape
    i, j = _pairs(n)
    lead = grad.shape[:-1]
    out = np.zeros(lead + (n, m), np.result_type(grad.dtype, a.dtype))
    if i.size == 0:
        return out
    unit = np.asarray(unit_fn(grad, a[i] - a[j], p, pdist))
    flat = out.reshape((-1, n, m))
    u = np.broadcast_to(unit, lead + unit.shape[-2:]).reshape((-1,) + unit.shape[-2:])
    np.add.at(flat, (slice(None), i), u)
    np.add.at(flat, (slice(None), j), -u)
    return flat.reshape(out.shape)
