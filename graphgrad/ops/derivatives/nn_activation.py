"""The table, nn_activation family: relu, leaky_relu, elu, gelu, silu, softplus.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_activation.py, public functions in nn/functional/activation.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from . import ZERO
from ..registry import ELEMENTWISE, POINTWISE, defop
from ..._core.opmath import half_in_float32
from ..kernels.nn_activation import (
    _GELU_C, _INV_SQRT_2PI, _SQRT_2_PI, _elu_backward_kernel, _elu_kernel, _gelu_backward_kernel,
    _gelu_kernel, _leaky_relu_backward_kernel, _leaky_relu_kernel, _silu_kernel,
    _softplus_kernel, _threshold_kernel)


# ====================================================================== activations
LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward(grad_output, self, *, negative_slope)", _leaky_relu_backward_kernel,
    "LeakyReluBackwardBackward0",
    grad_output=lambda grad, self, negative_slope:
        F.leaky_relu_backward(grad, self, negative_slope),
    self=ZERO,
    jvp=lambda grad_output_t, self, negative_slope:
        F.leaky_relu_backward(grad_output_t, self, negative_slope), batched_jvp=POINTWISE)
# threshold: the gradient passes where self > threshold (PyTorch's threshold_backward)
THRESHOLD = defop("threshold(self, *, threshold, value)", _threshold_kernel, "ThresholdBackward0",
                  self=lambda grad, self, threshold: F.threshold_backward(grad, self, threshold),
                  jvp=ELEMENTWISE)
# threshold_ saves the input from before the update, under its own node name
THRESHOLD_INPLACE = defop("threshold.inplace(self, *, threshold, value)", _threshold_kernel,
                          "ThresholdBackward1",
                          self=lambda grad, self, threshold:
                              F.threshold_backward(grad, self, threshold),
                          jvp=ELEMENTWISE)
LEAKY_RELU = defop("leaky_relu(self, *, negative_slope)", _leaky_relu_kernel,
                   "LeakyReluBackward0",
                   self=lambda grad, self, negative_slope:
                       F.leaky_relu_backward(grad, self, negative_slope),
                   jvp=ELEMENTWISE)


def _inplace_slope_check(name, slope):
    if slope < 0:
        raise RuntimeError(
            f"In-place {name} backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead.")


def _leaky_relu_inplace_vjp(grad, result, negative_slope):
    # the in-place variant saves its result, not the overwritten input: the input's sign is
    # read off the result, which needs a positive slope
    _inplace_slope_check("leakyReLu", negative_slope)
    return F.leaky_relu_backward(grad, result, negative_slope)


LEAKY_RELU_ = defop("leaky_relu_(self, *, negative_slope)", _leaky_relu_kernel,
                    "LeakyReluBackward1", self=_leaky_relu_inplace_vjp, jvp=ELEMENTWISE)


def _elu_double_backward(grad, grad_output, self_or_result, alpha, scale, input_scale,
                         is_result):
    # PyTorch's elu_double_backward: 0 at x = 0 (the mask is x < 0)
    if is_result:
        return grad * grad_output * input_scale * (self_or_result < 0)
    return F.elu_backward(grad * grad_output * input_scale, self_or_result, alpha, scale,
                          input_scale, False) * (self_or_result < 0)


# elu, selu and celu are one op, as PyTorch's (elu with its scale and input_scale)
ELU_BACKWARD = defop(
    "elu_backward(grad_output, self_or_result, *, alpha, scale, input_scale, is_result)",
    _elu_backward_kernel, "EluBackwardBackward0",
    grad_output=lambda grad, self_or_result, alpha, scale, input_scale, is_result:
        F.elu_backward(grad, self_or_result, alpha, scale, input_scale, is_result),
    self_or_result=_elu_double_backward,
    jvp=lambda grad_output_t, self_or_result_t, grad_output, self_or_result, alpha, scale,
        input_scale, is_result:
        F.elu_backward(grad_output_t, self_or_result, alpha, scale, input_scale, is_result)
        + _elu_double_backward(self_or_result_t, grad_output, self_or_result, alpha, scale,
                               input_scale, is_result),
    batched_jvp=POINTWISE)
ELU = defop("elu(self, *, alpha, scale, input_scale)", _elu_kernel, "EluBackward0",
            self=lambda grad, self, alpha, scale, input_scale:
                F.elu_backward(grad, self, alpha, scale, input_scale, False),
            jvp=ELEMENTWISE)


def _elu_inplace_vjp(grad, result, alpha, scale, input_scale):
    _inplace_slope_check("elu", alpha)
    return F.elu_backward(grad, result, alpha, scale, input_scale, True)


ELU_ = defop("elu_(self, *, alpha, scale, input_scale)", _elu_kernel, "EluBackward1",
             self=_elu_inplace_vjp, jvp=ELEMENTWISE)


def _gelu_dxx(x, approximate):
    """d^2 gelu / dx^2, written with graphgrad ops (ndarray or Tensor)."""
    if approximate == "tanh":
        x2 = x * x
        t = F.tanh(_SQRT_2_PI * (x + _GELU_C * x2 * x))
        du = _SQRT_2_PI * (1 + 3 * _GELU_C * x2)
        ddu = (6 * _SQRT_2_PI * _GELU_C) * x
        return (1 - t * t) * (du + 0.5 * x * (ddu - 2 * t * du * du))
    return (_INV_SQRT_2PI * F.exp(-0.5 * x * x)) * (2 - x * x)


GELU = defop("gelu(self, *, approximate)", _gelu_kernel, "GeluBackward0",
             self=lambda grad, self, approximate: F.gelu_backward(grad, self, approximate),
             jvp=ELEMENTWISE)
GELU_BACKWARD = defop(
    "gelu_backward(grad_output, self, *, approximate)",
    _gelu_backward_kernel,
    "GeluBackwardBackward0",
    grad_output=lambda grad, self, approximate: F.gelu_backward(grad, self, approximate),
    self=lambda grad, grad_output, self, approximate:
        grad * grad_output * _gelu_dxx(self, approximate),
    jvp=lambda grad_output_t, self_t, grad_output, self, approximate:
        F.gelu_backward(grad_output_t, self, approximate)
        + grad_output * _gelu_dxx(self, approximate) * self_t, batched_jvp=POINTWISE)


@half_in_float32
def _silu_vjp(grad, self):
    s = F.sigmoid(self)
    return grad * (s * (1 + self * (1 - s)))


SILU = defop("silu(self)", _silu_kernel, "SiluBackward0", self=_silu_vjp, jvp=ELEMENTWISE)

@half_in_float32
def _softplus_backward_kernel(grad_output, self, beta, threshold):
    return F.where(self * beta > threshold, grad_output, grad_output * F.sigmoid(self * beta))


def _softplus_vjp(grad, self, beta, threshold):
    if isinstance(grad, np.ndarray) and isinstance(self, np.ndarray):
        return _softplus_backward_kernel(grad, self, beta, threshold)
    # (recorded as PyTorch's softplus_backward op, whose derivative by self multiplies by
    # the mask x * beta < threshold: an infinite incoming gradient there gives NaN, as
    # PyTorch's, where a where() gave 0)
    return F.softplus_backward(grad, self, beta, threshold)


def _softplus_double_backward(g, self, beta, threshold):
    """PyTorch's softplus_double_backward: sigmoid's derivative at x * beta, masked by a
    product with x * beta < threshold, times beta."""
    x = self * beta
    return F.sigmoid_backward(g, F.sigmoid(x)) * (x < threshold) * beta


SOFTPLUS = defop("softplus(self, *, beta, threshold)", _softplus_kernel, "SoftplusBackward0",
                 self=_softplus_vjp, jvp=ELEMENTWISE)
SOFTPLUS_BACKWARD = defop(
    "softplus_backward(grad_output, self, *, beta, threshold)", _softplus_backward_kernel,
    "SoftplusBackwardBackward0", promote=True,
    grad_output=lambda grad, self, beta, threshold:
        F.softplus_backward(grad, self, beta, threshold),
    self=lambda grad, grad_output, self, beta, threshold:
        _softplus_double_backward(grad * grad_output, self, beta, threshold),
    jvp=lambda grad_output_t, self_t, grad_output, self, beta, threshold:
        F.softplus_backward(grad_output_t, self, beta, threshold)
        + _softplus_double_backward(self_t * grad_output, self, beta, threshold),
    batched_jvp=POINTWISE)
