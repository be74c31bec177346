"""What LAPACK returns where a factorization fails, for the ``linalg.*_ex`` functions: NumPy
raises on the whole batch, PyTorch returns the failed matrices' partial results and
LAPACK's ``info`` per matrix.

- solve / inv of a singular matrix: getrf + getrs, i.e. LU with partial pivoting
  (linalg_lu's getf2) and substitution, whose zero pivot gives inf/nan; ``info`` is the
  1-based index of U's first zero pivot.
- cholesky of a matrix that is not positive-definite: potf2's left-looking columns up to
  the first pivot that is not positive (or is NaN), which is stored unrooted; the columns
  after it keep A's lower triangle; ``info`` is the order of that leading minor.

The matrices that do factor are left to NumPy's LAPACK call, so their values are those of
the call that did not fail.
"""
from __future__ import annotations

import numpy as np

from .linalg_lu import _lu_factor_kernel


def _flat(A):
    return A.reshape((-1,) + A.shape[-2:])


def triangular_substitute(T, B, upper, unit=False):
    """X with T X = B for triangular ``T`` (..., n, n) (the triangle named by ``upper`` is
    read; ``unit``: its diagonal taken as ones) and ``B`` (..., n, k), by rows: a zero on
    the diagonal gives inf/nan, as LAPACK's trsm (which never checks it)."""
    batch = np.broadcast_shapes(T.shape[:-2], B.shape[:-2])
    T3 = _flat(np.broadcast_to(T, batch + T.shape[-2:]))
    x = np.array(_flat(np.broadcast_to(B, batch + B.shape[-2:])),
                 dtype=np.result_type(T, B), copy=True)
    n = T.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            if (i + 1 < n) if upper else i:
                x[:, i] -= np.sum(T3[:, i, done, None] * x[:, done], axis=1)
            if not unit:
                x[:, i] /= T3[:, i, i, None]
    return x.reshape(batch + B.shape[-2:])


def _substitute(LU, piv, B):
    """X with P L U X = B from getf2's packed factors (inf/nan past a zero pivot, as
    LAPACK's getrs)."""
    x = np.array(B, dtype=np.result_type(LU, B), copy=True)
    rows = np.arange(x.shape[0])
    for j in range(LU.shape[-1]):          # the row interchanges, in order
        p = piv[:, j] - 1
        top = x[rows, j].copy()
        x[rows, j] = x[rows, p]
        x[rows, p] = top
    return triangular_substitute(LU, triangular_substitute(LU, x, False, unit=True), True)


def solve_singular(A, B):
    """``A X = B`` for matrices ``A`` (..., n, n) and ``B`` (..., n, k) of which some are
    singular: NumPy's solve for those that factor, LU substitution for the others."""
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A3 = _flat(np.broadcast_to(A, batch + A.shape[-2:]))
    B3 = _flat(np.broadcast_to(B, batch + B.shape[-2:]))
    LU, piv, info = _lu_factor_kernel(A3)
    X = np.empty(B3.shape, np.result_type(A3, B3))
    ok = info == 0
    if ok.any():
        try:
            X[ok] = np.linalg.solve(A3[ok], B3[ok])
        except np.linalg.LinAlgError:      # NumPy's blocked getrf met a zero pivot getf2 did not
            ok[:] = False
    bad = ~ok
    X[bad] = _substitute(LU[bad], piv[bad], B3[bad])
    return X.reshape(batch + B.shape[-2:])


def _potf2(A3):
    """potf2 (lower) on each matrix: the factor, with the first failed pivot stored
    unrooted and the columns after it as A's; and info."""
    a = np.tril(A3)
    nb, n = a.shape[0], a.shape[-1]
    info = np.zeros(nb, np.int32)
    live = np.ones(nb, bool)
    for j in range(n):
        row = a[:, j, :j]
        ajj = a[:, j, j].real - np.sum((np.conj(row) * row).real, axis=-1)
        failed = live & ~(ajj > 0)
        a[failed, j, j] = ajj[failed]
        info[failed] = j + 1
        live &= ~failed
        if not live.any():
            break
        k = np.flatnonzero(live)
        root = np.sqrt(ajj[k])
        a[k, j, j] = root
        if j + 1 < n:
            col = a[k, j + 1:, j] - np.einsum("bij,bj->bi", a[k, j + 1:, :j], np.conj(row[k]))
            a[k, j + 1:, j] = col * (1.0 / root)[:, None]
    return a, info


def cholesky_partial(A):
    """The lower Cholesky factors of ``A`` (..., n, n) of which some are not
    positive-definite: NumPy's for those that are, potf2's partial result for the others."""
    A3 = _flat(A)
    L, info = _potf2(A3)
    ok = info == 0
    if ok.any():
        try:
            L[ok] = np.linalg.cholesky(A3[ok])
        except np.linalg.LinAlgError:      # a pivot within rounding of zero: keep potf2's
            pass
    return L.reshape(A.shape)

