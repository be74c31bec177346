"""The table, linalg family: matrix products, einsum, diagonals/triangles, decompositions,
norms, cdist.

Only entries and their rule helpers (vocabulary: ops/derivatives/__init__.py); kernels in
ops/kernels/linalg.py, public functions in ops/api/linalg.py.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from .. import formulas as F
from ..registry import LINEAR, defop
from ..kernels.linalg import (
    _bmm, _cdist_kernel, _cholesky_kernel, _diag_embed_kernel, _diag_view,
    _diagonal_backward_kernel, _dot, _eigh_kernel, _einsum1_kernel, _einsum2_kernel,
    _einsum_expand_kernel, _inv_kernel, _mm, _mm_kernel, _mv, _qr_kernel, _slogdet_kernel,
    _solve_kernel, _svd_kernel, _trace_kernel, _vdot_kernel)


_ndarray = np.ndarray
_np_matmul = np.matmul


def _mm_self_vjp(grad, mat2):
    """``grad @ mat2^H``; a real ndarray product goes straight to the gemm (a batched
    ``grad`` broadcasts over its leading dims)."""
    if grad.__class__ is _ndarray and mat2.__class__ is _ndarray and \
            mat2.dtype.kind != "c":
        if grad.ndim > 2:  # batched (vmap, vectorized jacobian/hessian): its rows stacked
            # into one gemm, where NumPy's matmul would loop over one small product per
            # batch entry (W4's (200, 1, 200) gradient: 2 ms -> 0.1 ms)
            lead = grad.shape[:-1]
            return _np_matmul(grad.reshape(-1, grad.shape[-1]), mat2.T).reshape(
                lead + (mat2.shape[0],))
        return _np_matmul(grad, mat2.T)  # (F._gemm without its frame)
    return F.matmul(grad, F.tH(mat2))


def _mm_mat2_vjp(grad, self):
    """``self^H @ grad`` (the transpose is a view: BLAS reads it as is, no copy; a batched
    ``grad`` broadcasts over its leading dims)."""
    if grad.__class__ is _ndarray and self.__class__ is _ndarray and \
            self.dtype.kind != "c":
        return _np_matmul(self.T, grad)
    return F.matmul(F.tH(self), grad)


def _product_jvp(f, a_t, b_t, a, b):
    """f(a_t, b) + f(a, b_t) for a product f; an operand without a tangent adds nothing
    (PyTorch's ZeroTensor: an inf or NaN in the other operand does not make it NaN). Only
    dot's: PyTorch's mm/mv/bmm tangents compute both terms (NaN there)."""
    if F.absent(b_t):
        return F.plus(f(a_t, b), _reduced(F.absent_term(a)))
    if F.absent(a_t):
        return F.plus(f(a, b_t), _reduced(F.absent_term(b)))
    return f(a_t, b) + f(a, b_t)


def _reduced(z):
    """dot's absent term: its zeros (an operand's shape) summed to the 0-d result's shape,
    so that the tangent keeps the output's shape."""
    return None if z is None else z.sum()


MM = defop("mm(self, mat2)", _mm_kernel, "MmBackward0", promote=True,
           self=_mm_self_vjp, mat2=_mm_mat2_vjp,
           jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2) + F.matmul(self, mat2_t),
           batched_jvp=True)
BMM = defop("bmm(self, mat2)", _bmm, "BmmBackward0", promote=True,
            self=lambda grad, mat2: F.matmul(grad, F.mH(mat2)),
            mat2=lambda grad, self: F.matmul(F.mH(self), grad),
            jvp=lambda self_t, mat2_t, self, mat2: F.matmul(self_t, mat2)
                + F.matmul(self, mat2_t), batched_jvp=True)
MV = defop("mv(self, vec)", _mv, "MvBackward0", promote=True,
           self=lambda grad, vec: F.unsqueeze_last(grad) * F.conj(vec),
           vec=lambda grad, self: F.matmul(grad, F.conj(self)),
           jvp=lambda self_t, vec_t, self, vec: F.matmul(self_t, vec) + F.matmul(self, vec_t),
           batched_jvp=lambda self_t, vec_t, self, vec:
               F.matmul(self_t, vec) + F.matmul(vec_t, F.mT(self)))
DOT = defop("dot(self, tensor)", _dot, "DotBackward0", promote=True,
            self=lambda grad, tensor: F.unsqueeze_last(grad) * F.conj(tensor),
            tensor=lambda grad, self: F.unsqueeze_last(grad) * F.conj(self),
            jvp=lambda self_t, tensor_t, self, tensor: _product_jvp(F.dot, self_t, tensor_t,
                                                                    self, tensor),
            batched_jvp=lambda self_t, tensor_t, self, tensor:
                F.matmul(self_t, tensor) + F.matmul(tensor_t, self))


# in-place ``squeeze_(0)`` of a fresh (1, m) mm result, for 1-D @ 2-D (not a view)
_MM_SQUEEZE = defop("_matmul_squeeze_(self)", lambda a: a[0], "SqueezeBackward4",
                    self=lambda grad: F.unsqueeze(grad, -2), jvp=LINEAR,
                    batched_jvp=lambda self_t: F.select(self_t, -2, 0))


# ====================================================================== helpers
def _np(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _lift(arr, like):
    """A constant ndarray, as a Tensor when the rule runs on Tensors (create_graph / fw AD)."""
    return Tensor._wrap(np.asarray(arr)) if isinstance(like, Tensor) else arr


def _is_complex(x):
    return _np(x).dtype.kind == "c"


def _eye_like(x):
    """The identity of the trailing (n, n) of ``x`` in its real dtype (ndarray or Tensor)."""
    d = _np(x)
    return _lift(np.eye(d.shape[-1], dtype=np.empty(0, d.dtype).real.dtype), x)


def _off_diag_inv(e):
    """``1 / e`` off the diagonal and 0 on it, for ``e`` that is 0 on the diagonal (smooth)."""
    eye = _eye_like(e)
    return (1 - eye) / (e + eye)


def _u2(x):
    """(...,) -> (..., 1, 1): a batch of scalars against a batch of matrices."""
    return F.unsqueeze(F.unsqueeze(x, -1), -1)


def _i_im(z):
    """``1j * imag(z)`` (0 for real z), written with conj so it differentiates."""
    return (z - F.conj(z)) * 0.5


def _diag(x):
    return F.diagonal(x, 0, -2, -1)


def _diagm(v):
    return F.diag_embed(v, 0, -2, -1)


def _trace(x):
    """Batched trace of the last two dims."""
    return F.einsum(x, ("ii", ""))


# ====================================================================== products
VDOT = defop("vdot(self, other)", _vdot_kernel, "VdotBackward0",
             self=lambda grad, other: F.unsqueeze_last(F.conj(grad)) * other,
             other=lambda grad, self: F.unsqueeze_last(grad) * self,
             jvp=lambda self_t, other_t, self, other: F.vdot(self_t, other)
                 + F.vdot(self, other_t),
             batched_jvp=lambda self_t, other_t, self, other:
                 F.matmul(F.conj(self_t), other) + F.matmul(other_t, F.conj(self)))


# ====================================================================== einsum
def _einsum2_grad(grad, y, lo, ly, lx, x_sizes):
    """Gradient for operand x of einsum2(x[lx], y[ly] -> lo)."""
    ux = "".join(u for u in dict.fromkeys(lx) if u in lo or u in ly)
    r = F.einsum2(grad, F.conj(y), (lo, ly, ux))
    if ux != lx:
        r = F.einsum_expand(r, (ux, lx), x_sizes)
    return r


EINSUM = defop("einsum(self, *, labels)", _einsum1_kernel, "EinsumBackward0",
               self=lambda grad, self_sym_sizes, labels:
                   F.einsum_expand(grad, (labels[1], labels[0]), self_sym_sizes),
               jvp=LINEAR, batched_jvp=True)
EINSUM_EXPAND = defop("einsum_expand(grad, *, labels, sizes)", _einsum_expand_kernel,
                      "EinsumBackwardBackward0",
                      grad=lambda grad, labels: F.einsum(grad, (labels[1], labels[0])),
                      jvp=LINEAR, batched_jvp=True)
EINSUM2 = defop("einsum2(self, other, *, labels)", _einsum2_kernel, "EinsumBackward0",
                self=lambda grad, other, self_sym_sizes, labels: _einsum2_grad(
                    grad, other, labels[2], labels[1], labels[0], self_sym_sizes),
                other=lambda grad, self, other_sym_sizes, labels: _einsum2_grad(
                    grad, self, labels[2], labels[0], labels[1], other_sym_sizes),
                jvp=lambda self_t, other_t, self, other, labels:
                    F.einsum2(self_t, other, labels) + F.einsum2(self, other_t, labels),
                batched_jvp=True)


# ====================================================================== diagonals, triangles
def _rdim(dim, nd):
    """``dim`` of an ``nd``-dim tensor counted from the end (batch-safe)."""
    return dim - nd if dim >= 0 else dim


def _diagonal_batched(self_t, self_sym_sizes, offset, dim1, dim2):
    nd = len(self_sym_sizes)
    return F.diagonal(self_t, offset, _rdim(dim1, nd), _rdim(dim2, nd))


def _diagonal_vjp(grad, self_sym_sizes, offset, dim1, dim2):
    return F.diagonal_backward(grad, tuple(self_sym_sizes), offset, dim1, dim2)


DIAGONAL = defop("diagonal(self, *, offset, dim1, dim2)", _diag_view, "DiagonalBackward0",
                 is_view=True, self=_diagonal_vjp, jvp=LINEAR, batched_jvp=_diagonal_batched)
DIAGONAL_COPY = defop("diagonal_copy(self, *, offset, dim1, dim2)",
                      lambda a, offset, dim1, dim2: _diag_view(a, offset, dim1, dim2).copy(),
                      "DiagonalBackward0_copy", self=_diagonal_vjp, jvp=LINEAR,
                      batched_jvp=_diagonal_batched)
DIAGONAL_BACKWARD = defop("diagonal_backward(grad, *, sizes, offset, dim1, dim2)",
                          _diagonal_backward_kernel, "DiagonalBackwardBackward0",
                          grad=lambda grad, offset, dim1, dim2:
                              F.diagonal(grad, offset, dim1, dim2),
                          jvp=LINEAR,
                          batched_jvp=lambda grad_t, sizes, offset, dim1, dim2:
                              F.diagonal_backward(grad_t, sizes, offset, _rdim(dim1, len(sizes)),
                                                  _rdim(dim2, len(sizes))))
DIAG_EMBED = defop("diag_embed(self, *, offset, dim1, dim2)", _diag_embed_kernel,
                   "DiagEmbedBackward0",
                   self=lambda grad, offset, dim1, dim2: F.diagonal(grad, offset, dim1, dim2),
                   jvp=LINEAR,
                   batched_jvp=lambda self_t, self_sym_sizes, offset, dim1, dim2:
                       F.diag_embed(self_t, offset, _rdim(dim1, len(self_sym_sizes) + 1),
                                    _rdim(dim2, len(self_sym_sizes) + 1)))


def _trace_vjp(grad, self_sym_sizes):
    k = min(self_sym_sizes[-2:])
    g = F.expand(F.unsqueeze_last(grad), F.shape(grad) + (k,))
    return F.diagonal_backward(g, tuple(self_sym_sizes), 0, -2, -1)


TRACE = defop("trace(self)", _trace_kernel,
              "TraceBackward0", self=_trace_vjp, jvp=LINEAR, batched_jvp=True)
TRIL = defop("tril(self, *, diagonal)", lambda a, diagonal: np.tril(a, diagonal), "TrilBackward0",
             self=lambda grad, diagonal: F.tril(grad, diagonal), jvp=LINEAR, batched_jvp=True)
TRIU = defop("triu(self, *, diagonal)", lambda a, diagonal: np.triu(a, diagonal), "TriuBackward0",
             self=lambda grad, diagonal: F.triu(grad, diagonal), jvp=LINEAR, batched_jvp=True)


# ====================================================================== decompositions
INV = defop("linalg_inv_ex(A)", _inv_kernel, "LinalgInvExBackward0",
            A=lambda grad, result: -_mm(_mm(F.mH(result), grad), F.mH(result)),
            jvp=lambda A_t, result: -_mm(_mm(result, A_t), result), batched_jvp=True)


# ---------------------------------------------------------------- det, slogdet
def _adjugate_np(A):
    """adj(A) = det(A) A^{-1}, valid for singular A too (through the SVD)."""
    U, S, Vh = np.linalg.svd(A)
    n = S.shape[-1]
    P = np.stack([np.prod(np.delete(S, i, axis=-1), axis=-1) for i in range(n)], -1)
    c = np.linalg.det(U) * np.linalg.det(Vh)
    return c[..., None, None] * ((np.conj(np.swapaxes(Vh, -1, -2)) * P[..., None, :])
                                 @ np.conj(np.swapaxes(U, -1, -2)))


def _singular(result):
    return not np.all(_np(result) != 0)


def _det_vjp(grad, A, result):
    if _singular(result):
        # the gradient of det is adj(A)^H: finite at singular matrices, where A^{-1} is not
        if isinstance(A, Tensor):
            raise NotImplementedError(
                "linalg.det: double backward (create_graph=True) at an exactly singular matrix "
                "is not implemented; perturb the matrix or differentiate once")
        return _u2(grad) * F.mH(_adjugate_np(A))
    return _u2(grad * F.conj(result)) * F.mH(F.linalg_inv_ex(A))


def _det_jvp(A_t, A, result):
    if _singular(result):
        if A._requires_grad:
            raise NotImplementedError("linalg.det: forward-over-reverse AD at an exactly singular "
                                      "matrix is not implemented")
        return _trace(_mm(_lift(_adjugate_np(A._data), A), A_t))
    return result * _trace(F.linalg_solve_ex(A, A_t, True, False))


DET = defop("linalg_det(A)", lambda A: np.asarray(np.linalg.det(A)), "LinalgDetBackward0",
            A=_det_vjp, jvp=_det_jvp, batched_jvp=True)


def _slogdet_vjp(grads, A, result):
    # d logabsdet = Re t, d sign = sign * i Im t, with t = tr(A^{-1} dA)
    g_sign, g_log = grads
    if _singular(result):
        raise RuntimeError("linalg.slogdet: the gradient at a singular matrix (logabsdet = -inf) "
                           "is infinite; regularize the matrix (e.g. add eps * I) first")
    w = g_log
    if _is_complex(A):
        w = g_log - 1j * F.real(F.conj(g_sign) * result * -1j)
    return _u2(w) * F.mH(F.linalg_inv_ex(A))


def _slogdet_jvp(A_t, A, result):
    t = _trace(F.linalg_solve_ex(A, A_t, True, False))
    sign_t = result * _i_im(t) if _is_complex(A) else F.zeros_like(result)
    return sign_t, F.real(t)


SLOGDET = defop("linalg_slogdet(A)", _slogdet_kernel, "LinalgSlogdetBackward0", n_outputs=2,
                A=_slogdet_vjp, jvp=_slogdet_jvp, batched_jvp=True)


# ---------------------------------------------------------------- solve
def _solve_vjp_B(grad, A, left, vector):
    return F.linalg_solve_ex(F.mH(A), grad, left, vector)


def _solve_vjp_A(grad, A, result, left, vector):
    gB = _solve_vjp_B(grad, A, left, vector)
    X = F.conj(result)
    if vector:
        return -(F.unsqueeze(gB, -1) * F.unsqueeze(X, -2) if left
                 else F.unsqueeze(X, -1) * F.unsqueeze(gB, -2))
    return -(_mm(gB, F.mT(X)) if left else _mm(F.mT(X), gB))


def _solve_jvp(A_t, B_t, A, result, left, vector):
    if vector:
        AX = F.einsum2(A_t, result, ("ij", "j", "i") if left else ("ji", "j", "i"))
    else:
        AX = _mm(A_t, result) if left else _mm(result, A_t)
    return F.linalg_solve_ex(A, B_t - AX, left, vector)


def _solve_jvp_batched(A_t, B_t, A, B, result, left, vector):
    # A and B broadcast over their batch dims: pad the tangents (their leading dims are the
    # tangents' batch) to the result's batch rank first
    nb = F.ndim(result) - (1 if vector else 2)
    A_t = F.pad_batched(A_t, F.ndim(A), nb + 2)
    B_t = F.pad_batched(B_t, F.ndim(B), F.ndim(result))
    return _solve_jvp(A_t, B_t, A, result, left, vector)


SOLVE = defop("linalg_solve_ex(A, B, *, left, vector)", _solve_kernel, "LinalgSolveExBackward0",
              A=_solve_vjp_A, B=_solve_vjp_B, jvp=_solve_jvp, batched_jvp=_solve_jvp_batched)


# ---------------------------------------------------------------- cholesky
def _phi(X):
    """The lower triangle of X with its diagonal halved."""
    return F.tril(X, -1) + 0.5 * _diagm(_diag(X))


def _cholesky_vjp(grad, result, upper):
    # A = L L^H, L^{-1} dA L^{-H} = phi(...) + phi(...)^H: gA = L^{-H} P L^{-1} with
    # T = tril(L^H gL), P = (T + tril(T, -1)^H) / 2 (PyTorch's representative of the gradient
    # on Hermitian perturbations)
    L, gL = (F.mH(result), F.mH(grad)) if upper else (result, grad)
    Linv = F.linalg_inv_ex(L)
    T = F.tril(_mm(F.mH(L), gL), 0)
    P = 0.5 * (T + F.mH(F.tril(T, -1)))
    return _mm(_mm(F.mH(Linv), P), Linv)


def _cholesky_jvp(A_t, result, upper):
    L = F.mH(result) if upper else result
    Linv = F.linalg_inv_ex(L)
    L_t = _mm(L, _phi(_mm(_mm(Linv, A_t), F.mH(Linv))))
    return F.mH(L_t) if upper else L_t


CHOLESKY = defop("linalg_cholesky_ex(A, *, upper)", _cholesky_kernel,
                 "LinalgCholeskyExBackward0", A=_cholesky_vjp, jvp=_cholesky_jvp, batched_jvp=True)


# ---------------------------------------------------------------- qr
def _qr_check_diff(Q, R, mode):
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr.")
    m, n = F.shape(Q)[-2], F.shape(R)[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    return m, n


def _copyltu(M):
    """Hermitian matrix from the strict lower triangle of M and the real part of its diagonal."""
    low = F.tril(M, -1)
    D = _diagm(_diag(M))
    return low + F.mH(low) + 0.5 * (D + F.conj(D))


def _qr_vjp_tall(gQ, gR, Q, R):
    # m >= n: gA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}
    N = _copyltu(_mm(R, F.mH(gR)) - _mm(F.mH(gQ), Q))
    return F.linalg_solve_ex(F.mH(R), gQ + _mm(Q, N), False, False)


def _qr_vjp(grads, result, result1, mode):
    Q, R = result, result1
    gQ, gR = grads
    m, n = _qr_check_diff(Q, R, mode)
    if m >= n:
        return _qr_vjp_tall(gQ, gR, Q, R)
    # wide: A = [X | Y] with X = Q R1 square and Y = Q R2
    sizes = F.shape(R)[:-2] + (m, n)
    R1, R2 = F.slice(R, -1, 0, m, 1), F.slice(R, -1, m, n, 1)
    gR1, gR2 = F.slice(gR, -1, 0, m, 1), F.slice(gR, -1, m, n, 1)
    gX = _qr_vjp_tall(gQ + _mm(_mm(Q, R2), F.mH(gR2)), gR1, Q, R1)
    gY = _mm(Q, gR2)
    return F.slice_backward(gX, sizes, -1, 0, m, 1) + F.slice_backward(gY, sizes, -1, m, n, 1)


def _qr_jvp_tall(A_t, Q, R):
    AR = F.linalg_solve_ex(R, A_t, False, False)           # A_t R^{-1}
    X = _mm(F.mH(Q), AR)
    low = F.tril(X, -1)
    D = _diagm(_diag(X))
    XC = X - (low - F.mH(low) + 0.5 * (D - F.conj(D)))     # X - Q^H dQ
    return AR - _mm(Q, XC), _mm(XC, R)


def _qr_jvp(A_t, result, result1, mode):
    Q, R = result, result1
    m, n = _qr_check_diff(Q, R, mode)
    if m >= n:
        return _qr_jvp_tall(A_t, Q, R)
    sizes = F.shape(R)
    R1, R2 = F.slice(R, -1, 0, m, 1), F.slice(R, -1, m, n, 1)
    Q_t, R1_t = _qr_jvp_tall(F.slice(A_t, -1, 0, m, 1), Q, R1)
    R2_t = _mm(F.mH(Q_t), _mm(Q, R2)) + _mm(F.mH(Q), F.slice(A_t, -1, m, n, 1))
    return Q_t, (F.slice_backward(R1_t, sizes, -1, 0, m, 1)
                 + F.slice_backward(R2_t, sizes, -1, m, n, 1))


QR = defop("linalg_qr(A, *, mode)", _qr_kernel, "LinalgQrBackward0", n_outputs=2,
           A=_qr_vjp, jvp=_qr_jvp, batched_jvp=True)


# ---------------------------------------------------------------- eigh
def _eigh_vjp(grads, result, result1):
    # gA = V (diag(gL) + (V^H gV) / (L_j - L_i)) V^H  (distinct eigenvalues)
    gL, gV = grads
    L, V = result, result1
    Fm = _off_diag_inv(F.unsqueeze(L, -2) - F.unsqueeze(L, -1))
    inner = _diagm(gL) + Fm * _mm(F.mH(V), gV)
    return _mm(_mm(V, inner), F.mH(V))


def _eigh_jvp(A_t, result, result1):
    L, V = result, result1
    K = _mm(_mm(F.mH(V), A_t), V)
    Fm = _off_diag_inv(F.unsqueeze(L, -2) - F.unsqueeze(L, -1))
    return F.real(_diag(K)), _mm(V, Fm * K)


EIGH = defop("linalg_eigh(A, *, UPLO)", _eigh_kernel, "LinalgEighBackward0", n_outputs=2,
             A=_eigh_vjp, jvp=_eigh_jvp, batched_jvp=True)


# ---------------------------------------------------------------- svd
def _svd_vjp(grads, result, result1, result2, full_matrices):
    gU, gS, gVh = grads
    U, S, Vh = result, result1, result2
    m, n = F.shape(U)[-2], F.shape(Vh)[-1]
    k = min(m, n)
    if full_matrices and m != n:
        # only the first k columns of U / rows of Vh are determined by A (as PyTorch does)
        U, gU = F.slice(U, -1, 0, k, 1), F.slice(gU, -1, 0, k, 1)
        Vh, gVh = F.slice(Vh, -2, 0, k, 1), F.slice(gVh, -2, 0, k, 1)
    V, gV = F.mH(Vh), F.mH(gVh)
    X = _mm(F.mH(U), gU)
    Y = _mm(Vh, gV)
    S2 = S * S
    Fm = _off_diag_inv(F.unsqueeze(S2, -2) - F.unsqueeze(S2, -1))   # 1 / (s_j^2 - s_i^2)
    Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    inner = Fm * (X - F.mH(X)) * Sr + Sc * (Fm * (Y - F.mH(Y))) + _diagm(gS)
    if _is_complex(U):
        inner = inner + _diagm(_i_im(_diag(X)) / S)
    gA = _mm(_mm(U, inner), Vh)
    if m > k:
        gA = gA + _mm((gU - _mm(U, X)) / Sr, Vh)
    if n > k:
        gA = gA + _mm(U / Sr, F.mH(gV - _mm(V, Y)))
    return gA


def _svd_jvp(A_t, result, result1, result2, full_matrices):
    U, S, Vh = result, result1, result2
    m, n = F.shape(U)[-2], F.shape(Vh)[-1]
    k = min(m, n)
    full = full_matrices and m != n
    if full:
        # as PyTorch: tangents of the first k vectors; the extra (non-unique) ones get zero,
        # the adjoint of the VJP ignoring their cotangents
        U_sizes, Vh_sizes = F.shape(U), F.shape(Vh)
        U, Vh = F.slice(U, -1, 0, k, 1), F.slice(Vh, -2, 0, k, 1)
    V = F.mH(Vh)
    dP = _mm(_mm(F.mH(U), A_t), V)
    Fm = _off_diag_inv(F.unsqueeze(S * S, -2) - F.unsqueeze(S * S, -1))
    Sr, Sc = F.unsqueeze(S, -2), F.unsqueeze(S, -1)
    dPS, SdP = dP * Sr, Sc * dP
    OU = Fm * (dPS + F.mH(dPS))
    OV = Fm * (SdP + F.mH(SdP))
    if _is_complex(U):
        OU = OU + _diagm(_i_im(_diag(dP)) / S)
    dU, dV = _mm(U, OU), _mm(V, OV)
    if m > k:
        dU = dU + (_mm(A_t, V) - _mm(U, dP)) / Sr
    if n > k:
        dV = dV + (_mm(F.mH(A_t), U) - _mm(V, F.mH(dP))) / Sr
    dVh = F.mH(dV)
    if full:
        dU = F.slice_backward(dU, U_sizes, -1, 0, k, 1)
        dVh = F.slice_backward(dVh, Vh_sizes, -2, 0, k, 1)
    return dU, F.real(_diag(dP)), dVh


SVD = defop("linalg_svd(A, *, full_matrices)", _svd_kernel, "LinalgSvdBackward0", n_outputs=3,
            A=_svd_vjp, jvp=_svd_jvp, batched_jvp=True)


# ============================================================ cdist
def _cdist_diff(x1, x2):
    s1, s2 = F.shape(x1), F.shape(x2)
    return F.reshape(x1, tuple(s1[:-1]) + (1, s1[-1])) - \
        F.reshape(x2, tuple(s2[:-2]) + (1,) + tuple(s2[-2:]))


def _cdist_weight(x1, x2, result, p):
    """d result / d (x1_i - x2_j), per coordinate: shape (..., P, R, M); None for p == 0."""
    if p == 0:
        return None
    diff = _cdist_diff(x1, x2)
    if p == 1:
        return F.sign(diff)
    dist = F.reshape(result, tuple(F.shape(result)) + (1,))
    if p == np.inf:
        return F.where(F.abs(diff) == dist, F.sign(diff), 0.0)
    zero = dist == 0
    if p < 1:
        zero = zero | (diff == 0)
    safe_dist = F.where(zero, 1.0, dist)
    if p == 2:
        return F.where(zero, 0.0, diff / safe_dist)
    absd = F.where(zero, 1.0, F.abs(diff))
    return F.where(zero, 0.0, F.sign(diff) * (absd / safe_dist) ** (p - 1))


def _sum_axis(x, from_end):
    return F.sum_dim_IntList(x, (F.ndim(x) - from_end,), False, None)


def _cdist_vjp(which):
    def rule(grad, x1, x2, result, p, x1_sym_sizes, x2_sym_sizes):
        w = _cdist_weight(x1, x2, result, p)
        sizes = x1_sym_sizes if which == 1 else x2_sym_sizes
        if w is None:
            return F.zeros_like(x1 if which == 1 else x2)
        gw = F.reshape(grad, tuple(F.shape(grad)) + (1,)) * w
        g = _sum_axis(gw, 2) if which == 1 else -_sum_axis(gw, 3)
        return F.sum_to(g, sizes, F.ndim(result))
    return rule


def _cdist_jvp(x1_t, x2_t, x1, x2, result, p):
    w = _cdist_weight(x1, x2, result, p)
    if w is None:
        return F.zeros_like(result)
    return _sum_axis(w * _cdist_diff(x1_t, x2_t), 1)


def _cdist_batched_jvp(x1_t, x2_t, x1, x2, result, p, x1_sym_sizes, x2_sym_sizes):
    # each tangent's own dims padded to the broadcast rank, so that their leading batch
    # dims line up (broadcast batch dims + P/R + M)
    nd = F.ndim(result)
    return _cdist_jvp(F.pad_batched(x1_t, len(x1_sym_sizes), nd),
                      F.pad_batched(x2_t, len(x2_sym_sizes), nd), x1, x2, result, p)


CDIST = defop("_cdist_forward(x1, x2, *, p)", _cdist_kernel, "CdistBackward0",
              x1=_cdist_vjp(1), x2=_cdist_vjp(2), jvp=_cdist_jvp,
              batched_jvp=_cdist_batched_jvp)
