"""linalg.ldl_factor(_ex) and linalg.ldl_solve (Bunch-Kaufman LDL^T of symmetric matrices;
not differentiable, as in PyTorch)."""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core.dtypes import scalar_type_name
from ..dispatch import dispatch
from ..registry import export_linalg
from .linalg_decompositions import _check_matrix
from ... import return_types as _rt
from ..derivatives.linalg_ldl import LDL_FACTOR, LDL_SOLVE

for _op in (LDL_FACTOR, LDL_SOLVE):   # (PyTorch's name for nodes without a derivative)
    _op.node_cls.name = lambda self: "torch::autograd::NotImplemented"


def _hermitian(name, A, hermitian):
    if hermitian and A._data.dtype.kind == "c":
        raise NotImplementedError(f"{name}: hermitian=True for complex input is not "
                                  "implemented here (a real symmetric input needs no flag)")


@export_linalg("ldl_factor_ex")
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the Bunch-Kaufman factorization ``A = P L D L^T P^T`` of a
    symmetric matrix (lower triangle read), LAPACK's ?sytrf format."""
    name = "torch.linalg.ldl_factor_ex"
    _check_matrix(name, A, kernel="ldl_factor_kernel_cpu")
    _hermitian(name, A, hermitian)
    LD, piv, info = dispatch(LDL_FACTOR, A, bool(hermitian))
    if check_errors and bool((info._data != 0).any()):
        raise RuntimeError(f"{name}: The factorization could not be completed because the "
                           "input is singular (a diagonal block of D is zero)")
    return _rt.linalg_ldl_factor_ex(LD, piv, info)


@export_linalg("ldl_factor")
def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` (see ldl_factor_ex)."""
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    return _rt.linalg_ldl_factor(LD, piv)


@export_linalg("ldl_solve")
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """The solution of ``A X = B`` from ``ldl_factor(A)``."""
    name = "torch.linalg.ldl_solve"
    _check_matrix(name, LD, square=False, arg="LD", kernel="ldl_solve_kernel_cpu")
    _check_matrix(name, B, square=False, arg="B", low_ok=True)   # (then the dtype check)
    _hermitian(name, LD, hermitian)
    if not isinstance(pivots, Tensor) or pivots._data.dtype != np.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got "
                           f"{scalar_type_name(getattr(pivots, '_data', np.empty(0)).dtype)}")
    if LD._data.dtype != B._data.dtype:
        raise RuntimeError(f"{name}: LD dtype {scalar_type_name(LD._data.dtype)} does not match "
                           f"b dtype {scalar_type_name(B._data.dtype)}")
    if B._data.shape[-2] != LD._data.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation AX = B "
                           f"({LD._data.shape[-2]}x{LD._data.shape[-1]} and "
                           f"{B._data.shape[-2]}x{B._data.shape[-1]})")
    return dispatch(LDL_SOLVE, LD, pivots, B, bool(hermitian))
