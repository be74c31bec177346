"""The table, nn_unpool family: max_unpool2d/3d (the partial inverse of max pooling).

Only entries (vocabulary: ops/derivatives/__init__.py); the kernel in
ops/kernels/nn_unpool.py, public functions in nn/functional/pool_more.py.  The gradient is
max pooling's gather at the same indices, whose own rule is the scatter again.
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from ..kernels.nn_unpool import _max_unpool_kernel


MAX_UNPOOL2D = defop(
    "max_unpool2d(self, indices, *, output_size)", _max_unpool_kernel, "MaxUnpool2DBackward0",
    self=lambda grad, indices: F.max_pool2d_gather(grad, indices),
    jvp=lambda self_t, indices, output_size: F.max_unpool2d(self_t, indices, output_size),
    batched_jvp=True)
MAX_UNPOOL3D = defop(
    "max_unpool3d(self, indices, *, output_size)", _max_unpool_kernel, "MaxUnpool3DBackward0",
    self=lambda grad, indices: F.max_pool3d_gather(grad, indices),
    jvp=lambda self_t, indices, output_size: F.max_unpool3d(self_t, indices, output_size),
    batched_jvp=True)
