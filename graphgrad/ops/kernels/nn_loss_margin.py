"""NumPy kernels of the nn_loss_margin family: soft_margin_loss, multi_margin_loss and
multilabel_margin_loss (the margin losses PyTorch computes in one kernel).

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_loss_margin.py,
the public functions in nn/functional/loss_margin.py.  The backward kernels take gradients
with extra leading (batch) dimensions (``is_grads_batched``).
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16
from .nn_loss_bce import _half_steps
from .nn_utils import _reduce, _reduce_in_opmath


def _c(a):
    """``a`` C-contiguous (np.ascontiguousarray would make a 0-d array 1-d)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy()


# ====================================================================== soft margin
def _soft_margin_kernel(x, t, reduction):
    """log(1 + exp(-t x)), as PyTorch's kernel: neg, mul (in the dtype x and t promote to,
    rounded to x's), exp, log1p (each rounded to a half type, as PyTorch's half kernels)."""
    wide = np.float64 if t.dtype == np.float64 else np.float32
    if x.dtype is FLOAT16 or x.dtype is BFLOAT16:
        dt, r = x.dtype, _half_steps(x.dtype)
        loss = r(np.log1p(r(np.exp(r(-x.astype(wide) * t.astype(wide))))))
        return _reduce_in_opmath(loss.astype(dt), reduction)
    prod = -x * t if t.dtype == x.dtype else (-x.astype(wide) * t).astype(x.dtype)
    with np.errstate(over="ignore"):
        loss = np.log1p(np.exp(prod))
    return _reduce(loss, reduction)


def _soft_margin_backward_kernel(g, x, t, reduction):
    """The gradient of soft_margin_loss: g * -t sigmoid(-t x) (divided by the element count
    for 'mean'); ``g`` may carry leading batch dims."""
    dt = x.dtype
    f = np.float32 if (dt is FLOAT16 or dt is BFLOAT16) else dt.type
    xf, tf, gf = x.astype(f, copy=False), t.astype(f, copy=False), np.asarray(g).astype(f)
    with np.errstate(over="ignore"):
        d = -tf / (1 + np.exp(tf * xf))
    if reduction != "none":
        gf = gf.reshape(gf.shape + (1,) * x.ndim)
        if reduction == "mean":
            gf = gf / f(x.size) if x.size else gf * np.nan
    return _c((gf * d).astype(dt, copy=False))


# ====================================================================== multi margin
def _rows(x, t):
    """The input as (N, C) rows and the target as (N,) class indices."""
    C = x.shape[-1] if x.ndim else 1
    return x.reshape(-1, C), t.reshape(-1)


def _multi_margin_terms(x2, t1, weight, p, margin):
    """z = margin - x[y] + x[j] per row, the mask of the terms that count (z > 0, j != y)
    and the factor each term's derivative carries."""
    N, C = x2.shape
    xy = x2[np.arange(N), t1]
    z = margin - xy[:, None] + x2
    on = (z > 0) & (np.arange(C)[None, :] != t1[:, None])
    w = None if weight is None else weight[t1][:, None]
    return z, on, w


def _multi_margin_kernel(x, t, weight, p, margin, reduction):
    x2, t1 = _rows(x, t)
    N, C = x2.shape
    z, on, w = _multi_margin_terms(x2, t1, weight, p, margin)
    h = np.where(on, z if p == 1 else z * z, 0).astype(x.dtype, copy=False)
    if w is not None:
        h = h * w
    loss = h.sum(1) / x.dtype.type(C)
    if reduction == "none":
        return _c(loss.reshape(t.shape))
    if reduction == "mean" and N == 0:
        return np.full((), np.nan, x.dtype)   # (PyTorch: an uninitialised value)
    return np.asarray(_reduce(loss, reduction), x.dtype)


def _scaled_grad(g, t_shape, N, reduction, dtype):
    """The (batched) gradient of the losses as (batch..., N, 1)."""
    g = np.asarray(g, dtype)
    if reduction == "none":
        lead = g.shape[:g.ndim - len(t_shape)]
        return g.reshape(lead + (N, 1))
    if reduction == "mean" and N:
        g = g / dtype.type(N)
    return g[..., None, None]


def _multi_margin_backward_kernel(g, x, t, weight, p, margin, reduction):
    x2, t1 = _rows(x, t)
    N, C = x2.shape
    z, on, w = _multi_margin_terms(x2, t1, weight, p, margin)
    d = np.where(on, 1.0 if p == 1 else 2 * z, 0).astype(x.dtype, copy=False) / \
        x.dtype.type(C)
    if w is not None:
        d = d * w
    d[np.arange(N), t1] -= d.sum(1)
    out = _scaled_grad(g, t.shape, N, reduction, x.dtype) * d
    return _c(out.reshape(out.shape[:-2] + x.shape))


# ====================================================================== multilabel margin
def _multilabel_terms(x, t):
    """Per row: the valid target entries (before the first -1), the values at them, the
    is-target mask and the hinge terms 1 - x[t_k] + x[j] that count."""
    C = x.shape[-1] if x.ndim else 1
    x2, t2 = x.reshape(-1, C), t.reshape(-1, C)
    N = x2.shape[0]
    valid = np.cumprod(t2 >= 0, axis=1).astype(bool)
    tk = np.where(valid, t2, 0)
    rows = np.arange(N)[:, None]
    is_target = np.zeros((N, C), bool)
    is_target[np.broadcast_to(rows, tk.shape)[valid], tk[valid]] = True
    xt = x2[rows, tk]                                    # (N, K)
    z = 1 - xt[:, :, None] + x2[:, None, :]              # (N, K, C)
    on = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return x2, tk, valid, z, on, C


def _multilabel_margin_kernel(x, t, reduction):
    x2, tk, valid, z, on, C = _multilabel_terms(x, t)
    loss = np.where(on, z, 0).sum((1, 2)).astype(x.dtype, copy=False) / x.dtype.type(C)
    if reduction == "none":
        return _c(loss.reshape(x.shape[:-1]) if x.ndim else loss.reshape(()))
    if reduction == "mean" and loss.size == 0:
        return np.full((), np.nan, x.dtype)   # (PyTorch: an uninitialised value)
    return np.asarray(_reduce(loss, reduction), x.dtype)


def _multilabel_margin_backward_kernel(g, x, t, reduction):
    x2, tk, valid, z, on, C = _multilabel_terms(x, t)
    N = x2.shape[0]
    coef = on.astype(x.dtype) / x.dtype.type(C)          # (N, K, C)
    d = coef.sum(1)
    onehot = (tk[:, :, None] == np.arange(C)) & valid[:, :, None]
    d = d - np.einsum("nk,nkc->nc", coef.sum(2), onehot.astype(x.dtype))
    out_shape = x.shape[:-1] if x.ndim else ()
    out = _scaled_grad(g, out_shape, N, reduction, x.dtype) * d
    return _c(out.reshape(out.shape[:-2] + x.shape))
