"""MmBackward0's ``grad @ mat2^T`` with a batched gradient (vectorized jacobian / hessian,
vmap): the gradient's rows are stacked into one product instead of NumPy's loop over the
batch.  Same values as PyTorch's, for contiguous and non-contiguous batched gradients."""
import numpy as np
import torch

import graphgrad as gg
from graphgrad.ops.derivatives import linalg as L


def _spy(monkeypatch):
    shapes = []
    real = L._np_matmul

    def spy(a, b):
        shapes.append(a.shape)
        return real(a, b)
    monkeypatch.setattr(L, "_np_matmul", spy)
    return shapes


def test_vectorized_jacobian_through_mm_matches_torch(monkeypatch):
    rng = np.random.default_rng(4)
    X, W = rng.standard_normal((3, 5)), rng.standard_normal((5, 4))
    shapes = _spy(monkeypatch)

    def run(lib):
        w = lib.tensor(W)
        return lib.autograd.functional.jacobian(lambda x: lib.tanh(x @ w), lib.tensor(X),
                                                vectorize=True).numpy()
    got = run(gg)
    assert shapes == [(36, 4)]  # the (12, 3, 4) batched gradient as one (36, 4) @ (4, 5)
    np.testing.assert_allclose(got, run(torch), rtol=1e-12, atol=1e-14)


def test_vectorized_hessian_matches_torch():
    rng = np.random.default_rng(5)
    A, x = rng.standard_normal((7, 7)), rng.standard_normal(7)

    def run(lib):
        a = lib.tensor(A)
        return lib.autograd.functional.hessian(lambda v: lib.tanh(a @ v).sum(),
                                               lib.tensor(x), vectorize=True).numpy()
    np.testing.assert_allclose(run(gg), run(torch), rtol=1e-12, atol=1e-14)


def test_non_contiguous_batched_gradient():
    # the same rule on a transposed (non-contiguous) batched gradient: reshaped by a copy
    rng = np.random.default_rng(6)
    g = rng.standard_normal((4, 6, 3)).transpose(1, 0, 2)  # (6, 4, 3), not contiguous
    m = rng.standard_normal((5, 3))
    np.testing.assert_allclose(L._mm_self_vjp(g, m), np.matmul(g, m.T), rtol=1e-13)
