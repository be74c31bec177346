"""NumPy kernels of the nn_loss_bce family: binary cross entropy and its logits form.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_loss_bce.py, the
public functions in nn/functional/loss_bce.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, FLOAT16
from ..._tensor.tensor import Tensor
from .. import formulas as F
from .nn_utils import _reduce, _reduce_in_opmath


def _clamp_low(x, lo):
    if isinstance(x, Tensor):
        return F.where(x > lo, x, lo)
    return np.maximum(x, lo)


def _log_pair(x):
    """(max(log x, -100), max(log(1 - x), -100)), PyTorch's clamped logs."""
    if isinstance(x, Tensor):
        return _clamp_low(F.log(x), -100.0), _clamp_low(F.log(1 - x), -100.0)
    return np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)


def _half_steps(dt):
    """Rounding to the half type ``dt`` after each step of a computation kept in float32:
    PyTorch's kernels that do their arithmetic on half-precision scalars (the binary cross
    entropies) round every intermediate result, not only the last."""
    f32 = np.float32
    return lambda v: np.asarray(v).astype(dt).astype(f32)


def _bce_kernel(x, t, w, reduction):
    if x.size and not ((x >= 0) & (x <= 1)).all():  # (NaN is not in [0, 1]: PyTorch raises)
        raise RuntimeError("all elements of input should be between 0 and 1")
    if x.dtype is FLOAT16 or x.dtype is BFLOAT16:
        dt, r = x.dtype, _half_steps(x.dtype)
        x, t = x.astype(np.float32), t.astype(np.float32)
        lx = np.maximum(r(np.log(x)), -100)
        l1x = np.maximum(r(np.log1p(-x)), -100)
        loss = r(r(r(t - 1) * l1x) - r(t * lx))
        if w is not None:
            loss = r(loss * w.astype(np.float32))
        return _reduce_in_opmath(loss.astype(dt), reduction)
    lx, l1x = _log_pair(x)
    loss = (t - 1) * l1x - t * lx
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)


def _softplus_neg(x):
    """log(1 + exp(-x)), stable."""
    if isinstance(x, Tensor):
        return F.softplus(-x, 1.0, 20.0)
    return np.logaddexp(0, -x)


def _bcel_kernel(x, t, w, pw, reduction):
    if x.dtype is FLOAT16 or x.dtype is BFLOAT16:
        # PyTorch composes it from ops that each round to the half type:
        # (1 - t) * x - ((pw - 1) * t + 1) * logsigmoid(x), times w
        dt, r = x.dtype, _half_steps(x.dtype)
        f = np.float32
        x, t = x.astype(f), t.astype(f)
        ls = r(-_softplus_neg(x))  # (logsigmoid: in float32, rounded once)
        if pw is not None:
            ls = r(r(r(r(pw.astype(f) - 1) * t) + 1) * ls)
        loss = r(r(r(1 - t) * x) - ls)
        if w is not None:
            loss = r(loss * w.astype(f))
        return _reduce_in_opmath(loss.astype(dt), reduction)
    sp = _softplus_neg(x)
    if pw is not None:
        sp = sp * (1 + (pw - 1) * t)
    loss = (1 - t) * x + sp
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)
