"""NumPy functions composed from graphgrad.numpy's others, for Tensors: ``linspace`` (with
Tensor end points), ``nan_to_num``, ``select``, ``real_if_close``, ``partition``,
``gradient``, and the index tricks ``r_``/``c_`` (plain joins only)."""
from __future__ import annotations

import numpy as _np

from ..ops.api import (
    comparison as _api_comparison, pointwise as _api_pointwise,
    pointwise_unary as _api_pointwise_unary)
from ._core import data_of, has_tensor, normalize_axis_index, on_tensors, result_dtype, tensor
from ._shape import atleast_1d, concatenate, moveaxis, take_along_axis

__all__ = ["linspace", "nan_to_num", "select", "real_if_close", "partition", "gradient",
           "r_", "c_"]


@on_tensors(_np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Differentiable in ``start`` and ``stop`` (NumPy's formula: ``start + i * step``,
    the last point ``stop`` itself with ``endpoint``)."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = result_dtype(lambda a, b: _np.linspace(a, b, 2), start, stop, key="linspace")
    a, b = tensor(start, dt), tensor(stop, dt)
    shape = _np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    a, b = a.expand(shape), b.expand(shape)
    div = (num - 1) if endpoint else num
    steps = tensor(_np.arange(num, dtype=dt).reshape((-1,) + (1,) * len(shape)))
    delta = b - a
    if div > 0:
        step = delta / div
        y = steps * step + a
    else:
        step = delta * _np.nan
        y = steps * delta + a
    if endpoint and num > 1:
        y = concatenate([y[:-1], b.unsqueeze(0)], 0)
    if axis != 0:
        y = moveaxis(y, 0, normalize_axis_index(axis, y.ndim))
    if dtype is not None:
        y = tensor(y, _np.dtype(dtype))
    return (y, step) if retstep else y


@on_tensors(_np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """The gradient flows where ``x`` is finite."""
    t = tensor(x)
    if t._data.dtype.kind not in "fc":
        return t
    fin = _np.finfo(t._data.dtype)
    pos = fin.max if posinf is None else posinf
    neg = fin.min if neginf is None else neginf
    if t._data.dtype.kind == "c":
        re = nan_to_num(_api_pointwise.real(t), nan=nan, posinf=pos, neginf=neg)
        im = nan_to_num(_api_pointwise_unary.imag(t), nan=nan, posinf=pos, neginf=neg)
        return _api_pointwise_unary.complex(re, im)
    t = _api_comparison.where(_api_comparison.isnan(t), float(nan), t)
    t = _api_comparison.where(t == _np.inf, float(pos), t)
    return _api_comparison.where(t == -_np.inf, float(neg), t)


def select(condlist, choicelist, default=0):
    """The first condition that holds picks its choice (the default elsewhere)."""
    if not has_tensor(list(condlist), list(choicelist), default):
        return _np.select(condlist, choicelist, default)
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    dt = _np.result_type(*[tensor(c)._data.dtype for c in choicelist], _np.asarray(default))
    out = tensor(default, dt)
    for cond, choice in zip(condlist[::-1], choicelist[::-1]):
        c = tensor(cond)
        if c._data.dtype != _np.bool_:
            raise TypeError(f"invalid entry 0 in condlist: should be boolean ndarray, got "
                            f"{c._data.dtype}")
        out = _api_comparison.where(c, tensor(choice, dt), out)
    return out


select.__wrapped_numpy__ = _np.select


@on_tensors(_np.real_if_close)
def real_if_close(a, tol=100):
    t = tensor(a)
    if t._data.dtype.kind != "c":
        return t
    eps = _np.finfo(t._data.dtype).eps
    if _np.all(_np.abs(data_of(t).imag) < (tol * eps if tol > 1 else tol)):
        return _api_pointwise.real(t)
    return t


@on_tensors(_np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's order (from ``argpartition`` of the data); the gradient follows the values."""
    t = tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    idx = _np.argpartition(data_of(t), kth, axis=axis)
    return take_along_axis(t, idx, axis)


@on_tensors(_np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """Scalar spacings only (one for all axes or one per axis) on Tensors."""
    t = tensor(f)
    if t._data.dtype.kind not in "fc":
        t = tensor(t, _np.float64)
    axes = tuple(range(t.ndim)) if axis is None else \
        tuple(normalize_axis_index(a, t.ndim) for a in _np.atleast_1d(axis).tolist())
    if not varargs:
        hs = [1.0] * len(axes)
    elif len(varargs) == 1 and _np.ndim(varargs[0]) == 0:
        hs = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes) and all(_np.ndim(h) == 0 for h in varargs):
        hs = list(varargs)
    else:
        raise NotImplementedError("graphgrad.numpy.gradient: coordinate arrays as spacing are "
                                  "not supported on graphgrad Tensors (scalar spacings only)")
    if isinstance(edge_order, bool) or edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    outs = []
    for ax, h in zip(axes, hs):
        n = t.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        sl = lambda s, e: t.narrow(ax, s, e - s)   # noqa: E731
        mid = (sl(2, n) - sl(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2.0 * sl(1, 2) - 0.5 * sl(2, 3)) / h
            last = (0.5 * sl(n - 3, n - 2) - 2.0 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
        outs.append(concatenate([first, mid, last], ax))
    return outs[0] if len(outs) == 1 else tuple(outs)


class _Joiner:
    """``r_[...]``/``c_[...]``: NumPy's for NumPy data; with Tensors, items (arrays, scalars,
    lists, slices as NumPy's ranges) joined along the first axis (``r_``) or as columns
    (``c_``) -- string directives are NumPy-only."""

    def __init__(self, name, np_obj):
        self.name, self.np_obj = name, np_obj

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if not has_tensor(*items):
            return self.np_obj[key]
        if any(isinstance(i, str) for i in items):
            raise NotImplementedError(f"graphgrad.numpy.{self.name}: string directives are "
                                      "not supported with graphgrad Tensors")
        ts = [tensor(self.np_obj[i] if isinstance(i, slice) else i) for i in items]
        if self.name == "r_":
            return concatenate([atleast_1d(t) for t in ts], 0)
        cols = []
        for t in ts:
            t = atleast_1d(t)
            cols.append(t.reshape(-1, 1) if t.ndim == 1 else t)
        return concatenate(cols, -1)


r_ = _Joiner("r_", _np.r_)
c_ = _Joiner("c_", _np.c_)
