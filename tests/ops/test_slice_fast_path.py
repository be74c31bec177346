"""``t[slice]`` with a single slice key takes a short path in Tensor.__getitem__
(ops/api/conversion.py) straight to the slice view; it must give getitem's results:
values, gradients, views (version counter, base), grad_fn names and errors."""
import numpy as np
import pytest
import torch

import graphgrad as gg

KEYS = [slice(1, None), slice(None, -1), slice(None, None, 2), slice(5, 2), slice(-3, None),
        slice(None), slice(0, 10), slice(-100, 100, 3), slice(7, 7)]


@pytest.mark.parametrize("key", KEYS, ids=str)
@pytest.mark.parametrize("shape", [(10,), (10, 3)])
def test_values_gradients_and_nodes_match_torch(key, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    xg, xt = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yg, yt = xg[key], xt[key]
    np.testing.assert_array_equal(yg.detach().numpy(), yt.detach().numpy())
    assert type(yg.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert yg._base is xg
    (yg * 3.0).sum().backward()
    (yt * 3.0).sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), xt.grad.numpy())


def test_view_shares_memory_and_version():
    x = gg.arange(6.0)
    y = x[2:]
    y[0] = 10.0
    assert x[2].item() == 10.0 and x._version == y._version


def test_zero_step_and_0d_errors_match_torch():
    with pytest.raises(ValueError):
        gg.arange(4.0)[::0]
    with pytest.raises(ValueError):
        torch.arange(4.0)[::0]
    with pytest.raises(IndexError):
        gg.tensor(1.0)[1:]
    with pytest.raises(IndexError):
        torch.tensor(1.0)[1:]
    with pytest.raises(ValueError):
        gg.arange(4.0)[::-1]
    with pytest.raises(ValueError):
        torch.arange(4.0)[::-1]
