"""The table, nn_pool family: max_pool2d/3d (by the argmax indices) and avg_pool2d/3d.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_pool.py, public functions in nn/functional/pool.py.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.nn_pool import (
    _avg_pool_backward_kernel, _avg_pool_kernel, _max_pool_kernel, _pool3d_gather_kernel,
    _pool3d_scatter_kernel, _pool_gather_kernel, _pool_scatter_kernel, _windows_disjoint)


# ====================================================================== pooling
MAX_POOL2D = defop(
    "max_pool2d_with_indices(self, *, kernel_size, stride, padding, dilation, ceil_mode)",
    _max_pool_kernel, "MaxPool2DWithIndicesBackward0", n_outputs=2, nondiff_outputs=(1,),
    self=lambda grad, self_sym_sizes, result1, kernel_size, stride, dilation:
        F.max_pool2d_with_indices_backward(grad, result1, tuple(self_sym_sizes),
                                           _windows_disjoint(kernel_size, stride, dilation)),
    jvp=lambda self_t, result1: F.max_pool2d_gather(self_t, result1), batched_jvp=True)
# disjoint: no two windows share an element (the scatter is then an assignment)
MAX_POOL2D_BACKWARD = defop(
    "max_pool2d_with_indices_backward(grad_output, indices, *, self_sizes, disjoint)",
    _pool_scatter_kernel, "MaxPool2DWithIndicesBackwardBackward0",
    grad_output=lambda grad, indices: F.max_pool2d_gather(grad, indices),
    jvp=lambda grad_output_t, indices, self_sizes, disjoint:
        F.max_pool2d_with_indices_backward(grad_output_t, indices, self_sizes, disjoint),
    batched_jvp=True)
MAX_POOL2D_GATHER = defop(
    "max_pool2d_gather(self, indices)", _pool_gather_kernel, "GatherBackward0",
    self=lambda grad, indices, self_sym_sizes:
        F.max_pool2d_with_indices_backward(grad, indices, tuple(self_sym_sizes), False),
    jvp=lambda self_t, indices: F.max_pool2d_gather(self_t, indices), batched_jvp=True)


AVG_POOL2D = defop(
    "avg_pool2d(self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, "
    "divisor_override)", _avg_pool_kernel, "AvgPool2DBackward0",
    self=lambda grad, self_sym_sizes, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool2d_backward(grad, tuple(self_sym_sizes), kernel_size, stride,
                                            padding, ceil_mode, count_include_pad,
                                            divisor_override),
    jvp=LINEAR, batched_jvp=True)
AVG_POOL2D_BACKWARD = defop(
    "avg_pool2d_backward(grad_output, *, self_sizes, kernel_size, stride, padding, ceil_mode, "
    "count_include_pad, divisor_override)", _avg_pool_backward_kernel,
    "AvgPool2DBackwardBackward0",
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool2d(grad, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override),
    jvp=LINEAR, batched_jvp=True)


# ---------------------------------------------------------------------- 3-d (the same kernels)
MAX_POOL3D = defop(
    "max_pool3d_with_indices(self, *, kernel_size, stride, padding, dilation, ceil_mode)",
    _max_pool_kernel, "MaxPool3DWithIndicesBackward0", n_outputs=2, nondiff_outputs=(1,),
    self=lambda grad, self_sym_sizes, result1, kernel_size, stride, dilation:
        F.max_pool3d_with_indices_backward(grad, result1, tuple(self_sym_sizes),
                                           _windows_disjoint(kernel_size, stride, dilation)),
    jvp=lambda self_t, result1: F.max_pool3d_gather(self_t, result1), batched_jvp=True)
MAX_POOL3D_BACKWARD = defop(
    "max_pool3d_with_indices_backward(grad_output, indices, *, self_sizes, disjoint)",
    _pool3d_scatter_kernel, "MaxPool3DWithIndicesBackwardBackward0",
    grad_output=lambda grad, indices: F.max_pool3d_gather(grad, indices),
    jvp=lambda grad_output_t, indices, self_sizes, disjoint:
        F.max_pool3d_with_indices_backward(grad_output_t, indices, self_sizes, disjoint),
    batched_jvp=True)
MAX_POOL3D_GATHER = defop(
    "max_pool3d_gather(self, indices)", _pool3d_gather_kernel, "GatherBackward0",
    self=lambda grad, indices, self_sym_sizes:
        F.max_pool3d_with_indices_backward(grad, indices, tuple(self_sym_sizes), False),
    jvp=lambda self_t, indices: F.max_pool3d_gather(self_t, indices), batched_jvp=True)


AVG_POOL3D = defop(
    "avg_pool3d(self, *, kernel_size, stride, padding, ceil_mode, count_include_pad, "
    "divisor_override)", _avg_pool_kernel, "AvgPool3DBackward0",
    self=lambda grad, self_sym_sizes, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool3d_backward(grad, tuple(self_sym_sizes), kernel_size, stride,
                                            padding, ceil_mode, count_include_pad,
                                            divisor_override),
    jvp=LINEAR, batched_jvp=True)
AVG_POOL3D_BACKWARD = defop(
    "avg_pool3d_backward(grad_output, *, self_sizes, kernel_size, stride, padding, ceil_mode, "
    "count_include_pad, divisor_override)", _avg_pool_backward_kernel,
    "AvgPool3DBackwardBackward0",
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: F.avg_pool3d(grad, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override),
    jvp=LINEAR, batched_jvp=True)
