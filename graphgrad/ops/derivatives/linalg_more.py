"""The table, linalg_more family: matrix_exp, pinv, the legacy cholesky, cholesky_solve and
cholesky_inverse.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/linalg_more.py, public functions in ops/api/linalg_more.py.  The rules are
FunctionsManual's (written with the table's ops, so they differentiate again).
"""
from __future__ import annotations

from .. import formulas as F
from ..registry import defop
from .linalg import _cholesky_vjp
from ..kernels.linalg_more import (
    _cholesky_inverse_kernel, _cholesky_legacy_kernel, _cholesky_solve_kernel, _matrix_exp_kernel, _pinv_kernel)


def _mm(a, b):
    return F.matmul(a, b)


# ---------------------------------------------------------------- matrix_exp
def _block_upper(P, G, n):
    """[[P, G], [0, P]] (2n x 2n, leading dims broadcast), built from pads so that it
    differentiates."""
    return (F.constant_pad_nd(P, (0, n, 0, n), 0) + F.constant_pad_nd(G, (n, 0, 0, n), 0)
            + F.constant_pad_nd(P, (n, 0, n, 0), 0))


def _exp_differential(P, G):
    """The top-right block of exp([[P, G], [0, P]]): the Frechet derivative of exp at P in
    direction G (PyTorch's linalg_matrix_exp_differential)."""
    n = F.shape(P)[-1]
    X = F.linalg_matrix_exp(_block_upper(P, G, n))
    return F.constant_pad_nd(X, (-n, 0, 0, -n), 0)


MATRIX_EXP = defop("linalg_matrix_exp(self)", _matrix_exp_kernel, "LinalgMatrixExpBackward0",
                   self=lambda grad, self: _exp_differential(F.mH(self), grad),
                   jvp=lambda self_t, self: _exp_differential(self, self_t),
                   batched_jvp=True)


# ---------------------------------------------------------------- pinv
def _pinv_vjp(grad, A, result):
    # gA = -X^H G X^H + (I - A X) G^H X X^H + X^H X G^H (I - X A), X = pinv(A), for the
    # constant-rank derivative (Golub & Pereyra); written without identities
    X, G = result, grad
    Xh, Gh = F.mH(X), F.mH(G)
    t1 = -_mm(_mm(Xh, G), Xh)
    GhXXh = _mm(Gh, _mm(X, Xh))
    t2 = GhXXh - _mm(_mm(A, X), GhXXh)
    XhXGh = _mm(_mm(Xh, X), Gh)
    t3 = XhXGh - _mm(XhXGh, _mm(X, A))
    return t1 + t2 + t3


def _pinv_jvp(A_t, A, result):
    # dX = -X dA X + X X^H dA^H (I - A X) + (I - X A) dA^H X^H X
    X = result
    Xh, Ath = F.mH(X), F.mH(A_t)
    t1 = -_mm(_mm(X, A_t), X)
    XXhAth = _mm(_mm(X, Xh), Ath)
    t2 = XXhAth - _mm(XXhAth, _mm(A, X))
    AthXhX = _mm(Ath, _mm(Xh, X))
    t3 = AthXhX - _mm(_mm(X, A), AthXhX)
    return t1 + t2 + t3


PINV = defop("linalg_pinv.atol_rtol_float(self, *, atol, rtol, hermitian)", _pinv_kernel,
             "LinalgPinvBackward0",
             self=lambda grad, self, result: _pinv_vjp(grad, self, result),
             jvp=lambda self_t, self, result: _pinv_jvp(self_t, self, result),
             batched_jvp=True)


# ---------------------------------------------------------------- cholesky (legacy)
# (no forward AD, as PyTorch's: its derivatives.yaml entry has no result formula)
CHOLESKY_LEGACY = defop("cholesky(self, *, upper)", _cholesky_legacy_kernel, "CholeskyBackward0",
                        self=lambda grad, result, upper: _cholesky_vjp(grad, result, upper))


# ---------------------------------------------------------------- cholesky_inverse / solve
def _lower(L, upper):
    return F.mH(L) if upper else L


def _cholesky_inverse_vjp(grad, self, result, upper):
    common = _mm(result, _mm(grad + F.mH(grad), result))
    return -_mm(self, common) if upper else -_mm(common, self)


def _cholesky_inverse_jvp(self_t, self, result, upper):
    L, L_t = _lower(self, upper), _lower(self_t, upper)
    K = _mm(L_t, F.mH(L))
    return -_mm(_mm(result, K + F.mH(K)), result)


CHOLESKY_INVERSE = defop("cholesky_inverse(self, *, upper)", _cholesky_inverse_kernel,
                         "CholeskyInverseBackward0",
                         self=_cholesky_inverse_vjp, jvp=_cholesky_inverse_jvp, batched_jvp=True)


def _cholesky_solve_input2_vjp(grad, input2, result, upper):
    gB = F.cholesky_solve(grad, input2, upper)
    common = _mm(gB, F.mH(result))
    common = common + F.mH(common)
    return -_mm(input2, common) if upper else -_mm(common, input2)


def _cholesky_solve_jvp(self_t, input2_t, input2, result, upper):
    L, L_t = _lower(input2, upper), _lower(input2_t, upper)
    K = _mm(L_t, F.mH(L))
    K = F.pad_batched(K + F.mH(K), F.ndim(input2), F.ndim(result))  # (batched tangents)
    return F.cholesky_solve(self_t - _mm(K, result), input2, upper)


CHOLESKY_SOLVE = defop("cholesky_solve(self, input2, *, upper)", _cholesky_solve_kernel,
                       "CholeskySolveBackward0",
                       self=lambda grad, input2, upper: F.cholesky_solve(grad, input2, upper),
                       input2=_cholesky_solve_input2_vjp,
                       jvp=_cholesky_solve_jvp, batched_jvp=True)
