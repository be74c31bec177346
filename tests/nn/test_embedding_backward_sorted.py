"""embedding's backward sums the rows of repeated indices by sorting and np.add.reduceat
(nn/functional/embedding.py): against PyTorch, with repeats, padding_idx,
scale_grad_by_freq and no indices at all."""
import numpy as np
import pytest
import torch

import graphgrad as gg


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
