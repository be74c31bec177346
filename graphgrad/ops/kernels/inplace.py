"""NumPy kernels of the inplace family: the view-chain ops of CopySlices and view regeneration;
zero_, fill_, copy_.

Functions of ndarrays; the entries that use them are in ops/derivatives/inplace.py, the
public functions in ops/api/inplace.py.
"""
from __future__ import annotations

import numpy as np

from ..inplace import _overlaps
from ..dispatch import replay_view
from ...autograd.engine.accumulate import _dense


# ---------------------------------------------------------------- the base's layout
# PyTorch's CopySlices lays the base's gradient out as the base (its strides) before it
# replays the view on it. A backward chain (CopySlices, AsStridedBackward0) of a base that is
# not row-major starts with ``_RELAYOUT(order)``: the arrays these kernels make for the base
# are laid out in that order, so the replayed views alias them; any other array is copied
# into that layout (a gradient is read only). A row-major base's chain has no such root and
# its arrays are row-major.
def _laid_out(shape, dtype, order, nb=0):
    """An uninitialised array of ``shape`` whose last dims (after ``nb`` leading ones) are
    laid out in ``order`` (slowest first)."""
    if order is None:
        return np.empty(shape, dtype)
    full = tuple(range(nb)) + tuple(nb + d for d in order)
    return np.empty([shape[d] for d in full], dtype).transpose(np.argsort(full))


def _has_order(a, order):
    return _dense(a) and all(a.strides[p] >= a.strides[q] for p, q in zip(order, order[1:]))


def _relayout_kernel(a, order):
    if _has_order(a, order):
        return a
    out = _laid_out(a.shape, a.dtype, order)
    out[...] = a
    return out


def _root_order(chain):
    while chain is not None:
        parent, op, attrs = chain
        if parent is None and op.name == "_relayout":  # (RELAYOUT, by name)
            return attrs[0]
        chain = parent
    return None


def _view_scatter_kernel(grad, chain, base_sizes, view_ndim, base_dtype=None):
    lead = grad.shape[:grad.ndim - view_ndim]
    # the base's dtype: views such as real/imag/view_as_real change the dtype
    order = _root_order(chain)
    z = _laid_out(lead + tuple(base_sizes), grad.dtype if base_dtype is None else base_dtype,
                  order, len(lead))
    z[...] = 0
    if not lead:
        region = replay_view(chain, z)
        if _overlaps(region):  # (an expand in the chain) several elements share one place
            _scatter_add(z, chain, grad)
        else:
            region[...] = grad
        return z
    for i in np.ndindex(*lead):
        r, g = z[i], grad[i]
        region = replay_view(chain, r)
        if _overlaps(region):
            _scatter_add(r, chain, g)
        else:
            region[...] = g
    return z


def _scatter_add(z, chain, grad):
    # the adjoint of an overlapping view sums: replay the chain on the element numbers
    if z.dtype.kind == "c":
        _scatter_add_complex(z, chain, grad)
        return
    idx = np.broadcast_to(replay_view(chain, np.arange(z.size).reshape(z.shape)), grad.shape)
    if z.flags.c_contiguous:
        np.add.at(z.reshape(-1), idx.reshape(-1), grad.reshape(-1))
    else:  # (a base laid out otherwise: the element numbers are row-major ones)
        np.add.at(z, np.unravel_index(idx.reshape(-1), z.shape), grad.reshape(-1))


def _scatter_add_complex(z, chain, grad):
    """_scatter_add into a complex base, whose view chain may turn real (view_as_real, real,
    imag): the element numbers are those of the base's real view (re of element k is 2k,
    im 2k + 1), carried as a complex array through the chain, so a real view of it reads
    them and a complex one keeps 2k in its real part. (Integer numbers replayed through
    view_as_real gave every element number 0: the gradient of a write into an expanded
    view of view_as_real all went to the first element, fuzz seed 1505491.)"""
    k = 2.0 * np.arange(z.size)
    ids = replay_view(chain, (k + 1j * (k + 1)).reshape(z.shape))
    idx = np.broadcast_to(ids, grad.shape).reshape(-1)
    acc = np.zeros(z.shape, z.dtype)  # row-major: the numbers are row-major ones
    if idx.dtype.kind == "c":
        np.add.at(acc.reshape(-1), (idx.real // 2).astype(np.intp), grad.reshape(-1))
    else:
        flat = acc.reshape(-1).view(np.empty(0, z.dtype).real.dtype)
        np.add.at(flat, idx.astype(np.intp), grad.reshape(-1))
    z += acc


def _view_zero_kernel(grad, chain, base_ndim):
    """``grad`` with the view's region set to zero (a copy)."""
    nb = grad.ndim - base_ndim
    order = _root_order(chain)
    if order is None:
        z = np.array(grad, order="C")  # (row-major: the replayed views must alias z)
    else:
        z = _laid_out(grad.shape, grad.dtype, order, nb)
        z[...] = grad
    if not nb:
        replay_view(chain, z)[...] = 0
    else:
        for i in np.ndindex(*z.shape[:nb]):
            replay_view(chain, z[i])[...] = 0
    return z


# ================================================================ zero_, fill_, copy_
def _copy_kernel(a, src):
    return np.broadcast_to(src, a.shape).astype(a.dtype, copy=True) if isinstance(
        src, np.ndarray) else np.full_like(a, src)
