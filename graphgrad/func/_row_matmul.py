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

``RowLinear`` is the whole ``F.linear`` of such an example (vmap's rule for the composite,
``linear_rule``): one node instead of transpose, product, bias add and reshape.
"""
from __future__ import annotations

import numpy as np

from .._core.state import tls
from .._tensor.tensor import Tensor
from ..autograd.function import Function
from ._batching import COMPOSITE_RULES, _phys, _wrap as _bwrap

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


# ---------------------------------------------------------------- F.linear on one example
class RowLinear(Function):
    """``F.linear`` of one example per batch entry with a batched weight: ``x`` ``[B, K]``
    (or ``[B, 1, K]``), ``w`` ``[B, N, K]``, ``b`` ``[B, N]``, ``[N]`` or None -> ``[B, N]``
    (``[B, 1, N]``) -- one node where the batched ops would make four (transpose, product,
    bias add, reshape), with the weight's gradient written in its layout by one einsum."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        xd = x._data
        B = xd.shape[0]
        out = np.matmul(xd.reshape(B, 1, -1), np.swapaxes(w._data, -1, -2))
        if b is not None:
            out += b._data.reshape(b._data.shape[0] if b._data.ndim == 2 else 1, 1, -1)
        return _wrap(out.reshape(xd.shape[:-1] + (w._data.shape[1],)))

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        B = x._data.shape[0]
        if tls.grad_enabled:   # create_graph: table ops, differentiable again
            g2, x2 = g.reshape(B, -1), x.reshape(B, -1)
            gx = (g2.unsqueeze(1) @ w).reshape(x.shape) if need_x else None
            gw = g2.unsqueeze(2) * x2.unsqueeze(1) if need_w else None
        else:
            gd = g._data.reshape(B, -1)
            gx = _wrap(np.matmul(gd[:, None, :], w._data).reshape(x._data.shape)) \
                if need_x else None
            gw = _wrap(np.einsum("bn,bk->bnk", gd, x._data.reshape(B, -1))) if need_w else None
        gb = None
        if need_b:
            gb = g.reshape(B, -1)
        return gx, gw, gb


def linear_rule(args, kwargs, lv):
    """vmap's rule for ``F.linear(input, weight, bias)`` when it is one example's Linear
    inside ``vmap(grad(f))``: input ``(K,)`` or ``(1, K)`` per example, weight batched and
    differentiated; anything else (NotImplemented) takes the ops' own rules."""
    if kwargs:
        if set(kwargs) != {"bias"} or len(args) != 2:
            return NotImplemented
        args = args + (kwargs["bias"],)
    if len(args) == 2:
        args = args + (None,)
    if len(args) != 3 or not tls.grad_enabled or tls.fw_level is not None:
        return NotImplemented
    x, w, b = args
    level = lv.level
    px, pw = _phys(x, level), _phys(w, level)
    if px is None or pw is None or px.__class__ is not Tensor or pw.__class__ is not Tensor \
            or not pw._requires_grad:
        return NotImplemented
    xs, ws = x._data.shape, w._data.shape
    if len(ws) != 2 or not (len(xs) == 1 or (len(xs) == 2 and xs[0] == 1)) or xs[-1] != ws[1]:
        return NotImplemented
    dt = pw._data.dtype
    if dt.kind != "f" or px._data.dtype != dt:
        return NotImplemented
    if b is not None:
        pb = _phys(b, level)
        if pb is None:   # an unbatched bias: only a constant one
            if b.__class__ is not Tensor or b._requires_grad or b._data.shape != ws[:1]:
                return NotImplemented
            pb = b
        elif pb.__class__ is not Tensor or pb._data.shape[1:] != ws[:1]:
            return NotImplemented
        if pb._data.dtype != dt:
            return NotImplemented
        b = pb
    return _bwrap(RowLinear.apply(px, pw, b), level)


COMPOSITE_RULES["linear"] = linear_rule
