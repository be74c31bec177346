"""gather, scatter (src or value), scatter_add and take_along_dim: table entries and public
functions.  Index tensors are non-differentiable tensor inputs, broadcast over leading (batch)
dims in the kernels; ``dim`` is stored negative, or None for a 0-d self.
"""
from __future__ import annotations
from ..interpose import all_values

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from ..registry import export
from .indexing import _finish, _neg, _type_name
from ..derivatives.gather_scatter import (
    GATHER, SCATTER, SCATTER_ADD, SCATTER_REDUCE, SCATTER_VALUE, SCATTER_VALUE_REDUCE)


# ============================================================ gather / scatter
for _op in (SCATTER_REDUCE, SCATTER_VALUE_REDUCE):  # (PyTorch's name for such nodes)
    _op.node_cls.name = lambda self: "torch::autograd::NotImplemented"


def _check_index(fn, input, dim, index, other=None, other_name="src"):
    """PyTorch's gather/scatter index checks; returns the wrapped dim."""
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index (got {index.dtype})")
    if ix.ndim != nd and not (nd == 0 and ix.ndim <= 1) and ix.size:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as input "
                           f"tensor ({fn}: index has {ix.ndim}, input has {nd})")
    shp = input._data.shape if nd else (1,)
    ixs = ix.shape if ix.ndim else (1,)
    for j in range(len(ixs)):
        if j != d and ixs[j] > shp[j]:
            raise RuntimeError(
                f"Size does not match at dimension {j} expected index {list(ix.shape)} to be no "
                f"larger than self {list(input._data.shape)} apart from dimension {d}")
    if other is not None:
        os_ = other._data.shape if other._data.ndim else (1,)
        if other._data.ndim != ix.ndim and ix.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                               f"{other_name} tensor")
        for j in range(len(ixs)):
            if ixs[j] > os_[j]:
                raise RuntimeError(
                    f"Size does not match at dimension {j} expected index {list(ix.shape)} to be "
                    f"no larger than {other_name} {list(other._data.shape)}")
    n = shp[d]
    if ix.size:
        vals = all_values(ix)  # (under vmap: every example's indices)
        bad = vals[(vals < 0) | (vals >= n)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension "
                               f"{d} with size {n}")
    return None if nd == 0 else _neg(d, nd)


@export()
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (GatherBackward0)."""
    d = _check_index("gather", input, dim, index)
    if input._data.ndim and index._data.ndim == 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return _finish(dispatch(GATHER, input, index, d), out)


def _scatter_args(fn, input, dim, index, src, value, reduce):
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{fn}() missing the source: pass src=<Tensor> or value=<number>")
    if isinstance(src, Tensor):
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype (got "
                               f"{input.dtype} and {src.dtype})")
        return _check_index(fn, input, dim, index, src), src
    return _check_index(fn, input, dim, index), src


@export()
def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """A copy of ``input`` with ``src`` (a tensor or a number) written at ``index`` along dim."""
    d, src = _scatter_args("scatter", input, dim, index, src, value, reduce)
    if reduce is not None:  # (no derivative: the node raises in backward, as PyTorch's)
        if isinstance(src, Tensor):
            return _finish(dispatch(SCATTER_REDUCE, input, index, src, d, reduce), out)
        return _finish(dispatch(SCATTER_VALUE_REDUCE, input, index, d, src, reduce), out)
    if isinstance(src, Tensor):
        return _finish(dispatch(SCATTER, input, index, src, d), out)
    return _finish(dispatch(SCATTER_VALUE, input, index, d, src), out)


@export(function=False)
def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    d, src = _scatter_args("scatter_", input, dim, index, src, value, reduce)
    if reduce is not None:
        if isinstance(src, Tensor):
            return dispatch_inplace(SCATTER_REDUCE, input, index, src, d, reduce)
        return dispatch_inplace(SCATTER_VALUE_REDUCE, input, index, d, src, reduce)
    if isinstance(src, Tensor):
        return dispatch_inplace(SCATTER, input, index, src, d)
    return dispatch_inplace(SCATTER_VALUE, input, index, d, src)


@export()
def scatter_add(input, dim, index, src, *, out=None):
    """A copy of ``input`` with ``src`` added at ``index`` along dim (duplicates accumulate)."""
    d, src = _scatter_args("scatter_add", input, dim, index, src, None, None)
    return _finish(dispatch(SCATTER_ADD, input, index, src, d), out)


@export(function=False)
def scatter_add_(input, dim, index, src):
    d, src = _scatter_args("scatter_add_", input, dim, index, src, None, None)
    return dispatch_inplace(SCATTER_ADD, input, index, src, d)


@export()
def take_along_dim(input, indices, dim=None, *, out=None):
    """``gather`` with the index broadcast against the input (flattened when dim is None)."""
    from .shape import expand, reshape
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_type_name(indices)}")
    if dim is None:
        return _finish(gather(reshape(input, (-1,)), 0, reshape(indices, (-1,))), out)
    nd = input._data.ndim
    if indices._data.ndim != nd:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {nd} dimensions for input, and "
                           f"{indices._data.ndim} dimensions for indices")
    d = _wrap_dim(dim, nd)
    si, sx = list(input._data.shape), list(indices._data.shape)
    si[d] = sx[d] = 1
    try:
        b = list(np.broadcast_shapes(tuple(si), tuple(sx)))
    except ValueError:
        k = next(k for k in range(nd) if si[k] != sx[k] and si[k] != 1 and sx[k] != 1)
        raise RuntimeError(
            f"The size of tensor a ({si[k]}) must match the size of tensor b ({sx[k]}) at "
            f"non-singleton dimension {k} (torch.take_along_dim(): input of shape "
            f"{list(input._data.shape)} and indices of shape {list(indices._data.shape)} must "
            f"broadcast in every dimension but dim={d})") from None
    bi, bx = list(b), list(b)
    bi[d], bx[d] = input._data.shape[d], indices._data.shape[d]
    if tuple(bi) != input._data.shape:
        input = expand(input, tuple(bi))
    if tuple(bx) != indices._data.shape:
        indices = expand(indices, tuple(bx))
    return _finish(gather(input, d, indices), out)
