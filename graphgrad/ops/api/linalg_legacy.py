"""PyTorch's deprecated linear-algebra forms, as composites of graphgrad.linalg (as PyTorch
itself now computes them): torch.qr, svd, lu, lu_solve, lu_unpack, triangular_solve,
nuclear_norm, frobenius_norm (and the Tensor methods PyTorch has of them).

The graphs are linalg's: qr, svd, lu and lu_solve have PyTorch's nodes (LinalgQrBackward0,
LinalgSvdBackward0 with TransposeBackward0 for V, LinalgLuFactorExBackward0,
LinalgLuSolveBackward0); lu_unpack and triangular_solve, which have nodes of their own in
PyTorch (LuUnpackBackward0, TriangularSolveBackward0), record tril/triu and
LinalgSolveTriangularBackward0 here, with the same values and gradients
(docs/differences.md).
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import return_types
from ..._core import dtypes as _dtype
from ..._tensor.creation import _finish, zeros
from ..._tensor.tensor import Tensor
from ..registry import export
from ..kernels.linalg_lu import _permutation
from .linalg import tril, triu
from .linalg_decompositions import matrix_norm, qr as _linalg_qr, svd as _linalg_svd
from .linalg_decompositions import svdvals
from .linalg_extra import solve_triangular
from .linalg_lu import lu_factor_ex, lu_solve as _linalg_lu_solve
from .reductions import norm as _norm
from .shape import narrow as _narrow


def _tensor(name, x, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


@export()
def qr(input, some=True, *, out=None):
    """``torch.qr(A, some=True)``: ``linalg.qr(A, "reduced" if some else "complete")``."""
    _tensor("qr", input)
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                  "future PyTorch release. Use torch.linalg.qr(A, 'reduced' if some else "
                  "'complete') instead.", UserWarning, stacklevel=2)
    Q, R = _linalg_qr(input, "reduced" if some else "complete")
    return return_types.qr(Q, R)


@export()
def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd(A, some=True, compute_uv=True)``: U, S and V (not Vh: ``Vh.mH``) of
    ``linalg.svd(A, full_matrices=not some)``; without ``compute_uv``, U and V are zeros of
    shapes (m, m) and (n, n) and S is ``linalg.svdvals``."""
    _tensor("svd", input)
    warnings.warn("torch.svd is deprecated in favor of torch.linalg.svd and will be removed in a "
                  "future PyTorch release. U, S, V = torch.svd(A, some=some, compute_uv=True) "
                  "should be replaced with U, S, Vh = torch.linalg.svd(A, full_matrices=not "
                  "some); V = Vh.mH", UserWarning, stacklevel=2)
    if compute_uv:
        U, S, Vh = _linalg_svd(input, full_matrices=not some)
        return return_types.svd(U, S, Vh.mH)
    S = svdvals(input)
    shape = tuple(input._data.shape)
    m, n = shape[-2], shape[-1]
    U = zeros(shape[:-2] + (m, m), dtype=input.dtype)
    V = zeros(shape[:-2] + (n, n), dtype=input.dtype)
    return return_types.svd(U, S, V)


@export()
def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu(A, pivot=True, get_infos=False)``: (LU, pivots) of ``linalg.lu_factor_ex``,
    or (LU, pivots, infos); a singular matrix is no error (as in PyTorch)."""
    _tensor("lu", A, "A")
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)
    LU, pivots, infos = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


@export()
def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU, pivots, b)``."""
    _tensor("lu_solve", b)
    return _linalg_lu_solve(LU_data, LU_pivots, b, out=out)


@export(method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack(LU, pivots)``: P, L (unit lower, m x k) and U (upper, k x n) of a
    packed LU factorization; L and U are empty without ``unpack_data``, P without
    ``unpack_pivots``."""
    _tensor("lu_unpack", LU_data, "LU_data")
    _tensor("lu_unpack", LU_pivots, "LU_pivots")
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           f"torch.int32 dtype. Note: this function is intended to be used "
                           f"with the output produced by torch.linalg.lu_factor (got "
                           f"{_dtype.scalar_type_name(LU_pivots.dtype)})")
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data._data.shape)} instead")
    m, n = LU_data._data.shape[-2:]
    k = min(m, n)
    empty = _finish(np.zeros(0, LU_data._data.dtype), False)
    if unpack_data:
        Lp = _narrow(LU_data, -1, 0, k) if n > k else LU_data
        Up = _narrow(LU_data, -2, 0, k) if m > k else LU_data
        L = tril(Lp, -1) + _finish(np.eye(m, k, dtype=LU_data._data.dtype), False)
        U = triu(Up)
    else:
        L = U = empty
    if unpack_pivots:
        P = _finish(_permutation(LU_pivots._data, m, LU_data._data.dtype), False)
    else:
        P = empty
    return return_types.lu_unpack(P, L, U)


@export()
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False)``:
    (X, A.clone()) with op(A) X = b, op(A) = A^T when ``transpose``
    (``linalg.solve_triangular``)."""
    _tensor("triangular_solve", b)
    _tensor("triangular_solve", A, "A")
    for name, t in (("b", b), ("A", A)):
        if t._data.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {t._data.ndim} dimensions instead")
    M = A.mT if transpose else A
    X = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    batch = tuple(X._data.shape[:-2])
    C = A if tuple(A._data.shape[:-2]) == batch else A.expand(batch + tuple(A._data.shape[-2:]))
    return return_types.triangular_solve(X, C.clone())   # (A broadcast to the batch, as PyTorch)


def _deprecated_norm(name, instead):
    warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It "
                  "will be removed in a future PyTorch release. Please use "
                  f"`{instead}` instead", UserWarning, stacklevel=3)


@export(method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None, dtype=None):
    """``torch.nuclear_norm(A, keepdim=False)`` / ``(A, dim, keepdim=False)``: the sum of
    the singular values over the last two dims (or ``dim``)."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    _tensor("nuclear_norm", input)
    _deprecated_norm("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if dim is None:
        if input._data.ndim != 2:
            raise RuntimeError(f"Expected a tensor with 2 dimensions, but got a tensor with "
                               f"{input._data.ndim} dimensions instead (nuclear_norm without "
                               "dim)")
        dim = (-2, -1)
    return matrix_norm(input, "nuc", dim=tuple(dim), keepdim=keepdim, out=out)


@export(method=False)
def frobenius_norm(input, dim=(), keepdim=False, *, out=None):
    """``torch.frobenius_norm(A, dim, keepdim=False)``: the 2-norm over at most two dims."""
    _tensor("frobenius_norm", input)
    _deprecated_norm("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    return _norm(input, 2, dim=dim if dim else None, keepdim=keepdim, out=out)
