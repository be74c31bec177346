"""NumPy's products over Tensors: ``dot``, ``matmul``, ``vdot``, ``inner``, ``outer``,
``tensordot``, ``einsum``, ``kron``, ``cross``, ``trace``, with NumPy's shape rules
(``dot`` of N-d arrays contracts the last axis with the second-to-last)."""
from __future__ import annotations

import numpy as _np

from ..ops.api import (
    copies as _api_copies, linalg as _api_linalg, pointwise_unary as _api_pointwise_unary,
    views as _api_views)
from ._core import has_tensor, normalize_axis_index, numpy_errors, on_tensors, result_dtype, \
    tensor

__all__ = ["dot", "matmul", "vdot", "inner", "outer", "tensordot", "einsum", "kron", "cross",
           "trace"]


def _pair(np_func, a, b, key=None):
    dt = result_dtype(np_func, a, b, key=key)
    return tensor(a, dt), tensor(b, dt)


def _mismatch(name, a, b, da, db):
    raise ValueError(f"shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                     f"{a.shape[da]} (dim {da % a.ndim}) != {b.shape[db]} (dim {db % b.ndim}) "
                     f"(graphgrad.numpy.{name})")


@on_tensors(_np.dot)
def dot(a, b, out=None):
    a, b = _pair(lambda x, y: _np.dot(_np.atleast_1d(x), _np.atleast_1d(y)), a, b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    db = -1 if b.ndim == 1 else -2
    if a.shape[-1] != b.shape[db]:
        _mismatch("dot", a, b, -1, db)
    if a.ndim <= 2 and b.ndim <= 2:
        return _api_linalg.matmul(a, b)
    return _api_linalg.tensordot(a, b, ([a.ndim - 1], [b.ndim + db]))


@on_tensors(_np.matmul)
def matmul(x1, x2, /, out=None, **kwargs):
    a, b = _pair(lambda x, y: _np.matmul(_np.atleast_1d(x), _np.atleast_1d(y)), x1, x2,
                 "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand 0 does not have enough dimensions (has 0, "
                         "gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    db = 0 if b.ndim == 1 else -2
    if a.shape[-1] != b.shape[db]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b.shape[db]} is "
                         f"different from {a.shape[-1]})")
    _np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return _api_linalg.matmul(a, b)


@on_tensors(_np.vdot)
def vdot(a, b):
    a, b = _pair(_np.vdot, a, b)
    a, b = a.reshape(-1), b.reshape(-1)
    if a.shape != b.shape:
        raise ValueError("cannot reshape array: vdot needs arrays of the same size")
    return (_api_pointwise_unary.conj(a) * b).sum()


@on_tensors(_np.inner)
def inner(a, b):
    a, b = _pair(lambda x, y: _np.inner(_np.atleast_1d(x), _np.atleast_1d(y)), a, b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        _mismatch("inner", a, b, -1, -1)
    return _api_linalg.tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


@on_tensors(_np.outer)
def outer(a, b, out=None):
    a, b = _pair(_np.outer, a, b)
    return _api_linalg.outer(a.reshape(-1), b.reshape(-1))


@on_tensors(_np.tensordot)
def tensordot(a, b, axes=2):
    a, b = _pair(lambda x, y: _np.tensordot(_np.atleast_1d(x), _np.atleast_1d(y), 0), a, b,
                 "tensordot")
    if isinstance(axes, (int, _np.integer)):
        n = int(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError("shape-mismatch for sum")
        xa, xb = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        xa, xb = axes
        xa = [xa] if isinstance(xa, (int, _np.integer)) else list(xa)
        xb = [xb] if isinstance(xb, (int, _np.integer)) else list(xb)
        if len(xa) != len(xb):
            raise ValueError("shape-mismatch for sum")
        xa = [normalize_axis_index(i, a.ndim) for i in xa]
        xb = [normalize_axis_index(i, b.ndim) for i in xb]
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError("shape-mismatch for sum")
    return _api_linalg.tensordot(a, b, (xa, xb))


def einsum(*operands, out=None, optimize=False, **kwargs):
    """NumPy's ``einsum``: a subscripts string (``'ij,jk->ik'``, ``...`` broadcasting) or
    the interleaved form (``einsum(a, [0, 1], b, [1, 2], [0, 2])``)."""
    if not has_tensor(*operands):
        return _np.einsum(*operands, out=out, optimize=optimize, **kwargs)
    if isinstance(operands[0], str):
        subs, ops = operands[0], operands[1:]
    else:
        subs, ops = _sublist_subscripts(operands)
    with numpy_errors("einsum"):
        dt = result_dtype(lambda *xs: _np.einsum(",".join("" for _ in xs), *xs), *ops,
                          key=("einsum", len(ops)))
        ts = [tensor(o, dt) for o in ops]
        # NumPy's own parser checks the subscripts against the shapes (its ValueError)
        if all(t.numel() < 4096 for t in ts):
            _np.einsum(subs, *[_np.broadcast_to(_np.zeros((), _np.int8), tuple(t.shape))
                               for t in ts])
        return _api_linalg.einsum(subs.replace(" ", ""), *ts)


einsum.__wrapped_numpy__ = _np.einsum

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_subscripts(operands):
    """``(a, [0, 1], b, [1, 2][, out])`` -> ``("ab,bc->ac", (a, b))``."""
    def letters(sub):
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            elif isinstance(s, (int, _np.integer)) and 0 <= s < len(_LETTERS):
                out += _LETTERS[int(s)]
            else:
                raise ValueError("subscript is not within the valid range [0, 52)")
        return out
    ops = operands[0::2][:len(operands) // 2]
    subs = [letters(s) for s in operands[1::2]]
    spec = ",".join(subs)
    if len(operands) % 2:
        spec += "->" + letters(operands[-1])
    return spec, ops


@on_tensors(_np.kron)
def kron(a, b):
    a, b = _pair(_np.kron, a, b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (nd - b.ndim) + tuple(b.shape))
    return _api_linalg.kron(a, b)


@on_tensors(_np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """3-vectors only on Tensors (2-vectors are NumPy-only, deprecated there)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _pair(lambda x, y: _np.cross(_np.ones(3, _np.result_type(x)),
                                        _np.ones(3, _np.result_type(y))), a, b, "cross")
    a = _api_views.movedim(a, normalize_axis_index(axisa, a.ndim), -1)
    b = _api_views.movedim(b, normalize_axis_index(axisb, b.ndim), -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        if a.shape[-1] in (2, 3) and b.shape[-1] in (2, 3):
            raise NotImplementedError("graphgrad.numpy.cross: 2-vectors are not supported on "
                                      "graphgrad Tensors")
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = _api_copies.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    return _api_views.movedim(c, -1, normalize_axis_index(axisc, c.ndim))


@on_tensors(_np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    t = tensor(a)
    if t.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    dt = result_dtype(lambda x: _np.trace(_np.ones((1, 1), _np.result_type(x)), dtype=dtype), t,
                      key=("trace", dtype))
    d = _api_linalg.diagonal(tensor(t, dt), offset, normalize_axis_index(axis1, t.ndim),
                       normalize_axis_index(axis2, t.ndim))
    return d.sum(-1)
