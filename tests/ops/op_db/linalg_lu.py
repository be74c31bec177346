"""OpInfos of linalg.lu_factor, linalg.lu and linalg.lu_solve (square matrices)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _lu_samples(rng):
    return [Sample((A(randn(rng, 4, 4)),)), Sample((A(randn(rng, 2, 3, 3)),), name="batched")]


def _lu_rect_samples(rng):
    return [Sample((A(randn(rng, 3, 5)),), name="wide"), Sample((A(randn(rng, 5, 3)),),
                                                                name="tall"),
            Sample((A(randn(rng, 2, 4, 2)),), name="tall batched")]


def _packed(a):
    """LU and pivots of ``a`` (a plain Doolittle with partial pivoting, as LAPACK's)."""
    a = a.copy()
    n = a.shape[0]
    piv = np.zeros(n, np.int32)
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv[j] = p + 1
        a[[j, p]] = a[[p, j]]
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, piv


def _lu_solve(rng):
    lu, piv = _packed(randn(rng, 4, 4) + 3 * np.eye(4))
    return [Sample((A(lu), I(piv), A(randn(rng, 4, 2)))),
            Sample((A(lu), I(piv), A(randn(rng, 2, 4, 3))), name="batched B")]


def _lu_solve_forward(rng):
    lu, piv = _packed(randn(rng, 3, 3) + 3 * np.eye(3))
    return [Sample((A(lu), I(piv), A(randn(rng, 3, 2))), {"adjoint": True}, name="adjoint"),
            Sample((A(lu), I(piv), A(randn(rng, 2, 3))), {"left": False}, name="right"),
            Sample((A(lu), I(piv), A(randn(rng, 2, 2, 3))), {"left": False, "adjoint": True},
                   name="right adjoint, batched B")]


OPS = [
    OpInfo("linalg.lu_factor", _lu_samples, complex=True, nondiff_outputs=(1,)),
    OpInfo("linalg.lu", _lu_samples, complex=True, nondiff_outputs=(0,)),
    OpInfo("linalg.lu_factor_rectangular", _lu_rect_samples,
           fn=lambda lib, a: lib.linalg.lu_factor(a), complex=True, nondiff_outputs=(1,)),
    OpInfo("linalg.lu_rectangular", _lu_rect_samples, fn=lambda lib, a: lib.linalg.lu(a),
           complex=True, nondiff_outputs=(0,)),
    OpInfo("linalg.lu_solve", _lu_solve, complex=True),
    OpInfo("linalg.lu_solve_variants", _lu_solve_forward,
           fn=lambda lib, *a, **k: lib.linalg.lu_solve(*a, **k), complex=True),
]


def _sym(rng, n, zero_corner=False):
    a = randn(rng, n, n)
    a = a + a.T
    if zero_corner:                       # (forces 2x2 pivots)
        a[0, 0], a[1, 1] = 0.0, 0.01
    return a


def _ldl_factor(rng):
    return [Sample((I(_sym(rng, 4), cast=True),)),
            Sample((I(_sym(rng, 5, True), cast=True),), name="2x2 pivots"),
            Sample((I(np.stack([_sym(rng, 3), _sym(rng, 3, True)]), cast=True),),
                   name="batched")]


def _ldl_solve_call(lib, A_, B):
    LD, piv = lib.linalg.ldl_factor(A_)
    return lib.linalg.ldl_solve(LD, piv, B)


def _ldl_solve(rng):
    return [Sample((I(_sym(rng, 4), cast=True), I(randn(rng, 4, 2), cast=True))),
            Sample((I(_sym(rng, 5, True), cast=True), I(randn(rng, 5, 3), cast=True)),
                   name="2x2 pivots")]


OPS += [
    OpInfo("linalg.ldl_factor", _ldl_factor, grad=False, complex=True),
    OpInfo("linalg.ldl_solve", _ldl_solve, fn=_ldl_solve_call, grad=False, complex=True),
]
