"""NumPy kernels of the nn_activation_extra family: hardtanh/relu6, hardsigmoid, hardswish,
mish, logsigmoid, prelu, glu.

Functions of ndarrays; the entries that use them are in
ops/derivatives/nn_activation_extra.py, the public functions in
nn/functional/activation_extra.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32, number_like


# ====================================================================== hardtanh / relu6
def _hardtanh_kernel(a, min_val, max_val):
    lo, hi = number_like(min_val, a), number_like(max_val, a)
    if a.dtype.kind in "iu":
        lo, hi = int(min_val), int(max_val)
    return np.clip(a, lo, hi).astype(a.dtype, copy=False)


# ====================================================================== hardsigmoid / hardswish
@half_in_float32
def _hardsigmoid_kernel(a):
    return np.clip(a + 3.0, 0.0, 6.0) / 6.0


@half_in_float32
def _hardswish_kernel(a):
    return a * np.clip(a + 3.0, 0.0, 6.0) / 6.0


# ====================================================================== mish / logsigmoid
def _softplus_np(a):
    return np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a)))


@half_in_float32
def _mish_kernel(a):
    return a * np.tanh(_softplus_np(a))


@half_in_float32
def _logsigmoid_kernel(a):
    return -_softplus_np(-a)


# ====================================================================== prelu
@half_in_float32
def _prelu_kernel(a, w):
    return np.where(a > 0, a, a * w)


# ====================================================================== glu
@half_in_float32
def _glu_kernel(a, dim):
    n = a.shape[dim] // 2
    x, g = np.split(a, [n], axis=dim)
    return x / (1 + np.exp(-g))
