"""NumPy kernels of the shape family: view/reshape, transpose, expand, (un)squeeze, select,
slice.

Functions of ndarrays; the entries that use them are in ops/derivatives/shape.py, the public
functions in ops/api/shape.py.
"""
from __future__ import annotations

import numpy as np


def _view_kernel(a, size):
    # (a NumPy scalar, as some reductions give for a 0-d gradient, has no shape to set)
    out = a.view() if isinstance(a, np.ndarray) else np.asarray(a).view()
    try:
        out.shape = size
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return out


def _expand_kernel(a, size):
    # PyTorch's strides: 0 only on the dims it expands (new ones and size 1 -> n); a size-1
    # dim kept at size 1 keeps its stride, so writing through such a view is allowed
    lead = len(size) - a.ndim
    if lead < 0:
        return np.broadcast_to(a, size)  # (raises NumPy's error; callers check first)
    st = (0,) * lead + tuple(s if n == m else 0
                             for n, m, s in zip(a.shape, size[lead:], a.strides))
    return np.lib.stride_tricks.as_strided(a, tuple(size), st)


def _select_key(dim, index):
    # dim < 0: index from the end, so leading batch dims pass through
    return (Ellipsis, index) + (slice(None),) * (-dim - 1)


def _select_backward_kernel(grad, sizes, dim, index):
    lead = grad.shape[:grad.ndim - (len(sizes) - 1)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    z[_select_key(dim, index)] = grad
    return z


def _slice_key(dim, start, end, step):
    return (Ellipsis, slice(start, end, step)) + (slice(None),) * (-dim - 1)


def _slice_backward_kernel(grad, sizes, dim, start, end, step):
    if grad.ndim == len(sizes) and dim == -grad.ndim:  # (t[a:b]'s: no batch dims, dim 0)
        z = np.zeros(sizes, grad.dtype)
        z[start:end:step] = grad
        return z
    lead = grad.shape[:grad.ndim - len(sizes)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    z[_slice_key(dim, start, end, step)] = grad
    return z
