"""NumPy kernels of the nn_embedding family: embedding (with max_norm renormalisation).

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_embedding.py, the
public functions in nn/functional/embedding.py.
"""
from __future__ import annotations

import numpy as np

from .nn_conv import _prod


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
