"""NumPy kernels of the reductions family: sum/mean/prod, max/min, norms, var/std, scans,
sorting.

Functions of ndarrays; the entries that use them are in ops/derivatives/reductions.py, the
public functions in ops/api/reductions.py.
"""
from __future__ import annotations

import builtins
import math
import warnings
import numpy as np

from .. import formulas as F
from ..._core.opmath import half_in_float32
from .pointwise_unary import _complex_abs


_INF = math.inf


# ============================================================ small polymorphic helpers
def _int_promote(a):
    return a.astype(np.int64) if a.dtype.kind in "bui" and a.dtype != np.int64 else a


def _c(r):
    """A reduction's result laid out row-major, as PyTorch's always are: NumPy's follows its
    input's layout (a permuted input gave a permuted result, whose reshape then copied
    instead of viewing, so an in-place op through it did not reach the result)."""
    r = np.asarray(r)
    return r if r.flags.c_contiguous else r.copy(order="C")


# ============================================================ sum / mean
# float16 and bfloat16 sums, means, scans and norms accumulate in float32, as PyTorch's do
# (NumPy would accumulate in bfloat16: a thousand ones would sum to 256; its float16 cumsum
# drifts); the wrapped functions take the operand already cast to its dtype= argument
@half_in_float32
def _sum_as_is(a, dim, keepdim):
    return _c(a.sum(axis=dim, keepdims=keepdim, dtype=a.dtype))


def _sum_kernel(a, dim, keepdim, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    return _sum_as_is(a, dim, keepdim)


@half_in_float32
def _mean(a, dim=None, keepdim=False):
    if a.size == 0:  # nan, quietly: NumPy would warn "Mean of empty slice", PyTorch does not
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return _c(a.mean(axis=dim, keepdims=keepdim))
    return _c(a.mean(axis=dim, keepdims=keepdim))


def _mean_kernel(a, dim, keepdim, dtype):
    if dtype is not None:
        a = a.astype(dtype.np, copy=False)
    return _mean(a, dim, keepdim)


# ============================================================ prod
def _prod_kernel(a, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    return np.asarray(a.prod(dtype=a.dtype))


def _prod_dim_kernel(a, dim, keepdim, dtype):
    a = _int_promote(a) if dtype is None else a.astype(dtype.np, copy=False)
    if a.ndim == 0:
        return a.copy()
    return _c(a.prod(axis=dim, keepdims=keepdim, dtype=a.dtype))


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


# ============================================================ max / min / amax / amin
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
        return _c(vals), _c(idx.astype(np.int64, copy=False))
    return kernel


def _amax_kernel(fn):
    def kernel(a, dim, keepdim):
        return _c(fn(a, axis=dim, keepdims=keepdim))
    return kernel


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
        return _c(np.asarray(fn(a, axis=dim, keepdims=keepdim), np.int64))
    return kernel


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
    return _c(r)


# ============================================================ vector norm
def _vector_norm_kernel(a, ord, dim, keepdim, dtype):
    if dtype is not None:
        a = a.astype(dtype.np, copy=False)
    return _vector_norm_of(a, ord, dim, keepdim)


@half_in_float32
def _vector_norm_of(a, ord, dim, keepdim):
    x = _complex_abs(a) if a.dtype.kind == "c" else np.abs(a)
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
    return _c(np.asarray(r, dtype=x.dtype))


# ============================================================ var / std
def _dof(sizes, dim, correction):
    return builtins.max(0, F.numel(sizes, dim) - correction)


def _var_kernel(a, dim, correction, keepdim, mean=None):
    d = a - (a.mean(axis=dim, keepdims=True) if mean is None else mean)
    sq = d.real * d.real + d.imag * d.imag if a.dtype.kind == "c" else d * d
    s = sq.sum(axis=dim, keepdims=keepdim)
    dof = _dof(a.shape, dim, correction)
    return np.asarray(s / dof if dof else s / 0.0)   # dof <= 0: inf/nan, as PyTorch


# longest reduction computed with PyTorch's sequential Welford steps: one Python step of
# four NumPy calls per reduced element (~2.5 us), so at 2048 a var took ~5 ms where the two
# passes take ~0.1 ms; beyond it the last bits may differ from PyTorch's (docs/differences.md)
_WELFORD_MAX = 128


def _welford(x, dim, correction, keepdim):
    """PyTorch's Welford var of float64 ``x`` over ``dim``, step by step along the reduced
    elements (vectorised over the results), so that it rounds as PyTorch's does."""
    dims = sorted(d % x.ndim for d in dim)
    keep = [d for d in range(x.ndim) if d not in dims]
    rows = np.transpose(x, keep + dims).reshape(-1, F.numel(x.shape, dims))
    mean = np.zeros(rows.shape[0])
    m2 = np.zeros(rows.shape[0])
    for j in range(rows.shape[1]):
        col = rows[:, j]
        delta = col - mean
        mean = mean + delta / (j + 1)
        m2 = m2 + delta * (col - mean)
    dof = _dof(x.shape, dims, correction)
    v = m2 / dof if dof else m2 / 0.0
    shape = [1 if d in dims else n for d, n in enumerate(x.shape)] if keepdim else \
        [x.shape[d] for d in keep]
    return v.reshape(shape)


def _var_of_real(a, dim, correction, keepdim):
    """The variance of real ``a`` as PyTorch's CPU kernel computes it (float64 for float32
    input): one result is two passes around ``a.mean()`` (a float32 mean for float32), the
    squares summed in order; several are Welford's, step by step up to _WELFORD_MAX
    reduced elements (beyond: two passes, and exactly 0 for a row of equal values, as
    Welford's)."""
    if not a.size:
        return _var_kernel(a, dim, correction, keepdim)
    dims = tuple(range(a.ndim)) if dim is None else tuple(dim)
    n = F.numel(a.shape, dims)
    full = F.numel(a.shape, None) == n
    x = a.astype(np.float64) if a.dtype == np.float32 else a
    if full:
        mean = a.mean(axis=dim, keepdims=True).astype(x.dtype) if x is not a else \
            x.mean(axis=dim, keepdims=True)
        d = (x - mean).reshape(-1)
        s = np.cumsum(d * d)[-1] if n <= 32768 else np.sum(d * d)   # (PyTorch's order)
        dof = _dof(a.shape, dim, correction)
        v = np.asarray(s / dof if dof else s / 0.0)
        return v.reshape((1,) * a.ndim) if keepdim else v.reshape(
            tuple(m for i, m in enumerate(a.shape) if i not in [d % a.ndim for d in dims]))
    if n <= _WELFORD_MAX:
        return _welford(x, dims, correction, keepdim)
    v = _var_kernel(x, dim, correction, keepdim)
    if _dof(a.shape, dim, correction):
        hi = x.max(axis=dim, keepdims=keepdim)
        equal = (hi == x.min(axis=dim, keepdims=keepdim)) & np.isfinite(hi)
        if equal.any():
            v = np.where(equal, 0.0, v).astype(v.dtype, copy=False)
    return v


def _var_std_kernel(a, dim, correction, keepdim, take_sqrt=False):
    """var, or std (``take_sqrt``), as PyTorch's CPU kernel: float32 accumulated in double
    and the square root taken there before rounding once (std([1e38, -1e38]) is 1.41e38,
    not inf from a float32 square); complex as the sum of its parts' variances, each
    rounded to the part's dtype."""
    if a.dtype.kind == "c":
        v = _var_std_kernel(a.real, dim, correction, keepdim) + \
            _var_std_kernel(a.imag, dim, correction, keepdim)
        return np.sqrt(v) if take_sqrt else v
    v = _var_of_real(a, dim, correction, keepdim)
    if take_sqrt:
        v = np.sqrt(v)
    return np.asarray(v).astype(a.dtype, copy=False)


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
        if fn is np.cumsum and r.dtype.kind in "fc":
            # PyTorch's running sum starts from 0: 0 + -0.0 is +0.0, so no partial sum is
            # -0.0 (NumPy copies a first -0.0 as is; atan2 of it then gives -pi, not pi)
            r += 0.0
        return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    return kernel


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


# ============================================================ all / any
def _logical_kernel(fn):
    def kernel(a, dim, keepdim):
        r = np.asarray(fn(a, axis=dim, keepdims=keepdim))
        return r.astype(np.uint8) if a.dtype == np.uint8 else r
    return kernel


_sum_all_general = half_in_float32(lambda a: np.asarray(_int_promote(a).sum()))


def _sum_all(a):
    if a.__class__ is np.ndarray and (a.dtype == np.float64 or a.dtype == np.float32):
        return np.asarray(a.sum())  # (the general kernel's result, without its wrapper)
    return _sum_all_general(a)


# ============================================================ prod / cumprod gradients
# (NumPy paths of the rules in ops/derivatives/_reduction_rules.py, exact with zeros)
def _prod_others_np(x, dim):
    """prod over the group of every element except itself, in O(n) (exact with zeros)."""
    a = x.reshape(-1) if dim is None else np.moveaxis(x, dim, -1)
    ones = np.ones(a.shape[:-1] + (1,), a.dtype)
    fwd = np.concatenate([ones, np.cumprod(a[..., :-1], axis=-1)], axis=-1)
    rev = np.concatenate([np.cumprod(a[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    r = fwd * rev
    return r.reshape(x.shape) if dim is None else np.moveaxis(r, -1, dim)


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
