"""The table, linalg_lu family: lu_factor, lu, lu_solve (PyTorch's LinalgLuFactorExBackward0,
LinalgLuBackward0, LinalgLuSolveBackward0).

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/linalg_lu.py, public functions in ops/api/linalg_lu.py.  The rules are
FunctionsManual's (``A = P L U``; square: ``gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H))
U^{-H}``, and its wide and tall cases; the tangents likewise).
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import defop
from ..kernels.linalg_lu import _lu_factor_kernel, _lu_kernel, _lu_solve_kernel, _permutation


def _np(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _lift(arr, like):
    return Tensor._wrap(np.asarray(arr)) if isinstance(like, Tensor) else arr


def _mm(a, b):
    return F.matmul(a, b)


def _eye(x):
    return _lift(np.eye(F.shape(x)[-1], dtype=_np(x).dtype), x)


def _L_U(LU):
    m, n = F.shape(LU)[-2], F.shape(LU)[-1]
    if m == n:
        return F.tril(LU, -1) + _eye(LU), F.triu(LU, 0)
    k = min(m, n)
    Lp = F.slice(LU, -1, 0, k, 1) if n > k else LU
    Up = F.slice(LU, -2, 0, k, 1) if m > k else LU
    eye = _lift(np.eye(m, k, dtype=_np(LU).dtype), LU)
    return F.tril(Lp, -1) + eye, F.triu(Up, 0)


def _P(pivots, like):
    """P (m x m) from the pivots; ``like``: a matrix with m rows (its dtype)."""
    return _lift(_permutation(_np(pivots), F.shape(like)[-2], _np(like).dtype), like)


def _lu_backward(gL, gU, P, L, U):
    """gA of A = P L U (L m x k unit lower, U k x n upper, k = min(m, n)): FunctionsManual's
    square, wide and tall cases."""
    m, k, n = F.shape(L)[-2], F.shape(L)[-1], F.shape(U)[-1]
    if m == n:
        gR = F.tril(_mm(F.mH(L), gL), -1) + F.triu(_mm(gU, F.mH(U)), 0)
        gA = F.linalg_solve_triangular(F.mH(L), gR, True, True, True)
        gA = F.linalg_solve_triangular(F.mH(U), gA, False, False, False)
        return _mm(P, gA)
    if m < n:   # wide: U = [U1 | U2]
        U1 = F.slice(U, -1, 0, k, 1)
        gA = _mm(F.mH(L), gL) - _mm(F.triu(gU, 0), F.mH(U))
        gA = F.linalg_solve_triangular(F.mH(U1), F.tril(gA, -1), False, False, False)
        gA = gA + F.triu(F.slice(gU, -1, 0, k, 1), 0)
        gA = F.constant_pad_nd(gA, (0, n - k), 0) + \
            F.constant_pad_nd(F.slice(gU, -1, k, n, 1), (k, 0), 0)
        gA = F.linalg_solve_triangular(F.mH(L), gA, True, True, True)
        return _mm(P, gA)
    # tall: L = [L1; L2]
    L1 = F.slice(L, -2, 0, k, 1)
    gA = _mm(gU, F.mH(U)) - _mm(F.mH(L), F.tril(gL, -1))
    gA = F.linalg_solve_triangular(F.mH(L1), F.triu(gA, 0), True, True, True)
    gA = gA + F.tril(F.slice(gL, -2, 0, k, 1), -1)
    gA = F.constant_pad_nd(gA, (0, 0, 0, m - k), 0) + \
        F.constant_pad_nd(F.slice(gL, -2, k, m, 1), (0, 0, k, 0), 0)
    gA = F.linalg_solve_triangular(F.mH(U), gA, False, False, False)
    return _mm(P, gA)


def _lu_jvp_parts(A_t, P, L, U):
    """(dL, dU) with dA = P (dL U + L dU): square, wide and tall."""
    m, k, n = F.shape(L)[-2], F.shape(L)[-1], F.shape(U)[-1]
    PdA = _mm(F.mT(P), A_t)
    if m == n:
        dX = F.linalg_solve_triangular(L, PdA, False, True, True)
        dX = F.linalg_solve_triangular(U, dX, True, False, False)
        return _mm(L, F.tril(dX, -1)), _mm(F.triu(dX, 0), U)
    if m < n:   # wide: U = [U1 | U2]
        U1, U2 = F.slice(U, -1, 0, k, 1), F.slice(U, -1, k, n, 1)
        LPdA = F.linalg_solve_triangular(L, PdA, False, True, True)
        dK = F.linalg_solve_triangular(U1, F.slice(LPdA, -1, 0, k, 1), True, False, False)
        dU1 = _mm(F.triu(dK, 0), U1)
        dU2 = F.slice(LPdA, -1, k, n, 1) - _mm(F.tril(dK, -1), U2)
        dU = F.constant_pad_nd(dU1, (0, n - k), 0) + F.constant_pad_nd(dU2, (k, 0), 0)
        return _mm(L, F.tril(dK, -1)), dU
    # tall: L = [L1; L2]
    L1, L2 = F.slice(L, -2, 0, k, 1), F.slice(L, -2, k, m, 1)
    PdAU = F.linalg_solve_triangular(U, PdA, True, False, False)     # P^T dA U^{-1}
    dK = F.linalg_solve_triangular(L1, F.slice(PdAU, -2, 0, k, 1), False, True, True)
    dL1 = _mm(L1, F.tril(dK, -1))
    dL2 = F.slice(PdAU, -2, k, m, 1) - _mm(L2, F.triu(dK, 0))
    dL = F.constant_pad_nd(dL1, (0, 0, 0, m - k), 0) + F.constant_pad_nd(dL2, (0, 0, k, 0), 0)
    return dL, _mm(F.triu(dK, 0), U)


# ---------------------------------------------------------------- lu_factor
def _lu_factor_vjp(grad, result, result1):
    m, n = F.shape(result)[-2], F.shape(result)[-1]
    k = min(m, n)
    L, U = _L_U(result)
    gL = F.tril(F.slice(grad, -1, 0, k, 1) if n > k else grad, -1)
    gU = F.triu(F.slice(grad, -2, 0, k, 1) if m > k else grad, 0)
    return _lu_backward(gL, gU, _P(result1, L), L, U)


def _lu_factor_jvp(A_t, result, result1):
    m, n = F.shape(result)[-2], F.shape(result)[-1]
    k = min(m, n)
    L, U = _L_U(result)
    dL, dU = _lu_jvp_parts(A_t, _P(result1, L), L, U)
    # packed: dL below the diagonal in the first k columns, dU in the first k rows
    dLU = F.tril(dL, -1) if n == k else F.constant_pad_nd(F.tril(dL, -1), (0, n - k), 0)
    dLU = dLU + (dU if m == k else F.constant_pad_nd(dU, (0, 0, 0, m - k), 0))
    return dLU, None, None


LU_FACTOR = defop("linalg_lu_factor_ex(A)", _lu_factor_kernel, "LinalgLuFactorExBackward0",
                  n_outputs=3, nondiff_outputs=(1, 2), A=_lu_factor_vjp, jvp=_lu_factor_jvp,
                  batched_jvp=True)


# ---------------------------------------------------------------- lu
def _lu_vjp(grads, result, result1, result2):
    return _lu_backward(grads[1], grads[2], result, result1, result2)


def _lu_jvp(A_t, result, result1, result2):
    dL, dU = _lu_jvp_parts(A_t, result, result1, result2)
    return None, dL, dU


LU = defop("linalg_lu(A)", _lu_kernel, "LinalgLuBackward0", n_outputs=3, nondiff_outputs=(0,),
           A=_lu_vjp, jvp=_lu_jvp, batched_jvp=True)


# ---------------------------------------------------------------- lu_solve
# op(A) X = B (left) or X op(A) = B, op = ^H with adjoint, A = P L U.  The rules go through
# gA (then onto L and U: gL = tril(P^T gA U^H, -1), gU = triu(L^H P^T gA)).
def _lu_solve_B_vjp(grad, LU, pivots, left, adjoint):
    return F.linalg_lu_solve(LU, pivots, grad, left, not adjoint)


def _lu_solve_LU_vjp(grad, LU, pivots, result, left, adjoint):
    gB = F.linalg_lu_solve(LU, pivots, grad, left, not adjoint)
    X = result
    if left:
        gA = -_mm(X, F.mH(gB)) if adjoint else -_mm(gB, F.mH(X))
    else:
        gA = -_mm(F.mH(gB), X) if adjoint else -_mm(F.mH(X), gB)
    L, U = _L_U(LU)
    PtgA = _mm(F.mT(_P(pivots, LU)), gA)
    return F.tril(_mm(PtgA, F.mH(U)), -1) + F.triu(_mm(F.mH(L), PtgA), 0)


def _lu_solve_jvp(LU_t, B_t, LU, pivots, result, left, adjoint):
    L, U = _L_U(LU)
    dA = _mm(_P(pivots, LU), _mm(F.tril(LU_t, -1), U) + _mm(L, F.triu(LU_t, 0)))
    dA = F.pad_batched(dA, F.ndim(LU), F.ndim(result))   # (batched tangents)
    if adjoint:
        dA = F.mH(dA)
    term = _mm(dA, result) if left else _mm(result, dA)
    return F.linalg_lu_solve(LU, pivots, B_t - term, left, adjoint)


LU_SOLVE = defop("linalg_lu_solve(LU, pivots, B, *, left, adjoint)", _lu_solve_kernel,
                 "LinalgLuSolveBackward0", vjp_order=("LU", "B"),
                 LU=_lu_solve_LU_vjp, B=_lu_solve_B_vjp, jvp=_lu_solve_jvp, batched_jvp=True)
