"""Margin losses for graphgrad.nn.functional: soft_margin_loss (a table op,
SoftMarginLossBackward0), multi_margin_loss (MultiMarginLossBackward0),
multilabel_margin_loss (MultilabelMarginLossBackward0), and the composites PyTorch builds from
differentiable ops, with its nodes: multilabel_soft_margin_loss, hinge_embedding_loss,
triplet_margin_loss and triplet_margin_with_distance_loss.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ...ops.dispatch import dispatch
from ...ops.api.views import _renamed
from ...ops.api.comparison import where as _where
from ...ops.api.pointwise_binary import minimum as _minimum
from ...ops.interpose import all_values, interposable
from ._utils import (_apply_reduction, _no_grad_arg, _real_floating, _reduction, _tensor_arg,
                     _type_name)
from .activation_extra import logsigmoid
from .loss_extra import pairwise_distance
from ...ops.derivatives.nn_loss_margin import (MULTI_MARGIN_LOSS, MULTILABEL_MARGIN_LOSS,
                                               SOFT_MARGIN_LOSS)

__all__ = ["soft_margin_loss", "multilabel_soft_margin_loss", "hinge_embedding_loss",
           "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


def _name(node_owner, name):
    if node_owner.grad_fn is not None:
        _renamed(node_owner.grad_fn, name)
    return node_owner


def _broadcast_to_input(fname, input, target):
    """PyTorch's in-place ``input_op.mul_(target)`` form: the target broadcasts to the
    input's shape (not the other way round)."""
    si, st = input._data.shape, target._data.shape
    try:
        ok = np.broadcast_shapes(si, st) == si
    except ValueError:
        ok = False
    if not ok:
        a = si[-1] if si else 1
        b = st[-1] if st else 1
        raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                           f"at non-singleton dimension [{fname}: the target {list(st)} must "
                           f"broadcast to the input's shape {list(si)}]")


# ====================================================================== soft margin
@interposable("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``soft_margin_loss(input, target, ..., reduction='mean')``: log(1 + exp(-y x))
    (SoftMarginLossBackward0); the target broadcasts to the input, the loss has the
    input's dtype."""
    _tensor_arg("soft_margin_loss", input)
    _tensor_arg("soft_margin_loss", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    _broadcast_to_input("soft_margin_loss", input, target)
    if input._data.dtype.kind not in "fV" or input.dtype.is_complex:
        if target._data.dtype.kind == "c" or input._data.dtype.kind == "c":
            raise NotImplementedError(f'"soft_margin_loss" not implemented for '
                                      f"'{_type_name(input)}'")
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_type_name(input)} [soft_margin_loss: convert the input with "
                           ".float()]")
    _no_grad_arg("soft_margin_loss", "target", target)
    if target._data.dtype != input._data.dtype and not (
            target._data.dtype == np.float64 and input._data.dtype.kind in "fV"):
        target = target.to(input.dtype)     # (a float64 target multiplies in float64)
    return dispatch(SOFT_MARGIN_LOSS, input, target, reduction)


# ====================================================================== multilabel soft margin
@interposable("multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """``multilabel_soft_margin_loss(input, target, weight=None, ..., reduction='mean')``:
    -(y logsigmoid(x) + (1 - y) logsigmoid(-x)) (weighted), averaged over the last (class)
    dim (composite, as PyTorch's)."""
    _tensor_arg("multilabel_soft_margin_loss", input)
    _tensor_arg("multilabel_soft_margin_loss", target, "target", 2)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


# ====================================================================== hinge embedding
@interposable("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``hinge_embedding_loss(input, target, margin=1.0, ..., reduction='mean')``: x where
    y == 1, max(0, margin - x) where y == -1 (summed where y is neither; composite, as
    PyTorch's)."""
    _tensor_arg("hinge_embedding_loss", input)
    _tensor_arg("hinge_embedding_loss", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    zeros = Tensor._wrap(np.zeros_like(input._data))
    # (PyTorch's C++ ``margin - self``: the margin in the input's dtype)
    margin_clamp = (Tensor._wrap(np.full_like(input._data, margin)) - input).clamp_min_(0)
    output_margin = _where(target != 1, margin_clamp, zeros)
    output_self = _where(target != -1, input, zeros)
    return _apply_reduction(output_margin + output_self, reduction)


# ====================================================================== multi margin
def _long_target(target):
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target)}")


def _vector_or_matrix(input):
    nd = input._data.ndim
    if not (nd <= 1 or (nd == 2 and input._data.shape[1] != 0)) or \
            (nd == 1 and input._data.shape[0] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input._data.shape)}")


@interposable("multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """``multi_margin_loss(input, target, p=1, margin=1.0, weight=None, ...,
    reduction='mean')``: sum over j != y of w[y] max(0, margin - x[y] + x[j])^p / C
    (MultiMarginLossBackward0)."""
    _tensor_arg("multi_margin_loss", input)
    _tensor_arg("multi_margin_loss", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _vector_or_matrix(input)
    shape = input._data.shape
    N = shape[0] if len(shape) == 2 else 1
    C = shape[-1] if shape else 1
    tshape = target._data.shape
    if not ((len(tshape) == 1 and tshape[0] == N) or (len(shape) < 2 and tshape == ())):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{N}], but got {list(tshape)}. Input has shape {list(shape)}.")
    if weight is not None:
        if weight._data.shape[0] != C:
            raise RuntimeError(f"inconsistent weight size, expected {C} but got "
                               f"{list(weight._data.shape)}")
        _no_grad_arg("multi_margin_loss", "weight", weight)
    _long_target(target)
    _real_floating("multi_margin_cpu_kernel", input)
    if input.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f'"multi_margin_loss_cpu_kernel" not implemented for '
                                  f"'{_type_name(input)}'")
    t = all_values(target._data)    # (under vmap: every example's targets)
    if t.size and (t.min() < 0 or t.max() >= C):
        raise RuntimeError(f"target out of range [multi_margin_loss: targets must be class "
                           f"indices in [0, {C}), got values in [{t.min()}, {t.max()}]]")
    if weight is not None and weight._data.dtype != input._data.dtype:
        weight = weight.to(input.dtype)
    return dispatch(MULTI_MARGIN_LOSS, input, target, weight, int(p), float(margin), reduction)


# ====================================================================== multilabel margin
@interposable("multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``multilabel_margin_loss(input, target, ..., reduction='mean')``: for each target
    class y (the entries of a target row before its first -1) and each non-target class j,
    max(0, 1 - (x[y] - x[j])), summed and divided by C (MultilabelMarginLossBackward0)."""
    _tensor_arg("multilabel_margin_loss", input)
    _tensor_arg("multilabel_margin_loss", target, "target", 2)
    reduction = _reduction(size_average, reduce, reduction)
    _vector_or_matrix(input)
    shape, tshape = input._data.shape, target._data.shape
    if tshape != shape:
        raise RuntimeError(f"inconsistent target size: {list(tshape)} for input of size: "
                           f"{list(shape)}")
    _long_target(target)
    _real_floating("multilabel_margin_loss_forward_out_frame", input)
    if input.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f'"multilabel_margin_loss_forward_out_frame" not implemented '
                                  f"for '{_type_name(input)}'")
    C = shape[-1] if shape else 1
    t = all_values(target._data)
    if t.size and (t.min() < -1 or t.max() >= C):
        raise RuntimeError(f"argument #2 'target' is out of range [multilabel_margin_loss: "
                           f"targets must be class indices in [0, {C}) or -1, got values in "
                           f"[{t.min()}, {t.max()}]]")
    return dispatch(MULTILABEL_MARGIN_LOSS, input, target, reduction)


# ====================================================================== triplet losses
def _check_margin(margin):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{p}D, and negative {n}D inputs")


def _triplet(dist_pos, dist_neg, dist_swap, margin, reduction, scalar_margin_node):
    if dist_swap is not None:
        dist_neg = _minimum(dist_neg, dist_swap)
    out = margin + dist_pos
    if scalar_margin_node:
        _name(out, "AddBackward1")      # (PyTorch's at::triplet_margin_loss adds a Scalar)
    return _apply_reduction((out - dist_neg).clamp_min(0), reduction)


@interposable("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,
    swap=False, ..., reduction='mean')``: max(0, margin + d(a, p) - d(a, n)) with
    d = pairwise_distance (and d(a, n) = min(d(a, n), d(p, n)) with ``swap``)."""
    for i, (t, nm) in enumerate(((anchor, "anchor"), (positive, "positive"),
                                 (negative, "negative"))):
        _tensor_arg("triplet_margin_loss", t, nm, i + 1)
    reduction = _reduction(size_average, reduce, reduction)
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    d_swap = pairwise_distance(positive, negative, p, eps) if swap else None
    return _triplet(d_pos, d_neg, d_swap, margin, reduction, True)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``triplet_margin_with_distance_loss(anchor, positive, negative, *,
    distance_function=None, margin=1.0, swap=False, reduction='mean')``: as
    triplet_margin_loss with ``distance_function`` (default pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_margin(margin)
    _check_triplet_dims(anchor, positive, negative)
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    d_swap = dist(positive, negative) if swap else None
    return _triplet(d_pos, d_neg, d_swap, margin, reduction, False)

