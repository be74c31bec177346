"""embedding (with max_norm renormalisation) and one_hot."""
from __future__ import annotations
from ...ops.interpose import all_values

import numpy as np

from ..._tensor.tensor import Tensor
from ...ops.dispatch import dispatch
from ._utils import _tensor_arg, _type_name
from ...ops.derivatives.nn_embedding import EMBEDDING


def one_hot(tensor, num_classes=-1):
    """``one_hot(tensor, num_classes=-1)``: int64 tensor of shape ``(*, num_classes)``
    (not differentiable)."""
    _tensor_arg("one_hot", tensor, "self")
    d = tensor._data
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.__class__ is not Tensor:
        # a Tensor subclass (vmap's BatchedTensor, whose _data is one example): through the
        # ops (num_classes=-1 needs the values: under vmap that raises, as in PyTorch)
        if num_classes == -1:
            num_classes = int(tensor.max()) + 1
        return (tensor.unsqueeze(-1) == tensor.new_tensor(np.arange(num_classes))).long()
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
    idx = all_values(input._data)  # (under vmap: every example's indices)
    if idx.size and (idx.min() < 0 or idx.max() >= nw):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("embedding(sparse=True) needs sparse gradients, which graphgrad "
                                  "does not have; use sparse=False")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    return dispatch(EMBEDDING, weight, input, int(padding_idx), bool(scale_grad_by_freq), False)
