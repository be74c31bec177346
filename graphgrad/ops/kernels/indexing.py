"""NumPy kernels of the indexing family: advanced indexing, index_put_, index_select/index_add,
masked ops, nonzero.

Functions of ndarrays; the entries that use them are in ops/derivatives/indexing.py, the
public functions in ops/api/indexing.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32


# ============================================================ advanced indexing
# ``indices`` is a tuple with one entry per indexed dim: slice(None) or an index ndarray
# (int, or bool covering as many dims as it has).  Basic parts of a key (ints, slices, None,
# Ellipsis) were applied before as views, as PyTorch does, so NumPy's rule for where the
# indexed dims go (in place when the index arrays are adjacent, else in front) is PyTorch's.
def _consumed(indices):
    """How many dims of the indexed tensor ``indices`` covers."""
    n = 0
    for k in indices:
        n += k.ndim if not isinstance(k, slice) and k.dtype == np.bool_ else 1
    return n


def _adv_shape(indices):
    shapes = [((int(k.sum()),) if k.dtype == np.bool_ else k.shape)
              for k in indices if not isinstance(k, slice)]
    return np.broadcast_shapes(*shapes)


def _adjacent(indices):
    pos = [i for i, k in enumerate(indices) if not isinstance(k, slice)]
    return pos[-1] - pos[0] + 1 == len(pos)


def _index_result_shape(sizes, indices):
    adv = _adv_shape(indices)
    before, after, d, seen = [], [], 0, False
    for k in indices:
        if isinstance(k, slice):
            (after if seen else before).append(len(range(*k.indices(sizes[d]))))
            d += 1
        else:
            seen = True
            d += k.ndim if k.dtype == np.bool_ else 1
    rest = tuple(sizes[d:])
    if _adjacent(indices):
        return tuple(before) + adv + tuple(after) + rest
    return adv + tuple(before) + tuple(after) + rest


def _batched(indices, nb):
    return (slice(None),) * nb + tuple(indices)


def _batch_first(r, indices, nb):
    # NumPy puts non-adjacent index dims in front of the leading (batch) slices: move them back
    if nb and not _adjacent(indices):
        k = len(_adv_shape(indices))
        r = np.moveaxis(r, tuple(range(k, k + nb)), tuple(range(nb)))
    return r


def _key_layout(v, indices, nb):
    if nb and not _adjacent(indices):
        k = len(_adv_shape(indices))
        v = np.moveaxis(v, tuple(range(nb)), tuple(range(k, k + nb)))
    return v


def _index_kernel(a, indices):
    nb = a.ndim - _consumed(indices)
    # NumPy puts advanced-index results in whatever order it iterated; PyTorch's are row-major
    return np.asarray(_batch_first(a[_batched(indices, nb)], indices, nb), order="C")


def _may_repeat(indices):
    """Whether an element can be selected more than once (then scatter must accumulate)."""
    return any(not isinstance(k, slice) and k.dtype != np.bool_ for k in indices)


def _index_backward_kernel(grad, sizes, indices):
    n_adv = sum(k.ndim if k.dtype == np.bool_ else 1 for k in indices if not isinstance(k, slice))
    nb = grad.ndim - (len(sizes) - n_adv + len(_adv_shape(indices)))
    z = np.zeros(grad.shape[:nb] + tuple(sizes), grad.dtype)
    key = _batched(indices, nb)
    g = _key_layout(grad, indices, nb)
    if _may_repeat(indices):
        np.add.at(z, key, g)
    else:
        z[key] = g
    return z


def _index_put_kernel(a, values, indices, accumulate, into=False):
    # into: write into ``a`` itself (an expanded tensor: each location takes the value of
    # its last write, in index order, as in PyTorch)
    out = a if into else a.copy()
    nb = a.ndim - _consumed(indices)
    key = _batched(indices, nb)
    v = np.asarray(values)
    if v.dtype != out.dtype:
        v = v.astype(out.dtype)
    if nb:
        v = np.broadcast_to(v, a.shape[:nb] + _index_result_shape(a.shape[nb:], indices))
        v = _key_layout(v, indices, nb)
    if accumulate:
        np.add.at(out, key, v)
    else:
        out[key] = v
    return out


# ============================================================ index_select / index_add
def _index_select_kernel(a, index, dim):
    if dim is None:
        return a[..., None][..., index.reshape(-1)].reshape(a.shape)
    return np.take(a, index.reshape(-1), axis=dim)


def _index_add_into(z, index, source, dim):
    if dim is None:
        z[...] += source * index.size
        return z
    np.add.at(z, (Ellipsis, index.reshape(-1)) + (slice(None),) * (-dim - 1), source)
    return z


@half_in_float32  # (repeated indices of a half-precision gradient accumulate in float32)
def _index_select_backward_kernel(grad, index, sizes, dim):
    lead = grad.shape[:grad.ndim - max(len(sizes), 0)] if dim is not None else grad.shape
    return _index_add_into(np.zeros(lead + tuple(sizes), grad.dtype), index, grad, dim)


def _index_add_kernel(a, index, source, dim, alpha):
    src = np.asarray(source)
    if alpha != 1:
        src = src * alpha
    return _index_add_into(a.copy(), index, src.astype(a.dtype, copy=False), dim)


# ============================================================ masked ops
def _masked_fill_kernel(a, mask, value):
    # (np.where follows a transposed input's layout; PyTorch's result is contiguous)
    r = np.where(mask, np.asarray(value).astype(a.dtype), a)
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


def _masked_select_kernel(a, mask):
    ab, mb = np.broadcast_arrays(a, mask)
    return ab[mb]


def _masked_select_backward_kernel(grad, mask, sizes):
    shape = np.broadcast_shapes(tuple(sizes), mask.shape)
    z = np.zeros(grad.shape[:-1] + shape, grad.dtype)
    z[(Ellipsis, np.broadcast_to(mask, shape))] = grad
    return z
