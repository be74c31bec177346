"""NumPy kernels of the nn_activation_more family: celu, softshrink, hardshrink, rrelu.

Functions of ndarrays; the entries that use them are in ops/derivatives/nn_activation_more.py,
the public functions in nn/functional/activation_more.py.  (selu is elu with PyTorch's scale:
ops/kernels/nn_activation.py.)
"""
from __future__ import annotations

import numpy as np

from ..._core.opmath import half_in_float32
from .nn_activation import _elu_kernel


# ====================================================================== celu
def _celu_kernel(a, alpha):
    """celu(x) = elu(x; alpha, scale 1, input_scale 1 / alpha), as PyTorch computes it."""
    return _elu_kernel(a, alpha, 1, 1.0 / alpha)


# ====================================================================== softshrink / hardshrink
@half_in_float32
def _softshrink_kernel(a, lambd):
    # x - lambd above lambd, x + lambd below -lambd, else x * 0 (PyTorch's: NaN stays NaN,
    # and a negative x inside gives -0.0)
    return np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, a * 0))


@half_in_float32
def _shrink_backward_kernel(g, a, lambd):
    """softshrink_backward and hardshrink_backward: 0 on [-lambd, lambd], else the gradient
    (NaN inputs pass it)."""
    return np.where((a >= -lambd) & (a <= lambd), 0, g)


@half_in_float32
def _hardshrink_kernel(a, lambd):
    return np.where((a >= -lambd) & (a <= lambd), 0, a)


# ====================================================================== rrelu
# rrelu_with_noise(x, noise; lower, upper, training): in training the public function has
# drawn ``noise`` (1 where x > 0, a slope uniform in [lower, upper] elsewhere) and the
# result is x * noise where x <= 0; in evaluation it is leaky_relu with the mean slope.
def _mean_slope(lower, upper):
    return (lower + upper) / 2


@half_in_float32
def _rrelu_kernel(a, noise, lower, upper, training):
    if training:
        return np.where(a <= 0, a * noise, a)
    slope = _mean_slope(lower, upper)
    return np.where(a > 0, a, a * slope)


def _rrelu_noisy(lower, upper, training):
    """PyTorch's rrelu_with_noise_backward multiplies by the noise in training unless the
    bounds are (nearly) equal; else it is leaky_relu_backward with the mean slope."""
    return training and upper - lower > 1e-6


@half_in_float32
def _rrelu_backward_kernel(g, a, noise, lower, upper, training, self_is_result):
    if _rrelu_noisy(lower, upper, training):
        return g * noise
    return np.where(a > 0, g, g * _mean_slope(lower, upper))
