"""In-place ops on views: CopySlices and the regenerated view grad_fn (seed 003 §3.3).

When a view ``v`` of ``base`` is modified in place by a node ``fn``, the
base's history is rebased onto ``CopySlices(fn)``: its backward takes the
base's gradient, hands ``fn`` the part that falls in the view, and puts
``fn``'s gradient for the view's old value back in that region.  The view's
own grad_fn becomes ``AsStridedBackward0`` from the base's new history.

The view's region is found by replaying the recorded chain of view ops, and
scattering back is the op ``_view_scatter`` (the adjoint of the replay), so
both work on ndarrays and on Tensors (double backward).
"""
from __future__ import annotations

import weakref
import numpy as np

from ..._tensor.tensor import Tensor
from ...autograd import graph as _graph
from ...autograd.graph import Node
from ...autograd.saved import _FREED_MSG, SavedVariable
from ..inplace import dispatch_inplace, _overlaps
from ..dispatch import dispatch
from ...autograd.views import _edge, _regenerate_view_grad_fn, mark_views, move_retains_grad
from ..registry import export
from ..derivatives.inplace import (
    COPY, FILL, FILL_T, RELAYOUT, VIEW_SCATTER, ZERO_FILL, _read_region, view_zero)
from ..kernels.inplace import _view_scatter_kernel


# ---------------------------------------------------------------- the base's layout
def chain_for_base(view):
    """The view chain a backward node replays: rooted at the base's layout when the base
    is not row-major."""
    b = view._base._data
    if b.ndim < 2 or b.flags.c_contiguous:
        return view._view_fn
    order = tuple(sorted(range(b.ndim), key=lambda d: -b.strides[d]))

    def rooted(chain):
        if chain is None:
            return (None, RELAYOUT, (order,))
        parent, op, attrs = chain
        return (rooted(parent), op, attrs)
    return rooted(view._view_fn)


def view_scatter(grad, chain, base_sizes, view_ndim, base_dtype=None):
    if isinstance(grad, Tensor):
        return dispatch(VIEW_SCATTER, grad, chain, base_sizes, view_ndim, base_dtype)
    return _view_scatter_kernel(grad, chain, base_sizes, view_ndim, base_dtype)


def _region(grad, chain, base_ndim):
    nb = (grad.ndim if not isinstance(grad, Tensor) else grad._data.ndim) - base_ndim
    if nb and not isinstance(grad, Tensor):
        rows = grad.reshape((-1,) + grad.shape[nb:])
        return np.stack([_read_region(r, chain) for r in rows]).reshape(
            grad.shape[:nb] + _read_region(rows[0], chain).shape)
    return _read_region(grad, chain)


class AsStridedBackward0(Node):
    """grad_fn of a view whose base was modified in place: scatter into the base's shape."""

    __slots__ = ("_base_meta", "_chain", "_out_meta")

    def _apply(self, grads, mask, create_graph):
        g = grads[0]
        if g is None:
            return [None]
        if isinstance(g, Tensor) and not g._data.size:
            # an empty view's gradient is a constant zero, not connected to the graph (as
            # PyTorch's as_strided_backward returns it): its double backward does not pass
            # through the base's history (fuzz seed 1068346: 0 * NaN of logit's derivative)
            g = g._data
        return [view_scatter(g, self._chain, self._base_meta[0], len(self._out_meta[0][0]),
                             self._base_meta[1])]


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views."""

    __slots__ = ("_fn", "_chain", "_out_meta", "_view_ndim")

    def name(self):
        return "torch::autograd::CopySlices"

    def _apply(self, grads, mask, create_graph):
        g = grads[0]
        if g is None:
            return [None] * len(self._next_edges)
        base_sizes = self._out_meta[0][0]
        g_view = _region(g, self._chain, len(base_sizes))
        if not isinstance(g_view, Tensor):
            g_view = np.array(g_view)  # a copy: fn may not alias the base gradient
        fn = self._fn
        if fn is None:
            raise RuntimeError(_FREED_MSG)
        # fn's gradient for the view's old value exists only if the view required grad then
        fn_mask = (fn._next_edges[0][0] is not None,) + tuple(self.needs_mask(mask)[1:])
        res = fn._apply([g_view], fn_mask, create_graph)
        # overwrite the view's region of the base gradient (zero, then fn's gradient for it;
        # subtracting the region would turn an infinite gradient into NaN)
        base_dtype = self._out_meta[0][1]
        if self._next_edges[0][0] is None:
            return [None] + list(res[1:])
        base_grad = view_zero(g, self._chain, len(base_sizes))
        r0 = res[0]
        if r0 is not None:
            meta = fn._next_edges[0][0]
            base_grad = base_grad + view_scatter(_cast_like(r0, g_view), self._chain, base_sizes,
                                                 self._view_ndim, base_dtype)
        return [base_grad] + list(res[1:])

    def release_variables(self):
        # drop fn rather than its saved tensors, as PyTorch's CopySlices does: the result an
        # in-place op on a view saved may still lead to fn from another graph (double
        # backward after the view itself is gone); fn's tensors go with its last reference
        self._fn = None

    @property
    def metadata(self):
        return self._fn.metadata if self._fn is not None else {}


class _ExpandedCopySlices(CopySlices):
    """CopySlices of an in-place fill of an expanded view (allowed in the forward, as
    PyTorch's): PyTorch's cannot write the view's gradient into a region where several
    elements are one location, and raises its overlap error in backward."""

    __slots__ = ()

    def _apply(self, grads, mask, create_graph):
        fn = self._fn
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the "
            f"operation. (backward of an in-place {fn.name() if fn is not None else 'op'} on "
            "an expanded view)")


def _cast_like(x, like):
    if isinstance(x, Tensor) or isinstance(like, Tensor):
        return x
    return x.astype(like.dtype, copy=False) if x.dtype != like.dtype else x


def make_copy_slices(view, fn):
    """Rebase ``view``'s base onto CopySlices(fn); regenerate the view's grad_fn."""
    base = view._base
    cs = _ExpandedCopySlices() if _overlaps(view._data) else CopySlices()
    cs._seq = _graph.next_sequence_nr()  # its own number, after fn's, as in PyTorch
    base_edge = _edge(base) if base._requires_grad else (None, 0)
    cs._next_edges = (base_edge,) + tuple(fn._next_edges[1:])
    cs._fn = fn
    cs._chain = chain_for_base(view)
    cs._view_ndim = view._data.ndim
    cs._out_meta = ((base._data.shape, base._data.dtype),)
    old_fn, old_nr = base._grad_fn, base._output_nr
    if base._views is not None:
        mark_views(base)
    base._grad_fn, base._output_nr, base._requires_grad = cs, 0, True
    if base._retains_grad:
        move_retains_grad(base, old_fn, old_nr)
    _regenerate_view_grad_fn(view)
    # fn's saved result is the view: unpacked (double backward) it must carry the view's
    # new history, not fn, which only CopySlices runs (PyTorch's is_inplace_on_view). Held
    # weakly, as PyTorch's weak_grad_fn_: that history leads back to fn through CopySlices,
    # so a strong reference would be a cycle (graph and tensors freed only by the gc)
    for sv in getattr(fn, "_saved", None) or ():
        if sv.__class__ is SavedVariable and sv.tensor is None and sv.data is view._data:
            sv.weak_fn = weakref.ref(view._grad_fn)


# ================================================================ zero_, fill_, copy_
@export()
def zero_(self):
    return dispatch_inplace(ZERO_FILL, self)


@export()
def fill_(self, value):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return dispatch_inplace(FILL_T, self, value)
    if isinstance(value, complex) and self._data.dtype.kind in "fiuVb":
        if self._data.dtype.kind == "b":
            value = bool(value)
        elif value.imag:
            raise RuntimeError("value cannot be converted to type "
                               f"{_C_TYPE.get(str(self.dtype), '?')} without overflow")
        else:
            value = value.real  # (NumPy would warn that it discards the zero imaginary part)
    return dispatch_inplace(FILL, self, value)


# the C++ names PyTorch's conversion errors give its real dtypes
_C_TYPE = {f"graphgrad.{k}": v for k, v in (
    ("float16", "c10::Half"), ("bfloat16", "c10::BFloat16"), ("float32", "float"),
    ("float64", "double"), ("int64", "int64_t"), ("int32", "int"), ("int16", "int16_t"),
    ("int8", "int8_t"), ("uint8", "uint8_t"))}


@export()
def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1})"
                           f" must match the size of tensor b ({src._data.shape[-1]}) at "
                           "non-singleton dimension (copy_: source shape "
                           f"{list(src._data.shape)} does not broadcast to "
                           f"{list(self._data.shape)})") from None
    return dispatch_inplace(COPY, self, src)
