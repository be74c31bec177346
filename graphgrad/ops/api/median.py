"""median / nanmedian: the lower middle value (whole tensor) or named tuple (values,
indices) along a dim.

Gradients as PyTorch: the whole-tensor forms split the gradient evenly between the
elements equal to the result (between the NaNs when the result is NaN); the ``dim``
forms send it to the returned index.  ``median`` propagates NaN (a row with a NaN has
median NaN, index of its first NaN); ``nanmedian`` ignores NaNs (all-NaN rows give NaN).
"""
from __future__ import annotations

import numpy as np

from ... import return_types
from ..._tensor.tensor import Tensor
from ..dispatch import dispatch, unary
from .reductions import (_check_tensor, _even_backward, _even_jvp, _one_dim, _out,
                         _select_backward, _select_jvp)
from ..registry import defop, export


def _has_nan(a):
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


def _whole_kernel(ignore_nan):
    def kernel(a):
        flat = a.reshape(-1)
        nan = _has_nan(flat)
        if flat.size == 0 or (nan.any() and not ignore_nan) or nan.all():
            return np.asarray(np.nan if a.dtype.kind in "fc" else 0, a.dtype)
        s = np.sort(flat[~nan]) if ignore_nan else np.sort(flat)
        return np.asarray(s[(s.size - 1) // 2])
    return kernel


def _dim_kernel(ignore_nan):
    def kernel(a, dim, keepdim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        n = a.shape[dim]
        order = np.argsort(a, axis=dim, kind="stable")        # NaNs sort last
        cnt = (~_has_nan(a)).sum(axis=dim, keepdims=True)     # non-NaN values per row
        if ignore_nan:
            k = np.where(cnt > 0, (cnt - 1) // 2, 0)
        else:
            k = np.where(cnt < n, cnt, (n - 1) // 2)          # first NaN, or the middle
        idx = np.take_along_axis(order, k, axis=dim)
        vals = np.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
        return vals, idx.astype(np.int64, copy=False)
    return kernel


def _whole_op(name, node, ignore_nan):
    return defop(f"{name}(self)", _whole_kernel(ignore_nan), node,
                 self=lambda grad, self, result:
                     _even_backward(grad, self, result, None, False, True),
                 jvp=lambda self_t, self, result:
                     _even_jvp(self_t, self, result, None, False),
                 batched_jvp=True)


def _dim_op(name, node, ignore_nan):
    return defop(f"{name}.dim(self, *, dim, keepdim)", _dim_kernel(ignore_nan), node,
                 n_outputs=2, nondiff_outputs=(1,),
                 self=lambda grad, result1, self_sym_sizes, dim, keepdim:
                     _select_backward(grad, result1, self_sym_sizes, dim, keepdim),
                 jvp=lambda self_t, self_sym_sizes, result1, dim, keepdim:
                     (_select_jvp(self_t, result1, dim, keepdim, len(self_sym_sizes)), None),
                 batched_jvp=True)


MEDIAN = _whole_op("median", "MedianBackward0", False)
NANMEDIAN = _whole_op("nanmedian", "NanmedianBackward0", True)
MEDIAN_DIM = _dim_op("median", "MedianBackward1", False)
NANMEDIAN_DIM = _dim_op("nanmedian", "NanmedianBackward1", True)


def _make(name, whole, by_dim, rtype):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        if input._data.dtype == np.bool_:
            raise NotImplementedError(f"{name}(): not implemented for 'Bool'")
        if input._data.dtype.kind == "c":
            raise RuntimeError(f"{name}(): not implemented for '{input.dtype}' (median needs "
                               "real numbers)")
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}(): keepdim=True needs a dim")
            return _out(unary(whole, input), out)
        nd = input._data.ndim
        d = _one_dim(name, dim, nd)
        if nd and input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _out(rtype(*dispatch(by_dim, input, d, bool(keepdim))), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input)``: the lower middle value; ``{name}(input, dim, "
                  "keepdim=False)``: named tuple (values, indices).")
    return fn


median = export("median")(_make("median", MEDIAN, MEDIAN_DIM, return_types.median))
nanmedian = export("nanmedian")(_make("nanmedian", NANMEDIAN, NANMEDIAN_DIM,
                                      return_types.nanmedian))
