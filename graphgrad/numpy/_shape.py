"""NumPy's array construction from Tensors and its shape, joining, splitting and
indexing-like functions over Tensors (``array``, ``reshape``, ``concatenate``, ``split``,
``diag``, ``triu``, ``repeat``, ...), with NumPy's argument conventions."""
from __future__ import annotations

import builtins

import numpy as _np

from .._tensor.tensor import Tensor
from ..ops.api import (
    copies as _api_copies, gather_scatter as _api_gather_scatter, indexing as _api_indexing,
    linalg as _api_linalg, views as _api_views)
from ..nn.functional import pad as _f_pad
from ._core import axes, data_of, has_tensor, normalize_axis_index, numpy_errors, on_tensors, \
    result_dtype, tensor

__all__ = ["array", "asarray", "copy", "reshape", "ravel", "transpose", "swapaxes",
           "moveaxis", "rollaxis", "expand_dims", "squeeze", "tile", "repeat", "flip", "fliplr",
           "flipud", "roll", "rot90", "concatenate", "stack", "hstack", "vstack", "row_stack",
           "dstack", "column_stack", "append", "split", "array_split", "hsplit", "vsplit",
           "dsplit", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "diag",
           "diagonal", "triu", "tril", "take", "take_along_axis", "pad"]


# ----------------------------------------------------------------- construction
def array(object, dtype=None, *, copy=True, ndmin=0, **kwargs):  # noqa: A002
    """NumPy's ``array``; a Tensor, or a (nested) list holding Tensors, gives a Tensor
    (the list's items stacked, promoted with NumPy's rules), differentiable in them."""
    if not has_tensor(object):
        return _np.array(object, dtype, copy=copy, ndmin=ndmin, **kwargs)
    with numpy_errors("array"):
        t = tensor(object, None if dtype is None else _np.dtype(dtype))
        if copy and t is object:
            t = t.clone()
        while t.ndim < ndmin:
            t = t.unsqueeze(0)
        return t


array.__wrapped_numpy__ = _np.array


def asarray(a, dtype=None, order=None, **kwargs):
    """NumPy's ``asarray``; a Tensor (or a list holding Tensors) gives a Tensor."""
    if not has_tensor(a):
        return _np.asarray(a, dtype, order, **kwargs)
    return tensor(a, None if dtype is None else _np.dtype(dtype))


asarray.__wrapped_numpy__ = _np.asarray


@on_tensors(_np.copy)
def copy(a, order="K", subok=False):
    return tensor(a).clone()


# ----------------------------------------------------------------- shape
def _reverse_dims(t):
    return t.permute(tuple(range(t.ndim - 1, -1, -1))) if t.ndim > 1 else t


def _check_reshape(old, shape):
    """NumPy's ValueErrors for a shape that does not hold the array's elements."""
    n = 1
    for s in old:
        n *= s
    unknown = [i for i, s in enumerate(shape) if s < 0]   # (NumPy takes any negative)
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = 1
    for s in shape:
        if s >= 0:
            known *= s
    if (n != known) if not unknown else (known == 0 or n % known):
        raise ValueError(f"cannot reshape array of size {n} into shape "
                         f"{tuple(shape)} (graphgrad.numpy.reshape)")


@on_tensors(_np.reshape)
def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``order='F'`` reshapes the reversed axes (Fortran order); 'A' is 'C' here."""
    if shape is None:
        shape = newshape
    t = tensor(a)
    shape = (shape,) if isinstance(shape, (int, _np.integer)) else tuple(shape)
    _check_reshape(tuple(t.shape), shape)
    shape = tuple(-1 if s < 0 else s for s in shape)
    if order == "F":
        return _reverse_dims(_reverse_dims(t).reshape(shape[::-1]))
    return t.reshape(shape)


@on_tensors(_np.ravel)
def ravel(a, order="C"):
    t = tensor(a)
    return (_reverse_dims(t) if order == "F" else t).reshape(-1)


@on_tensors(_np.transpose)
def transpose(a, axes=None):
    t = tensor(a)
    if axes is None:
        return _reverse_dims(t)
    perm = tuple(normalize_axis_index(i, t.ndim) for i in axes)
    if sorted(perm) != list(range(t.ndim)):
        raise ValueError("axes don't match array")
    return t.permute(perm)


@on_tensors(_np.swapaxes)
def swapaxes(a, axis1, axis2):
    t = tensor(a)
    return t.transpose(normalize_axis_index(axis1, t.ndim), normalize_axis_index(axis2, t.ndim))


@on_tensors(_np.moveaxis)
def moveaxis(a, source, destination):
    t = tensor(a)
    src = [normalize_axis_index(s, t.ndim) for s in _np.atleast_1d(source).tolist()]
    dst = [normalize_axis_index(s, t.ndim) for s in _np.atleast_1d(destination).tolist()]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    return _api_views.movedim(t, tuple(src), tuple(dst))


@on_tensors(_np.rollaxis)
def rollaxis(a, axis, start=0):
    t = tensor(a)
    n = t.ndim
    axis = normalize_axis_index(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise _np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but "
                                       f"{start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return t
    perm = [i for i in range(n) if i != axis]
    perm.insert(start, axis)
    return t.permute(perm)


@on_tensors(_np.expand_dims)
def expand_dims(a, axis):
    t = tensor(a)
    out_nd = t.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    for d in axes(axis, out_nd):
        t = t.unsqueeze(d)
    return t


@on_tensors(_np.squeeze)
def squeeze(a, axis=None):
    t = tensor(a)
    if axis is None:
        return t.reshape([s for s in t.shape if s != 1])
    dims = axes(axis, t.ndim)
    if any(t.shape[d] != 1 for d in dims):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return t.reshape([s for i, s in enumerate(t.shape) if i not in dims])


@on_tensors(_np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    t = tensor(array)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    try:
        _np.broadcast_to(_np.broadcast_to(_np.empty((), _np.int8), t.shape), shape)
    except ValueError as e:
        raise ValueError(f"{e} (graphgrad.numpy.broadcast_to)") from None
    return t.expand(shape)


def _atleast(n, arys):
    out = []
    for a in arys:
        t = tensor(a)
        if t.ndim < n:
            if n == 3 and t.ndim == 2:
                t = t.unsqueeze(-1)
            elif n == 3 and t.ndim == 1:
                t = t.reshape(1, -1, 1)
            else:
                t = t.reshape((1,) * (n - t.ndim) + tuple(t.shape))
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


@on_tensors(_np.atleast_1d)
def atleast_1d(*arys):
    return _atleast(1, arys)


@on_tensors(_np.atleast_2d)
def atleast_2d(*arys):
    return _atleast(2, arys)


@on_tensors(_np.atleast_3d)
def atleast_3d(*arys):
    return _atleast(3, arys)


# ----------------------------------------------------------------- copies of data
@on_tensors(_np.tile)
def tile(A, reps):
    t = tensor(A)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    n = builtins.max(len(reps), t.ndim)
    t = t.reshape((1,) * (n - t.ndim) + tuple(t.shape))
    return t.repeat((1,) * (n - len(reps)) + reps)


@on_tensors(_np.repeat)
def repeat(a, repeats, axis=None):
    t = tensor(a)
    if axis is None:
        t, axis = t.reshape(-1), 0
    ax = normalize_axis_index(axis, t.ndim)
    idx = _np.repeat(_np.arange(t.shape[ax]), _np.asarray(repeats))
    return _api_indexing.index_select(t, ax, tensor(idx))


@on_tensors(_np.flip)
def flip(m, axis=None):
    t = tensor(m)
    dims = axes(axis, t.ndim)
    return _api_copies.flip(t, dims) if dims else t


@on_tensors(_np.fliplr)
def fliplr(m):
    t = tensor(m)
    if t.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _api_copies.flip(t, (1,))


@on_tensors(_np.flipud)
def flipud(m):
    t = tensor(m)
    if t.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _api_copies.flip(t, (0,))


@on_tensors(_np.roll)
def roll(a, shift, axis=None):
    t = tensor(a)
    if axis is None:
        return _api_copies.roll(t.reshape(-1), shift, 0).reshape(t.shape)
    shifts = _np.broadcast_arrays(_np.asarray(shift), _np.asarray(axis))
    dims = [normalize_axis_index(int(d), t.ndim) for d in shifts[1].ravel()]
    return _api_copies.roll(t, tuple(int(s) for s in shifts[0].ravel()), tuple(dims))


@on_tensors(_np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    t = tensor(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = (normalize_axis_index(x, t.ndim) for x in axes)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return t
    if k == 2:
        return _api_copies.flip(t, (a0, a1))
    perm = list(range(t.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _api_copies.flip(t, (a1,)).permute(perm)
    return _api_copies.flip(t.permute(perm), (a1,))


# ----------------------------------------------------------------- joining
def _promoted(arrays):
    ts = [tensor(a) for a in arrays]
    if not ts:
        raise ValueError("need at least one array to concatenate")
    dt = _np.result_type(*[t._data.dtype for t in ts])
    return [tensor(t, dt) for t in ts]


@on_tensors(_np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    ts = _promoted(arrays)
    if axis is None:
        ts, axis = [t.reshape(-1) for t in ts], 0
    if any(t.ndim == 0 for t in ts):
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    nd = ts[0].ndim
    ax = normalize_axis_index(axis, nd)
    for i, t in enumerate(ts):
        if t.ndim != nd:
            raise ValueError("all the input array dimensions except for the concatenation axis "
                             f"must match exactly, but along dimension 0, the array at index 0 "
                             f"has {nd} dimension(s) and the array at index {i} has {t.ndim} "
                             "dimension(s)")
        for d in range(nd):
            if d != ax and t.shape[d] != ts[0].shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array "
                                 f"at index 0 has size {ts[0].shape[d]} and the array at index "
                                 f"{i} has size {t.shape[d]}")
    out_t = _api_copies.cat(ts, ax)
    return out_t if dtype is None else tensor(out_t, _np.dtype(dtype))


@on_tensors(_np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    ts = _promoted(arrays)
    if len({tuple(t.shape) for t in ts}) != 1:
        raise ValueError("all input arrays must have the same shape")
    ax = normalize_axis_index(axis, ts[0].ndim + 1)
    out_t = _api_copies.stack(ts, ax)
    return out_t if dtype is None else tensor(out_t, _np.dtype(dtype))


@on_tensors(_np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    ts = [atleast_1d(tensor(a)) for a in tup]
    return concatenate(ts, 0 if ts and ts[0].ndim == 1 else 1, dtype=dtype)


@on_tensors(_np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(tensor(a)) for a in tup], 0, dtype=dtype)


row_stack = vstack


@on_tensors(_np.dstack)
def dstack(tup):
    return concatenate([atleast_3d(tensor(a)) for a in tup], 2)


@on_tensors(_np.column_stack)
def column_stack(tup):
    ts = []
    for a in tup:
        t = tensor(a)
        ts.append(t.reshape(-1, 1) if t.ndim < 2 else t)
    return concatenate(ts, 1)


@on_tensors(_np.append)
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([tensor(arr).reshape(-1), tensor(values).reshape(-1)], 0)
    return concatenate([arr, values], axis)


# ----------------------------------------------------------------- splitting
def _split(name, ary, indices_or_sections, axis, equal):
    t = tensor(ary)
    ax = normalize_axis_index(axis, t.ndim)
    n = t.shape[ax]
    if isinstance(indices_or_sections, (int, _np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % k:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        bounds = _np.concatenate([[0], _np.cumsum(sizes)]).tolist()
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    out = []
    for s, e in zip(bounds[:-1], bounds[1:]):
        s = builtins.min(builtins.max(s + n if s < 0 else s, 0), n)
        e = builtins.min(builtins.max(e + n if e < 0 else e, 0), n)
        out.append(t.narrow(ax, s, builtins.max(e - s, 0)))
    return out


@on_tensors(_np.split)
def split(ary, indices_or_sections, axis=0):
    return _split("split", ary, indices_or_sections, axis, True)


@on_tensors(_np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis, False)


@on_tensors(_np.hsplit)
def hsplit(ary, indices_or_sections):
    t = tensor(ary)
    if t.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(t, indices_or_sections, 1 if t.ndim > 1 else 0)


@on_tensors(_np.vsplit)
def vsplit(ary, indices_or_sections):
    t = tensor(ary)
    if t.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(t, indices_or_sections, 0)


@on_tensors(_np.dsplit)
def dsplit(ary, indices_or_sections):
    t = tensor(ary)
    if t.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(t, indices_or_sections, 2)


# ----------------------------------------------------------------- diagonals, triangles
@on_tensors(_np.diag)
def diag(v, k=0):
    t = tensor(v)
    if t.ndim not in (1, 2):
        raise ValueError("Input must be 1- or 2-d.")
    return _api_linalg.diag(t, k)


@on_tensors(_np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    t = tensor(a)
    a1, a2 = normalize_axis_index(axis1, t.ndim), normalize_axis_index(axis2, t.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return _api_linalg.diagonal(t, offset, a1, a2)


@on_tensors(_np.triu)
def triu(m, k=0):
    t = tensor(m)
    return _api_linalg.triu(t if t.ndim >= 2 else t.expand(t.shape[0], t.shape[0]), k)


@on_tensors(_np.tril)
def tril(m, k=0):
    t = tensor(m)
    return _api_linalg.tril(t if t.ndim >= 2 else t.expand(t.shape[0], t.shape[0]), k)


# ----------------------------------------------------------------- taking
@on_tensors(_np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    t = tensor(a)
    idx = _np.asarray(data_of(indices) if isinstance(indices, Tensor) else indices)
    if axis is None:
        t, axis = t.reshape(-1), 0
    ax = normalize_axis_index(axis, t.ndim)
    n = t.shape[ax]
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = _np.clip(idx, 0, n - 1)
    elif ((idx >= n) | (idx < -n)).any():
        raise IndexError(f"index {int(idx.max())} is out of bounds for axis {ax} with size {n}")
    idx = _np.where(idx < 0, idx + n, idx)
    flat = _api_indexing.index_select(t, ax, tensor(idx.reshape(-1).astype(_np.int64)))
    return flat.reshape(tuple(t.shape[:ax]) + idx.shape + tuple(t.shape[ax + 1:]))


@on_tensors(_np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    t = tensor(arr)
    idx = data_of(indices) if isinstance(indices, Tensor) else _np.asarray(indices)
    if axis is None:
        t, axis = t.reshape(-1), 0
    ax = normalize_axis_index(axis, t.ndim)
    shape = _np.broadcast_shapes(tuple(s if i != ax else 1 for i, s in enumerate(t.shape)),
                                 tuple(s if i != ax else 1 for i, s in enumerate(idx.shape)))
    shape_t = tuple(s if i != ax else t.shape[ax] for i, s in enumerate(shape))
    shape_i = tuple(s if i != ax else idx.shape[ax] for i, s in enumerate(shape))
    idx = _np.broadcast_to(idx % builtins.max(t.shape[ax], 1), shape_i).astype(_np.int64)
    return _api_gather_scatter.gather(t.expand(shape_t), ax, tensor(_np.ascontiguousarray(idx)))


@on_tensors(_np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """``mode='constant'`` (with ``constant_values``) only, on Tensors."""
    t = tensor(array)
    if mode != "constant":
        raise NotImplementedError(f"graphgrad.numpy.pad: mode={mode!r} is not supported on "
                                  "graphgrad Tensors (only 'constant')")
    value = kwargs.pop("constant_values", 0)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (t.ndim, 2))
    flat = []
    for lo, hi in widths[::-1].tolist():
        flat += [lo, hi]
    dt = result_dtype(lambda x: _np.pad(_np.atleast_1d(x), 1), t, key="pad")
    return _f_pad(tensor(t, dt), tuple(flat), value=float(_np.asarray(value)))
