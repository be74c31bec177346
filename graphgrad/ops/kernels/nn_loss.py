"""NumPy kernels of the nn_loss family: mse, l1, smooth_l1, nll losses.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_loss.py, the
public functions in nn/functional/loss.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32
from .nn_utils import _reduce, _reduce_in_opmath


# ====================================================================== regression losses
def _mse_kernel(a, b, reduction):
    # (half precision: the difference and its square are rounded, as in PyTorch's kernel; the
    # sum or mean accumulates in float32 and is rounded once)
    d = np.asarray(np.subtract(a, b))
    d *= d
    return _reduce_in_opmath(d, reduction)


@half_in_float32(float16=False)  # (PyTorch: float16 step by step, measured)
def _smooth_l1_kernel(a, b, reduction, beta):
    d = np.abs(np.subtract(a, b))
    return _reduce(np.where(d < beta, (0.5 / beta) * d * d, d - 0.5 * beta), reduction)


# ====================================================================== nll / cross entropy
def _nll_parts(target, weight, n_cls, dtype, ignore_index, check=True):
    """Safe class indices and per-element weights (0 where ignored; None means all ones).

    Targets >= n_cls are caught by the gather that follows (an IndexError); the common case
    (no negative ignore_index present) costs a single reduction.
    """
    t = target
    lo = t.min() if t.size else 0
    if ignore_index < 0 and lo >= 0:
        valid = None
    else:
        valid = t != ignore_index
        if valid.all():
            valid = None
        else:
            t = np.where(valid, t, 0)
            lo = t.min()
    if check and lo < 0:
        raise IndexError(f"Target {lo} is out of bounds.")
    if weight is None:
        w = None if valid is None else valid.astype(dtype)
    else:
        w = weight.astype(dtype, copy=False)[t]
        if valid is not None:
            w = w * valid
    return t, w


def _total_weight(t, w):
    return t.size if w is None else w.sum()


@half_in_float32
def _nll_kernel(x, target, weight, reduction, ignore_index):
    # x: (*lead, [N,] C, *d) with target (N, *d) or () -- lead dims come from batched rules
    nlead = x.ndim - target.ndim - 1
    cax = nlead + (1 if target.ndim else 0)
    try:
        t, w = _nll_parts(target, weight, x.shape[cax], x.dtype, ignore_index)
        if nlead == 0 and x.ndim == 2:
            picked = x[np.arange(t.shape[0]), t]
        else:
            idx = np.expand_dims(t, cax - nlead).reshape(
                (1,) * nlead + t.shape[:cax - nlead] + (1,) + t.shape[cax - nlead:])
            picked = np.take_along_axis(x, idx, axis=cax).squeeze(cax)
    except IndexError:
        bad = np.where(target != ignore_index, target, 0)
        bad = bad.min() if bad.min() < 0 else bad.max()
        raise IndexError(f"Target {bad} is out of bounds.") from None
    if reduction == "none":
        return -picked if w is None else -(picked * w)
    loss = picked if w is None else picked * w
    s = -loss.sum(axis=tuple(range(nlead, loss.ndim))) if loss.ndim > nlead else -loss
    if reduction == "sum":
        return s
    return s / np.asarray(_total_weight(t, w), x.dtype)


def _nll_backward_kernel(grad, target, weight, self_sizes, reduction, ignore_index):
    cax = 1 if target.ndim else 0
    # (the targets were checked by the forward)
    t, w = _nll_parts(target, weight, self_sizes[cax], grad.dtype, ignore_index, check=False)
    if reduction == "none":
        lead = grad.shape[:grad.ndim - target.ndim]
        g = grad
    else:
        lead = grad.shape
        g = grad.reshape(lead + (1,) * target.ndim)
        if reduction == "mean":
            g = g / np.asarray(_total_weight(t, w), grad.dtype)
    vals = np.negative(g) if w is None else -(g * w)
    out = np.zeros(lead + tuple(self_sizes), grad.dtype)
    if not lead and len(self_sizes) == 2:
        out[np.arange(t.shape[0]), t] = vals
    else:
        vals = np.broadcast_to(vals, lead + t.shape)
        nl = len(lead)
        idx = np.broadcast_to(np.expand_dims(t, cax), lead + np.expand_dims(t, cax).shape)
        np.put_along_axis(out, idx, np.expand_dims(vals, nl + cax), axis=nl + cax)
    return out
