"""The table, shape family: view/reshape, transpose, expand, (un)squeeze, select, slice.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/shape.py, public functions in ops/api/shape.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.shape import (
    _expand_kernel, _select_backward_kernel, _select_key, _slice_backward_kernel, _slice_key,
    _view_kernel)


# ================================================= batched JVP helpers (dims counted from the end)
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


# ===================================================== view / reshape / alias / transpose / expand
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
          self=lambda grad, self_sym_sizes: F.t(grad) if len(self_sym_sizes) == 2 else grad,
          jvp=LINEAR,
          batched_jvp=lambda self_t, self_sym_sizes:
              F.mT(self_t) if len(self_sym_sizes) == 2 else F.alias(self_t))


EXPAND = defop("expand(self, *, size)", _expand_kernel, "ExpandBackward0", is_view=True,
               self=lambda grad, self_sym_sizes, size: F.sum_to(grad, self_sym_sizes, len(size)),
               jvp=LINEAR, batched_jvp=_expand_batched)
UNSQUEEZE = defop("unsqueeze(self, *, dim)", np.expand_dims, "UnsqueezeBackward0", is_view=True,
                  self=lambda grad, dim: F.squeeze_dim(grad, dim), jvp=LINEAR,   # (SqueezeBackward1)
                  batched_jvp=lambda self_t, self_sym_sizes, dim:
                      F.unsqueeze(self_t, _nd(dim, len(self_sym_sizes) + 1)))


# ============================================================ squeeze / unsqueeze
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


# ========================================================= select / slice (and their backward ops)
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
