"""torch.linalg functions graphgrad lacked: solve_triangular and lstsq (table entries with
PyTorch's nodes), matrix_rank, cond, tensorinv and tensorsolve (PyTorch's compositions).
"""
from __future__ import annotations

import math

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core.dtypes import scalar_type_name
from ..._core.opmath import BFLOAT16
from ..dispatch import dispatch
from ..registry import export_linalg
from ..interpose import interposable
from ... import return_types as _rt
from .conversion import _write_out
from ..._tensor.creation import zeros as _zeros
from ...autograd.grad_mode import no_grad as _no_grad
from .linalg_decompositions import inv, matrix_norm, solve, svdvals
from .linalg_more import _low_precision
from ..derivatives.linalg_more import EIG, LSTSQ, SOLVE_TRIANGULAR


def _need(name, x, argname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' must be Tensor, not "
                        f"{type(x).__name__}")




@export_linalg("solve_triangular")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``) for a triangular A
    (only its ``upper`` or lower triangle is read; ``unitriangular``: its diagonal taken as
    ones)."""
    name = "linalg.solve_triangular"
    _need(name, A, "A")
    _need(name, B, "B")
    for t, n in ((A, "A"), (B, "B")):
        if t._data.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor {n} must have at least 2 "
                               "dimensions.")
    a, b = A._data, B._data
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    k = b.shape[-2] if left else b.shape[-1]
    if k != a.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    _low_precision(name, "triangular_solve_cpu", A)
    if b.dtype != a.dtype:
        B = B.to(A.dtype)
    r = dispatch(SOLVE_TRIANGULAR, A, B, bool(upper), bool(left), bool(unitriangular))
    return r if out is None else _write_out(r, out)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@export_linalg("lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B``: ``(solution, residuals, rank,
    singular_values)`` as PyTorch's CPU drivers fill them (default gelsy: no residuals or
    singular values)."""
    name = "linalg.lstsq"
    _need(name, A, "self")
    _need(name, B, "b")
    a, b = A._data, B._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {scalar_type_name(a.dtype)} and other's dtype "
                           f"{scalar_type_name(b.dtype)}")
    if a.dtype.kind not in "fc" or a.dtype == np.float16 or a.dtype == BFLOAT16:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(a.dtype)}")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    vector = b.ndim == a.ndim - 1
    if vector:
        B = B.unsqueeze(-1)
    if B._data.shape[-2] != a.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2) [got A "
                           f"{list(a.shape)} and B {list(b.shape)}]")
    X, res, rank, sv = dispatch(LSTSQ, A, B, rcond, driver)
    if vector:
        X = X.squeeze(-1)
    return _rt.linalg_lstsq(X, res, rank, sv)


@export_linalg("matrix_rank")
@interposable("linalg_matrix_rank")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None, tol=None):
    """The number of singular values above ``max(atol, rtol * s_max)`` (an int64 tensor, no
    gradient); rtol defaults to eps * max(m, n) when neither tolerance is given."""
    name = "linalg.matrix_rank"
    _need(name, A, "input")
    d = A._data
    if (d.dtype == np.float16 or d.dtype == BFLOAT16) and (atol is not None or
                                                           rtol is not None):
        _low_precision(name, "linalg_svd_cpu", A)
    if d.dtype.kind not in "fc" or d.dtype == np.float16 or d.dtype == BFLOAT16:
        raise RuntimeError("This function doesn't handle types other than float and double "
                           f"[{name}: got {scalar_type_name(d.dtype)}]")
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor input must have at least 2 dimensions.")
    if tol is not None:
        atol = tol
    m, n = d.shape[-2], d.shape[-1]
    atol = atol.item() if isinstance(atol, Tensor) else atol
    rtol = rtol.item() if isinstance(rtol, Tensor) else rtol
    if atol is None and rtol is None:
        rtol = float(np.finfo(np.empty(0, d.dtype).real.dtype).eps) * max(m, n)
    # (the singular values through the table's ops, so that vmap batches them; for a
    # Hermitian A they are |eigenvalues|)
    with _no_grad():
        S = svdvals(A) if d.size else _zeros(d.shape[:-2] + (0,))
        if S.shape[-1] == 0:
            r = (S > 0).sum(-1)
        else:
            tol_ = S.amax(-1, keepdim=True) * (0.0 if rtol is None else rtol)
            if atol is not None:
                tol_ = tol_.clamp_min(atol)
            r = (S > tol_).sum(-1)
    return r if out is None else _write_out(r, out)


@export_linalg("cond")
@interposable("linalg_cond")
def cond(A, p=None, *, out=None):
    """The condition number in norm ``p``: s_max / s_min for p None/2 (s_min / s_max for
    -2) from the singular values, else ``norm(A, p) * norm(inv(A), p)``."""
    name = "linalg.cond"
    _need(name, A, "A")
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        S = svdvals(A)
        hi, lo = S.narrow(-1, 0, 1), S.narrow(-1, S.shape[-1] - 1, 1)
        r = (lo / hi if p == -2 else hi / lo).squeeze(-1)
    else:
        if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
            raise RuntimeError(f"{name} got an invalid norm type: {p}")
        # (PyTorch's top node: a nan_to_num keeping infinities)
        r = (matrix_norm(A, p) * matrix_norm(inv(A), p)).nan_to_num(math.inf, math.inf)
    return r if out is None else _write_out(r, out)


@export_linalg("tensorinv")
@interposable("linalg_tensorinv")
def tensorinv(A, ind=2, *, out=None):
    """The inverse of A as a map from its last dims to its first ``ind`` dims (A reshaped to
    a square matrix, inverted, reshaped back)."""
    name = "linalg.tensorinv"
    _need(name, A, "input")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    front, back = shape[:ind], shape[ind:]
    pf, pb = math.prod(front), math.prod(back)
    if pf != pb:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) "
                           f"== prod(self.shape[:ind]), but got {pb} != {pf}")
    r = inv(A.reshape(pf, pb)).reshape(back + front)
    return r if out is None else _write_out(r, out)


@export_linalg("tensorsolve")
@interposable("linalg_tensorsolve")
def tensorsolve(A, B, dims=None, *, out=None):
    """The X with ``tensordot(A, X, X.ndim) == B`` (A's ``dims`` moved to the end first)."""
    name = "linalg.tensorsolve"
    _need(name, A, "input")
    _need(name, B, "other")
    if dims is not None:
        nd = A.ndim
        dims = [d % nd for d in dims]
        A = A.permute([d for d in range(nd) if d not in dims] + list(dims))
    shape = tuple(A.shape)
    nb = B.ndim
    res_shape = shape[nb:]
    pr, pf = math.prod(res_shape), math.prod(shape[:nb])
    if pr != pf:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {pr} != {pf}")
    r = solve(A.reshape(pf, pr), B.reshape(-1)).reshape(res_shape)
    return r if out is None else _write_out(r, out)


def _eig_check(name, A):
    _need(name, A, "input")
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{d.shape[-2]} by {d.shape[-1]} matrices")
    if d.dtype == np.float16 or d.dtype == BFLOAT16:
        _low_precision(name, "linalg_eig_out_cpu", A)
    if d.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar_type_name(d.dtype)} "
                           f"[{name}: convert the input with .float() or .double()]")


@export_linalg("eig")
def eig(A, *, out=None):
    """``(eigenvalues, eigenvectors)`` of a square matrix, complex, unit eigenvectors with
    LAPACK's phases (PyTorch's); LinalgEigBackward0."""
    _eig_check("linalg.eig", A)
    L, V = dispatch(EIG, A)
    if out is not None:
        L, V = _write_out(L, out[0]), _write_out(V, out[1])
    return _rt.linalg_eig(L, V)


@export_linalg("eigvals")
def eigvals(A, *, out=None):
    """The (complex) eigenvalues of a square matrix (through linalg.eig: LinalgEigBackward0)."""
    _eig_check("linalg.eigvals", A)
    r = dispatch(EIG, A)[0]
    return r if out is None else _write_out(r, out)


@export_linalg("householder_product")
@interposable("linalg_householder_product")
def householder_product(A, tau, *, out=None):
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` the
    i-th column of A below the diagonal and a 1 on it (LAPACK's orgqr).  A composition of
    the table's ops here (PyTorch: one LinalgHouseholderProductBackward0 node)."""
    name = "torch.linalg.householder_product"
    _need(name, A, "input")
    _need(name, tau, "tau")
    a, t = A._data, tau._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = a.shape[-2], a.shape[-1]
    k = t.shape[-1] if t.ndim else 1
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if t.ndim != a.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {t.ndim} and input.ndim is equal to "
                           f"{a.ndim}")
    if t.dtype != a.dtype:
        raise RuntimeError(f"{name}: tau dtype {scalar_type_name(t.dtype)} does not match "
                           f"input dtype {scalar_type_name(a.dtype)}")
    _low_precision(name, "orgqr_cpu", A)
    V = A.tril(-1) + _eye(m, n, A)                 # the reflectors' vectors, by column
    Q = _eye(m, m, A).expand(a.shape[:-2] + (m, m))
    for i in range(k):
        v = V.narrow(-1, i, 1)                     # (..., m, 1)
        ti = tau.narrow(-1, i, 1).unsqueeze(-1)    # (..., 1, 1)
        Q = Q - (Q @ v) @ (v.mH * ti)
    r = Q.narrow(-1, 0, n)
    r = r.contiguous()
    return r if out is None else _write_out(r, out)


def _eye(m, n, like):
    return Tensor._wrap(np.eye(m, n, dtype=like._data.dtype))
