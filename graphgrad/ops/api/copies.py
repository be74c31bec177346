"""Copies that assemble or rearrange whole tensors: cat/stack (and hstack, vstack,
dstack, atleast_*d), repeat/tile, flip and roll (table entries and public functions).

cat and stack take any number of tensors.  Up to ``_MAX_ARITY`` tensors, one table entry
per arity is made on first use (generated record and node code, like every other op); longer
lists use one op description built for the call and one shared node class (see
``_list_op``), so no table or cache grows with the length of a user's list and a call over
N tensors costs O(N) time and memory.  Dims are stored negative so the rules work on
gradients with leading batch dims.
"""
from __future__ import annotations

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch
from ..registry import export
from ._args import require
from .indexing import _finish, _neg
from ..derivatives.copies import FLIP, REPEAT, ROLL, _cat_op, _stack_op


# ------------------------------------------------------------ long lists
def _tensor_list(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__} ({fn} takes a sequence of tensors)")
    return tensors


@export(method=False)
def cat(tensors, dim=0, *, out=None):
    """Concatenate tensors along an existing dim (CatBackward0), promoting dtypes."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated (use stack, or reshape it to 1-D first)")
    # PyTorch skips 1-D empty tensors when the others have more dims (legacy behaviour)
    kept = [t for t in tensors if t._data.shape != (0,)]
    if not kept:
        kept = tensors
    ref = kept[0]
    nd = ref._data.ndim
    if nd != 1 and len(kept) != len(tensors):
        rt = _dtype.result_type(*tensors)
        if _dtype.result_type(*kept) is not rt:
            kept = [kept[0].to(rt)] + kept[1:]
    else:
        kept = tensors
    d = _wrap_dim(dim, nd)
    rs = ref._data.shape
    for i, t in enumerate(kept):
        ts = t._data.shape
        if len(ts) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                               f"{len(ts)}")
        for j in range(nd):
            if j != d and ts[j] != rs[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {rs[j]} "
                    f"but got size {ts[j]} for tensor number {i} in the list.")
    sizes = tuple(t._data.shape[d] for t in kept)
    return _finish(dispatch(_cat_op(len(kept)), *kept, d - nd, sizes), out)


@export(method=False)
def concat(tensors, dim=0, *, out=None):
    return cat(tensors, dim, out=out)


@export(method=False)
def concatenate(tensors, axis=0, out=None):
    return cat(tensors, axis, out=out)


@export(method=False)
def stack(tensors, dim=0, *, out=None):
    """Stack equally-shaped tensors along a new dim (StackBackward0)."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} "
                               f"at entry 0 and {list(t._data.shape)} at entry {i}")
    nd = len(s0) + 1
    d = _wrap_dim(dim, nd)
    return _finish(dispatch(_stack_op(len(tensors)), *tensors, d - nd), out)


def _atleast(tensors, n, fn):
    from .shape import reshape, unsqueeze
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        single = False
    else:
        single = len(tensors) == 1
    res = []
    for t in tensors:
        nd = t._data.ndim
        if nd >= n:
            res.append(t)
        elif nd == 0:
            res.append(reshape(t, (1,) * n))
        elif n == 2 or nd == 2:
            r = unsqueeze(t, 0) if nd == 1 else t
            res.append(unsqueeze(r, -1) if n == 3 else r)
        else:  # 1-d to 3-d
            res.append(unsqueeze(unsqueeze(t, 0), -1))
    return res[0] if single else tuple(res)


@export(method=False)
def atleast_1d(*tensors):
    return _atleast(tensors, 1, "atleast_1d")


@export(method=False)
def atleast_2d(*tensors):
    return _atleast(tensors, 2, "atleast_2d")


@export(method=False)
def atleast_3d(*tensors):
    return _atleast(tensors, 3, "atleast_3d")


def _as_tuple(x):
    r = x
    return r if isinstance(r, tuple) else (r,)


@export(method=False)
def hstack(tensors, *, out=None):
    """Concatenate horizontally: along dim 0 for 1-D tensors, else dim 1."""
    ts = _as_tuple(atleast_1d(list(_tensor_list(tensors, "hstack"))))
    return cat(ts, 0 if ts and ts[0]._data.ndim == 1 else 1, out=out)


@export(method=False)
def vstack(tensors, *, out=None):
    """Concatenate vertically (rows): 1-D tensors become rows."""
    return cat(_as_tuple(atleast_2d(list(_tensor_list(tensors, "vstack")))), 0, out=out)


row_stack = export("row_stack", method=False)(vstack)


@export(method=False)
def dstack(tensors, *, out=None):
    """Concatenate along the third (depth) dim."""
    return cat(_as_tuple(atleast_3d(list(_tensor_list(tensors, "dstack")))), 2, out=out)


# ============================================================ repeat / tile / flip / roll
def _int_list(args, fn):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    try:
        return tuple(int(a) for a in args)
    except TypeError:
        raise TypeError(f"{fn}(): expected a sequence of ints, got {args!r}") from None


@export(function=False)
def repeat(input, *sizes):
    """Tile the tensor ``sizes[i]`` times along each dim (RepeatBackward0)."""
    require("repeat", sizes, "repeats")
    reps = _int_list(sizes, "repeat")
    if len(reps) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           f"of dimensions of tensor (repeat{reps} on a tensor of shape "
                           f"{list(input._data.shape)})")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension: repeats {list(reps)}")
    return dispatch(REPEAT, input, reps)


@export()
def tile(input, dims):
    """``repeat`` with ``dims`` padded with leading ones to the tensor's ndim."""
    reps = _int_list((dims,) if isinstance(dims, int) else (dims,), "tile")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)


def _dims_of(dims, nd, fn):
    wrapped = [_wrap_dim(d, nd) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims ({fn})")
        seen.add(d)
    return tuple(_neg(d, nd) for d in wrapped) if nd else ()


@export()
def flip(input, *dims):
    """Reverse the order of elements along ``dims`` (a copy)."""
    require("flip", dims, "dims")
    nd = input._data.ndim
    return dispatch(FLIP, input, _dims_of(_int_list(dims, "flip"), nd, "flip"))


@export()
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@export()
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@export()
def roll(input, shifts, dims=None):
    """Roll elements along ``dims`` (over the flattened tensor when dims is None)."""
    shifts = (shifts,) if isinstance(shifts, int) else _int_list((shifts,), "roll")
    nd = input._data.ndim
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return dispatch(ROLL, input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else _int_list((dims,), "roll")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    return dispatch(ROLL, input, shifts, tuple(_neg(_wrap_dim(d, nd), nd) for d in dims))
