"""The table, nn_linear family: linear (addmm, PyTorch's AddmmBackward0).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/nn_linear.py, public functions in nn/functional/linear.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F, registry as _registry
from ..registry import defop
from .nn_utils import _bpad
from ..kernels.nn_linear import _addmm_kernel


# ====================================================================== linear
def _scaled(x, alpha):
    return x if alpha == 1 else x * F.conj(alpha)


def _addmm_mat2_vjp(grad, mat1, mat2, alpha):
    """``mat1^H @ grad``, laid out like ``mat2``: for a column-major ``mat2`` (a Linear's
    ``weight.t()``) the product is computed as ``(grad^T @ mat1)^T``, so the weight's
    gradient (its transpose) comes out row-major like the weight and AccumulateGrad copies
    it with one memcpy instead of a strided transpose (PyTorch's mm_mat2_backward does the
    same)."""
    if grad.__class__ is np.ndarray and mat1.__class__ is np.ndarray and \
            mat2.__class__ is np.ndarray and grad.ndim == 2 and mat2.ndim == 2 and \
            mat1.dtype.kind == "f" and mat1.dtype.itemsize >= 4 and \
            mat2.flags.f_contiguous and not mat2.flags.c_contiguous:
        return _scaled(np.matmul(grad.T, mat1).T, alpha)
    return _scaled(F.matmul(F.tH(mat1), grad), alpha)


def _declare_addmm():
    # another family may have declared torch.addmm already: reuse it if it has PyTorch's
    # signature, else keep this one under a private name
    existing = _registry.OPS.get("addmm")
    if existing is not None and existing.params == ("self", "mat1", "mat2", "beta", "alpha"):
        return existing
    name = "addmm" if existing is None else "_nn_addmm"
    return defop(
        f"{name}(self, mat1, mat2, *, beta, alpha)", _addmm_kernel, "AddmmBackward0",
        promote=True,
        self=lambda grad, beta: _scaled(grad, beta),
        mat1=lambda grad, mat2, alpha: _scaled(F.matmul(grad, F.tH(mat2)), alpha),
        mat2=_addmm_mat2_vjp,
        jvp=lambda self_t, mat1_t, mat2_t, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha) + self_t * beta,
        batched_jvp=lambda self_t, mat1_t, mat2_t, self, mat1, mat2, beta, alpha:
            _scaled(F.matmul(mat1_t, mat2) + F.matmul(mat1, mat2_t), alpha)
            + _bpad(self_t, self, 2) * beta)


ADDMM = _declare_addmm()
