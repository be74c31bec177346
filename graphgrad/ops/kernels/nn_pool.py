"""NumPy kernels of the nn_pool family: max_pool2d (by the argmax indices) and avg_pool2d.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_pool.py, the
public functions in nn/functional/pool.py.
"""
from __future__ import annotations

import functools

import numpy as np

from ..._core.opmath import half_in_float32
from .nn_conv import _prod, _pad_spatial, _windows


# ====================================================================== pooling
def _pool_out(n, k, s, p, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    o = num // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pool_geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode):
    """Output sizes and the (lo, hi) padding that makes every window fit."""
    outs, pads = [], []
    for n, k, s, p, d in zip(sizes, kernel_size, stride, padding, dilation):
        o = _pool_out(n, k, s, p, d, ceil_mode)
        need = (o - 1) * s + d * (k - 1) + 1
        outs.append(o)
        pads.append((p, max(need - n - p, 0)))
    return tuple(outs), tuple(pads)


# windows of at most this many elements are reduced offset by offset (_max_pool_offsets);
# larger ones by argmax over a copy of the windows
_OFFSET_LOOP_MAX = 25


def _inside(n, o, k, s, p, d):
    """(o, k) bool: is window o's element k inside the unpadded length n?"""
    pos = (np.arange(o) * s - p)[:, None] + np.arange(k)[None, :] * d
    return (pos >= 0) & (pos < n)


@functools.lru_cache(maxsize=None)
def _maximum_keeps_second(dtype):
    """Does np.maximum(a, b) return b when a == b (+0.0 vs -0.0)?  Yes for NumPy's
    float32/float64 and ml_dtypes' bfloat16, no for float16."""
    one = np.ones(1, dtype)
    pos, neg = one - one, -(one - one)
    return bool(np.signbit(np.maximum(pos, neg).astype(np.float64))[0])


def _max_pool_offsets(xp, out_sp, kernel_size, stride, dilation, W, inside):
    """The maximum of each window and its offset in the (unpadded) plane, from the kh*kw
    strided views of ``xp``, with no copy of the windows, no argmax along a tiny axis and
    no masked (``where=``) NumPy calls, which are ~40x slower than plain ones: a chain of
    np.maximum for the values (the earlier element kept at a tie, so that -0.0 / +0.0
    come out as PyTorch's), then the offset of the first element equal to the maximum by
    integer arithmetic, in reverse order.  PyTorch's choice: the first maximum, or the
    last NaN; a padding element is never chosen (``inside``: the two per-axis masks of
    ``_inside``, or None without padding), so a window of -inf (or of the integer
    minimum) picks its first element inside the plane."""
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
    oh, ow = out_sp

    def view(i, j):
        return xp[..., i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]

    offsets = [(i, j) for i in range(kh) for j in range(kw)]
    best = np.array(view(0, 0))
    second = xp.dtype.kind != "f" or _maximum_keeps_second(xp.dtype)
    for i, j in offsets[1:]:
        if second:
            np.maximum(view(i, j), best, out=best)
        else:
            np.maximum(best, view(i, j), out=best)
    off = np.zeros(best.shape, np.int64)
    hit = np.empty(best.shape, bool)
    step = np.empty(best.shape, np.int64)
    for i, j in reversed(offsets):  # the first element equal to the maximum
        np.equal(view(i, j), best, out=hit)
        if inside is not None:
            hit &= inside[0][:, i][:, None] & inside[1][:, j][None, :]
        code = i * dh * W + j * dw     # off += hit * (code - off)
        np.subtract(code, off, out=step)
        step *= hit
        off += step
    if xp.dtype.kind in "fV" and bool((best != best).any()):
        for i, j in offsets:           # the last NaN
            v = view(i, j)
            np.not_equal(v, v, out=hit)
            np.subtract(i * dh * W + j * dw, off, out=step)
            step *= hit
            off += step
    return best, off



def _max_pool_tiles(x, kernel_size, out_sp):
    """max_pool2d when the windows tile the (cropped) plane: stride == kernel_size, no
    padding, no dilation.  One copy moves each window offset into its own contiguous plane
    (kh*kw planes of the output's shape), so that every later NumPy call runs over whole
    contiguous arrays (a strided view of a plane with short rows costs NumPy one inner
    loop per row): a chain of np.maximum for the values (the earlier element kept at a
    tie), then the window offset of the first element equal to the maximum, in reverse
    order in uint8.  Returns None when a window holds a NaN (PyTorch picks the last NaN:
    the caller takes the general path)."""
    (kh, kw), (oh, ow) = kernel_size, out_sp
    W = x.shape[-1]
    lead = x.shape[:-2]
    nl = len(lead)
    t = x[..., :oh * kh, :ow * kw].reshape(lead + (oh, kh, ow, kw))
    planes = np.ascontiguousarray(np.moveaxis(t, (nl + 1, nl + 3), (0, 1)))
    planes = planes.reshape((kh * kw,) + lead + (oh, ow))
    best = planes[0].copy()
    second = x.dtype.kind != "f" or _maximum_keeps_second(x.dtype)
    for p in planes[1:]:
        if second:
            np.maximum(p, best, out=best)
        else:
            np.maximum(best, p, out=best)
    if x.dtype.kind == "f" and bool(np.isnan(best).any()):
        return None
    last = kh * kw - 1
    code = np.full(best.shape, last, np.uint8)   # a maximum is in some plane
    hit = np.empty(best.shape, bool)
    step = np.empty(best.shape, np.uint8)
    for k in range(last - 1, -1, -1):              # code += hit * (k - code), mod 256
        np.equal(planes[k], best, out=hit)
        np.subtract(k, code, out=step)
        np.multiply(step, hit, out=step)
        code += step
    # window offset r * kw + c -> r * W + c (arithmetic: a take through a table of the
    # kh*kw offsets is ~3x slower)
    off = np.multiply(code // kw, W - kw, dtype=np.int64)
    off += code
    off += (np.arange(oh) * (kh * W))[:, None] + np.arange(ow) * kw
    return best, off


def _max_pool_kernel(x, kernel_size, stride, padding, dilation, ceil_mode):
    H, W = x.shape[-2:]
    out_sp, pads = _pool_geometry((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    if tuple(stride) == tuple(kernel_size) and not any(padding) and tuple(dilation) == (1, 1) and \
            kernel_size[0] * kernel_size[1] <= _OFFSET_LOOP_MAX and \
            x.dtype.kind in "fiu" and not any(hi for _, hi in pads):
        res = _max_pool_tiles(x, kernel_size, out_sp)
        if res is not None:
            return res
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    xp = _pad_spatial(x, pads, fill)
    if kernel_size[0] * kernel_size[1] <= _OFFSET_LOOP_MAX:
        inside = None
        if any(lo or hi for lo, hi in pads):
            inside = tuple(_inside(n, o, k, s_, p, d) for n, o, k, s_, p, d in zip(
                (H, W), out_sp, kernel_size, stride, padding, dilation))
        vals, off = _max_pool_offsets(xp, out_sp, kernel_size, stride, dilation, W, inside)
        base = (np.arange(out_sp[0]) * stride[0] - padding[0])[:, None] * W + \
            (np.arange(out_sp[1]) * stride[1] - padding[1])[None, :]
        off += base
        return vals, off
    win = _windows(xp, out_sp, kernel_size, stride, dilation)
    kh, kw = kernel_size
    flat = win.reshape(win.shape[:-2] + (kh * kw,))
    am = flat.argmax(axis=-1)   # the first maximum
    if x.dtype.kind in "fV":
        isn = flat != flat      # a NaN wins, the last one in the window (as in PyTorch)
        has = isn.any(axis=-1)
        if has.any():
            am = np.where(has, kh * kw - 1 - isn[..., ::-1].argmax(axis=-1), am)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    ki, kj = np.divmod(am, kw)
    if any(lo or hi for lo, hi in pads):  # never a padding element: the first one inside
        ins = [_inside(n, o, k, s_, p, d) for n, o, k, s_, p, d in zip(
            (H, W), out_sp, kernel_size, stride, padding, dilation)]
        out_h = ~ins[0][np.arange(out_sp[0])[:, None], ki]
        out_w = ~ins[1][np.arange(out_sp[1])[None, :], kj]
        bad = out_h | out_w
        if bad.any():
            ki = np.where(bad, ins[0].argmax(axis=1)[:, None], ki)
            kj = np.where(bad, ins[1].argmax(axis=1)[None, :], kj)
            vals = np.where(bad, np.take_along_axis(
                flat, (ki * kw + kj)[..., None], -1)[..., 0], vals)
    hh = (np.arange(out_sp[0]) * stride[0] - padding[0])[:, None] + ki * dilation[0]
    ww = (np.arange(out_sp[1]) * stride[1] - padding[1])[None, :] + kj * dilation[1]
    return vals, (hh * W + ww).astype(np.int64)


def _windows_disjoint(kernel_size, stride, dilation):
    """Do no two pooling windows share an element (so no two argmax indices coincide)?"""
    return all(s >= (k - 1) * d + 1 for k, s, d in zip(kernel_size, stride, dilation))


def _pool_scatter_kernel(grad, indices, self_sizes, disjoint):
    """Add each gradient element into its argmax position (flat H*W indices per plane).
    ``disjoint``: the indices come from windows that share no element, so no position
    receives two gradients and the sum is an assignment into zeros (0 + g, as PyTorch's
    accumulation: a -0.0 gradient lands as +0.0); otherwise np.bincount sums them."""
    H, W = self_sizes[-2:]
    planes = grad.shape[:-2]
    n = _prod(planes)
    idx = np.broadcast_to(indices, grad.shape).reshape(n, -1)
    flat = idx + (np.arange(n, dtype=np.int64) * (H * W))[:, None]
    if disjoint:
        out = np.zeros(planes + (H, W), grad.dtype)
        out.reshape(-1)[flat.reshape(-1)] = grad.reshape(-1) + np.zeros((), grad.dtype)
        return out
    out = np.bincount(flat.ravel(), weights=grad.reshape(n, -1).ravel(), minlength=n * H * W)
    return out.reshape(planes + (H, W)).astype(grad.dtype, copy=False)


def _pool_gather_kernel(x, indices):
    """x[..., indices] per plane: the adjoint of the scatter."""
    xf = x.reshape(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))
    idx = indices.reshape(indices.shape[:-2] + (-1,))
    idx = np.broadcast_to(idx, xf.shape[:-1] + idx.shape[-1:])
    return np.take_along_axis(xf, idx, -1).reshape(x.shape[:-2] + indices.shape[-2:])


def _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                 divisor_override):
    if divisor_override:
        return float(divisor_override)
    ds = []
    for n, k, s, p, o in zip(sizes, kernel_size, stride, padding, out_sp):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            ds.append(end - start)
        else:
            ds.append(np.minimum(end, n) - np.maximum(start, 0))
    return np.multiply.outer(ds[0], ds[1])


@half_in_float32
def _avg_pool_kernel(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override):
    sizes = x.shape[-2:]
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, (1, 1), ceil_mode)
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    (kh, kw), (oh, ow) = kernel_size, out_sp
    if tuple(stride) == tuple(kernel_size) and not any(padding) and \
            oh * kh <= sizes[0] and ow * kw <= sizes[1]:
        # the windows tile the (cropped) plane: a reshape, a view when x is contiguous
        win = x[..., :oh * kh, :ow * kw].reshape(x.shape[:-2] + (oh, kh, ow, kw))
        total = win.sum(axis=(-3, -1))
    else:
        win = _windows(_pad_spatial(x, pads), out_sp, kernel_size, stride, (1, 1))
        total = win.sum(axis=(-2, -1))
    return (total / np.asarray(div, x.dtype)).astype(x.dtype, copy=False)


@half_in_float32
def _avg_pool_backward_kernel(g, self_sizes, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override):
    sizes = tuple(self_sizes[-2:])
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, (1, 1), ceil_mode)
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    gd = g / np.asarray(div, g.dtype)
    sp = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    xp = np.zeros(g.shape[:-2] + sp, g.dtype)
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            xp[..., i:i + stride[0] * (out_sp[0] - 1) + 1:stride[0],
               j:j + stride[1] * (out_sp[1] - 1) + 1:stride[1]] += gd
    return np.ascontiguousarray(xp[..., padding[0]:padding[0] + sizes[0],
                                   padding[1]:padding[1] + sizes[1]])
