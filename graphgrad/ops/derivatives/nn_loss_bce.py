"""The table, nn_loss_bce family: binary cross entropy and its logits form.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_loss_bce.py, public functions in nn/functional/loss_bce.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from ..kernels.nn_utils import _reduce
from .nn_utils import _reduce_last, _reduced_grad
from ..kernels.nn_loss_bce import _bce_kernel, _bcel_kernel, _clamp_low, _log_pair, _softplus_neg


# ============================================================ binary_cross_entropy
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


# ============================================================ binary_cross_entropy_with_logits
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
