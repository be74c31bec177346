"""max_pool2d's tiling path (stride == kernel), its offset-by-offset reduction and
avg_pool2d's reshape path against PyTorch on the cases where the choice of window element
matters: ties, NaN, -inf, padding, integer dtypes, and both sides of the kernel-size switch
(graphgrad/ops/kernels/nn_pool.py); max_pool2d's backward as an assignment when the
windows are disjoint, and by summation when they overlap."""
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
    dict(kernel_size=2),                   # the tiling path (13 rows: the last one cropped)
    dict(kernel_size=(2, 3)),              # tiling, both dims cropped
    dict(kernel_size=(3, 1)),
    dict(kernel_size=2, ceil_mode=True),   # a partial last window: the general path
    dict(kernel_size=2, padding=1),        # disjoint windows over padding: general path
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


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3)),
                                dict(kernel_size=2, ceil_mode=True),
                                dict(kernel_size=2, padding=1),
                                dict(kernel_size=2, stride=3, dilation=2),   # disjoint
                                dict(kernel_size=3, stride=2, padding=1),    # overlapping
                                dict(kernel_size=2, stride=1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_pool_gradient_ties_and_special_gradients(kw, dtype):
    # windows full of ties and -0.0, NaN inputs; gradients with -0.0, inf and NaN: the
    # disjoint-window assignment and the overlapping sum give PyTorch's bits
    rng = np.random.default_rng(4)
    x = rng.integers(-1, 2, (2, 3, 9, 11)).astype(dtype)
    x[rng.random(x.shape) < 0.3] = -0.0
    x[rng.random(x.shape) < 0.05] = np.nan
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yg = gg.nn.functional.max_pool2d(xg, **kw)
    yt = torch.nn.functional.max_pool2d(xt, **kw)
    g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    g[rng.random(g.shape) < 0.2] = -0.0
    g.flat[::17] = np.inf
    g.flat[::23] = np.nan
    yg.backward(gg.tensor(g))
    yt.backward(torch.tensor(g))
    if pool._windows_disjoint(*_geometry(kw)):   # one gradient per element: exact
        np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())
        np.testing.assert_array_equal(np.signbit(xg.grad.numpy()), np.signbit(xt.grad.numpy()))
    else:   # (np.bincount sums in float64 and rounds once; PyTorch adds in the dtype)
        np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(),
                                   rtol=1e-2 if dtype == np.float16 else 1e-6)


def _geometry(kw):
    k = kw["kernel_size"]
    k = (k, k) if isinstance(k, int) else k
    s = kw.get("stride", k)
    s = (s, s) if isinstance(s, int) else s
    d = kw.get("dilation", 1)
    return k, s, (d, d)


def test_tiling_path_is_taken_and_falls_back_on_nan(monkeypatch):
    calls = []
    real = pool._max_pool_tiles
    monkeypatch.setattr(pool, "_max_pool_tiles", lambda *a: calls.append(real(*a)) or calls[-1])
    x = np.arange(2 * 6 * 8, dtype=np.float32).reshape(1, 2, 6, 8)
    gg.nn.functional.max_pool2d(gg.tensor(x), 2)
    gg.nn.functional.max_pool2d(gg.tensor(x), 2, stride=1)   # overlapping: not called
    x[0, 0, 1, 1] = np.nan
    v, i = gg.nn.functional.max_pool2d(gg.tensor(x), 2, return_indices=True)
    assert [c is None for c in calls] == [False, True]
    assert np.isnan(v.numpy()[0, 0, 0, 0]) and i.numpy()[0, 0, 0, 0] == 9


def test_windows_disjoint():
    assert pool._windows_disjoint((2, 2), (2, 2), (1, 1))
    assert pool._windows_disjoint((2, 3), (3, 5), (2, 2))
    assert not pool._windows_disjoint((3, 3), (2, 3), (1, 1))
    assert not pool._windows_disjoint((2, 2), (2, 2), (2, 1))


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
    g[::11] = -0.0   # kept as -0.0 where the input is positive, as PyTorch's select
    if special is not None:
        g[::7] = special
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    gg.nn.functional.relu(xg).backward(gg.tensor(g))
    torch.nn.functional.relu(xt).backward(torch.tensor(g))
    np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(np.signbit(xg.grad.numpy()), np.signbit(xt.grad.numpy()))
