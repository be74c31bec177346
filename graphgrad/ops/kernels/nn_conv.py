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
    lead = x.shape[:x.ndim - k]
    sizes = x.shape[x.ndim - k:]
    shape = lead + tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    # (a filled array and one assignment: np.pad's per-call cost is ~2x this on W9)
    out = np.zeros(shape, x.dtype) if value == 0 else np.full(shape, value, x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))] = x
    return out


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


# NOTE [flat rows]: with stride 1, output position (o_1, ..., o_k) reads the padded input
# at flat offset sum(o_d * P_d) plus its kernel offset's shift sum(i_d * dil_d * P_d), P_d
# the padded plane's row lengths.  Over a flat output index q that runs through whole
# padded rows, each kernel offset's input is then one contiguous run of the flattened
# padded input, and the backward needs no columns: per kernel offset, one batched product
# of the gradient (in that flat layout, zeros at the q that are no output position) with
# the shifted run of the input (weight gradient), or of the weight's slice with the
# gradient, added onto the shifted run (input gradient).  The row-by-row path (columns,
# then per-offset adds over strided rows of out_sp[-1] elements) pays one NumPy inner
# loop per row and a large columns array (W9's second conv, 16 -> 32 channels, 3x3 on
# 14x14: docs/performance.md, 2026-12-07).  Taken when the columns (C/G * prod(ksz) rows
# per sample) outweigh the flat gradient (C_out/G rows), 144 against 32 there; W9's first
# conv (1 -> 16, 9 against 16) stays row by row, where copying the gradient would cost
# more than it saves.  The zero gradient at the q that are no output position meets real
# input values (weight gradient) or weights (input gradient): an inf/NaN there would turn
# 0 * inf into NaN in a real position, so non-finite operands take the row-by-row path.
def _flat_rows_pay(stride, cg, w_sp, og, operand):
    """Does NOTE [flat rows] apply (``operand``: the input for the weight gradient, the
    weight for the input gradient)?"""
    return all(s == 1 for s in stride) and cg * _prod(w_sp) >= og and \
        (operand.dtype.kind in "iu" or bool(np.isfinite(operand).all()))


def _padded(x, padding):
    k = len(padding)
    return tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[x.ndim - k:], padding))


def _flat_len_slack(out_sp, sp):
    """How far the flat output layout (out_sp[0] whole padded rows) runs past the last
    output position: out_sp[0] * P_0 - (1 + sum((out_d - 1) * P_d))."""
    n, row = 1, 1
    for o, p in zip(reversed(out_sp), reversed(sp)):
        n += (o - 1) * row
        row *= p
    return out_sp[0] * _prod(sp[1:]) - n


def _flat_plane(a, padding, k, slack):
    """``a`` (*lead, N, C, *S) zero-padded by ``padding`` ((lo, hi) pairs), flattened to
    (*lead, N, C, prod(padded S) + slack) (zeros in the slack), and the padded sizes."""
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(a.shape[a.ndim - k:], padding))
    lead = a.shape[:a.ndim - k]
    buf = np.zeros(lead + (_prod(sp) + slack,), a.dtype)
    body = buf[..., :_prod(sp)].reshape(lead + sp)
    body[(Ellipsis,) + tuple(slice(lo, lo + s) for (lo, _), s in
                             zip(padding, a.shape[a.ndim - k:]))] = a
    return buf, sp


def _flat_grad(g, out_sp, sp):
    """``g`` (*lead, N, O, *out) flattened over rows of the padded plane ``sp``:
    (*lead, N, O, out[0] * prod(sp[1:])), zeros at the q that are no output position."""
    k = len(out_sp)
    pads = [(0, 0)] + [(0, p - o) for o, p in zip(out_sp[1:], sp[1:])]
    return _flat_plane(g, pads, k, 0)[0]


def _flat_shifts(w_sp, dilation, sp):
    """The flat shift of each kernel offset (itertools.product order), NOTE [flat rows]."""
    rows = [_prod(sp[d + 1:]) for d in range(len(sp))]
    return [sum(i * d * r for i, d, r in zip(off, dilation, rows))
            for off in itertools.product(*[range(kk) for kk in w_sp])]


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
    nl = g.ndim - k - 2
    lead, n = g.shape[:nl], g.shape[nl]
    cg = weight_sizes[1]
    if _flat_rows_pay(stride, cg, w_sp, og, x):
        return _weight_grad_flat(g, x, weight_sizes, padding, dilation, groups)
    cols = _im2col(x, w_sp, stride, padding, dilation, groups, out_sp)   # (*Lx, N, G, K, P)
    gm = g.reshape(lead + (n, groups, og, _prod(out_sp)))
    res = np.matmul(gm, np.swapaxes(cols, -1, -2)).sum(axis=-4)        # (*L, G, Og, K)
    return res.reshape(res.shape[:-3] + weight_sizes)


def _weight_grad_flat(g, x, weight_sizes, padding, dilation, groups):
    """The stride-1 weight gradient, NOTE [flat rows]: per kernel offset, the flat-row
    gradient (*L, N, G, Og, L) times the shifted run of the input, summed over N."""
    k = len(padding)
    og, cg, w_sp = weight_sizes[0] // groups, weight_sizes[1], weight_sizes[2:]
    out_sp = g.shape[g.ndim - k:]
    sp = _padded(x, padding)
    gf = _flat_grad(g, out_sp, sp)
    L = gf.shape[-1] - _flat_len_slack(out_sp, sp)      # (the run ends at the plane's end)
    gm = gf.reshape(gf.shape[:-2] + (groups, og, gf.shape[-1]))[..., :L]
    xf, _ = _flat_plane(x, padding, k, 0)
    xf = xf.reshape(xf.shape[:-2] + (groups, cg, xf.shape[-1]))
    res = np.stack([np.matmul(gm, np.swapaxes(xf[..., q:q + L], -1, -2)).sum(axis=-4)
                    for q in _flat_shifts(w_sp, dilation, sp)], axis=-1)
    return res.reshape(res.shape[:-4] + tuple(weight_sizes))     # (*L, G, Og, Cg, K)


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
    if _flat_rows_pay(stride, cg, w_sp, og, w):
        return _col2im_flat(g, w, n, c, in_sp, padding, dilation, groups)
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


def _col2im_flat(g, w, n, c, in_sp, padding, dilation, groups):
    """The stride-1 col2im, NOTE [flat rows]: per kernel offset, the weights' slice times
    the flat-row gradient, added onto the shifted run of the flattened padded input (whole
    padded rows, so the last run ends ``slack`` elements past the plane), then cropped."""
    k = len(padding)
    w_sp = w.shape[w.ndim - k:]
    o, cg = w.shape[w.ndim - k - 2], w.shape[w.ndim - k - 1]
    og = o // groups
    out_sp = g.shape[g.ndim - k:]
    sp = tuple(s + lo + hi for s, (lo, hi) in zip(in_sp, padding))
    slack = _flat_len_slack(out_sp, sp)
    gf = _flat_grad(g, out_sp, sp)
    gf = gf.reshape(gf.shape[:-2] + (groups, og, gf.shape[-1]))         # (*Lg, N, G, Og, Lf)
    Lf = gf.shape[-1]
    # (K, *Lw, 1, G, Cg, Og): each kernel offset's weights, transposed
    wk = np.ascontiguousarray(np.moveaxis(
        w.reshape(w.shape[:w.ndim - k - 2] + (1, groups, og, cg, _prod(w_sp))), -1, 0)
        .swapaxes(-1, -2))
    shape = np.broadcast_shapes(wk.shape[1:-2], gf.shape[:-2]) + (cg, Lf)  # (*L, N, G, Cg, Lf)
    xp = np.empty(shape[:-4] + (n, c, _prod(sp) + slack), np.result_type(wk, gf))
    xp[..., Lf:] = 0
    shifts = _flat_shifts(w_sp, dilation, sp)      # (the first one is 0: written, not added)
    np.matmul(wk[0], gf, out=xp[..., :Lf].reshape(shape))   # (a view: C split into G, Cg)
    for kidx in range(1, len(shifts)):
        q = shifts[kidx]
        xp[..., q:q + Lf] += np.matmul(wk[kidx], gf).reshape(shape[:-3] + (c, Lf))
    xp = xp[..., :_prod(sp)].reshape(xp.shape[:-1] + sp)
    crop = tuple(slice(lo, lo + s) for (lo, _), s in zip(padding, in_sp))
    return np.ascontiguousarray(xp[(Ellipsis,) + crop])
