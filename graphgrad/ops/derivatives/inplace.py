"""The table, inplace family: the view-chain ops of CopySlices and view regeneration; zero_,
fill_, copy_.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/inplace.py, public functions in ops/api/inplace.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..dispatch import dispatch, replay_view
from .. import formulas as F
from . import ZERO
from ..registry import LINEAR, POINTWISE, defop
from ..kernels.inplace import (
    _copy_kernel, _relayout_kernel, _root_order, _view_scatter_kernel, _view_zero_kernel)


# ---------------------------------------------------------------- the base's layout
RELAYOUT = defop("_relayout(self, *, order)", _relayout_kernel, "CloneBackward0",
                 self=lambda grad: grad, jvp=LINEAR, batched_jvp=True)


def _read_region(grad, chain):
    """The view's region of a base gradient (read only): a gradient that is not row-major
    is made so first when the base is (the views must apply as they did to the base)."""
    if _root_order(chain) is None:
        if isinstance(grad, Tensor):
            if not grad._data.flags.c_contiguous:
                grad = grad.contiguous()
        elif not grad.flags.c_contiguous:
            grad = np.ascontiguousarray(grad)
    return replay_view(chain, grad)


VIEW_SCATTER = defop("_view_scatter(grad, *, chain, base_sizes, view_ndim, base_dtype)",
                     _view_scatter_kernel, "AsStridedScatterBackward0",
                     grad=lambda grad, chain: _read_region(grad, chain), jvp=LINEAR,
                     batched_jvp=True)


# zeroing a region is a projection: its own adjoint (and linear, so its own JVP)
VIEW_ZERO = defop("_view_zero(grad, *, chain, base_ndim)", _view_zero_kernel,
                  "ViewZeroBackward0",
                  grad=lambda grad, chain, base_ndim: view_zero(grad, chain, base_ndim),
                  jvp=LINEAR, batched_jvp=True)


def view_zero(grad, chain, base_ndim):
    if isinstance(grad, Tensor):
        return dispatch(VIEW_ZERO, grad, chain, base_ndim)
    return _view_zero_kernel(grad, chain, base_ndim)


# ================================================================ zero_, fill_, copy_
ZERO_FILL = defop("zero(self)", np.zeros_like, "ZeroBackward0",
                  self=ZERO, jvp=lambda self_t: F.zeros_like(self_t), batched_jvp=True)
FILL = defop("fill(self, *, value)", lambda a, value: np.full_like(a, value), "FillBackward2",
             self=ZERO, jvp=lambda self_t: F.zeros_like(self_t),
             batched_jvp=True)
FILL_T = defop("fill.Tensor(self, value)", lambda a, v: np.broadcast_to(v, a.shape).astype(
               a.dtype), "FillBackward3",
               self=ZERO, value=lambda grad: F.sum_to(grad, ()),
               jvp=lambda value_t, self_t: F.zeros_like(self_t) + value_t, batched_jvp=POINTWISE)


COPY = defop("copy(self, src)", _copy_kernel, "CopyBackwards",
             self=ZERO,
             src=lambda grad: grad,
             jvp=lambda self_t, src_t: F.zeros_like(self_t) + src_t, batched_jvp=POINTWISE)
