"""scatter_reduce / scatter_reduce_ and index_reduce / index_reduce_ (reduce = 'sum',
'prod', 'mean', 'amax', 'amin'; ``include_self``), with PyTorch's gradients:

* sum: self gets ``grad``, src ``grad.gather``; mean: both divided by the count per slot.
* prod: the product of the others, computed without dividing by zeros; with two or more
  zeros of src in one slot the src gradient is still right, but differentiating it again
  raises "Double backward is unsupported ..." (PyTorch's DelayedError).
* amax/amin: split evenly between the self/src values equal to the result.
* ``include_self=False``: self's values at scattered slots take no part (gradient 0).

Forward AD: sum/mean are linear; amax/amin read the tangent evenly at the ties; prod has
none (PyTorch gives no tangent; graphgrad raises NotImplementedError, differences.md).
``index_reduce`` is ``scatter_reduce`` with the 1-d index spread along ``dim``.
"""
from __future__ import annotations
from ..interpose import all_values

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch
from ..inplace import dispatch_inplace
from .gather_scatter import _check_index
from .indexing import _finish, _neg
from ..registry import export
from ..derivatives.scatter_reduce import INDEX_REDUCE, SCATTER_REDUCE_TWO, _ALIASES


REDUCES = ("sum", "prod", "mean", "amax", "amin")


# ------------------------------------------------------------------ public
def _check_reduce(fn, reduce, allowed):
    if reduce not in allowed:
        shown = [r for r in allowed if r not in _ALIASES]
        raise RuntimeError(f"{fn}(): reduce argument must be either "
                           f"{', '.join(shown[:-1])} or {shown[-1]}, got {reduce}")


def _check_src(fn, input, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' must be Tensor, not {type(src).__name__}")
    if src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype (got "
                           f"{input.dtype} and {src.dtype})")


def _scatter_reduce_args(fn, input, dim, index, src, reduce):
    _check_reduce(fn, reduce, REDUCES + ("max", "min"))
    _check_src(fn, input, src)
    if reduce == "mean" and input._data.dtype == np.bool_:
        raise NotImplementedError(f"{fn}(): reduce='mean' is not implemented for 'Bool'")
    return _check_index(fn, input, dim, index, src)


@export()
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """A copy of ``input`` with ``src`` reduced into the slots ``index`` names along dim."""
    d = _scatter_reduce_args("scatter_reduce", input, dim, index, src, reduce)
    return _finish(dispatch(SCATTER_REDUCE_TWO, input, index, src, d, reduce,
                            bool(include_self)), out)


@export(function=False)
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    d = _scatter_reduce_args("scatter_reduce_", input, dim, index, src, reduce)
    return dispatch_inplace(SCATTER_REDUCE_TWO, input, index, src, d, reduce, bool(include_self))


def _index_reduce_args(fn, input, dim, index, source, reduce, include_self):
    _check_reduce(fn, reduce, ("prod", "mean", "amax", "amin"))
    _check_src(fn, input, source)
    if input._data.dtype == np.bool_ and (not include_self or reduce == "mean"):
        raise NotImplementedError(f"{fn}(): reduce='{reduce}' with include_self="
                                  f"{include_self} is not implemented for 'Bool'")
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    ix = index._data
    if ix.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    if ix.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected a long or int tensor for index (got "
                           f"{index.dtype})")
    ix = ix.reshape(-1)
    ss = source._data.shape if source._data.ndim else (1,)
    if source._data.ndim != max(nd, 0) and nd:
        raise IndexError(f"{fn}(): Source/destination tensor must have same slice shapes")
    if ss[d if nd else 0] != ix.size:
        raise IndexError(f"{fn}(): Number of indices ({ix.size}) should be equal to "
                         f"source.size(dim) ({ss[d if nd else 0]})")
    shp = input._data.shape if nd else (1,)
    for j in range(len(shp)):
        if j != d and nd and ss[j] != shp[j]:
            raise IndexError(f"{fn}(): Source/destination tensor must have same slice shapes "
                             f"(source {list(source._data.shape)}, self "
                             f"{list(input._data.shape)}, dim {d})")
    vals = all_values(index._data)  # (under vmap: every example's indices)
    bad = vals[(vals < 0) | (vals >= shp[d if nd else 0])].reshape(-1)
    if bad.size:
        raise IndexError(f"{fn}(): index {int(bad[0])} is out of bounds for dimension {d} "
                         f"with size {shp[d if nd else 0]}")
    if nd == 0:
        return None, Tensor._wrap(ix.astype(np.int64))
    view = [1] * nd
    view[d] = ix.size
    full = np.ascontiguousarray(np.broadcast_to(ix.reshape(view), ss)).astype(np.int64)
    return _neg(d, nd), Tensor._wrap(full)


@export()
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """A copy of ``input`` with the slices of ``source`` reduced into the slices ``index``
    names along ``dim``."""
    d, full = _index_reduce_args("index_reduce", input, dim, index, source, reduce,
                                 include_self)
    return _finish(dispatch(INDEX_REDUCE, input, full, source, d, reduce, bool(include_self)),
                   out)


@export(function=False)
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    d, full = _index_reduce_args("index_reduce_", input, dim, index, source, reduce,
                                 include_self)
    return dispatch_inplace(INDEX_REDUCE, input, full, source, d, reduce, bool(include_self))
