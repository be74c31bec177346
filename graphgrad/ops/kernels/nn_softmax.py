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
    elif half is None and _row_blocks(a, dim):
        return _softmax_rows(a, False)
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


# NOTE [softmax by row blocks]
# softmax and log_softmax over the last dim of a C-contiguous float32/float64 array, and
# their backward formulas, run a block of rows at a time (about _ROWS_BLOCK elements):
# every pass of the formula then reads data that the previous pass left in the cache, so
# the array is read once and the result written once (W8's (1024, 1000) logits: four
# passes over 4 MiB each, memory-bound, took ~1.9 ms against ~1.3), and the exponentials
# need one block-sized buffer instead of a full-size temporary.  Rows of up to _DOT_ROW
# elements are summed by a matrix-vector product with a vector of ones (one BLAS call per
# block, 4x faster than NumPy's sum over a short last axis, which loops row by row); its
# accumulators add at most ~_DOT_ROW / 16 terms each, about as accurate as NumPy's
# pairwise sum (and as PyTorch's vectorised one); longer rows keep NumPy's sum.  Same
# operations as the whole-array expressions in the same dtype, the sums rounding
# differently in the last bits.  Other dims, layouts and dtypes take the whole-array
# expressions.
_ROWS_BLOCK = 65536
_DOT_ROW = 2048
_SHORT_ROW = 256


def _row_sums(x, one, out):
    if one is None:
        np.add.reduce(x, axis=-1, out=out)
    else:
        np.matmul(x, one, out=out)


def _row_blocks(a, dim):
    """Whether the row-block kernels apply: ``dim`` the last, ``a`` C-contiguous
    float32/float64 with more than one block's elements."""
    return dim is not None and a.__class__ is np.ndarray and a.ndim and \
        dim % a.ndim == a.ndim - 1 and a.size > _ROWS_BLOCK and a.shape[-1] and \
        (a.dtype == np.float32 or a.dtype == np.float64) and a.flags.c_contiguous


def _blocks(n_rows, n_cols):
    per = max(1, _ROWS_BLOCK // n_cols)
    for r in range(0, n_rows, per):
        yield r, min(r + per, n_rows)


def _softmax_rows(a, log):
    """softmax / log_softmax over the last dim by row blocks (NOTE [softmax by row
    blocks])."""
    c = a.shape[-1]
    x2 = a.reshape(-1, c)
    out = np.empty(a.shape, a.dtype)
    o2 = out.reshape(-1, c)
    one = np.ones(c, a.dtype) if c <= _DOT_ROW else None
    per = min(max(1, _ROWS_BLOCK // c), x2.shape[0])
    m = np.empty((per, 1), a.dtype)
    tot = np.empty(per, a.dtype)
    # short rows: the row maxima by reduceat over the flat block (NumPy's reduce over a
    # short last axis costs ~3 ns an element, reduceat ~1)
    starts = np.arange(0, per * c, c) if c <= _SHORT_ROW else None
    buf = np.empty((per, c), a.dtype) if log else None
    for r0, r1 in _blocks(x2.shape[0], c):
        k = r1 - r0
        x, o = x2[r0:r1], o2[r0:r1]
        mk, tk = m[:k], tot[:k]
        if starts is None:
            np.maximum.reduce(x, axis=-1, keepdims=True, out=mk)
        else:
            np.maximum.reduceat(x.reshape(-1), starts[:k], out=mk.reshape(-1))
        np.subtract(x, mk, out=o)
        if log:
            e = buf[:k]
            np.exp(o, out=e)
            _row_sums(e, one, tk)
            np.log(tk, out=tk)
            np.subtract(o, tk[:, None], out=o)
        else:
            np.exp(o, out=o)
            _row_sums(o, one, tk)
            np.divide(o, tk[:, None], out=o)
    return out


def _softmax_backward_rows(grad, y, log):
    """The VJP of softmax (``y`` its result): y * (grad - sum(grad * y)), or of log_softmax
    (``y`` its result): grad - exp(y) * sum(grad), by row blocks; ``grad`` and ``y`` of one
    shape and dtype, C-contiguous."""
    c = y.shape[-1]
    g2, y2 = grad.reshape(-1, c), y.reshape(-1, c)
    out = np.empty(y.shape, y.dtype)
    o2 = out.reshape(-1, c)
    one = np.ones(c, y.dtype) if c <= _DOT_ROW else None
    per = min(max(1, _ROWS_BLOCK // c), y2.shape[0])
    tot = np.empty(per, y.dtype)
    buf = None if log else np.empty((per, c), y.dtype)
    for r0, r1 in _blocks(y2.shape[0], c):
        k = r1 - r0
        g, yk, o, tk = g2[r0:r1], y2[r0:r1], o2[r0:r1], tot[:k]
        if log:
            _row_sums(g, one, tk)
            np.exp(yk, out=o)
            np.multiply(o, tk[:, None], out=o)
            np.subtract(g, o, out=o)
        else:
            np.multiply(g, yk, out=o)
            _row_sums(o, one, tk)
            b = buf[:k]
            np.multiply(yk, tk[:, None], out=b)
            np.subtract(o, b, out=o)
    return out


def _log_softmax_kernel(a, dim):
    half = a.dtype if a.dtype is FLOAT16 or a.dtype is BFLOAT16 else None
    if half is not None:  # computed in float32 and rounded once, as PyTorch's kernels do
        a = a.astype(np.float32)
    if dim is None:
        s = a - a
    elif a.size == 0:
        s = a.copy()
    else:
        if half is None and _row_blocks(a, dim):
            return _softmax_rows(a, True)
        s = np.subtract(a, a.max(axis=dim, keepdims=True))
        lse = np.exp(s).sum(axis=dim, keepdims=True)
        if half is not None and dim % a.ndim == a.ndim - 1:
            # PyTorch's last-dim kernel keeps the sum and its log in half precision
            lse = np.log(lse.astype(half).astype(np.float32)).astype(half).astype(np.float32)
        else:
            lse = np.log(lse)
        s -= lse
        s = np.ascontiguousarray(s)  # (PyTorch's result is contiguous for any input layout)
    return s if half is None else s.astype(half)
