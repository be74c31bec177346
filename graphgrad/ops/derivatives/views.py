"""The table, views family: permute/movedim, unflatten, unbind/split/chunk, as_strided,
unfold, view_as_real.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/views.py, public functions in ops/api/views.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import LINEAR, defop
from .shape import _nd
from ..kernels.views import (
    _as_strided_backward_kernel, _as_strided_gather_kernel, _as_strided_kernel,
    _permute_kernel, _split_kernel, _split_with_sizes_kernel, _unbind_kernel,
    _unfold_backward_kernel, _unfold_kernel, _view_as_complex_kernel, _view_as_real_kernel)


# ---------------------------------------------------------------- table entries
def _inverse_perm(dims):
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d + n] = i - n
    return tuple(inv)


PERMUTE = defop("permute(self, *, dims)", _permute_kernel, "PermuteBackward0", is_view=True,
                self=lambda grad, dims: F.permute(grad, _inverse_perm(dims)), jvp=LINEAR,
                batched_jvp=lambda self_t, dims: F.permute(
                    self_t, tuple(_nd(d, len(dims)) for d in dims)))


def _is_tensor(x):
    return isinstance(x, Tensor)


def _batch_like(grads, out_ndim):
    """Gradients of several outputs, broadcast to one common leading batch shape (an unused
    output's materialized zero gradient has no batch dims)."""
    lead = ()
    for g in grads:
        b = F.batch_shape(g, out_ndim)
        if len(b) > len(lead):
            lead = b
    if not lead:
        return list(grads)
    return [g if F.batch_shape(g, out_ndim) == lead else F.expand(g, lead + F.shape(g)[
        len(F.shape(g)) - out_ndim:]) for g in grads]


def stack_grads(grads, dim, out_ndim):
    """Stack (batched) gradients along ``dim`` (< 0); ndarrays or Tensors."""
    grads = _batch_like(grads, out_ndim)
    if any(_is_tensor(g) for g in grads):
        from ..api.copies import stack
        return stack([g if _is_tensor(g) else Tensor._wrap(np.asarray(g)) for g in grads], dim)
    return np.stack(grads, axis=dim)


def cat_grads(grads, dim, out_ndim):
    """Concatenate (batched) gradients along ``dim`` (< 0); ndarrays or Tensors."""
    grads = _batch_like(grads, out_ndim)
    if any(_is_tensor(g) for g in grads):
        from ..api.copies import cat
        return cat([g if _is_tensor(g) else Tensor._wrap(np.asarray(g)) for g in grads], dim)
    return np.concatenate(grads, axis=dim)


UNBIND = defop("unbind(self, *, dim)", _unbind_kernel, "UnbindBackward0", is_view=True,
               n_outputs=2,
               self=lambda grads, self_sym_sizes, dim:
                   stack_grads(grads, dim, len(self_sym_sizes) - 1),
               jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, dim:
                   F.unbind(self_t, _nd(dim, len(self_sym_sizes))))
SPLIT = defop("split(self, *, split_size, dim)", _split_kernel, "SplitBackward0", is_view=True,
              n_outputs=2,
              self=lambda grads, self_sym_sizes, dim: cat_grads(grads, dim, len(self_sym_sizes)),
              jvp=LINEAR,
              batched_jvp=lambda self_t, self_sym_sizes, split_size, dim:
                  F.split(self_t, split_size, _nd(dim, len(self_sym_sizes))))
SPLIT_WITH_SIZES = defop("split_with_sizes(self, *, split_sizes, dim)", _split_with_sizes_kernel,
                         "SplitWithSizesBackward0", is_view=True, n_outputs=2,
                         self=lambda grads, self_sym_sizes, dim:
                             cat_grads(grads, dim, len(self_sym_sizes)),
                         jvp=LINEAR,
                         batched_jvp=lambda self_t, self_sym_sizes, split_sizes, dim:
                             F.split_with_sizes(self_t, split_sizes,
                                                _nd(dim, len(self_sym_sizes))))


def _constant_if_empty(grad):
    """An empty output's gradient as a constant: PyTorch's as_strided_backward returns zeros
    not connected to the graph for it (so a double backward adds nothing through it)."""
    if isinstance(grad, Tensor) and not grad._data.size:
        return grad._data
    return grad


AS_STRIDED = defop("as_strided(self, *, size, stride, storage_offset)", _as_strided_kernel,
                   "AsStridedBackward0", is_view=True,
                   self=lambda grad, self_sym_sizes, size, stride, storage_offset:
                       F.as_strided_backward(_constant_if_empty(grad), tuple(self_sym_sizes),
                                             size, stride, storage_offset),
                   jvp=LINEAR,
                   batched_jvp=lambda self_t, self_sym_sizes, size, stride, storage_offset:
                       F.as_strided_gather(self_t, tuple(self_sym_sizes), size, stride,
                                           storage_offset))


AS_STRIDED_BACKWARD = defop(
    "as_strided_backward(grad, *, sizes, size, stride, storage_offset)",
    _as_strided_backward_kernel, "AsStridedBackwardBackward0",
    grad=lambda grad, sizes, size, stride, storage_offset:
        F.as_strided_gather(grad, sizes, size, stride, storage_offset),
    jvp=LINEAR, batched_jvp=True)
AS_STRIDED_GATHER = defop(
    "as_strided_gather(self, *, sizes, size, stride, storage_offset)",
    _as_strided_gather_kernel, "AsStridedBackward0",
    self=lambda grad, sizes, size, stride, storage_offset:
        F.as_strided_backward(grad, sizes, size, stride, storage_offset),
    jvp=LINEAR, batched_jvp=True)


# Tensor.unfold (dimension stored negative; PyTorch's node saves it as ``dimension``)
UNFOLD = defop("unfold(self, *, dimension, size, step)", _unfold_kernel, "UnfoldBackward0",
               is_view=True,
               self=lambda grad, self_sym_sizes, dimension, size, step:
                   F.unfold_backward(grad, tuple(self_sym_sizes), dimension, size, step),
               jvp=LINEAR,
               batched_jvp=lambda self_t, self_sym_sizes, dimension, size, step:
                   F.unfold(self_t, dimension, size, step) if self_sym_sizes else
                   F.slice(F.unsqueeze(self_t, -1), -1, 0, size, 1))  # (a 0-d input)
UNFOLD_BACKWARD = defop("unfold_backward(grad_in, *, input_sizes, dim, size, step)",
                        _unfold_backward_kernel, "UnfoldBackwardBackward0",
                        grad_in=lambda grad, dim, size, step: F.unfold(grad, dim, size, step),
                        jvp=LINEAR, batched_jvp=True)


def _contiguous(x):
    if _is_tensor(x):
        # (x.contiguous(), not clone: clone keeps a transposed gradient's layout)
        return x if x._data.flags.c_contiguous else x.contiguous()
    return np.ascontiguousarray(x)


VIEW_AS_REAL = defop("view_as_real(self)", _view_as_real_kernel, "ViewAsRealBackward0",
                     is_view=True,
                     self=lambda grad: F.view_as_complex(_contiguous(grad)), jvp=LINEAR,
                     batched_jvp=True)
VIEW_AS_COMPLEX = defop("view_as_complex(self)", _view_as_complex_kernel,
                        "ViewAsComplexBackward0", is_view=True,
                        self=lambda grad: F.view_as_real(grad), jvp=LINEAR, batched_jvp=True)
