"""NumPy kernels of the views family: permute/movedim, unflatten, unbind/split/chunk,
as_strided, view_as_real.

Functions of ndarrays; the entries that use them are in ops/derivatives/views.py, the public
functions in ops/api/views.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from .shape import _select_key, _slice_key


# ---------------------------------------------------------------- table entries
def _permute_kernel(a, dims):
    # dims are negative (from the end), so leading batch dims stay in front
    lead = a.ndim - len(dims)
    return a.transpose(tuple(range(lead)) + tuple(a.ndim + d for d in dims))


# Multi-output views.  ``n_outputs=2`` marks "several outputs": the kernel returns a tuple
# whose length depends on the call (the dispatcher and the node take the count from it).
# Each output is recorded as its own select/slice view of the input (see _set_output_views),
# so in-place ops on one output replay exactly that output's region.
def _unbind_kernel(a, dim):
    return tuple(a[_select_key(dim, i)] for i in range(a.shape[dim]))


def _split_bounds(n, split_size):
    if n == 0:
        return ((0, 0),)
    return tuple((s, min(s + split_size, n)) for s in range(0, n, split_size))


def _bounds_of_sizes(sizes):
    out, s = [], 0
    for k in sizes:
        out.append((s, s + k))
        s += k
    return tuple(out)


def _split_kernel(a, split_size, dim):
    return tuple(a[_slice_key(dim, s, e, 1)] for s, e in _split_bounds(a.shape[dim], split_size))


def _split_with_sizes_kernel(a, split_sizes, dim):
    return tuple(a[_slice_key(dim, s, e, 1)] for s, e in _bounds_of_sizes(split_sizes))


# as_strided: the input's elements in row-major order play the role of the storage (the
# public function checks that this equals PyTorch's storage view of the input).  Strides and
# offset are in elements.  A non-contiguous array (a replayed gradient) is read through a copy.
def _as_strided_extent(size, stride, offset):
    if any(s == 0 for s in size):
        return 0
    return offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))


def _as_strided_kernel(a, size, stride, storage_offset):
    flat = a.reshape(-1)
    if _as_strided_extent(size, stride, storage_offset) > flat.size:
        raise RuntimeError(
            f"as_strided: sizes {list(size)}, strides {list(stride)} and storage offset "
            f"{storage_offset} are out of bounds for an input of {flat.size} elements")
    isz = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[storage_offset:], shape=size,
                                           strides=tuple(s * isz for s in stride))


def _strided_positions(size, stride, offset):
    pos = np.full(tuple(size), offset, dtype=np.int64)
    for i, (n, st) in enumerate(zip(size, stride)):
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape((n,) + (1,) * (len(size) - i - 1))
    return pos


def _as_strided_backward_kernel(grad, sizes, size, stride, storage_offset):
    # each input element gets the sum of the output gradients at its position
    nb = grad.ndim - len(size)
    numel = F.numel(sizes)
    z = np.zeros(grad.shape[:nb] + (numel,), grad.dtype)
    pos = _strided_positions(size, stride, storage_offset)
    g = grad.reshape(grad.shape[:nb] + (-1,))
    np.add.at(z, (Ellipsis, pos.reshape(-1)), g)
    return z.reshape(grad.shape[:nb] + tuple(sizes))


def _as_strided_gather_kernel(x, sizes, size, stride, storage_offset):
    # as_strided as a copy, batch-safe: the trailing len(sizes) dims are the "storage"
    nb = x.ndim - len(sizes)
    pos = _strided_positions(size, stride, storage_offset)
    return x.reshape(x.shape[:nb] + (-1,))[..., pos]


# unfold: the windows of ``size`` elements, ``step`` apart, along dim ``dim`` (< 0; a 0-d
# input reads as one element), a new last dim of the window's elements.  A view; when the
# windows overlap it is read-only, as an expanded array is (PyTorch refuses in-place writes
# where elements share memory).
def _unfold_kernel(a, dim, size, step):
    if a.ndim == 0:  # (PyTorch: shape (size,), no dim for the one window)
        return np.lib.stride_tricks.as_strided(a.reshape(1), shape=(size,),
                                               strides=(a.itemsize,), writeable=size <= 1)
    n = a.shape[dim]
    shape = list(a.shape)
    strides = list(a.strides)
    shape[dim] = (n - size) // step + 1
    strides[dim] = a.strides[dim] * step
    return np.lib.stride_tricks.as_strided(a, shape=tuple(shape) + (size,),
                                           strides=tuple(strides) + (a.strides[dim],),
                                           writeable=size <= step and a.flags.writeable)


def _unfold_backward_kernel(grad, input_sizes, dim, size, step):
    """Each input element gets the sum of the gradients of the window places it fills."""
    if not input_sizes:  # a 0-d input: its one window is the grad's last dim
        return grad.sum(-1)
    nb = grad.ndim - len(input_sizes) - 1
    z = np.zeros(grad.shape[:nb] + tuple(input_sizes), grad.dtype)
    windows = grad.shape[dim - 1]  # (the grad has one more dim: the window's, last)
    zd = np.moveaxis(z, dim, -1)    # a view of z: the unfolded dim last
    gd = np.moveaxis(grad, dim - 1, -2)  # (..., windows, size)
    if size <= windows:  # one strided slice per place in the window
        for k in range(size):
            zd[..., k:k + step * (windows - 1) + 1:step] += gd[..., k]
    else:  # one slice per window
        for w in range(windows):
            zd[..., w * step:w * step + size] += gd[..., w, :]
    return z


def _view_as_real_kernel(a):
    return a[..., None].view(a.real.dtype)


def _view_as_complex_kernel(a):
    return a.view(np.complex64 if a.dtype == np.float32 else np.complex128)[..., 0]
