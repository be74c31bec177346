"""``t ** 2`` (Tensor.__pow__ with a Python number, _pow_kernel's square, the VJP's
2 * x) against PyTorch: values bit for bit, gradients, dtypes, and the cases that keep
the general path (integer tensors, other exponents, half precision)."""
import numpy as np
import pytest
import torch

import graphgrad as gg


@pytest.mark.parametrize("dtype,exponent", [
    (d, e) for d in ("float32", "float64", "float16", "bfloat16") for e in (2, 2.0)] + [
    ("float64", 3), ("float64", 0.5), ("float64", -1), ("float32", 2.5)])
def test_values_and_gradients_match_torch(dtype, exponent):
    x = np.random.default_rng(0).standard_normal(50)
    x[:4] = [np.inf, -np.inf, np.nan, -0.0]
    xg = gg.tensor(x).to(getattr(gg, dtype)).requires_grad_()
    xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    yg, yt = xg ** exponent, xt ** exponent
    assert yg.dtype == getattr(gg, dtype)
    if exponent == 2:  # the square: bit for bit
        np.testing.assert_array_equal(yg.detach().float().numpy(), yt.detach().float().numpy())
    else:  # (the general path: NumPy's pow, not always PyTorch's last bit)
        np.testing.assert_allclose(yg.detach().float().numpy(), yt.detach().float().numpy(),
                                   rtol=1e-6 if dtype[-2:] in ("32", "64") else 1e-2)
    g = np.random.default_rng(1).standard_normal(50)
    yg.backward(gg.tensor(g).to(yg.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    np.testing.assert_allclose(xg.grad.float().numpy(), xt.grad.float().numpy(),
                               rtol=1e-6 if dtype == "float64" else 1e-2, equal_nan=True)


def test_integer_tensor_and_float_exponent_promote_as_torch():
    assert (gg.arange(4) ** 2).dtype == gg.int64
    assert (gg.arange(4) ** 2.0).dtype == gg.float32
    np.testing.assert_array_equal((gg.arange(4) ** 2.0).numpy(), (torch.arange(4) ** 2.0).numpy())
