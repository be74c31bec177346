"""NumPy's reductions and scans over Tensors, with NumPy's arguments: ``axis`` (None, an
int or a tuple), ``keepdims``, ``ddof``, ``dtype``; the result dtype is NumPy's (``mean``
of ints is float64, ``sum`` of bools int64)."""
from __future__ import annotations

import builtins

import numpy as _np

from ..ops.api import (
    comparison as _api_comparison, reductions as _api_reductions, shape as _api_shape)
from ._core import axes, complex_of, data_of, on_tensors, result_dtype, tensor
from ._shape import concatenate, take_along_axis

__all__ = ["sum", "mean", "var", "std", "max", "min", "amax", "amin", "prod", "cumsum",
           "cumprod", "average", "sort", "diff", "ptp", "nansum"]


def _unsupported(name, **kw):
    bad = [k for k, v in kw.items() if v is not None]
    if bad:
        raise NotImplementedError(f"graphgrad.numpy.{name}: {bad} not supported on graphgrad "
                                  "Tensors")


def _prep(np_func, a, dtype, **kw):
    """``a`` as a Tensor in the dtype NumPy's reduction computes in."""
    t = tensor(a)
    extra = {"dtype": dtype} if dtype is not None else {}
    dt = result_dtype(lambda z: np_func(_np.atleast_1d(z), **extra, **kw), t,
                      key=(np_func, dtype) + tuple(sorted(kw.items())))
    work = complex_of(dt) if t._data.dtype.kind == "c" and dt.kind == "f" else dt
    return tensor(t, work), dt


def _reduce(fn, t, axis, keepdims):
    dims = axes(axis, t.ndim)
    if not dims:   # (0-d, or axis=()): each element reduced alone -- var 0, sum itself
        return fn(t.unsqueeze(-1), (t.ndim,), False)
    return fn(t, dims, keepdims)


@on_tensors(_np.sum)
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    _unsupported("sum", out=out, initial=initial, where=where)
    t, _ = _prep(_np.sum, a, dtype)
    return _reduce(lambda x, d, k: _api_reductions.sum(x, d, keepdim=k), t, axis, keepdims)


@on_tensors(_np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    _unsupported("nansum", out=out)
    t, _ = _prep(_np.nansum, a, dtype)
    t = _api_comparison.where(_api_comparison.isnan(t), 0.0, t)
    return _reduce(lambda x, d, k: _api_reductions.sum(x, d, keepdim=k), t, axis, keepdims)


@on_tensors(_np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _unsupported("mean", out=out, where=where)
    t, _ = _prep(_np.mean, a, dtype)
    return _reduce(lambda x, d, k: _api_reductions.mean(x, d, keepdim=k), t, axis, keepdims)


def _moment(name, np_func, gg_fn):
    @on_tensors(np_func, name)
    def fn(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, **kw):
        _unsupported(name, out=out, where=where)
        ddof = kw.pop("correction", ddof)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kw))!r}")
        t, _ = _prep(np_func, a, dtype)
        return _reduce(lambda x, d, k: gg_fn(x, d, correction=ddof, keepdim=k), t, axis,
                       keepdims)
    fn.__name__ = fn.__qualname__ = name
    return fn


var = _moment("var", _np.var, _api_reductions.var)
std = _moment("std", _np.std, _api_reductions.std)


def _extreme(name, np_func, gg_fn, ufunc_name):
    @on_tensors(np_func, name)
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        """Ties share the gradient equally (NumPy has none; HIPS autograd and PyTorch's
        amax/amin do so)."""
        _unsupported(name, out=out, initial=initial, where=where)
        t = tensor(a)
        dims = axes(axis, t.ndim)
        if any(t.shape[d] == 0 for d in dims) or (t.ndim and t.numel() == 0):
            raise ValueError(f"zero-size array to reduction operation {ufunc_name} which has "
                             "no identity")
        if not dims:
            return t.clone()
        if t._data.dtype.kind == "c":
            return _complex_extreme(name, t, dims, keepdims, gg_fn is _api_reductions.amax)
        return gg_fn(t, dims, keepdim=keepdims)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _complex_extreme(name, t, dims, keepdims, is_max):
    """NumPy orders complex numbers lexicographically (real part, then imaginary): the
    element it picks (from the data) is taken, and gets the gradient."""
    if len(dims) == t.ndim and t.ndim > 1:
        flat = _complex_extreme(name, t.reshape(-1), (0,), False, is_max)
        return flat.reshape((1,) * t.ndim) if keepdims else flat
    if len(dims) != 1:
        raise NotImplementedError(f"graphgrad.numpy.{name}: complex input reduced over several "
                                  "axes is not supported on graphgrad Tensors")
    d = dims[0]
    pick = _np.argmax if is_max else _np.argmin
    idx = pick(data_of(t), axis=d, keepdims=True)
    out = take_along_axis(t, idx, d)
    return out if keepdims else out.squeeze(d)


amax = _extreme("amax", _np.amax, _api_reductions.amax, "maximum")
amin = _extreme("amin", _np.amin, _api_reductions.amin, "minimum")
max = _extreme("max", _np.max, _api_reductions.amax, "maximum")  # noqa: A001
min = _extreme("min", _np.min, _api_reductions.amin, "minimum")  # noqa: A001


@on_tensors(_np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    return amax(a, axis, out, keepdims) - amin(a, axis, out, keepdims)


@on_tensors(_np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _unsupported("prod", out=out, initial=initial, where=where)
    t, _ = _prep(_np.prod, a, dtype)
    dims = axes(axis, t.ndim)
    if not dims:
        return t.clone()
    if len(dims) == t.ndim and not keepdims:
        return _api_reductions.prod(t)
    for d in sorted(dims, reverse=True):
        t = _api_reductions.prod(t, d, keepdim=True)
    return t if keepdims else t.reshape([s for i, s in enumerate(t.shape) if i not in dims])


def _scan(name, np_func, gg_fn):
    @on_tensors(np_func, name)
    def fn(a, axis=None, dtype=None, out=None):
        """``axis=None`` scans the flattened array."""
        _unsupported(name, out=out)
        t, _ = _prep(np_func, a, dtype)
        if axis is None:
            t, axis = t.reshape(-1), 0
        d = axes(axis, t.ndim)[0] if t.ndim else 0
        return gg_fn(t.reshape(1) if t.ndim == 0 else t, d)
    fn.__name__ = fn.__qualname__ = name
    return fn


cumsum = _scan("cumsum", _np.cumsum, _api_reductions.cumsum)
cumprod = _scan("cumprod", _np.cumprod, _api_reductions.cumprod)


@on_tensors(_np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    t = tensor(a)
    if weights is None:
        m = mean(t, axis, keepdims=keepdims)
        return (m, m * 0 + t.numel() // builtins.max(1, m.numel())) if returned else m
    w = tensor(weights)
    dt = result_dtype(lambda x, y: _np.average(_np.atleast_1d(x), weights=_np.atleast_1d(y)),
                      t, w, key="average")
    t, w = tensor(t, dt), tensor(w, dt)
    if w.shape != t.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = axes(axis, t.ndim)[0]
        if w.shape[0] != t.shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = w.reshape([w.shape[0] if i == ax else 1 for i in range(t.ndim)])
    wsum = sum(_api_shape.broadcast_to(w, _np.broadcast_shapes(tuple(w.shape), tuple(t.shape))),
               axis, keepdims=keepdims)
    avg = sum(t * w, axis, keepdims=keepdims) / wsum
    return (avg, wsum) if returned else avg


@on_tensors(_np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    t = tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    d = axes(axis, t.ndim)[0]
    return _api_reductions.sort(t, d).values


@on_tensors(_np.diff)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    t = tensor(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    ax = axes(axis, t.ndim)[0]
    if prepend is not None or append is not None:
        def edge(p):
            p = tensor(p, t._data.dtype)
            if p.ndim == 0:
                p = p.expand([1 if i == ax else s for i, s in enumerate(t.shape)])
            return p
        parts = ([edge(prepend)] if prepend is not None else []) + [t] + \
            ([edge(append)] if append is not None else [])
        t = concatenate(parts, axis=ax)
    for _ in range(n):
        m = builtins.max(t.shape[ax] - 1, 0)
        t = t.narrow(ax, 1, m) - t.narrow(ax, 0, m)
    return t
