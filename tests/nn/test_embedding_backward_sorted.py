"""embedding's backward sums the rows of repeated indices after a stable sort, level by
level (ops/kernels/nn_embedding.py, ``_add_rows_at``): against PyTorch, with repeats,
padding_idx, scale_grad_by_freq and no indices at all; against np.add.at bit for bit;
and past _MAX_LEVELS repeats of one index (np.add.reduceat)."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.ops.kernels import nn_embedding as K


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3}, {"scale_grad_by_freq": True},
                                {"padding_idx": 0, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("shape", [(6, 40), (0,), (7,)])
def test_matches_torch(kw, shape):
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 9, shape)
    w = rng.standard_normal((9, 5))
    g = rng.standard_normal(shape + (5,))
    wg, wt = gg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    gg.nn.functional.embedding(gg.tensor(idx), wg, **kw).backward(gg.tensor(g))
    torch.nn.functional.embedding(torch.tensor(idx), wt, **kw).backward(torch.tensor(g))
    np.testing.assert_allclose(wg.grad.numpy(), wt.grad.numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["unique", "repeats", "over _MAX_LEVELS", "batched"])
def test_kernel_sums_as_add_at(case, dtype):
    rng = np.random.default_rng(8)
    idx = {"unique": rng.permutation(50)[:40], "repeats": rng.integers(0, 50, (16, 20)),
           "over _MAX_LEVELS": rng.integers(0, 3, 300), "batched": rng.integers(0, 50, (4, 9))
           }[case]
    lead = (2,) if case == "batched" else ()
    g = (rng.standard_normal(lead + idx.shape + (6,)) * 10).astype(dtype)
    got = K._embedding_backward_kernel(g, idx, 50, -1, False)
    want = np.zeros(lead + (50, 6), dtype)
    for b in np.ndindex(*lead):
        np.add.at(want[b], idx.ravel(), g[b].reshape(-1, 6))
    assert got.shape == want.shape and got.dtype == dtype
    if case == "over _MAX_LEVELS":  # np.add.reduceat's sums: NumPy's order
        assert np.bincount(idx).max() > K._MAX_LEVELS
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-13,
                                   atol=1e-4 if dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got, want)
