"""embedding_bag: sums, means or maxima of bags of embedding rows (PyTorch's
torch.nn.functional.embedding_bag; node EmbeddingBagBackward0)."""
from __future__ import annotations

import warnings

import numpy as np

from ..._core import dtypes as _dtype
from ..._tensor.tensor import Tensor
from ...ops.dispatch import dispatch
from ...ops.interpose import all_values
from ...ops.derivatives.nn_embedding import EMBEDDING_BAG
from ._utils import _tensor_arg, _type_name
from .embedding import _embedding_renorm_

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _check_offsets(offsets, n):
    """PyTorch's offset checks (on every example's offsets under vmap)."""
    off = all_values(offsets._data).astype(np.int64)
    if off.shape[-1] and (off[..., 0] != 0).any():
        first = int(off[..., 0][off[..., 0] != 0].flat[0])
        raise RuntimeError("embedding_bag: offsets[0] has to be 0, i.e., the first sequence in "
                           "the mini-batch has to start from position 0. However, got "
                           f"{first}")
    if off.shape[-1] and (off[..., -1] > n).any():
        raise RuntimeError(f"embedding_bag: offsets[-1] can not be greater than input's length "
                           f"{n} but got offsets[-1] of {int(off[..., -1].max())}")
    if off.shape[-1] > 1 and (np.diff(off, axis=-1) < 0).any():
        raise RuntimeError("embedding_bag: offsets must be non-decreasing (offsets[i] is where "
                           "bag i starts in the input)")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """``embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
    scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
    include_last_offset=False, padding_idx=None)``: for each bag of indices (the rows of a
    2-D ``input``, or the 1-D ``input`` cut at ``offsets``) the sum, mean or max of those
    rows of ``weight``; ``padding_idx`` rows are left out of the bag (and of its size);
    ``per_sample_weights`` (mode "sum") scale each row; an empty bag gives zeros."""
    _tensor_arg("embedding_bag", input)
    _tensor_arg("embedding_bag", weight, "weight", 2)
    if weight.dtype == _dtype.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = Tensor._wrap(np.arange(0, input.numel(), max(input.shape[1], 1))
                               if input.shape[1] else np.zeros(input.shape[0], np.int64))
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    for t, arg in ((input, "indices"), (offsets, "offsets")):
        if t._data.dtype not in (np.int64, np.int32):
            raise RuntimeError(f"Expected tensor for argument #1 '{arg}' to have one of the "
                               f"following scalar types: Long, Int; but got {_type_name(t)} "
                               "instead (while checking arguments for embedding_bag)")
    if not weight.is_floating_point():
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the following "
                           f"scalar types: Half, BFloat16, Float, Double; but got "
                           f"{_type_name(weight)} instead (while checking arguments for "
                           "embedding_bag)")
    if max_norm is not None:
        _embedding_renorm_(weight, all_values(input._data).reshape(-1), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag: per_sample_weights ({per_sample_weights.dtype}) must "
                           f"have the dtype of weight ({weight.dtype}); convert one of them")
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True) needs sparse gradients, which "
                                  "graphgrad does not have; use sparse=False")
    nw = weight.shape[0]
    if padding_idx is not None:
        if not -nw <= padding_idx < nw:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-nw} "
                               f"through {nw - 1}, but got {padding_idx}")
        padding_idx %= nw
    idx = all_values(input._data)
    if idx.size and (idx.min() < 0 or idx.max() >= nw):
        bad = int(idx[(idx < 0) | (idx >= nw)].flat[0])
        raise RuntimeError(f"embedding_bag: index {bad} is out of range for a weight of "
                           f"{nw} rows (indices must be in [0, {nw - 1}])")
    _check_offsets(offsets, input.shape[0])
    if per_sample_weights is None:
        per_sample_weights = Tensor._wrap(np.ones(tuple(input.shape), weight._data.dtype))
    out, _ = dispatch(EMBEDDING_BAG, weight, per_sample_weights, input, offsets, _MODES[mode],
                      bool(scale_grad_by_freq), bool(include_last_offset),
                      -1 if padding_idx is None else int(padding_idx))
    return out
