"""NumPy kernels of the linalg_lu family: LU factorization with partial pivoting (NumPy has
none and graphgrad's runtime has no SciPy), the permutation of its pivots, lu_solve.

The factorization follows LAPACK's getf2: at step j the row with the largest |a_ij|
(|re| + |im| for complex, LAPACK's i?amax; the first on ties) is swapped up, the column
below is scaled by the pivot and the trailing block updated.  Pivots are 1-based int32, as
PyTorch's.
"""
from __future__ import annotations

import numpy as np


def _magnitude(x):
    return np.abs(x.real) + np.abs(x.imag) if x.dtype.kind == "c" else np.abs(x)


def _lu_factor_kernel(A):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = A.shape[:-2]
    a = np.array(A, copy=True).reshape((-1, m, n))
    nb = a.shape[0]
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(_magnitude(a[:, j:, j]), axis=1) if m > j else np.full(nb, j)
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            top = a[rows, j, :].copy()
            a[rows, j, :] = a[rows, p, :]
            a[rows, p, :] = top
        d = a[:, j, j]
        zero = d == 0
        info = np.where(zero & (info == 0), j + 1, info)
        if j + 1 < m:
            mult = a[:, j + 1:, j] / np.where(zero, 1, d)[:, None]
            mult = np.where(zero[:, None], a[:, j + 1:, j], mult)
            a[:, j + 1:, j] = mult
            if j + 1 < n:
                a[:, j + 1:, j + 1:] -= mult[:, :, None] * a[:, j, None, j + 1:]
    return (a.reshape(A.shape), piv.reshape(batch + (k,)), info.reshape(batch))


def _permutation(pivots, m, dtype):
    """P (``A = P L U``) from 1-based pivots of shape (..., k)."""
    batch = pivots.shape[:-1]
    piv = pivots.reshape((-1, pivots.shape[-1])) - 1
    nb = piv.shape[0]
    perm = np.tile(np.arange(m), (nb, 1))
    rows = np.arange(nb)
    for j in range(piv.shape[1]):
        p = piv[:, j]
        a, b = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = b, a
    P = np.zeros((nb, m, m), dtype)
    P[rows[:, None], perm, np.arange(m)[None, :]] = 1     # (P^T A)[i] = A[perm[i]]
    return P.reshape(batch + (m, m))


def _unpack(LU):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype)
    U = np.triu(LU[..., :k, :])
    return L, U


def _lu_kernel(A):
    LU, piv, _ = _lu_factor_kernel(A)
    L, U = _unpack(LU)
    return _permutation(piv, A.shape[-2], A.dtype), np.ascontiguousarray(L), \
        np.ascontiguousarray(U)


def _lu_solve_kernel(LU, pivots, B, left, adjoint):
    L, U = _unpack(LU)
    P = _permutation(pivots, LU.shape[-1], LU.dtype)
    A = P @ L @ U
    if adjoint:
        A = np.conj(np.swapaxes(A, -1, -2))
    if left:
        X = np.linalg.solve(A, B)
    else:
        X = np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    return np.ascontiguousarray(X.astype(B.dtype))
