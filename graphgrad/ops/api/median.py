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
from ..._core.dtypes import scalar_type_name
from ..._core.state import tls
from ..dispatch import dispatch, unary
from .reductions import _check_tensor, _one_dim, _out
from ..registry import export
from ..derivatives.median import MEDIAN, MEDIAN_DIM, NANMEDIAN, NANMEDIAN_DIM


def _no_complex_median(name, input, kernel, always=False):
    """PyTorch's refusals of a complex input: its kernel's NotImplementedError (the whole
    tensor's kernel runs only on elements), or, for an empty one that requires grad,
    autograd's RuntimeError."""
    if input._data.size or always:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{scalar_type_name(input._data.dtype)}' ({name} needs real "
                                  f"numbers; take it of .real or .abs())")
    if input._requires_grad and tls.grad_enabled:
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                           f"with complex dtype. ({name} of an empty complex tensor that "
                           f"requires grad: detach() it or call it under no_grad())")


def _make(name, whole, by_dim, rtype):
    def fn(input, dim=None, keepdim=False, *, out=None):
        _check_tensor(name, input)
        if input._data.dtype == np.bool_:
            raise NotImplementedError(f"{name}(): not implemented for 'Bool'")
        cplx = input._data.dtype.kind == "c"
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}(): keepdim=True needs a dim")
            if cplx:
                _no_complex_median(name, input, "median_cpu")
            return _out(unary(whole, input), out)
        nd = input._data.ndim
        d = _one_dim(name, dim, nd)
        if nd and input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        if cplx:
            _no_complex_median(name, input, "median_out", always=True)
        return _out(rtype(*dispatch(by_dim, input, d, bool(keepdim))), out)
    fn.__name__ = name
    fn.__doc__ = (f"``{name}(input)``: the lower middle value; ``{name}(input, dim, "
                  "keepdim=False)``: named tuple (values, indices).")
    return fn


median = export("median")(_make("median", MEDIAN, MEDIAN_DIM, return_types.median))
nanmedian = export("nanmedian")(_make("nanmedian", NANMEDIAN, NANMEDIAN_DIM,
                                      return_types.nanmedian))
