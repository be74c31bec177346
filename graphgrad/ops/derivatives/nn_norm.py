"""The table, nn_norm family: layer_norm.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_norm.py, public functions in nn/functional/norm.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import defop
from ..._core.opmath import half_in_float32
from .nn_utils import _sumk, _bpad
from ..kernels.nn_norm import (_layer_norm_kernel, _ln_axes, _ln_input_grad_rows, _ln_rows,
                               _ln_weight_grad_rows)


# ====================================================================== layer norm
def _in_param_dtype(g, p):
    """A half-precision gradient of a float32 parameter (mixed type) in float32 before it is
    multiplied and summed, as PyTorch accumulates it."""
    if g.__class__ is np.ndarray and g.dtype != p.dtype and g.dtype.itemsize == 2:
        return g.astype(p.dtype)
    return g


def _ln_stats(input, result1, result2, normalized_shape, eps):
    """(xhat, rstd): from the saved mean/rstd, or recomputed with graphgrad ops when the rule
    runs on Tensors (create_graph / forward AD), so they are differentiated too."""
    if isinstance(input, Tensor):
        axes = _ln_axes(normalized_shape)
        n = F.numel(normalized_shape)
        xc = input - _sumk(input, axes) / n
        rstd = (_sumk(xc * xc, axes) / n + eps) ** -0.5
        return xc * rstd, rstd
    xhat = np.subtract(input, result1)
    xhat *= result2
    return xhat, result2


def _ln_rows_grad(grad, input, weight, normalized_shape):
    """(grad, input as (rows, n), n) when NOTE [layer_norm by rows] applies to the backward
    (a plain backward: ndarrays of one shape and dtype, both C-contiguous), else None."""
    if grad.__class__ is not np.ndarray or input.__class__ is not np.ndarray or \
            grad.dtype != input.dtype or grad.shape != input.shape or \
            not grad.flags.c_contiguous:
        return None
    rows = _ln_rows(input, weight, None, normalized_shape)
    return None if rows is None else (grad.reshape(rows[0].shape), rows[0], rows[1])


def _ln_weight_vjp(grad, input, weight, result1, result2, normalized_shape, eps):
    rows = _ln_rows_grad(grad, input, weight, normalized_shape)
    if rows is not None:  # NOTE [layer_norm by rows]
        return _ln_weight_grad_rows(rows[0], rows[1], result1, result2).reshape(weight.shape)
    return _in_param_dtype(grad, weight) * _in_param_dtype(
        _ln_stats(input, result1, result2, normalized_shape, eps)[0], weight)


@half_in_float32   # (sums of half-precision gradients in float32)
def _ln_input_vjp(grad, input, weight, result1, result2, normalized_shape, eps):
    rows = _ln_rows_grad(grad, input, weight, normalized_shape)
    if rows is not None:  # NOTE [layer_norm by rows]
        return _ln_input_grad_rows(rows[0], rows[1], rows[2], weight, result1,
                                   result2).reshape(input.shape)
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    g = grad if weight is None else grad * weight
    if isinstance(g, Tensor):
        return rstd * (g - _sumk(g, axes) / n - xhat * (_sumk(g * xhat, axes) / n))
    out = g - g.mean(axis=axes, keepdims=True)
    out -= xhat * (g * xhat).mean(axis=axes, keepdims=True)
    out *= rstd
    return out


def _ln_jvp(input_t, weight_t, bias_t, input, weight, bias, result1, result2, normalized_shape,
            eps):
    axes = _ln_axes(normalized_shape)
    n = F.numel(normalized_shape)
    xhat, rstd = _ln_stats(input, result1, result2, normalized_shape, eps)
    xt = input_t - _sumk(input_t, axes) / n
    out_t = rstd * (xt - xhat * (_sumk(xhat * xt, axes) / n))
    if weight is not None:
        out_t = out_t * weight + xhat * weight_t
    if bias is not None:
        out_t = out_t + bias_t
    return out_t


LAYER_NORM = defop(
    "native_layer_norm(input, weight, bias, *, normalized_shape, eps)", _layer_norm_kernel,
    "NativeLayerNormBackward0", n_outputs=3, nondiff_outputs=(1, 2),
    vjp_order=("input", "weight", "bias"),   # (PyTorch: one formula for the three)
    input=_ln_input_vjp,
    weight=_ln_weight_vjp,
    bias=lambda grad, bias: _in_param_dtype(grad, bias),
    jvp=_ln_jvp,
    # weight and bias have the trailing (normalized) shape: their batched tangents are padded
    # to the input's rank
    batched_jvp=lambda input_t, weight_t, bias_t, input, weight, bias, result1, result2,
    normalized_shape, eps: _ln_jvp(
        input_t, None if weight is None else _bpad(weight_t, weight, F.ndim(input)),
        None if bias is None else _bpad(bias_t, bias, F.ndim(input)), input, weight, bias,
        result1, result2, normalized_shape, eps))
