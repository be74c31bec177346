"""``t.sum()`` takes a short path (ops/api/reductions.py: sum with no dim, dtype, out or
keepdim; the float32/float64 kernel without the half-precision wrapper); it must equal
the general path and PyTorch for every dtype, and leave the other forms alone."""
import numpy as np
import pytest
import torch

import graphgrad as gg


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32",
                                   "bool", "complex128"])
def test_full_sum_matches_torch(dtype):
    x = np.random.default_rng(0).standard_normal((40, 30)) * 3
    tg = gg.tensor(x).to(getattr(gg, dtype))
    tt = torch.tensor(x).to(getattr(torch, dtype))
    rg, rt = tg.sum(), tt.sum()
    assert str(rg.dtype) == str(rt.dtype).replace("torch", "graphgrad")
    assert rg.shape == rt.shape == ()
    np.testing.assert_allclose(rg.to(gg.complex128).numpy(), rt.to(torch.complex128).numpy(),
                               rtol=1e-6 if dtype in ("float32", "float64") else 1e-2)


def test_gradient_and_other_forms():
    x = np.random.default_rng(1).standard_normal((4, 5))
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (xg.sum() * 2.0).backward()
    (xt.sum() * 2.0).backward()
    np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())
    assert type(xg.sum().grad_fn).__name__ == "SumBackward0"
    assert gg.sum(xg, keepdim=True).shape == (1, 1)
    assert gg.sum(xg, dtype=gg.float32).dtype == gg.float32
    with pytest.raises(TypeError):
        gg.sum(x)


@pytest.mark.parametrize("shape", [(3, 4), (20, 20), ()])  # filled (<= 256) / broadcast
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_sum_backward_small_and_large(shape, dtype):
    x = np.random.default_rng(2).standard_normal(shape)
    xg = gg.tensor(x).to(getattr(gg, dtype)).requires_grad_()
    xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    xg.sum().backward()
    xt.sum().backward()
    assert xg.grad.dtype == getattr(gg, dtype) and xg.grad.shape == xt.grad.shape
    np.testing.assert_array_equal(xg.grad.float().numpy(), xt.grad.float().numpy())
    xg.sum().backward()  # accumulates into the first gradient
    xt.sum().backward()
    np.testing.assert_array_equal(xg.grad.float().numpy(), xt.grad.float().numpy())
    (g,) = gg.autograd.grad(xg.sum() * 3.0, xg, create_graph=True)
    np.testing.assert_array_equal(g.float().detach().numpy(), np.full(shape, 3.0))
