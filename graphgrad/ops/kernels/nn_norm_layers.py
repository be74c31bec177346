"""NumPy kernels of the nn_norm_layers family: batch_norm, instance_norm, group_norm, rms_norm.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_norm_layers.py,
the public functions in nn/functional/norm_layers.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32


# ====================================================================== batch_norm
def _bn_kernel(x, w, b, rm, rv, training, eps):
    half = x.dtype if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else None
    # (in float32; the statistics are stored in the half type, unless the parameters and
    # statistics are float32: PyTorch's mixed-type kernel keeps them in float32)
    mixed = half is not None and any(t is not None and t.dtype == np.float32
                                     for t in (w, b, rm, rv))
    if half is not None:
        f = np.float32
        x = x.astype(f)
        w, b, rm, rv = (None if t is None else t.astype(f) for t in (w, b, rm, rv))
    nd = x.ndim
    axes = (0,) + tuple(range(2, nd))
    shape = (x.shape[1],) + (1,) * (nd - 2)
    if training:
        mean = x.mean(axis=axes)
        xc = x - mean.reshape(shape)
        var = (xc * xc).mean(axis=axes)
    else:
        mean = rm.astype(x.dtype, copy=False)
        var = rv.astype(x.dtype, copy=False)
    invstd = 1.0 / np.sqrt(var + eps)
    if half is not None and training and not mixed:
        mean, invstd = (v.astype(half).astype(np.float32) for v in (mean, invstd))
    # x * alpha + beta per channel, as PyTorch's CPU kernel applies it
    alpha = invstd if w is None else invstd * w
    beta = -mean * alpha if b is None else b - mean * alpha
    out = x * alpha.reshape(shape)
    out += beta.reshape(shape)
    if half is not None:
        sd = np.float32 if mixed else half
        return out.astype(half), mean.astype(sd), invstd.astype(sd), var
    return out, mean, invstd, var


# ====================================================================== group_norm
@half_in_float32
def _gn_kernel(x, w, b, group, eps):
    nd = x.ndim
    xg = x.reshape(x.shape[0], group, -1) if x.size else x.reshape(x.shape[0], group, 0)
    mean = xg.mean(axis=-1, keepdims=True)
    xc = xg - mean
    var = (xc * xc).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out = (xc * rstd).reshape(x.shape)
    shape = (x.shape[1],) + (1,) * (nd - 2)
    if w is not None:
        out *= w.reshape(shape)
    if b is not None:
        out += b.reshape(shape)
    return out, mean[..., 0], rstd[..., 0]
