"""``t[slice]`` with a single slice key takes a short path in Tensor.__getitem__
(ops/api/conversion.py) straight to the slice view; it must give getitem's results:
values, gradients, views (version counter, base), grad_fn names and errors."""
import numpy as np
import pytest
import torch

import graphgrad as gg
from tests.grad_modes import GRAD_MODES, grad_modes

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


# the slice of a plain thread (grad mode on, nothing extra) skips dispatch
# (_slice_plain); off a plain thread it goes through dispatch: both must agree with torch
@pytest.mark.parametrize("mode", GRAD_MODES)
def test_slice_in_each_grad_mode_matches_torch(mode):
    from tests.conftest import run_both

    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        with grad_modes(lib)[mode]():
            a, b = x[:-1], x[1:]
            f = (100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2).sum()
            out = [f, a.requires_grad, b.is_leaf, a._version, a._base is x]
        if f.requires_grad:
            f.backward()
            out.append(x.grad)
        return out
    run_both(program)


def test_view_of_a_base_without_grad_follows_a_later_inplace_with_grad():
    from tests.conftest import run_both

    def program(lib):
        base = lib.zeros(5)
        v = base[1:]
        w = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        base.mul_(w)   # base and its views now have history
        out = [v.requires_grad, type(v.grad_fn).__name__]
        (v * 2.0).sum().backward()
        return out + [w.grad]
    run_both(program)


def test_slice_of_a_parameter_and_inplace_on_the_view_match_torch():
    from tests.conftest import run_both

    def program(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0, 3.0, 4.0]))
        y = p[1:3]
        out = [type(y).__name__, type(y.grad_fn).__name__]
        z = p * 1.0
        zz = z[1:]
        zz.mul_(2.0)
        out.append(type(z.grad_fn).__name__)
        z.sum().backward()
        out.append(p.grad)
        with pytest.raises(RuntimeError):
            y.add_(1.0)   # a view of a leaf that requires grad
        return out
    run_both(program)


def test_no_grad_view_refuses_inplace_in_grad_mode_like_torch():
    from tests.conftest import run_both

    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1.0
        with lib.no_grad():
            v = y[1:]
        try:
            v.mul_(2.0)
        except RuntimeError:
            return "raised"
        return v
    run_both(program)


@pytest.mark.parametrize("key", [slice(1, None), slice(None, -1, 2), slice(5, 2)], ids=str)
def test_slice_backward_kernel_first_and_second_order_match_torch(key):
    # SliceBackward0's kernel (a zero array with the gradient written in on dim 0) and its
    # own derivative under create_graph
    from tests.conftest import run_both

    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], requires_grad=True)
        y = x[key]
        g, = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        gg_, = lib.autograd.grad(g.sum(), x)
        return g, gg_
    run_both(program)
