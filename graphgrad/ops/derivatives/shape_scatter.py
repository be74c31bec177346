"""The table, shape-scatter family: select/slice/diagonal_scatter, narrow_copy, rot90,
take/put, index_copy, index_fill, masked_scatter (PyTorch's dedicated nodes for them).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/shape_scatter.py, public functions in ops/api/shape_scatter.py.  Dims are
negative; ``nd``/``snd`` attributes give flat-index ops their inputs' logical ranks, so the
kernels take leading batch dims (batched tangents, vmap) as they are.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import LINEAR, defop
from .indexing import _sum_dims
from ..kernels.shape_scatter import (
    _diagonal_scatter_kernel, _index_copy_kernel, _index_fill_kernel, _index_fill_tensor_kernel,
    _masked_scatter_backward_kernel, _masked_scatter_kernel, _narrow_copy_kernel, _put_kernel,
    _rot90_kernel, _select_scatter_kernel, _slice_scatter_kernel, _take_backward_kernel,
    _take_kernel, _block_2d, _block_diag_kernel)


def _arr(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _like(x, arr):
    """``arr`` as the same kind (Tensor or ndarray) as ``x``."""
    return Tensor._wrap(arr) if isinstance(x, Tensor) else arr


# ============================================================ select/slice/diagonal_scatter
SELECT_SCATTER = defop(
    "select_scatter(self, src, *, dim, index)", _select_scatter_kernel, "SelectScatterBackward0",
    self=lambda grad, dim, index: F.select_scatter(grad, 0, dim, index),
    src=lambda grad, dim, index: F.select(grad, dim, index),
    jvp=lambda self_t, src_t, dim, index: F.select_scatter(self_t, src_t, dim, index),
    batched_jvp=True)
SLICE_SCATTER = defop(
    "slice_scatter(self, src, *, dim, start, end, step)", _slice_scatter_kernel,
    "SliceScatterBackward0",
    self=lambda grad, dim, start, end, step: F.slice_scatter(grad, 0, dim, start, end, step),
    src=lambda grad, dim, start, end, step: F.slice(grad, dim, start, end, step),
    jvp=lambda self_t, src_t, dim, start, end, step:
        F.slice_scatter(self_t, src_t, dim, start, end, step),
    batched_jvp=True)
DIAGONAL_SCATTER = defop(
    "diagonal_scatter(self, src, *, offset, dim1, dim2)", _diagonal_scatter_kernel,
    "DiagonalScatterBackward0",
    self=lambda grad, offset, dim1, dim2: F.diagonal_scatter(grad, 0, offset, dim1, dim2),
    src=lambda grad, offset, dim1, dim2: F.diagonal(grad, offset, dim1, dim2),
    jvp=lambda self_t, src_t, offset, dim1, dim2:
        F.diagonal_scatter(self_t, src_t, offset, dim1, dim2),
    batched_jvp=True)
NARROW_COPY = defop(
    "narrow_copy(self, *, dim, start, length)", _narrow_copy_kernel, "NarrowCopyBackward0",
    self=lambda grad, self_sym_sizes, dim, start, length:
        F.slice_backward(grad, tuple(self_sym_sizes), dim, start, start + length, 1),
    jvp=LINEAR, batched_jvp=True)


# ============================================================ rot90
ROT90 = defop("rot90(self, *, k, dims)", _rot90_kernel, "Rot90Backward0",
              self=lambda grad, k, dims: F.rot90(grad, -k, dims),
              jvp=LINEAR, batched_jvp=True)


# ============================================================ take / put
TAKE = defop("take(self, index, *, nd)", _take_kernel, "TakeBackward0",
             self=lambda grad, self_sym_sizes, index:
                 F.take_backward(grad, index, tuple(self_sym_sizes)),
             jvp=lambda self_t, index, nd: F.take(self_t, index, nd), batched_jvp=True)
TAKE_BACKWARD = defop("take_backward(grad, index, *, sizes)", _take_backward_kernel,
                      "PutBackward0",
                      grad=lambda grad, index, sizes: F.take(grad, index, len(sizes)),
                      jvp=lambda grad_t, index, sizes: F.take_backward(grad_t, index, sizes),
                      batched_jvp=True)


def _put_source_vjp(grad, index, source_sym_sizes, nd):
    return F.reshape_to(F.take(grad, index, nd), tuple(source_sym_sizes), F.ndim(index))


PUT = defop("put(self, index, source, *, accumulate, nd, snd)", _put_kernel, "PutBackward0",
            self=lambda grad, index, accumulate, nd:
                grad if accumulate else F.put(grad, index, 0, False, nd, 0),
            source=_put_source_vjp,
            jvp=lambda self_t, source_t, index, accumulate, nd, snd:
                F.put(self_t, index, source_t, accumulate, nd, snd),
            batched_jvp=True)


# ============================================================ index_copy / index_fill
INDEX_COPY = defop("index_copy(self, index, source, *, dim)", _index_copy_kernel,
                   "IndexCopyBackward0",
                   self=lambda grad, index, dim: F.index_fill_int_Scalar(grad, index, dim, 0),
                   source=lambda grad, index, dim: F.index_select(grad, index, dim),
                   jvp=lambda self_t, source_t, index, dim:
                       F.index_copy(self_t, index, source_t, dim),
                   batched_jvp=True)
INDEX_FILL = defop("index_fill.int_Scalar(self, index, *, dim, value)", _index_fill_kernel,
                   "IndexFillBackward0",
                   self=lambda grad, index, dim: F.index_fill_int_Scalar(grad, index, dim, 0),
                   jvp=lambda self_t, index, dim: F.index_fill_int_Scalar(self_t, index, dim, 0),
                   batched_jvp=True)


def _index_fill_value_vjp(grad, index, dim, nd):
    """The filled entries' gradients summed (each index counted once, as PyTorch's)."""
    if dim is None:
        return grad
    n = F.shape(grad)[dim]
    u = _like(index, np.unique(_arr(index) % max(n, 1)))   # (-1 and n-1 are one entry)
    return _sum_dims(F.index_select(grad, u, dim), tuple(range(-nd, 0)))


INDEX_FILL_T = defop("index_fill.int_Tensor(self, index, value, *, dim, nd)",
                     _index_fill_tensor_kernel, "IndexFillBackward1",
                     self=lambda grad, index, dim: F.index_fill_int_Scalar(grad, index, dim, 0),
                     value=_index_fill_value_vjp,
                     jvp=lambda self_t, value_t, index, dim, nd:
                         F.index_fill_int_Tensor(self_t, index, value_t, dim, nd),
                     batched_jvp=True)


# ============================================================ masked_scatter
def _masked_scatter_backward_vjp(grad, mask, sizes):
    """The gradient of the source's gradient: its first ``mask.sum()`` entries put back at
    the mask's places."""
    m = _arr(mask).astype(bool, copy=False)
    nd = len(sizes)
    flat = F.reshape(grad, F.batch_shape(grad, nd) + (-1,))
    first = F.slice(flat, -1, 0, int(m.sum()), 1)
    return F.masked_select_backward(first, mask, tuple(m.shape))


MASKED_SCATTER = defop("masked_scatter(self, mask, source, *, nd, snd)", _masked_scatter_kernel,
                       "MaskedScatterBackward0",
                       self=lambda grad, mask, self_sym_sizes: F.sum_to(
                           F.masked_fill_Scalar(grad, mask, 0), tuple(self_sym_sizes),
                           F.ndim(mask)),
                       source=lambda grad, mask, source_sym_sizes:
                           F.masked_scatter_backward(grad, mask, tuple(source_sym_sizes)),
                       jvp=lambda self_t, source_t, mask, nd, snd:
                           F.masked_scatter(self_t, mask, source_t, nd, snd),
                       batched_jvp=True)
MASKED_SCATTER_BACKWARD = defop("masked_scatter_backward(grad, mask, *, sizes)",
                                _masked_scatter_backward_kernel,
                                "MaskedScatterBackwardBackward0",
                                grad=_masked_scatter_backward_vjp,
                                jvp=lambda grad_t, mask, sizes:
                                    F.masked_scatter_backward(grad_t, mask, sizes),
                                batched_jvp=True)


# ============================================================ block_diag (one entry per arity)
_BLOCK_DIAG_OPS = {}


def _block_diag_vjp(k):
    def rule(grad, shapes):
        blocks = [_block_2d(s) for s in shapes]
        r = sum(b[0] for b in blocks[:k])
        c = sum(b[1] for b in blocks[:k])
        h, w = blocks[k]
        g = F.slice(F.slice(grad, -2, r, r + h, 1), -1, c, c + w, 1)
        return F.reshape_to(g, tuple(shapes[k]), 2)
    return rule


def block_diag_op(n):
    """The entry of block_diag over ``n`` tensors (made on first use, as cat's)."""
    op = _BLOCK_DIAG_OPS.get(n)
    if op is None:
        names = [f"tensors{i}" for i in range(n)]
        op = _BLOCK_DIAG_OPS[n] = defop(
            f"block_diag.{n}({', '.join(names)}, *, shapes)", _block_diag_kernel,
            "BlockDiagBackward0", promote=True, jvp=LINEAR, batched_jvp=True,
            **{p: _block_diag_vjp(i) for i, p in enumerate(names)})
    return op
