"""NumPy kernels of the nn_pool family: max_pool2d/3d (by the argmax indices) and
avg_pool2d/3d, one code path for any number of spatial dims.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_pool.py, the
public functions in nn/functional/pool.py.
"""
from __future__ import annotations

import functools
import itertools

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


def _axis_shape(k, d, n):
    """The shape that puts a length-``n`` vector on axis ``d`` of ``k`` trailing axes."""
    shape = [1] * k
    shape[d] = n
    return shape


def _rows(sizes):
    """The flat stride of each of the plane's axes (row-major)."""
    return [_prod(sizes[d + 1:]) for d in range(len(sizes))]


def _max_pool_offsets(xp, out_sp, kernel_size, stride, dilation, sizes, inside):
    """The maximum of each window and its offset in the (unpadded) plane, from the
    prod(kernel_size) strided views of ``xp``, with no copy of the windows, no argmax
    along a tiny axis and no masked (``where=``) NumPy calls, which are ~40x slower than
    plain ones: a chain of np.maximum for the values (the earlier element kept at a tie,
    so that -0.0 / +0.0 come out as PyTorch's), then the offset of the first element
    equal to the maximum by integer arithmetic, in reverse order.  PyTorch's choice: the
    first maximum, or the last NaN; a padding element is never chosen (``inside``: the
    per-axis masks of ``_inside``, or None without padding), so a window of -inf (or of
    the integer minimum) picks its first element inside the plane."""
    k = len(kernel_size)
    rows = _rows(sizes)

    def view(off):
        return xp[(Ellipsis,) + tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in
                                      zip(off, dilation, stride, out_sp))]

    def code(off):
        return sum(i * d * r for i, d, r in zip(off, dilation, rows))

    def mask(off):   # the window elements at this offset that are inside the plane
        m = inside[0][:, off[0]].reshape(_axis_shape(k, 0, out_sp[0]))
        for d in range(1, k):
            m = m & inside[d][:, off[d]].reshape(_axis_shape(k, d, out_sp[d]))
        return m

    offsets = list(itertools.product(*[range(kk) for kk in kernel_size]))
    best = np.array(view(offsets[0]))
    second = xp.dtype.kind != "f" or _maximum_keeps_second(xp.dtype)
    for o in offsets[1:]:
        if second:
            np.maximum(view(o), best, out=best)
        else:
            np.maximum(best, view(o), out=best)
    off = np.zeros(best.shape, np.int64)
    hit = np.empty(best.shape, bool)
    step = np.empty(best.shape, np.int64)
    for o in reversed(offsets):  # the first element equal to the maximum
        np.equal(view(o), best, out=hit)
        if inside is not None:
            hit &= mask(o)
        np.subtract(code(o), off, out=step)   # off += hit * (code - off)
        step *= hit
        off += step
    if xp.dtype.kind in "fV" and bool((best != best).any()):
        for o in offsets:           # the last NaN
            v = view(o)
            np.not_equal(v, v, out=hit)
            np.subtract(code(o), off, out=step)
            step *= hit
            off += step
    return best, off


def _max_pool_tiles(x, kernel_size, out_sp):
    """max pooling when the windows tile the (cropped) plane: stride == kernel_size, no
    padding, no dilation.  One copy moves each window offset into its own contiguous plane
    (prod(kernel_size) planes of the output's shape), so that every later NumPy call runs
    over whole contiguous arrays (a strided view of a plane with short rows costs NumPy
    one inner loop per row): a chain of np.maximum for the values (the earlier element
    kept at a tie), then the window offset of the first element equal to the maximum, in
    reverse order in uint8.  Returns None when a window holds a NaN (PyTorch picks the
    last NaN: the caller takes the general path)."""
    k = len(kernel_size)
    sizes = x.shape[x.ndim - k:]
    lead = x.shape[:x.ndim - k]
    nl = len(lead)
    crop = tuple(slice(0, o * kk) for o, kk in zip(out_sp, kernel_size))
    t = x[(Ellipsis,) + crop].reshape(lead + tuple(v for o, kk in zip(out_sp, kernel_size)
                                                   for v in (o, kk)))
    planes = np.ascontiguousarray(np.moveaxis(t, tuple(nl + 2 * d + 1 for d in range(k)),
                                              tuple(range(k))))
    nk = _prod(kernel_size)
    planes = planes.reshape((nk,) + lead + tuple(out_sp))
    best = planes[0].copy()
    second = x.dtype.kind != "f" or _maximum_keeps_second(x.dtype)
    for p in planes[1:]:
        if second:
            np.maximum(p, best, out=best)
        else:
            np.maximum(best, p, out=best)
    if x.dtype.kind == "f" and bool(np.isnan(best).any()):
        return None
    last = nk - 1
    code = np.full(best.shape, last, np.uint8)   # a maximum is in some plane
    hit = np.empty(best.shape, bool)
    step = np.empty(best.shape, np.uint8)
    for c in range(last - 1, -1, -1):              # code += hit * (c - code), mod 256
        np.equal(planes[c], best, out=hit)
        np.subtract(c, code, out=step)
        np.multiply(step, hit, out=step)
        code += step
    # window offset code = sum(i_d * kp_d) -> sum(i_d * row_d) = code + sum(i_d * (row_d -
    # kp_d)), the last axis' term zero (arithmetic: a take through a table of the offsets
    # is ~3x slower)
    rows = _rows(sizes)
    kps = _rows(kernel_size)
    off = None
    for d in range(k - 1):
        digit = code // kps[d]
        if d:
            digit %= kernel_size[d]
        term = np.multiply(digit, rows[d] - kps[d], dtype=np.int64)
        off = term if off is None else off + term
    off = code.astype(np.int64) if off is None else off
    if k > 1:
        off += code
    base = 0   # each window's first position: a plane of the output's shape, added once
    for d in range(k):
        base = base + (np.arange(out_sp[d]) * (kernel_size[d] * rows[d])).reshape(
            _axis_shape(k, d, out_sp[d]))
    off += base
    return best, off


def _max_pool_kernel(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Max pooling over the last len(kernel_size) dims: the values and the flat
    positions (in the unpadded plane) of each window's maximum."""
    k = len(kernel_size)
    sizes = x.shape[x.ndim - k:]
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode)
    nk = _prod(kernel_size)
    if tuple(stride) == tuple(kernel_size) and not any(padding) and \
            tuple(dilation) == (1,) * k and nk <= _OFFSET_LOOP_MAX and \
            x.dtype.kind in "fiu" and not any(hi for _, hi in pads):
        res = _max_pool_tiles(x, kernel_size, out_sp)
        if res is not None:
            return res
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    xp = _pad_spatial(x, pads, fill)
    rows = _rows(sizes)
    padded = any(lo or hi for lo, hi in pads)
    ins = [_inside(n, o, kk, s_, p, d) for n, o, kk, s_, p, d in zip(
        sizes, out_sp, kernel_size, stride, padding, dilation)] if padded else None
    starts = [(np.arange(o) * s_ - p).reshape(_axis_shape(k, d, o))
              for d, (o, s_, p) in enumerate(zip(out_sp, stride, padding))]
    if nk <= _OFFSET_LOOP_MAX:
        vals, off = _max_pool_offsets(xp, out_sp, kernel_size, stride, dilation, sizes, ins)
        base = starts[0] * rows[0]
        for d in range(1, k):
            base = base + starts[d] * rows[d]
        off += base
        return vals, off
    win = _windows(xp, out_sp, kernel_size, stride, dilation)
    flat = win.reshape(win.shape[:win.ndim - k] + (nk,))
    am = flat.argmax(axis=-1)   # the first maximum
    if x.dtype.kind in "fV":
        isn = flat != flat      # a NaN wins, the last one in the window (as in PyTorch)
        has = isn.any(axis=-1)
        if has.any():
            am = np.where(has, nk - 1 - isn[..., ::-1].argmax(axis=-1), am)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    digits = list(np.unravel_index(am, tuple(kernel_size)))
    if padded:  # never a padding element: the first one inside
        grids = [np.arange(o).reshape(_axis_shape(k, d, o)) for d, o in enumerate(out_sp)]
        bad = ~ins[0][grids[0], digits[0]]
        for d in range(1, k):
            bad = bad | ~ins[d][grids[d], digits[d]]
        if bad.any():
            for d in range(k):
                first = ins[d].argmax(axis=1).reshape(_axis_shape(k, d, out_sp[d]))
                digits[d] = np.where(bad, first, digits[d])
            vals = np.where(bad, np.take_along_axis(
                flat, np.ravel_multi_index(tuple(digits), tuple(kernel_size))[..., None],
                -1)[..., 0], vals)
    pos = 0
    for d in range(k):
        pos = pos + (starts[d] + digits[d] * dilation[d]) * rows[d]
    return vals, np.asarray(pos, np.int64)


def _windows_disjoint(kernel_size, stride, dilation):
    """Do no two pooling windows share an element (so no two argmax indices coincide)?"""
    return all(s >= (k - 1) * d + 1 for k, s, d in zip(kernel_size, stride, dilation))


def _pool_scatter_kernel(grad, indices, self_sizes, disjoint, k=2):
    """Add each gradient element into its argmax position (flat positions over the last
    ``k`` dims, per plane).  ``disjoint``: the indices come from windows that share no
    element, so no position receives two gradients and the sum is an assignment into
    zeros (0 + g, as PyTorch's accumulation: a -0.0 gradient lands as +0.0); otherwise
    np.bincount sums them."""
    sizes = tuple(self_sizes[len(self_sizes) - k:])
    P = _prod(sizes)
    planes = grad.shape[:grad.ndim - k]
    n = _prod(planes)
    idx = np.broadcast_to(indices, grad.shape).reshape(n, -1)
    flat = idx + (np.arange(n, dtype=np.int64) * P)[:, None]
    if disjoint:
        out = np.zeros(planes + sizes, grad.dtype)
        out.reshape(-1)[flat.reshape(-1)] = grad.reshape(-1) + np.zeros((), grad.dtype)
        return out
    out = np.bincount(flat.ravel(), weights=grad.reshape(n, -1).ravel(), minlength=n * P)
    return out.reshape(planes + sizes).astype(grad.dtype, copy=False)


def _pool_gather_kernel(x, indices, k=2):
    """x[..., indices] per plane (flat positions over the last ``k`` dims): the adjoint
    of the scatter."""
    xf = x.reshape(x.shape[:x.ndim - k] + (_prod(x.shape[x.ndim - k:]),))
    idx = indices.reshape(indices.shape[:indices.ndim - k] + (-1,))
    idx = np.broadcast_to(idx, xf.shape[:-1] + idx.shape[-1:])
    return np.take_along_axis(xf, idx, -1).reshape(x.shape[:x.ndim - k] +
                                                   indices.shape[indices.ndim - k:])


def _pool3d_scatter_kernel(grad, indices, self_sizes, disjoint):
    return _pool_scatter_kernel(grad, indices, self_sizes, disjoint, 3)


def _pool3d_gather_kernel(x, indices):
    return _pool_gather_kernel(x, indices, 3)


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
    return functools.reduce(np.multiply.outer, ds)


@half_in_float32
def _avg_pool_kernel(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override):
    """Average pooling over the last len(kernel_size) dims."""
    k = len(kernel_size)
    sizes = x.shape[x.ndim - k:]
    ones = (1,) * k
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, ones, ceil_mode)
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    if tuple(stride) == tuple(kernel_size) and not any(padding) and \
            all(o * kk <= n for o, kk, n in zip(out_sp, kernel_size, sizes)):
        # the windows tile the (cropped) plane: a reshape, a view when x is contiguous
        crop = tuple(slice(0, o * kk) for o, kk in zip(out_sp, kernel_size))
        win = x[(Ellipsis,) + crop].reshape(
            x.shape[:x.ndim - k] + tuple(v for o, kk in zip(out_sp, kernel_size)
                                         for v in (o, kk)))
        total = win.sum(axis=tuple(range(-2 * k + 1, 0, 2)))
    else:
        win = _windows(_pad_spatial(x, pads), out_sp, kernel_size, stride, ones)
        total = win.sum(axis=tuple(range(-k, 0)))
    return (total / np.asarray(div, x.dtype)).astype(x.dtype, copy=False)


@half_in_float32
def _avg_pool_backward_kernel(g, self_sizes, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override):
    k = len(kernel_size)
    sizes = tuple(self_sizes[len(self_sizes) - k:])
    out_sp, pads = _pool_geometry(sizes, kernel_size, stride, padding, (1,) * k, ceil_mode)
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    gd = g / np.asarray(div, g.dtype)
    sp = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    xp = np.zeros(g.shape[:g.ndim - k] + sp, g.dtype)
    for off in itertools.product(*[range(kk) for kk in kernel_size]):
        xp[(Ellipsis,) + tuple(slice(i, i + s * (o - 1) + 1, s) for i, s, o in
                               zip(off, stride, out_sp))] += gd
    return np.ascontiguousarray(xp[(Ellipsis,) + tuple(slice(p, p + n) for p, n in
                                                       zip(padding, sizes))])
