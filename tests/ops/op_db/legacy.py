"""OpInfos of PyTorch's deprecated linear-algebra forms (ops/api/linalg_legacy.py:
triangular_solve, lu_solve over lu_factor, qr, svd's S, nuclear_norm, frobenius_norm) and of
stft / istft (ops/api/spectral.py)."""
from __future__ import annotations

import numpy as np

from tests.ops.opinfo import A, OpInfo, Sample, randn


def _tri(rng, *shape, upper=True):
    a = randn(rng, *shape) / 2
    n = shape[-1]
    a[..., range(n), range(n)] = 2.0 + np.abs(a[..., range(n), range(n)])
    return np.triu(a) if upper else np.tril(a)


def _well(rng, *shape):
    a = randn(rng, *shape)
    k = min(shape[-2:])
    a[..., range(k), range(k)] += 4.0
    return a


def _triangular_solve(rng):
    return [Sample((A(randn(rng, 3, 2)), A(_tri(rng, 3, 3)))),
            Sample((A(randn(rng, 3, 2)), A(_tri(rng, 3, 3, upper=False)), False),
                   name="lower"),
            Sample((A(randn(rng, 3, 2)), A(_tri(rng, 3, 3))), {"upper": False},
                   name="upper triangle ignored"),
            Sample((A(randn(rng, 2, 3, 1)), A(_tri(rng, 2, 3, 3))), {"unitriangular": True},
                   name="unit, batched")]
# (a batched b with one A: PyTorch's forward AD raises -- the cloned coefficient's tangent
# is A's, not broadcast; tests/test_torch_names_small.py compares values and gradients)


def _lu_solve(rng):
    return [Sample((A(randn(rng, 3, 2)), A(_well(rng, 3, 3)))),
            Sample((A(randn(rng, 2, 3, 2)), A(_well(rng, 2, 3, 3))), name="batched")]


def _matrices(rng):
    return [Sample((A(_well(rng, 3, 3)),)), Sample((A(_well(rng, 4, 3)),), name="tall"),
            Sample((A(_well(rng, 2, 3, 3)),), name="batched")]


def _nuclear(rng):
    return [Sample((A(_well(rng, 3, 4)),)), Sample((A(_well(rng, 3, 4)), True), name="keepdim"),
            Sample((A(_well(rng, 2, 3, 3)), (1, 2)), name="dim")]


def _frobenius(rng):
    return [Sample((A(randn(rng, 3, 4)), (0, 1))), Sample((A(randn(rng, 3, 4)), 1, True),
                                                          name="one dim keepdim"),
            Sample((A(randn(rng, 2, 3, 4)), (-1, 0)), name="dims")]


def _stft(rng):
    return [Sample((A(randn(rng, 24)), 8), {"return_complex": True}),
            Sample((A(randn(rng, 2, 20)), 8, 3), {"return_complex": True, "normalized": True,
                                                  "center": False}, name="batch, hop"),
            Sample((A(randn(rng, 20)), 8), {"return_complex": True, "onesided": False,
                                            "pad_mode": "constant"}, name="two-sided")]


def _stft_window(lib, x, n_fft, *args, **kw):
    return lib.stft(x, n_fft, *args, window=lib.hann_window(n_fft, dtype=x.real.dtype), **kw)


def _istft(lib, x, n_fft, **kw):
    s = lib.stft(x, n_fft, window=lib.hann_window(n_fft, dtype=x.dtype), return_complex=True)
    return lib.istft(s, n_fft, window=lib.hann_window(n_fft, dtype=x.dtype), **kw)


def _istft_samples(rng):
    return [Sample((A(randn(rng, 24)), 8)),
            Sample((A(randn(rng, 2, 20)), 8), {"length": 18}, name="batch, length")]


def _triangular_solve_fn(lib, b, A, upper=True, transpose=False, unitriangular=False):
    # the coefficient masked to the triangle the solve reads, as a user's triangular A is:
    # PyTorch's JVP of triangular_solve also takes the tangent of the ignored triangle
    # (graphgrad's does not: docs/differences.md, tests/test_torch_names_small.py); and
    # with transpose=True PyTorch's JVP is not its derivative (the same tests: no sample here)
    k = int(unitriangular)   # (a unit diagonal is not read either)
    tri = A.triu(k) if upper else A.tril(-k)
    return lib.triangular_solve(b, tri, upper, transpose, unitriangular)


OPS = [
    OpInfo("triangular_solve", _triangular_solve, fn=_triangular_solve_fn, complex=True),
    OpInfo("lu_solve", _lu_solve, fn=lambda lib, b, a: lib.lu_solve(b, *lib.linalg.lu_factor(a)),
           complex=True),
    OpInfo("qr", _matrices, fn=lambda lib, a: lib.qr(a).R, dtypes=("float64",)),
    OpInfo("svd", _matrices, fn=lambda lib, a: lib.svd(a).S),
    OpInfo("nuclear_norm", _nuclear),
    OpInfo("frobenius_norm", _frobenius, complex=True),
    OpInfo("stft", _stft, complex=False,
           skips={"fd": "complex outputs of real inputs: the generic finite-difference loss is "
                        "real-valued (gradcheck in tests/fft/test_spectral.py instead)"}),
    OpInfo("stft_window", _stft, fn=_stft_window, complex=True,
           skips={"fd": "complex outputs of real inputs (as stft)"}),
    OpInfo("istft", _istft_samples, fn=_istft),
]
