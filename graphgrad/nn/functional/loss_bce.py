"""Losses: binary cross entropy (logs clamped at -100, as PyTorch's kernel) and its logits
form (the softplus form, with pos_weight), table ops with PyTorch's nodes.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ..._core.opmath import BFLOAT16, FLOAT16
from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ...ops.registry import defop
from ._utils import (_no_grad_arg, _real_floating, _reduce, _reduce_in_opmath, _reduce_last,
                     _reduced_grad, _reduction, _tensor_arg)
from ...ops.interpose import interposable


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


def _bce_dself(self, target, weight):
    d = _clamp_low((1 - self) * self, 1e-12)
    r = (self - target) / d
    return r if weight is None else r * weight


def _bce_dtarget(self, weight):
    lx, l1x = _log_pair(self)
    r = l1x - lx
    return r if weight is None else r * weight


BINARY_CROSS_ENTROPY = defop(
    "binary_cross_entropy(self, target, weight, *, reduction)", _bce_kernel,
    "BinaryCrossEntropyBackward0",
    self=lambda grad, self, target, weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bce_dself(self, target, weight),
    target=lambda grad, self, weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bce_dtarget(self, weight),
    jvp=lambda self_t, target_t, self, target, weight, reduction:
        _reduce(self_t * _bce_dself(self, target, weight)
                + target_t * _bce_dtarget(self, weight), reduction),
    batched_jvp=lambda self_t, target_t, self, target, weight, reduction:
        _reduce_last(self_t * _bce_dself(self, target, weight)
                     + target_t * _bce_dtarget(self, weight), reduction, F.ndim(self)))


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


def _bcel_dself(self, target, weight, pos_weight):
    s = F.sigmoid(self)
    r = s - target if pos_weight is None else (1 + (pos_weight - 1) * target) * s - \
        pos_weight * target
    return r if weight is None else r * weight


def _bcel_dtarget(self, weight, pos_weight):
    r = -self if pos_weight is None else (pos_weight - 1) * _softplus_neg(self) - self
    return r if weight is None else r * weight


BCE_WITH_LOGITS = defop(
    "binary_cross_entropy_with_logits(self, target, weight, pos_weight, *, reduction)",
    _bcel_kernel, "BinaryCrossEntropyWithLogitsBackward0",
    self=lambda grad, self, target, weight, pos_weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bcel_dself(self, target, weight,
                                                                   pos_weight),
    target=lambda grad, self, weight, pos_weight, reduction:
        _reduced_grad(grad, reduction, F.shape(self)) * _bcel_dtarget(self, weight, pos_weight),
    jvp=lambda self_t, target_t, self, target, weight, pos_weight, reduction:
        _reduce(self_t * _bcel_dself(self, target, weight, pos_weight)
                + target_t * _bcel_dtarget(self, weight, pos_weight), reduction),
    batched_jvp=lambda self_t, target_t, self, target, weight, pos_weight, reduction:
        _reduce_last(self_t * _bcel_dself(self, target, weight, pos_weight)
                     + target_t * _bcel_dtarget(self, weight, pos_weight), reduction,
                     F.ndim(self)))


def _same_float(t, like):
    if t is None or t._data.dtype == like._data.dtype:
        return t
    return t.to(like.dtype)


def _expandable(fname, w, shape):
    if w is None:
        return
    try:
        ok = np.broadcast_shapes(w._data.shape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"{fname}: the size of weight {list(w._data.shape)} must be "
                           f"broadcastable to the target size {list(shape)}")


@interposable("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``binary_cross_entropy(input, target, weight=None, ..., reduction='mean')``:
    -w (t log x + (1 - t) log(1 - x)), logs clamped at -100 (BinaryCrossEntropyBackward0)."""
    _tensor_arg("binary_cross_entropy", input)
    _tensor_arg("binary_cross_entropy", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    _real_floating("binary_cross_entropy", input)
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name(target._data.dtype)} but expected "
                           f"{scalar_type_name(input._data.dtype)} [binary_cross_entropy: "
                           "convert the target with target.to(input.dtype)]")
    _no_grad_arg("binary_cross_entropy", "weight", weight)
    _expandable("binary_cross_entropy", weight, input._data.shape)
    return dispatch(BINARY_CROSS_ENTROPY, input, target, _same_float(weight, input), reduction)


@interposable("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``binary_cross_entropy_with_logits(input, target, weight=None, ..., reduction='mean',
    pos_weight=None)``: (1 - t) x + (1 + (pw - 1) t) softplus(-x), weighted
    (BinaryCrossEntropyWithLogitsBackward0)."""
    _tensor_arg("binary_cross_entropy_with_logits", input)
    _tensor_arg("binary_cross_entropy_with_logits", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _real_floating("binary_cross_entropy_with_logits", input)
    _no_grad_arg("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_arg("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    _expandable("binary_cross_entropy_with_logits", weight, input._data.shape)
    _expandable("binary_cross_entropy_with_logits", pos_weight, input._data.shape)
    rt = _dtype.result_type(input, target)
    if rt.np != input._data.dtype:  # (PyTorch promotes to a float64 target, not to weights)
        input = input.to(rt)
    return dispatch(BCE_WITH_LOGITS, input, _same_float(target, input),
                    _same_float(weight, input), _same_float(pos_weight, input), reduction)
