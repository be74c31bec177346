"""Public functions of the shape-scatter family: select/slice/diagonal_scatter, narrow_copy,
rot90, take, put/put_, index_copy(_), index_fill(_), masked_scatter(_) -- argument checks
with PyTorch's errors, then dispatch of the entries in ops/derivatives/shape_scatter.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..interpose import all_values
from ..registry import export
from ..._core.state import tls
from ..derivatives.shape_scatter import (
    DIAGONAL_SCATTER, INDEX_COPY, INDEX_FILL, INDEX_FILL_T, MASKED_SCATTER, NARROW_COPY, PUT,
    ROT90, SELECT_SCATTER, SLICE_SCATTER, TAKE, block_diag_op)
from .indexing import _finish
from .shape import expand, narrow, select
from .shape_composite import int_arg
from .linalg import diagonal
from ..._tensor.creation import tensor as _tensor


def _tn(t):
    return scalar_type_name(t.dtype)


def _req(fn, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def _no_complex_grad(fn, input, src):
    """PyTorch's select/slice_scatter have no complex derivative: it refuses to record one."""
    if (input._data.dtype.kind == "c" or src._data.dtype.kind == "c") and tls.grad_enabled \
            and (input.requires_grad or src.requires_grad):
        raise RuntimeError(f"{fn} does not support automatic differentiation for outputs with "
                           "complex dtype.")


def _check_src_size(src, view):
    if tuple(src._data.shape) != tuple(view._data.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(view._data.shape)}")


# ============================================================ select/slice/diagonal_scatter
@export()
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    _req("select_scatter", input=input, src=src)
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select_scatter(): cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {d}")
    index %= n
    _check_src_size(src, select(input.detach(), d, index))
    _no_complex_grad("select_scatter", input, src)
    return dispatch(SELECT_SCATTER, input, src, d - nd, index)


@export()
def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """A copy of ``input`` with ``src`` written at the slice ``start:end:step`` of ``dim``."""
    _req("slice_scatter", input=input, src=src)
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    s, e, _ = slice(start, end, step).indices(n)
    e = max(e, s)
    view = input._data[(slice(None),) * d + (slice(s, e, step),)]
    if tuple(src._data.shape) != view.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(view.shape)}")
    _no_complex_grad("slice_scatter", input, src)
    return _finish(dispatch(SLICE_SCATTER, input, src, d - nd, s, e, int(step)), out)


@export()
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written on its ``offset`` diagonal over (dim1, dim2)."""
    _req("diagonal_scatter", input=input, src=src)
    view = diagonal(input.detach(), offset, dim1, dim2)   # (its checks and errors)
    _check_src_size(src, view)
    nd = input._data.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    return dispatch(DIAGONAL_SCATTER, input, src, int(offset), d1 - nd, d2 - nd)


@export()
def narrow_copy(input, dim, start, length, *, out=None):
    """``narrow`` as a contiguous copy (NarrowCopyBackward0)."""
    _req("narrow_copy", input=input)
    v = narrow(input.detach(), dim, start, length)   # (its checks and errors)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    start = int(start)
    if start < 0:
        start += input._data.shape[d]
    del v
    return _finish(dispatch(NARROW_COPY, input, d - nd, start, int(length)), out)


# ============================================================ rot90
@export()
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times from the first towards the second of ``dims``."""
    _req("rot90", input=input)
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrap_dim(dims[0], nd), _wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k = int_arg("rot90", "k", 2, k)
    return dispatch(ROT90, input, k % 4, (d0 - nd, d1 - nd))


# ============================================================ take / put
def _check_long_index(fn, index):
    _req(fn, index=index)
    if index._data.dtype != np.int64:
        raise RuntimeError(f"{fn}(): Expected a long tensor for index, but got {_tn(index)}")


def _check_flat_bounds(fn, input, index):
    n = input._data.size
    ix = index._data
    if ix.size:
        if n == 0:
            raise IndexError(f"{fn}(): tried to take from an empty tensor")
        vals = all_values(ix)
        bad = vals[(vals < -n) | (vals >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.reshape(-1)[0])} on "
                             f"a tensor of {n} elements.")
    return index   # (the kernels take negative indices as they are)


@export()
def take(input, index, *, out=None):
    """``input.flatten()[index]``, shaped like ``index`` (TakeBackward0)."""
    _req("take", input=input)
    _check_long_index("take", index)
    index = _check_flat_bounds("take", input, index)
    return _finish(dispatch(TAKE, input, index, input._data.ndim), out)


def _put_args(fn, input, index, source):
    _check_long_index(fn, index)
    _req(fn, source=source)
    if source._data.size != index._data.size:
        raise IndexError(f"{fn}(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source._data.size}, "
                         f"index.numel() = {index._data.size}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_tn(input)} and source.dtype = {_tn(source)}")
    return _check_flat_bounds(fn, input, index)


@export()
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written (or added) at the flat ``index``."""
    index = _put_args("put_", input, index, source)
    return dispatch(PUT, input, index, source, bool(accumulate), input._data.ndim,
                    source._data.ndim)


@export(function=False)
def put_(input, index, source, accumulate=False):
    index = _put_args("put_", input, index, source)
    return dispatch_inplace(PUT, input, index, source, bool(accumulate), input._data.ndim,
                            source._data.ndim)


# ============================================================ index_copy / index_fill
def _vector_index(fn, input, dim, index, long_msg, negative_ok=True):
    _req(fn, index=index)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.dtype != np.int64:
        raise long_msg(index)
    if ix.ndim > 1:
        raise RuntimeError(f"Index has to be a vector/scalar ({fn}: index of shape "
                           f"{list(ix.shape)})")
    n = input._data.shape[d] if nd else 1
    if ix.size:
        vals = all_values(ix)
        bad = vals[(vals < (-n if negative_ok else 0)) | (vals >= n)]
        if bad.size:
            raise IndexError(f"{fn}(): index {int(bad.reshape(-1)[0])} is out of bounds for "
                             f"dimension {d} with size {n}")
    return (None if nd == 0 else d - nd), index


def _index_copy_args(fn, input, dim, index, source):
    _req(fn, source=source)

    def long_msg(ix):
        return RuntimeError(f"{fn}(): Expected a long tensor for index, but got {_tn(ix)}")
    nd, snd = input._data.ndim, source._data.ndim
    if nd and snd and nd != snd:
        raise IndexError(f"{fn}(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({snd}), "
                         f"destination dimensionality ({nd})")
    d, index = _vector_index(fn, input, dim, index, long_msg, negative_ok=False)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): self and source expected to have the same dtype, but got "
                           f"(self) {_tn(input)} and (source) {_tn(source)}")
    ni = index._data.size
    if nd and snd:
        dd = _wrap_dim(dim, nd)
        if source._data.shape[dd] != ni:
            raise IndexError(f"{fn}(): Number of indices ({ni}) should be equal to "
                             f"source.size(dim) ({source._data.shape[dd]})")
        exp = list(input._data.shape)
        exp[dd] = ni
        if list(source._data.shape) != exp:
            raise RuntimeError(f"{fn}(): Source/destination tensor must have same slice shapes "
                               f"(source {list(source._data.shape)}, expected {exp})")
    elif source._data.size != ni or (nd == 0 and ni != 1):
        raise IndexError(f"{fn}(): Number of indices ({ni}) should be equal to the number of "
                         f"source elements ({source._data.size})")
    if nd and not snd:
        source = source.reshape((1,) * nd)
    if snd and not nd:
        source = source.reshape(())
    return d, index, source


@export()
def index_copy(input, dim, index, source, *, out=None):
    """A copy of ``input`` with the slices ``index`` of ``dim`` replaced by ``source``'s."""
    d, index, source = _index_copy_args("index_copy_", input, dim, index, source)
    return _finish(dispatch(INDEX_COPY, input, index, source, d), out)


@export(function=False)
def index_copy_(input, dim, index, source):
    d, index, source = _index_copy_args("index_copy_", input, dim, index, source)
    return dispatch_inplace(INDEX_COPY, input, index, source, d)


def _index_fill(input, dim, index, value, inplace):
    def long_msg(ix):
        return IndexError("index_fill_(): Expected dtype int64 for index.")
    d, index = _vector_index("index_fill_", input, dim, index, long_msg)
    run = dispatch_inplace if inplace else dispatch
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return run(INDEX_FILL_T, input, index, value, d, input._data.ndim)
    return run(INDEX_FILL, input, index, d, value)


@export()
def index_fill(input, dim, index, value):
    """A copy of ``input`` with the slices ``index`` of ``dim`` set to ``value``."""
    return _index_fill(input, dim, index, value, False)


@export(function=False)
def index_fill_(input, dim, index, value):
    return _index_fill(input, dim, index, value, True)


# ============================================================ masked_scatter
def _masked_scatter_args(fn, input, mask, source, inplace):
    _req(fn, mask=mask, source=source)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_tn(mask)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_tn(input)} and {_tn(source)}")
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of mask {list(mask._data.shape)} must be broadcastable to "
                           f"self's {list(input._data.shape)} ({fn})") from None
    if inplace and shape != input._data.shape:
        raise RuntimeError(f"{fn}: mask {list(mask._data.shape)} must be broadcastable to the "
                           f"shape of self {list(input._data.shape)} (in-place: self cannot "
                           "grow)")
    vals = all_values(mask._data)   # (under vmap: every example's mask)
    per = vals.reshape((-1,) + mask._data.shape) if vals.ndim > mask._data.ndim else vals[None]
    reps = int(np.prod(shape, dtype=np.int64)) // max(int(np.prod(mask._data.shape,
                                                                 dtype=np.int64)), 1)
    if per.size and int(per.reshape(per.shape[0], -1).sum(1).max()) * reps > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if shape != mask._data.shape:
        mask = expand(mask, shape)
    return input, mask


@export()
def masked_scatter(input, mask, source):
    """A copy of ``input`` with ``source``'s leading elements written where ``mask`` is True
    (in row-major order)."""
    input, mask = _masked_scatter_args("masked_scatter", input, mask, source, False)
    return dispatch(MASKED_SCATTER, input, mask, source, input._data.ndim, source._data.ndim)


@export(function=False)
def masked_scatter_(input, mask, source):
    input, mask = _masked_scatter_args("masked_scatter_", input, mask, source, True)
    return dispatch_inplace(MASKED_SCATTER, input, mask, source, input._data.ndim,
                            source._data.ndim)


__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "narrow_copy", "rot90",
           "take", "put", "put_", "index_copy", "index_copy_", "index_fill", "index_fill_",
           "masked_scatter", "masked_scatter_", "block_diag"]


# ============================================================ block_diag
@export(method=False)
def block_diag(*tensors):
    """The 0-d, 1-d and 2-d ``tensors`` as the blocks of a block-diagonal matrix (a 1-d tensor
    is a row), promoted to their common dtype (BlockDiagBackward0)."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): expected Tensor as element {i} in argument 0, but "
                            f"got {type(t).__name__}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
    if not tensors:
        return _tensor(np.zeros((1, 0), np.float32))
    return dispatch(block_diag_op(len(tensors)), *tensors,
                    tuple(tuple(t._data.shape) for t in tensors))
