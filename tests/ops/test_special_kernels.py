"""erf / erfc / gelu kernels on arrays large enough for the blocked Chebyshev series
(graphgrad/ops/kernels/special.py), against PyTorch: several blocks and a partial last
block, both signs, the tails, +-0, +-inf and NaN, float64 and float32."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.ops.kernels import special

N = 2 * special._BLOCK + 123  # two full blocks and a partial one


def _inputs(dtype):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(N // 2) * 3, rng.uniform(-8, 30, N // 2 - 9),
                        [0.0, -0.0, 0.5, -0.5, 26.6, 40.0, np.inf, -np.inf, np.nan]])
    return x.astype(dtype)


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_float64_matches_torch_to_a_few_ulps(name):
    x = _inputs(np.float64)
    got = getattr(gg, name)(gg.tensor(x)).numpy()
    want = getattr(torch, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want) & (np.abs(want) > 1e-300)  # subnormal results: absolute error
    np.testing.assert_allclose(got[ok], want[ok], rtol=4e-15, atol=0)
    np.testing.assert_allclose(got[~ok & ~np.isnan(want)], want[~ok & ~np.isnan(want)],
                               rtol=0, atol=1e-310)


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_float32_within_one_ulp_of_torch(name):
    x = _inputs(np.float32)
    got = getattr(gg, name)(gg.tensor(x))
    assert got.dtype == gg.float32
    want = getattr(torch, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_max_ulp(got.numpy(), want, maxulp=1)


def test_series_agrees_with_the_c_library_by_element():
    # the two paths of the kernel: blocked series (> _SMALL elements), math.erfc per element
    x = _inputs(np.float64)[:5000]
    got = special.erfc(x)
    ref = np.concatenate([special.erfc(x[i:i + special._SMALL])
                          for i in range(0, x.size, special._SMALL)])
    np.testing.assert_allclose(got[ref > 1e-300], ref[ref > 1e-300], rtol=4e-15)
    got = special.erf(x)
    ref = np.concatenate([special.erf(x[i:i + special._SMALL])
                          for i in range(0, x.size, special._SMALL)])
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_forward_and_backward_match_torch(dtype):
    x = _inputs(dtype)
    x = x[np.isfinite(x)]
    xg = gg.tensor(x, requires_grad=True)
    yg = gg.nn.functional.gelu(xg)
    yg.backward(gg.ones_like(yg))
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.nn.functional.gelu(xt)
    yt.backward(torch.ones_like(yt))
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    # PyTorch's 0.5 x (1 + erf(x / sqrt 2)) cancels for x << 0, graphgrad's float64 erfc
    # form does not: compare where PyTorch's own value is not dominated by that cancellation
    keep = x > -3
    np.testing.assert_allclose(yg.detach().numpy()[keep], yt.detach().numpy()[keep],
                               rtol=rtol, atol=1e-6 if dtype == np.float32 else 1e-15)
    np.testing.assert_allclose(xg.grad.numpy()[keep], xt.grad.numpy()[keep],
                               rtol=rtol, atol=1e-6 if dtype == np.float32 else 1e-15)


def test_blocked_gelu_is_the_whole_array_expression_bit_for_bit():
    # NOTE [blocked gelu]: the block-by-block float64 kernels (large contiguous inputs)
    # apply the whole-array expressions' operations in the same dtype and order
    from graphgrad.ops.kernels import nn_activation as K
    x = _inputs(np.float64)
    g = np.random.default_rng(3).standard_normal(x.size)
    assert K._gelu_blocked(x)
    want_y = 0.5 * x * K._erfc_np(x * K._NEG_SQRT_HALF)
    want_dx = g * K._gelu_dx(x, "none")
    np.testing.assert_array_equal(K._gelu_kernel(x, "none"), want_y)
    np.testing.assert_array_equal(K._gelu_backward_kernel(g, x, "none"), want_dx)
    xt = x.reshape(2, -1).T  # not C-contiguous: the whole-array expressions
    assert not K._gelu_blocked(xt)
    np.testing.assert_array_equal(K._gelu_kernel(xt, "none"),
                                  0.5 * xt * K._erfc_np(xt * K._NEG_SQRT_HALF))


def _float32_gelu_cases():
    from graphgrad.ops.kernels import nn_activation as K
    rng = np.random.default_rng(5)
    x = np.concatenate([np.linspace(-14, 14, 200_001), rng.standard_normal(50_000) * 3])
    return K, x.astype(np.float32)


def test_float32_gelu_follows_pytorchs_kernel():
    # NOTE [float32 gelu]: PyTorch's formula in float32, so within a few ulps of PyTorch's
    # values (its multiply-adds are fused) and, as PyTorch's, within erf's ~1.5e-7 of the
    # exact gelu per unit |x|; the same cancellation to -0.0 for x << 0
    K, x = _float32_gelu_cases()
    g = np.random.default_rng(1).standard_normal(x.size).astype(np.float32)
    y, d = K._gelu_kernel(x, "none"), K._gelu_backward_kernel(g, x, "none")
    assert y.dtype == np.float32 and d.dtype == np.float32
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.nn.functional.gelu(xt)
    yt.backward(torch.from_numpy(g))
    yt, dt = yt.detach().numpy(), xt.grad.numpy()
    scale = np.maximum(np.abs(x), 1)
    assert (np.abs(y - yt) / scale).max() < 6e-7
    assert (np.abs(d - dt) / np.abs(g)).max() < 5e-7
    assert (y == yt).mean() > 0.5
    exact = K._gelu_kernel(x.astype(np.float64), "none")
    assert (np.abs(y - exact) / scale).max() < 2.5e-7
    far = x < -6
    np.testing.assert_array_equal(y[far], yt[far])   # -0.0, as PyTorch's
    assert np.signbit(y[far]).all()


def test_float32_gelu_paths_agree_bit_for_bit():
    # every float32 layout goes through the one block kernel: a transposed input, a
    # gradient of another layout, the derivative alone (g * gelu') and one element
    K, x = _float32_gelu_cases()
    x = x[:2 * K._BLOCK32 + 77].copy()
    g = np.random.default_rng(2).standard_normal(x.size).astype(np.float32)
    xt = x.reshape(-1, 3).T
    np.testing.assert_array_equal(K._gelu_kernel(xt, "none"),
                                  K._gelu_kernel(xt.copy(), "none"))
    gt = g.reshape(-1, 3).T
    np.testing.assert_array_equal(K._gelu_backward_kernel(gt, xt, "none"),
                                  K._gelu_backward_kernel(gt.copy(), xt.copy(), "none"))
    np.testing.assert_array_equal(K._gelu_backward_kernel(g, x, "none"),
                                  g * K._gelu_dx(x, "none"))
    np.testing.assert_array_equal(K._gelu_kernel(x[5:6], "none"), K._gelu_kernel(x, "none")[5:6])
    assert K._gelu_backward_kernel(g[:3].astype(np.float64), x[:3], "none").dtype == np.float64


def test_float32_gelu_special_values_as_before():
    from graphgrad.ops.kernels import nn_activation as K
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, -20.0, 1e30, -1e30], np.float32)
    y = K._gelu_kernel(x, "none")
    np.testing.assert_array_equal(y, np.array([np.inf, np.nan, np.nan, 0.0, -0.0, -0.0, 1e30, -0.0], np.float32))
    assert np.signbit(y[4]) and not np.signbit(y[3])
    d = K._gelu_dx(x, "none")
    np.testing.assert_array_max_ulp(d, np.array([np.nan, np.nan, np.nan, 0.5, 0.5, 0.0, 1.0, 0.0],
                                                np.float32), maxulp=1)


@pytest.mark.parametrize("shape", [(0, 3), (), (1,)])
def test_float32_gelu_empty_and_0d(shape):
    x = gg.zeros(shape, requires_grad=True)
    y = gg.nn.functional.gelu(x)
    y.sum().backward()
    assert y.shape == x.shape and x.grad.shape == x.shape and y.dtype == gg.float32
    np.testing.assert_array_max_ulp(x.grad.numpy(), np.full(shape, 0.5, np.float32), maxulp=1)
