"""NumPy kernels of the linalg_more family: matrix_exp, pinv, cholesky (legacy),
cholesky_solve, cholesky_inverse.

Functions of ndarrays; the entries that use them are in ops/derivatives/linalg_more.py, the
public functions in ops/api/linalg_more.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.dtypes import scalar_type_name
from ..._core.opmath import half_in_float32
from .linalg import LinAlgError, _lapack
from .linalg_singular import triangular_substitute

# ---------------------------------------------------------------- matrix_exp
# Higham (2005), "The scaling and squaring method for the matrix exponential revisited":
# the [13/13] Pade approximant after scaling the 1-norm below theta_13, then squaring.
_B13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
        129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
        40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm_one(A):
    n = A.shape[-1]
    norm = np.abs(A).sum(axis=0).max() if n else 0.0
    s = max(0, int(math.ceil(math.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    if s:
        A = A / (2.0 ** s)
    b = _B13
    eye = np.eye(n, dtype=A.dtype)
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2
             + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 \
        + b[0] * eye
    R = np.linalg.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


@half_in_float32
def _matrix_exp_kernel(A):
    if A.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {_tname(A)} [convert with .float()]")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.ndim > 1 else 1} by "
                           f"{A.shape[-1] if A.ndim else 1} matrices")
    if A.size == 0:
        return np.zeros(A.shape, A.dtype)
    work = A.astype(np.complex128 if A.dtype.kind == "c" else np.float64)
    flat = work.reshape((-1,) + A.shape[-2:])
    out = np.stack([_expm_one(m) for m in flat]) if flat.shape[0] else flat.copy()
    return np.ascontiguousarray(out.reshape(A.shape).astype(A.dtype))


def _tname(a):
    return scalar_type_name(a.dtype)


# ---------------------------------------------------------------- pinv
def _pinv_kernel(A, atol, rtol, hermitian):
    m, n = A.shape[-2], A.shape[-1]
    if A.size == 0:
        return np.zeros(A.shape[:-2] + (n, m), A.dtype)
    if hermitian:
        w, V = np.linalg.eigh(A)
        S = np.abs(w)
    else:
        U, S, Vh = _lapack("linalg.pinv", lambda: np.linalg.svd(A, full_matrices=False),
                           "The algorithm failed to converge.")
    smax = S.max(axis=-1, keepdims=True)
    if atol is None and rtol is None:
        rtol = np.finfo(S.dtype).eps * max(m, n)
    tol = np.maximum(0.0 if atol is None else atol, (0.0 if rtol is None else rtol) * smax)
    keep = S > tol
    Sinv = np.where(keep, 1.0 / np.where(keep, S, 1.0), 0.0).astype(S.dtype)
    if hermitian:
        winv = np.where(keep, 1.0 / np.where(keep, w, 1.0), 0.0).astype(w.dtype)
        out = (V * winv[..., None, :]) @ np.conj(np.swapaxes(V, -1, -2))
    else:
        out = (np.conj(np.swapaxes(Vh, -1, -2)) * Sinv[..., None, :]) @ \
            np.conj(np.swapaxes(U, -1, -2))
    return np.ascontiguousarray(out.astype(A.dtype))


# ---------------------------------------------------------------- cholesky (legacy)
def _cholesky_legacy_kernel(A, upper):
    """torch.cholesky: ``upper=True`` factors the upper triangle of A (linalg.cholesky's
    reads the lower one and conjugate-transposes its factor)."""
    if upper:
        L = _lapack("cholesky", lambda: np.linalg.cholesky(np.conj(np.swapaxes(A, -1, -2))),
                    "The factorization could not be completed because the input is not "
                    "positive-definite.")
        return np.ascontiguousarray(np.conj(np.swapaxes(L, -1, -2)))
    return _lapack("cholesky", lambda: np.linalg.cholesky(A),
                   "The factorization could not be completed because the input is not "
                   "positive-definite.")


# ---------------------------------------------------------------- cholesky_solve / inverse
def _tri(L, upper):
    return np.triu(L) if upper else np.tril(L)


def _cholesky_solve_kernel(B, L, upper):
    L = _tri(L, upper)
    Lo = np.conj(np.swapaxes(L, -1, -2)) if upper else L      # lower factor
    if not B.shape[-1]:
        return np.zeros(np.broadcast_shapes(Lo.shape[:-2], B.shape[:-2]) + B.shape[-2:],
                        B.dtype)
    Lh = np.conj(np.swapaxes(Lo, -1, -2))
    try:
        X = np.linalg.solve(Lh, np.linalg.solve(Lo, B))
    except np.linalg.LinAlgError:   # a zero on L's diagonal: LAPACK's potrs gives inf/nan
        X = triangular_substitute(Lh, triangular_substitute(Lo, B, False), True)
    return np.ascontiguousarray(X.astype(B.dtype))


def _cholesky_inverse_kernel(L, upper):
    L = _tri(L, upper)
    Lo = np.conj(np.swapaxes(L, -1, -2)) if upper else L
    try:
        Linv = np.linalg.inv(Lo)
    except np.linalg.LinAlgError:
        zero = (np.diagonal(Lo, axis1=-2, axis2=-1) == 0).reshape(-1, Lo.shape[-1])
        hit = np.flatnonzero(zero.any(-1))
        first = int(np.argmax(zero[hit[0]])) + 1 if hit.size else 1
        raise LinAlgError(f"cholesky_inverse: The diagonal element {first} is zero, the "
                          "inversion could not be completed because the input matrix is "
                          "singular.") from None
    return np.ascontiguousarray((np.conj(np.swapaxes(Linv, -1, -2)) @ Linv).astype(L.dtype))


# ---------------------------------------------------------------- solve_triangular
def _triangle(A, upper, unitriangular):
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        T = T.copy()
        n = T.shape[-1]
        T[..., range(n), range(n)] = 1
    return T


def _solve_triangular_kernel(A, B, upper, left, unitriangular):
    """X of T X = B (X T = B); a zero on T's diagonal gives inf/nan, as PyTorch's (LAPACK's
    trsm never checks it)."""
    T = _triangle(A, upper, unitriangular)
    if not left:    # X A = B: A^T X^T = B^T
        T, B, upper = np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2), not upper
    try:
        X = np.linalg.solve(T, B)
    except np.linalg.LinAlgError:
        X = triangular_substitute(T, B, upper)
    if not left:
        X = np.swapaxes(X, -1, -2)
    return np.ascontiguousarray(X.astype(A.dtype))


# ---------------------------------------------------------------- lstsq
def _lstsq_kernel(A, B, rcond, driver):
    """(solution, residuals, rank, singular_values) as PyTorch's CPU drivers return them:
    gelsy (the default) gives the rank but no residuals or singular values; gelsd/gelss
    also give the singular values, and the residuals when m > n at full rank; gels gives
    residuals (m > n) only."""
    m, n = A.shape[-2], A.shape[-1]
    U, S, Vh = np.linalg.svd(A, full_matrices=False)
    eps = np.finfo(S.dtype).eps
    rc = eps * max(m, n) if rcond is None else rcond
    smax = S.max(axis=-1, keepdims=True) if S.shape[-1] else S
    keep = S > rc * smax if rcond is None or rcond >= 0 else S > eps * smax
    Sinv = np.where(keep, 1.0 / np.where(keep, S, 1.0), 0.0).astype(S.dtype)
    pinv = (np.conj(np.swapaxes(Vh, -1, -2)) * Sinv[..., None, :]) @ np.conj(np.swapaxes(U, -1,
                                                                                            -2))
    X = np.ascontiguousarray((pinv @ B).astype(A.dtype))
    rank = keep.sum(-1).astype(np.int64)
    real = S.dtype
    batch = X.shape[:-2]
    if driver in ("gelsd", "gelss", "gels") and m > n and (driver == "gels" or
                                                            np.all(rank == n)):
        R = A @ X - B
        res = (np.abs(R) ** 2).sum(-2).astype(real)
    else:
        res = np.zeros((0,), real)
    if driver in ("gelsd", "gelss"):
        sv = np.ascontiguousarray(S)
    else:
        sv = np.zeros((0,), real)
    rank = np.zeros((0,), np.int64) if driver == "gels" else np.asarray(rank).reshape(batch)
    return X, np.ascontiguousarray(res), rank, sv


# ---------------------------------------------------------------- eig
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _eig_kernel(A):
    """Eigenvalues and unit eigenvectors (LAPACK geev through NumPy, as PyTorch's: the same
    phases), always complex."""
    ct = _COMPLEX_OF[A.dtype]
    w, V = _lapack("linalg.eig", lambda: np.linalg.eig(A),
                   "The algorithm failed to converge because the input matrix is "
                   "ill-conditioned or has too many repeated eigenvalues.")
    return np.ascontiguousarray(w.astype(ct)), np.ascontiguousarray(V.astype(ct))
