"""NumPy kernels of the nn_loss_extra family: huber_loss and the distances' helpers.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_loss_extra.py,
the public functions in nn/functional/loss_extra.py.
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import BFLOAT16, half_in_float32
from .nn_loss_bce import _half_steps
from .nn_utils import _reduce


# ====================================================================== huber
def _huber_kernel(a, b, reduction, delta):
    if a.dtype is BFLOAT16:
        # PyTorch's bfloat16 kernel rounds every step to bfloat16 (measured bit for bit)
        f = np.float32
        r = _half_steps(BFLOAT16)
        d = r(np.abs(a.astype(f) - b.astype(f)))
        loss = np.where(d < delta, r(r(0.5 * d) * d), r(f(delta) * r(d - r(f(0.5 * delta)))))
        return _reduce_half(loss.astype(BFLOAT16), reduction)
    return _huber_kernel_f(a, b, reduction, delta)


@half_in_float32
def _huber_kernel_f(a, b, reduction, delta):
    d = np.abs(np.subtract(a, b))
    return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


_reduce_half = half_in_float32(_reduce)
