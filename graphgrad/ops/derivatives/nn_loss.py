"""The table, nn_loss family: mse, l1, smooth_l1, nll losses.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_loss.py, public functions in nn/functional/loss.py.
"""
from __future__ import annotations

import math

from .. import formulas as F
from ..registry import defop
from .nn_utils import _pair_loss_batched, _reduced_grad
from ..kernels.nn_utils import _reduce
from ..kernels.nn_loss import _mse_kernel, _nll_backward_kernel, _nll_kernel, _smooth_l1_kernel


# ====================================================================== regression losses
def _mse_vjp(grad, self, target, reduction):
    d = self - target
    return (2 * _reduced_grad(grad, reduction, F.shape(d))) * d


def _mse_jvp(self_t, target_t, self, target, reduction):
    # PyTorch's: the two inputs' terms apart (inf - inf is NaN where a difference of
    # tangents would not be; a missing tangent's zero counts too, inf * 0 is NaN)
    d2 = 2 * (self - target)
    return _reduce(d2 * self_t - d2 * target_t, reduction)


MSE_LOSS = defop("mse_loss(self, target, *, reduction)", _mse_kernel, "MseLossBackward0",
                 promote=True,
                 self=_mse_vjp,
                 target=lambda grad, self, target, reduction: -_mse_vjp(grad, self, target,
                                                                        reduction),
                 jvp=_mse_jvp,
                 batched_jvp=lambda self_t, target_t, self, target, reduction:
                     _pair_loss_batched(2 * (self - target), self_t, target_t, self, target,
                                        reduction))


def _smooth_l1_dx(self, target, beta):
    """d loss / d self elementwise: clamp((self - target) / beta, -1, 1)."""
    d = self - target
    # beyond |d| < beta the derivative is the constant sign(d) (NaN stays NaN): so the
    # second derivative is 0 at |d| == beta and at NaN, as PyTorch's double backward
    s = F.sign(d)
    return F.where(F.abs(d) < beta, d / beta, F.where(d != d, s * math.nan, s))


def _smooth_l1_vjp(grad, self, target, reduction, beta):
    dx = _smooth_l1_dx(self, target, beta)
    return _reduced_grad(grad, reduction, F.shape(dx)) * dx


SMOOTH_L1_LOSS = defop(
    "smooth_l1_loss(self, target, *, reduction, beta)", _smooth_l1_kernel,
    "SmoothL1LossBackward0", promote=True,
    self=_smooth_l1_vjp,
    target=lambda grad, self, target, reduction, beta:
        -_smooth_l1_vjp(grad, self, target, reduction, beta),
    jvp=lambda self_t, target_t, self, target, reduction, beta:
        _reduce(_smooth_l1_dx(self, target, beta) * (self_t - target_t), reduction),
    batched_jvp=lambda self_t, target_t, self, target, reduction, beta:
        _pair_loss_batched(_smooth_l1_dx(self, target, beta), self_t, target_t, self, target,
                           reduction))


# ====================================================================== nll / cross entropy
def _nll_vjp(grad, target, weight, self_sym_sizes, reduction, ignore_index):
    return F.nll_loss_backward(grad, target, weight, tuple(self_sym_sizes), reduction,
                               ignore_index)


NLL_LOSS = defop("nll_loss(self, target, weight, *, reduction, ignore_index)", _nll_kernel,
                 "NllLossBackward0", self=_nll_vjp,
                 jvp=lambda self_t, target, weight, reduction, ignore_index:
                     F.nll_loss(self_t, target, weight, reduction, ignore_index), batched_jvp=True)
NLL_LOSS2D = defop("nll_loss2d(self, target, weight, *, reduction, ignore_index)", _nll_kernel,
                   "NllLoss2DBackward0", self=_nll_vjp,
                   jvp=lambda self_t, target, weight, reduction, ignore_index:
                       F.nll_loss(self_t, target, weight, reduction, ignore_index),
                   batched_jvp=True)
# linear in grad_output: its adjoint is nll_loss itself (same weights and normalisation)
NLL_LOSS_BACKWARD = defop(
    "nll_loss_backward(grad_output, target, weight, *, self_sizes, reduction, ignore_index)",
    _nll_backward_kernel, "NllLossBackwardBackward0",
    grad_output=lambda grad, target, weight, reduction, ignore_index:
        F.nll_loss(grad, target, weight, reduction, ignore_index),
    jvp=lambda grad_output_t, target, weight, self_sizes, reduction, ignore_index:
        F.nll_loss_backward(grad_output_t, target, weight, self_sizes, reduction, ignore_index),
    batched_jvp=True)
