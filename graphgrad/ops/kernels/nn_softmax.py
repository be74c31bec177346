"""NumPy kernels of the nn_softmax family: softmax and log_softmax.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_softmax.py, the
public functions in nn/functional/softmax.py.
"""
from __future__ import annotations

import math
import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16


# ====================================================================== softmax family
def _softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:  # 0-d input
        e = np.exp(a - a)  # 1, or nan for inf/nan
    elif a.size == 0:
        e = a.copy()
    else:
        e = np.subtract(a, a.max(axis=dim, keepdims=True))
        np.exp(e, out=e)
        s = e.sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim != a.ndim - 1 and \
                math.prod(a.shape[dim % a.ndim + 1:]) < 16:
            # PyTorch's kernel along a dim other than the last stores the exponentials in
            # its half-precision output before dividing them by their float32 sum (for
            # inner sizes below one SIMD vector; wider ones vary with the CPU's vector width)
            e = e.astype(half).astype(np.float32)
        e /= s
        e = np.ascontiguousarray(e)  # (PyTorch's result is contiguous for any input layout)
    return e if half is None else e.astype(half)


_ROWS_BLOCK = 16384  # elements of exp(rows) at a time: a cache-sized buffer


def _sum_exp_rows(s):
    """``np.exp(s).sum(axis=-1, keepdims=True)`` for a C-contiguous ``s``, a block of rows
    at a time through one small buffer instead of a full-size temporary (each row is
    summed by the same reduction, so the sums are the same bit for bit); None when a row
    alone is larger than the buffer."""
    n = s.shape[-1]
    rows = s.size // n if n else 0
    per = _ROWS_BLOCK // n if n else 0
    if per < 1:
        return None
    flat = s.reshape(rows, n)
    out = np.empty((rows, 1), s.dtype)
    buf = np.empty((min(per, rows), n), s.dtype)
    for r in range(0, rows, per):
        k = min(per, rows - r)
        b = buf[:k]
        np.exp(flat[r:r + k], out=b)
        np.sum(b, axis=-1, keepdims=True, out=out[r:r + k])
    return out.reshape(s.shape[:-1] + (1,))


def _log_softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:
        s = a - a
    elif a.size == 0:
        s = a.copy()
    else:
        s = np.subtract(a, a.max(axis=dim, keepdims=True))
        lse = _sum_exp_rows(s) if half is None and dim % a.ndim == a.ndim - 1 and \
            s.flags.c_contiguous and s.size > _ROWS_BLOCK else None
        if lse is None:
            lse = np.exp(s).sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim == a.ndim - 1:
            # PyTorch's last-dim kernel keeps the sum and its log in half precision
            lse = np.log(lse.astype(half).astype(np.float32)).astype(half).astype(np.float32)
        else:
            lse = np.log(lse)
        s -= lse
        s = np.ascontiguousarray(s)  # (PyTorch's result is contiguous for any input layout)
    return s if half is None else s.astype(half)
