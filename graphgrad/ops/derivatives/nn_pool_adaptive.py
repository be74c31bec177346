"""The table, nn_pool_adaptive family: 1-d pools and adaptive pools.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_pool_adaptive.py, public functions in nn/functional/pool_adaptive.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.nn_pool_adaptive import (
    _adaptive_avg3d_backward_kernel, _adaptive_avg3d_kernel, _adaptive_avg_backward_kernel,
    _adaptive_avg_kernel, _adaptive_max_kernel)


# ====================================================================== adaptive pools
ADAPTIVE_AVG_POOL2D = defop(
    "adaptive_avg_pool2d(self, *, output_size)", _adaptive_avg_kernel,
    "AdaptiveAvgPool2DBackward0",
    self=lambda grad, self_sym_sizes: F.adaptive_avg_pool2d_backward(grad,
                                                                     tuple(self_sym_sizes)),
    jvp=LINEAR, batched_jvp=True)
ADAPTIVE_AVG_POOL2D_BACKWARD = defop(
    "adaptive_avg_pool2d_backward(grad_output, *, self_sizes)", _adaptive_avg_backward_kernel,
    "AdaptiveAvgPool2DBackwardBackward0",
    grad_output=lambda grad, grad_output_sym_sizes: F.adaptive_avg_pool2d(
        grad, tuple(grad_output_sym_sizes[-2:])),
    jvp=LINEAR, batched_jvp=True)


ADAPTIVE_AVG_POOL3D = defop(
    "adaptive_avg_pool3d(self, *, output_size)", _adaptive_avg3d_kernel,
    "AdaptiveAvgPool3DBackward0",
    self=lambda grad, self_sym_sizes: F.adaptive_avg_pool3d_backward(grad,
                                                                     tuple(self_sym_sizes)),
    jvp=LINEAR, batched_jvp=True)
ADAPTIVE_AVG_POOL3D_BACKWARD = defop(
    "adaptive_avg_pool3d_backward(grad_output, *, self_sizes)", _adaptive_avg3d_backward_kernel,
    "AdaptiveAvgPool3DBackwardBackward0",
    grad_output=lambda grad, grad_output_sym_sizes: F.adaptive_avg_pool3d(
        grad, tuple(grad_output_sym_sizes[-3:])),
    jvp=LINEAR, batched_jvp=True)


ADAPTIVE_MAX_POOL2D = defop(
    "adaptive_max_pool2d(self, *, output_size)", _adaptive_max_kernel,
    "AdaptiveMaxPool2DBackward0", n_outputs=2, nondiff_outputs=(1,),
    self=lambda grad, self_sym_sizes, result1:
        F.max_pool2d_with_indices_backward(grad, result1, tuple(self_sym_sizes), False),
    jvp=lambda self_t, result1: F.max_pool2d_gather(self_t, result1), batched_jvp=True)


ADAPTIVE_MAX_POOL3D = defop(
    "adaptive_max_pool3d(self, *, output_size)", _adaptive_max_kernel,
    "AdaptiveMaxPool3DBackward0", n_outputs=2, nondiff_outputs=(1,),
    self=lambda grad, self_sym_sizes, result1:
        F.max_pool3d_with_indices_backward(grad, result1, tuple(self_sym_sizes), False),
    jvp=lambda self_t, result1: F.max_pool3d_gather(self_t, result1), batched_jvp=True)
