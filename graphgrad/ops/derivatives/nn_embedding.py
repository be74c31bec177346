"""The table, nn_embedding family: embedding (with max_norm renormalisation).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_embedding.py, public functions in nn/functional/embedding.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..registry import defop
from ..kernels.nn_embedding import _embedding_backward_kernel, _embedding_gather_kernel


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
