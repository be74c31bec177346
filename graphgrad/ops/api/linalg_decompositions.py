"""torch.linalg's functions on square matrices and norms: inv, det/slogdet/logdet, solve,
cholesky, qr, eigh, svd, matrix_norm/norm; and cdist.

Their table entries (one per decomposition, with PyTorch's node names) are in
ops/derivatives/linalg.py; products, einsum, diagonals and triangles are in linalg.py,
whose docstring lists where graphgrad differs from PyTorch here.
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ..._core.dtypes import scalar_type_name
from ..dispatch import dispatch
from ..registry import export, export_linalg
from ... import return_types as _rt
from ..derivatives.linalg import CDIST, CHOLESKY, DET, EIGH, INV, QR, SLOGDET, SOLVE, SVD
from .linalg import _req_tensor
from .reductions import vector_norm as _vector_norm
from ..interpose import all_values, interposable
from ..kernels.linalg import LinAlgError
from ..derivatives.linalg_lu import LU_FACTOR


# ====================================================================== helpers


def _check_matrix(name, A, square=True, arg="A", kernel=None, low_ok=False):
    """Checks of a matrix argument; ``kernel``: the LAPACK kernel PyTorch names when it
    refuses half precision (NotImplementedError) instead of the generic RuntimeError;
    ``low_ok``: half precision is computed (e.g. the Frobenius norm)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(A).__name__}")
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    low = d.dtype == np.float16 or d.dtype.name == "bfloat16"
    if d.dtype.kind not in "fc" and not low:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(d.dtype)}")
    if low and not low_ok:
        if kernel is not None:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{scalar_type_name(d.dtype)}' [{name}: convert {arg} "
                                      "with .float() or .double()]")
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got "
                           f"{scalar_type_name(d.dtype)}")
    if square and d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{d.shape[-2]} by {d.shape[-1]} matrices")


# NOTE [LAPACK info]
# inv, solve and cholesky compute their failed matrices too (LAPACK's partial results, as
# PyTorch's *_ex functions return them; kernels/linalg_singular.py).  ``info`` is LAPACK's
# per matrix: U's first zero pivot (from the LU factorization, run only when the result is
# not finite, as a zero pivot makes it), the order of the first leading minor that is not
# positive-definite (the first diagonal entry of the factor that is not positive).  Under
# vmap the checks read every example's values (interpose.all_values) and info is computed
# by table ops, so it is batched.  The strict functions, and the *_ex ones with
# check_errors=True, raise PyTorch's LinAlgError for the first failed matrix,
# "(Batch element k): " naming it in a batch.
_SINGULAR_INV = ("The diagonal element {} is zero, the inversion could not be completed "
                 "because the input matrix is singular.")
_SINGULAR_SOLVE = "The solver failed because the input matrix is singular."
_NOT_PD = ("The factorization could not be completed because the input is not "
           "positive-definite (the leading minor of order {} is not positive-definite).")


def _no_info(A):
    return Tensor._wrap(np.zeros(A._data.shape[:-2], np.int32))


def _lu_info(A, result):
    """getrf's info of ``A``'s matrices: zeros while ``result`` is finite."""
    if np.isfinite(all_values(result._data)).all():
        return _no_info(A)
    return dispatch(LU_FACTOR, A.detach())[2]


def _cholesky_info(L):
    """potrf's info from the (partial) factors ``L``."""
    d = np.diagonal(all_values(L._data), axis1=-2, axis2=-1)
    if (d.real > 0).all():
        return _no_info(L)
    diag = L.detach().diagonal(0, -2, -1)
    bad = (diag.real if diag.is_complex() else diag) <= 0
    bad = bad.logical_or(diag.isnan())
    return (bad.int().argmax(-1) + 1).where(bad.any(-1), 0).int()


def _raise_on_info(name, A, info, message):
    """LinAlgError for the first matrix whose ``info`` is non-zero (NOTE [LAPACK info])."""
    codes = all_values(info._data).reshape(-1)
    failed = np.flatnonzero(codes)
    if failed.size:
        k = int(failed[0])
        where = f"(Batch element {k}): " if A._data.ndim > 2 else ""
        raise LinAlgError(f"{name}: {where}{message.format(int(codes[k]))}")


def _inv(name, A, raise_as):
    """``(inverse, info)``; ``name`` for the argument checks, ``raise_as`` (or None) the
    LinAlgError's prefix."""
    _check_matrix(name, A)
    result = dispatch(INV, A)
    info = _lu_info(A, result)
    if raise_as:
        _raise_on_info(raise_as, A, info, _SINGULAR_INV)
    return result, info


# ====================================================================== inverses, determinants, solvers, decompositions
@export_linalg("inv")
def inv(A, *, out=None):
    """The inverse of a (batch of) square matrices."""
    _no_out("linalg.inv", out)
    return _inv("linalg.inv", A, "linalg.inv")[0]


@export()
def inverse(input):
    return _inv("inverse", input, "linalg.inv")[0]


@export_linalg("inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: info > 0 for singular matrices, whose inverse is inf/nan (NOTE
    [LAPACK info])."""
    _no_out("linalg.inv_ex", out)
    result, info = _inv("linalg.inv_ex", A, "linalg.inv_ex" if check_errors else None)
    return _rt.linalg_inv_ex(result, info)


@export_linalg("det")
def det(A, *, out=None):
    """The determinant of a (batch of) square matrices."""
    _no_out("linalg.det", out)
    _check_matrix("linalg.det", A, kernel="lu_cpu")
    return dispatch(DET, A)


@export("det")
def _det_top(input):
    _check_matrix("det", input, kernel="lu_cpu")
    return dispatch(DET, input)


@export_linalg("slogdet")
def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``."""
    _no_out("linalg.slogdet", out)
    _check_matrix("linalg.slogdet", A)
    return _rt.linalg_slogdet(*dispatch(SLOGDET, A))


@export("slogdet")
def _slogdet_top(input):
    _check_matrix("slogdet", input)
    return _rt.slogdet(*dispatch(SLOGDET, input))


@export()
def logdet(input):
    """``log(det(input))``: NaN where the determinant is negative (real input)."""
    from .comparison import where
    _check_matrix("logdet", input)
    sign, logabsdet = dispatch(SLOGDET, input)
    if input._data.dtype.kind == "c":
        from .pointwise import log
        return log(sign) + logabsdet
    nan = Tensor._wrap(np.asarray(np.nan, logabsdet._data.dtype))
    return where(sign == -1, nan, logabsdet)


def _solve_vector_case(A, B):
    a, b = A._data.shape, B._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


@export_linalg("solve")
@interposable("linalg_solve")
def solve(A, B, *, left=True, out=None):
    """The solution X of ``A X = B`` (``X A = B`` when ``left=False``); B may be a vector."""
    _no_out("linalg.solve", out)
    return _solve(A, B, left, "torch.linalg.solve")[0]


def _solve(A, B, left, raise_as):
    """``(result, info)``; ``raise_as`` (or None) the LinAlgError's prefix."""
    _check_matrix("linalg.solve", A, kernel="lu_cpu")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_type_name(A._data.dtype)} and B of type "
            f"{scalar_type_name(B._data.dtype)} instead")
    vector = _solve_vector_case(A, B)
    n = A._data.shape[-1]
    sb = B._data.shape
    k_dim = sb[-1] if vector else (sb[-2] if left else sb[-1])
    if B._data.ndim < 1 or k_dim != n or (not vector and B._data.ndim < 2):
        shp = (f"{sb[-1]}x1" if vector else f"{sb[-2]}x{sb[-1]}") if sb else "0"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shp})")
    try:
        bsa = A._data.shape[:-2]
        bsb = sb[:-1] if vector else sb[:-2]
        np.broadcast_shapes(bsa, bsb)
    except ValueError:
        raise RuntimeError(f"linalg.solve: the batch dimensions of A {list(bsa)} and B "
                           f"{list(bsb)} do not broadcast") from None
    result = dispatch(SOLVE, A, B, bool(left), vector)
    info = _lu_info(A, result)
    if raise_as:
        _raise_on_info(raise_as, A, info, _SINGULAR_SOLVE)
    return result, info


@export_linalg("solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)``: info > 0 for singular matrices, whose solution is inf/nan (NOTE
    [LAPACK info])."""
    _no_out("linalg.solve_ex", out)
    result, info = _solve(A, B, left, "torch.linalg.solve_ex" if check_errors else None)
    return _rt.linalg_solve_ex(result, info)


@export_linalg("cholesky")
def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (``A = L L^H``) of a Hermitian positive-definite matrix; U = L^H
    with ``upper=True``.  Only the lower triangle of A is read."""
    _no_out("linalg.cholesky", out)
    return _cholesky("linalg.cholesky", A, upper, "linalg.cholesky")[0]


def _cholesky(name, A, upper, raise_as):
    """``(L, info)``; ``name`` for the argument checks, ``raise_as`` (or None) the
    LinAlgError's prefix."""
    _check_matrix(name, A, kernel="cholesky_cpu")
    L = dispatch(CHOLESKY, A, bool(upper))
    info = _cholesky_info(L)
    if raise_as:
        _raise_on_info(raise_as, A, info, _NOT_PD)
    return L, info


@export_linalg("cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: info > 0 for matrices that are not positive-definite, whose L is
    LAPACK's partial factor (NOTE [LAPACK info])."""
    _no_out("linalg.cholesky_ex", out)
    L, info = _cholesky("linalg.cholesky_ex", A, upper,
                        "linalg.cholesky_ex" if check_errors else None)
    return _rt.linalg_cholesky_ex(L, info)


@export_linalg("qr")
def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``; ``mode`` is 'reduced', 'complete' or 'r' (Q empty)."""
    _no_out("linalg.qr", out)
    _check_matrix("linalg.qr", A, square=False, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return _rt.linalg_qr(*dispatch(QR, A, mode))


@export_linalg("eigh")
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of a Hermitian matrix; only
    the ``UPLO`` triangle is read.  Gradients assume distinct eigenvalues."""
    _no_out("linalg.eigh", out)
    if isinstance(A, Tensor) and (A._data.dtype.kind not in "fc" or A._data.dtype == np.float16):
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                  f"'{scalar_type_name(A._data.dtype)}' [linalg.eigh: convert "
                                  "A with A.double() or A.float()]")
    _check_matrix("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return _rt.linalg_eigh(*dispatch(EIGH, A, UPLO))


@export_linalg("eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO, out=out).eigenvalues


@export_linalg("svd")
def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending.  Gradients assume
    distinct non-zero singular values and a loss invariant to the singular vectors' phases."""
    _no_out("linalg.svd", out)
    _check_matrix("linalg.svd", A, square=False, kernel="linalg_svd_cpu")
    return _rt.linalg_svd(*dispatch(SVD, A, bool(full_matrices)))


@export_linalg("svdvals")
def svdvals(A, *, driver=None, out=None):
    _no_out("linalg.svdvals", out)
    _check_matrix("linalg.svdvals", A, square=False, kernel="linalg_svd_cpu")
    return dispatch(SVD, A, False)[1]


def _no_out(name, out):
    if out is not None:
        raise NotImplementedError(f"{name}(): out= is not supported by graphgrad; use the "
                                  "returned tensor")


# ====================================================================== norms
_INF = float("inf")


def _public(name):
    from .reductions import amax, amin, sum
    return {"sum": sum, "amax": amax, "amin": amin}[name]


@export_linalg("matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norms over the two dims ``dim``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    _no_out("linalg.matrix_norm", out)
    _req_tensor("linalg.matrix_norm", A)
    nd = A._data.ndim
    if nd < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = _wrap_dim(dim[0], nd), _wrap_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if dtype is not None:
        A = A.to(dtype)
    _check_matrix("linalg.matrix_norm", A, square=False,
                  low_ok=ord not in ("nuc", 2, -2))  # (those take the SVD)
    if isinstance(ord, str):
        if ord == "fro":
            return _vector_norm(A, 2, (d0, d1), keepdim)
        if ord != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord in ("nuc", 2, -2):
        from .shape import unsqueeze
        from .views import permute
        perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
        S = svdvals(permute(A, perm))
        r = _public("sum" if ord == "nuc" else "amax" if ord == 2 else "amin")(S, -1, keepdim)
        if keepdim:
            # back to A's layout: (..., 1, 1) with the two 1s moved to d0, d1
            inv_perm = [perm.index(i) for i in range(nd)]
            r = permute(unsqueeze(r, -1), inv_perm)
        return r
    # induced 1 / inf norms: max (min) over one dim of the absolute sums over the other
    d_sum, d_max = (d0, d1) if ord in (1, -1) else (d1, d0)
    v = _vector_norm(A, 1, d_sum, keepdim)
    if not keepdim and d_max > d_sum:
        d_max -= 1
    return _public("amax" if ord > 0 else "amin")(v, d_max, keepdim)


@export_linalg("norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: ``dim`` of length 1 (or a 1-D input) gives a vector norm, length 2
    (or a 2-D input with ``ord`` given) a matrix norm; no ``ord`` and no ``dim``: the 2-norm of
    the flattened input."""
    _no_out("linalg.norm", out)
    _req_tensor("linalg.norm", A)
    nd = A._data.ndim
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            if isinstance(ord, str):
                raise RuntimeError(f"linalg.norm: ord {ord!r} is a matrix norm, but dim "
                                   f"{list(dims)} selects a vector; pass two dims")
            return _vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return _vector_norm(A, 2, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(A, ord, (0, 1), keepdim, dtype=dtype)
    if nd == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.norm: ord {ord!r} is a matrix norm but the input is 1-D")
        return _vector_norm(A, ord, 0, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                       f"2D. Got {nd}D.")


# ============================================================ cdist
@export(method=False)
@interposable("cdist")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances between the rows of ``x1`` and ``x2`` (batches broadcast).

    ``compute_mode`` is accepted and checked; the distances are always computed from the
    coordinate differences (PyTorch's matrix-product shortcut for p=2 changes only the
    last bits and the node name, see docs/differences.md)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be Tensor, not "
                            f"{type(x).__name__}")
        if x._data.dtype.kind not in "fV":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{scalar_type_name(x.dtype)}")
        if x._data.dtype.itemsize == 2:
            raise NotImplementedError(f'"cdist" not implemented for '
                                      f"'{scalar_type_name(x.dtype)}' (as in PyTorch; convert "
                                      "to float32 first)")
        if x._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._data.shape[-1]} X2: {x2._data.shape[-1]}")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"cdist: X1 and X2 must have the same dtype, got {x1.dtype} and "
                           f"{x2.dtype}")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    try:
        np.broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    except ValueError:
        raise RuntimeError(f"cdist: the batch dims of X1 {list(x1._data.shape[:-2])} and X2 "
                           f"{list(x2._data.shape[:-2])} do not broadcast") from None
    return dispatch(CDIST, x1, x2, p)
