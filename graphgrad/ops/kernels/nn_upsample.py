"""NumPy kernels of the nn_upsample family: interpolate's nearest, nearest-exact, linear,
bilinear, trilinear and bicubic modes, the anti-aliased bilinear/bicubic/lanczos ones (and
their backward ops), pixel (un)shuffle.

Every mode is separable: along each spatial dim an output position reads ``K`` input
positions (1 for the nearest modes, 2 linear, 4 cubic) with weights, computed as PyTorch's
CPU kernels compute them (index arithmetic in float32 for the nearest modes, in the op math
type otherwise; weights stored in the input's dtype).  The forward pass gathers along the
last spatial dim first, then the one before it, ... and sums ``t_0 w_0 + t_1 w_1 + ...`` in
that order in the op math type, which is PyTorch's order (its outer dim's weights multiply
the inner dims' sums); half-precision inputs are computed in float32 and rounded once.  The
backward pass is the same gather over the transposed index lists (for each input position,
the outputs that read it, in order), so every gradient is the exact adjoint of the forward
and no inf is ever multiplied by a padding 0.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_upsample.py,
the public functions in nn/functional/upsampling.py.  Operands may carry extra leading
(batch) dims: only the last ``len(output_size)`` dims are spatial.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16

_A = -0.75   # PyTorch's bicubic convolution coefficient


def _c(a):
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy()


def _opmath(dt):
    return np.dtype(np.float32) if dt in (FLOAT16, BFLOAT16) else np.dtype(dt)


# ====================================================================== source positions
def _nearest_scale(n_in, n_out, scale):
    """PyTorch's compute_scales_value<float>: 1 / scale_factor, else n_in / n_out."""
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(n_in) / np.float32(n_out)


def _nearest_indices(n_in, n_out, scale, exact, legacy, om):
    """The source index of each output position.  ``legacy``: PyTorch's nearest_idx /
    nearest_exact_idx (float32 scale; for 'nearest', out == in copies and out == 2 in
    halves the index whatever the scale factor), which its 2-d kernels use; otherwise its
    generic N-d kernels' form (the scale in the op math type ``om``, no special cases)."""
    i = np.arange(n_out)
    if legacy:
        if not exact:
            if n_out == n_in:
                return i
            if n_out == 2 * n_in:
                return i >> 1
            src = np.floor(i.astype(np.float32) * _nearest_scale(n_in, n_out, scale))
        else:
            s = float(_nearest_scale(n_in, n_out, scale))
            src = np.floor(((i + 0.5) * s).astype(np.float32))
    else:
        s = _area_scale(n_in, n_out, False, scale, om)
        if not exact:
            src = np.floor((s * i.astype(om)).astype(np.float32))
        else:
            real = np.maximum(s * (i.astype(om) + om.type(0.5)) - om.type(0.5), om.type(0))
            src = np.floor((real.astype(np.float64) + 0.5).astype(np.float32))
    return np.minimum(src.astype(np.int64), n_in - 1)


def _area_scale(n_in, n_out, align_corners, scale, om):
    """PyTorch's area_pixel_compute_scale in the op math type ``om``."""
    if align_corners:
        return om.type(n_in - 1) / om.type(n_out - 1) if n_out > 1 else om.type(0)
    if scale is not None and scale > 0:
        return om.type(1.0 / scale)
    return om.type(n_in) / om.type(n_out)


def _source_index(n_in, n_out, align_corners, scale, om, cubic):
    s = _area_scale(n_in, n_out, align_corners, scale, om)
    i = np.arange(n_out).astype(om)
    if align_corners:
        return s * i
    src = s * (i + om.type(0.5)) - om.type(0.5)
    return src if cubic else np.maximum(src, om.type(0))


def _guard(real, n_in, om):
    """PyTorch's guard_index_and_lambda: the index below and the fraction past it."""
    idx = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
    lam = np.clip(real - idx.astype(om), om.type(0), om.type(1))
    return idx, lam.astype(om)


def _cubic1(x):
    return ((_A + 2) * x - (_A + 3)) * x * x + 1


def _cubic2(x):
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A


def _weights(mode, n_in, n_out, align_corners, scale, dt):
    """(indices, weights) of one spatial dim: (K, n_out) arrays; weights None for the
    nearest modes.  Weights are rounded to the input's dtype ``dt`` (PyTorch stores them
    so; pass the op math type for unrounded weights) and returned in the op math type."""
    om = _opmath(dt)
    if mode in ("nearest", "nearest-exact", "nearest-2d", "nearest-exact-2d"):
        om = om if om.kind == "f" else np.dtype(np.float32)     # (uint8: float32 indices)
        return _nearest_indices(n_in, n_out, scale, mode.startswith("nearest-exact"),
                                mode.endswith("2d"), om)[None], None
    if mode == "linear":
        if n_out == n_in:
            i = np.arange(n_out)
            return np.stack([i, i]), np.stack([np.ones(n_out, om), np.zeros(n_out, om)])
        real = _source_index(n_in, n_out, align_corners, scale, om, False)
        i0, l1 = _guard(real, n_in, om)
        i1 = i0 + (i0 < n_in - 1)
        l1 = l1.astype(dt).astype(om)       # (PyTorch: lambda1 in the input's dtype, then
        w = np.stack([om.type(1) - l1, l1])  # lambda0 = 1 - lambda1 rounded to it)
        idx = np.stack([i0, i1])
    else:  # cubic
        real = _source_index(n_in, n_out, align_corners, scale, om, True)
        i0, t = _guard(real, n_in, om)
        one = om.type(1)
        w = np.stack([_cubic2(t + one), _cubic1(t), _cubic1(one - t),
                      _cubic2((one - t) + one)]).astype(om)
        idx = np.clip(i0[None] + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return idx, w.astype(dt).astype(om)


def _dim_mode(mode, k):
    """PyTorch's 2-d nearest kernels compute their indices with nearest_idx (its 1-d and 3-d
    ones with the generic N-d helper)."""
    return mode + "-2d" if k == 2 and mode.startswith("nearest") else mode


_AA_TAPS = {"linear": 2, "cubic": 4, "lanczos": 6}   # PyTorch's interp_size per filter


def _aa_filter(kind, x):
    """The anti-aliasing filters: the triangle (bilinear), Keys' cubic with a = -0.5,
    Lanczos with a = 3."""
    x = np.abs(x)
    if kind == "linear":
        return np.where(x < 1, 1 - x, 0)
    if kind == "lanczos":
        return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0)
    a = -0.5
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))


def _aa_weights(kind, n_in, n_out, align_corners, scale, dt):
    """Anti-aliased (index, weight) rows, PyTorch's _compute_indices_min_size_weights_aa: the
    filter stretched by the scale when downsampling, centred on scale (i + 1/2), cut to the
    input and normalised to sum 1.  Rows shorter than the longest are padded with weight
    0 (and a ``valid`` mask, so that padding never multiplies an inf)."""
    om = _opmath(dt)
    s = float(_area_scale(n_in, n_out, align_corners, scale, om))
    interp = _AA_TAPS[kind]
    support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
    K = int(np.ceil(support)) * 2 + 1
    invscale = 1.0 / s if s >= 1.0 else 1.0
    i = np.arange(n_out)
    center = s * (i + 0.5)
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)
    xsize = np.clip(np.minimum((center + support + 0.5).astype(np.int64), n_in) - xmin, 0, K)
    j = np.arange(K)[:, None]
    valid = j < xsize[None, :]
    w = np.where(valid, _aa_filter(kind, (j + xmin[None, :] - center[None, :] + 0.5)
                                   * invscale), 0.0)
    total = w.sum(0)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w)
    idx = np.minimum(xmin[None, :] + j, n_in - 1)     # (padding: still non-decreasing rows)
    return idx, w.astype(om).astype(dt).astype(om), valid


def _aa_kernel(kind):
    """Anti-aliased bilinear/bicubic/lanczos: one pass per resized dim (the last first; a
    dim whose size does not change is skipped, as PyTorch's separable kernel does), each
    rounded to the input's dtype."""
    def kernel(x, output_size, align_corners, scales):
        k = len(output_size)
        dt = x.dtype
        om = _opmath(dt)
        plans = _plans(x.shape[-k:], output_size, scales)
        y = x
        for d in range(k - 1, -1, -1):
            n_in, n_out, s = plans[d]
            if n_in == n_out:
                continue
            axis = x.ndim - k + d
            idx, w, valid = _aa_weights(kind, n_in, n_out, align_corners, s, dt)
            y = _gather_sum(y.astype(om, copy=False), idx, w, valid, axis, n_out).astype(dt)
        return _c(y)
    return kernel


def _aa_backward_kernel(kind):
    def kernel(g, output_size, input_size, align_corners, scales):
        k = len(output_size)
        dt = g.dtype
        om = _opmath(dt)
        in_sizes = tuple(input_size[-k:])
        plans = _plans(in_sizes, output_size, scales)
        y = g.astype(om)
        for d in range(k):
            n_in, n_out, s = plans[d]
            if n_in == n_out:
                continue
            axis = y.ndim - k + d
            idx, w, valid = _aa_weights(kind, n_in, n_out, align_corners, s, dt)
            y = _gather_sum(y, *_transpose(idx, w, valid, n_in), axis, n_in)
        return _c(y.astype(dt))
    return kernel


def _plans(in_sizes, out_sizes, scales):
    """(input size, output size, scale factor or None) of each spatial dim."""
    k = len(out_sizes)
    scales = scales if scales is not None else (None,) * k
    return [(n_in, n_out, s) for n_in, n_out, s in zip(in_sizes, out_sizes, scales)]


# ====================================================================== interpolation
def _bilinear_half(x, plans, align_corners):
    """bilinear on float16/bfloat16, as PyTorch's kernel for them: float32 lambdas, the four
    products of a height and a width weight, x00 w00 + x01 w01 + x10 w10 + x11 w11 summed
    in that order in float32 and rounded once."""
    f = np.dtype(np.float32)
    (hi, ho, hs), (wi, wo, ws) = plans
    ih, wh = _weights("linear", hi, ho, align_corners, hs, f)
    iw, ww = _weights("linear", wi, wo, align_corners, ws, f)
    xf = x.astype(f)
    acc = None
    for a in range(2):
        for b in range(2):
            term = xf[..., ih[a][:, None], iw[b][None, :]] * (wh[a][:, None] * ww[b][None, :])
            acc = term if acc is None else acc + term
    return _c(acc.astype(x.dtype))


def _interp_kernel(mode):
    def kernel(x, output_size, align_corners, scales):
        k = len(output_size)
        dt = x.dtype
        om = _opmath(dt)
        plans = _plans(x.shape[-k:], output_size, scales)
        if mode == "linear" and k == 2 and om != dt:
            return _bilinear_half(x, plans, align_corners)
        y = x if mode in ("nearest", "nearest-exact") else x.astype(om, copy=False)
        m = _dim_mode(mode, k)
        for d in range(k - 1, -1, -1):              # the last spatial dim first
            n_in, n_out, s = plans[d]
            axis = x.ndim - k + d
            idx, w = _weights(m, n_in, n_out, align_corners, s, dt)
            y = _gather_sum(y, idx, w, None, axis, n_out)
        return _c(y.astype(dt, copy=False))
    kernel.__name__ = f"_upsample_{mode}_kernel"
    return kernel


def _transpose(idx, w, valid, n_in):
    """The adjoint's gather rows: for each input position the output positions that read it
    (ascending) and their weights, as (L, n_in) arrays padded to the longest list (with a
    ``valid`` mask)."""
    o = np.broadcast_to(np.arange(idx.shape[1]), idx.shape)
    keep = np.ones(idx.shape, bool) if valid is None else valid
    p, oo = idx[keep], o[keep]
    ww = None if w is None else w[keep]
    order = np.lexsort((oo, p))
    p, oo = p[order], oo[order]
    counts = np.bincount(p, minlength=n_in)
    starts = np.cumsum(counts) - counts
    r = np.arange(int(counts.max()))[:, None]
    tvalid = r < counts[None, :]
    pos = np.minimum(starts[None, :] + r, len(p) - 1)
    tw = None if ww is None else np.where(tvalid, ww[order][pos], 0)
    return np.where(tvalid, oo[pos], 0), tw, tvalid


def _gather_sum(y, idx, w, valid, axis, out_len):
    """sum_j y[..., idx[j], ...] * w[j] along ``axis`` (in order j = 0, 1, ...); entries
    with ``valid`` False are left out (never multiplied: an inf stays out of the sum)."""
    shape = [1] * y.ndim
    shape[axis] = out_len
    acc = None
    for j in range(len(idx)):
        term = np.take(y, idx[j], axis=axis)
        if w is not None:
            term = term * w[j].reshape(shape)
        if valid is not None and not valid[j].all():
            term = np.where(valid[j].reshape(shape), term, 0)
        acc = term if acc is None else acc + term
    return acc


def _interp_backward_kernel(mode):
    def kernel(g, output_size, input_size, align_corners, scales):
        k = len(output_size)
        dt = g.dtype
        om = _opmath(dt)
        y = g.astype(om, copy=False)
        in_sizes = tuple(input_size[-k:])
        plans = _plans(in_sizes, output_size, scales)
        m = _dim_mode(mode, k)
        for d in range(k):
            n_in, n_out, s = plans[d]
            axis = y.ndim - k + d
            idx, w = _weights(m, n_in, n_out, align_corners, s, dt)
            y = _gather_sum(y, *_transpose(idx, w, None, n_in), axis, n_in)
        return _c(y.astype(dt, copy=False))
    kernel.__name__ = f"_upsample_{mode}_backward_kernel"
    return kernel


# ====================================================================== pixel shuffle
def _pixel_shuffle_kernel(x, upscale_factor):
    r = upscale_factor
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(*lead, oc, r, r, h, w)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return _c(y.reshape(*lead, oc, h * r, w * r))


def _pixel_unshuffle_kernel(x, downscale_factor):
    r = downscale_factor
    *lead, c, h, w = x.shape
    oh, ow = h // r, w // r
    y = x.reshape(*lead, c, oh, r, ow, r)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return _c(y.reshape(*lead, c * r * r, oh, ow))


# ====================================================================== channel shuffle
def _channel_shuffle_kernel(x, groups, dim):
    """Channels (axis ``dim``, counted from the end) seen as (groups, C / groups), transposed
    and flattened back: channel g * (C / groups) + j goes to j * groups + g."""
    n = x.ndim + dim  # (leading dims of batched gradients come before)
    c = x.shape[n]
    y = x.reshape(*x.shape[:n], groups, c // groups, *x.shape[n + 1:])
    return _c(np.swapaxes(y, n, n + 1).reshape(x.shape))
