"""NumPy kernels of the nn_conv family: conv1d/conv2d by im2col; their backward ops are the
adjoint pair.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_conv.py, the
public functions in nn/functional/conv.py.
"""
from __future__ import annotations

import itertools
import numpy as np

from ..._core.opmath import half_in_float32


# ====================================================================== convolution
def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _pad_spatial(x, pads, value=0):
    if not any(lo or hi for lo, hi in pads):
        return x
    k = len(pads)
    return np.pad(x, [(0, 0)] * (x.ndim - k) + [tuple(p) for p in pads], constant_values=value)


def _windows(xp, out_sp, ksz, stride, dilation):
    """Strided view ``(..., *out_sp, *ksz)`` of the sliding windows over the last dims."""
    k = len(ksz)
    st = xp.strides[xp.ndim - k:]
    shape = xp.shape[:xp.ndim - k] + tuple(out_sp) + tuple(ksz)
    strides = xp.strides[:xp.ndim - k] + tuple(s * t for s, t in zip(stride, st)) + \
        tuple(d * t for d, t in zip(dilation, st))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _conv_out_sizes(in_sp, w_sp, stride, padding, dilation):
    return tuple((n + lo + hi - d * (kk - 1) - 1) // s + 1
                 for n, kk, s, (lo, hi), d in zip(in_sp, w_sp, stride, padding, dilation))


def _im2col(x, w_sp, stride, padding, dilation, groups, out_sp):
    """(*lead, N, C, *S) -> columns (*lead, G, N * prod(out), C/G * prod(kernel))."""
    k = len(w_sp)
    nl = x.ndim - k - 2
    lead = x.shape[:nl]
    n, c = x.shape[nl], x.shape[nl + 1]
    cg = c // groups
    win = _windows(_pad_spatial(x, padding), out_sp, w_sp, stride, dilation)
    win = win.reshape(lead + (n, groups, cg) + tuple(out_sp) + tuple(w_sp))
    perm = list(range(nl)) + [nl + 1, nl] + list(range(nl + 3, nl + 3 + k)) + [nl + 2] + \
        list(range(nl + 3 + k, nl + 3 + 2 * k))
    # (a copy: the im2col matrix; contiguous so the matmul runs in BLAS even when x was a
    # broadcast view)
    return np.ascontiguousarray(
        win.transpose(perm).reshape(lead + (groups, n * _prod(out_sp), cg * _prod(w_sp))))


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_kernel(x, w, b, stride, padding, dilation, groups):
    """Convolution (cross-correlation) via im2col + one (grouped) matmul.  Either operand may
    carry extra leading dims (batched rules); they broadcast."""
    k = len(stride)
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    out_sp = _conv_out_sizes(x.shape[x.ndim - k:], w_sp, stride, padding, dilation)
    n = x.shape[x.ndim - k - 2]
    og = o // groups
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (groups, og, cg * _prod(w_sp)))
    res = np.matmul(cols, np.swapaxes(wm, -1, -2))          # (*L, G, M, Og)
    lead = res.shape[:-3]
    nl = len(lead)
    res = res.reshape(lead + (groups, n) + out_sp + (og,))
    perm = list(range(nl)) + [nl + 1, nl, nl + 2 + k] + list(range(nl + 2, nl + 2 + k))
    # row-major, as PyTorch's (so that e.g. out.view(n, -1) works)
    out = np.asarray(res.transpose(perm), order="C").reshape(lead + (n, o) + out_sp)
    if b is not None:
        out += b.reshape((o,) + (1,) * k)
    return out


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_weight_kernel(g, x, weight_sizes, stride, padding, dilation, groups):
    """The weight gradient of a convolution: columns of ``x`` contracted with ``g``."""
    k = len(stride)
    weight_sizes = tuple(weight_sizes[len(weight_sizes) - k - 2:])
    w_sp = weight_sizes[2:]
    og = weight_sizes[0] // groups
    out_sp = g.shape[g.ndim - k:]
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, G, M, K)
    nl = g.ndim - k - 2
    lead, n = g.shape[:nl], g.shape[nl]
    gm = g.reshape(lead + (n, groups, og) + out_sp)
    perm = list(range(nl)) + [nl + 1, nl] + list(range(nl + 3, nl + 3 + k)) + [nl + 2]
    gm = np.ascontiguousarray(gm.transpose(perm).reshape(lead + (groups, n * _prod(out_sp), og)))
    # cols^T @ g, then a (small) transpose: OpenBLAS is much slower on g^T @ cols here
    res = np.swapaxes(np.matmul(np.swapaxes(cols, -1, -2), gm), -1, -2)   # (*L, G, Og, K)
    return np.asarray(res, order="C").reshape(res.shape[:-3] + weight_sizes)


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_input_kernel(g, w, input_sizes, stride, padding, dilation, groups):
    """The input gradient of a convolution: a transposed convolution of ``g``."""
    return col2im(g, w, input_sizes, stride, padding, dilation, groups)


def col2im(g, w, input_sizes, stride, padding, dilation, groups, acc_dtype=None):
    """The transposed convolution of ``g`` (the input gradient of a convolution, and
    conv_transpose's forward): one matmul to columns, then the columns are added back onto
    the (padded, ``padding`` as (lo, hi) pairs) input positions they were read from.
    ``acc_dtype``: the columns are rounded to it and added up in it, offset by offset, as
    PyTorch's float16 transposed convolution (gemm into half-precision columns, then col2im
    in half precision) does."""
    k = len(stride)
    input_sizes = tuple(input_sizes[len(input_sizes) - k - 2:])
    n, c = input_sizes[0], input_sizes[1]
    in_sp = input_sizes[2:]
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    out_sp = g.shape[g.ndim - k:]
    nl = g.ndim - k - 2
    gm = g.reshape(g.shape[:nl] + (n, groups, og) + out_sp)
    perm = list(range(nl)) + [nl + 1, nl + 2, nl] + list(range(nl + 3, nl + 3 + k))
    gm = np.ascontiguousarray(
        gm.transpose(perm).reshape(g.shape[:nl] + (groups, og, n * _prod(out_sp))))
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (groups, og, cg * _prod(w_sp)))
    # columns laid out (G, Cg, *ksz, N, *out), so each kernel offset's slab is contiguous
    cols = np.matmul(np.swapaxes(wm, -1, -2), gm)                        # (*L, G, K, M)
    if acc_dtype is not None:
        cols = cols.astype(acc_dtype)
    lead = cols.shape[:-3]
    cols = cols.reshape(lead + (groups, cg) + w_sp + (n,) + out_sp)
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(in_sp, padding))
    xp = np.zeros(lead + (groups, cg, n) + sp, dtype=cols.dtype)
    tail = (slice(None),) * (k + 1)
    for off in itertools.product(*[range(kk) for kk in w_sp]):
        sl = tuple(slice(i * d, i * d + s * (m - 1) + 1, s)
                   for i, d, s, m in zip(off, dilation, stride, out_sp))
        xp[(Ellipsis,) + sl] += cols[(Ellipsis,) + off + tail]
    nl = len(lead)
    xp = xp.transpose(list(range(nl)) + [nl + 2, nl, nl + 1] + list(range(nl + 3, nl + 3 + k)))
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(padding, in_sp))
    return np.asarray(xp[(Ellipsis,) + crop], order="C").reshape(lead + (n, c) + in_sp)
