"""OpInfos of the ops-point linear-algebra additions: matrix_exp / linalg.matrix_exp,
linalg.pinv / pinverse, cholesky (legacy), cholesky_solve, cholesky_inverse, vander /
linalg.vander."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, OpInfo, Sample, randn


def _spd(rng, *batch, n=3):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _chol(rng, *batch, n=3):
    return np.linalg.cholesky(_spd(rng, *batch, n=n))


def _matrix_exp(rng):
    return [Sample((A(randn(rng, 3, 3)),)), Sample((A(randn(rng, 2, 3, 3)),), name="batched"),
            Sample((A(randn(rng, 4, 4) * 3),), name="scaled and squared")]


def _conditioned(rng, *shape):
    """A random matrix with 4 added on its leading diagonal (singular values apart from 0)."""
    a = randn(rng, *shape)
    k = min(shape[-2:])
    a[..., range(k), range(k)] += 4.0
    return a


def _pinv(rng):
    return [Sample((A(_conditioned(rng, 3, 4)),), name="wide"),
            Sample((A(_conditioned(rng, 4, 3)),), name="tall"),
            Sample((A(_conditioned(rng, 2, 3, 3)),), name="batched"),
            Sample((A(_conditioned(rng, 4, 3)),), {"rtol": 1e-3}, name="rtol"),
            Sample((A(_spd(rng)),), {"hermitian": True}, name="hermitian")]


def _cholesky(rng):
    return [Sample((A(_spd(rng)),)), Sample((A(_spd(rng)), True), name="upper"),
            Sample((A(_spd(rng, 2)),), name="batched")]


def _cholesky_inverse(rng):
    return [Sample((A(_chol(rng)),)),
            Sample((A(np.swapaxes(_chol(rng), -1, -2)), True), name="upper"),
            Sample((A(_chol(rng, 2)),), name="batched")]


def _cholesky_solve(rng):
    return [Sample((A(randn(rng, 3, 2)), A(_chol(rng)))),
            Sample((A(randn(rng, 3, 2)), A(np.swapaxes(_chol(rng), -1, -2)), True),
                   name="upper"),
            Sample((A(randn(rng, 2, 3, 2)), A(_chol(rng))), name="batched b")]


def _vander(rng):
    return [Sample((A(randn(rng, 4)),)), Sample((A(randn(rng, 3)), 5), name="N")]


def _vander_increasing(rng):
    return [Sample((A(randn(rng, 3)),), {"increasing": True}),
            Sample((A(randn(rng, 3)), 2, True), name="N")]


def _linalg_vander(rng):
    return [Sample((A(randn(rng, 4)),)), Sample((A(randn(rng, 2, 3)),), {"N": 4},
                                                name="batched N")]


def _tri(rng, *shape, upper=True):
    a = randn(rng, *shape) / 2
    n = shape[-1]
    a[..., range(n), range(n)] = 2.0 + np.abs(a[..., range(n), range(n)])
    return np.triu(a) if upper else np.tril(a)


def _solve_triangular(rng):
    return [Sample((A(_tri(rng, 3, 3)), A(randn(rng, 3, 2))), {"upper": True}),
            Sample((A(_tri(rng, 3, 3, upper=False)), A(randn(rng, 2, 3))),
                   {"upper": False, "left": False}, name="lower right"),
            Sample((A(_tri(rng, 3, 3)), A(randn(rng, 2, 3, 2))),
                   {"upper": True, "unitriangular": True}, name="unit, batched B")]


def _lstsq(rng):
    return [Sample((A(_conditioned(rng, 4, 3)), A(randn(rng, 4, 2))), name="tall"),
            Sample((A(_conditioned(rng, 3, 4)), A(randn(rng, 3, 2))), name="wide"),
            Sample((A(_conditioned(rng, 2, 4, 3)), A(randn(rng, 2, 4, 2))), name="batched")]


def _lstsq_residuals(rng):
    return [Sample((A(_conditioned(rng, 5, 3)), A(randn(rng, 5, 2))), {"driver": "gelsd"}),
            Sample((A(_conditioned(rng, 5, 3)), A(randn(rng, 5, 2))), {"driver": "gels"},
                   name="gels")]


def _cond(rng):
    return [Sample((A(_conditioned(rng, 3, 3)),)), Sample((A(_conditioned(rng, 3, 4)),),
                                                          name="wide"),
            Sample((A(_conditioned(rng, 3, 3)), -2), name="-2")]


def _cond_norms(rng):
    return [Sample((A(_conditioned(rng, 3, 3)), "fro"), name="fro"),
            Sample((A(_conditioned(rng, 2, 3, 3)), 1), name="1, batched")]


_RESIDUALS = ("PyTorch's backward ignores the residuals' gradient (their node is "
              "differentiable, its formula uses the solution's only); graphgrad's is the "
              "residuals' derivative at the optimum (docs/differences.md; finite differences)")

_COND = ("PyTorch 2.13's cond in the fro/nuc/1/inf norms cannot be differentiated (it "
         "modifies linalg.inv_ex's result in place: backward raises); graphgrad's gradient "
         "is checked against finite differences")

def _eig(rng):
    return [Sample((A(randn(rng, 4, 4)),)), Sample((A(randn(rng, 2, 3, 3)),), name="batched")]


def _eig_invariant(lib, x):
    """The eigenvalues and |eigenvectors| (a loss of V itself depends on its phases)."""
    L, V = lib.linalg.eig(x)
    return L, V.abs()


_EIG_FD = ("complex outputs of a real input: the generic finite differences take another "
           "convention for the loss; test_ops_point.py checks a real loss of L and |V|")

_GAUGE = ("the hermitian pinv's derivative assumes a symmetric perturbation: finite "
          "differences of a general perturbation differ")
_SYM = "the factor depends on one triangle: finite differences of a general perturbation differ"

_TRI = ("the kernel reads one triangle of the factor, the rules take the whole matrix (as "
        "PyTorch's): finite differences of a general perturbation differ")
_CI_JVP = ("PyTorch's forward-mode formula for cholesky_inverse disagrees with its own "
           "backward and with finite differences (2.13); graphgrad's tangent is the backward's "
           "transpose (docs/differences.md)")

_VANDER = ("PyTorch 2.13's vander cannot be differentiated (its cumprod's input is modified "
           "in place: backward raises); graphgrad's gradient is checked against finite "
           "differences (docs/differences.md)")

OPS = [
    OpInfo("matrix_exp", _matrix_exp, complex=True, aliases=("linalg.matrix_exp",)),
    OpInfo("linalg.matrix_exp", _matrix_exp),
    OpInfo("linalg.pinv", _pinv, complex=True, skips={"fd": _GAUGE}),
    OpInfo("pinverse", lambda rng: _pinv(rng)[:3]),
    OpInfo("cholesky", _cholesky, complex=True, fwd_ad=False, skips={"fd": _SYM}),
    # (complex: PyTorch's LAPACK potri takes the factor's diagonal as real; these samples'
    # diagonals are not -- not compared)
    OpInfo("cholesky_inverse", _cholesky_inverse, skips={"fd": _TRI, "jvp": _CI_JVP}),
    OpInfo("cholesky_solve", _cholesky_solve, complex=True, skips={"fd": _TRI}),
    OpInfo("linalg.solve_triangular", _solve_triangular, complex=True),
    OpInfo("linalg.lstsq", _lstsq, complex=True, nondiff_outputs=(2, 3)),
    OpInfo("linalg.lstsq_residuals", _lstsq_residuals,
           fn=lambda lib, *a, **k: lib.linalg.lstsq(*a, **k),
           nondiff_outputs=(2, 3), skips={k: _RESIDUALS for k in ("vjp", "gradgrad", "jvp")}),
    OpInfo("linalg.cond", _cond),
    OpInfo("linalg.cond_norms", _cond_norms, fn=lambda lib, *a, **k: lib.linalg.cond(*a, **k),
           skips={k: _COND for k in ("vjp", "gradgrad")}),
    OpInfo("linalg.matrix_rank", lambda rng: [
        Sample((A(randn(rng, 3, 4)),)), Sample((A(randn(rng, 2, 4, 3)),), name="batched"),
        Sample((A(randn(rng, 4, 4) @ np.diag([1, 1, 1, 0.0])),), name="singular"),
        Sample((A(randn(rng, 3, 4)),), {"atol": 1.0, "rtol": 0.1}, name="tolerances")],
        grad=False),
    OpInfo("linalg.tensorinv", lambda rng: [
        Sample((A(_conditioned(rng, 6, 6).reshape(2, 3, 6)),), name="ind 2"),
        Sample((A(_conditioned(rng, 4, 4).reshape(4, 2, 2)), 1), name="ind 1")]),
    OpInfo("linalg.tensorsolve", lambda rng: [
        Sample((A(_conditioned(rng, 6, 6).reshape(2, 3, 6)), A(randn(rng, 2, 3)))),
        Sample((A(_conditioned(rng, 6, 6).reshape(2, 3, 6)), A(randn(rng, 6))),
               {"dims": (0, 1)}, name="dims")]),
    OpInfo("linalg.householder_product", lambda rng: [
        Sample((A(randn(rng, 4, 3)), A(rng.uniform(0.2, 1.5, 2)))),
        Sample((A(randn(rng, 2, 3, 3)), A(rng.uniform(0.2, 1.5, (2, 3)))), name="batched")],
        complex=True),
    OpInfo("linalg.eigvals", _eig, complex=True, dtypes=("float64",), skips={"fd": _EIG_FD}),
    OpInfo("linalg.eigvals_float32", _eig, fn=lambda lib, x: lib.linalg.eigvals(x),
           dtypes=("float32",), skips={"gradgrad": "float32 eigenvalue second derivatives "
                                                    "differ from PyTorch's by ~1e-3 relative"}),
    OpInfo("linalg.eig", _eig, fn=_eig_invariant, complex=True, skips={"fd": _EIG_FD}),
    OpInfo("vander", _vander, complex=True, skips={k: _VANDER for k in ("vjp", "gradgrad")}),
    OpInfo("vander_increasing", _vander_increasing, fn=lambda lib, *a, **k: lib.vander(*a, **k),
           complex=True, skips={k: _VANDER for k in ("vjp", "gradgrad")}),
    OpInfo("linalg.vander", _linalg_vander, complex=True),
]
