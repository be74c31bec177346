"""NumPy kernels of the nn_linear family: linear (addmm, PyTorch's AddmmBackward0).

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_linear.py, the
public functions in nn/functional/linear.py.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import no_bool
from ..._core.opmath import half_in_float32


# ====================================================================== linear
@half_in_float32
def _addmm_kernel(bias, mat1, mat2, beta, alpha):
    no_bool("addmm_impl_cpu_", mat1)
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim}-D and "
                           f"{mat2.ndim}-D")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    out = mat1 @ mat2
    if alpha != 1:
        out *= alpha
    if beta != 0:
        b = bias if beta == 1 else bias * beta
        if np.broadcast_shapes(b.shape, out.shape) != out.shape:
            raise RuntimeError(f"The expanded size of the tensor bias {list(b.shape)} must match "
                               f"the result shape {list(out.shape)}")
        out += b
    return out
