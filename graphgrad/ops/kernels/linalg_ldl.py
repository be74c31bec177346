"""NumPy kernels of linalg.ldl_factor / ldl_solve: LAPACK's unblocked Bunch-Kaufman
factorization of a symmetric matrix (?sytf2, lower triangle: the 1x1/2x2 pivot choices with
alpha = (1 + sqrt 17) / 8, the first maximum on ties) and its solve (?sytrs).  NumPy has
neither and graphgrad's runtime has no SciPy; for n <= 64 LAPACK's blocked ?sytrf is this
same algorithm, so the pivots and factors are PyTorch's."""
from __future__ import annotations

import math

import numpy as np

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _cabs1(x):
    return abs(x.real) + abs(x.imag) if np.iscomplexobj(x) else abs(x)


def _argmax_abs(v):
    return int(np.argmax(np.abs(v.real) + np.abs(v.imag) if np.iscomplexobj(v) else np.abs(v)))


def _sytf2(a):
    """Factor one matrix in place (lower): returns (ipiv 1-based, info)."""
    n = a.shape[0]
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = _cabs1(a[k, k])
        if k < n - 1:
            imax = k + 1 + _argmax_abs(a[k + 1:, k])
            colmax = _cabs1(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0:
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + _argmax_abs(a[imax, k:imax])
                rowmax = _cabs1(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + _argmax_abs(a[imax + 1:, imax])
                    rowmax = max(rowmax, _cabs1(a[jmax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif _cabs1(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                t = a[kk + 1:kp, kk].copy()
                a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
                a[kp, kk + 1:kp] = t
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] += np.tril(np.outer(x, -d11 * x))   # (?syr's order)
                    a[k + 1:, k] = x * d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                    wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                    a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
                    a[j, k], a[j, k + 1] = wk, wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _ldl_factor_kernel(A):
    n = A.shape[-1]
    flat = np.array(A, copy=True).reshape((-1, n, n))
    piv = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for b in range(flat.shape[0]):
        piv[b], info[b] = _sytf2(flat[b])
        flat[b] = np.tril(flat[b])
    return (flat.reshape(A.shape), piv.reshape(A.shape[:-1]), info.reshape(A.shape[:-2]))


def _sytrs(a, ipiv, b):
    """Solve with one factored matrix (lower); ``b`` (n, k) is overwritten."""
    n = a.shape[0]
    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] = b[k] / a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2:] -= np.outer(a[k + 2:, k], b[k]) + np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / akm1k
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / akm1k
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= a[k + 1:, k] @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= a[k + 1:, k] @ b[k + 1:]
                b[k - 1] -= a[k + 1:, k - 1] @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _ldl_solve_kernel(LD, pivots, B):
    n = LD.shape[-1]
    batch = np.broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], B.shape[:-2])
    LDb = np.broadcast_to(LD, batch + LD.shape[-2:]).reshape((-1, n, n))
    Pb = np.broadcast_to(pivots, batch + pivots.shape[-1:]).reshape((-1, n))
    X = np.array(np.broadcast_to(B, batch + B.shape[-2:]), dtype=B.dtype).reshape(
        (-1,) + B.shape[-2:])
    for i in range(X.shape[0]):
        _sytrs(LDb[i], Pb[i], X[i])
    return X.reshape(batch + B.shape[-2:])
