"""One row per example times a batched matrix, ``[B, 1, K] @ [B, K, N]``: the product a
Linear layer makes on one example inside ``vmap(grad(f))`` (per-sample gradients), where
the weight is batched because every example differentiates its own copy.

Its gradient for the matrix is B outer products ``a[b]^T g[b]``.  The table's bmm computes
it with NumPy's matmul, whose inner dim is then 1 -- a slow path (milliseconds for a
64 x 128 x 64 float32 batch); ``np.einsum`` without ``optimize`` writes the same outer
products several times faster.  ``RowMatmul`` is the product with that backward; the
matrix's gradient comes out laid out like the matrix's own storage (a Linear's weight
arrives transposed), so no copy follows.  With ``create_graph`` (a Hessian) its backward
is made of table ops, so it is differentiable again.
"""
from __future__ import annotations

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..autograd.function import Function

_wrap = Tensor._wrap


class RowMatmul(Function):
    """``a @ b`` for ``a`` ``[B, 1, K]``, ``b`` ``[B, K, N]`` (plain tensors, same dtype)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _wrap(np.matmul(a._data, b._data))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        if tls.grad_enabled:   # create_graph: table ops, differentiable again
            ga = g @ b.mT if need_a else None
            gb = a.mT * g if need_b else None
            return ga, gb
        gd = g._data
        ga = _wrap(np.matmul(gd, np.swapaxes(b._data, -1, -2))) if need_a else None
        gb = None
        if need_b:
            ad, bs = a._data[:, 0], b._data.strides
            if bs[-2] < bs[-1]:   # b is a transposed view (x @ W.T): W's layout, [B, N, K]
                gb = _wrap(np.einsum("bn,bk->bnk", gd[:, 0], ad).swapaxes(-1, -2))
            else:
                gb = _wrap(np.einsum("bk,bn->bkn", ad, gd[:, 0]))
        return ga, gb


def row_matmul_applies(a, b):
    """Whether ``a @ b`` (physical operands of a batching rule) is the per-example
    row-times-matrix product that RowMatmul computes faster: plain 3-d float tensors of one
    dtype, ``a`` with one row, ``b`` differentiated, no forward-mode level (RowMatmul has no
    JVP) and grad mode on."""
    return (a.__class__ is Tensor and b.__class__ is Tensor and tls.grad_enabled
            and tls.fw_level is None and b._requires_grad
            and a._data.ndim == 3 and b._data.ndim == 3 and a._data.shape[1] == 1
            and a._data.dtype == b._data.dtype and a._data.dtype.kind == "f")
