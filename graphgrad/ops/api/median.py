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
from ..dispatch import dispatch, unary
from .reductions import _check_tensor, _one_dim, _out
from ..registry import export
from ..derivatives.median import MEDIAN, MEDIAN_DIM, NANMEDIAN, NANMEDIAN_DIM


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
