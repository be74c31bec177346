"""The table, scatter_reduce family: scatter_reduce and index_reduce.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/scatter_reduce.py, public functions in ops/api/scatter_reduce.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..kernels.gather_scatter import _along_key, _full_index, _lifted, _src_part
from .gather_scatter import _pad_to
from ..registry import defop
from ..kernels.scatter_reduce import _counts, _sr


def _arr(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _c(arr, like):
    arr = np.asarray(arr)
    return Tensor._wrap(arr) if isinstance(like, Tensor) else arr


# ------------------------------------------------------------------ backward
def _no_alias_derivative(reduce):
    # PyTorch's forward takes 'max'/'min' for 'amax'/'amin', its derivative does not
    if reduce in _ALIASES:
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}. (scatter_reduce's derivative needs "
                           f"reduce='{_ALIASES[reduce]}')")


def _self_grad(grad, self, index, src, result, dim, reduce, include_self):
    _no_alias_derivative(reduce)
    s, r, sv = _arr(self), _arr(result), _arr(src)
    if reduce == "sum":
        g = grad
    elif reduce == "mean":
        n = _lifted(lambda a_, i_, d_: _counts(a_, i_, d_, include_self))(s, index, dim)
        g = grad / _c(np.maximum(n, 1).astype(s.dtype), grad)
    elif reduce == "prod":
        masked = F.where(_c(s == 0, self), _c(np.ones((), s.dtype), self), self)
        g = grad * (F.scatter_reduce_two(masked, index, _crop(src, np.shape(index)), dim,
                                         "prod", include_self) / masked)
    else:
        w = _even_weight(s, index, sv, r, dim, include_self)[0]
        g = grad * _c(w, grad)
    if not include_self:
        g = F.scatter_value(g, index, dim, 0)
    return g


def _even_weight(s, index, sv, r, dim, include_self):
    """(self weight, src weight): 1/N at the values equal to the slot's extreme (as in
    PyTorch, self's values count even without include_self; only their gradient is 0)."""
    value = _lifted(lambda a_, i_, d_: a_[_along_key(_full_index(i_, a_.ndim, i_.ndim,
                                                                   a_.shape), d_)])(r, index, dim)
    src_part = _src_part(sv, np.shape(value)) if np.ndim(sv) else sv
    self_is = (s == r).astype(s.dtype)
    src_is = (src_part == value).astype(s.dtype)
    n = _sr(self_is, index, src_is, dim, "sum", True)
    with np.errstate(all="ignore"):
        w_self = self_is / n
        w_src = src_is / _lifted(
            lambda a_, i_, d_: a_[_along_key(_full_index(i_, a_.ndim, i_.ndim, a_.shape), d_)])(
                n, index, dim)
    return w_self, w_src


def _src_grad(grad, self, index, src, result, src_sym_sizes, dim, reduce, include_self):
    _no_alias_derivative(reduce)
    s, r, sv = _arr(self), _arr(result), _arr(src)
    if reduce == "sum":
        g = F.gather(grad, index, dim)
    elif reduce == "mean":
        n = _lifted(lambda a_, i_, d_: _counts(a_, i_, d_, include_self))(s, index, dim)
        n = np.maximum(n, 1).astype(s.dtype)
        g = F.gather(grad / _c(n, grad), index, dim)
    elif reduce == "prod":
        g = _prod_src_grad(grad, self, index, src, result, dim, include_self)
    else:
        g = F.gather(grad, index, dim) * _c(_even_weight(s, index, sv, r, dim, include_self)[1], grad)
    return _pad_to(g, src_sym_sizes)


def _prod_src_grad(grad, self, index, src, result, dim, include_self):
    s, sv = _arr(self), _arr(src)
    src = _crop(src, np.shape(index))
    sp = _src_part(sv, np.shape(index)) if np.ndim(index) else sv
    zero = sp == 0
    nz = _sr(np.zeros(s.shape, s.dtype), index, zero.astype(s.dtype), dim, "sum", True)
    nz_at = _lifted(lambda a_, i_, d_: a_[_along_key(_full_index(i_, a_.ndim, i_.ndim,
                                                                   a_.shape), d_)])(nz, index, dim)
    single = zero & (nz_at == 1)
    one = _c(np.ones((), s.dtype), src)
    masked_src = F.where(_c(single, src), one, src)
    masked_src_result = F.scatter_reduce_two(self, index, masked_src, dim, "prod", include_self)
    a = F.gather(grad * masked_src_result, index, dim)
    b = F.gather(grad * result, index, dim) / F.where(_c(zero, src), one, src)
    g = F.where(_c(single, grad), a, b)
    if isinstance(g, Tensor) and (nz_at > 1).any():
        g = F._scatter_reduce_prod_guard(g)
    return g


def _double_backward_error(grad):
    raise RuntimeError("scatter_reduce(): Double backward is unsupported for src when >1 zeros "
                       "in src are scattered to the same position in self")


# the src gradient passes through this when differentiating it again would be wrong
PROD_GUARD = defop("_scatter_reduce_prod_guard(self)", lambda a: a.copy(), "DelayedError",
                   self=_double_backward_error, jvp=lambda self_t: self_t, batched_jvp=True)


# ------------------------------------------------------------------ forward AD
def _jvp(self_t, src_t, self, index, src, result, dim, reduce, include_self):
    _no_alias_derivative(reduce)
    if reduce in ("sum", "mean"):
        return F.scatter_reduce_two(self_t, index, src_t, dim, reduce, include_self)
    if reduce == "prod":
        raise NotImplementedError("scatter_reduce(): forward AD with reduce='prod' is not "
                                  "supported by graphgrad (use reverse mode)")
    s, r, sv = _arr(self), _arr(result), _arr(src)
    w_self, w_src = _even_weight(s, index, sv, r, dim, include_self)
    st = self_t * _c(w_self, self_t)
    st_src = _crop(src_t, np.shape(index)) * _c(w_src, src_t)
    return F.scatter_reduce_two(st, index, st_src, dim, "sum", True)


def _crop(t, shape):
    if not shape:
        return t
    shp = F.shape(t)
    n = len(shape)
    if tuple(shp[len(shp) - n:]) == tuple(shape):
        return t
    key = (Ellipsis,) + tuple(slice(0, k) for k in shape)
    return t[key]


def _op(name, node, jvp=None):
    per_step = name == "index_reduce"
    return defop(f"{name}(self, index, src, *, dim, reduce, include_self)",
                 lambda a, index, src, dim, reduce, include_self:
                     _sr(a, index, src, dim, reduce, include_self, per_step),
                 node,
                 self=lambda grad, self, index, src, result, dim, reduce, include_self:
                     _self_grad(grad, self, index, src, result, dim, reduce, include_self),
                 src=lambda grad, self, index, src, result, src_sym_sizes, dim, reduce,
                 include_self: _src_grad(grad, self, index, src, result, src_sym_sizes, dim,
                                         reduce, include_self),
                 jvp=jvp or (lambda self_t, src_t, self, index, src, result, dim, reduce,
                             include_self: _jvp(self_t, src_t, self, index, src, result, dim,
                                                reduce, include_self)),
                 batched_jvp=True if jvp else (
                     lambda self_t, src_t, self_sym_sizes, src_sym_sizes, self, index, src,
                     result, dim, reduce, include_self:
                         _jvp(F.match_batch(self_t, len(self_sym_sizes), src_t,
                                            len(src_sym_sizes)), src_t, self, index, src,
                              result, dim, reduce, include_self)))


def _no_index_reduce_jvp(self_t, src_t):
    raise NotImplementedError("Trying to use forward AD with index_reduce that does not support "
                              "it because it has not been implemented yet (PyTorch has no forward "
                              "derivative for index_reduce; use reverse mode)")


SCATTER_REDUCE_TWO = _op("scatter_reduce.two", "ScatterReduceBackward0")
INDEX_REDUCE = _op("index_reduce", "IndexReduceBackward0", _no_index_reduce_jvp)


# ------------------------------------------------------------------ public
_ALIASES = {"max": "amax", "min": "amin"}   # (PyTorch's scatter_reduce accepts both)
