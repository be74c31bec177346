"""Activations: relu, leaky_relu, elu, gelu, silu, softplus, sigmoid, tanh."""
from __future__ import annotations

from ...ops import registry as _registry
from ...ops.registry import export
from ...ops.dispatch import dispatch, unary
from ...ops.inplace import dispatch_inplace
from ...ops.api.pointwise import sigmoid as _sigmoid, tanh as _tanh
from ._utils import _tensor_arg, _real_floating
from ..._core.state import tls
from ...ops.kernels.special import erfc as kernel  # noqa: F401
from ...ops.derivatives.nn_activation import (
    ELU, ELU_, GELU, LEAKY_RELU, LEAKY_RELU_, SILU, SOFTPLUS, THRESHOLD, THRESHOLD_INPLACE)


# ====================================================================== activations
def relu(input, inplace=False):
    """``relu(input, inplace=False)``: max(input, 0) (ReluBackward0)."""
    _tensor_arg("relu", input)
    if inplace:
        return relu_(input)
    return unary(_registry.OPS["relu"], input)


def relu_(input):
    return dispatch_inplace(_registry.OPS["relu"], input)


def _threshold_args(name, input, threshold, value):
    _tensor_arg(name, input)
    for arg, v in (("threshold", threshold), ("value", value)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{name}(): argument '{arg}' must be Number, not {type(v).__name__}")


@export()
def threshold(input, threshold, value, inplace=False):
    """``threshold(input, threshold, value, inplace=False)``: ``input`` where it is greater
    than ``threshold``, else ``value`` (ThresholdBackward0)."""
    _threshold_args("threshold", input, threshold, value)
    if inplace:
        return threshold_(input, threshold, value)
    return dispatch(THRESHOLD, input, threshold, value)


@export(method=False)
def threshold_(input, threshold, value):
    """In-place ``threshold`` (ThresholdBackward1)."""
    _threshold_args("threshold_", input, threshold, value)
    return dispatch_inplace(THRESHOLD_INPLACE, input, threshold, value)


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
    return dispatch(ELU, input, float(alpha), 1, 1)


def elu_(input, alpha=1.0):
    _real_floating("elu_cpu", input)
    return dispatch_inplace(ELU_, input, float(alpha), 1, 1)


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
    if input._data.dtype.kind == "c":
        # (PyTorch's silu takes complex inputs, but has no complex derivative)
        if input._requires_grad and tls.grad_enabled:
            raise RuntimeError("silu does not support automatic differentiation for outputs "
                               "with complex dtype.")
    else:
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
