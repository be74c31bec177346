"""OpInfos of the linalg family (see tests/ops/opinfo.py).

Decompositions get well-conditioned samples: ``_wellcond`` adds ``n I`` to a
random matrix (invertible, and still so after the complex materialisation adds
an imaginary part of at most 0.5 per entry).  Hermitian positive-definite
inputs are built *inside* the op's ``fn`` from an unconstrained X
(``X X^H + n I``): cholesky/eigh read only one triangle, so feeding them a
free matrix would make finite differences disagree with the (symmetric)
gradients; composing keeps every perturbation Hermitian, as PyTorch's own
OpInfos do.

Eigenvectors and singular vectors are unique only up to a sign (real) or a
phase (complex) per vector, and NumPy's LAPACK and PyTorch's need not pick the
same one.  Their ``fn`` therefore returns gauge-invariant quantities: the
eigen/singular values, ``|v|^2`` elementwise, and ``V diag(w) V^H`` /
``U diag(w) Vh``.  These still depend on every entry of the vectors, so the
forward values, VJPs, JVPs and double backward are fully tested, and PyTorch
accepts the losses as phase-invariant.
"""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, positive, randn  # noqa: F401

INF = float("inf")


def _wellcond(rng, *shape):
    n = shape[-1]
    return randn(rng, *shape) + n * np.eye(n)


def _orth(rng, n):
    q, r = np.linalg.qr(randn(rng, n, n))
    return q * np.sign(np.diag(r))


def _spectral(rng, *shape, svals=None):
    """Matrices with well-separated singular values ``svals`` (default: evenly spaced)."""
    m, n = shape[-2:]
    k = min(m, n)
    s = np.asarray(svals if svals is not None else 3.0 * np.arange(k, 0, -1))
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        U, V = _orth(rng, m)[:, :k], _orth(rng, n)[:, :k]
        out[idx] = (U * s) @ V.T
    return out


def _sym_spectral(rng, *shape):
    """Real X such that X + X^T has eigenvalues -6, 1, 8, ... (well separated)."""
    n = shape[-1]
    lam = np.linspace(-6.0, 8.0, n) if n > 1 else np.array([1.5])
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        Q = _orth(rng, n)
        out[idx] = (Q * (lam / 2)) @ Q.T
    return out


def _hpd(lib, X):
    """A Hermitian positive-definite matrix from any square X."""
    n = X.shape[-1]
    return lib.matmul(X, lib.conj_physical(X.mT)) + n * lib.eye(n, dtype=X.dtype)


def _herm(lib, X):
    """A Hermitian matrix (distinct eigenvalues for generic X)."""
    return X + lib.conj_physical(X.mT)


def _abs2(lib, V):
    return V * lib.conj_physical(V)


def _weights(lib, n, like):
    return lib.tensor(np.arange(1.0, n + 1.0) / n).to(like.dtype)


def _eigh_fn(lib, X, **kw):
    L, V = lib.linalg.eigh(_herm(lib, X), **kw)
    w = _weights(lib, L.shape[-1], V)
    return L, _abs2(lib, V), lib.matmul(V * w, lib.conj_physical(V.mT))


def _svd_fn(lib, X, **kw):
    U, S, Vh = lib.linalg.svd(X, **kw)
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]   # full_matrices: the extra vectors are not unique
    w = _weights(lib, k, U)
    return S, _abs2(lib, U), _abs2(lib, Vh), lib.matmul(U * w, Vh)


def _einsum_samples(rng):
    r = lambda *s: A(randn(rng, *s))  # noqa: E731
    return [
        Sample(("ij,jk->ik", r(2, 3), r(3, 4)), name="matmul"),
        Sample(("ii", r(3, 3)), name="trace"),
        Sample(("ii->i", r(3, 3)), name="diagonal"),
        Sample(("iji->j", r(3, 2, 3)), name="repeated, non-adjacent"),
        Sample(("ij->ji", r(2, 3)), name="transpose"),
        Sample(("ij->", r(2, 3)), name="sum all"),
        Sample(("i,j->ij", r(3), r(2)), name="outer"),
        Sample(("bi,Ai", r(2, 3), r(4, 3)), name="implicit output, upper before lower"),
        Sample(("...ij,...jk", r(2, 1, 2, 3), r(4, 3, 2)), name="ellipsis broadcast"),
        Sample(("b...,b...->...", r(2, 3), r(2, 1)), name="ellipsis output"),
        Sample(("i,i->i", r(1), r(3)), name="size-1 broadcast"),
        Sample(("iij,k->ijk", r(3, 3, 2), r(2)), name="diagonal into output"),
        Sample(("ij,jk,kl->il", r(2, 3), r(3, 4), r(4, 2)), name="three operands"),
        Sample(("i,i", r(3), r(3)), name="dot, 0-d result"),
        Sample(("", r()), name="0-d operand"),
        Sample(("a b, b c -> a c", r(2, 2), r(2, 3)), name="spaces"),
    ]


def _sublist_samples(rng):
    return [Sample((A(randn(rng, 2, 3)), [0, 1], A(randn(rng, 3, 4)), [1, 2], [0, 2])),
            Sample((A(randn(rng, 2, 3, 3)), [Ellipsis, 1, 1])),
            Sample((A(randn(rng, 3, 3)), [0, 0]), name="implicit trace")]


def _qr_samples(rng):
    return [Sample((A(_spectral(rng, 4, 3)),), name="tall"),
            Sample((A(_spectral(rng, 3, 3)),), name="square"),
            Sample((A(_spectral(rng, 3, 5)),), name="wide"),
            Sample((A(_spectral(rng, 2, 4, 3)),), name="batched"),
            Sample((A(_spectral(rng, 1, 1)),), name="1x1"),
            Sample((A(_spectral(rng, 3, 3)), "complete"), name="complete square"),
            Sample((A(_spectral(rng, 2, 3)),), {"mode": "complete"}, name="complete wide")]


def _solve_samples(rng):
    w = _wellcond
    return [Sample((A(w(rng, 3, 3)), A(randn(rng, 3, 2)))),
            Sample((A(w(rng, 3, 3)), A(randn(rng, 3))), name="vector"),
            Sample((A(w(rng, 2, 3, 3)), A(randn(rng, 3, 2))), name="batched A"),
            Sample((A(w(rng, 3, 3)), A(randn(rng, 2, 3, 1))), name="batched B"),
            Sample((A(w(rng, 2, 3, 3)), A(randn(rng, 2, 3))), name="batched vector"),
            Sample((A(w(rng, 3, 3)), A(randn(rng, 2, 3))), {"left": False}, name="left=False"),
            Sample((A(w(rng, 1, 1)), A(randn(rng, 1, 1))), name="1x1")]


def _square_samples(rng):
    w = _wellcond
    return [Sample((A(w(rng, 3, 3)),)), Sample((A(w(rng, 2, 3, 3)),), name="batched"),
            Sample((A(w(rng, 1, 1)),), name="1x1"),
            Sample((A(randn(rng, 2, 2) - 3 * np.eye(2)),), name="negative det")]


def _matrix_norm_samples(rng, ords):
    out = []
    for o in ords:
        out.append(Sample((A(_spectral(rng, 3, 4)), o)))
        out.append(Sample((A(_spectral(rng, 2, 3, 2)), o), {"dim": (2, 0), "keepdim": True},
                          name="dim, keepdim"))
    return out


OPS = [
    OpInfo("vdot", lambda rng: [Sample((A(randn(rng, 3)), A(randn(rng, 3)))),
                                Sample((A(randn(rng, 1)), A(randn(rng, 1))), name="size 1")],
           complex=True),
    OpInfo("outer", lambda rng: [Sample((A(randn(rng, 3)), A(randn(rng, 4)))),
                                 Sample((A(randn(rng, 1)), A(randn(rng, 2))), name="size 1")],
           complex=True, aliases=("ger",)),
    OpInfo("einsum", _einsum_samples, complex=True),
    OpInfo("einsum_sublist", _sublist_samples, fn=lambda lib, *a: lib.einsum(*a), complex=True),
    OpInfo("tensordot", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 3, 4, 2)))),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 2)), 1), name="dims=1"),
        Sample((A(randn(rng, 2)), A(randn(rng, 3)), 0), name="dims=0"),
        Sample((A(randn(rng, 2, 3, 4)), A(randn(rng, 3, 4, 2))), {"dims": ([1, 0], [0, 2])},
               name="dim lists"),
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 2))), {"dims": ([1], [0])}, name="pair"),
    ], complex=True),
    OpInfo("trace", lambda rng: [Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3, 3)),)),
                                 Sample((A(randn(rng, 1, 1)),), name="1x1")], complex=True),
    OpInfo("diag", lambda rng: [
        Sample((A(randn(rng, 3)),)), Sample((A(randn(rng, 3)), 1)), Sample((A(randn(rng, 3)), -2)),
        Sample((A(randn(rng, 1)),), name="size 1"),
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 4, 3)), -2)), Sample((A(randn(rng, 3, 4)), 5), name="empty"),
    ], complex=True),
    OpInfo("diagonal", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), -1, 2, 0)),
        Sample((A(randn(rng, 2, 3, 4)),), {"offset": 1, "dim1": -1, "dim2": 1}),
        Sample((A(randn(rng, 1, 1)),), name="1x1"),
    ], complex=True),
    OpInfo("linalg.diagonal", lambda rng: [
        Sample((A(randn(rng, 2, 3, 4)),)), Sample((A(randn(rng, 2, 3, 4)),), {"offset": -1}),
        Sample((A(randn(rng, 2, 3, 4)),), {"dim1": 0, "dim2": 2})], complex=True),
    OpInfo("diag_embed", lambda rng: [
        Sample((A(randn(rng, 3)),)), Sample((A(randn(rng, 2, 3)), 1)),
        Sample((A(randn(rng, 2, 3)), -1, 0, 2)), Sample((A(randn(rng, 2, 3)),), {"dim1": 2,
                                                                                   "dim2": 0})],
           complex=True),
    OpInfo("tril", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), -1)), Sample((A(randn(rng, 4, 3)),), {"diagonal": 2}),
        Sample((A(randn(rng, 1, 1)),), name="1x1"),
    ], inplace="tril_", complex=True),
    OpInfo("triu", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 3, 4)), 1)),
        Sample((A(randn(rng, 2, 3, 4)), -1)), Sample((A(randn(rng, 4, 3)),), {"diagonal": -5}),
    ], inplace="triu_", complex=True),
    OpInfo("kron", lambda rng: [
        Sample((A(randn(rng, 2, 3)), A(randn(rng, 3, 2)))),
        Sample((A(randn(rng, 3)), A(randn(rng, 2, 2))), name="different ndim"),
        Sample((A(randn(rng)), A(randn(rng, 2))), name="0-d"),
        Sample((A(randn(rng, 2, 1, 2)), A(randn(rng, 1, 2))), name="size 1"),
    ], complex=True),
    # ------------------------------------------------------------ decompositions
    OpInfo("linalg.inv", _square_samples, complex=True),
    OpInfo("linalg.inv_ex", _square_samples, complex=True, nondiff_outputs=(1,)),
    OpInfo("inverse", _square_samples, complex=True),
    OpInfo("linalg.det", _square_samples, complex=True),
    OpInfo("det", _square_samples, complex=True),
    OpInfo("linalg.slogdet", _square_samples, complex=True),
    OpInfo("slogdet", _square_samples, complex=True),
    OpInfo("logdet", lambda rng: [Sample((A(randn(rng, 3, 3)),)),
                                  Sample((A(randn(rng, 2, 2, 2)),), name="batched")],
           fn=lambda lib, X: lib.logdet(_hpd(lib, X)), complex=True),
    OpInfo("linalg.solve", _solve_samples, complex=True),
    OpInfo("linalg.solve_ex", lambda rng: _solve_samples(rng)[:2], complex=True,
           nondiff_outputs=(1,)),
    OpInfo("linalg.cholesky", lambda rng: [
        Sample((A(randn(rng, 3, 3)),)), Sample((A(randn(rng, 2, 3, 3)),), name="batched"),
        Sample((A(randn(rng, 1, 1)),), name="1x1"),
        Sample((A(randn(rng, 3, 3)),), {"upper": True}, name="upper"),
    ], fn=lambda lib, X, **kw: lib.linalg.cholesky(_hpd(lib, X), **kw), complex=True),
    OpInfo("linalg.cholesky_ex", lambda rng: [Sample((A(randn(rng, 2, 3, 3)),))],
           fn=lambda lib, X, **kw: lib.linalg.cholesky_ex(_hpd(lib, X), **kw), complex=True,
           nondiff_outputs=(1,)),
    OpInfo("linalg.qr", _qr_samples, complex=True),
    OpInfo("linalg.eigh", lambda rng: [
        Sample((A(_sym_spectral(rng, 3, 3)),)),
        Sample((A(_sym_spectral(rng, 2, 3, 3)),), name="batched"),
        Sample((A(_sym_spectral(rng, 1, 1)),), name="1x1"),
        Sample((A(_sym_spectral(rng, 3, 3)),), {"UPLO": "U"}, name="UPLO=U"),
    ], fn=_eigh_fn, complex=True),
    OpInfo("linalg.eigvalsh", lambda rng: [Sample((A(_sym_spectral(rng, 3, 3)),)),
                                           Sample((A(_sym_spectral(rng, 2, 3, 3)), "U"))],
           fn=lambda lib, X, *a: lib.linalg.eigvalsh(_herm(lib, X), *a), complex=True),
    OpInfo("linalg.svd", lambda rng: [
        Sample((A(_spectral(rng, 3, 3)),), {"full_matrices": False}, name="square"),
        Sample((A(_spectral(rng, 4, 3)),), {"full_matrices": False}, name="tall"),
        Sample((A(_spectral(rng, 3, 4)),), {"full_matrices": False}, name="wide"),
        Sample((A(_spectral(rng, 2, 3, 2)),), {"full_matrices": False}, name="batched"),
        Sample((A(_spectral(rng, 1, 1)),), {"full_matrices": False}, name="1x1"),
        Sample((A(_spectral(rng, 3, 3)),), name="full_matrices square"),
    ], fn=_svd_fn, complex=True),
    # full_matrices=True on non-square input: only the first min(m, n) vectors are determined
    # by A; derivatives use those (the others get zero tangents), as PyTorch's do
    OpInfo("linalg.svd_full", lambda rng: [
        Sample((A(_spectral(rng, 4, 3)),), name="tall"),
        Sample((A(_spectral(rng, 2, 4)),), name="wide"),
    ], fn=_svd_fn, complex=True),
    OpInfo("linalg.svdvals", lambda rng: [Sample((A(_spectral(rng, 3, 4)),)),
                                          Sample((A(_spectral(rng, 2, 3, 2)),), name="batched")],
           complex=True),
    # ------------------------------------------------------------ norms
    OpInfo("linalg.matrix_norm", lambda rng: _matrix_norm_samples(
        rng, ["fro", "nuc", 2, -2, 1, -1, INF, -INF]) + [
        Sample((A(_spectral(rng, 3, 4)),), name="default ord")], complex=True),
    OpInfo("linalg.norm", lambda rng: [
        Sample((A(randn(rng, 3, 4)),), name="flattened 2-norm"),
        Sample((A(randn(rng, 2, 3, 4)),), name="flattened 3-d"),
        Sample((A(randn(rng, 4)), 3), name="vector ord"),
        Sample((A(randn(rng, 4)), INF), name="vector inf"),
        Sample((A(randn(rng, 3, 4)), "fro")), Sample((A(_spectral(rng, 3, 4)), "nuc")),
        Sample((A(_spectral(rng, 3, 4)), 2)), Sample((A(randn(rng, 3, 4)), -INF)),
        Sample((A(randn(rng, 2, 3, 4)), None, 1), name="dim int"),
        Sample((A(randn(rng, 2, 3, 4)), 1, (2, 0), True), name="matrix dim keepdim"),
        Sample((A(randn(rng, 2, 3, 4)),), {"dim": (-1,), "keepdim": True}, name="dim 1-tuple"),
    ], complex=True),
]
