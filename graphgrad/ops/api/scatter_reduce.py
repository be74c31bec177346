"""scatter_reduce / scatter_reduce_ and index_reduce / index_reduce_ (reduce = 'sum',
'prod', 'mean', 'amax', 'amin'; ``include_self``), with PyTorch's gradients:

* sum: self gets ``grad``, src ``grad.gather``; mean: both divided by the count per slot.
* prod: the product of the others, computed without dividing by zeros; with two or more
  zeros of src in one slot the src gradient is still right, but differentiating it again
  raises "Double backward is unsupported ..." (PyTorch's DelayedError).
* amax/amin: split evenly between the self/src values equal to the result.
* ``include_self=False``: self's values at scattered slots take no part (gradient 0).

Forward AD: sum/mean are linear; amax/amin read the tangent evenly at the ties; prod has
none (PyTorch gives no tangent; graphgrad raises NotImplementedError, differences.md).
``index_reduce`` is ``scatter_reduce`` with the 1-d index spread along ``dim``.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from .gather_scatter import _along_key, _check_index, _full_index, _lifted, _pad_to, _src_part
from .indexing import _finish, _neg
from ..._core.opmath import BFLOAT16, FLOAT16
from ..registry import defop, export

REDUCES = ("sum", "prod", "mean", "amax", "amin")
_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
          "amin": np.minimum, "max": np.maximum, "min": np.minimum}


def _identity(dtype, reduce):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f" or dtype is BFLOAT16:
        return -np.inf if reduce in ("amax", "max") else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return reduce in ("amin", "min")
    return info.min if reduce in ("amax", "max") else info.max


def _counts(a, index, dim, include_self):
    """How many values (self's if included, and src's) land in each slot of ``a``."""
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    n = np.full(a.shape, 1 if include_self else 0, np.int64)
    np.add.at(n, _along_key(idx, dim), 1)
    return n


def _kernel(a, index, src, dim, reduce, include_self, per_step=False):
    """per_step: half-precision values are rounded after each step (index_reduce's kernel);
    otherwise they are accumulated in float32 and rounded once (scatter_reduce's), a mean's
    sum being rounded before the division as PyTorch stores it."""
    dt = a.dtype
    half = dt is BFLOAT16 or dt is FLOAT16
    work = np.dtype(np.float32) if half and not per_step else dt
    out = a.astype(work)
    idx = _full_index(index, a.ndim, index.ndim, a.shape)
    key = _along_key(idx, dim)
    s = _src_part(src, idx.shape).astype(work, copy=False)
    if not include_self:
        out[key] = _identity(out.dtype, reduce)
    _UFUNC[reduce].at(out, key, s)
    if reduce == "mean":
        if half:
            out = out.astype(dt).astype(np.float32)
        n = _counts(a, index, dim, include_self)
        hit = n > 0
        if out.dtype.kind in "iub":
            out[hit] = np.floor_divide(out[hit], n[hit]).astype(out.dtype)
        else:
            out[hit] = out[hit] / n[hit]
    return out.astype(dt, copy=False)


def _sr(a, index, src, dim, reduce, include_self, per_step=False):
    """scatter_reduce on plain arrays (constants inside the rules)."""
    return _lifted(lambda a_, i_, s_, d_: _kernel(a_, i_, s_, d_, reduce, include_self,
                                                  per_step))(a, index, src, dim)


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


def _check_reduce(fn, reduce, allowed):
    if reduce not in allowed:
        shown = [r for r in allowed if r not in _ALIASES]
        raise RuntimeError(f"{fn}(): reduce argument must be either "
                           f"{', '.join(shown[:-1])} or {shown[-1]}, got {reduce}")


def _check_src(fn, input, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' must be Tensor, not {type(src).__name__}")
    if src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype (got "
                           f"{input.dtype} and {src.dtype})")


def _scatter_reduce_args(fn, input, dim, index, src, reduce):
    _check_reduce(fn, reduce, REDUCES + ("max", "min"))
    _check_src(fn, input, src)
    if reduce == "mean" and input._data.dtype == np.bool_:
        raise NotImplementedError(f"{fn}(): reduce='mean' is not implemented for 'Bool'")
    return _check_index(fn, input, dim, index, src)


@export()
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """A copy of ``input`` with ``src`` reduced into the slots ``index`` names along dim."""
    d = _scatter_reduce_args("scatter_reduce", input, dim, index, src, reduce)
    return _finish(dispatch(SCATTER_REDUCE_TWO, input, index, src, d, reduce,
                            bool(include_self)), out)


@export(function=False)
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    d = _scatter_reduce_args("scatter_reduce_", input, dim, index, src, reduce)
    return dispatch_inplace(SCATTER_REDUCE_TWO, input, index, src, d, reduce, bool(include_self))


def _index_reduce_args(fn, input, dim, index, source, reduce, include_self):
    _check_reduce(fn, reduce, ("prod", "mean", "amax", "amin"))
    _check_src(fn, input, source)
    if input._data.dtype == np.bool_ and (not include_self or reduce == "mean"):
        raise NotImplementedError(f"{fn}(): reduce='{reduce}' with include_self="
                                  f"{include_self} is not implemented for 'Bool'")
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    if ix.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected a long or int tensor for index (got "
                           f"{index.dtype})")
    ix = ix.reshape(-1)
    ss = source._data.shape if source._data.ndim else (1,)
    if source._data.ndim != max(nd, 0) and nd:
        raise IndexError(f"{fn}(): Source/destination tensor must have same slice shapes")
    if ss[d if nd else 0] != ix.size:
        raise IndexError(f"{fn}(): Number of indices ({ix.size}) should be equal to "
                         f"source.size(dim) ({ss[d if nd else 0]})")
    shp = input._data.shape if nd else (1,)
    for j in range(len(shp)):
        if j != d and nd and ss[j] != shp[j]:
            raise IndexError(f"{fn}(): Source/destination tensor must have same slice shapes "
                             f"(source {list(source._data.shape)}, self "
                             f"{list(input._data.shape)}, dim {d})")
    bad = ix[(ix < 0) | (ix >= shp[d if nd else 0])]
    if bad.size:
        raise IndexError(f"{fn}(): index {int(bad[0])} is out of bounds for dimension {d} "
                         f"with size {shp[d if nd else 0]}")
    if nd == 0:
        return None, Tensor._wrap(ix.astype(np.int64))
    view = [1] * nd
    view[d] = ix.size
    full = np.ascontiguousarray(np.broadcast_to(ix.reshape(view), ss)).astype(np.int64)
    return _neg(d, nd), Tensor._wrap(full)


@export()
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """A copy of ``input`` with the slices of ``source`` reduced into the slices ``index``
    names along ``dim``."""
    d, full = _index_reduce_args("index_reduce", input, dim, index, source, reduce,
                                 include_self)
    return _finish(dispatch(INDEX_REDUCE, input, full, source, d, reduce, bool(include_self)),
                   out)


@export(function=False)
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    d, full = _index_reduce_args("index_reduce_", input, dim, index, source, reduce,
                                 include_self)
    return dispatch_inplace(INDEX_REDUCE, input, full, source, d, reduce, bool(include_self))
