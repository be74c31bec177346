"""Attention and bilinear maps for graphgrad.nn.functional: scaled_dot_product_attention
(PyTorch's math backend: matmuls and a softmax that gives 0 for fully masked rows) and
bilinear (one einsum over flattened batch dims, viewed back, plus the bias).  Both are
composites of differentiable ops, as PyTorch's are (its top nodes: UnsafeViewBackward0 /
MmBackward0 for attention, AddBackward0 / ViewBackward0 for bilinear).
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ...ops.registry import export
from ...ops.api.linalg import einsum as _einsum
from ...ops.api.comparison import logical_not as _logical_not
from ...ops.api.linalg import matmul as _matmul
from ...ops.api.comparison import where as _where
from ._utils import _tensor_arg, _type_name
from .dropout import dropout
from .softmax import softmax
from ...ops.interpose import interposable

__all__ = ["scaled_dot_product_attention", "bilinear"]


def _safe_softmax(attn):
    """softmax over the last dim; rows that are entirely -inf give 0 (not NaN), and no
    gradient, as PyTorch's _safe_softmax."""
    d = attn._data
    if attn.__class__ is not Tensor and d.size:
        # a Tensor subclass (vmap's BatchedTensor, whose _data is one example): the dead
        # rows found by the ops, for every example
        dead_t = (attn == float("-inf")).all(-1, keepdim=True).expand(tuple(attn.shape))
        return _where(dead_t, 0.0, softmax(_where(dead_t, 0.0, attn), -1))
    dead = np.isneginf(d).all(axis=-1, keepdims=True) if d.size else None
    if dead is None or not dead.any():
        return softmax(attn, -1)
    dead_t = Tensor._wrap(np.broadcast_to(dead, d.shape).copy())
    where = _where
    return where(dead_t, 0.0, softmax(where(dead_t, 0.0, attn), -1))


def _repeat_heads(t, r):
    """repeat_interleave(t, r, dim=-3): each key/value head serves r query heads."""
    s = tuple(t._data.shape)
    e = t.unsqueeze(-3).expand(s[:-2] + (r,) + s[-2:])
    return e.reshape(s[:-3] + (s[-3] * r,) + s[-2:])


@interposable("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
    is_causal=False, scale=None, enable_gqa=False)``: softmax(q k^T * scale + mask) v over
    (..., L, E) / (..., S, E) / (..., S, Ev) inputs.  ``attn_mask`` is a bool mask (True:
    attend) or an additive float mask; ``is_causal`` masks the upper triangle; the scale
    defaults to 1 / sqrt(E).  As PyTorch's math backend: q and k are each scaled by
    sqrt(scale), a fully masked row attends to nothing (zeros), dropout acts on the
    attention weights."""
    for i, (t, name) in enumerate(((query, "query"), (key, "key"), (value, "value"))):
        _tensor_arg("scaled_dot_product_attention", t, name, i + 1)
    qd, kd, vd = query._data, key._data, value._data
    if not (qd.dtype == kd.dtype == vd.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_type_name(query)} key.dtype: {_type_name(key)} and "
                           f"value.dtype: {_type_name(value)} instead.")
    if attn_mask is not None:
        if attn_mask._data.dtype not in (np.bool_, np.float32, qd.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {_type_name(attn_mask)} and  "
                               f"query.dtype: {_type_name(query)} instead.")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if qd.ndim < 2 or kd.ndim < 2 or vd.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention: query, key and value need at least 2 "
                           f"dims (..., L, E), got {list(qd.shape)}, {list(kd.shape)}, "
                           f"{list(vd.shape)}")
    if enable_gqa and qd.ndim >= 3 and kd.ndim >= 3 and qd.shape[-3] != kd.shape[-3]:
        hq, hk = qd.shape[-3], kd.shape[-3]
        if hq % hk or vd.shape[-3] != hk:
            raise RuntimeError(f"scaled_dot_product_attention: enable_gqa needs the query heads "
                               f"({hq}) to be a multiple of the key/value heads ({hk})")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    if qd.dtype.itemsize == 2 and qd.dtype.kind in "fV":
        # PyTorch's CPU kernels compute half-precision attention in float32
        f32 = _dtype.float32
        mask = attn_mask
        if mask is not None and mask._data.dtype != np.bool_:
            mask = mask.to(f32)
        r = scaled_dot_product_attention(query.to(f32), key.to(f32), value.to(f32), mask,
                                         dropout_p, is_causal, scale, enable_gqa)
        return r.to(query.dtype)
    L, S, E = qd.shape[-2], kd.shape[-2], qd.shape[-1]
    s = (1.0 / math.sqrt(E) if E else math.inf) if scale is None else float(scale)
    f = math.sqrt(s)
    q = query * f
    attn = _matmul(q, key.transpose(-2, -1) * f)
    mask = attn_mask
    if is_causal:
        mask = Tensor._wrap(np.tril(np.ones((L, S), bool)))
    if mask is not None:
        if mask._data.dtype == np.bool_:
            attn = attn.masked_fill(_logical_not(mask), -math.inf)
        else:
            attn = attn + mask
    attn = _safe_softmax(attn)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _matmul(attn, value)


@interposable("bilinear")
def bilinear(input1, input2, weight, bias=None):
    """``bilinear(input1, input2, weight, bias=None)``: y[..., o] = x1[..., i] W[o, i, j]
    x2[..., j] + b[o], one einsum over the flattened batch dims, viewed back (ViewBackward0;
    AddBackward0 with a bias)."""
    for i, (t, name) in enumerate(((input1, "input1"), (input2, "input2"),
                                   (weight, "weight"))):
        _tensor_arg("bilinear", t, name, i + 1)
    s1, s2, sw = input1._data.shape, input2._data.shape, weight._data.shape
    if len(s1) != len(s2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(s1)} and "
                           f"{len(s2)}")
    for d in range(len(s1) - 1):
        if s1[d] != s2[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{s1[d]} and {s2[d]}")
    if len(sw) != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out, in1, in2), got {list(sw)}")
    if s1[-1] != sw[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {s1[-1]} "
                           f"but expected {sw[1]}")
    if s2[-1] != sw[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {s2[-1]} "
                           f"but expected {sw[2]}")
    if bias is not None and bias._data.shape[-1:] != (sw[0],):
        got = bias._data.shape[-1] if bias._data.ndim else 1
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {got} but "
                           f"expected {sw[0]}")
    for t in (input2, weight, bias):
        if t is not None and t._data.dtype != input1._data.dtype:
            raise RuntimeError(f"expected scalar type {_type_name(input1)} but found "
                               f"{_type_name(t)} [bilinear: inputs, weight and bias must share "
                               "one dtype]")
    x1 = input1.reshape(-1, s1[-1])
    x2 = input2.reshape(-1, s2[-1])
    y = _einsum("bi,oij,bj->bo", x1, weight, x2)
    y = y.view(tuple(s1[:-1]) + (sw[0],))
    return y if bias is None else y + bias


export("bilinear", method=False)(bilinear)
