"""Indexing ops: advanced indexing and index_put_ (``__getitem__``/``__setitem__`` with index
lists, tensors and masks), index_select/index_add, masked_fill/masked_select and nonzero
(table entries and public functions).  The rest of the copies family: copies.py (cat, stack,
repeat, tile, flip, roll), gather_scatter.py (gather, scatter, scatter_add, take_along_dim)
and padding.py (nn.functional.pad).

Dims are stored negative (counted from the end) and index tensors are broadcast over leading
dims, so every backward rule also works on gradients with leading batch dimensions.  Index
tensors are non-differentiable tensor inputs (saved like PyTorch's ``_saved_index``): rules
see them as ndarrays, or as Tensors under create_graph / forward AD, and hand them on.
"""
from __future__ import annotations
from ..interpose import all_values

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import export
from ..._tensor.creation import tensor
from ..._core.dtypes import scalar_type_name
from ..derivatives.indexing import (
    INDEX, INDEX_ADD, INDEX_PUT, INDEX_SELECT, MASKED_FILL, MASKED_FILL_T, MASKED_SELECT)


_wrap = Tensor._wrap


def _neg(d, nd):
    """A wrapped dim of an nd-dim tensor as a negative index (batch-safe)."""
    return d - max(nd, 1)


# ============================================================ advanced indexing
def _plain(k):
    if isinstance(k, Tensor):
        return k._data.tolist()
    if isinstance(k, (list, tuple)):
        return [_plain(x) for x in k]
    return k


def _index_array(k):
    if isinstance(k, Tensor):
        arr = k._data
    elif isinstance(k, (np.ndarray, bool, np.bool_)):
        arr = np.asarray(k)
    else:
        arr = np.asarray(_plain(k))
        if arr.size == 0:
            arr = arr.astype(np.int64)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.bool_)  # PyTorch's deprecated byte masks
    if arr.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors "
                         f"(got an index of dtype {arr.dtype})")
    return arr


def _parse_key(self, key):
    """Apply the basic parts of ``key`` as views; returns (view, indices, touched)."""
    from .shape import basic_index_step
    nd = self._data.ndim
    arrs = [None] * len(key)
    consumed = n_ell = 0
    for i, k in enumerate(key):
        if k is None:
            continue
        if k is Ellipsis:
            n_ell += 1
        elif isinstance(k, slice) or isinstance(k, int) and not isinstance(k, bool):
            consumed += 1
        else:
            a = arrs[i] = _index_array(k)
            consumed += a.ndim if a.dtype == np.bool_ else 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out, dim, entries, touched = self, 0, [], False
    for i, k in enumerate(key):
        a = arrs[i]
        if a is not None:
            shp = out._data.shape
            if a.dtype == np.bool_:
                for j in range(a.ndim):
                    if a.shape[j] != shp[dim + j]:
                        raise IndexError(
                            f"The shape of the mask {list(a.shape)} at index {j} does not match "
                            f"the shape of the indexed tensor {list(shp)} at index {dim + j}")
                dim += a.ndim
            else:
                n = shp[dim]
                if a.size:
                    bad = a[(a >= n) | (a < -n)]
                    if bad.size:
                        raise IndexError(f"index {int(bad.reshape(-1)[0])} is out of bounds for "
                                         f"dimension {dim} with size {n}")
                dim += 1
            entries.append(a)
        elif k is Ellipsis:
            skip = nd - consumed
            entries.extend([slice(None)] * skip)
            dim += skip
        else:
            out, next_dim, made = basic_index_step(out, dim, k)
            if next_dim > dim:
                entries.append(slice(None))
            dim = next_dim
            touched = touched or made
    entries.extend([slice(None)] * (out._data.ndim - dim))
    return out, tuple(entries), touched


def advanced_getitem(self, key):
    """``self[key]`` for keys with index lists/tensors/masks (IndexBackward0)."""
    out, indices, _ = _parse_key(self, key)
    return dispatch(INDEX, out, indices)


def _values_for(self, values, fn, key=(), accumulate=False):
    if isinstance(values, Tensor):
        if values._data.dtype != self._data.dtype:
            if not accumulate and len(key) == 1 and isinstance(key[0], Tensor) and \
                    key[0]._data.dtype == np.bool_ and values._data.size == 1:
                # one value under a mask is PyTorch's masked_fill, which casts it
                return values.to(self.dtype)
            raise RuntimeError(
                f"Index put requires the source and destination dtypes match, got "
                f"{_type_name(self)} for the destination and {_type_name(values)} for the source. "
                f"({fn}: convert the values with .to({self.dtype}) first)")
        return values
    if isinstance(values, (bool, int, float, complex, np.generic)):
        if isinstance(values, complex) and self._data.dtype.kind != "c":
            raise RuntimeError(f"{fn}: value cannot be converted to type {self.dtype} without "
                               "overflow")
        return values
    return tensor(values, dtype=self.dtype)


def _type_name(t):
    return scalar_type_name(t.dtype)


vmap_index_hook = None   # set by graphgrad.func while a vmap level is active


@export()
def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (or ``+=`` with ``accumulate=True``), differentiable in both.

    ``indices`` is a tuple of index tensors (lists, masks, and -- as for ``__setitem__`` --
    ints, slices, None and Ellipsis are accepted too).
    """
    key = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
    if vmap_index_hook is not None:   # graphgrad.func.vmap: batched index tensors
        r = vmap_index_hook(input, key, values, "put", accumulate)
        if r is not NotImplemented:
            return r
    values = _values_for(input, values, "index_put_", key, accumulate)
    out, idx, _ = _parse_key(input, key)
    if all(isinstance(k, slice) for k in idx):
        # a basic key: plain copy into the view (x[0] = v)
        from .inplace import copy_, fill_
        if accumulate:
            out.add_(values)
        elif isinstance(values, Tensor):
            copy_(out, values)
        else:
            fill_(out, values)
        return input
    dispatch_inplace(INDEX_PUT, out, values, idx, bool(accumulate))
    return input


@export()
def index_put(input, indices, values, accumulate=False):
    """Out-of-place ``index_put_``."""
    key = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
    if vmap_index_hook is not None:   # graphgrad.func.vmap: batched index tensors
        r = vmap_index_hook(input, key, values, "put_out", accumulate)
        if r is not NotImplemented:
            return r
    values = _values_for(input, values, "index_put", key, accumulate)
    out, idx, touched = _parse_key(input, key)
    if touched or all(isinstance(k, slice) for k in idx):
        return index_put_(input.clone(), key, values, accumulate)
    return dispatch(INDEX_PUT, input, values, idx, bool(accumulate))


@export()
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim
    with ``as_tuple=True``.  Not differentiable."""
    d = input._data
    if as_tuple:
        if d.ndim == 0:
            return (_wrap(np.zeros(int(bool(d)), np.int64)),)
        return tuple(_wrap(i.astype(np.int64)) for i in np.nonzero(d))
    r = _wrap(np.argwhere(d).astype(np.int64))
    if out is not None:
        from .conversion import _write_out
        return _write_out(r, out)
    return r


@export()
def argwhere(input):
    """``nonzero(input)``: the (n, ndim) indices of the non-zero elements."""
    return nonzero(input)


def _finish(r, out):
    if out is None:
        return r
    from .conversion import _write_out
    return _write_out(r, out)


# ============================================================ index_select / index_add
def _check_vector_index(fn, input, dim, index):
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index (got {index.dtype})")
    if ix.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector (got shape "
                         f"{list(ix.shape)})")
    n = input._data.shape[d] if nd else 1
    if nd == 0 and ix.size != 1:
        raise RuntimeError(f"{fn}(): Index to scalar can have only 1 value, got {ix.size} "
                           "value(s)")
    if ix.size:
        vals = all_values(ix)  # (under vmap: every example's indices)
        bad = vals[(vals < 0) | (vals >= n)]
        if bad.size:
            msg = (f"{fn}(): index {int(bad.reshape(-1)[0])} is out of bounds for dimension "
                   f"{d} with size {n}")
            if fn == "index_select" and nd > 1 and (d != 0 or input._data.size == 0):
                # PyTorch's CPU kernel checks these cases with RuntimeError (only its
                # dim-0 loop and 1-D inputs raise IndexError)
                if n == 0:
                    msg += " (index_select(): self indexing axis dim should be positive)"
                raise RuntimeError(msg)
            raise IndexError(msg)
    return None if nd == 0 else _neg(d, nd)


@export()
def index_select(input, dim, index, *, out=None):
    """The entries ``index`` (a 1-D int tensor) along ``dim`` (IndexSelectBackward0)."""
    d = _check_vector_index("index_select", input, dim, index)
    return _finish(dispatch(INDEX_SELECT, input, index, d), out)


def _index_add_args(fn, input, dim, index, source):
    d = _check_vector_index(fn, input, dim, index)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): self ({_type_name(input)}) and source ({_type_name(source)})"
                           " must have the same scalar type")
    n_idx = index._data.size
    if input._data.ndim:
        exp = list(input._data.shape)
        exp[_wrap_dim(dim, input._data.ndim)] = n_idx
        if list(source._data.shape) != exp and not (source._data.ndim == 0 and n_idx == 1 and
                                                    input._data.ndim == 1):
            raise RuntimeError(f"{fn}(): source has shape {list(source._data.shape)} but "
                               f"expected {exp} (self's shape with the indexed dim of size "
                               "len(index))")
    return d


@export()
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """A copy of ``input`` with ``alpha * source`` added at the entries ``index`` of ``dim``."""
    d = _index_add_args("index_add", input, dim, index, source)
    return _finish(dispatch(INDEX_ADD, input, index, source, d, alpha), out)


@export(function=False)
def index_add_(input, dim, index, source, *, alpha=1):
    d = _index_add_args("index_add_", input, dim, index, source)
    return dispatch_inplace(INDEX_ADD, input, index, source, d, alpha)


# ============================================================ masked ops
def _check_mask(fn, mask):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{fn}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{fn} only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype} (use mask.bool())")


def _fill_value(fn, input, value):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"{fn} only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value._data.ndim} dimension(s).")
        if value._data.dtype.kind == "c" and input._data.dtype.kind != "c":
            raise RuntimeError(f"value cannot be converted to type {input.dtype} without "
                               "overflow")
        return value
    if isinstance(value, complex) and input._data.dtype.kind != "c":
        raise RuntimeError(f"value cannot be converted to type {input.dtype} without overflow")
    return value


@export()
def masked_fill(input, mask, value):
    """A copy of ``input`` with ``value`` where ``mask`` is True (mask broadcasts)."""
    _check_mask("masked_fill_", mask)
    value = _fill_value("masked_fill_", input, value)
    if isinstance(value, Tensor):
        return dispatch(MASKED_FILL_T, input, mask, value)
    return dispatch(MASKED_FILL, input, mask, value)


@export(function=False)
def masked_fill_(input, mask, value):
    _check_mask("masked_fill_", mask)
    value = _fill_value("masked_fill_", input, value)
    if isinstance(value, Tensor):
        return dispatch_inplace(MASKED_FILL_T, input, mask, value)
    return dispatch_inplace(MASKED_FILL, input, mask, value)


@export()
def masked_select(input, mask, *, out=None):
    """The elements where ``mask`` (broadcast with input) is True, as a 1-D tensor."""
    _check_mask("masked_select", mask)
    try:
        np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise RuntimeError(f"masked_select(): shapes {list(input._data.shape)} and "
                           f"{list(mask._data.shape)} do not broadcast") from None
    return _finish(dispatch(MASKED_SELECT, input, mask), out)
