"""Shape functions PyTorch builds from other ops (its graphs are chains of views, cat, clone,
index_select): meshgrid, broadcast_tensors/broadcast_shapes, tensor_split and
hsplit/vsplit/dsplit, column_stack, repeat_interleave, cartesian_prod, combinations,
diagflat, Tensor.sum_to_size, and the index helpers tril_indices/triu_indices/unravel_index.

Each mirrors PyTorch's chain of nodes (``y.grad_fn`` and its ``next_functions``), so the
gradients, double backward and forward-mode tangents come from the ops it is made of.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..._core.dtypes import scalar_type_name, to_dtype
from ..._tensor.creation import tensor as _tensor
from ..._tensor.tensor import Size, Tensor, _wrap_dim
from ..dispatch import unary
from ..registry import export
from ._args import require
from ..derivatives.pointwise import CLONE_CONTIGUOUS
from ..derivatives.shape import SLICE
from ..dispatch import dispatch
from .copies import cat, stack
from .indexing import index_select, masked_select
from .linalg import diag_embed
from .reductions import sum as _sum
from .shape import expand, reshape, unsqueeze, view

_wrap = Tensor._wrap


def _tensors_arg(tensors):
    """meshgrid's tensors: varargs, or one list/tuple of them."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def _each_tensor(tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return list(tensors)


def int_arg(fn, name, pos, v):
    """An int argument as PyTorch's parser takes it (ints, NumPy ints, 0-d int tensors; not
    bools or floats)."""
    if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
        return int(v._data)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    return int(v)


# ============================================================ meshgrid / broadcasting
@export(method=False)
def meshgrid(*tensors, indexing=None):
    """Grids of 0-d/1-d tensors: input ``i`` viewed with its length at dim ``i`` and expanded
    (ViewBackward0 -> ExpandBackward0); ``indexing='xy'`` swaps the first two dims."""
    ts = _tensors_arg(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): expected Tensors, got {type(t).__name__}")
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a tensor of shape {list(t._data.shape)} (flatten it first)")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(f"meshgrid expects all tensors to have the same dtype (got "
                               f"{ts[0].dtype} and {t.dtype})")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._data.size for t in ts)
    grids = []
    for i, t in enumerate(ts):
        vs = [1] * len(ts)
        vs[i] = -1
        grids.append(expand(view(t, tuple(vs)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _shape_of(s, i):
    if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
        s = (int(s),)
    elif isinstance(s, Tensor):
        raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                           f"of ints, got {s} (broadcast_shapes takes shapes: pass t.shape)")
    try:
        s = tuple(int(v) for v in s)
    except TypeError:
        raise RuntimeError(f"broadcast_shapes(): argument {i} must be an int or a sequence of "
                           f"ints, got {s!r}") from None
    if any(v < 0 for v in s):
        raise ValueError("Attempting to broadcast a dimension with negative length!")
    return s


@export(method=False)
def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to (``torch.Size``)."""
    out = []
    for i, s in enumerate(shapes):
        s = _shape_of(s, i)
        if len(s) > len(out):
            out = [1] * (len(s) - len(out)) + out
        for j in range(1, len(s) + 1):
            a, b = out[-j], s[-j]
            if b == a or b == 1:
                continue
            if a == 1:
                out[-j] = b
                continue
            raise RuntimeError(f"Attempting to broadcast a dimension of length {b} at -{j}! "
                               f"Mismatching argument at index {i} had {s}; but expected shape "
                               f"should be broadcastable to {out}")
    return Size(tuple(out))


@export(method=False)
def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (ExpandBackward0; a tensor already of that
    shape is returned as it is, as in PyTorch); dtypes are kept."""
    ts = _each_tensor(tensors)
    shape = ()
    for t in ts:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            a, b = shape, t._data.shape
            n = max(len(a), len(b))
            a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
            k = next(k for k in range(n) if a[k] != b[k] and a[k] != 1 and b[k] != 1)
            raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b "
                               f"({b[k]}) at non-singleton dimension {k} (broadcast_tensors of "
                               f"shapes {[list(x._data.shape) for x in ts]})") from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in ts)


# ============================================================ tensor_split and friends
def _slice(input, d, start, stop):
    n = input._data.shape[d]
    start, stop, _ = slice(start, stop).indices(n)
    return dispatch(SLICE, input, d - input._data.ndim, start, max(start, stop), 1)


def _split_arg(fn, ios, kw):
    """PyTorch's overloads name the argument ``sections``, ``indices`` or
    ``tensor_indices_or_sections``; any one of them (or the positional one) is taken."""
    given = [v for v in (ios, *kw.values()) if v is not None]
    if len(given) != 1:
        raise TypeError(f"{fn}() takes one of indices_or_sections, sections, indices or "
                        f"tensor_indices_or_sections (got {len(given)})")
    return given[0]


@export()
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views (SliceBackward0) splitting ``dim`` into ``sections`` nearly equal pieces (the
    first ``n % sections`` one longer) or at the given indices."""
    indices_or_sections = _split_arg("tensor_split", indices_or_sections, {
        "sections": sections, "indices": indices,
        "tensor_indices_or_sections": tensor_indices_or_sections})
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {ios.dtype}")
        if ios._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {ios._data.ndim} dims")
        ios = int(ios._data) if ios._data.ndim == 0 else [int(v) for v in ios._data]
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    if isinstance(ios, (int, np.integer)):
        s = int(ios)
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        q, r = divmod(n, s)
        out, start = [], 0
        for i in range(s):
            size = q + (1 if i < r else 0)
            out.append(_slice(input, d, start, start + size))
            start += size
        return tuple(out)
    idx = [int(v) for v in ios]
    bounds = [0] + idx
    out = [_slice(input, d, bounds[i], bounds[i + 1]) for i in range(len(idx))]
    out.append(_slice(input, d, bounds[-1], n))
    return tuple(out)


def _xsplit(fn, input, ios, dim, min_nd):
    nd = input._data.ndim
    if nd < min_nd:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_nd} dimension, but "
                           f"got a tensor with {nd} dimensions!")
    if isinstance(ios, Tensor):
        raise TypeError(f"{fn}() received an invalid combination of arguments: got (Tensor, "
                        f"Tensor), but expected (Tensor input, int sections) or (Tensor input, "
                        f"tuple of ints indices)")
    if isinstance(ios, (int, np.integer)) and not isinstance(ios, bool):
        n = input._data.shape[dim]
        if ios == 0 or n % ios:
            raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{ios}!")
    return tensor_split(input, ios, dim)


@export()
def hsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 1 (dim 0 of a 1-d tensor); sections must divide evenly."""
    indices_or_sections = _split_arg("hsplit", indices_or_sections,
                                     {"sections": sections, "indices": indices})
    return _xsplit("hsplit", input, indices_or_sections, 1 if input._data.ndim > 1 else 0, 1)


@export()
def vsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims."""
    indices_or_sections = _split_arg("vsplit", indices_or_sections,
                                     {"sections": sections, "indices": indices})
    return _xsplit("vsplit", input, indices_or_sections, 0, 2)


@export()
def dsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims."""
    indices_or_sections = _split_arg("dsplit", indices_or_sections,
                                     {"sections": sections, "indices": indices})
    return _xsplit("dsplit", input, indices_or_sections, 2, 3)


@export(method=False)
def column_stack(tensors, *, out=None):
    """0-d and 1-d tensors as columns (a ViewBackward0 each), then ``cat`` along dim 1."""
    if isinstance(tensors, Tensor):
        raise TypeError("column_stack(): argument 'tensors' (position 1) must be tuple of "
                        "Tensors, not Tensor")
    ts = _each_tensor(tensors)
    if not ts:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in ts]
    return cat(cols, 1, out=out)


# ============================================================ repeat_interleave
def _repeats_index(reps, fn="repeat_interleave"):
    r = reps._data
    if r.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{scalar_type_name(reps.dtype)}' (repeats must be an "
                                  "integer tensor)")
    if r.ndim > 1:
        raise RuntimeError(f"{fn}: repeats must be 0-dim or 1-dim tensor (got shape "
                           f"{list(r.shape)})")
    if r.size and r.min() < 0:
        raise RuntimeError(f"{fn}: repeats can not be negative (got {r.tolist()})")
    return r.reshape(-1)


@export()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element repeated along ``dim`` (the flattened tensor when dim is None).

    An int repeat is PyTorch's unsqueeze -> expand -> clone -> view chain; a tensor of repeats
    an index_select (IndexSelectBackward0).  ``repeat_interleave(repeats)`` alone gives the
    indices ``arange(len(repeats))`` each repeated."""
    if repeats is None:     # torch.repeat_interleave(repeats_tensor)
        r = _repeats_index(input)
        if input._data.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        res = np.repeat(np.arange(r.size, dtype=np.int64), r)
        if output_size is not None and output_size != res.size:
            raise RuntimeError(f"repeat_interleave: output_size ({output_size}) must equal the "
                               f"sum of repeats ({res.size})")
        return _tensor(res.astype(input._data.dtype))
    if dim is None:
        input = reshape(input, (-1,))
        dim = 0
    nd = input._data.ndim
    d = _wrap_dim(dim, nd) if nd else 0
    if nd == 0:
        input = reshape(input, (1,))
        nd = 1
    n = input._data.shape[d]
    if isinstance(repeats, Tensor):
        r = _repeats_index(repeats)
        if r.size == 1:
            r = np.repeat(r, n)
        if r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.size} and input.size({d}) = {n}")
        idx = np.repeat(np.arange(n, dtype=np.int64), r)
        if output_size is not None and output_size != idx.size:
            raise RuntimeError(f"repeat_interleave: output_size ({output_size}) must equal the "
                               f"sum of repeats ({idx.size})")
        return index_select(input, d, _tensor(idx))
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError(f"repeat_interleave: repeats can not be negative (got {repeats})")
    if output_size is not None and output_size != n * repeats:
        raise RuntimeError(f"repeat_interleave: output_size ({output_size}) must equal the "
                           f"input's size along dim times repeats ({n * repeats})")
    shp = input._data.shape
    u = unsqueeze(input, d + 1)
    e = expand(u, shp[:d + 1] + (repeats,) + shp[d + 1:])
    return view(unary(CLONE_CONTIGUOUS, e), shp[:d] + (n * repeats,) + shp[d + 1:])


# ============================================================ products, combinations
@export(method=False)
def cartesian_prod(*tensors):
    """All tuples of elements of 1-d tensors: ``meshgrid(..., indexing='ij')`` flattened and
    stacked along dim 1 (a 1-d input is returned as it is)."""
    ts = _each_tensor(tensors)
    for t in ts:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)} "
                               "(cartesian_prod takes 1-d tensors)")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


@export(method=False)
def combinations(input, r=2, with_replacement=False):
    """Length-``r`` combinations of a 1-d tensor's elements (``itertools.combinations``
    order): the meshgrid of ``r`` copies masked by an ordering mask, stacked on dim 1."""
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)} "
                           "(combinations takes a 1-d tensor)")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(np.empty((0,), input._data.dtype))
    n = input._data.size
    grids = meshgrid(*([input] * r), indexing="ij")
    idx = np.meshgrid(*([np.arange(n)] * r), indexing="ij")
    mask = np.ones((n,) * r, dtype=bool)
    for i in range(r - 1):
        mask &= (idx[i] <= idx[i + 1]) if with_replacement else (idx[i] < idx[i + 1])
    m = _tensor(mask)
    return stack([masked_select(g, m) for g in grids], 1)


# ============================================================ diagflat / sum_to_size
@export()
def diagflat(input, offset=0):
    """The flattened input on the ``offset`` diagonal of a square matrix (ViewBackward0 ->
    DiagEmbedBackward0)."""
    offset = int_arg("diagflat", "offset", 2, offset)
    return diag_embed(reshape(input, (-1,)), offset, 0, 1)


@export(function=False)
def sum_to_size(input, *size, **kwargs):
    """The sum of ``input`` down to ``size`` (which it must expand to): SumBackward1 over
    the broadcast dims, or the tensor itself when the shapes match."""
    if "size" in kwargs and not size:
        size = (kwargs.pop("size"),)
    if kwargs:
        raise TypeError(f"sum_to_size() got an unexpected keyword argument {next(iter(kwargs))!r}")
    require("sum_to_size", size, "size")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shp = input._data.shape
    ok = len(size) <= len(shp) and all(
        s == t or s == 1 for s, t in zip(size[::-1], shp[::-1]))
    if not ok:
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shp))}}}.")
    if size == shp:
        return input
    lead = len(shp) - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shp[lead + i] != 1)
    r = _sum(input, dims, keepdim=True)
    if lead:
        r = view(r, size)
    return r


# ============================================================ index helpers
def _tri_indices(row, col, offset, dtype, upper):
    fn = "triu_indices" if upper else "tril_indices"
    d = to_dtype(dtype) if dtype is not None else None
    npd = np.dtype(np.int64) if d is None else np.dtype(d.np)
    if npd not in (np.dtype(np.int64), np.dtype(np.int32)):
        raise NotImplementedError(f'"{fn}" not implemented for \'{scalar_type_name(d)}\' '
                                  "(use dtype=torch.long or torch.int)")
    row, col = int_arg(fn, "row", 1, row), int_arg(fn, "col", 2, col)
    offset = int_arg(fn, "offset", 3, offset)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    r, c = np.indices((row, col))
    keep = (c - r >= offset) if upper else (c - r <= offset)
    out = np.stack([r[keep], c[keep]]).astype(npd)
    return _tensor(out)


@export(method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """A 2 x N int64 tensor of the (row, col) coordinates of the lower triangle."""
    return _tri_indices(row, col, offset, dtype, False)


@export(method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """A 2 x N int64 tensor of the (row, col) coordinates of the upper triangle."""
    return _tri_indices(row, col, offset, dtype, True)


@export(method=False)
def unravel_index(indices, shape):
    """Flat indices as a tuple of coordinate tensors (one per dim of ``shape``)."""
    if not isinstance(indices, Tensor):
        indices = _tensor(indices)
    if indices._data.dtype.kind not in "iu" or indices._data.dtype == np.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    ix = indices._data.astype(np.int64)
    if not shape:
        return ()
    out = []
    for s_ in shape[::-1]:   # (as PyTorch: no bounds check, coordinates modulo the sizes)
        out.append(ix % s_ if s_ else ix * 0)
        ix = ix // s_ if s_ else ix * 0
    return tuple(_tensor(a) for a in out[::-1])


__all__ = ["meshgrid", "broadcast_shapes", "broadcast_tensors", "tensor_split", "hsplit",
           "vsplit", "dsplit", "column_stack", "repeat_interleave", "cartesian_prod",
           "combinations", "diagflat", "sum_to_size", "tril_indices", "triu_indices",
           "unravel_index"]
