"""The table, linalg_more family: matrix_exp, pinv, the legacy cholesky, cholesky_solve and
cholesky_inverse.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/linalg_more.py, public functions in ops/api/linalg_more.py.  The rules are
FunctionsManual's (written with the table's ops, so they differentiate again).
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import defop
from .linalg import _cholesky_vjp
from ..kernels.linalg_more import (
    _cholesky_inverse_kernel, _cholesky_legacy_kernel, _cholesky_solve_kernel, _eig_kernel,
    _lstsq_kernel,
    _matrix_exp_kernel, _pinv_kernel, _solve_triangular_kernel)


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


# ---------------------------------------------------------------- solve_triangular
def _tri_proj(X, upper, unitriangular):
    return F.triu(X, int(unitriangular)) if upper else F.tril(X, -int(unitriangular))


def _solve_triangular_gB(grad, A, upper, left, unitriangular):
    return F.linalg_solve_triangular(F.mH(A), grad, not upper, left, unitriangular)


def _solve_triangular_gA(grad, A, result, upper, left, unitriangular):
    gB = _solve_triangular_gB(grad, A, upper, left, unitriangular)
    gA = -_mm(gB, F.mH(result)) if left else -_mm(F.mH(result), gB)
    return _tri_proj(gA, upper, unitriangular)


def _solve_triangular_jvp(A_t, B_t, A, result, upper, left, unitriangular):
    P = F.pad_batched(_tri_proj(A_t, upper, unitriangular), F.ndim(A), F.ndim(result))
    X_t = B_t - (_mm(P, result) if left else _mm(result, P))
    return F.linalg_solve_triangular(A, X_t, upper, left, unitriangular)


SOLVE_TRIANGULAR = defop("linalg_solve_triangular(A, B, *, upper, left, unitriangular)",
                         _solve_triangular_kernel, "LinalgSolveTriangularBackward0",
                         vjp_order=("A", "B"),   # (PyTorch: one "self, B" formula)
                         A=_solve_triangular_gA, B=_solve_triangular_gB,
                         jvp=_solve_triangular_jvp, batched_jvp=True)


# ---------------------------------------------------------------- lstsq
def _pinv_of(A):
    return F.linalg_pinv_atol_rtol_float(A, None, None, False)


def _lstsq_vjp_A(grads, A, B, result, result1):
    gX, gR = grads[0], grads[1]
    X = _pinv_of(A)
    g = _pinv_vjp(_mm(gX, F.mH(B)), A, X)
    if F.shape(result1) != (0,):
        # residuals |A X - B|^2 per column, X optimal (its own variation drops out)
        g = g + 2 * _mm((_mm(A, result) - B) * F.unsqueeze(gR, -2), F.mH(result))
    return g


def _lstsq_vjp_B(grads, A, B, result, result1):
    gX, gR = grads[0], grads[1]
    g = _mm(F.mH(_pinv_of(A)), gX)
    if F.shape(result1) != (0,):
        g = g - 2 * (_mm(A, result) - B) * F.unsqueeze(gR, -2)
    return g


def _lstsq_jvp(A_t, B_t, A, B, result, result1):
    X = _pinv_of(A)
    X_t = _mm(_pinv_jvp(A_t, A, X), B) + _mm(X, B_t)
    if F.shape(result1) != (0,):
        R = _mm(A, result) - B
        R_t = _mm(A_t, result) - B_t
        res_t = 2 * F.real(F.conj(R) * R_t).sum(-2)
    else:
        res_t = F.zeros_like(result1)
    return X_t, res_t, None, None


LSTSQ = defop("linalg_lstsq(A, B, *, rcond, driver)", _lstsq_kernel, "LinalgLstsqBackward0",
              n_outputs=4, nondiff_outputs=(2, 3), vjp_order=("A", "B"),
              A=_lstsq_vjp_A, B=_lstsq_vjp_B, jvp=_lstsq_jvp, batched_jvp=True)


# ---------------------------------------------------------------- eig
def _eye_c(x):
    n = F.shape(x)[-1]
    e = np.eye(n, dtype=_np(x).dtype)
    return Tensor._wrap(e) if isinstance(x, Tensor) else e


def _np(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _eig_vjp(grads, self, result, result1):
    gL, gV = grads
    L, V = result, result1
    VhgV = _mm(F.mH(V), gV)
    diag = F.diagonal(VhgV, 0, -2, -1)
    im = np.imag(_np(diag))
    if not np.allclose(im, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are "
                           "specified up to multiplication by e^{i phi}. The specified loss "
                           "function depends on this quantity, so it is ill-defined. [use a "
                           "loss of |V| or of the eigenvalues only]")
    VhgV = VhgV - _mm(F.mH(V), V * F.unsqueeze(F.real(diag), -2))
    Lc = F.conj(L)
    eye = _eye_c(VhgV)
    E = F.unsqueeze(Lc, -2) - F.unsqueeze(Lc, -1) + eye
    gA = VhgV / E * (1 - eye) + F.diag_embed(gL, 0, -2, -1)
    gA = F.linalg_solve_ex(F.mH(V), _mm(gA, F.mH(V)), True, False)
    return gA if F.is_complex(self) else F.real(gA)


def _eig_jvp(self_t, self, result, result1):
    L, V = result, result1
    dA = self_t if F.is_complex(self_t) else F.cast(self_t, _np(V).dtype)
    dP = F.linalg_solve_ex(V, _mm(dA, V), True, False)
    dL = F.diagonal(dP, 0, -2, -1)
    eye = _eye_c(dP)
    E = F.unsqueeze(L, -2) - F.unsqueeze(L, -1) + eye
    dV = _mm(V, dP / E * (1 - eye))
    dV = dV - V * F.unsqueeze(F.real(F.diagonal(_mm(F.mH(V), dV), 0, -2, -1)), -2)
    return dL, dV


EIG = defop("linalg_eig(self)", _eig_kernel, "LinalgEigBackward0", n_outputs=2,
            self=_eig_vjp, jvp=_eig_jvp, batched_jvp=True)
