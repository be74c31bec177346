"""max_pool2d's offset-by-offset reduction and avg_pool2d's reshape path against PyTorch
on the cases where the choice of window element matters: ties, NaN, -inf, padding,
integer dtypes, and both sides of the kernel-size switch (graphgrad/nn/functional/pool.py)."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.nn.functional import pool


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
    if kind == "nan":
        x[rng.random(x.shape) < 0.1] = np.nan
    elif kind == "neg_inf":
        x[rng.random(x.shape) < 0.7] = -np.inf
    elif kind == "int":
        x = x.astype(np.int64)
    (gv, gi), (tv, ti) = _both(_max, x, **kw)
    np.testing.assert_array_equal(gv.numpy(), tv.numpy())
    np.testing.assert_array_equal(gi.numpy(), ti.numpy())


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
