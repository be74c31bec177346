"""NumPy kernels of the linalg family: matrix products, einsum, diagonals/triangles,
decompositions, norms, cdist.

Functions of ndarrays; the entries that use them are in ops/derivatives/linalg.py, the
public functions in ops/api/linalg.py.
"""
from __future__ import annotations

import numpy as np

from .. import formulas as F
from ..dispatch import no_bool as _no_bool
from ..._core.opmath import half_in_float32
from .linalg_singular import cholesky_partial, solve_singular


def _check_mm(a, b):
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[-1]} and "
            f"{b.shape[0]}x{b.shape[-1] if b.ndim > 1 else ''})".replace("x)", ")"))


def _in_dtype(res, a):
    """NumPy multiplies bfloat16 matrices into float32; PyTorch keeps the dtype."""
    return res if res.dtype == a.dtype else res.astype(a.dtype)


def _mm_kernel(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm(): expected 2-D tensors, got {a.ndim}-D and {b.ndim}-D")
    _no_bool("addmm_impl_cpu_", a)
    _check_mm(a, b)
    return _in_dtype(a @ b, a)


def _mv(a, v):
    _no_bool("addmv_impl_cpu", a)
    if a.shape[-1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    return _in_dtype(a @ v, a)


def _dot(a, b):
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            "have the same number of elements, but got {} and {} elements respectively".format(
                a.size, b.size))
    _no_bool("dot", a)
    return np.dot(a, b)


def _bmm(a, b):
    if a.shape[-1] != b.shape[-2] or a.shape[0] != b.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _no_bool("bmm", a)
    return _in_dtype(np.matmul(a, b), a)


# ====================================================================== helpers
class LinAlgError(RuntimeError):
    """A linear-algebra routine could not complete on its input (torch.linalg.LinAlgError)."""


def _mm(a, b):
    return F.matmul(a, b)


# ====================================================================== products
def _vdot_kernel(a, b):
    _no_bool("dot", a)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.size} and {b.size} elements "
            "respectively")
    return np.asarray(np.vdot(a, b))


# ====================================================================== einsum
# Three ops carry einsum: ``einsum`` (one operand), ``einsum2`` (two) and
# ``einsum_expand`` (the adjoint of a one-operand einsum: writes a gradient into
# the diagonals / broadcasts of an input's labels).  Labels are explicit letters
# (the public function turns '...' into fresh letters), and every kernel
# prefixes each term with '...', so leading batch dims of gradients broadcast.
def _einsum_eq(*labels):
    *ins, out = labels
    return ",".join("..." + t for t in ins) + "->..." + out


@half_in_float32   # (NumPy's einsum has no bfloat16 loop)
def _einsum1_kernel(a, labels):
    r = np.asarray(np.einsum(_einsum_eq(*labels), a))
    return r.copy() if np.may_share_memory(r, a) else r


@half_in_float32   # (NumPy's einsum has no bfloat16 loop)
def _einsum2_kernel(a, b, labels):
    # (NumPy's optimized contraction may hand back a transposed layout; PyTorch's is row-major)
    return np.asarray(np.einsum(_einsum_eq(*labels), a, b, optimize=True), order="C")


def _einsum_expand_kernel(g, labels, sizes):
    lo, la = labels
    sizes = tuple(sizes)[len(sizes) - len(la):]
    nb = g.ndim - len(lo)
    lead = g.shape[:nb]
    uniq = "".join(dict.fromkeys(la))
    size = {c: sizes[i] for i, c in enumerate(la)}
    z = np.zeros(lead + sizes, g.dtype)
    st = z.strides
    strides = st[:nb] + tuple(sum(st[nb + i] for i, c in enumerate(la) if c == u) for u in uniq)
    view = np.lib.stride_tricks.as_strided(z, lead + tuple(size[u] for u in uniq), strides)
    present = [u for u in uniq if u in lo]
    src = g.transpose(tuple(range(nb)) + tuple(nb + lo.index(u) for u in present))
    view[...] = src.reshape(lead + tuple(size[u] if u in lo else 1 for u in uniq))
    return z


# ====================================================================== diagonals, triangles
def _diag_view(a, offset, dim1, dim2):
    """A writable view of the (offset) diagonal over dims (dim1, dim2), as the last dim."""
    nd = a.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    n1, n2 = a.shape[d1], a.shape[d2]
    if offset >= 0:
        length, axis, start = max(min(n1, n2 - offset), 0), d2, offset
    else:
        length, axis, start = max(min(n1 + offset, n2), 0), d1, -offset
    if length > 0 and start:
        key = [slice(None)] * nd
        key[axis] = slice(start, None)
        a = a[tuple(key)]
    keep = [i for i in range(nd) if i != d1 and i != d2]
    shape = tuple(a.shape[i] for i in keep) + (length,)
    strides = tuple(a.strides[i] for i in keep) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _diagonal_backward_kernel(grad, sizes, offset, dim1, dim2):
    lead = grad.shape[:grad.ndim - (len(sizes) - 1)]
    z = np.zeros(lead + tuple(sizes), grad.dtype)
    _diag_view(z, offset, dim1, dim2)[...] = grad
    return z


def _diag_embed_kernel(a, offset, dim1, dim2):
    nd = a.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    n = a.shape[-1] + abs(offset)
    rest = iter(a.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(rest) for i in range(nd))
    z = np.zeros(shape, a.dtype)
    _diag_view(z, offset, dim1, dim2)[...] = a
    return z


@half_in_float32
def _trace_kernel(a):
    _no_bool("trace", a)
    # (integers of any width sum to int64, as PyTorch's do; NumPy would give uint64 for uint8)
    return np.asarray(np.trace(a, axis1=-2, axis2=-1,
                               dtype=np.int64 if a.dtype.kind in "iu" else None))


# ====================================================================== decompositions
def _lapack(name, fn, msg):
    """Run a NumPy LAPACK call, turning its LinAlgError into ours (a RuntimeError)."""
    try:
        return fn()
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{name}: {msg}") from None


def _inv_kernel(A):
    """A^-1; for singular matrices LAPACK's getrs result (inf/nan), as PyTorch's inv_ex
    (``linalg.inv`` raises on it, from ``info``)."""
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return solve_singular(A, np.eye(A.shape[-1], dtype=A.dtype))


# ---------------------------------------------------------------- det, slogdet
def _slogdet_kernel(A):
    sign, logabsdet = np.linalg.slogdet(A)
    return np.asarray(sign), np.asarray(logabsdet)


# ---------------------------------------------------------------- solve
def _solve_kernel(A, B, left, vector):
    """X of A X = B (X A = B); for singular matrices LAPACK's getrs result (inf/nan), as
    PyTorch's solve_ex (``linalg.solve`` raises on it, from ``info``)."""
    def run(solve):
        a = A if left else np.swapaxes(A, -1, -2)
        if vector:
            return solve(a, B[..., None])[..., 0]
        if left:
            return solve(a, B)
        return np.asarray(np.swapaxes(solve(a, np.swapaxes(B, -1, -2)), -1, -2), order="C")
    try:
        return run(np.linalg.solve)
    except np.linalg.LinAlgError:
        return run(solve_singular)


# ---------------------------------------------------------------- cholesky
def _cholesky_kernel(A, upper):
    """The Cholesky factor; for matrices that are not positive-definite LAPACK's partial one,
    as PyTorch's cholesky_ex (``linalg.cholesky`` raises on it, from ``info``)."""
    try:
        L = np.linalg.cholesky(A)
        if not (np.diagonal(L, axis1=-2, axis2=-1).real > 0).all():  # NaN input: OpenBLAS's
            L = cholesky_partial(A)                                   # potrf does not stop
    except np.linalg.LinAlgError:
        L = cholesky_partial(A)
    return np.conj(np.swapaxes(L, -1, -2)) if upper else L


# ---------------------------------------------------------------- qr
def _qr_kernel(A, mode):
    if mode == "r":
        return np.empty((0,), A.dtype), np.linalg.qr(A, mode="r")
    Q, R = np.linalg.qr(A, mode=mode)
    return Q, R


# ---------------------------------------------------------------- eigh
def _eigh_kernel(A, UPLO):
    w, V = _lapack("linalg.eigh", lambda: np.linalg.eigh(A, UPLO=UPLO),
                   "The algorithm failed to converge because the input matrix is "
                   "ill-conditioned or has too many repeated eigenvalues.")
    return w, V


# ---------------------------------------------------------------- svd
def _svd_kernel(A, full_matrices):
    U, S, Vh = _lapack("linalg.svd", lambda: np.linalg.svd(A, full_matrices=full_matrices),
                       "The algorithm failed to converge because the input matrix is "
                       "ill-conditioned or has too many repeated singular values.")
    return U, S, Vh


# ============================================================ cdist
# The p-norm distance between each row of x1 (..., P, M) and each row of x2 (..., R, M),
# batch dims broadcast: (..., P, R).  Rules follow PyTorch's _cdist_backward, including its
# zeros where the distance is 0 (and, for p < 1, where a coordinate difference is 0).
def _cdist_kernel(x1, x2, p):
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if d.shape[-1] == 0:
        return np.zeros(d.shape[:-1], d.dtype)
    if p == 0:
        return (d != 0).sum(-1).astype(d.dtype)
    if p == 1:
        return d.sum(-1)
    if p == 2:
        return np.sqrt((d * d).sum(-1))
    if p == np.inf:
        return d.max(-1)
    return ((d ** p).sum(-1)) ** (1.0 / p)
