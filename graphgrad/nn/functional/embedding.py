"""embedding (with max_norm renormalisation) and one_hot."""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ...ops import formulas as F
from ...ops.dispatch import dispatch
from ...ops.registry import defop
from ._utils import _tensor_arg, _type_name
from .conv import _prod

def one_hot(tensor, num_classes=-1):
    """``one_hot(tensor, num_classes=-1)``: int64 tensor of shape ``(*, num_classes)``
    (not differentiable)."""
    _tensor_arg("one_hot", tensor, "self")
    d = tensor._data
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if d.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(d.max()) + 1
    if d.size:
        if d.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if d.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = (d[..., None] == np.arange(num_classes, dtype=np.int64)).astype(np.int64)
    return Tensor._wrap(out)


# ====================================================================== embedding
def _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """Per-lookup gradient factor: 1/count with scale_grad_by_freq, 0 at padding_idx."""
    f = None
    if scale_grad_by_freq:
        counts = np.bincount(indices.ravel(), minlength=num_weights)
        f = (1.0 / counts[indices]).astype(dtype)
    if padding_idx >= 0:
        m = indices != padding_idx
        f = m.astype(dtype) if f is None else f * m
    return f


def _embedding_backward_kernel(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    d = grad.shape[-1]
    lead = grad.shape[:grad.ndim - indices.ndim - 1]
    f = _embedding_factor(indices, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
    g = grad if f is None else grad * f[..., None]
    idx = indices.ravel()
    nb = _prod(lead)
    out = np.zeros((nb * num_weights, d), grad.dtype)
    flat = idx if nb == 1 else \
        (np.arange(nb, dtype=np.int64)[:, None] * num_weights + idx[None, :]).ravel()
    if flat.size:
        # rows sorted by index (stable: each row's lookups keep their order), then one
        # sum per run of equal indices: the same sums in the same order as
        # np.add.at(out, flat, rows), without add.at's per-element cost
        order = np.argsort(flat, kind="stable")
        sf = flat[order]
        starts = np.flatnonzero(np.concatenate(([True], sf[1:] != sf[:-1])))
        out[sf[starts]] = np.add.reduceat(g.reshape(nb * idx.size, d)[order], starts, axis=0)
    return out.reshape(lead + (num_weights, d))


def _embedding_gather_kernel(x, indices, padding_idx, scale_grad_by_freq):
    r = np.take(x, indices, axis=x.ndim - 2)
    f = _embedding_factor(indices, x.shape[-2], padding_idx, scale_grad_by_freq, x.dtype)
    return r if f is None else r * f[..., None]


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


def _embedding_renorm_(weight, idx, max_norm, norm_type):
    """Rescale (in place, without recording) the looked-up rows whose norm exceeds max_norm."""
    w = weight._data
    rows = np.unique(idx)
    if rows.size == 0:
        return
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    sel = norms > max_norm
    if sel.any():
        scale = (max_norm / (norms[sel] + 1e-7)).astype(w.dtype)
        w[rows[sel]] *= scale[:, None]
        weight._bump_version()


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """``embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False)``: rows of ``weight`` (num_embeddings, dim)
    looked up by ``input``; the ``padding_idx`` row gets no gradient; ``max_norm`` renormalises
    the looked-up rows of ``weight`` in place, as PyTorch does (EmbeddingBackward0)."""
    _tensor_arg("embedding", input)
    _tensor_arg("embedding", weight, "weight", 2)
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {_type_name(input)} "
                           "instead (while checking arguments for embedding)")
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    nw = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= nw:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -nw:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += nw
    else:
        padding_idx = -1
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= nw):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("embedding(sparse=True) needs sparse gradients, which graphgrad "
                                  "does not have; use sparse=False")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    return dispatch(EMBEDDING, weight, input, int(padding_idx), bool(scale_grad_by_freq), False)
