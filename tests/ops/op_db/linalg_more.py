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
    OpInfo("vander", _vander, complex=True, skips={k: _VANDER for k in ("vjp", "gradgrad")}),
    OpInfo("vander_increasing", _vander_increasing, fn=lambda lib, *a, **k: lib.vander(*a, **k),
           complex=True, skips={k: _VANDER for k in ("vjp", "gradgrad")}),
    OpInfo("linalg.vander", _linalg_vander, complex=True),
]
