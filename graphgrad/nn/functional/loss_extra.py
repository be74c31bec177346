"""Losses and distances for graphgrad.nn.functional: huber_loss (a table op,
HuberLossBackward0), kl_div, cosine_similarity, pairwise_distance, cosine_embedding_loss,
margin_ranking_loss (composites of differentiable ops, as PyTorch's are; the top node is
PyTorch's: e.g. pairwise_distance's norm is NormBackward1, PyTorch's at::norm).
"""
from __future__ import annotations

import warnings
import numpy as np

from ... import linalg
from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor, _wrap_dim
from ...autograd.grad_mode import no_grad
from ...ops.dispatch import dispatch
from ...ops.registry import export
from ...ops.api.views import _renamed
from .loss import _broadcast_pair, _size_warning
from ...ops.api.comparison import where as _where
from ...ops.api.pointwise_binary import xlogy as _xlogy
from ._utils import _real_floating_pair, _reduction, _tensor_arg
from ...ops.kernels.nn_utils import _reduce
from ...ops.derivatives.nn_loss_extra import HUBER_LOSS

from ...ops.interpose import interposable

__all__ = ["huber_loss", "kl_div", "cosine_similarity", "pairwise_distance",
           "cosine_embedding_loss", "margin_ranking_loss"]


# ====================================================================== huber
@interposable("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``huber_loss(input, target, reduction='mean', delta=1.0, weight=None)``: 0.5 d^2 for
    |d| < delta, else delta (|d| - delta / 2) (HuberLossBackward0); with ``weight``, the
    elementwise loss times weight, reduced ('mean': divided by the element count)."""
    _tensor_arg("huber_loss", input)
    _tensor_arg("huber_loss", target, "target", 2)
    _size_warning(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta. "
                           f"[got delta={delta}]")
    input, target = _broadcast_pair("huber_loss", input, target)
    _real_floating_pair("huber_cpu", input, target)
    if weight is None:
        return dispatch(HUBER_LOSS, input, target, reduction, float(delta))
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = dispatch(HUBER_LOSS, input, target, "none", float(delta)) * weight
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


# ====================================================================== kl_div
@interposable("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``kl_div(input, target, ..., reduction='mean', log_target=False)`` with ``input`` log
    probabilities: target (log target - input) pointwise, as PyTorch's composite
    (xlogy(t, t) - t * input, or exp(t) (t - input) with log_target); 'batchmean' divides
    the sum by the batch size."""
    _tensor_arg("kl_div", input)
    _tensor_arg("kl_div", target, "target", 2)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, "mean")
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", UserWarning, stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for t in (input, target):
        if t._data.dtype.kind in "iub":
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - input)
    else:
        out = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        out = out.sum()
        if input.ndim != 0:
            out = out / input.shape[0]
        return out
    if reduction == "none":
        return out
    return out.sum() if reduction == "sum" else out.mean()


# ====================================================================== cosine / pairwise
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``cosine_similarity(x1, x2, dim=1, eps=1e-08)``: sum(x1 / ||x1|| * x2 / ||x2||) along
    ``dim`` after broadcasting; each norm clamped below at eps outside the graph, as PyTorch
    computes it (SumBackward1 on top)."""
    _tensor_arg("cosine_similarity", x1, "x1", 1)
    _tensor_arg("cosine_similarity", x2, "x2", 2)
    s1, s2 = x1._data.shape, x2._data.shape
    try:
        shape = np.broadcast_shapes(s1, s2)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({s1[-1] if s1 else 1}) must match the size "
                           f"of tensor b ({s2[-1] if s2 else 1}) at non-singleton dimension "
                           f"[cosine_similarity: x1 {list(s1)} and x2 {list(s2)} do not "
                           "broadcast]") from None
    common = _dtype.result_type(x1, x2)
    if not (common.is_floating_point or common.is_complex):
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_dtype.scalar_type_name(common)} [cosine_similarity: convert the "
                           "inputs with .float()]")
    if x1._data.shape != shape:
        x1 = x1.expand(shape)
    if x2._data.shape != shape:
        x2 = x2.expand(shape)
    d = _wrap_dim(dim, len(shape))
    n1 = linalg.vector_norm(x1, 2, d, True).clone()
    n2 = linalg.vector_norm(x2, 2, d, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(d)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False)``: ||x1 - x2 + eps||_p
    over the last dim (NormBackward1 <- AddBackward1 <- SubBackward0, as PyTorch)."""
    _tensor_arg("pairwise_distance", x1, "x1", 1)
    _tensor_arg("pairwise_distance", x2, "x2", 2)
    nd = max(x1._data.ndim, x2._data.ndim)
    diff = x1 - x2 + eps
    if diff.grad_fn is not None:
        _renamed(diff.grad_fn, "AddBackward1")   # (PyTorch adds the Scalar: add.Scalar)
    out = linalg.vector_norm(diff, p, nd - 1 if nd else None, keepdim)
    if out.grad_fn is not None:
        _renamed(out.grad_fn, "NormBackward1")   # (PyTorch's at::norm)
    return out


# ====================================================================== embedding losses
def _rank(t):
    return t._data.ndim


@interposable("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``cosine_embedding_loss(input1, input2, target, margin=0, ..., reduction='mean')``:
    1 - cos(x1, x2) where target == 1, max(0, cos - margin) where target == -1 (composite,
    as PyTorch's)."""
    for i, (t, name) in enumerate(((input1, "input1"), (input2, "input2"),
                                   (target, "target"))):
        _tensor_arg("cosine_embedding_loss", t, name, i + 1)
    reduction = _reduction(size_average, reduce, reduction)
    td = _rank(target)
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (_rank(input1) == 2 and _rank(input2) == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and not (_rank(input1) == 1 and _rank(input2) == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + eps
    mag2 = (input2 * input2).sum(td) + eps
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = Tensor._wrap(np.zeros_like(cos._data))
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    out = _where(target == 1, pos, zeros) + _where(target == -1, neg, zeros)
    return _reduce(out, reduction)


@interposable("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``margin_ranking_loss(input1, input2, target, margin=0, ..., reduction='mean')``:
    max(0, -target (input1 - input2) + margin) (composite, as PyTorch's)."""
    for i, (t, name) in enumerate(((input1, "input1"), (input2, "input2"),
                                   (target, "target"))):
        _tensor_arg("margin_ranking_loss", t, name, i + 1)
    reduction = _reduction(size_average, reduce, reduction)
    if not (_rank(input1) == _rank(input2) == _rank(target)):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    out = -target * (input1 - input2) + margin
    if out.grad_fn is not None:
        _renamed(out.grad_fn, "AddBackward1")   # (PyTorch adds the Scalar: add.Scalar)
    return _reduce(out.clamp_min_(0), reduction)


export("cosine_similarity", method=False)(cosine_similarity)
export("pairwise_distance", method=False)(pairwise_distance)
