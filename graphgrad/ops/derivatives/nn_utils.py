"""The table, nn_utils family: reduction helpers shared by the losses.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_utils.py, public functions in nn/functional/_utils.py.
"""
from __future__ import annotations

import math
import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..kernels.nn_utils import _reduce


# ====================================================================== helpers
def _sumk(x, dims):
    """Sum over (negative) ``dims`` keeping them; ndarray or Tensor."""
    if isinstance(x, Tensor):
        return F.sum_dim_IntList(x, tuple(dims), True, None)
    return x.sum(axis=tuple(dims), keepdims=True)


def _reduce_last(x, reduction, nd):
    """``_reduce`` over the last ``nd`` dims of ``x`` only: its leading dims are the batch of
    a batched tangent (the batched JVPs of the losses)."""
    lead = F.ndim(x) - nd
    if reduction == "none" or lead == 0:
        return _reduce(x, reduction)
    dims = tuple(range(lead, F.ndim(x)))
    if reduction == "sum":
        return F.sum_dim_IntList(x, dims, False, None)
    return F.mean_dim(x, dims, False, None)


def _bpad(t, x, nd):
    """The tangent ``t`` of ``x`` with singleton dims after its batch dims up to ``nd``."""
    return F.pad_batched(t, F.ndim(x), nd)


def _pair_loss_batched(dloss, self_t, target_t, self, target, reduction):
    """The batched JVP of a loss of ``self - target`` with elementwise derivative ``dloss``
    (input and target broadcast against each other)."""
    nd = len(np.broadcast_shapes(F.shape(self), F.shape(target)))
    # the two terms apart, as PyTorch's (see _mse_jvp)
    t = dloss * _bpad(self_t, self, nd) - dloss * _bpad(target_t, target, nd)
    return _reduce_last(t, reduction, nd)


def _reduced_grad(grad, reduction, sizes):
    """The gradient of a reduced loss broadcast against its ``sizes``-shaped elements."""
    if reduction == "none":
        return grad
    g = F.reshape_to(grad, (1,) * len(sizes), 0)
    if reduction == "mean":
        n = F.numel(sizes)
        g = F.div_count(g, n) if n else g * math.nan
    return g
