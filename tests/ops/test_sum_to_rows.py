"""formulas.sum_to of a large C-contiguous float gradient over its leading dims (a bias's
gradient on a batch) is one BLAS product ones @ (rows, n): against NumPy's sum and
PyTorch's bias gradient; other gradients keep NumPy's reduction."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.ops import formulas as F


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,sizes", [((1024, 512), (512,)), ((16, 64, 128), (128,)),
                                         ((40, 30, 20), (30, 20))])
def test_sum_over_leading_dims(dtype, shape, sizes):
    g = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    assert g.size > F._GEMV_SUM
    got = F.sum_to(g, sizes, g.ndim)
    want = g.astype(np.float64).sum(axis=tuple(range(g.ndim - len(sizes))))
    assert got.shape == sizes and got.dtype == dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-12)
    # another layout, a size-1 dim or a small gradient: NumPy's sum, as before
    gt = np.asfortranarray(g)
    np.testing.assert_array_equal(F.sum_to(gt, sizes, g.ndim),
                                  gt.sum(axis=tuple(range(g.ndim - len(sizes)))))
    small = g[:2]
    np.testing.assert_array_equal(F.sum_to(small, sizes, g.ndim),
                                  small.sum(axis=tuple(range(g.ndim - len(sizes)))))


def test_linear_bias_gradient_matches_torch():
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((1024, 64), (96, 64), (96,)))
    g = rng.standard_normal((1024, 96)).astype(np.float32)
    grads = []
    for L in (gg, torch):
        bt = L.tensor(b, requires_grad=True)
        L.nn.functional.linear(L.tensor(x), L.tensor(w), bt).backward(L.tensor(g))
        grads.append(bt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-4)
