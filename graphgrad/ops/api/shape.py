"""Shape ops and views: view/reshape, transpose, expand, (un)squeeze, select, slice/narrow,
flatten, and basic ``__getitem__`` (ints, slices, None, Ellipsis as a chain of views; keys
with index lists/tensors/masks go to indexing.advanced_getitem).  More views (permute,
movedim, unflatten, unbind/split/chunk, as_strided, view_as_real/complex) are in views.py.

View ops (``is_view=True``) return NumPy views that share memory and the
version counter with their base; the dispatcher records how to replay them
(used by CopySlices when a view is modified in place).  Dims are stored
negative (counted from the end) so the backward rules also work on
gradients with leading batch dimensions.

``batched_jvp`` rules (tangents with a leading batch dim, see registry.py)
count dims from the end too (``_nd``) and put the batch dims in front of
size arguments (``F.reshape_to``).
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch, unary
from ..derivatives.pointwise import CLONE
from ..registry import export
from ._args import require
from ..._core.dtypes import to_dtype
from ..derivatives.shape import (
    ALIAS, EXPAND, RESHAPE_ALIAS, SELECT, SLICE, SQUEEZE, SQUEEZE_DIM, SQUEEZE_DIMS, T,
    TRANSPOSE, UNSAFE_VIEW, UNSQUEEZE, VIEW)


def _neg(dim, ndim):
    """``dim`` of an ``ndim``-d tensor as a negative index (batch-safe)."""
    return _wrap_dim(dim, ndim) - max(ndim, 1) if ndim else -1


# ================================================================ public functions
def _size_arg(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _infer_size(size, numel, fn="view"):
    size = list(size)
    neg = [i for i, s in enumerate(size) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(size):
        if i not in neg:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        size[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return tuple(size)


@export()
def view(input, *size):
    if not size:
        raise TypeError("view() received an invalid combination of arguments - got (), but "
                        "expected one of: (torch.dtype dtype), (tuple of ints size)")
    if len(size) == 1 and not isinstance(size[0], (int, tuple, list)):
        d = to_dtype(size[0])
        return _wrap_dtype_view(input, d)
    size = _infer_size(_size_arg(size), input._data.size)
    return dispatch(VIEW, input, size)


def _wrap_dtype_view(input, d):
    return Tensor._wrap(input._data.view(d.np))


@export()
def reshape(input, *shape):
    require("reshape", shape, "shape")
    size = _infer_size(_size_arg(shape), input._data.size, "reshape")
    d = input._data
    view_op = VIEW if d.flags.c_contiguous else RESHAPE_ALIAS
    if size == d.shape:
        return dispatch(view_op, input, size)
    r = d.reshape(size)
    if np.may_share_memory(r, d) or d.size == 0:
        return dispatch(view_op, input, size)
    # not viewable: PyTorch clones then views (CloneBackward0 -> UnsafeViewBackward0)
    return dispatch(UNSAFE_VIEW, unary(CLONE, input), size)


@export()
def view_as(input, other):
    return view(input, other.shape)


@export()
def reshape_as(input, other):
    return reshape(input, other.shape)


@export()
def flatten(input, start_dim=0, end_dim=-1):
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for k in shp[s:e + 1]:
        n *= k
    return reshape(input, shp[:s] + (n,) + shp[e + 1:])


@export()
def ravel(input):
    """The elements in row-major order, 1-D: ``input.contiguous().view(-1)`` as PyTorch's
    (a view of a contiguous input; a CloneBackward0 copy first otherwise)."""
    return view(input.contiguous(), -1)


@export()
def transpose(input, dim0, dim1):
    nd = input._data.ndim
    return dispatch(TRANSPOSE, input, _neg(dim0, nd), _neg(dim1, nd))


swapaxes = export("swapaxes")(transpose)
swapdims = export("swapdims")(transpose)


@export()
def t(input):
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D")
    return unary(T, input)


@export()
def expand(input, *sizes):
    require("expand", sizes, "size")
    sizes = _size_arg(sizes)
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(
            f"expand(): the number of sizes provided ({len(sizes)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(shp)})")
    lead = len(sizes) - len(shp)
    out = list(sizes)
    for i, s in enumerate(shp):
        want = sizes[lead + i]
        if want == -1:
            out[lead + i] = s
        elif s != 1 and want != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({s}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(sizes)}.  Tensor "
                f"sizes: {list(shp)}")
    return dispatch(EXPAND, input, tuple(out))


@export(function=False)
def expand_as(input, other):
    return expand(input, other.shape)


@export()
def broadcast_to(input, size):
    return expand(input, tuple(size))


@export()
def unsqueeze(input, dim):
    nd = input._data.ndim
    d = _wrap_dim(dim, nd + 1)
    return dispatch(UNSQUEEZE, input, d - (nd + 1))


@export()
def squeeze(input, dim=None):
    nd = input._data.ndim
    if dim is None:
        return unary(SQUEEZE, input)
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrap_dim(d, nd) for d in dim) if nd else ()
        return dispatch(SQUEEZE_DIMS, input, dims)
    if nd == 0:
        _wrap_dim(dim, 0)
        return dispatch(SQUEEZE_DIMS, input, ())
    return dispatch(SQUEEZE_DIM, input, _wrap_dim(dim, nd))


@export()
def select(input, dim, index):
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    index = int(index)
    if index < -n or index >= n:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    return dispatch(SELECT, input, d - nd, index + n if index < 0 else index)


@export()
def narrow(input, dim, start, length):
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    start = int(start)
    if start < 0:
        start += n
    if start < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice(input, d, start, start + length, 1)


def _slice(input, d, start, end, step):
    nd = input._data.ndim
    return dispatch(SLICE, input, d - nd, start, end, step)


# ---------------------------------------------------------------- indexing
def _is_basic(k):
    return k is None or k is Ellipsis or isinstance(k, (int, slice)) and not isinstance(k, bool)


def _as_int_index(k):
    """0-d integer tensors and NumPy integers index like Python ints (a select view)."""
    if isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu":
        return int(k._data)
    if isinstance(k, np.integer):
        return int(k)
    return k


def _from_zero(k):
    """Whether slice ``k`` starts at 0 as written: PyTorch skips a slice over a whole dim
    only then (``x[:, -n:]`` is still a SliceBackward0, ``x[:, 0:n]`` no node)."""
    return k.start is None or k.start == 0


def basic_index_step(out, dim, k):
    """Apply one basic index ``k`` (None, int or slice) at ``dim`` of ``out``.

    Returns ``(view, next_dim, made_node)``; a full slice makes no node.  Shared by
    basic indexing (getitem) and the basic part of advanced indexing.
    """
    if k is None:
        return unsqueeze(out, dim), dim + 1, True
    n = out._data.shape[dim]
    if isinstance(k, int):
        if k < -n or k >= n:
            raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {n}")
        return select(out, dim, k), dim, True
    start, stop, step = k.indices(n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if start == 0 and stop == n and step == 1 and _from_zero(k):
        return out, dim + 1, False
    return _slice(out, dim, start, max(stop, start), step), dim + 1, True


_SEQUENCE_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")


def sequence_as_tuple(key, stacklevel=4):
    """PyTorch 2.13's legacy rule for a list key: a list of fewer than 32 entries holding a
    sequence, a tensor, a slice, ``...`` or None indexes like the tuple of its entries
    (``x[[[1, 2], [0, 1]]]`` is ``x[[1, 2], [0, 1]]``), with PyTorch's deprecation warning.
    Returns that tuple, or None for any other key."""
    if key.__class__ is not list or len(key) >= 32:
        return None
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, (slice, list, tuple, Tensor, range, np.ndarray)):
            import warnings
            warnings.warn(_SEQUENCE_KEY_WARNING, UserWarning, stacklevel=stacklevel)
            return tuple(key)
    return None


def getitem(self, key):
    """``tensor[key]``: views for basic indexing (PyTorch's select/slice/unsqueeze chain);
    keys with lists, index tensors or masks go to advanced indexing (IndexBackward0)."""
    # a slice alone is always a SliceBackward0 (x[:], x[0:n]); within a tuple a slice of
    # a whole dim makes no node (x[:, 0:n], x[(slice(None),)]: AliasBackward0 if nothing
    # else does), as PyTorch's indexing
    lone_slice = key.__class__ is slice
    if not isinstance(key, tuple):
        key = sequence_as_tuple(key) or (key,)
    key = tuple(_as_int_index(k) for k in key)
    if not all(_is_basic(k) for k in key):
        from .indexing import advanced_getitem
        return advanced_getitem(self, key)
    nd = self._data.ndim
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out = self
    dim = 0
    touched = False
    for k in key:
        if k is Ellipsis:
            dim += nd - n_real
            continue
        out, next_dim, made = basic_index_step(out, dim, k)
        if not made and lone_slice:
            out = _slice(out, dim, *k.indices(out._data.shape[dim]))
            made = True
        touched = touched or made
        dim = next_dim
    if not touched:
        return unary(ALIAS, out)
    return out


# (more views -- permute, movedim, unflatten, unbind/split/chunk, as_strided,
# view_as_real/complex -- are in views.py)
__all__ = ["view", "reshape", "transpose", "t", "expand", "unsqueeze", "squeeze", "select",
           "narrow", "getitem", "flatten", "ravel"]
