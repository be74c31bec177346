"""Activations: relu, leaky_relu, elu, gelu, silu, softplus, sigmoid, tanh."""
from __future__ import annotations

import math
import numpy as np

from ...ops import formulas as F, registry as _registry
from ...ops.dispatch import dispatch, unary
from ...ops.inplace import dispatch_inplace
from ...ops.registry import ELEMENTWISE, POINTWISE, defop
from ..._core.opmath import half_in_float32
from ...ops.kernels.special import erfc as _erfc_kernel
from ...ops.api.pointwise import sigmoid as _sigmoid, tanh as _tanh
from ._utils import _tensor_arg, _real_floating
from ...ops.kernels.special import erfc as kernel

# ====================================================================== activations
@half_in_float32
def _leaky_relu_kernel(a, negative_slope):
    return np.where(a > 0, a, a * negative_slope)


# the backward functions are ops of their own, as PyTorch's leaky_relu_backward and
# elu_backward: under create_graph the gradient depends on the input (so it requires grad,
# with the derivative PyTorch defines there), and it selects rather than multiplies, so a
# NaN input passes the gradient of the branch PyTorch takes
@half_in_float32
def _leaky_relu_backward_kernel(g, a, negative_slope):
    return np.where(a > 0, g, g * negative_slope)


LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward(grad_output, self, *, negative_slope)", _leaky_relu_backward_kernel,
    "LeakyReluBackwardBackward0",
    grad_output=lambda grad, self, negative_slope:
        F.leaky_relu_backward(grad, self, negative_slope),
    self=lambda grad: F.zeros_like(grad),
    jvp=lambda grad_output_t, self, negative_slope:
        F.leaky_relu_backward(grad_output_t, self, negative_slope), batched_jvp=POINTWISE)
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


@half_in_float32
def _elu_kernel(a, alpha):
    return np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0)))


@half_in_float32
def _elu_backward_kernel(g, x, alpha, is_result):
    # x is the input, or the result (in-place elu_). At NaN the gradient is NaN, as PyTorch's
    # vectorised loop gives on every CPU (its scalar loop, which only handles a short tensor
    # or the tail past the last full vector, gives the gradient itself: a CPU-dependent 1)
    if is_result:
        return np.where(x > 0, g, g * (x + alpha))
    return np.where(x > 0, g, g * (alpha * np.exp(np.minimum(x, 0))))


def _elu_double_backward(grad, grad_output, self_or_result, alpha, is_result):
    # PyTorch's elu_double_backward: 0 at x = 0 (the mask is x < 0)
    if is_result:
        return grad * grad_output * (self_or_result < 0)
    return F.elu_backward(grad * grad_output, self_or_result, alpha, False) * \
        (self_or_result < 0)


ELU_BACKWARD = defop(
    "elu_backward(grad_output, self_or_result, *, alpha, is_result)", _elu_backward_kernel,
    "EluBackwardBackward0",
    grad_output=lambda grad, self_or_result, alpha, is_result:
        F.elu_backward(grad, self_or_result, alpha, is_result),
    self_or_result=_elu_double_backward,
    jvp=lambda grad_output_t, self_or_result_t, grad_output, self_or_result, alpha, is_result:
        F.elu_backward(grad_output_t, self_or_result, alpha, is_result)
        + _elu_double_backward(self_or_result_t, grad_output, self_or_result, alpha, is_result),
    batched_jvp=POINTWISE)
ELU = defop("elu(self, *, alpha)", _elu_kernel, "EluBackward0",
            self=lambda grad, self, alpha: F.elu_backward(grad, self, alpha, False),
            jvp=ELEMENTWISE)


def _elu_inplace_vjp(grad, result, alpha):
    _inplace_slope_check("elu", alpha)
    return F.elu_backward(grad, result, alpha, True)


ELU_ = defop("elu_(self, *, alpha)", _elu_kernel, "EluBackward1", self=_elu_inplace_vjp,
             jvp=ELEMENTWISE)

# gelu: x * Phi(x), or the tanh approximation 0.5 x (1 + tanh(k (x + c x^3)))
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = 0.044715


def _erfc_np(x):
    return np.asarray(_erfc_kernel(x), dtype=x.dtype)


@half_in_float32
def _gelu_kernel(a, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_PI * (a + _GELU_C * a * a * a)
        return 0.5 * a * (1 + np.tanh(inner))
    # Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation for negative x
    return 0.5 * a * _erfc_np(a * -math.sqrt(0.5))


def _gelu_dx(a, approximate):
    """d gelu / dx (ndarray)."""
    if approximate == "tanh":
        a2 = a * a
        t = np.tanh(_SQRT_2_PI * (a + _GELU_C * a2 * a))
        du = _SQRT_2_PI * (1 + 3 * _GELU_C * a2)
        return 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * du
    return 0.5 * _erfc_np(a * -math.sqrt(0.5)) + a * (_INV_SQRT_2PI * np.exp(-0.5 * a * a))


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
    half_in_float32(lambda g, a, approximate: g * _gelu_dx(a, approximate)),
    "GeluBackwardBackward0",
    grad_output=lambda grad, self, approximate: F.gelu_backward(grad, self, approximate),
    self=lambda grad, grad_output, self, approximate:
        grad * grad_output * _gelu_dxx(self, approximate),
    jvp=lambda grad_output_t, self_t, grad_output, self, approximate:
        F.gelu_backward(grad_output_t, self, approximate)
        + grad_output * _gelu_dxx(self, approximate) * self_t, batched_jvp=POINTWISE)


@half_in_float32
def _silu_kernel(a):
    return a * F.sigmoid(a)


@half_in_float32
def _silu_vjp(grad, self):
    s = F.sigmoid(self)
    return grad * (s * (1 + self * (1 - s)))


SILU = defop("silu(self)", _silu_kernel, "SiluBackward0", self=_silu_vjp, jvp=ELEMENTWISE)


@half_in_float32
def _softplus_kernel(a, beta, threshold):
    z = a * beta
    # log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)): never overflows
    sp = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
    return np.where(z > threshold, a, sp).astype(a.dtype, copy=False)


SOFTPLUS = defop("softplus(self, *, beta, threshold)", _softplus_kernel, "SoftplusBackward0",
                 self=half_in_float32(lambda grad, self, beta, threshold: F.where(
                     self * beta > threshold, grad, grad * F.sigmoid(self * beta))),
                 jvp=ELEMENTWISE)


def relu(input, inplace=False):
    """``relu(input, inplace=False)``: max(input, 0) (ReluBackward0)."""
    _tensor_arg("relu", input)
    if inplace:
        return relu_(input)
    return unary(_registry.OPS["relu"], input)


def relu_(input):
    return dispatch_inplace(_registry.OPS["relu"], input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``leaky_relu(input, negative_slope=0.01, inplace=False)`` (LeakyReluBackward0)."""
    _tensor_arg("leaky_relu", input)
    _real_floating("leaky_relu_cpu", input)
    if inplace:
        return leaky_relu_(input, negative_slope)
    return dispatch(LEAKY_RELU, input, float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    _real_floating("leaky_relu_cpu", input)
    return dispatch_inplace(LEAKY_RELU_, input, float(negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """``elu(input, alpha=1.0, inplace=False)`` (EluBackward0)."""
    _tensor_arg("elu", input)
    _real_floating("elu_cpu", input)
    if inplace:
        return elu_(input, alpha)
    return dispatch(ELU, input, float(alpha))


def elu_(input, alpha=1.0):
    _real_floating("elu_cpu", input)
    return dispatch_inplace(ELU_, input, float(alpha))


def gelu(input, approximate="none"):
    """``gelu(input, approximate='none')``: x Phi(x), or the 'tanh' approximation."""
    _tensor_arg("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _real_floating("GeluKernelImpl", input)
    return dispatch(GELU, input, approximate)


def silu(input, inplace=False):
    """``silu(input, inplace=False)``: x * sigmoid(x) (SiluBackward0)."""
    _tensor_arg("silu", input)
    _real_floating("silu_cpu", input)
    if inplace:
        return dispatch_inplace(SILU, input)
    return unary(SILU, input)


def softplus(input, beta=1.0, threshold=20.0):
    """``softplus(input, beta=1, threshold=20)``: log(1 + exp(beta x)) / beta, linear above
    ``threshold`` (SoftplusBackward0)."""
    _tensor_arg("softplus", input)
    _real_floating("softplus_cpu", input)
    return dispatch(SOFTPLUS, input, beta, threshold)


def sigmoid(input):
    """``sigmoid(input)`` (SigmoidBackward0)."""
    return _sigmoid(input)


def tanh(input):
    """``tanh(input)`` (TanhBackward0)."""
    return _tanh(input)
