"""More views: permute/movedim, unflatten, the multi-output views unbind/split/chunk,
as_strided and view_as_real/view_as_complex (table entries and public functions).

Like the views of shape.py, kernels return NumPy views and are pure functions of
(array, *attrs), so CopySlices can replay them; dims are stored negative so the rules work
on gradients with leading batch dims.  Multi-output views record each output as its own
select/slice view of the input.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..dispatch import dispatch, unary
from ..registry import export
from ._args import require
from ..derivatives.shape import SELECT, SLICE
from .shape import view
from ...autograd.views import _set_view
from ..inplace import check_inplace
from ..._core.state import tls
from ...autograd._saved_hooks import before_inplace
from ..derivatives.views import (
    AS_STRIDED, PERMUTE, SPLIT, SPLIT_WITH_SIZES, UNBIND, UNFOLD, VIEW_AS_COMPLEX, VIEW_AS_REAL)
from ..kernels.views import _as_strided_extent, _bounds_of_sizes, _split_bounds


# ---------------------------------------------------------------- public functions
def _dim_list(dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return tuple(int(d) for d in dims)


@export()
def permute(input, *dims):
    """A view with the dims reordered (``dims`` may be given as a sequence or unpacked)."""
    require("permute", dims, "dims")
    dims = _dim_list(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(): number of dims don't match: input.dim() = {nd} is not equal to "
            f"len(dims) = {len(dims)} (give one entry per dimension, e.g. permute"
            f"{tuple(reversed(range(nd)))})")
    wrapped = [_wrap_dim(d, nd) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"permute(): duplicate dims are not allowed (got {list(dims)}).")
    return dispatch(PERMUTE, input, tuple(d - nd for d in wrapped))


@export()
def movedim(input, source, destination):
    """Move dims ``source`` to positions ``destination`` (a PermuteBackward0 view)."""
    nd = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)")
    src_w = [_wrap_dim(d, nd) for d in src]
    dst_w = [_wrap_dim(d, nd) for d in dst]
    if len(set(src_w)) != len(src_w):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(dst_w)) != len(dst_w):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    order = [-1] * nd
    for s_, d_ in zip(src_w, dst_w):
        order[d_] = s_
    rest = iter(i for i in range(nd) if i not in src_w)
    order = [o if o >= 0 else next(rest) for o in order]
    return dispatch(PERMUTE, input, tuple(d - nd for d in order))


moveaxis = export("moveaxis")(movedim)


@export()
def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one entry may be -1): a view."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("unflatten: Dimension specified as 0 but tensor has no dimensions "
                           "(unflatten needs at least one dimension)")
    d = _wrap_dim(dim, nd)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shp = input._data.shape
    n = shp[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred (-1)")
    known = 1
    for s_ in sizes:
        if s_ != -1:
            known *= s_
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                               f"size of dim {dim} ({n}) in the input tensor")
        sizes = tuple(n // known if s_ == -1 else s_ for s_ in sizes)
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor")
    return view(input, shp[:d] + sizes + shp[d + 1:])


def _set_output_views(x, outs, specs):
    """Record each output of a multi-output view op as its own select/slice view of ``x``."""
    for o, (op, attrs) in zip(outs, specs):
        _set_view(op, (x,) + attrs, o)
        if o._view_mode is None:
            # PyTorch refuses in-place changes of these views when grad is involved
            o._view_mode = "multi"
    return outs


@export()
def unbind(input, dim=0):
    """The slices along ``dim`` as a tuple of views."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions (unbind needs "
                         "a tensor with at least one dimension)")
    d = _wrap_dim(dim, nd)
    n = input._data.shape[d]
    if n == 0:
        return ()
    outs = dispatch(UNBIND, input, d - nd)
    return _set_output_views(input, outs, [(SELECT, (d - nd, i)) for i in range(n)])


def check_split_size(fn, split_size, n):
    """split's / unsafe_split's argument checks (``n``: the size of the split dim)."""
    if split_size < 0:
        raise RuntimeError(f"{fn} expects split_size be non-negative, but got split_size="
                           f"{split_size}")
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")


def check_split_sizes(sizes, n, d):
    """split_with_sizes' argument checks; the sizes as a tuple of ints."""
    sizes = tuple(int(s_) for s_ in sizes)
    if sum(sizes) != n or any(s_ < 0 for s_ in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={list(sizes)}")
    return sizes


def _split_int(input, split_size, d):
    nd = input._data.ndim
    n = input._data.shape[d]
    check_split_size("split", split_size, n)
    outs = dispatch(SPLIT, input, split_size, d - nd)
    bounds = _split_bounds(n, split_size) if split_size else ((0, 0),)
    return _set_output_views(input, outs, [(SLICE, (d - nd, s_, e, 1)) for s_, e in bounds])


def _split_sizes(input, sizes, d):
    nd = input._data.ndim
    n = input._data.shape[d]
    sizes = check_split_sizes(sizes, n, d)
    if not sizes:
        return ()
    outs = dispatch(SPLIT_WITH_SIZES, input, sizes, d - nd)
    return _set_output_views(input, outs, [(SLICE, (d - nd, s_, e, 1))
                                           for s_, e in _bounds_of_sizes(sizes)])


def _split_dim(input, dim, fn):
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError(f"{fn} expects at least a 1-dimensional tensor")
    return _wrap_dim(dim, nd)


@export()
def split(tensor, split_size_or_sections=None, dim=0, *, split_size=None):
    """Views of consecutive pieces along ``dim``: equal pieces of ``split_size`` (the last may
    be smaller) or pieces of the listed sizes."""
    if split_size_or_sections is None:
        if split_size is None:
            raise TypeError("split() missing required argument 'split_size_or_sections'")
        split_size_or_sections = split_size
    d = _split_dim(tensor, dim, "split")
    if isinstance(split_size_or_sections, (list, tuple)):
        return _split_sizes(tensor, split_size_or_sections, d)
    return _split_int(tensor, int(split_size_or_sections), d)


@export()
def split_with_sizes(input, split_sizes, dim=0):
    return _split_sizes(input, split_sizes, _split_dim(input, dim, "split_with_sizes"))


@export()
def chunk(input, chunks, dim=0):
    """At most ``chunks`` views of (nearly) equal size along ``dim``."""
    return chunk_with(input, chunks, dim, "chunk", _split_int, _split_sizes)


def chunk_with(input, chunks, dim, name, split_int, split_sizes):
    """``chunk``'s sizes, split by ``split_int``/``split_sizes`` (views, or not: unsafe_)."""
    chunks = int(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _split_dim(input, dim, name)
    n = input._data.shape[d]
    size = -(-n // chunks)
    if size == 0 and n == 0:
        return split_sizes(input, (0,) * chunks, d)
    return split_int(input, size, d)


@export()
def as_strided(input, size, stride, storage_offset=None):
    """A view with explicit sizes/strides (in elements) over the input's storage.

    Limited: the input must be contiguous (in a contiguous base) and the view must stay
    within the input's own elements; otherwise NotImplementedError.
    """
    size = tuple(int(s_) for s_ in size)
    stride = tuple(int(s_) for s_ in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape (as_strided: size "
                           f"{list(size)}, stride {list(stride)})")
    if any(s_ < 0 for s_ in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if any(s_ < 0 for s_ in size):
        raise RuntimeError(f"as_strided: negative sizes are not allowed, got {list(size)}")
    d = input._data
    root = input._base if input._base is not None else input
    rd = root._data
    isz = d.itemsize
    off_in = (d.__array_interface__["data"][0] - rd.__array_interface__["data"][0]) // isz
    if storage_offset is None:
        storage_offset = off_in
    storage_offset = int(storage_offset)
    if storage_offset < 0:
        raise RuntimeError(f"as_strided: Tensor: invalid storage offset {storage_offset}")
    extent = _as_strided_extent(size, stride, storage_offset)
    if extent > rd.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset}, and itemsize {isz} requiring a storage size of {extent * isz} are "
            f"out of bounds for storage of size {rd.size * isz}")
    rel = storage_offset - off_in
    if not (d.flags.c_contiguous and rd.flags.c_contiguous) or rel < 0 or \
            _as_strided_extent(size, stride, rel) > d.size:
        raise NotImplementedError(
            "as_strided is limited in graphgrad to contiguous inputs and views that stay within "
            "the input's own elements (here: input contiguous="
            f"{d.flags.c_contiguous}, storage offset {storage_offset} relative to the input's "
            f"{off_in}); call as_strided on the contiguous base tensor instead")
    return dispatch(AS_STRIDED, input, size, stride, rel)


@export(function=False)
def unfold(self, dimension, size, step):
    """``Tensor.unfold(dimension, size, step)``: a view of every window of ``size``
    elements, ``step`` apart, along ``dimension``, as a new last dim (UnfoldBackward0)."""
    nd = self._data.ndim
    d = _wrap_dim(dimension, max(nd, 1))
    n = self._data.shape[d] if nd else 1
    size, step = int(size), int(step)
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0 (unfold of a tensor of shape "
                           f"{list(self._data.shape)})")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is "
                           f"{size} (unfold: pass a size of at most {n})")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0 (unfold of a tensor of shape "
                           f"{list(self._data.shape)})")
    return dispatch(UNFOLD, self, d - max(nd, 1), size, step)


@export(method=False)
def view_as_real(input):
    """A real view of a complex tensor with a trailing dim of size 2 (real, imag)."""
    if input._data.dtype.kind != "c":
        raise RuntimeError(f"view_as_real is only supported for complex tensors (got "
                           f"{input.dtype}); a real tensor needs no conversion")
    return unary(VIEW_AS_REAL, input)


@export(method=False)
def view_as_complex(input):
    """A complex view of a float tensor whose last dim (size 2, stride 1) holds (real, imag)."""
    d = input._data
    if d.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {input.dtype}")
    if d.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions (view_as_complex "
                           "needs a last dimension of size 2)")
    if d.shape[-1] != 2:
        raise RuntimeError(f"Tensor must have a last dimension of size 2 (view_as_complex got "
                           f"shape {list(d.shape)})")
    isz = d.itemsize
    if d.strides[-1] != isz:
        raise RuntimeError("Tensor must have a last dimension with stride 1 (call .contiguous() "
                           "before view_as_complex)")
    if any(st % (2 * isz) for st, n in zip(d.strides[:-1], d.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    root = input._base if input._base is not None else input
    if (d.__array_interface__["data"][0] - root._data.__array_interface__["data"][0]) % (2 * isz):
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return unary(VIEW_AS_COMPLEX, input)


# ---------------------------------------------------------------- in-place view ops
# ``t.unsqueeze_(0)`` and friends change ``t``'s shape/strides, not its values: ``t`` takes
# the out-of-place view's array and, when that was recorded, its node -- under PyTorch's
# name for the in-place form (UnsqueezeBackward1, TBackward1, ...).
_RENAMED = {}


def _renamed(node, name):
    cls = type(node)
    sub = _RENAMED.get((cls, name))
    if sub is None:
        sub = _RENAMED[(cls, name)] = type(name, (cls,), {"__slots__": (),
                                                          "__module__": cls.__module__})
    node.__class__ = sub


def _inplace_view(self, op_name, node_name, view_fn, *args):
    if not isinstance(self, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' must be Tensor, not "
                        f"{type(self).__name__}")
    check_inplace(self, op_name)
    out = view_fn(self, *args)  # (raises on bad arguments before self is touched)
    if tls.mutation_ctx is not None:
        # allow_mutation_on_saved_tensors: a saved self keeps its shape
        before_inplace(self)
    self._data = out._data
    if getattr(out, "_value", None) is not None:   # a vmap BatchedTensor: the batch too
        self._value = out._value
    node = out._grad_fn
    if node is not None and node is not self._grad_fn:
        _renamed(node, node_name)
        self._grad_fn, self._output_nr, self._requires_grad = node, 0, True
    if out._fw is not None:  # forward AD: the tangent takes the new shape too
        self._fw = out._fw
    self._bump_version()
    if self._base is not None:  # later in-place ops on this view replay the longer chain
        self._view_fn = out._view_fn
        self._view_ver = self._vc.value
    return self


@export(function=False)
def unsqueeze_(self, dim):
    from .shape import unsqueeze
    return _inplace_view(self, "unsqueeze_", "UnsqueezeBackward1", unsqueeze, dim)


@export(function=False)
def squeeze_(self, dim=None):
    from .shape import squeeze
    name = "SqueezeBackward3" if dim is None else (
        "SqueezeBackward5" if isinstance(dim, (tuple, list)) else "SqueezeBackward4")
    return _inplace_view(self, "squeeze_", name, squeeze, dim)


@export(function=False)
def t_(self):
    from .shape import t
    return _inplace_view(self, "t_", "TBackward1", t)


@export(function=False)
def transpose_(self, dim0, dim1):
    from .shape import transpose
    return _inplace_view(self, "transpose_", "TransposeBackward1", transpose, dim0, dim1)


swapaxes_ = export("swapaxes_", function=False)(transpose_)
swapdims_ = export("swapdims_", function=False)(transpose_)


@export()
def as_strided_(input, size, stride, storage_offset=None):
    return _inplace_view(input, "as_strided_", "AsStridedBackward1", as_strided, size, stride,
                         storage_offset)
