"""NumPy kernels of the gather_scatter family: gather, scatter (src or value), scatter_add,
take_along_dim.

Functions of ndarrays; the entries that use them are in ops/derivatives/gather_scatter.py,
the public functions in ops/api/gather_scatter.py.
"""
from __future__ import annotations

import numpy as np


# ============================================================ gather / scatter
# ``dim`` is negative, or None for a 0-d self (handled as a 1-element 1-d tensor).
def _along_key(idx, dim):
    nd = idx.ndim
    ax = nd + dim
    return tuple(idx if i == ax else
                 np.arange(idx.shape[i]).reshape((-1,) + (1,) * (nd - 1 - i))
                 for i in range(nd))


def _full_index(index, a_ndim, unbatched_ndim, shape):
    lead = shape[:a_ndim - unbatched_ndim]
    return np.broadcast_to(index, lead + index.shape) if lead else index


def _lifted(kernel):
    """Run ``kernel(a, index, *rest, dim)`` on a 0-d self (dim None) as on a 1-element 1-d."""
    def run(a, index, *rest):
        *mid, dim = rest
        if dim is not None:
            return kernel(a, index, *mid, dim)
        a1 = a[..., None]
        idx = np.asarray(index).reshape(-1)
        mid = [m[..., None] if isinstance(m, np.ndarray) else m for m in mid]
        return kernel(a1, idx, *mid, -1)[..., 0]
    return run


def _gather_kernel(a, index, dim):
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    return a[_along_key(idx, dim)]


def _src_part(src, shape):
    src = np.asarray(src)
    if src.ndim == 0:
        return src
    if src.ndim < len(shape):
        src = np.broadcast_to(src, shape[:len(shape) - src.ndim] + src.shape)
    return src[tuple(slice(0, k) for k in shape)]


def _scatter_kernel(a, index, src, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    out[_along_key(idx, dim)] = _src_part(src, idx.shape)
    return out


def _scatter_value_kernel(a, index, value, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    out[_along_key(idx, dim)] = value
    return out


def _scatter_add_kernel(a, index, src, dim):
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    np.add.at(out, _along_key(idx, dim), _src_part(src, idx.shape).astype(out.dtype, copy=False))
    return out


def _scatter_reduce_kernel(a, index, src, reduce, dim):
    """``scatter(..., reduce='add' | 'multiply')``: duplicates accumulate."""
    out = a.copy()
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    ufunc = np.add if reduce == "add" else np.multiply
    src = _src_part(src, idx.shape) if isinstance(src, np.ndarray) else src
    ufunc.at(out, _along_key(idx, dim), np.asarray(src).astype(out.dtype, copy=False))
    return out


def _gather_backward_kernel(grad, index, sizes, dim):
    if dim is None:
        return _gather_backward_kernel(grad[..., None], np.asarray(index).reshape(-1), (1,),
                                       -1)[..., 0]
    lead = grad.shape[:grad.ndim - index.ndim]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    idx = _full_index(index, grad.ndim, index.ndim, grad.shape)
    np.add.at(z, _along_key(idx, dim), grad)
    return z
