"""Statistics family, table ops: nansum, aminmax, kthvalue, mode, logcumsumexp, dist, renorm.

Tie-breaking as PyTorch's CPU kernels: ``kthvalue`` picks among tied values as PyTorch's
quickselect does, ``mode`` returns the smallest of the most frequent values and the index
PyTorch's std::sort order puts last in its run (kernels/mode_order.py); ``aminmax`` splits
the gradient evenly between tied extremes.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import return_types
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import export
from .reductions import _check_tensor, _dims, _one_dim, _opt_dtype, _out
from ..derivatives.stats import (AMINMAX, DIST, KTHVALUE, LOGCUMSUMEXP, MODE, NANSUM, PDIST,
                                 RENORM)


def _dtype_name(x):
    return str(x.dtype).split(".")[-1].capitalize()


@export()
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating NaN as zero, of all elements or over ``dim`` (int or tuple)."""
    _check_tensor("nansum", input)
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum(): does not support complex inputs (got "
                           f"{input.dtype}); sum the real and imaginary parts separately")
    nd = input._data.ndim
    dims = None if dim is None else _dims(dim, nd)
    return _out(dispatch(NANSUM, input, dims, bool(keepdim), _opt_dtype(dtype)), out)


@export()
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """Named tuple (min, max) of all elements or along ``dim``."""
    _check_tensor("aminmax", input)
    nd = input._data.ndim
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        r = dispatch(AMINMAX, input, None, bool(keepdim))
    else:
        d = _one_dim("aminmax", dim, nd)
        if nd and input._data.shape[d] == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        if nd == 0:
            r = dispatch(AMINMAX, input, None, False)
        else:
            r = dispatch(AMINMAX, input, (d,), bool(keepdim))
    return _out(return_types.aminmax(*r), out)


@export()
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """Named tuple (values, indices): the ``k``-th smallest element along ``dim``."""
    _check_tensor("kthvalue", input)
    if (input._data.dtype == np.bool_ and input._data.ndim) or input._data.dtype.kind == "c":
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for "
                                  f"'{_dtype_name(input)}'")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"kthvalue(): argument 'k' (position 2) must be int, not "
                        f"{type(k).__name__}")
    nd = input._data.ndim
    d = _one_dim("kthvalue", dim, nd)
    n = input._data.shape[d] if nd else 1
    if not 1 <= int(k) <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} "
                           f"(k={int(k)}, but the dimension has size {n})")
    return _out(return_types.kthvalue(*dispatch(KTHVALUE, input, int(k), d, bool(keepdim))),
                out)


@export()
def mode(input, dim=-1, keepdim=False, *, out=None):
    """Named tuple (values, indices): the most frequent value along ``dim`` (the smallest
    among equally frequent ones) and PyTorch's index of it (its last occurrence in rows of
    up to 16 elements)."""
    _check_tensor("mode", input)
    if input._data.dtype.kind == "c":
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{_dtype_name(input)}'")
    nd = input._data.ndim
    d = _one_dim("mode", dim, nd)
    if nd and input._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return _out(return_types.mode(*dispatch(MODE, input, d, bool(keepdim))), out)


@export()
def logcumsumexp(input, dim, *, out=None):
    """log(cumsum(exp(input), dim)), computed stably."""
    _check_tensor("logcumsumexp", input)
    if input._data.dtype.kind in "biu":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{_dtype_name(input)}' (convert the input to a floating "
                                  f"dtype first)")
    d = _one_dim("logcumsumexp", dim, input._data.ndim)
    return _out(dispatch(LOGCUMSUMEXP, input, d), out)


@export()
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast)."""
    _check_tensor("dist", input)
    if not hasattr(other, "_data"):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    try:
        np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise RuntimeError(f"dist(): the shapes of input {list(input._data.shape)} and other "
                           f"{list(other._data.shape)} do not broadcast") from None
    if input._data.dtype.kind in "biu" or other._data.dtype.kind in "biu":
        raise RuntimeError(f"dist(): expected floating point or complex tensors, got "
                           f"{input.dtype} and {other.dtype}")
    return dispatch(DIST, input, other, float(p))


def _renorm_args(name, input, p, dim, maxnorm):
    _check_tensor(name, input)
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"{name}: input needs at least 2 dimensions, got {nd} dimensions")
    if not p > 0:
        raise RuntimeError(f"{name}: non-positive-norm not supported (got p={p})")
    if not maxnorm >= 0:
        raise RuntimeError(f"{name}: expected maxnorm to be >= 0 but got {maxnorm}")
    if input._data.dtype.kind in "biu":
        raise RuntimeError(f"{name}: expected a floating point or complex input, got "
                           f"{input.dtype}")
    return _one_dim(name, dim, nd), float(p), float(maxnorm)


@export()
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice ``input.select(dim, i)`` whose p-norm exceeds ``maxnorm`` scaled down to
    norm ``maxnorm``."""
    d, p, m = _renorm_args("renorm", input, p, dim, maxnorm)
    return _out(dispatch(RENORM, input, p, d, m), out)


@export(function=False)
def renorm_(self, p, dim, maxnorm):
    d, p, m = _renorm_args("renorm_", self, p, dim, maxnorm)
    return dispatch_inplace(RENORM, self, p, d, m)


@export(method=False)
def pdist(input, p=2):
    """The p-norm distances between each pair of rows of the 2-d ``input`` (i < j, row by
    row): ``N * (N - 1) / 2`` values.  Differentiable once, as PyTorch's (its double
    backward and forward-mode derivative raise NotImplementedError)."""
    _check_tensor("pdist", input)
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if not (input.dtype.is_floating_point):
        raise RuntimeError(f"pdist only supports floating-point dtypes (got {input.dtype})")
    if not p >= 0:
        raise RuntimeError(f"pdist only supports non-negative p values (got {p})")
    if input._data.dtype.itemsize == 2 and input._data.shape[0] > 1:   # (no pairs: no kernel)
        raise NotImplementedError(f"\"pdist\" not implemented for '{_dtype_name(input)}' (use "
                                  "float32 or float64)")
    return dispatch(PDIST, input, float(p))
