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
    """(*lead, N, C, *S) -> columns (*lead, N, G, C/G * prod(kernel), prod(out)).

    One copy of the sliding-window view, laid out so that the innermost axis runs along
    the output's last spatial axis (rows of the input, read with unit stride when the
    stride is 1), and so that the per-sample products ``weight @ columns`` come out in
    the convolution's own (N, C_out, *out) layout, with no transpose afterwards."""
    k = len(w_sp)
    nl = x.ndim - k - 2
    lead = x.shape[:nl]
    n, c = x.shape[nl], x.shape[nl + 1]
    win = _windows(_pad_spatial(x, padding), out_sp, w_sp, stride, dilation)
    # (*lead, n, c, *out, *ksz) -> (*lead, n, c, *ksz, *out)
    perm = list(range(nl + 2)) + list(range(nl + 2 + k, nl + 2 + 2 * k)) + \
        list(range(nl + 2, nl + 2 + k))
    return win.transpose(perm).reshape(
        lead + (n, groups, (c // groups) * _prod(w_sp), _prod(out_sp)))


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_kernel(x, w, b, stride, padding, dilation, groups):
    """Convolution (cross-correlation) via im2col + one (grouped) matmul per sample.
    Either operand may carry extra leading dims (batched rules); they broadcast."""
    k = len(stride)
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    out_sp = _conv_out_sizes(x.shape[x.ndim - k:], w_sp, stride, padding, dilation)
    n = x.shape[x.ndim - k - 2]
    og = o // groups
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, N, G, K, P)
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (1, groups, og, cg * _prod(w_sp)))
    res = np.matmul(wm, cols)                                          # (*L, N, G, Og, P)
    # row-major (N, C_out, *out), as PyTorch's (so that e.g. out.view(n, -1) works)
    out = res.reshape(res.shape[:-4] + (n, o) + out_sp)
    if b is not None:
        out += b.reshape((o,) + (1,) * k)
    return out


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_weight_kernel(g, x, weight_sizes, stride, padding, dilation, groups):
    """The weight gradient of a convolution: ``g`` contracted with the columns of ``x``,
    one product per sample, then summed over the samples."""
    k = len(stride)
    weight_sizes = tuple(weight_sizes[len(weight_sizes) - k - 2:])
    w_sp = weight_sizes[2:]
    og = weight_sizes[0] // groups
    out_sp = g.shape[g.ndim - k:]
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, N, G, K, P)
    nl = g.ndim - k - 2
    lead, n = g.shape[:nl], g.shape[nl]
    gm = g.reshape(lead + (n, groups, og, _prod(out_sp)))
    res = np.matmul(gm, np.swapaxes(cols, -1, -2)).sum(axis=-4)        # (*L, G, Og, K)
    return res.reshape(res.shape[:-3] + weight_sizes)


@half_in_float32   # (half-precision products in float32, one rounding)
def _conv_backward_input_kernel(g, w, input_sizes, stride, padding, dilation, groups):
    """The input gradient of a convolution: a transposed convolution of ``g``."""
    return col2im(g, w, input_sizes, stride, padding, dilation, groups)


def col2im(g, w, input_sizes, stride, padding, dilation, groups):
    """The transposed convolution of ``g`` (the input gradient of a convolution, and
    conv_transpose's forward): one matmul to columns, then the columns are added back onto
    the (padded, ``padding`` as (lo, hi) pairs) input positions they were read from."""
    k = len(stride)
    input_sizes = tuple(input_sizes[len(input_sizes) - k - 2:])
    n, c = input_sizes[0], input_sizes[1]
    in_sp = input_sizes[2:]
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    out_sp = g.shape[g.ndim - k:]
    nl = g.ndim - k - 2
    gm = g.reshape(g.shape[:nl] + (n, groups, og, _prod(out_sp)))
    wm = np.ascontiguousarray(w).reshape(w.shape[:w.ndim - k - 2]
                                         + (1, groups, og, cg * _prod(w_sp)))
    # columns (*L, N, G, K, out) = (*L, N, C, *ksz, *out): per sample, W^T @ g
    cols = np.matmul(np.swapaxes(wm, -1, -2), gm)
    lead = cols.shape[:-4]
    cols = cols.reshape(lead + (n, c) + w_sp + out_sp)
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(in_sp, padding))
    xp = np.zeros(lead + (n, c) + sp, dtype=cols.dtype)
    tail = (slice(None),) * k
    for off in itertools.product(*[range(kk) for kk in w_sp]):
        sl = tuple(slice(i * d, i * d + s * (m - 1) + 1, s)
                   for i, d, s, m in zip(off, dilation, stride, out_sp))
        xp[(Ellipsis,) + sl] += cols[(Ellipsis,) + off + tail]
    if not any(lo or hi for lo, hi in padding):
        return xp
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(padding, in_sp))
    return np.ascontiguousarray(xp[(Ellipsis,) + crop])
