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


# NOTE [softmax backward ops]
# Under create_graph the gradients of softmax and log_softmax are the ops PyTorch records
# there, _softmax_backward_data / _log_softmax_backward_data (nodes
# SoftmaxBackwardDataBackward0 / LogSoftmaxBackwardDataBackward0, with PyTorch's
# derivatives by the incoming gradient and by the saved result), not a chain of products
# and sums; in a plain backward the same kernels run on the arrays, no op recorded.
def _sum_dim(x, dim):
    return x if dim is None else _sumk(x, (dim,))


def _softmax_grad(grad, result, dim):
    if isinstance(grad, Tensor) or isinstance(result, Tensor):
        return F._softmax_backward_data(grad, result, dim)
    return _softmax_vjp(grad, result, dim)


def _log_softmax_grad(grad, result, dim):
    if isinstance(grad, Tensor) or isinstance(result, Tensor):
        return F._log_softmax_backward_data(grad, result, dim)
    return _log_softmax_vjp(grad, result, dim)


def _softmax_double_backward(grad, grad_output, output, dim):
    """The derivative of y (g - sum(g y)) by y, applied to ``grad`` (PyTorch's
    softmax_double_backward): g grad - sum(y g) grad - g sum(y grad)."""
    return grad_output * grad - _sum_dim(output * grad_output, dim) * grad \
        - grad_output * _sum_dim(output * grad, dim)


def _softmax_backward_jvp(grad_output_t, output_t, grad_output, output, dim):
    """d[y (g - sum(g y))] = y (dg - sum(dg y)) + dy (g - sum(g y)) - y sum(g dy)."""
    terms = []
    if not F.absent(grad_output_t):
        terms.append(_softmax_grad(grad_output_t, output, dim))
    if not F.absent(output_t):
        terms.append(output_t * (grad_output - _sum_dim(grad_output * output, dim))
                     - output * _sum_dim(grad_output * output_t, dim))
    return _add_terms(terms, output)


def _log_softmax_backward_jvp(grad_output_t, output_t, grad_output, output, dim):
    """d[g - exp(y) sum(g)] = dg - exp(y) sum(dg) - dy exp(y) sum(g)."""
    terms = []
    if not F.absent(grad_output_t):
        terms.append(_log_softmax_grad(grad_output_t, output, dim))
    if not F.absent(output_t):
        terms.append(-(output_t * F.exp(output) * _sum_dim(grad_output, dim)))
    return _add_terms(terms, output)


def _add_terms(terms, like):
    """The sum of a JVP's terms (an input without a tangent adds none)."""
    if not terms:
        return F.zeros_like(like)
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


SOFTMAX_BACKWARD = defop(
    "_softmax_backward_data(grad_output, output, *, dim)", _softmax_vjp,
    "SoftmaxBackwardDataBackward0",
    grad_output=lambda grad, output, dim: _softmax_grad(grad, output, dim),
    output=lambda grad, grad_output, output, dim:
        _softmax_double_backward(grad, grad_output, output, dim),
    jvp=_softmax_backward_jvp, batched_jvp=True)
LOG_SOFTMAX_BACKWARD = defop(
    "_log_softmax_backward_data(grad_output, output, *, dim)", _log_softmax_vjp,
    "LogSoftmaxBackwardDataBackward0",
    grad_output=lambda grad, output, dim: grad - _sum_dim(grad * F.exp(output), dim),
    output=lambda grad, grad_output, output, dim:
        -_sum_dim(grad_output, dim) * F.exp(output) * grad,
    jvp=_log_softmax_backward_jvp, batched_jvp=True)

SOFTMAX = defop("_softmax(self, *, dim)", _softmax_kernel, "SoftmaxBackward0",
                self=lambda grad, result, dim: _softmax_grad(grad, result, dim),
                jvp=lambda self_t, result, dim: _softmax_vjp(self_t, result, dim), batched_jvp=True)
LOG_SOFTMAX = defop("_log_softmax(self, *, dim)", _log_softmax_kernel, "LogSoftmaxBackward0",
                    self=lambda grad, result, dim: _log_softmax_grad(grad, result, dim),
                    jvp=lambda self_t, result, dim:
                        self_t - (_sumk(F.exp(result) * self_t, (dim,)) if dim is not None
                                  else F.exp(result) * self_t), batched_jvp=True)
