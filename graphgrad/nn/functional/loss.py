"""Losses: mse, l1, smooth_l1, nll, cross_entropy (log_softmax then nll_loss); binary
cross entropy (logs clamped at -100) and its logits form (the softplus form) are in
loss_bce.py, re-exported here.
"""
from __future__ import annotations

import warnings
import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch, _broadcast_error
from ...ops.api.views import _renamed
from ...ops.api.pointwise_unary import abs as _abs
from ...ops.api.shape import expand as _expand
from ._utils import (
    _tensor_arg, _type_name, _real_floating, _real_floating_pair, _no_grad_arg, _reduction)
from ...ops.derivatives.nn_softmax import LOG_SOFTMAX
from ...ops.derivatives.nn_loss_bce import BCE_WITH_LOGITS, BINARY_CROSS_ENTROPY  # noqa: F401
from .loss_bce import binary_cross_entropy, binary_cross_entropy_with_logits  # noqa: F401 (re-exported)
from ...ops.derivatives.nn_loss import MSE_LOSS, NLL_LOSS, NLL_LOSS2D, SMOOTH_L1_LOSS

from ...ops.interpose import interposable

# ====================================================================== regression losses
def _size_warning(input, target):
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", UserWarning, stacklevel=3)


def _broadcast_pair(fname, input, target):
    """PyTorch's mse/l1/smooth_l1 losses broadcast input and target against each other first
    (broadcast_tensors): an ExpandBackward0 node for the operand that grows, which then
    takes part in the dtype promotion like any sized tensor (a float64 0-d target makes a
    float32 input's loss float64)."""
    si, st = input._data.shape, target._data.shape
    if si == st:
        return input, target
    try:
        shape = np.broadcast_shapes(si, st)
    except ValueError:
        raise _broadcast_error(fname, (si, st)) from None
    expand = _expand
    return (input if si == shape else expand(input, shape),
            target if st == shape else expand(target, shape))


def _weighted_reduce(loss, weight, reduction):
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum()


def _check_loss_weight(input, weight):
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


@interposable("mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``mse_loss(input, target, ..., reduction='mean', weight=None)``: mean((input -
    target)^2) (MseLossBackward0); with ``weight``, sum(w (x - y)^2) / sum(w) for 'mean'."""
    _tensor_arg("mse_loss", input)
    _tensor_arg("mse_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair("mse_loss", input, target)
    if weight is not None:
        _check_loss_weight(input, weight)
        d = input - target
        return _weighted_reduce(d ** 2, weight, reduction)
    _real_floating_pair("mse_cpu", input, target)
    return dispatch(MSE_LOSS, input, target, reduction)


@interposable("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``l1_loss(input, target, ..., reduction='mean', weight=None)``: mean(|input - target|)
    (composite: SubBackward0, AbsBackward0, then the reduction, as in PyTorch)."""
    _tensor_arg("l1_loss", input)
    _tensor_arg("l1_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair("l1_loss", input, target)
    a = _abs(input - target)
    if weight is not None:
        _check_loss_weight(input, weight)
        return _weighted_reduce(a, weight, reduction)
    return a if reduction == "none" else (a.sum() if reduction == "sum" else a.mean())


@interposable("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``smooth_l1_loss(input, target, ..., reduction='mean', beta=1.0)``: 0.5 d^2 / beta for
    |d| < beta, else |d| - beta / 2 (SmoothL1LossBackward0); l1_loss when beta == 0."""
    _tensor_arg("smooth_l1_loss", input)
    _tensor_arg("smooth_l1_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _broadcast_pair("smooth_l1_loss", input, target)
    _real_floating_pair("smooth_l1_cpu", input, target)
    return dispatch(SMOOTH_L1_LOSS, input, target, reduction, float(beta))


# ====================================================================== nll / cross entropy
def _check_target_dtype(target):
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_name(target)}")


def _check_nll_args(fname, input, target, weight):
    _tensor_arg(fname, input)
    _tensor_arg(fname, target, "target", 2)
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    _check_target_dtype(target)
    ishape, tshape = input._data.shape, target._data.shape
    if nd == 1:
        if len(tshape) == 1 and tshape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{tshape[0]}")
        if tshape not in ((), (1,)):
            raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported "
                               f"(input of shape {list(ishape)} needs a 0-d target, got "
                               f"{list(tshape)})")
    else:
        if not tshape or ishape[0] != tshape[0]:
            raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target "
                             f"batch_size ({tshape[0] if tshape else 0}).")
        if tshape != ishape[:1] + ishape[2:]:
            raise RuntimeError(f"Expected target size {list(ishape[:1] + ishape[2:])}, got "
                               f"{list(tshape)}")
    C = ishape[0 if nd == 1 else 1]
    if weight is not None:
        if weight._data.ndim != 1 or weight._data.shape[0] != C:
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or "
                               f"no classes but got weight tensor of shape: "
                               f"{list(weight._data.shape)}")
        _no_grad_arg("nll_loss_forward", "weight", weight)
    _real_floating("nll_loss_forward_out_frame", input)
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
                           f"{scalar_type_name(weight._data.dtype)} [{fname}: convert the "
                           "weight with weight.to(input.dtype)]")


@interposable("nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``nll_loss(input, target, weight=None, ..., ignore_index=-100, reduction='mean')``:
    -input[n, target[n]] (weighted), for (C,), (N, C) and (N, C, d1, ...) inputs
    (NllLossBackward0, or NllLoss2DBackward0 for K-dim inputs)."""
    _check_nll_args("nll_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    op = NLL_LOSS if input._data.ndim <= 2 else NLL_LOSS2D
    return dispatch(op, input, target, weight, reduction, int(ignore_index))


def _class_view(t, nd, cax):
    """A (C,) tensor viewed to broadcast along the class dim of an ``nd``-d input."""
    shape = [1] * nd
    shape[cax] = t._data.shape[0]
    return t.view(tuple(shape)) if nd != 1 else t


@interposable("cross_entropy_loss")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``cross_entropy(input, target, weight=None, ..., ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``.

    Class-index targets: ``nll_loss(log_softmax(input, 1), target)`` (NllLossBackward0 after
    LogSoftmaxBackward0, as in PyTorch).  Class-probability targets (a float tensor shaped
    like ``input``): ``-sum(target * log_softmax(input))`` per element.  Inputs are (C,),
    (N, C) or (N, C, d1, ...); the class dim is 1 (0 for a 1-D input).
    """
    _tensor_arg("cross_entropy", input)
    _tensor_arg("cross_entropy", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    cax = 0 if nd == 1 else 1
    C = input._data.shape[cax]
    if target._data.shape == input._data.shape:  # PyTorch decides by shape, then the dtype
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {scalar_type_name(target.dtype)}")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, cax, C)
    _check_nll_args("cross_entropy", input, target, weight)
    lsm = dispatch(LOG_SOFTMAX, input, cax - nd)
    if label_smoothing == 0.0:
        op = NLL_LOSS if nd <= 2 else NLL_LOSS2D
        return dispatch(op, lsm, target, weight, reduction, int(ignore_index))
    # (1 - eps) * nll + eps / C * (-sum_c w_c log p_c), ignored targets contributing 0
    nll = dispatch(NLL_LOSS if nd <= 2 else NLL_LOSS2D, lsm, target, weight, reduction,
                   int(ignore_index))
    if weight is not None:
        smooth = -(lsm * _class_view(weight, nd, cax)).sum(cax)
    else:
        smooth = -lsm.sum(cax)
    valid = target._data != ignore_index
    if not valid.all():
        smooth = F.where(Tensor._wrap(valid), smooth, 0.0)
    if reduction == "none":
        ret = smooth
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        tv = target._data[valid]
        denom = tv.size if weight is None else weight._data[tv].sum()
        ret = smooth.sum() / float(denom)
    return nll * (1.0 - label_smoothing) + ret * (label_smoothing / C)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, cax, C):
    if weight is not None:
        if weight._data.ndim != 1 or weight._data.shape[0] != C:
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or "
                               f"no classes but got weight tensor of shape: "
                               f"{list(weight._data.shape)}")
    _real_floating("log_softmax_lastdim_kernel_impl", input)
    nd = input._data.ndim
    lsm = dispatch(LOG_SOFTMAX, input, cax - nd)
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / C
    prod = lsm * target
    if weight is not None:
        prod = prod * _class_view(weight, nd, cax)
    if reduction == "none":
        return -prod.sum(cax)
    if reduction == "sum":
        return -prod.sum()
    n = input._data.size // C if C else 0
    out = -prod.sum() / n
    if out._grad_fn is not None:  # PyTorch divides by the count as a Scalar: div.Scalar
        _renamed(out._grad_fn, "DivBackward1")
    return out
