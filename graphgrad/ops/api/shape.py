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
from .. import formulas as F
from ..dispatch import dispatch, unary
from ..derivatives.pointwise import CLONE
from ..registry import LINEAR, defop, export


def _neg(dim, ndim):
    """``dim`` of an ``ndim``-d tensor as a negative index (batch-safe)."""
    return _wrap_dim(dim, ndim) - max(ndim, 1) if ndim else -1


def _nd(dim, nd):
    """``dim`` (of an ``nd``-dim tensor, maybe already negative) counted from the end."""
    return dim - nd if dim >= 0 else dim


def _reshape_batched(self_t, self_sym_sizes, size):
    """The batched JVP of the view/reshape family: the batch dims stay in front."""
    return F.reshape_to(self_t, size, len(self_sym_sizes))


def _expand_batched(self_t, self_sym_sizes, size):
    nd = len(self_sym_sizes)
    return F.expand(F.pad_batched(self_t, nd, len(size)), F.batch_shape(self_t, nd) + tuple(size))


def _squeezed_batched(self_t, self_sym_sizes, dims):
    nd = len(self_sym_sizes)
    dims = {d % nd for d in dims} if nd else ()
    keep = tuple(s for i, s in enumerate(self_sym_sizes) if not (i in dims and s == 1))
    return F.reshape_to(self_t, keep, len(self_sym_sizes))


def _view_kernel(a, size):
    out = a.view()
    try:
        out.shape = size
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return out


VIEW = defop("view(self, *, size)", _view_kernel, "ViewBackward0", is_view=True,
             self=lambda grad, self_sym_sizes, size: F.reshape_to(grad, self_sym_sizes, len(size)),
             jvp=LINEAR, batched_jvp=_reshape_batched)
UNSAFE_VIEW = defop("_unsafe_view(self, *, size)", lambda a, size: a.reshape(size),
                    "UnsafeViewBackward0",
                    self=lambda grad, self_sym_sizes, size:
                        F.reshape_to(grad, self_sym_sizes, len(size)),
                    jvp=LINEAR, batched_jvp=_reshape_batched)
# reshape of a non-contiguous tensor that can still be viewed (PyTorch's _reshape_alias)
RESHAPE_ALIAS = defop("_reshape_alias(self, *, size)", lambda a, size: a.reshape(size),
                      "ReshapeAliasBackward0", is_view=True,
                      self=lambda grad, self_sym_sizes, size:
                          F.reshape_to(grad, self_sym_sizes, len(size)),
                      jvp=LINEAR, batched_jvp=_reshape_batched)
ALIAS = defop("alias(self)", lambda a: a.view(), "AliasBackward0", is_view=True,
              self=lambda grad: grad, jvp=LINEAR, batched_jvp=True)
TRANSPOSE = defop("transpose(self, *, dim0, dim1)", np.swapaxes, "TransposeBackward0",
                  is_view=True,
                  self=lambda grad, dim0, dim1: F.transpose(grad, dim0, dim1), jvp=LINEAR,
                  batched_jvp=lambda self_t, self_sym_sizes, dim0, dim1: F.transpose(
                      self_t, _nd(dim0, len(self_sym_sizes)), _nd(dim1, len(self_sym_sizes))))
T = defop("t(self)", lambda a: a.T, "TBackward0", is_view=True,
          self=lambda grad, self_sym_sizes: F.mT(grad) if len(self_sym_sizes) == 2 else grad,
          jvp=LINEAR,
          batched_jvp=lambda self_t, self_sym_sizes:
              F.mT(self_t) if len(self_sym_sizes) == 2 else F.alias(self_t))
def _expand_kernel(a, size):
    # PyTorch's strides: 0 only on the dims it expands (new ones and size 1 -> n); a size-1
    # dim kept at size 1 keeps its stride, so writing through such a view is allowed
    lead = len(size) - a.ndim
    if lead < 0:
        return np.broadcast_to(a, size)  # (raises NumPy's error; callers check first)
    st = (0,) * lead + tuple(s if n == m else 0
                             for n, m, s in zip(a.shape, size[lead:], a.strides))
    return np.lib.stride_tricks.as_strided(a, tuple(size), st)


EXPAND = defop("expand(self, *, size)", _expand_kernel, "ExpandBackward0", is_view=True,
               self=lambda grad, self_sym_sizes, size: F.sum_to(grad, self_sym_sizes, len(size)),
               jvp=LINEAR, batched_jvp=_expand_batched)
UNSQUEEZE = defop("unsqueeze(self, *, dim)", np.expand_dims, "UnsqueezeBackward0", is_view=True,
                  self=lambda grad, dim: F.squeeze_dims(grad, (dim,)), jvp=LINEAR,
                  batched_jvp=lambda self_t, self_sym_sizes, dim:
                      F.unsqueeze(self_t, _nd(dim, len(self_sym_sizes) + 1)))


def _squeezed_ndim(sizes, dims):
    return len(sizes) - sum(1 for d in dims if sizes[d] == 1)


SQUEEZE = defop("squeeze(self)", np.squeeze, "SqueezeBackward0", is_view=True,
                self=lambda grad, self_sym_sizes: F.reshape_to(
                    grad, self_sym_sizes, sum(1 for s in self_sym_sizes if s != 1)),
                jvp=LINEAR,
                batched_jvp=lambda self_t, self_sym_sizes:
                    _squeezed_batched(self_t, self_sym_sizes, range(len(self_sym_sizes))))
SQUEEZE_DIM = defop("squeeze.dim(self, *, dim)", lambda a, dim: np.squeeze(a, dim) if
                    a.shape[dim] == 1 else a.view(), "SqueezeBackward1", is_view=True,
                    self=lambda grad, self_sym_sizes, dim: F.reshape_to(
                        grad, self_sym_sizes, _squeezed_ndim(self_sym_sizes, (dim,))),
                    jvp=LINEAR,
                    batched_jvp=lambda self_t, self_sym_sizes, dim:
                        _squeezed_batched(self_t, self_sym_sizes, (dim,)))
SQUEEZE_DIMS = defop("squeeze.dims(self, *, dim)", lambda a, dim: np.squeeze(
                         a, tuple(d for d in dim if a.shape[d] == 1)),
                     "SqueezeBackward2", is_view=True,
                     self=lambda grad, self_sym_sizes, dim: F.reshape_to(
                         grad, self_sym_sizes, _squeezed_ndim(self_sym_sizes, dim)),
                     jvp=LINEAR,
                     batched_jvp=lambda self_t, self_sym_sizes, dim:
                         _squeezed_batched(self_t, self_sym_sizes, dim))
SQUEEZE_DIMS_ = defop("squeeze_dims(self, *, dims)", np.squeeze, "SqueezeBackward2",
                      self=lambda grad, dims: F.unsqueeze_dims(grad, dims), jvp=LINEAR,
                      batched_jvp=lambda self_t, self_sym_sizes, dims:
                          _squeezed_batched(self_t, self_sym_sizes, dims))
UNSQUEEZE_DIMS = defop("unsqueeze_dims(self, *, dims)", np.expand_dims, "UnsqueezeBackward0",
                       self=lambda grad, dims: F.squeeze_dims(grad, dims), jvp=LINEAR,
                       batched_jvp=lambda self_t, self_sym_sizes, dims: F.unsqueeze_dims(
                           self_t, tuple(_nd(d, len(self_sym_sizes) + len(dims))
                                         for d in dims)))


def _select_key(dim, index):
    # dim < 0: index from the end, so leading batch dims pass through
    return (Ellipsis, index) + (slice(None),) * (-dim - 1)


def _select_backward_kernel(grad, sizes, dim, index):
    lead = grad.shape[:grad.ndim - (len(sizes) - 1)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    z[_select_key(dim, index)] = grad
    return z


def _slice_key(dim, start, end, step):
    return (Ellipsis, slice(start, end, step)) + (slice(None),) * (-dim - 1)


def _slice_backward_kernel(grad, sizes, dim, start, end, step):
    lead = grad.shape[:grad.ndim - len(sizes)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    z[_slice_key(dim, start, end, step)] = grad
    return z


SELECT = defop("select(self, *, dim, index)", lambda a, dim, index: a[_select_key(dim, index)],
               "SelectBackward0", is_view=True,
               self=lambda grad, self_sym_sizes, dim, index:
                   F.select_backward(grad, tuple(self_sym_sizes), dim, index),
               jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, dim, index:
                   F.select(self_t, _nd(dim, len(self_sym_sizes)), index))
SELECT_BACKWARD = defop("select_backward(grad, *, sizes, dim, index)", _select_backward_kernel,
                        "SelectBackwardBackward0",
                        grad=lambda grad, dim, index: F.select(grad, dim, index), jvp=LINEAR,
                        batched_jvp=lambda grad_t, sizes, dim, index:
                            F.select_backward(grad_t, sizes, _nd(dim, len(sizes)), index))
SLICE = defop("slice(self, *, dim, start, end, step)",
              lambda a, dim, start, end, step: a[_slice_key(dim, start, end, step)],
              "SliceBackward0", is_view=True,
              self=lambda grad, self_sym_sizes, dim, start, end, step:
                  F.slice_backward(grad, tuple(self_sym_sizes), dim, start, end, step),
              jvp=LINEAR,
              batched_jvp=lambda self_t, self_sym_sizes, dim, start, end, step:
                  F.slice(self_t, _nd(dim, len(self_sym_sizes)), start, end, step))
SLICE_BACKWARD = defop("slice_backward(grad, *, sizes, dim, start, end, step)",
                       _slice_backward_kernel, "SliceBackwardBackward0",
                       grad=lambda grad, dim, start, end, step: F.slice(grad, dim, start, end,
                                                                          step),
                       jvp=LINEAR,
                       batched_jvp=lambda grad_t, sizes, dim, start, end, step: F.slice_backward(
                           grad_t, sizes, _nd(dim, len(sizes)), start, end, step))


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
    if len(size) == 1 and not isinstance(size[0], (int, tuple, list)):
        d = to_dtype(size[0])
        return _wrap_dtype_view(input, d)
    size = _infer_size(_size_arg(size), input._data.size)
    return dispatch(VIEW, input, size)


def _wrap_dtype_view(input, d):
    return Tensor._wrap(input._data.view(d.np))


@export()
def reshape(input, *shape):
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
    if start == 0 and stop == n and step == 1:
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
        if not made and isinstance(k, slice) and (k != slice(None) or not touched
                                                  and len(key) == 1):
            # an explicit full slice (x[0:n], or x[:] alone) is still a SliceBackward0
            out = _slice(out, dim, *k.indices(out._data.shape[dim]))
            made = True
        touched = touched or made
        dim = next_dim
    if not touched:
        return unary(ALIAS, out)
    return out


__all__ = ["view", "reshape", "transpose", "t", "expand", "unsqueeze", "squeeze", "select",
           "narrow", "getitem", "flatten", "permute", "movedim", "unflatten", "unbind", "split",
           "chunk", "as_strided", "view_as_real", "view_as_complex"]

# more views (permute, unbind/split/chunk, as_strided, view_as_real/complex) live in views.py
from .views import (as_strided, chunk, movedim, permute, split, unbind, unflatten,
                    view_as_complex, view_as_real)
from ..._core.dtypes import to_dtype
