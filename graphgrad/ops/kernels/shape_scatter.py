"""NumPy kernels of the shape-scatter family: select/slice/diagonal_scatter, narrow_copy,
rot90, take/put, index_copy, index_fill, masked_scatter.

Dims are negative (counted from the end) and flat-index ops are told their input's logical
rank (``nd``), so every kernel also takes arrays with extra leading (batch) dims.  The entries
are in ops/derivatives/shape_scatter.py, the public functions in ops/api/shape_scatter.py.
"""
from __future__ import annotations

import numpy as np

from .linalg import _diag_view
from .shape import _select_key, _slice_key


def _cast(src, dtype):
    src = np.asarray(src)
    return src if src.dtype == dtype else src.astype(dtype)


# ============================================================ select/slice/diagonal_scatter
def _select_scatter_kernel(a, src, dim, index):
    out = np.array(a, order="C")
    s = _cast(src, a.dtype)
    lead = s.shape[:s.ndim - (a.ndim - 1)] if s.ndim >= a.ndim else ()
    if lead:   # a batched source into an unbatched self
        out = np.array(np.broadcast_to(a, lead + a.shape), order="C")
    out[_select_key(dim, index)] = s
    return out


def _slice_scatter_kernel(a, src, dim, start, end, step):
    out = np.array(a, order="C")
    s = _cast(src, a.dtype)
    if s.ndim > a.ndim:
        out = np.array(np.broadcast_to(a, s.shape[:s.ndim - a.ndim] + a.shape), order="C")
    out[_slice_key(dim, start, end, step)] = s
    return out


def _diagonal_scatter_kernel(a, src, offset, dim1, dim2):
    out = np.array(a, order="C")
    s = _cast(src, a.dtype)
    if s.ndim > a.ndim - 1:
        out = np.array(np.broadcast_to(a, s.shape[:s.ndim - a.ndim + 1] + a.shape), order="C")
    _diag_view(out, offset, dim1, dim2)[...] = s
    return out


def _narrow_copy_kernel(a, dim, start, length):
    return np.array(a[_slice_key(dim, start, start + length, 1)], order="C")


# ============================================================ rot90
def _rot90_kernel(a, k, dims):
    """PyTorch's layouts: k=1 and k=3 are a transposed view of a flipped copy, k=0 and k=2
    contiguous copies."""
    d0, d1 = dims
    k %= 4
    if k == 1:
        return np.ascontiguousarray(np.flip(a, d1)).swapaxes(d0, d1)
    if k == 2:
        return np.ascontiguousarray(np.flip(a, (d0, d1)))
    if k == 3:
        return np.ascontiguousarray(np.flip(a, d0)).swapaxes(d0, d1)
    return np.array(a, order="C")


# ============================================================ take / put
def _flat(a, nd):
    lead = a.shape[:a.ndim - nd]
    return a.reshape(lead + (-1,))


def _take_kernel(a, index, nd):
    f = _flat(a, nd)
    ix = np.asarray(index)
    return np.array(f[..., ix], order="C")   # (ascontiguousarray would make 0-d 1-d)


def _put_kernel(a, index, source, accumulate, nd, snd):
    """``put`` where ``source`` has ``snd`` logical dims (its leading ones are batch dims)."""
    s = _cast(source, a.dtype)
    ix = np.asarray(index).reshape(-1)
    slead = s.shape[:s.ndim - snd]
    lead = a.shape[:a.ndim - nd]
    b = np.broadcast_shapes(slead, lead)
    out = np.array(np.broadcast_to(a, b + a.shape[a.ndim - nd:]), order="C")
    f = out.reshape(b + (-1,))
    vals = np.broadcast_to(s.reshape(slead + (-1,)), b + (ix.size,))
    if accumulate:
        np.add.at(f, (Ellipsis, ix), vals)
    else:
        f[..., ix] = vals
    return out


def _take_backward_kernel(grad, index, sizes):
    nd_i = np.asarray(index).ndim
    lead = grad.shape[:grad.ndim - nd_i]
    z = np.zeros(lead + (int(np.prod(sizes, dtype=np.int64)),), grad.dtype)
    np.add.at(z, (Ellipsis, np.asarray(index).reshape(-1)),
              grad.reshape(lead + (-1,)))
    return z.reshape(lead + tuple(sizes))


# ============================================================ index_copy / index_fill
def _index_key(index, dim):
    return (Ellipsis, np.asarray(index).reshape(-1)) + (slice(None),) * (-dim - 1)


def _index_copy_kernel(a, index, source, dim):
    s = _cast(source, a.dtype)
    out = np.array(a, order="C")
    if dim is None:   # a 0-d self
        if s.ndim > a.ndim:
            out = np.array(np.broadcast_to(a, s.shape), order="C")
        out[...] = s
        return out
    if s.ndim > a.ndim:
        out = np.array(np.broadcast_to(a, s.shape[:s.ndim - a.ndim] + a.shape), order="C")
    out[_index_key(index, dim)] = s
    return out


def _index_fill_kernel(a, index, dim, value):
    out = np.array(a, order="C")
    v = _cast(value, a.dtype)
    if dim is None:
        out[...] = v
        return out
    out[_index_key(index, dim)] = v[..., None] if v.ndim else v
    return out


def _index_fill_tensor_kernel(a, index, value, dim, nd):
    """``value`` is logically 0-d: any dims it has are batch dims, as are ``a``'s beyond its
    ``nd`` logical ones."""
    v = _cast(value, a.dtype)
    lead = np.broadcast_shapes(a.shape[:a.ndim - nd], v.shape)
    out = np.array(np.broadcast_to(a, lead + a.shape[a.ndim - nd:]), order="C")
    if dim is None:
        out[...] = v
        return out
    out[_index_key(index, dim)] = v.reshape(v.shape + (1,) * nd)
    return out


# ============================================================ masked_scatter
def _masked_scatter_kernel(a, mask, source, nd, snd):
    """``mask`` has the output's logical shape (the API broadcasts it); ``a`` (``nd`` logical
    dims, broadcast to the mask's here) and ``source`` may carry leading batch dims."""
    s = _cast(source, a.dtype)
    m = np.asarray(mask, dtype=bool)
    lead_a = a.shape[:a.ndim - nd]
    if nd < m.ndim:
        a = a.reshape(lead_a + (1,) * (m.ndim - nd) + a.shape[a.ndim - nd:])
    slead = s.shape[:s.ndim - snd]
    lead = np.broadcast_shapes(lead_a, slead)
    out = np.array(np.broadcast_to(a, lead + m.shape), order="C")
    cnt = int(m.sum())
    out[(Ellipsis, m)] = np.broadcast_to(s.reshape(slead + (-1,))[..., :cnt], lead + (cnt,))
    return out


def _masked_scatter_backward_kernel(grad, mask, sizes):
    """The source's gradient: the masked gradient entries, zero-padded to the source's size."""
    m = np.asarray(mask, dtype=bool)
    lead = grad.shape[:grad.ndim - m.ndim]
    sel = grad[(Ellipsis, m)]
    z = np.zeros(lead + (int(np.prod(sizes, dtype=np.int64)),), grad.dtype)
    z[..., :sel.shape[-1]] = sel
    return z.reshape(lead + tuple(sizes))


# ============================================================ block_diag
def _block_2d(shape):
    """The block a 0-d, 1-d or 2-d input of ``shape`` makes in block_diag."""
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else tuple(shape)


def _block_diag_kernel(*args):
    """``args``: the inputs (already promoted; maybe with leading batch dims), then their
    logical shapes."""
    *arrays, shapes = args
    blocks = [_block_2d(s) for s in shapes]
    leads = [a.shape[:a.ndim - len(s)] for a, s in zip(arrays, shapes)]
    lead = np.broadcast_shapes(*leads) if leads else ()
    dtype = arrays[0].dtype if arrays else np.float32
    z = np.zeros(lead + (sum(b[0] for b in blocks), sum(b[1] for b in blocks)), dtype)
    r = c = 0
    for a, ld, (h, w) in zip(arrays, leads, blocks):
        z[..., r:r + h, c:c + w] = a.reshape(ld + (h, w))
        r, c = r + h, c + w
    return z
