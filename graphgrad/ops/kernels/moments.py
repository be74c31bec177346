"""NumPy kernels of the moments family: var_mean / std_mean: one op with two outputs.

Functions of ndarrays; the entries that use them are in ops/derivatives/moments.py, the
public functions in ops/api/moments.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32
from .reductions import _mean, _var_std_kernel


def _kernel(sqrt):
    @half_in_float32
    def moments(a, dim, correction, keepdim):
        return _var_std_kernel(a, dim, correction, keepdim, sqrt), _mean(a, dim, keepdim)
    return moments
