"""Reductions, scans and sorting: table entries and public functions.

sum, mean, prod, max/min (whole, ``dim=`` and binary), amax/amin, argmax/argmin,
logsumexp, norm / linalg.vector_norm, var/std, cumsum/cumprod, all/any,
sort/argsort/topk/msort, cummax/cummin.

Conventions used by the rules below:

* Reductions over a set of dims store them as a sorted tuple of non-negative
  ints relative to the input (``None`` = every dim), as PyTorch's ``_saved_dim``
  shows them.  Rules rebuild the reduced shape with ``_restore`` /
  ``F.expand_reduced``, which count dims from the end, so a gradient with
  extra leading batch dims (``is_grads_batched``) broadcasts correctly.
* Ops that select elements (max.dim, sort, topk, cummax) send the gradient to
  the selected indices with the linear helper ops ``value_selecting_reduction_backward``
  (a scatter), ``_scatter_add_dim`` and ``_gather_dim``; each is the other's VJP,
  so derivatives of any order work.
* JVP rules are written the same way (``_sum_dims(..., nd)`` sums an
  ``nd``-dim value's dims counted from the end), so they take tangents with a
  leading batch dim (``batched_jvp=True``, see registry.py).
* Ties: whole-tensor ``max``/``min`` and ``amax``/``amin`` split the gradient
  evenly between equal extreme values; ``max(dim=)`` sends it to the returned
  index (the first occurrence), like PyTorch.
* prod and cumprod are exact at zeros: the fast ``result / input`` form is used
  only when the input has no zero; otherwise the products of "all the others"
  are formed explicitly (O(n) in NumPy, and an O(n^2) graph of differentiable
  ops under ``create_graph=True`` so higher derivatives are exact as well).
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from ..._core import dtypes as _dtype
from ... import return_types
from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..dispatch import dispatch, unary
from ..inplace import dispatch_inplace
from ..._core.opmath import half_in_float32
from ..registry import LINEAR, defop, export, export_linalg

_INF = math.inf


# ============================================================ small polymorphic helpers
def _arr(x):
    """The ndarray behind ``x`` (constants such as masks are computed on plain data)."""
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _const(arr, like):
    """``arr`` as a constant of the same kind as ``like`` (Tensor or ndarray)."""
    return Tensor._wrap(np.asarray(arr)) if isinstance(like, Tensor) else arr


def _int_promote(a):
    return a.astype(np.int64) if a.dtype.kind in "bui" and a.dtype != np.int64 else a


def _restore(x, sizes, dims, keepdim):
    """Reshape a reduced (maybe batched) value so it broadcasts against ``batch + sizes``."""
    n = len(sizes)
    if keepdim or n == 0:
        return x
    if dims is None:
        dims = range(n)
    gs = F.shape(x)
    nb = len(gs) - (n - len(dims))
    kept = list(gs[:nb])
    j = nb
    for i in range(n):
        if i in dims:
            kept.append(1)
        else:
            kept.append(gs[j])
            j += 1
    return F.reshape(x, tuple(kept))


def _sum_dims(x, dims, keepdim, nd=None):
    """Sum over non-negative ``dims`` (``None`` = all) of ``x``, which has ``nd`` dims plus
    any leading batch dims (``nd=None``: no batch dims)."""
    if nd is None:
        nd = F.ndim(x)
    lead = F.ndim(x) - nd
    dims = tuple(range(lead, lead + nd)) if dims is None else \
        tuple(d + lead if d >= 0 else d for d in dims)
    if isinstance(x, Tensor):
        return dispatch(SUM_DIM, x, dims, keepdim, None)
    return np.sum(x, axis=dims, keepdims=keepdim)


def _rsum(x, neg_dims, keepdim=False):
    """Sum over dims counted from the end (works on batched values)."""
    nd = F.ndim(x)
    dims = tuple(sorted(d % nd for d in neg_dims))
    if isinstance(x, Tensor):
        return dispatch(SUM_DIM, x, dims, keepdim, None)
    return np.sum(x, axis=dims, keepdims=keepdim)


def _neg(dim, n):
    return dim - n if dim >= 0 else dim


def _reduce_batched(op, self_t, self_sym_sizes, dim=None, keepdim=False, dtype=None):
    """The batched JVP of a linear reduction (sum, mean): ``op`` (the dim variant) on the
    tangent, over the dims (non-negative ones shifted past its leading batch dims)."""
    nd = len(self_sym_sizes)
    lead = F.ndim(self_t) - nd
    dims = tuple(range(lead, lead + nd)) if dim is None else \
        tuple(d + lead if d >= 0 else d for d in dim)
    return dispatch(op, self_t, dims, keepdim, dtype)


def _mean_keep(x, dims):
    if isinstance(x, Tensor):
        return dispatch(MEAN_DIM, x, tuple(range(x._data.ndim)) if dims is None else dims, True,
                        None)
    return _mean(x, dims, True)


def _abs(x):
    """|x| (real for complex x), differentiable on Tensors."""
    if not isinstance(x, Tensor):
        return np.abs(x)
    op = F._OP.get("abs")
    if op is not None:
        return dispatch(op, x)
    if x._data.dtype.kind == "c":   # fallback until the pointwise family has abs
        return F.real(x * F.conj(x)) ** 0.5
    return F.where(Tensor._wrap(x._data < 0), -x, x)


def _sgn(x):
    """x / |x| (0 at 0); sign(x) for real x."""
    if not isinstance(x, Tensor):
        if x.dtype.kind == "c":
            a = np.abs(x)
            return np.where(a == 0, 0, x / np.where(a == 0, 1, a))
        return F.sign(x)  # (0 at NaN, as PyTorch's; np.sign gives NaN)
    op = F._OP.get("sgn")
    if op is not None:
        return dispatch(op, x)
    if x._data.dtype.kind != "c":   # the derivative of sign is zero: a constant is exact
        return Tensor._wrap(np.sign(x._data))
    zero = x._data == 0
    a = _abs(x)
    return F.where(Tensor._wrap(zero), 0.0, x / F.where(Tensor._wrap(zero), 1.0, a))


def _flip(x, d):
    if isinstance(x, Tensor):
        return dispatch(FLIP_DIM, x, d)
    return np.flip(x, d)


def _cumsum_poly(x, d):
    if isinstance(x, Tensor):
        return dispatch(CUMSUM, x, d % x._data.ndim, None)
    return np.cumsum(x, axis=d)


def _rev_cumsum(g, d):
    """Reversed cumulative sum along dim ``d`` (negative); row-major on ndarrays, like
    PyTorch's result (the flipped view is not)."""
    r = _flip(_cumsum_poly(_flip(g, d), d), d)
    return np.asarray(r, order="C") if r.__class__ is np.ndarray else r


def _to_last(x, d):
    """Swap dim ``d`` (negative) with the last one (an involution)."""
    if d == -1:
        return x
    if isinstance(x, Tensor):
        return F.transpose(x, d, -1)
    return np.swapaxes(x, d, -1)


def _others_matrix(xt, cumulative):
    """M[..., k, i] = prod_{j<=i, j!=k} x_j (cumulative) or prod_{j!=k} x_j, along the last dim.

    Built from differentiable ops only (expand, where, cumprod/prod), so its
    derivatives are exact even where x has zeros.
    """
    shp = F.shape(xt)
    n = shp[-1]
    X = F.expand(F.unsqueeze(xt, -2), shp[:-1] + (n, n))
    Xm = F.where(np.eye(n, dtype=bool), 1.0, X)
    if cumulative:
        return dispatch(CUMPROD, Xm, len(shp), None) if isinstance(Xm, Tensor) \
            else np.cumprod(Xm, axis=-1)
    return dispatch(PROD_DIM, Xm, len(shp), False, None) if isinstance(Xm, Tensor) \
        else np.prod(Xm, axis=-1)


# ============================================================ sum / mean
# float16 and bfloat16 sums, means, scans and norms accumulate in float32, as PyTorch's do
# (NumPy would accumulate in bfloat16: a thousand ones would sum to 256; its float16 cumsum
# drifts); the wrapped functions take the operand already cast to its dtype= argument
@half_in_float32
def _sum_as_is(a, dim, keepdim):
    return np.asarray(a.sum(axis=dim, keepdims=keepdim, dtype=a.dtype))


def _sum_kernel(a, dim, keepdim, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    return _sum_as_is(a, dim, keepdim)


@half_in_float32
def _mean(a, dim=None, keepdim=False):
    if a.size == 0:  # nan, quietly: NumPy would warn "Mean of empty slice", PyTorch does not
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.asarray(a.mean(axis=dim, keepdims=keepdim))
    return np.asarray(a.mean(axis=dim, keepdims=keepdim))


def _mean_kernel(a, dim, keepdim, dtype):
    if dtype is not None:
        a = a.astype(dtype.np, copy=False)
    return _mean(a, dim, keepdim)


_sum_all_general = half_in_float32(lambda a: np.asarray(_int_promote(a).sum()))


def _sum_all(a):
    if a.__class__ is np.ndarray and (a.dtype == np.float64 or a.dtype == np.float32):
        return np.asarray(a.sum())  # (the general kernel's result, without its wrapper)
    return _sum_all_general(a)


SUM = defop("sum(self)", _sum_all,
            "SumBackward0",
            self=lambda grad, self_sym_sizes: F.expand_reduced(grad, self_sym_sizes, None, False),
            jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes:
                _reduce_batched(SUM_DIM, self_t, self_sym_sizes))
SUM_DTYPE = defop("sum.dtype(self, *, dtype)",
                  lambda a, dtype: _sum_as_is(a.astype(dtype.np, copy=False), None, False),
                  "SumBackward0",
                  self=lambda grad, self_sym_sizes:
                      F.expand_reduced(grad, self_sym_sizes, None, False),
                  jvp=LINEAR,
                  batched_jvp=lambda self_t, self_sym_sizes, dtype:
                      _reduce_batched(SUM_DIM, self_t, self_sym_sizes, dtype=dtype))
SUM_DIM = defop("sum.dim_IntList(self, *, dim, keepdim, dtype)", _sum_kernel, "SumBackward1",
                self=lambda grad, self_sym_sizes, dim, keepdim:
                    F.expand_reduced(grad, self_sym_sizes, dim, keepdim),
                jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes, dim, keepdim, dtype:
                    _reduce_batched(SUM_DIM, self_t, self_sym_sizes, dim, keepdim, dtype))
MEAN = defop("mean(self)", _mean, "MeanBackward0",
             self=lambda grad, self_sym_sizes:
                 F.div_count(F.expand_reduced(grad, self_sym_sizes, None, False),
                             F.numel(self_sym_sizes)),
             jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes:
                 _reduce_batched(MEAN_DIM, self_t, self_sym_sizes))
MEAN_DTYPE = defop("mean.dtype(self, *, dtype)",
                   lambda a, dtype: _mean(a.astype(dtype.np, copy=False)),
                   "MeanBackward0",
                   self=lambda grad, self_sym_sizes:
                       F.div_count(F.expand_reduced(grad, self_sym_sizes, None, False),
                                   F.numel(self_sym_sizes)),
                   jvp=LINEAR,
                   batched_jvp=lambda self_t, self_sym_sizes, dtype:
                       _reduce_batched(MEAN_DIM, self_t, self_sym_sizes, dtype=dtype))
MEAN_DIM = defop("mean.dim(self, *, dim, keepdim, dtype)", _mean_kernel, "MeanBackward1",
                 self=lambda grad, self_sym_sizes, dim, keepdim:
                     F.div_count(F.expand_reduced(grad, self_sym_sizes, dim, keepdim),
                                 F.numel(self_sym_sizes, dim)),
                 jvp=LINEAR, batched_jvp=lambda self_t, self_sym_sizes, dim, keepdim, dtype:
                     _reduce_batched(MEAN_DIM, self_t, self_sym_sizes, dim, keepdim, dtype))


# ============================================================ prod
def _prod_kernel(a, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    return np.asarray(a.prod(dtype=a.dtype))


def _prod_dim_kernel(a, dim, keepdim, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    if a.ndim == 0:
        return a.copy()
    return np.asarray(a.prod(axis=dim, keepdims=keepdim, dtype=a.dtype))


def _prod_others_np(x, dim):
    """prod over the group of every element except itself, in O(n) (exact with zeros)."""
    a = x.reshape(-1) if dim is None else np.moveaxis(x, dim, -1)
    ones = np.ones(a.shape[:-1] + (1,), a.dtype)
    fwd = np.concatenate([ones, np.cumprod(a[..., :-1], axis=-1)], axis=-1)
    rev = np.concatenate([np.cumprod(a[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    r = fwd * rev
    return r.reshape(x.shape) if dim is None else np.moveaxis(r, -1, dim)


def _prod_others(self, result, dim, keepdim):
    sizes = F.shape(self)
    xd = _arr(self)
    if not (xd == 0).any():
        return _restore(result, sizes, None if dim is None else (dim,), keepdim) / self
    if not isinstance(self, Tensor):
        return _prod_others_np(xd, dim)
    if dim is None:
        return F.reshape(_exclusive_products(F.reshape(self, (xd.size,))), sizes)
    d = dim - len(sizes)
    return _to_last(_exclusive_products(_to_last(self, d)), d)


def _exclusive_products(xt):
    """prod_{j != k} x_j along the last dim, as the product of the exclusive cumprods from
    both ends (PyTorch's prod_safe_zeros_backward), from differentiable ops: so its own
    derivative, under create_graph, has PyTorch's NaN pattern at zeros next to inf/NaN."""
    fwd = F.cumprod(F.constant_pad_nd(xt[..., :-1], (1, 0), 1), -1, None)
    rev = F.flip(xt[..., 1:], (-1,))
    rev = F.flip(F.cumprod(F.constant_pad_nd(rev, (1, 0), 1), -1, None), (-1,))
    return fwd * rev


def _prod_backward(grad, self, result, dim, keepdim):
    sizes = F.shape(self)
    if len(sizes) == 0:
        return grad
    if dim is None and not isinstance(self, Tensor) and np.count_nonzero(self == 0) > 1:
        # two zeros make every partial product 0: PyTorch returns zeros here (outside
        # create_graph), whatever inf or NaN the other entries hold
        return np.zeros(F.shape(grad)[:F.ndim(grad) - F.ndim(result)] + sizes,
                        np.result_type(grad, self))
    g = _restore(grad, sizes, None if dim is None else (dim,), keepdim)
    return g * F.conj(_prod_others(self, result, dim, keepdim))


def _prod_jvp(self_t, self, result, dim, keepdim):
    if F.ndim(self) == 0:
        return self_t
    t = self_t * _prod_others(self, result, dim, keepdim)
    return _sum_dims(t, None if dim is None else (dim,), keepdim, F.ndim(self))


PROD = defop("prod(self, *, dtype)", _prod_kernel, "ProdBackward0",
             self=lambda grad, self, result: _prod_backward(grad, self, result, None, False),
             jvp=lambda self_t, self, result: _prod_jvp(self_t, self, result, None, False),
             batched_jvp=True)
PROD_DIM = defop("prod.dim_int(self, *, dim, keepdim, dtype)", _prod_dim_kernel, "ProdBackward1",
                 self=lambda grad, self, result, dim, keepdim:
                     _prod_backward(grad, self, result, dim, keepdim),
                 jvp=lambda self_t, self, result, dim, keepdim:
                     _prod_jvp(self_t, self, result, dim, keepdim), batched_jvp=True)


# ============================================================ selection helpers (linear ops)
def _vsrb_kernel(grad, dim, indices, sizes, keepdim):
    """zeros(sizes).scatter(dim, indices, grad), with leading batch dims on grad."""
    if not keepdim:
        grad = np.expand_dims(grad, dim)
        indices = np.expand_dims(indices, dim)
    batch = grad.shape[:grad.ndim - len(sizes)]
    out = np.zeros(batch + tuple(sizes), grad.dtype)
    np.put_along_axis(out, np.broadcast_to(indices, batch + indices.shape), grad, axis=dim)
    return out


def _gather_kernel(a, dim, index):
    batch = a.shape[:a.ndim - index.ndim]
    return np.take_along_axis(a, np.broadcast_to(index, batch + index.shape), axis=dim)


def _scatter_add_kernel(grad, dim, index, sizes):
    batch = grad.shape[:grad.ndim - len(sizes)]
    out = np.zeros(batch + tuple(sizes), grad.dtype)
    idx = np.broadcast_to(index, batch + index.shape)
    ax = dim % out.ndim
    grids = np.ogrid[tuple(slice(s) for s in idx.shape)]
    np.add.at(out, tuple(idx if i == ax else grids[i] for i in range(out.ndim)), grad)
    return out


def _gather_keep(x, dim, indices, keepdim):
    """x.gather(dim, indices) (indices of a keepdim=``keepdim`` reduction), squeezed back."""
    if not keepdim:
        indices = np.expand_dims(indices, dim)
    r = F._gather_dim(x, dim, indices)
    return r if keepdim else F.squeeze_dims(r, (dim,))


# dims are negative (counted from the end) in these three, so batch dims pass through
VSRB = defop("value_selecting_reduction_backward(grad, *, dim, indices, sizes, keepdim)",
             _vsrb_kernel, "ScatterBackward0",
             grad=lambda grad, dim, indices, keepdim: _gather_keep(grad, dim, indices, keepdim),
             jvp=LINEAR, batched_jvp=True)
GATHER_DIM = defop("_gather_dim(self, *, dim, index)", _gather_kernel, "GatherBackward0",
                   self=lambda grad, self_sym_sizes, dim, index:
                       F._scatter_add_dim(grad, dim, index, tuple(self_sym_sizes)),
                   jvp=LINEAR, batched_jvp=True)
SCATTER_ADD_DIM = defop("_scatter_add_dim(grad, *, dim, index, sizes)", _scatter_add_kernel,
                        "ScatterAddBackward0",
                        grad=lambda grad, dim, index: F._gather_dim(grad, dim, index),
                        jvp=LINEAR, batched_jvp=True)
FLIP_DIM = defop("_flip_dim(self, *, dim)", lambda a, dim: np.flip(a, dim).copy(),
                 "FlipBackward0", self=lambda grad, dim: F._flip_dim(grad, dim), jvp=LINEAR,
                 batched_jvp=lambda self_t, self_sym_sizes, dim:
                     F._flip_dim(self_t, _neg(dim, len(self_sym_sizes))))


def _select_backward(grad, indices, sizes, dim, keepdim):
    """The gradient of an op that picked ``indices`` along ``dim`` (max.dim, sort, topk)."""
    n = len(sizes)
    if n == 0:
        return grad
    return F.value_selecting_reduction_backward(grad, _neg(dim, n), _arr(indices), tuple(sizes),
                                                keepdim)


def _select_jvp(self_t, indices, dim, keepdim, n):
    """The tangent of the values an op picked at ``indices`` along ``dim`` of an ``n``-dim
    input (``self_t`` may have leading batch dims)."""
    if n == 0:
        return self_t
    return _gather_keep(self_t, _neg(dim, n), _arr(indices), keepdim)


# ============================================================ max / min / amax / amin
def _even_weights(self, result, dims, keepdim, nan_aware):
    """mask / count of the elements equal to the (restored) extreme value: ties share evenly."""
    x = _arr(self)
    res = _arr(result)
    r = _arr(_restore(res, x.shape, dims, keepdim))
    if nan_aware and x.dtype.kind not in "biu" and np.isnan(res).any():
        # a whole-tensor max/min that is NaN: the gradient goes to the NaNs (PyTorch's
        # evenly_distribute_backward); NaN == NaN is False, so x == r would find none
        mask = np.isnan(x)
    else:
        mask = x == r
    count = mask.sum(axis=None if dims is None else tuple(dims), keepdims=True)
    with np.errstate(all="ignore"):
        w = mask / count
    return w.astype(x.dtype, copy=False)


def _even_backward(grad, self, result, dims, keepdim, nan_aware=False):
    w = _even_weights(self, result, dims, keepdim, nan_aware)
    if nan_aware and F.ndim(grad) == 0:
        # max()/min() of the whole tensor: PyTorch fills grad / count in at the extreme
        # elements of zeros (masked_fill), so a NaN gradient does not spread to the others
        mask = w != 0
        return F.masked_fill_Tensor(_const(np.zeros(w.shape, w.dtype), grad),
                                    _const(mask, grad), grad / int(mask.sum()))
    return _restore(grad, w.shape, dims, keepdim) * _const(w, grad)


def _even_jvp(self_t, self, result, dims, keepdim, nan_aware=False, masked=False):
    w = _even_weights(self, result, dims, keepdim, nan_aware)
    if masked:
        # amax/amin: PyTorch's where(mask, t, 0): an inf or NaN tangent of an element that
        # is not the extreme does not reach the result (max() multiplies: NaN, as here)
        t = F.where(_const(w != 0, self_t), self_t * _const(w, self_t), 0.0)
        return _sum_dims(t, dims, keepdim, F.ndim(self))
    return _sum_dims(self_t * _const(w, self_t), dims, keepdim, F.ndim(self))


def _extreme_kernel(fn):
    def kernel(a):
        return np.asarray(fn(a))
    return kernel


def _extreme_dim_kernel(argfn):
    def kernel(a, dim, keepdim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        idx = argfn(a, axis=dim, keepdims=True)
        vals = np.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
        return vals, idx.astype(np.int64, copy=False)
    return kernel


def _amax_kernel(fn):
    def kernel(a, dim, keepdim):
        return np.asarray(fn(a, axis=dim, keepdims=keepdim))
    return kernel


MAX = defop("max(self)", _extreme_kernel(np.max), "MaxBackward1",
            self=lambda grad, self, result: _even_backward(grad, self, result, None, False, True),
            jvp=lambda self_t, self, result: _even_jvp(self_t, self, result, None, False),
            batched_jvp=True)
MIN = defop("min(self)", _extreme_kernel(np.min), "MinBackward1",
            self=lambda grad, self, result: _even_backward(grad, self, result, None, False, True),
            jvp=lambda self_t, self, result: _even_jvp(self_t, self, result, None, False),
            batched_jvp=True)
MAX_DIM = defop("max.dim(self, *, dim, keepdim)", _extreme_dim_kernel(np.argmax), "MaxBackward0",
                n_outputs=2, nondiff_outputs=(1,),
                self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                    _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                    (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                batched_jvp=True)
MIN_DIM = defop("min.dim(self, *, dim, keepdim)", _extreme_dim_kernel(np.argmin), "MinBackward0",
                n_outputs=2, nondiff_outputs=(1,),
                self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                    _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                    (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                batched_jvp=True)
AMAX = defop("amax(self, *, dim, keepdim)", _amax_kernel(np.amax), "AmaxBackward0",
             self=lambda grad, self, result, dim, keepdim:
                 _even_backward(grad, self, result, dim, keepdim),
             jvp=lambda self_t, self, result, dim, keepdim:
                 _even_jvp(self_t, self, result, dim, keepdim, masked=True), batched_jvp=True)
AMIN = defop("amin(self, *, dim, keepdim)", _amax_kernel(np.amin), "AminBackward0",
             self=lambda grad, self, result, dim, keepdim:
                 _even_backward(grad, self, result, dim, keepdim),
             jvp=lambda self_t, self, result, dim, keepdim:
                 _even_jvp(self_t, self, result, dim, keepdim, masked=True), batched_jvp=True)


def _argext_kernel(fn):
    def kernel(a, dim, keepdim):
        if a.dtype == np.bool_:
            raise RuntimeError(f"{fn.__name__}(): does not support bool input [use "
                               f"x.to(torch.uint8).{fn.__name__}() or x.nonzero()]")
        if dim is None:
            r = fn(a.reshape(-1))
            return np.full((1,) * a.ndim if keepdim else (), r, np.int64)
        if a.ndim == 0:
            return np.zeros((), np.int64)
        return np.asarray(fn(a, axis=dim, keepdims=keepdim), np.int64)
    return kernel


ARGMAX = defop("argmax(self, *, dim, keepdim)", _argext_kernel(np.argmax))
ARGMIN = defop("argmin(self, *, dim, keepdim)", _argext_kernel(np.argmin))


# ============================================================ logsumexp
def _logsumexp_kernel(a, dim, keepdim):
    # (bfloat16: step by step in bfloat16, the sum accumulated in float32, as PyTorch's
    # composite does)
    real = a.real if a.dtype.kind == "c" else a
    if real.size and builtins.all(a.shape[d] for d in dim):
        m = np.amax(real, axis=dim, keepdims=True)
        m = np.where(np.isinf(m), np.zeros((), m.dtype), m)
    else:
        m = np.zeros((), real.dtype)
    r = np.log(_sum_as_is(np.exp(a - m), dim, True)) + m
    if not keepdim:
        r = np.squeeze(r, axis=dim)
    return np.asarray(r)


def _logsumexp_vjp(grad, self, result, dim, keepdim):
    sizes = F.shape(self)
    return _restore(grad, sizes, dim, keepdim) * F.conj(
        F.exp(self - _restore(result, sizes, dim, keepdim)))


def _logsumexp_jvp(self_t, self, result, dim, keepdim):
    w = F.exp(self - _restore(result, F.shape(self), dim, keepdim))
    t = _sum_dims(self_t * w, dim, keepdim, F.ndim(self))
    if F.numel(F.shape(self)) == 0:
        # (PyTorch's tangent is sum(exp(x) * x_t) / sum(exp(x)): 0 / 0 = NaN over empty rows)
        return t / _sum_dims(F.exp(self), dim, keepdim, F.ndim(self))
    return t


LOGSUMEXP = defop("logsumexp(self, *, dim, keepdim)", _logsumexp_kernel, "LogsumexpBackward0",
                  self=_logsumexp_vjp, jvp=_logsumexp_jvp, batched_jvp=True)


# ============================================================ vector norm
def _vector_norm_kernel(a, ord, dim, keepdim, dtype):
    if dtype is not None:
        a = a.astype(dtype.np, copy=False)
    return _vector_norm_of(a, ord, dim, keepdim)


@half_in_float32
def _vector_norm_of(a, ord, dim, keepdim):
    x = np.abs(a)
    if ord != 0 and F.numel(a.shape, dim) == 1:
        # one element per result: PyTorch's norm is its absolute value, exactly (no
        # (|x|^p)^(1/p) rounding, no overflow of x * x)
        r = np.sum(x, axis=dim, keepdims=keepdim)
    elif ord == 2:
        r = np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))
    elif ord == 1:
        r = np.sum(x, axis=dim, keepdims=keepdim)
    elif ord == _INF:
        r = np.amax(x, axis=dim, keepdims=keepdim)
    elif ord == -_INF:
        r = np.amin(x, axis=dim, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(x != 0, axis=dim, keepdims=keepdim)
    else:
        r = np.sum(x ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r, dtype=x.dtype)


def _vector_norm_unit(self, ord, dim, keepdim, result):
    """The VJP of the norm for a gradient of ones (d norm / d conj(self), doubled)."""
    sizes = F.shape(self)
    r = _restore(result, sizes, dim, keepdim)
    rd = _arr(r)
    if ord == 1:
        return _sgn(self)
    if ord == 2:
        zero = rd == 0
        if zero.any():
            # (the untaken branch divides by 0: under double backward its gradient there is
            # 0 / 0 = NaN, as PyTorch's (self / norm).masked_fill_(norm == 0, 0) gives)
            return F.where(_const(zero, self), 0.0, self / r)
        return self / r
    if ord in (_INF, -_INF):
        xa = np.abs(_arr(self))
        mask = (xa == rd) | np.isnan(xa)  # (PyTorch's: a NaN counts as the extreme)
        with np.errstate(all="ignore"):
            w = (mask / mask.sum(axis=dim, keepdims=True)).astype(xa.dtype, copy=False)
        return _sgn(self) * _const(w, self)
    return _norm_scaled(self, ord) * _norm_scale(r, ord)


def _norm_scaled(self, p):
    """The elementwise factor of a p-norm's derivative: x |x|^(p-2), 0 at x = 0."""
    ax = _abs(self)
    if p >= 2:
        return self * ax ** (p - 2)
    zero_x = _arr(self) == 0
    if p < 1 and zero_x.any():
        # (|x|^(p-1) is inf at 0: selected away, so its derivative there is 0 * inf = NaN
        # under create_graph, as PyTorch's masked_fill gives)
        return F.where(_const(zero_x, self), 0.0, _sgn(self) * ax ** (p - 1))
    return _sgn(self) * ax ** (p - 1)


def _norm_scale(r, p):
    """The norm's factor: r^(1-p), 0 where the norm is 0."""
    zero_r = _arr(r) == 0
    if zero_r.any():
        zc = _const(zero_r, r)
        return F.where(zc, 0.0, F.where(zc, 1.0, r) ** (1 - p))
    return r ** (1 - p)


def _vector_norm_vjp(grad, self, ord, dim, keepdim, result):
    if ord == 0:
        return None   # PyTorch: the 0-"norm" (a count) has no gradient
    unit = _vector_norm_unit(self, ord, dim, keepdim, result)
    return _restore(grad, F.shape(self), dim, keepdim) * unit


def _vector_norm_jvp(self_t, self, ord, dim, keepdim, result):
    if ord == 0:
        return F.zeros_like(result)
    if ord not in (1, 2, _INF, -_INF):
        # PyTorch's order: the sum first, then the norm's factor (an inf norm times a zero
        # entry's 0 would be NaN)
        s = _sum_dims(F.conj(_norm_scaled(self, ord)) * self_t, dim, keepdim, F.ndim(self))
        return F.real_if(s * _norm_scale(result, ord), True)
    unit = _vector_norm_unit(self, ord, dim, keepdim, result)
    return F.real_if(_sum_dims(F.conj(unit) * self_t, dim, keepdim, F.ndim(self)), True)


VECTOR_NORM = defop("linalg_vector_norm(self, *, ord, dim, keepdim, dtype)", _vector_norm_kernel,
                    "LinalgVectorNormBackward0", self=_vector_norm_vjp, jvp=_vector_norm_jvp,
                    batched_jvp=True)


# ============================================================ var / std
def _dof(sizes, dim, correction):
    return builtins.max(0, F.numel(sizes, dim) - correction)


def _var_kernel(a, dim, correction, keepdim):
    d = a - a.mean(axis=dim, keepdims=True)
    sq = d.real * d.real + d.imag * d.imag if a.dtype.kind == "c" else d * d
    s = sq.sum(axis=dim, keepdims=keepdim)
    dof = _dof(a.shape, dim, correction)
    return np.asarray(s / dof if dof else s / 0.0)   # dof <= 0: inf/nan, as PyTorch


def _var_unit(self, dim, correction):
    """d var / d conj(self), doubled: 2 (self - mean) / dof.

    As PyTorch's: the dof is not clamped here (a correction above the count gives a
    negative factor), and over all elements (``dim`` None, or a 0-d input) with dof <= 0
    the derivative is the constant where(self == mean, nan, inf), which has no derivative
    itself (graphgrad's (self - mean) * inf gave NaN in double backward)."""
    sizes = F.shape(self)
    dof = F.numel(sizes, dim) - correction
    if dof <= 0 and (dim is None or not sizes):
        x = _arr(self)
        return _const(np.where(x == _mean(x, dim, True), np.nan, np.inf).astype(
            np.empty(0, x.dtype).real.dtype), self)
    return (self - _mean_keep(self, dim)) * (2.0 / dof if dof else _INF)


def _var_vjp(grad, self, dim, correction, keepdim):
    return _restore(grad, F.shape(self), dim, keepdim) * _var_unit(self, dim, correction)


def _var_jvp(self_t, self, dim, correction, keepdim):
    return F.real_if(_sum_dims(F.conj(_var_unit(self, dim, correction)) * self_t, dim, keepdim,
                               F.ndim(self)),
                     True)


def _safe_half_inv(grad, result):
    """grad / (2 result), 0 where result == 0 (PyTorch's std rule)."""
    zero = _arr(result) == 0
    if not zero.any():
        return grad / (2 * result)
    zc = _const(zero, result)
    return F.where(zc, 0.0, grad / (2 * F.where(zc, 1.0, result)))


# (bfloat16: a fractional correction would make the division float32; PyTorch accumulates
# in float32 and rounds once)
VAR = defop("var.correction(self, *, dim, correction, keepdim)",
            half_in_float32(lambda a, dim, correction, keepdim:
                                _var_kernel(a, dim, correction, keepdim)),
            "VarBackward0", self=_var_vjp, jvp=_var_jvp, batched_jvp=True)
STD = defop("std.correction(self, *, dim, correction, keepdim)",
            half_in_float32(lambda a, dim, correction, keepdim:
                                np.sqrt(_var_kernel(a, dim, correction, keepdim))),
            "StdBackward0",
            self=lambda grad, self, result, dim, correction, keepdim:
                _var_vjp(_safe_half_inv(grad, result), self, dim, correction, keepdim),
            jvp=lambda self_t, self, result, dim, correction, keepdim:
                _safe_half_inv(_var_jvp(self_t, self, dim, correction, keepdim), result),
            batched_jvp=True)


# ============================================================ cumsum / cumprod
def _scan_kernel(fn):
    @half_in_float32
    def scan(a, dim):
        return fn(a, axis=dim, dtype=a.dtype)

    def kernel(a, dim, dtype):
        a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
        if a.ndim == 0:
            return a.copy()
        # (NumPy's scan follows a transposed input's layout; PyTorch's result is contiguous,
        # so a later reshape is a view, as there)
        r = scan(a, dim)
        return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    return kernel


@half_in_float32
def _cumsum_vjp(grad, self_sym_sizes, dim):
    n = len(self_sym_sizes)
    if n == 0:
        return grad
    return _rev_cumsum(grad, _neg(dim, n))


def _cumprod_backward_np(g, x, y, d):
    """O(n) exact gradient of cumprod along d (negative), with zeros in x.

    As PyTorch's: before the first zero z1, reversed cumsum of g*y (over [0, z1) only) / x;
    at z1, y[z1-1] * sum_{z1<=i<z2} g_i prod_{z1<j<=i} x_j (up to the second zero z2); 0
    after it.  Limiting each sum to its segment keeps an inf or NaN after a zero out of
    the entries it cannot reach."""
    xm, ym, gm = np.moveaxis(x, d, -1), np.moveaxis(y, d, -1), np.moveaxis(g, d, -1)
    n = xm.shape[-1]
    j = np.arange(n)
    c = np.cumsum(xm == 0, axis=-1)
    before = c == 0                                            # [0, z1)
    w = np.where(before, gm * np.conj(ym), 0)
    part1 = np.flip(np.cumsum(np.flip(w, -1), -1), -1) / np.conj(np.where(before, xm, 1))
    seg = c == 1                                               # [z1, z2)
    first = seg & (j == np.argmax(seg, axis=-1)[..., None])    # z1
    cp = np.cumprod(np.where(seg & ~first, xm, 1), axis=-1)    # prod_{z1<j<=i} x_j
    # (the masked gradient times the running product everywhere: an inf carried past the
    # second zero gives 0 * inf = NaN, as in PyTorch)
    s = np.sum(np.where(seg, gm, 0) * np.conj(cp), axis=-1, keepdims=True)
    prev = np.concatenate([np.ones_like(ym[..., :1]), ym[..., :-1]], axis=-1)  # y[k-1]
    part2 = np.where(first, np.conj(prev) * s, 0)
    return np.asarray(np.moveaxis(np.where(before, part1, part2), -1, d), order="C")


def _cumprod_vjp(grad, self, result, dim):
    sizes = F.shape(self)
    n = len(sizes)
    if n == 0 or sizes[dim] <= 1:
        return grad
    d = _neg(dim, n)
    xd = _arr(self)
    if not (xd == 0).any():
        return _rev_cumsum(grad * F.conj(result), d) / F.conj(self)
    if not isinstance(self, Tensor) and not isinstance(grad, Tensor):
        return _cumprod_backward_np(grad, xd, _arr(result), d)
    # differentiable and exact: grad_k = sum_{i >= k} g_i conj(prod_{j<=i, j!=k} x_j)
    M = _others_matrix(_to_last(self, d), True)
    nn_ = sizes[dim]
    tri = np.triu(np.ones((nn_, nn_), dtype=bool))
    terms = F.where(tri, F.unsqueeze(_to_last(grad, d), -2) * F.conj(M), 0.0)
    return _to_last(_rsum(terms, (-1,)), d)


def _cumprod_jvp(self_t, self, result, dim):
    sizes = F.shape(self)
    n = len(sizes)
    if n == 0 or sizes[dim] <= 1:
        return self_t
    d = _neg(dim, n)
    general = result * _cumsum_poly(self_t / self, d)
    zeros = _arr(self) == 0
    if not zeros.any():
        return general
    # PyTorch's: from the first zero z on, the tangent is cumprod of x with x_z replaced by
    # its tangent (so later zeros and non-finite values keep PyTorch's NaN pattern)
    first = zeros & (np.cumsum(zeros, axis=d) == 1)
    after = np.cumsum(first, axis=d) > 0
    new = F.cumprod(F.where(_const(first, self), self_t, self), d, None)
    return F.where(_const(after, self), new, general)


CUMSUM = defop("cumsum(self, *, dim, dtype)", _scan_kernel(np.cumsum), "CumsumBackward0",
               self=_cumsum_vjp, jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, dim, dtype:
                   F.cumsum(self_t, dim + F.lead(self_t, len(self_sym_sizes)), dtype)
                   if self_sym_sizes else F.clone(self_t))
CUMPROD = defop("cumprod(self, *, dim, dtype)", _scan_kernel(np.cumprod), "CumprodBackward0",
                self=_cumprod_vjp, jvp=_cumprod_jvp, batched_jvp=True)


# ============================================================ cummax / cummin
def _cumext_kernel(acc):
    def kernel(a, dim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        v = acc(a, axis=dim)
        eq = a == v
        if a.dtype.kind in "fc":
            eq |= np.isnan(a) & np.isnan(v)
        shape = [1] * a.ndim
        shape[dim] = a.shape[dim]
        pos = np.arange(a.shape[dim], dtype=np.int64).reshape(shape)
        idx = np.maximum.accumulate(np.where(eq, pos, -1), axis=dim)   # last tie wins
        return np.ascontiguousarray(v), np.ascontiguousarray(idx)  # (as PyTorch's layout)
    return kernel


def _cumext_vjp(grad, result1, self_sym_sizes, dim):
    n = len(self_sym_sizes)
    if n == 0:
        return grad
    return F._scatter_add_dim(grad, _neg(dim, n), _arr(result1), tuple(self_sym_sizes))


CUMMAX = defop("cummax(self, *, dim)", _cumext_kernel(np.maximum.accumulate), "CummaxBackward0",
               n_outputs=2, nondiff_outputs=(1,), self=_cumext_vjp,
               jvp=lambda self_t, self_sym_sizes, result1, dim:
                   (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
               batched_jvp=True)
CUMMIN = defop("cummin(self, *, dim)", _cumext_kernel(np.minimum.accumulate), "CumminBackward0",
               n_outputs=2, nondiff_outputs=(1,), self=_cumext_vjp,
               jvp=lambda self_t, self_sym_sizes, result1, dim:
                   (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
               batched_jvp=True)


# ============================================================ sort / topk / argsort
def _argsort_np(a, dim, descending):
    """Stable argsort; descending keeps equal elements in their original order, NaN first."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    idx = np.argsort(np.flip(a, dim), axis=dim, kind="stable")
    return a.shape[dim] - 1 - np.flip(idx, dim)


def _sort_kernel(a, stable, dim, descending):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = _argsort_np(a, dim, descending).astype(np.int64, copy=False)
    return np.take_along_axis(a, idx, axis=dim), idx


def _topk_kernel(a, k, dim, largest, sorted):  # noqa: A002
    if a.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = _argsort_np(a, dim, largest)
    idx = np.take(idx, np.arange(k), axis=dim).astype(np.int64, copy=False)
    return np.take_along_axis(a, idx, axis=dim), idx


SORT = defop("sort(self, *, stable, dim, descending)", _sort_kernel, "SortBackward0",
             n_outputs=2, nondiff_outputs=(1,),
             self=lambda grad, result1, self_sym_sizes, dim:
                 _select_backward(grad, result1, self_sym_sizes, dim, True),
             jvp=lambda self_t, self_sym_sizes, result1, dim:
                 (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
             batched_jvp=True)
TOPK = defop("topk(self, *, k, dim, largest, sorted)", _topk_kernel, "TopkBackward0",
             n_outputs=2, nondiff_outputs=(1,),
             self=lambda grad, result1, self_sym_sizes, dim:
                 _select_backward(grad, result1, self_sym_sizes, dim, True),
             jvp=lambda self_t, self_sym_sizes, result1, dim:
                 (_select_jvp(self_t, result1, dim, True, len(self_sym_sizes)), None),
             batched_jvp=True)
ARGSORT = defop("argsort.stable(self, *, stable, dim, descending)",
                lambda a, stable, dim, descending: np.zeros((), np.int64) if a.ndim == 0
                else _argsort_np(a, dim, descending).astype(np.int64, copy=False))


# ============================================================ all / any
def _logical_kernel(fn):
    def kernel(a, dim, keepdim):
        r = np.asarray(fn(a, axis=dim, keepdims=keepdim))
        return r.astype(np.uint8) if a.dtype == np.uint8 else r
    return kernel


ALL = defop("all.dims(self, *, dim, keepdim)", _logical_kernel(np.all))
ANY = defop("any.dims(self, *, dim, keepdim)", _logical_kernel(np.any))


# ============================================================ argument handling
def _check_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _dims(dim, nd, empty_means_all=True, name="dim"):
    """``dim`` (None, int or sequence) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return tuple(range(nd)) if empty_means_all else ()
        out = []
        for d in dim:
            w = _wrap_dim(_as_int(d, name), nd)
            if w in out:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            out.append(w)
        return tuple(sorted(out)) if nd else ()
    w = _wrap_dim(_as_int(dim, name), nd)  # (a 0-d tensor takes dim 0 and -1 only)
    return (w,) if nd else ()


def _as_int(d, name="dim"):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int or tuple of ints, not "
                        f"{type(d).__name__}")
    return int(d)


def _one_dim(name, dim, nd):
    if isinstance(dim, (list, tuple)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__} "
                        f"({name} reduces over a single dimension)")
    return _wrap_dim(_as_int(dim, name), nd)


def _opt_dtype(dtype):
    return None if dtype is None else _dtype.to_dtype(dtype)


def _out(r, out):
    if out is None:
        return r
    from .conversion import _write_out
    if isinstance(r, tuple):
        for src, dst in zip(r, out):
            _write_out(src, dst)
        return type(r)(*out) if hasattr(r, "_fields") else tuple(out)
    return _write_out(r, out)


def _empty_check(name, x, dims):
    shp = x._data.shape
    if x._data.size == 0:
        if dims is None:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                f"Specify the reduction dim with the 'dim' argument.")
        for d in dims:
            if shp[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _no_complex(name, x, exc=RuntimeError):
    if x._data.dtype.kind == "c":
        raise exc(f"{name}(): does not support complex input (got {x.dtype}); compare .abs() "
                  f"or .real instead")


# ============================================================ public: sum / mean / prod
@export()
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    """Sum of all elements, or over ``dim`` (int or tuple; ``()`` means all dims)."""
    if dim is None and dtype is None and out is None and not keepdim and \
            input.__class__ is Tensor:
        return unary(SUM, input)  # t.sum(): what the general path below does for it
    _check_tensor("sum", input)
    dtype = _opt_dtype(dtype)
    if dim is None:
        r = unary(SUM, input) if dtype is None else dispatch(SUM_DTYPE, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    return _out(dispatch(SUM_DIM, input, _dims(dim, input._data.ndim), bool(keepdim), dtype),
                out)


@export()
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_tensor("mean", input)
    dtype = _opt_dtype(dtype)
    d = input._data.dtype
    if dtype is None and d.kind not in "fcV":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name.capitalize()}")
    if dtype is not None and dtype.category < 2:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtype.name.capitalize()}")
    if dim is None:
        r = unary(MEAN, input) if dtype is None else dispatch(MEAN_DTYPE, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    return _out(dispatch(MEAN_DIM, input, _dims(dim, input._data.ndim), bool(keepdim), dtype),
                out)


@export()
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product of all elements, or over one ``dim``; exact gradients with zeros in the input."""
    _check_tensor("prod", input)
    dtype = _opt_dtype(dtype)
    if dim is None:
        r = dispatch(PROD, input, dtype)
        if keepdim:
            r = r.reshape((1,) * input._data.ndim)
        return _out(r, out)
    d = _one_dim("prod", dim, input._data.ndim)
    return _out(dispatch(PROD_DIM, input, d, bool(keepdim), dtype), out)


# ============================================================ public: max / min family
def _binary_extreme(name, input, other):
    public = "maximum" if name == "max" else "minimum"
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(other).__name__} "
                        f"(for a scalar bound use clamp)")
    from .pointwise_binary import maximum, minimum
    return (maximum if public == "maximum" else minimum)(input, other)


def _make_extreme(name, whole_op, dim_op, rtype):
    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        _check_tensor(name, input)
        if other is not None or isinstance(dim, Tensor):
            return _out(_binary_extreme(name, input, dim if other is None else other), out)
        _no_complex(name, input, NotImplementedError if dim is None else RuntimeError)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}(): keepdim=True needs a dim; use amax/amin(input, "
                                "dim=(), keepdim=True) to keep every dim")
            _empty_check(name, input, None)
            return _out(unary(whole_op, input), out)
        nd = input._data.ndim
        d = _one_dim(name, dim, nd)
        if nd:
            _empty_check(name, input, (d,))
        return _out(rtype(*dispatch(dim_op, input, d, bool(keepdim))), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input)``: the {name}imum value (gradient split evenly between "
                  f"ties); ``{name}(input, dim, keepdim=False)``: named tuple (values, indices), "
                  f"gradient to the index; ``{name}(input, other)``: elementwise "
                  f"{'maximum' if name == 'max' else 'minimum'}.")
    return fn


max = export("max")(_make_extreme("max", MAX, MAX_DIM, return_types.max))  # noqa: A001
min = export("min")(_make_extreme("min", MIN, MIN_DIM, return_types.min))  # noqa: A001


def _make_amax(name, op):
    def fn(input, dim=(), keepdim=False, *, out=None):
        _check_tensor(name, input)
        _no_complex(name, input, NotImplementedError)
        nd = input._data.ndim
        dims = _dims(dim, nd)
        if input._data.size == 0:
            every = dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)
            _empty_check(name, input, None if every else dims)
        return _out(dispatch(op, input, dims, bool(keepdim)), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input, dim=(), keepdim=False)``: {name[1:]}imum over ``dim`` (all "
                  f"dims when empty); the gradient is split evenly between ties.")
    return fn


amax = export("amax")(_make_amax("amax", AMAX))
amin = export("amin")(_make_amax("amin", AMIN))


def _make_argext(name, op):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        _no_complex(name, input)
        nd = input._data.ndim
        if dim is None:
            if input._data.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 f"input.numel() == 0.")
            return _out(dispatch(op, input, None, bool(keepdim)), out)
        d = _one_dim(name, dim, nd)
        if nd and input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _out(dispatch(op, input, d, bool(keepdim)), out)
    fn.__name__ = name
    return fn


argmax = export("argmax")(_make_argext("argmax", ARGMAX))
argmin = export("argmin")(_make_argext("argmin", ARGMIN))


# ============================================================ public: logsumexp, norms
def _float_input(x):
    if x._data.dtype.kind not in "fcV":
        return x.to(_dtype.get_default_dtype())
    return x


@export()
def logsumexp(input, dim, keepdim=False, *, out=None):
    """log(sum(exp(input), dim)), computed stably (the max is subtracted first)."""
    _check_tensor("logsumexp", input)
    x = _float_input(input)
    return _out(dispatch(LOGSUMEXP, x, _dims(dim, x._data.ndim), bool(keepdim)), out)


def _check_norm_input(name, x, dtype):
    d = x.dtype
    if d.category < 2:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.scalar_type_name(d)}")
    if dtype is not None:
        if dtype.category != d.category:
            kind = "complex" if d.category == 3 else "real"
            raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                               f"{_dtype.scalar_type_name(dtype)}")
        if dtype.itemsize < d.itemsize:
            raise RuntimeError(f"{name}: the dtype of the input ({_dtype.scalar_type_name(d)}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({_dtype.scalar_type_name(dtype)})")




def _check_ord(name, ord):
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}(): argument 'ord' must be a number, not {type(ord).__name__} "
                        f"(use linalg.matrix_norm for 'fro' and 'nuc')")
    return float(ord)


@export_linalg("vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``linalg.vector_norm``: the ``ord``-norm over ``dim`` (all dims when None)."""
    _check_tensor("linalg.vector_norm", x)
    ord = _check_ord("linalg.vector_norm", ord)
    dtype = _opt_dtype(dtype)
    _check_norm_input("linalg.vector_norm", x, dtype)
    nd = x._data.ndim
    dims = _dims(dim, nd)
    if ord in (_INF, -_INF) and x._data.size == 0 and (
            nd == 0 or builtins.any(x._data.shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor "
                           f"because the operation does not have an identity")
    return _out(dispatch(VECTOR_NORM, x, ord, dims, bool(keepdim), dtype), out)


@export()
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: vector p-norms (``'fro'`` is the 2-norm); ``'nuc'`` is the nuclear norm."""
    _check_tensor("norm", input)
    if isinstance(p, str):
        if p == "fro":
            if dim is not None and isinstance(dim, (list, tuple)) and len(dim) > 2:
                raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or "
                                   f"2. Got {list(dim)}")
            return vector_norm(input, 2, dim, keepdim, dtype=dtype, out=out)
        if p == "nuc":
            from .linalg import matrix_norm as mn
            if dim is None:
                dim = (-2, -1)
            if not isinstance(dim, (list, tuple)) or len(dim) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
            r = mn(input, "nuc", dim=tuple(dim), keepdim=keepdim, dtype=dtype)
            return _out(r, out)
        raise RuntimeError(f"norm(): unknown p {p!r}; use a number, 'fro' or 'nuc'")
    if p is None:
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


# ============================================================ public: var / std
def _var_args(name, input, dim, unbiased, keepdim, correction):
    _check_tensor(name, input)
    if isinstance(dim, bool):          # var(input, unbiased)
        if unbiased is not None and not isinstance(unbiased, bool):
            raise TypeError(f"{name}(): got both an 'unbiased' flag and a dim")
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}(): cannot specify both 'unbiased' and 'correction'; "
                        f"unbiased=True is correction=1, unbiased=False is correction=0")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    nd = input._data.ndim
    dims = _dims(dim, nd)
    n = F.numel(input._data.shape, dims)
    if n - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      f"than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    return dims, correction


@export()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim`` with ``correction`` (Bessel's by default; ``unbiased=`` legacy)."""
    dims, c = _var_args("var", input, dim, unbiased, keepdim, correction)
    return _out(dispatch(VAR, input, _all_none(dim, dims), c, bool(keepdim)), out)


@export()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim``; the gradient is 0 (not NaN) where the result is 0."""
    dims, c = _var_args("std", input, dim, unbiased, keepdim, correction)
    return _out(dispatch(STD, input, _all_none(dim, dims), c, bool(keepdim)), out)


def _all_none(dim, dims):
    """``dim=None`` stays None for var/std (PyTorch's rules and ``_saved_dim`` tell "all
    elements" from an explicit list of every dim)."""
    return None if dim is None or isinstance(dim, bool) else dims


# ============================================================ public: scans
def _make_scan(name, op):
    def fn(input, dim, *, dtype=None, out=None):
        _check_tensor(name, input)
        d = _one_dim(name, dim, input._data.ndim)
        return _out(dispatch(op, input, d, _opt_dtype(dtype)), out)

    def fn_(self, dim, *, dtype=None):
        d = _one_dim(name + "_", dim, self._data.ndim)
        dt = _opt_dtype(dtype)
        if dt is not None and dt != self.dtype:
            raise RuntimeError(f"{name}_(): dtype {dt} differs from self's {self.dtype}; use the "
                               f"out-of-place {name}")
        return dispatch_inplace(op, self, d, dt)
    fn.__name__, fn_.__name__ = name, name + "_"
    export(name)(fn)
    export(name + "_", function=False)(fn_)
    return fn


cumsum = _make_scan("cumsum", CUMSUM)
cumprod = _make_scan("cumprod", CUMPROD)


def _make_cumext(name, op, rtype):
    def fn(input, dim, *, out=None):
        _check_tensor(name, input)
        _no_complex(name, input, NotImplementedError)
        d = _one_dim(name, dim, input._data.ndim)
        return _out(rtype(*dispatch(op, input, d)), out)
    fn.__name__ = name
    export(name)(fn)
    return fn


cummax = _make_cumext("cummax", CUMMAX, return_types.cummax)
cummin = _make_cumext("cummin", CUMMIN, return_types.cummin)


# ============================================================ public: sorting
@export()
def sort(input, dim=-1, descending=False, *, stable=None, out=None):
    """(values, indices) sorted along ``dim``.  Always stable (equal elements keep their
    order; ``stable=False`` allows any order in PyTorch).  NaN sorts as the largest value.

    ``stable`` is keyword-only, as in PyTorch, where passing it picks the ``sort.stable``
    overload, whose node is ``SortBackward1``."""
    _check_tensor("sort", input)
    _no_complex("sort", input)
    d = _one_dim("sort", dim, input._data.ndim)
    values, indices = dispatch(SORT, input, bool(stable), d, bool(descending))
    if stable is not None and values._grad_fn is not None:
        from .views import _renamed
        _renamed(values._grad_fn, "SortBackward1")
    return _out(return_types.sort(values, indices), out)


@export()
def argsort(input, dim=-1, descending=False, stable=False):
    _check_tensor("argsort", input)
    _no_complex("argsort", input)
    d = _one_dim("argsort", dim, input._data.ndim)
    return dispatch(ARGSORT, input, bool(stable), d, bool(descending))


@export()
def msort(input, *, out=None):
    return _out(sort(input, 0).values, out)


@export()
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` as (values, indices).

    The result is always in sorted order (``sorted=False`` leaves the order unspecified in
    PyTorch).  Which of several equal elements is picked is unspecified too."""
    _check_tensor("topk", input)
    _no_complex("topk", input)
    nd = input._data.ndim
    d = _one_dim("topk", dim, nd)
    n = input._data.shape[d] if nd else 1
    k = _as_int(k, "topk")
    if k < 0 or k > n:
        raise RuntimeError(f"selected index k out of range (topk: k={k} but dimension {d} has "
                           f"size {n})")
    return _out(return_types.topk(*dispatch(TOPK, input, k, d, bool(largest), bool(sorted))),
                out)


# ============================================================ public: all / any
def _make_logical(name, op):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        nd = input._data.ndim
        if dim is None:
            dims = None
            if keepdim:
                dims = tuple(range(nd))
        else:
            dims = _dims(dim, nd, empty_means_all=False)
        return _out(dispatch(op, input, dims, bool(keepdim)), out)
    fn.__name__ = name
    fn.__doc__ = f"``{name}(input, dim=None, keepdim=False)``: logical {name} (bool result)."
    export(name)(fn)
    return fn


all = _make_logical("all", ALL)  # noqa: A001
any = _make_logical("any", ANY)  # noqa: A001
