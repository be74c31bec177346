"""The table, nn_softmax family: softmax and log_softmax.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_softmax.py, public functions in nn/functional/softmax.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import defop
from ..._core.opmath import half_in_float32
from .nn_utils import _sumk
from ..kernels.nn_softmax import (_log_softmax_kernel, _row_blocks, _softmax_backward_rows,
                                  _softmax_kernel)


# ====================================================================== softmax family
def _same_rows(grad, y, dim):
    return _row_blocks(y, dim) and grad.__class__ is np.ndarray and grad.dtype == y.dtype \
        and grad.shape == y.shape and grad.flags.c_contiguous


@half_in_float32   # (sums of half-precision gradients in float32)
def _softmax_vjp(grad, y, dim):
    """y * (grad - sum(grad * y)): the softmax Jacobian is symmetric (also the JVP)."""
    if _same_rows(grad, y, dim):  # NOTE [softmax by row blocks]
        return _softmax_backward_rows(grad, y, False)
    gy = grad * y
    if dim is None:
        return gy - y * gy
    if isinstance(gy, Tensor):
        return gy - y * _sumk(gy, (dim,))
    gy -= y * gy.sum(axis=dim, keepdims=True)
    return gy


@half_in_float32   # (sums of half-precision gradients in float32)
def _log_softmax_vjp(grad, result, dim):
    if dim is None:
        return grad - F.exp(result) * grad
    if isinstance(grad, Tensor) or isinstance(result, Tensor):
        return grad - F.exp(result) * _sumk(grad, (dim,))
    if _same_rows(grad, result, dim):  # NOTE [softmax by row blocks]
        return _softmax_backward_rows(grad, result, True)
    p = np.exp(result)
    s = grad.sum(axis=dim, keepdims=True)
    if grad.shape == p.shape:
        p *= s
        return np.subtract(grad, p, out=p)
    p = p * s  # batched gradient
    return grad - p


SOFTMAX = defop("_softmax(self, *, dim)", _softmax_kernel, "SoftmaxBackward0",
                self=lambda grad, result, dim: _softmax_vjp(grad, result, dim),
                jvp=lambda self_t, result, dim: _softmax_vjp(self_t, result, dim), batched_jvp=True)
LOG_SOFTMAX = defop("_log_softmax(self, *, dim)", _log_softmax_kernel, "LogSoftmaxBackward0",
                    self=lambda grad, result, dim: _log_softmax_vjp(grad, result, dim),
                    jvp=lambda self_t, result, dim:
                        self_t - (_sumk(F.exp(result) * self_t, (dim,)) if dim is not None
                                  else F.exp(result) * self_t), batched_jvp=True)
