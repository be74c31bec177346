"""NumPy kernels of the nn_norm family: layer_norm.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_norm.py, the
public functions in nn/functional/norm.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32


# ====================================================================== layer norm
def _ln_axes(normalized_shape):
    return tuple(range(-len(normalized_shape), 0))


@half_in_float32
def _layer_norm_kernel(x, weight, bias, normalized_shape, eps):
    axes = _ln_axes(normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    out = np.subtract(x, mean)
    var = np.mean(out * out, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return out, mean, rstd
