"""max_pool2d's offset-by-offset reduction and avg_pool2d's reshape path against PyTorch
on the cases where the choice of window element matters: ties, NaN, -inf, padding,
integer dtypes, and both sides of the kernel-size switch (graphgrad/nn/functional/pool.py)."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.ops.kernels import nn_pool as pool


def _both(fn, x, **kw):
    g = fn(gg, gg.tensor(x), **kw)
    t = fn(torch, torch.tensor(x), **kw)
    return g, t


def _max(lib, x, **kw):
    return lib.nn.functional.max_pool2d(x, return_indices=True, **kw)


CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), dilation=2, ceil_mode=True),
    dict(kernel_size=6, stride=3),  # over _OFFSET_LOOP_MAX elements: the argmax path
]


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("kind", ["ties", "nan", "neg_inf", "int"])
def test_values_and_indices_match_torch(kw, kind):
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, (2, 3, 13, 14)).astype(np.float64)  # many ties
    x[rng.random(x.shape) < 0.2] = -0.0  # -0.0 vs 0.0: the first is kept
    if kind == "nan":
        x[rng.random(x.shape) < 0.1] = np.nan
    elif kind == "neg_inf":
        x[rng.random(x.shape) < 0.7] = -np.inf
    elif kind == "int":
        x = x.astype(np.int64)
    (gv, gi), (tv, ti) = _both(_max, x, **kw)
    np.testing.assert_array_equal(gv.numpy(), tv.numpy())
    np.testing.assert_array_equal(np.signbit(gv.numpy()), np.signbit(tv.numpy()))
    np.testing.assert_array_equal(gi.numpy(), ti.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_half_and_single_precision_signed_zeros(dtype):
    rng = np.random.default_rng(5)
    x = rng.integers(-1, 2, (2, 2, 8, 8)).astype(np.float32)
    x[rng.random(x.shape) < 0.5] = -0.0
    g = gg.nn.functional.max_pool2d(gg.tensor(x).to(getattr(gg, dtype)), 2, return_indices=True)
    t = torch.nn.functional.max_pool2d(torch.tensor(x).to(getattr(torch, dtype)), 2,
                                       return_indices=True)
    gv, tv = g[0].float().numpy(), t[0].float().numpy()
    np.testing.assert_array_equal(gv, tv)
    np.testing.assert_array_equal(np.signbit(gv), np.signbit(tv))
    np.testing.assert_array_equal(g[1].numpy(), t[1].numpy())


def test_switch_between_paths_is_where_documented():
    assert 3 * 3 <= pool._OFFSET_LOOP_MAX < 6 * 6


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_gradient_matches_torch(dtype):
    x = np.random.default_rng(0).standard_normal((4, 3, 12, 10)).astype(dtype)
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    gg.nn.functional.max_pool2d(xg, 2).sum().backward()
    torch.nn.functional.max_pool2d(xt, 2).sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(3, 2)),
                                dict(kernel_size=2, stride=1), dict(kernel_size=2, padding=1)])
def test_avg_pool_tiling_and_not(kw):
    x = np.random.default_rng(1).standard_normal((2, 3, 11, 9))
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yg, yt = gg.nn.functional.avg_pool2d(xg, **kw), torch.nn.functional.avg_pool2d(xt, **kw)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-13)
    yg.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [None, np.inf, np.nan])
def test_relu_backward_select(dtype, special):
    # threshold_backward's product-with-mask path (finite gradients) and np.where path
    rng = np.random.default_rng(2)
    x = rng.standard_normal(5000).astype(dtype)
    x[::50] = np.nan  # (over 1024 elements: the product path)
    g = rng.standard_normal(5000).astype(dtype)
    if special is not None:
        g[::7] = special
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    gg.nn.functional.relu(xg).backward(gg.tensor(g))
    torch.nn.functional.relu(xt).backward(torch.tensor(g))
    np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(np.signbit(xg.grad.numpy()), np.signbit(xt.grad.numpy()))
