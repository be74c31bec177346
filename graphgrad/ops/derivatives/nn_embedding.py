"""The table, nn_embedding family: embedding (with max_norm renormalisation).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_embedding.py, public functions in nn/functional/embedding.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..registry import defop
from ..._tensor.tensor import Tensor
from ..kernels.nn_embedding import (_bag_counts, _embedding_backward_kernel,
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


def _bag_row_factor(keep, bag, num_bags, mode, like):
    """Each looked-up row's constant factor: keep (0 at padding_idx), over the bag's size
    in mean mode; an array of ``like``'s dtype."""
    keep, bag = _raw(keep), _raw(bag)
    f = keep.astype(np.float64)
    if mode == 1:
        f = f / np.maximum(_bag_counts(bag, keep, num_bags), 1)[bag]
    return f.astype(_raw(like).dtype)


def _bag_weight_vjp(grad, per_sample_weights, indices, bag, keep, weight_sym_sizes, result1,
                    num_bags, mode, scale_grad_by_freq):
    if mode == 2:  # each output entry is one weight entry (none for an empty bag)
        found = result1 >= 0
        return F.gather_backward(grad * found, result1 * found, tuple(weight_sym_sizes), -2)
    f = _bag_row_factor(keep, bag, num_bags, mode, grad)
    rows = F.embedding_dense_gather(grad, bag, -1, False) * (per_sample_weights * f)[:, None]
    return F.embedding_dense_backward(rows, indices, weight_sym_sizes[-2], -1,
                                      scale_grad_by_freq)


def _bag_psw_vjp(grad, weight, indices, bag, keep):
    # (mode "sum" only: the public function refuses per_sample_weights otherwise)
    picked = F.embedding_dense_gather(weight, indices, -1, False)
    return (F.embedding_dense_gather(grad, bag, -1, False) * picked).sum(-1) * \
        _raw(keep).astype(_raw(grad).dtype)


EMBEDDING_BAG = defop(
    "embedding_bag(weight, per_sample_weights, indices, bag, keep, *, num_bags, mode, "
    "scale_grad_by_freq)",
    lambda weight, psw, indices, bag, keep, num_bags, mode, scale_grad_by_freq:
        _embedding_bag_kernel(weight, psw, indices, bag, keep, num_bags, mode),
    "EmbeddingBagBackward0", n_outputs=2, nondiff_outputs=(1,),
    weight=_bag_weight_vjp, per_sample_weights=_bag_psw_vjp)
