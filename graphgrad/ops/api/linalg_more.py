"""matrix_exp / linalg.matrix_exp, linalg.pinv / pinverse, the legacy cholesky,
cholesky_solve, cholesky_inverse (table entries with PyTorch's nodes), and the Vandermonde
matrices vander / linalg.vander (PyTorch's compositions).
"""
from __future__ import annotations

import numpy as np

from ..._tensor.tensor import Tensor
from ..._tensor import creation as _creation
from ..._core import dtypes as _dtypes
from ..._core.dtypes import scalar_type_name
from ..._core.opmath import BFLOAT16
from ..dispatch import dispatch
from ..registry import export, export_linalg
from ..interpose import interposable
from .conversion import _write_out
from .copies import cat
from .linalg_products import _warn_once
from .linalg_decompositions import _check_matrix
from ..derivatives.linalg_more import (
    CHOLESKY_INVERSE, CHOLESKY_LEGACY, CHOLESKY_SOLVE, MATRIX_EXP, PINV)


def _need(name, x, argname="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _finish(r, out):
    return r if out is None else _write_out(r, out)


# ---------------------------------------------------------------- matrix_exp
@export()
def matrix_exp(input):
    """The matrix exponential of a square matrix (or a batch): scaling and squaring with a
    [13/13] Pade approximant (Higham 2005)."""
    _need("matrix_exp", input)
    return dispatch(MATRIX_EXP, input)


@export_linalg("matrix_exp")
def linalg_matrix_exp(A, *, out=None):
    _need("linalg.matrix_exp", A, "A")
    return _finish(dispatch(MATRIX_EXP, A), out)


# ---------------------------------------------------------------- pinv
def _tol(name, v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise NotImplementedError(f"{name}: a tensor tolerance with more than one element "
                                      "is not supported here; pass a float")
        v = v.item()
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"{name}(): tolerances must be floats, not {type(v).__name__}")
    return float(v)


@export_linalg("pinv")
def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse (singular values at most ``max(atol, rtol * s_max)``
    count as zero; rtol defaults to eps * max(m, n) when neither is given)."""
    _need("linalg.pinv", A, "A")
    d = A._data
    if d.ndim < 2 or d.dtype.kind not in "fc" or d.dtype == np.float16:
        raise RuntimeError(f"linalg.pinv({scalar_type_name(d.dtype)}{list(d.shape)}): expected "
                           "a tensor with 2 or more dimensions of float, double, cfloat or "
                           "cdouble types")
    r = dispatch(PINV, A, _tol("linalg.pinv", atol), _tol("linalg.pinv", rtol), bool(hermitian))
    return _finish(r, out)


@export()
@interposable("pinverse")
def pinverse(input, rcond=1e-15):
    """``linalg.pinv(input, rtol=rcond)``."""
    _need("pinverse", input)
    return pinv(input, rtol=rcond)


# ---------------------------------------------------------------- cholesky family
@export()
def cholesky(input, upper=False, *, out=None):
    """The Cholesky factor (deprecated in PyTorch for ``linalg.cholesky``; CholeskyBackward0)."""
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and "
               "will be removed in a future PyTorch release.")
    _need("cholesky", input)
    if input._data.ndim >= 2:
        _low_precision("cholesky", "cholesky_cpu", input)
    _check_matrix("cholesky", input, kernel="cholesky_cpu")
    return _finish(dispatch(CHOLESKY_LEGACY, input, bool(upper)), out)


def _low_precision(name, kernel, *ts):
    for t in ts:
        d = t._data.dtype
        if d.kind not in "fc" or d == np.float16 or d == BFLOAT16:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{scalar_type_name(d)}' [{name}: convert with "
                                      ".float() or .double()]")


@export()
def cholesky_inverse(input, upper=False, *, out=None):
    """``(L L^H)^{-1}`` from a Cholesky factor ``L`` (``(U^H U)^{-1}`` with ``upper=True``)."""
    _need("cholesky_inverse", input)
    d = input._data
    if d.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they "
                           f"are {d.shape[-2]} by {d.shape[-1]} matrices")
    _low_precision("cholesky_inverse", "cholesky_inverse_out_cpu", input)
    return _finish(dispatch(CHOLESKY_INVERSE, input, bool(upper)), out)


@export()
def cholesky_solve(input, input2, upper=False, *, out=None):
    """The solution X of ``A X = B`` (``B = input``) from A's Cholesky factor ``input2``."""
    _need("cholesky_solve", input)
    _need("cholesky_solve", input2, "input2")
    b, a = input._data, input2._data
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if a.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {a.ndim} dimensions "
                           "instead")
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type_name(b.dtype)} and A of type "
                           f"{scalar_type_name(a.dtype)} instead.")
    if a.shape[-1] != a.shape[-2] or a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{a.shape[-2]} by {a.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    _low_precision("cholesky_solve", "cholesky_solve_cpu", input)
    return _finish(dispatch(CHOLESKY_SOLVE, input, input2, bool(upper)), out)


# ---------------------------------------------------------------- vander
@export_linalg("vander")
def linalg_vander(x, *, N=None):
    """``[1, x, x^2, ..., x^(N-1)]`` along a new last dim (PyTorch's cat of ones and a
    cumprod)."""
    _need("linalg.vander", x, "x")
    d = x._data
    if d.ndim == 0:
        raise RuntimeError("linalg.vander: x must have at least one dimension. [got a 0-d "
                           "tensor]")
    if d.dtype.kind not in "fciu" or d.dtype == np.float16 or d.dtype == BFLOAT16:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {scalar_type_name(d.dtype)}")
    n = d.shape[-1] if N is None else int(N)
    if n <= 1:
        if n < 1:
            raise RuntimeError(f"N must be greater than 1. [linalg.vander: got N={n}]")
        return _creation.ones(d.shape + (1,), dtype=x.dtype)
    x_ = x.unsqueeze(-1)
    ones = _creation.ones(d.shape + (1,), dtype=x.dtype)
    return cat([ones, x_.expand(d.shape + (n - 1,)).cumprod(-1)], -1)


@export(method=False)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x^(N-1) ... x^0`` (FlipBackward0, as
    PyTorch's) or increasing (CatBackward0; PyTorch's CopySlices)."""
    _need("vander", x, "x")
    d = x._data
    if d.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = d.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x.dtype if d.dtype.kind in "fcV" else _dtypes.int64   # (promote_types(x, long))
    if n == 0:
        return _creation.zeros((d.shape[0], 0), dtype=dt)
    result = _creation.ones((d.shape[0], 1), dtype=dt)
    if n > 1:
        # (PyTorch fills slices of an empty result and takes the cumprod of the result's own
        # slice, which its backward then finds modified in place: a cat of ones and the
        # cumprod of x's expansion is the same matrix and differentiates)
        x_ = x.unsqueeze(1)
        if x_.dtype != dt:
            x_ = x_.to(dt)
        result = cat([result, x_.expand((d.shape[0], n - 1)).cumprod(1)], 1)
    return result if increasing else result.flip(1)
