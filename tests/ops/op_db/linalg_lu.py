"""OpInfos of linalg.lu_factor, linalg.lu and linalg.lu_solve (square matrices)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, I, OpInfo, Sample, randn


def _lu_samples(rng):
    return [Sample((A(randn(rng, 4, 4)),)), Sample((A(randn(rng, 2, 3, 3)),), name="batched")]


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
    lu, piv = _packed(randn(rng, 3, 3))
    return [Sample((A(lu), I(piv), A(randn(rng, 3, 2))), {"adjoint": True}, name="adjoint"),
            Sample((A(lu), I(piv), A(randn(rng, 2, 3))), {"left": False}, name="right")]


_NOT_HERE = ("left=False / adjoint=True are not differentiable here (NotImplementedError); "
             "their values are compared")

OPS = [
    OpInfo("linalg.lu_factor", _lu_samples, complex=True, nondiff_outputs=(1,)),
    OpInfo("linalg.lu", _lu_samples, complex=True, nondiff_outputs=(0,)),
    OpInfo("linalg.lu_solve", _lu_solve, complex=True),
    OpInfo("linalg.lu_solve_variants", _lu_solve_forward,
           fn=lambda lib, *a, **k: lib.linalg.lu_solve(*a, **k),
           skips={k: _NOT_HERE for k in ("vjp", "fd", "gradgrad", "jvp", "batched")}),
]
