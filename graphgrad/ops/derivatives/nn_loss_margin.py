"""The table, nn_loss_margin family: soft_margin_loss (SoftMarginLossBackward0),
multi_margin_loss (MultiMarginLossBackward0) and multilabel_margin_loss
(MultilabelMarginLossBackward0).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_loss_margin.py, public functions in nn/functional/loss_margin.py.  As in
PyTorch, the two multi-class margin losses have no forward derivative and their backward
ops no derivative (a "NotImplemented" node that raises when differentiated).
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from .nn_utils import _reduce_last, _reduced_grad
from ..kernels.nn_utils import _reduce
from ..kernels.nn_loss_margin import (
    _multi_margin_backward_kernel, _multi_margin_kernel, _multilabel_margin_backward_kernel,
    _multilabel_margin_kernel, _soft_margin_backward_kernel, _soft_margin_kernel)


# ====================================================================== soft margin
def _soft_margin_dx(self, target):
    """d/dx log(1 + exp(-t x)) = -t sigmoid(-t x)."""
    return -target * F.sigmoid(-target * self)


def _soft_margin_d2x(self, target):
    """d^2/dx^2 log(1 + exp(-t x)) = t^2 s (1 - s), s = sigmoid(-t x)."""
    s = F.sigmoid(-target * self)
    return target * target * s * (1 - s)


SOFT_MARGIN_LOSS_BACKWARD = defop(
    "soft_margin_loss_backward(grad_output, self, target, *, reduction)",
    _soft_margin_backward_kernel, "SoftMarginLossBackwardBackward0",
    grad_output=lambda grad, self, target, reduction:
        _reduce_last(grad * _soft_margin_dx(self, target), reduction, F.ndim(self)),
    self=lambda grad, grad_output, self, target, reduction:
        grad * _reduced_grad(grad_output, reduction, F.shape(self)) *
        _soft_margin_d2x(self, target),
    jvp=lambda grad_output_t, self_t, grad_output, self, target, reduction:
        _reduced_grad(grad_output_t, reduction, F.shape(self)) * _soft_margin_dx(self, target)
        + _reduced_grad(grad_output, reduction, F.shape(self)) *
        _soft_margin_d2x(self, target) * self_t, batched_jvp=True)

SOFT_MARGIN_LOSS = defop(
    "soft_margin_loss(self, target, *, reduction)", _soft_margin_kernel,
    "SoftMarginLossBackward0",
    self=lambda grad, self, target, reduction:
        F.soft_margin_loss_backward(grad, self, target, reduction),
    jvp=lambda self_t, self, target, reduction:
        _reduce(self_t * _soft_margin_dx(self, target), reduction),
    batched_jvp=lambda self_t, self, target, reduction:
        _reduce_last(self_t * _soft_margin_dx(self, target), reduction, F.ndim(self)))


# ====================================================================== multi-class margins
def _not_implemented(name):
    def rule(grad):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


MULTI_MARGIN_LOSS_BACKWARD = defop(
    "multi_margin_loss_backward(grad_output, self, target, weight, *, p, margin, reduction)",
    _multi_margin_backward_kernel, "NotImplemented",
    grad_output=_not_implemented("multi_margin_loss_backward"),
    self=_not_implemented("multi_margin_loss_backward"))

MULTI_MARGIN_LOSS = defop(
    "multi_margin_loss(self, target, weight, *, p, margin, reduction)", _multi_margin_kernel,
    "MultiMarginLossBackward0",
    self=lambda grad, self, target, weight, p, margin, reduction:
        F.multi_margin_loss_backward(grad, self, target, weight, p, margin, reduction))

MULTILABEL_MARGIN_LOSS_BACKWARD = defop(
    "multilabel_margin_loss_backward(grad_output, self, target, *, reduction)",
    _multilabel_margin_backward_kernel, "NotImplemented",
    grad_output=_not_implemented("multilabel_margin_loss_backward"),
    self=_not_implemented("multilabel_margin_loss_backward"))

MULTILABEL_MARGIN_LOSS = defop(
    "multilabel_margin_loss(self, target, *, reduction)", _multilabel_margin_kernel,
    "MultilabelMarginLossBackward0",
    self=lambda grad, self, target, reduction:
        F.multilabel_margin_loss_backward(grad, self, target, reduction))
