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

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .. import formulas as F
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..._core.opmath import half_in_float32
from ..registry import LINEAR, POINTWISE, defop, export

_wrap = Tensor._wrap


def _is_t(x):
    return isinstance(x, Tensor)


def _neg(d, nd):
    """A wrapped dim of an nd-dim tensor as a negative index (batch-safe)."""
    return d - max(nd, 1)


@half_in_float32  # (half-precision sums accumulate in float32, as PyTorch's do)
def _sum_dims(x, dims):
    """Sum over ``dims`` (negative), dropping them; ndarray or Tensor."""
    if not dims:
        return x
    if _is_t(x):
        from .reductions import sum as _sum
        return _sum(x, tuple(dims))
    return x.sum(axis=tuple(dims))


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


def _index_put_batched(self_t, values_t, self, values, indices, accumulate):
    """index_put with batched tangents: the values' tangent is padded to the indexed
    region's rank and self's tangent gets the batch dims when only the values have them."""
    nd = F.ndim(self)
    if isinstance(values, Tensor):
        nv = F.ndim(values)
        batch = F.batch_shape(values_t, nv)
        if batch:
            region = _index_result_shape(F.shape(self), indices)
            values_t = F.pad_batched(values_t, nv, len(region))
            if F.ndim(self_t) == nd:
                self_t = F.expand(self_t, batch + F.shape(self))
    return F.index_put(self_t, values_t, indices, accumulate)


INDEX = defop("index(self, *, indices)", _index_kernel, "IndexBackward0",
              self=lambda grad, self_sym_sizes, indices:
                  F.index_backward(grad, tuple(self_sym_sizes), indices),
              jvp=LINEAR, batched_jvp=True)
INDEX_BACKWARD = defop("index_backward(grad, *, sizes, indices)", _index_backward_kernel,
                       "IndexPutBackward0",
                       grad=lambda grad, indices: F.index(grad, indices), jvp=LINEAR,
                       batched_jvp=True)
INDEX_PUT = defop("index_put(self, values, *, indices, accumulate)", _index_put_kernel,
                  "IndexPutBackward0",
                  self=lambda grad, indices, accumulate:
                      grad if accumulate else F.index_put(grad, 0, indices, False),
                  values=lambda grad, indices: F.index(grad, indices),
                  jvp=LINEAR, batched_jvp=_index_put_batched)


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


@export()
def index_put_(input, indices, values, accumulate=False):
    """``input[indices] = values`` (or ``+=`` with ``accumulate=True``), differentiable in both.

    ``indices`` is a tuple of index tensors (lists, masks, and -- as for ``__setitem__`` --
    ints, slices, None and Ellipsis are accepted too).
    """
    key = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
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


def _times(x, alpha):
    return x if alpha == 1 else x * F.conj(alpha)


INDEX_SELECT = defop("index_select(self, index, *, dim)", _index_select_kernel,
                     "IndexSelectBackward0",
                     self=lambda grad, self_sym_sizes, index, dim:
                         F.index_select_backward(grad, index, tuple(self_sym_sizes), dim),
                     jvp=lambda self_t, index, dim: F.index_select(self_t, index, dim),
                     batched_jvp=True)
INDEX_SELECT_BACKWARD = defop("index_select_backward(grad, index, *, sizes, dim)",
                              _index_select_backward_kernel, "IndexAddBackward0",
                              grad=lambda grad, index, dim: F.index_select(grad, index, dim),
                              jvp=lambda grad_t, index, sizes, dim:
                                  F.index_select_backward(grad_t, index, sizes, dim),
                              batched_jvp=True)
INDEX_ADD = defop("index_add(self, index, source, *, dim, alpha)", _index_add_kernel,
                  "IndexAddBackward0",
                  self=lambda grad: grad,
                  source=lambda grad, index, dim, alpha:
                      _times(F.index_select(grad, index, dim), alpha),
                  jvp=lambda self_t, source_t, index, dim, alpha:
                      F.index_add(self_t, index, source_t, dim, alpha),
                  batched_jvp=lambda self_t, source_t, self_sym_sizes, source_sym_sizes, index,
                                     dim, alpha:
                      F.index_add(F.match_batch(self_t, len(self_sym_sizes), source_t,
                                                len(source_sym_sizes)),
                                  index, source_t, dim, alpha))


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
        bad = ix[(ix < 0) | (ix >= n)]
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
def _masked_fill_kernel(a, mask, value):
    # (np.where follows a transposed input's layout; PyTorch's result is contiguous)
    r = np.where(mask, np.asarray(value).astype(a.dtype), a)
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


MASKED_FILL = defop("masked_fill.Scalar(self, mask, *, value)", _masked_fill_kernel,
                    "MaskedFillBackward0",
                    self=lambda grad, mask: F.masked_fill_Scalar(grad, mask, 0),
                    jvp=lambda self_t, mask: F.masked_fill_Scalar(self_t, mask, 0),
                    batched_jvp=POINTWISE)
MASKED_FILL_T = defop("masked_fill.Tensor(self, mask, value)",
                      lambda a, mask, value: _masked_fill_kernel(a, mask, value),
                      "MaskedFillBackward1",
                      self=lambda grad, mask: F.masked_fill_Scalar(grad, mask, 0),
                      value=lambda grad, mask: F.where(mask, grad, 0),  # the engine sums to ()
                      jvp=lambda self_t, value_t, mask: F.masked_fill_Tensor(self_t, mask,
                                                                              value_t),
                      batched_jvp=POINTWISE)


def _masked_select_kernel(a, mask):
    ab, mb = np.broadcast_arrays(a, mask)
    return ab[mb]


def _masked_select_batched(self_t, self_sym_sizes, mask):
    """masked_select of a batched tangent: an index with the (broadcast) mask after the
    batch dims, so each batch entry keeps its own selected elements."""
    nd = len(self_sym_sizes)
    m = mask._data.astype(np.bool_, copy=False)
    shape = np.broadcast_shapes(tuple(self_sym_sizes), m.shape)
    t = F.expand(F.pad_batched(self_t, nd, len(shape)), F.batch_shape(self_t, nd) + shape)
    return F.index(t, (np.broadcast_to(m, shape),))


def _masked_select_backward_kernel(grad, mask, sizes):
    shape = np.broadcast_shapes(tuple(sizes), mask.shape)
    z = np.zeros(grad.shape[:-1] + shape, grad.dtype)
    z[(Ellipsis, np.broadcast_to(mask, shape))] = grad
    return z


MASKED_SELECT = defop("masked_select(self, mask)", _masked_select_kernel,
                      "MaskedSelectBackward0",
                      self=lambda grad, self_sym_sizes, mask:
                          F.masked_select_backward(grad, mask, tuple(self_sym_sizes)),
                      jvp=lambda self_t, mask: F.masked_select(self_t, mask),
                      batched_jvp=lambda self_t, self_sym_sizes, mask:
                          _masked_select_batched(self_t, self_sym_sizes, mask))
MASKED_SELECT_BACKWARD = defop("masked_select_backward(grad, mask, *, sizes)",
                               _masked_select_backward_kernel, "MaskedScatterBackward0",
                               grad=lambda grad, mask: F.masked_select(grad, mask),
                               jvp=lambda grad_t, mask, sizes:
                                   F.masked_select_backward(grad_t, mask, sizes), batched_jvp=True)


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


# the rest of the family registers on import; names re-exported for callers of this module
from . import copies, gather_scatter, padding  # noqa: E402,F401
from .copies import cat, stack  # noqa: E402,F401
from ..._tensor.creation import tensor
from ..._core.dtypes import scalar_type_name
