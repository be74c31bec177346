"""linalg.lu_factor / lu_factor_ex, linalg.lu, linalg.lu_solve (LU with partial pivoting;
differentiable for square matrices, as table entries with PyTorch's nodes)."""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core.dtypes import scalar_type_name
from ..._core.opmath import BFLOAT16
from ..dispatch import dispatch
from ..registry import export_linalg
from ... import return_types as _rt
from ..derivatives.linalg_lu import LU, LU_FACTOR, LU_SOLVE


def _check(name, A, argname="A", ints_raise=NotImplementedError):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' must be Tensor, not "
                        f"{type(A).__name__}")
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {argname} must have at least 2 "
                           "dimensions.")
    if d.dtype.kind in "iub" and ints_raise is RuntimeError:
        raise RuntimeError(f"torch.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name(d.dtype)}")
    if d.dtype == np.float16 or d.dtype == BFLOAT16 or d.dtype.kind in "iub":
        raise NotImplementedError(f'"lu_cpu" not implemented for '
                                  f"'{scalar_type_name(d.dtype)}' [{name}: convert with "
                                  ".float() or .double()]")
    if d.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(d.dtype)}")


def _no_pivot(name, pivot):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


@export_linalg("lu_factor_ex")
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: L (unit lower, below the diagonal) and U packed in one
    matrix, 1-based int32 pivots, info > 0 where U has a zero on its diagonal."""
    _check("linalg.lu_factor_ex", A)
    _no_pivot("linalg.lu_factor_ex", pivot)
    LU_, piv, info = dispatch(LU_FACTOR, A)
    if check_errors and bool((info._data != 0).any()):
        raise RuntimeError("linalg.lu_factor_ex: U[i,i] is zero (the matrix is singular)")
    return _rt.linalg_lu_factor_ex(LU_, piv, info)


@export_linalg("lu_factor")
def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` of ``A = P L U`` (see lu_factor_ex)."""
    _check("linalg.lu_factor", A)
    _no_pivot("linalg.lu_factor", pivot)
    LU_, piv, _ = dispatch(LU_FACTOR, A)
    return _rt.linalg_lu_factor(LU_, piv)


@export_linalg("lu")
def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``."""
    _check("linalg.lu", A)
    _no_pivot("linalg.lu", pivot)
    return _rt.linalg_lu(*dispatch(LU, A))


@export_linalg("lu_solve")
def lu_solve(LU_, pivots, B, *, left=True, adjoint=False, out=None):
    """The solution of ``A X = B`` from ``lu_factor(A)`` (``X A = B`` with ``left=False``,
    ``A^H`` with ``adjoint=True``)."""
    name = "linalg.lu_solve"
    _check(name, LU_, "LU", ints_raise=RuntimeError)
    if not isinstance(B, Tensor) or not isinstance(pivots, Tensor):
        raise TypeError(f"{name}(): LU, pivots and B must be Tensors")
    if B._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if LU_._data.shape[-1] != LU_._data.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{LU_._data.shape[-2]} by {LU_._data.shape[-1]} matrices")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{name}: Expected pivots to be int32, got "
                           f"{scalar_type_name(pivots._data.dtype)}")
    if B._data.dtype != LU_._data.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {scalar_type_name(LU_._data.dtype)} and B of type "
                           f"{scalar_type_name(B._data.dtype)} instead")
    n = LU_._data.shape[-1]
    k = B._data.shape[-2] if left else B._data.shape[-1]
    if k != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B._data.shape[-2]}x{B._data.shape[-1]})")
    return dispatch(LU_SOLVE, LU_, pivots, B, bool(left), bool(adjoint))
