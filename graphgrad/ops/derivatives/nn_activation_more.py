"""The table, nn_activation_more family: celu, softshrink, hardshrink, rrelu (selu is the elu
entry of nn_activation with PyTorch's scale).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_activation_more.py, public functions in nn/functional/activation_more.py.
"""
from __future__ import annotations

from .. import formulas as F
from . import ZERO
from ..registry import ELEMENTWISE, POINTWISE, defop
from .nn_activation import _inplace_slope_check
from ..kernels.nn_activation_more import (
    _celu_kernel, _hardshrink_kernel, _mean_slope, _rrelu_backward_kernel, _rrelu_kernel,
    _rrelu_noisy, _shrink_backward_kernel, _softshrink_kernel)


# ====================================================================== celu
# PyTorch's CeluBackward0 is elu_backward with input_scale 1 / alpha (EluBackwardBackward0
# under create_graph).  (PyTorch's rule takes 1 / float32(alpha), its forward 1 / alpha:
# graphgrad differentiates its forward exactly; docs/differences.md.)
CELU = defop("celu(self, *, alpha)", _celu_kernel, "CeluBackward0",
             self=lambda grad, self, alpha: F.elu_backward(grad, self, alpha, 1, 1.0 / alpha,
                                                           False),
             jvp=ELEMENTWISE)


def _celu_inplace_vjp(grad, result, alpha):
    _inplace_slope_check("elu", alpha)
    return F.elu_backward(grad, result, alpha, 1, 1.0 / alpha, True)


CELU_ = defop("celu_(self, *, alpha)", _celu_kernel, "CeluBackward1", self=_celu_inplace_vjp,
              jvp=ELEMENTWISE)


# ====================================================================== softshrink / hardshrink
# the backward functions are ops of their own, as PyTorch's: their derivative by the input
# is zero, by the incoming gradient the same selection
SOFTSHRINK_BACKWARD = defop(
    "softshrink_backward(grad_output, self, *, lambd)", _shrink_backward_kernel,
    "SoftshrinkBackwardBackward0",
    grad_output=lambda grad, self, lambd: F.softshrink_backward(grad, self, lambd),
    self=ZERO,
    jvp=lambda grad_output_t, self, lambd: F.softshrink_backward(grad_output_t, self, lambd),
    batched_jvp=POINTWISE)
SOFTSHRINK = defop("softshrink(self, *, lambd)", _softshrink_kernel, "SoftshrinkBackward0",
                   self=lambda grad, self, lambd: F.softshrink_backward(grad, self, lambd),
                   jvp=ELEMENTWISE)
HARDSHRINK_BACKWARD = defop(
    "hardshrink_backward(grad_out, self, *, lambd)", _shrink_backward_kernel,
    "HardshrinkBackwardBackward0",
    grad_out=lambda grad, self, lambd: F.hardshrink_backward(grad, self, lambd),
    self=ZERO,
    jvp=lambda grad_out_t, self, lambd: F.hardshrink_backward(grad_out_t, self, lambd),
    batched_jvp=POINTWISE)
HARDSHRINK = defop("hardshrink(self, *, lambd)", _hardshrink_kernel, "HardshrinkBackward0",
                   self=lambda grad, self, lambd: F.hardshrink_backward(grad, self, lambd),
                   jvp=ELEMENTWISE)


# ====================================================================== rrelu
# ``noise`` is a tensor input without a derivative (PyTorch's: drawn by the forward, saved)
RRELU_BACKWARD = defop(
    "rrelu_with_noise_backward(grad_output, self, noise, *, lower, upper, training, "
    "self_is_result)", _rrelu_backward_kernel, "RreluWithNoiseBackwardBackward0",
    grad_output=lambda grad, self, noise, lower, upper, training, self_is_result:
        F.rrelu_with_noise_backward(grad, self, noise, lower, upper, training, False),
    self=ZERO,
    jvp=lambda grad_output_t, self, noise, lower, upper, training, self_is_result:
        F.rrelu_with_noise_backward(grad_output_t, self, noise, lower, upper, training, False),
    batched_jvp=POINTWISE)
RRELU = defop("rrelu_with_noise(self, noise, *, lower, upper, training)", _rrelu_kernel,
              "RreluWithNoiseBackward0",
              self=lambda grad, self, noise, lower, upper, training:
                  F.rrelu_with_noise_backward(grad, self, noise, lower, upper, training, False),
              jvp=ELEMENTWISE)


def _rrelu_inplace_vjp(grad, result, noise, lower, upper, training):
    # (the result has the input's sign only for a positive slope: PyTorch's leaky_relu_backward
    # on a result refuses a negative one)
    if not _rrelu_noisy(lower, upper, training):
        _inplace_slope_check("leakyReLu", _mean_slope(lower, upper))
    return F.rrelu_with_noise_backward(grad, result, noise, lower, upper, training, True)


RRELU_ = defop("rrelu_with_noise_(self, noise, *, lower, upper, training)", _rrelu_kernel,
               "RreluWithNoiseBackward1", self=_rrelu_inplace_vjp, jvp=ELEMENTWISE)
