"""The table, nn_loss_extra family: huber_loss and the distances' helpers.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_loss_extra.py, public functions in nn/functional/loss_extra.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..._core.opmath import half_in_float32
from ..registry import defop
from .nn_utils import _pair_loss_batched, _reduced_grad
from ..kernels.nn_utils import _reduce
from ..kernels.nn_loss_extra import _huber_kernel


# ====================================================================== huber
def _huber_dx(self, target, delta):
    """d loss / d self elementwise: clamp(self - target, -delta, delta)."""
    d = self - target
    s = F.sign(d) * delta
    return F.where(F.abs(d) < delta, d, F.where(d != d, d, s))


def _huber_vjp(grad, self, target, reduction, delta):
    dx = _huber_dx(self, target, delta)
    return _reduced_grad(grad, reduction, F.shape(dx)) * dx


HUBER_LOSS = defop(
    "huber_loss(self, target, *, reduction, delta)", _huber_kernel, "HuberLossBackward0",
    promote=True,
    self=half_in_float32(_huber_vjp),
    target=half_in_float32(lambda grad, self, target, reduction, delta:
                           -_huber_vjp(grad, self, target, reduction, delta)),
    jvp=lambda self_t, target_t, self, target, reduction, delta:
        _reduce(_huber_dx(self, target, delta) * (self_t - target_t), reduction),
    batched_jvp=lambda self_t, target_t, self, target, reduction, delta:
        _pair_loss_batched(_huber_dx(self, target, delta), self_t, target_t, self, target,
                           reduction))
