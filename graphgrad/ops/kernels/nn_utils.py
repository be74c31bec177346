"""NumPy kernels of the nn_utils family: reduction helpers shared by the losses.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_utils.py, the
public functions in nn/functional/_utils.py.
"""
from __future__ import annotations

from ..._core.opmath import half_in_float32
from ..._tensor.tensor import Tensor
from .. import formulas as F


# ====================================================================== helpers
def _reduce(x, reduction):
    """Apply a loss reduction ('none' | 'mean' | 'sum'); ndarray or Tensor."""
    if reduction == "none":
        return x
    if isinstance(x, Tensor):
        return F.sum(x) if reduction == "sum" else F.mean(x)
    return x.sum() if reduction == "sum" else x.mean()


_reduce_in_opmath = half_in_float32(_reduce)   # float16/bfloat16 losses reduce in float32
