"""The table, indexing family: advanced indexing, index_put_, index_select/index_add, masked
ops, nonzero.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/indexing.py, public functions in ops/api/indexing.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..._core.opmath import half_in_float32
from ..registry import LINEAR, POINTWISE, defop
from ..kernels.indexing import (
    _index_add_kernel, _index_backward_kernel, _index_kernel, _index_put_kernel,
    _index_result_shape, _index_select_backward_kernel, _index_select_kernel,
    _masked_fill_kernel, _masked_select_backward_kernel, _masked_select_kernel)


def _is_t(x):
    return isinstance(x, Tensor)


@half_in_float32  # (half-precision sums accumulate in float32, as PyTorch's do)
def _sum_dims(x, dims):
    """Sum over ``dims`` (negative), dropping them; ndarray or Tensor."""
    if not dims:
        return x
    if _is_t(x):
        from ..api.reductions import sum as _sum
        return _sum(x, tuple(dims))
    return x.sum(axis=tuple(dims))


# ============================================================ advanced indexing
def _index_put_batched(self_t, values_t, self, values, indices, accumulate):
    """index_put with batched tangents: the values' tangent is padded to the indexed
    region's rank and self's tangent gets the batch dims when only the values have them."""
    nd = F.ndim(self)
    if isinstance(values, Tensor):
        nv = F.ndim(values)
        batch = F.batch_shape(values_t, nv)
        if batch:
            region = _index_result_shape(F.shape(self), indices)
            values_t = F.pad_batched(values_t, nv, len(region))
            if F.ndim(self_t) == nd:
                self_t = F.expand(self_t, batch + F.shape(self))
    return F.index_put(self_t, values_t, indices, accumulate)


INDEX = defop("index(self, *, indices)", _index_kernel, "IndexBackward0",
              self=lambda grad, self_sym_sizes, indices:
                  F.index_backward(grad, tuple(self_sym_sizes), indices),
              jvp=LINEAR, batched_jvp=True)
INDEX_BACKWARD = defop("index_backward(grad, *, sizes, indices)", _index_backward_kernel,
                       "IndexPutBackward0",
                       grad=lambda grad, indices: F.index(grad, indices), jvp=LINEAR,
                       batched_jvp=True)
INDEX_PUT = defop("index_put(self, values, *, indices, accumulate)", _index_put_kernel,
                  "IndexPutBackward0",
                  self=lambda grad, indices, accumulate:
                      grad if accumulate else F.index_put(grad, 0, indices, False),
                  values=lambda grad, indices: F.index(grad, indices),
                  jvp=LINEAR, batched_jvp=_index_put_batched)


# ============================================================ index_select / index_add
def _times(x, alpha):
    return x if alpha == 1 else x * F.conj(alpha)


INDEX_SELECT = defop("index_select(self, index, *, dim)", _index_select_kernel,
                     "IndexSelectBackward0",
                     self=lambda grad, self_sym_sizes, index, dim:
                         F.index_select_backward(grad, index, tuple(self_sym_sizes), dim),
                     jvp=lambda self_t, index, dim: F.index_select(self_t, index, dim),
                     batched_jvp=True)
INDEX_SELECT_BACKWARD = defop("index_select_backward(grad, index, *, sizes, dim)",
                              _index_select_backward_kernel, "IndexAddBackward0",
                              grad=lambda grad, index, dim: F.index_select(grad, index, dim),
                              jvp=lambda grad_t, index, sizes, dim:
                                  F.index_select_backward(grad_t, index, sizes, dim),
                              batched_jvp=True)
INDEX_ADD = defop("index_add(self, index, source, *, dim, alpha)", _index_add_kernel,
                  "IndexAddBackward0",
                  self=lambda grad: grad,
                  source=lambda grad, index, dim, alpha:
                      _times(F.index_select(grad, index, dim), alpha),
                  jvp=lambda self_t, source_t, index, dim, alpha:
                      F.index_add(self_t, index, source_t, dim, alpha),
                  batched_jvp=lambda self_t, source_t, self_sym_sizes, source_sym_sizes, index,
                                     dim, alpha:
                      F.index_add(F.match_batch(self_t, len(self_sym_sizes), source_t,
                                                len(source_sym_sizes)),
                                  index, source_t, dim, alpha))


# ============================================================ masked ops
MASKED_FILL = defop("masked_fill.Scalar(self, mask, *, value)", _masked_fill_kernel,
                    "MaskedFillBackward0",
                    self=lambda grad, mask: F.masked_fill_Scalar(grad, mask, 0),
                    jvp=lambda self_t, mask: F.masked_fill_Scalar(self_t, mask, 0),
                    batched_jvp=POINTWISE)
MASKED_FILL_T = defop("masked_fill.Tensor(self, mask, value)",
                      lambda a, mask, value: _masked_fill_kernel(a, mask, value),
                      "MaskedFillBackward1",
                      self=lambda grad, mask: F.masked_fill_Scalar(grad, mask, 0),
                      value=lambda grad, mask: F.where(mask, grad, 0),  # the engine sums to ()
                      jvp=lambda self_t, value_t, mask: F.masked_fill_Tensor(self_t, mask,
                                                                              value_t),
                      batched_jvp=POINTWISE)


def _masked_select_batched(self_t, self_sym_sizes, mask):
    """masked_select of a batched tangent: an index with the (broadcast) mask after the
    batch dims, so each batch entry keeps its own selected elements."""
    nd = len(self_sym_sizes)
    m = mask._data.astype(np.bool_, copy=False)
    shape = np.broadcast_shapes(tuple(self_sym_sizes), m.shape)
    t = F.expand(F.pad_batched(self_t, nd, len(shape)), F.batch_shape(self_t, nd) + shape)
    return F.index(t, (np.broadcast_to(m, shape),))


MASKED_SELECT = defop("masked_select(self, mask)", _masked_select_kernel,
                      "MaskedSelectBackward0",
                      self=lambda grad, self_sym_sizes, mask:
                          F.masked_select_backward(grad, mask, tuple(self_sym_sizes)),
                      jvp=lambda self_t, mask: F.masked_select(self_t, mask),
                      batched_jvp=lambda self_t, self_sym_sizes, mask:
                          _masked_select_batched(self_t, self_sym_sizes, mask))
MASKED_SELECT_BACKWARD = defop("masked_select_backward(grad, mask, *, sizes)",
                               _masked_select_backward_kernel, "MaskedScatterBackward0",
                               grad=lambda grad, mask: F.masked_select(grad, mask),
                               jvp=lambda grad_t, mask, sizes:
                                   F.masked_select_backward(grad_t, mask, sizes), batched_jvp=True)
