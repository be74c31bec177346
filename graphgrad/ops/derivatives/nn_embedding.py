"""The table, nn_embedding family: embedding (with max_norm renormalisation).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_embedding.py, public functions in nn/functional/embedding.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..registry import defop
from ..._tensor.tensor import Tensor
from ..kernels.nn_embedding import (_bag_layout, _embedding_backward_kernel,
                                    _embedding_bag_kernel, _embedding_gather_kernel)


# ====================================================================== embedding
EMBEDDING = defop(
    "embedding(weight, indices, *, padding_idx, scale_grad_by_freq, sparse)",
    lambda w, indices, padding_idx, scale_grad_by_freq, sparse: np.take(w, indices,
                                                                        axis=w.ndim - 2),
    "EmbeddingBackward0",
    weight=lambda grad, indices, weight_sym_sizes, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad, indices, weight_sym_sizes[-2], padding_idx,
                                   scale_grad_by_freq),
    jvp=lambda weight_t, indices, padding_idx, scale_grad_by_freq, sparse:
        F.embedding(weight_t, indices, padding_idx, scale_grad_by_freq, sparse), batched_jvp=True)
EMBEDDING_DENSE_BACKWARD = defop(
    "embedding_dense_backward(grad_output, indices, *, num_weights, padding_idx, "
    "scale_grad_by_freq)", _embedding_backward_kernel, "EmbeddingDenseBackwardBackward0",
    grad_output=lambda grad, indices, padding_idx, scale_grad_by_freq:
        F.embedding_dense_gather(grad, indices, padding_idx, scale_grad_by_freq),
    jvp=lambda grad_output_t, indices, num_weights, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad_output_t, indices, num_weights, padding_idx,
                                   scale_grad_by_freq), batched_jvp=True)
EMBEDDING_DENSE_GATHER = defop(
    "embedding_dense_gather(self, indices, *, padding_idx, scale_grad_by_freq)",
    _embedding_gather_kernel, "EmbeddingBackward0",
    self=lambda grad, indices, self_sym_sizes, padding_idx, scale_grad_by_freq:
        F.embedding_dense_backward(grad, indices, self_sym_sizes[-2], padding_idx,
                                   scale_grad_by_freq),
    jvp=lambda self_t, indices, padding_idx, scale_grad_by_freq:
        F.embedding_dense_gather(self_t, indices, padding_idx, scale_grad_by_freq),
    batched_jvp=True)


# ====================================================================== embedding_bag
def _raw(x):
    return x._data if isinstance(x, Tensor) else x


def _bag_rows(indices, offsets, include_last_offset, padding_idx, mode, like):
    """The looked-up rows, the bag of each and its constant factor (0 at padding_idx or
    outside every bag; over the bag's size in mean mode) of ``like``'s dtype: Tensors when
    ``like`` is one (a create_graph backward), else arrays."""
    idx = _raw(indices).astype(np.int64, copy=False)
    bag, num_bags, keep = _bag_layout(idx, _raw(offsets), include_last_offset, padding_idx)
    f = keep.astype(np.float64)
    if mode == 1:
        f = f / np.maximum(np.bincount(bag[keep], minlength=num_bags), 1)[bag]
    out = (idx, bag, f.astype(_raw(like).dtype))
    return tuple(Tensor._wrap(a) for a in out) if isinstance(like, Tensor) else out


def _bag_weight_vjp(grad, per_sample_weights, indices, offsets, weight_sym_sizes, result1,
                    mode, scale_grad_by_freq, include_last_offset, padding_idx):
    if mode == 2:  # each output entry is one weight entry (none for an empty bag)
        found = result1 >= 0
        return F.gather_backward(grad * found, result1 * found, tuple(weight_sym_sizes), -2)
    idx, bag, f = _bag_rows(indices, offsets, include_last_offset, padding_idx, mode, grad)
    rows = F.embedding_dense_gather(grad, bag, -1, False) * (per_sample_weights * f)[:, None]
    return F.embedding_dense_backward(rows, idx, weight_sym_sizes[-2], -1, scale_grad_by_freq)


def _bag_psw_vjp(grad, weight, indices, offsets, include_last_offset, padding_idx):
    # (mode "sum" only: the public function refuses per_sample_weights otherwise)
    idx, bag, f = _bag_rows(indices, offsets, include_last_offset, padding_idx, 0, grad)
    picked = F.embedding_dense_gather(weight, idx, -1, False)
    return (F.embedding_dense_gather(grad, bag, -1, False) * picked).sum(-1) * f


EMBEDDING_BAG = defop(
    "embedding_bag(weight, per_sample_weights, indices, offsets, *, mode, scale_grad_by_freq, "
    "include_last_offset, padding_idx)",
    lambda weight, psw, indices, offsets, mode, scale_grad_by_freq, include_last_offset,
    padding_idx: _embedding_bag_kernel(weight, psw, indices, offsets, mode,
                                       include_last_offset, padding_idx),
    "EmbeddingBagBackward0", n_outputs=2, nondiff_outputs=(1,),
    weight=_bag_weight_vjp, per_sample_weights=_bag_psw_vjp)
