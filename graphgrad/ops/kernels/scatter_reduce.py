"""NumPy kernels of the scatter_reduce family: scatter_reduce and index_reduce.

Functions of ndarrays; the entries that use them are in ops/derivatives/scatter_reduce.py,
the public functions in ops/api/scatter_reduce.py.
"""
from __future__ import annotations

import numpy as np

from .gather_scatter import _along_key, _full_index, _lifted, _src_part
from ..._core.opmath import BFLOAT16, FLOAT16


_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
          "amin": np.minimum, "max": np.maximum, "min": np.minimum}


def _identity(dtype, reduce):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f" or dtype is BFLOAT16:
        return -np.inf if reduce in ("amax", "max") else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return reduce in ("amin", "min")
    return info.min if reduce in ("amax", "max") else info.max


def _counts(a, index, dim, include_self):
    """How many values (self's if included, and src's) land in each slot of ``a``."""
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    n = np.full(a.shape, 1 if include_self else 0, np.int64)
    np.add.at(n, _along_key(idx, dim), 1)
    return n


def _kernel(a, index, src, dim, reduce, include_self, per_step=False):
    """per_step: half-precision values are rounded after each step (index_reduce's kernel);
    otherwise they are accumulated in float32 and rounded once (scatter_reduce's), a mean's
    sum being rounded before the division as PyTorch stores it."""
    dt = a.dtype
    half = dt is BFLOAT16 or dt is FLOAT16
    work = np.dtype(np.float32) if half and not per_step else dt
    out = a.astype(work)
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    key = _along_key(idx, dim)
    s = _src_part(src, idx.shape).astype(work, copy=False)
    if not include_self:
        out[key] = _identity(out.dtype, reduce)
    _UFUNC[reduce].at(out, key, s)
    if reduce == "mean":
        if half:
            out = out.astype(dt).astype(np.float32)
        n = _counts(a, index, dim, include_self)
        hit = n > 0
        if out.dtype.kind in "iub":
            out[hit] = np.floor_divide(out[hit], n[hit]).astype(out.dtype)
        else:
            out[hit] = out[hit] / n[hit]
    return out.astype(dt, copy=False)


def _sr(a, index, src, dim, reduce, include_self, per_step=False):
    """scatter_reduce on plain arrays (constants inside the rules)."""
    return _lifted(lambda a_, i_, s_, d_: _kernel(a_, i_, s_, d_, reduce, include_self,
                                                  per_step))(a, index, src, dim)
