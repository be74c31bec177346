"""graphgrad.numpy.linalg: values equal numpy.linalg's; derivatives (of gauge-invariant
functions of the decompositions) match finite differences in both modes and torch."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from tests.conftest import torch
from tests.numpy._harness import check_grads, check_values, check_vmap

R = np.random.default_rng(40)
S = R.standard_normal((3, 3)) + 3 * np.eye(3)
SB = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
_Q = R.standard_normal((3, 3))
SPD = _Q @ _Q.T + 3 * np.eye(3)
B3 = R.standard_normal(3)
B32 = R.standard_normal((3, 2))
M43 = R.standard_normal((4, 3))


def _sym(x):
    return (x + x.T) / 2 if x.ndim == 2 else (x + x.swapaxes(-1, -2)) / 2


SAMPLES = [
    ("inv", lambda np_, x: np_.linalg.inv(x), S, lambda t, x: t.linalg.inv(x)),
    ("inv_batched", lambda np_, x: np_.linalg.inv(x), SB, None),
    ("det", lambda np_, x: np_.linalg.det(x), S, lambda t, x: t.linalg.det(x)),
    ("slogdet", lambda np_, x: np_.linalg.slogdet(x)[1], S,
     lambda t, x: t.linalg.slogdet(x)[1]),
    ("solve_vec", lambda np_, x: np_.linalg.solve(x, B3), S, None),
    ("solve_mat", lambda np_, x: np_.linalg.solve(x, np_.add(x[:, :2], B32)), S, None),
    ("solve_batched", lambda np_, x: np_.linalg.solve(x, B32), SB, None),
    ("cholesky", lambda np_, x: np_.linalg.cholesky(_sym(x)), SPD,
     lambda t, x: t.linalg.cholesky(_sym(x))),
    ("eigh_values", lambda np_, x: np_.linalg.eigh(_sym(x))[0], SPD, None),
    ("eigh_projector", lambda np_, x: (lambda w, v: v[:, :1] @ v[:, :1].T)(
        *np_.linalg.eigh(_sym(x))), SPD, None),
    ("eigvalsh", lambda np_, x: np_.linalg.eigvalsh(_sym(x)), SPD, None),
    ("svd_values", lambda np_, x: np_.linalg.svd(x, compute_uv=False), M43,
     lambda t, x: t.linalg.svdvals(x)),
    ("svd_reconstruct", lambda np_, x: (lambda u, s, vh: (u * s) @ vh)(
        *np_.linalg.svd(x, full_matrices=False)), M43, None),
    ("qr_r_abs", lambda np_, x: np_.abs(np_.linalg.qr(x)[1]), M43, None),
    ("norm", lambda np_, x: np_.linalg.norm(x), M43, lambda t, x: t.linalg.norm(x)),
    ("norm_axis", lambda np_, x: np_.linalg.norm(x, axis=1), M43, None),
    ("norm_ord1_axis0", lambda np_, x: np_.linalg.norm(x, 1, axis=0, keepdims=True), M43,
     None),
    ("norm_fro", lambda np_, x: np_.linalg.norm(x, "fro"), M43, None),
    ("norm_nuc", lambda np_, x: np_.linalg.norm(x, "nuc"), M43, None),
    ("norm_inf_matrix", lambda np_, x: np_.linalg.norm(x, np.inf), M43, None),
    ("norm_vec_ord3", lambda np_, x: np_.linalg.norm(x[0], 3), M43, None),
    ("matrix_power", lambda np_, x: np_.linalg.matrix_power(x, 3), S, None),
    ("matrix_power_neg", lambda np_, x: np_.linalg.matrix_power(x, -2), S, None),
    ("pinv", lambda np_, x: np_.linalg.pinv(x), M43, None),
]


@pytest.mark.parametrize("name,f,x,tf", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_linalg(name, f, x, tf):
    check_values(f, (x,)) if name not in ("pinv",) else \
        np.testing.assert_allclose(f(gnp, graphgrad.tensor(x)).numpy(), f(np, x), atol=1e-12)
    check_grads(f, (x,), np.random.default_rng(41), tf, torch)
    if name != "pinv":   # (which singular values count is read from the data)
        check_vmap(f, (x,))


def test_errors_have_numpy_types():
    for f, exc in [(lambda np_, x: np_.linalg.inv(x), np.linalg.LinAlgError),
                   (lambda np_, x: np_.linalg.det(x[0]), np.linalg.LinAlgError),
                   (lambda np_, x: np_.linalg.solve(x[:3], np.ones(4)), ValueError),
                   (lambda np_, x: np_.linalg.norm(x, "bad"), ValueError),
                   (lambda np_, x: np_.linalg.norm(x[None]), ValueError)
                   if False else (lambda np_, x: np_.linalg.norm(x[None], 2), ValueError)]:
        with pytest.raises(exc):
            f(np, M43)
        with pytest.raises(exc):
            f(gnp, graphgrad.tensor(M43))
    singular = np.ones((3, 3))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(singular)
    with pytest.raises(np.linalg.LinAlgError):
        gnp.linalg.inv(graphgrad.tensor(singular))
    with pytest.raises(np.linalg.LinAlgError):
        gnp.linalg.cholesky(graphgrad.tensor(-np.eye(2)))


def test_numpy_only_functions_refuse_tensors():
    assert np.allclose(gnp.linalg.eigvals(S), np.linalg.eigvals(S))
    with pytest.raises(NotImplementedError, match="linalg.eigvals"):
        gnp.linalg.eigvals(graphgrad.tensor(S))
    assert np.allclose(gnp.fft.fft(B3), np.fft.fft(B3))
    with pytest.raises(NotImplementedError, match="fft.fft"):
        gnp.fft.fft(graphgrad.tensor(B3))
