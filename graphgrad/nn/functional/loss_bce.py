"""Losses: binary cross entropy (logs clamped at -100, as PyTorch's kernel) and its logits
form (the softplus form, with pos_weight), table ops with PyTorch's nodes.
"""
from __future__ import annotations

import numpy as np

from ..._core import dtypes as _dtype
from ..._core.dtypes import scalar_type_name
from ...ops.dispatch import dispatch
from ._utils import _no_grad_arg, _real_floating, _reduction, _tensor_arg
from ...ops.derivatives.nn_loss_bce import BCE_WITH_LOGITS, BINARY_CROSS_ENTROPY
from ...ops.interpose import interposable


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
