"""graphgrad.numpy.linalg: ``numpy.linalg`` over Tensors -- ``inv``, ``det``,
``slogdet``, ``solve``, ``cholesky``, ``eigh``, ``eigvalsh``, ``svd``, ``qr``, ``norm``,
``matrix_power``, ``pinv``, differentiable through graphgrad.linalg, with NumPy's
conventions (``solve``'s ``b`` is a vector only when 1-d; ``norm``'s ``ord``/``axis``).
Anything else of numpy.linalg passes through for NumPy data and raises
NotImplementedError on Tensors."""
from __future__ import annotations

import numpy as _np

from .. import linalg as _gl
from ..ops.api import (
    comparison as _api_comparison, linalg as _api_linalg, pointwise as _api_pointwise,
    pointwise_unary as _api_pointwise_unary)
from ._core import axes, complex_of, data_of, numpy_only, on_tensors, result_dtype, tensor

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "eigh", "eigvalsh", "svd", "qr",
           "norm", "matrix_power", "pinv", "LinAlgError"]

LinAlgError = _np.linalg.LinAlgError


def _square(name, t):
    if t.ndim < 2:
        raise LinAlgError(f"{t.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if t.shape[-1] != t.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _float(np_func, a, key):
    """``a`` as a Tensor in the dtype NumPy computes ``np_func`` in (ints to float64; a
    complex input stays complex where the result is real, as ``norm``'s)."""
    t = tensor(a)
    dt = result_dtype(lambda x: np_func(_np.eye(2, dtype=_np.result_type(x))), t, key=key)
    if t._data.dtype.kind == "c" and dt.kind == "f":
        dt = complex_of(dt)
    return tensor(t, dt)


def _hermitian_from(t, UPLO):
    """The Hermitian matrix NumPy's ``eigh``/``cholesky`` read: the ``UPLO`` triangle of
    ``t`` mirrored, so that the other triangle gets no gradient (as in NumPy, which never
    reads it) rather than PyTorch's symmetric one."""
    tri, strict = (_api_linalg.tril(t), _api_linalg.tril(t, -1)) if UPLO == "L" else \
        (_api_linalg.triu(t), _api_linalg.triu(t, 1))
    mirrored = strict.transpose(-1, -2)
    if t._data.dtype.kind == "c":
        mirrored = _api_pointwise_unary.conj(mirrored)
        diag = _api_linalg.diagonal(tri, 0, -2, -1)
        tri = tri - _api_linalg.diag_embed(diag - _api_pointwise.real(diag).to(t.dtype))
    return tri + mirrored


@on_tensors(_np.linalg.inv)
def inv(a):
    t = _float(_np.linalg.inv, a, "inv")
    _square("inv", t)
    return _gl.inv(t)


@on_tensors(_np.linalg.det)
def det(a):
    t = _float(_np.linalg.det, a, "det")
    _square("det", t)
    return _gl.det(t)


@on_tensors(_np.linalg.slogdet)
def slogdet(a):
    t = _float(lambda x: _np.linalg.slogdet(x)[1], a, "slogdet")
    _square("slogdet", t)
    return _gl.slogdet(t)


@on_tensors(_np.linalg.solve)
def solve(a, b):
    """``b`` 1-d is a vector; otherwise ``(..., M, K)`` matrices (NumPy 2's rule)."""
    A = _float(_np.linalg.inv, a, "inv")
    B = tensor(b, result_dtype(lambda x, y: _np.linalg.solve(
        _np.eye(2, dtype=_np.result_type(x)), _np.ones(2, _np.result_type(y))), A, b,
        key="solve"))
    A = tensor(A, B._data.dtype)
    _square("solve", A)
    if B.ndim == 1:
        if B.shape[0] != A.shape[-1]:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0 "
                             f"(size {B.shape[0]} is different from {A.shape[-1]})")
        return _gl.solve(A, B.unsqueeze(-1).expand(tuple(A.shape[:-1]) + (1,)))[..., 0]
    if B.shape[-2] != A.shape[-1]:
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {B.shape[-2]} is different from {A.shape[-1]})")
    batch = _np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    A = A.expand(batch + tuple(A.shape[-2:]))
    B = B.expand(batch + tuple(B.shape[-2:]))
    return _gl.solve(A, B)


@on_tensors(_np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    t = _float(_np.linalg.cholesky, a, "cholesky")
    _square("cholesky", t)
    return _gl.cholesky(_hermitian_from(t, "U" if upper else "L"), upper=upper)


@on_tensors(_np.linalg.eigh)
def eigh(a, UPLO="L"):
    t = _float(lambda x: _np.linalg.eigh(x)[0], a, "eigh")
    _square("eigh", t)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return _gl.eigh(_hermitian_from(t, UPLO), UPLO=UPLO)


@on_tensors(_np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    t = _float(_np.linalg.eigvalsh, a, "eigvalsh")
    _square("eigvalsh", t)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return _gl.eigvalsh(_hermitian_from(t, UPLO), UPLO=UPLO)


@on_tensors(_np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    t = _float(lambda x: _np.linalg.svd(x, compute_uv=False), a, "svd")
    if t.ndim < 2:
        raise LinAlgError(f"{t.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if not compute_uv:
        return _gl.svdvals(t)
    return _gl.svd(t, full_matrices=full_matrices)


@on_tensors(_np.linalg.qr)
def qr(a, mode="reduced"):
    t = _float(lambda x: _np.linalg.qr(x)[0], a, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"graphgrad.numpy.linalg.qr: mode={mode!r} is not supported on "
                                  "graphgrad Tensors")
    return _gl.qr(t, mode=mode)[1] if mode == "r" else _gl.qr(t, mode=mode)


@on_tensors(_np.linalg.matrix_power)
def matrix_power(a, n):
    t = tensor(a)
    _square("matrix_power", t)
    if n < 0:
        t, n = inv(t), -n
    out = None
    base = t
    while n:
        if n & 1:
            out = base if out is None else _api_linalg.matmul(out, base)
        n >>= 1
        if n:
            base = _api_linalg.matmul(base, base)
    if out is None:
        eye = _np.broadcast_to(_np.eye(t.shape[-1], dtype=t._data.dtype), tuple(t.shape))
        return tensor(eye.copy())
    return out


@on_tensors(_np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Through the SVD; singular values under ``rcond * max(s)`` are dropped (their
    pattern is taken from the data and held fixed for the derivative)."""
    t = _float(_np.linalg.pinv, a, "pinv")
    u, s, vh = _gl.svd(t, full_matrices=False)
    cut = rtol if rtol is not None else rcond
    if cut is None:
        cut = max(t.shape[-2:]) * _np.finfo(t._data.dtype).eps
    smax = data_of(s).max(axis=-1, keepdims=True) if s.numel() else 0
    keep = tensor(data_of(s) > cut * smax)
    sinv = _api_comparison.where(keep, 1 / _api_comparison.where(keep, s, 1.0), 0.0)
    return _api_linalg.matmul(vh.transpose(-1, -2).conj() * sinv.unsqueeze(-2),
                        u.transpose(-1, -2).conj())


@on_tensors(_np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """NumPy's rules: ``axis=None`` is the 2-norm of the flattened array when ``ord`` is
    None, else a vector (1-d) or matrix (2-d) norm; an int ``axis`` a vector norm, a pair a
    matrix norm."""
    t = _float(lambda z: _np.linalg.norm(_np.ones(2, _np.result_type(z))), x, "norm")
    if axis is None:
        if ord is None:
            r = _gl.vector_norm(t.reshape(-1), 2)
            return r.reshape((1,) * t.ndim) if keepdims else r
        if t.ndim == 1:
            axis = (0,)
        elif t.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    if isinstance(axis, (int, _np.integer)):
        axis = (int(axis),)
    dims = tuple(axes(a, t.ndim)[0] for a in axis)
    if len(set(dims)) != len(dims):
        raise ValueError("Duplicate axes given.")
    if len(dims) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return _gl.vector_norm(t, 2 if ord is None else ord, dims, keepdims)
    if len(dims) == 2:
        if ord is None:
            ord = "fro"   # noqa: A001
        if ord not in ("fro", "nuc", 1, -1, 2, -2, _np.inf, -_np.inf):
            raise ValueError("Invalid norm order for matrices.")
        return _gl.matrix_norm(t, ord, dims, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def __getattr__(name):
    obj = getattr(_np.linalg, name)
    if callable(obj) and not isinstance(obj, type):
        obj = numpy_only(obj, f"linalg.{name}")
    globals()[name] = obj
    return obj
