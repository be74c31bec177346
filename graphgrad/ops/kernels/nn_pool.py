"""NumPy kernels of the nn_pool family: max_pool2d (by the argmax indices) and avg_pool2d.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_pool.py, the
public functions in nn/functional/pool.py.
"""
from __future__ import annotations

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


def _max_pool_kernel(x, kernel_size, stride, padding, dilation, ceil_mode):
    H, W = x.shape[-2:]
    out_sp, pads = _pool_geometry((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    win = _windows(_pad_spatial(x, pads, fill), out_sp, kernel_size, stride, dilation)
    kh, kw = kernel_size
    flat = win.reshape(win.shape[:-2] + (kh * kw,))
    am = flat.argmax(axis=-1)   # the first maximum; a NaN wins (propagates, as in PyTorch)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    ki, kj = np.divmod(am, kw)
    hh = (np.arange(out_sp[0]) * stride[0] - padding[0])[:, None] + ki * dilation[0]
    ww = (np.arange(out_sp[1]) * stride[1] - padding[1])[None, :] + kj * dilation[1]
    return vals, (hh * W + ww).astype(np.int64)


def _pool_scatter_kernel(grad, indices, self_sizes):
    """Add each gradient element into its argmax position (flat H*W indices per plane)."""
    H, W = self_sizes[-2:]
    planes = grad.shape[:-2]
    n = _prod(planes)
    idx = np.broadcast_to(indices, grad.shape).reshape(n, -1)
    flat = idx + (np.arange(n, dtype=np.int64) * (H * W))[:, None]
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
    win = _windows(_pad_spatial(x, pads), out_sp, kernel_size, stride, (1, 1))
    div = _avg_divisor(sizes, kernel_size, stride, padding, out_sp, count_include_pad,
                       divisor_override)
    return (win.sum(axis=(-2, -1)) / np.asarray(div, x.dtype)).astype(x.dtype, copy=False)


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
