"""Tensor.unfold beyond the OpInfo samples: argument errors, saved attributes, the view
relation and writes through it, compared with PyTorch."""
import numpy as np
import pytest

import graphgrad


@pytest.mark.parametrize("shape, args", [
    ((5,), (0, 6, 1)), ((5,), (0, 2, 0)), ((5,), (1, 2, 1)), ((), (0, 2, 1)),
    ((5,), (0, -1, 1)), ((0, 3), (0, 1, 1)), ((), (1, 1, 1)),
])
def test_errors_match_pytorch(torch, shape, args):
    with pytest.raises(Exception) as want:
        torch.zeros(shape).unfold(*args)
    with pytest.raises(want.type) as got:
        graphgrad.zeros(shape).unfold(*args)
    first = str(want.value).split(" (")[0]
    assert str(got.value).startswith(first)


@pytest.mark.parametrize("dim", [1, -1, 0])
def test_nodes_saved_attributes_and_view(torch, dim):
    out = {}
    for lib in (graphgrad, torch):
        x = lib.tensor(np.arange(10.).reshape(2, 5), requires_grad=True)
        y = x.unfold(dim, 2, 1)
        go = lib.ones(y.shape, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(y, x, go, create_graph=True)
        fn, gfn = y.grad_fn, g.grad_fn
        out[lib.__name__] = (
            fn.name(), fn._saved_dimension % 2, tuple(fn._saved_self_sym_sizes), fn._saved_size,
            fn._saved_step, gfn.name(), gfn._saved_dim % 2, gfn._saved_size, gfn._saved_step,
            y._base is x, y._is_view(), tuple(y.stride()), g.detach().numpy().tolist())
    assert out["graphgrad"] == out["torch"]


def test_writes_through_a_view_without_overlap_reach_the_base(torch):
    res = []
    for lib in (graphgrad, torch):
        x = lib.arange(6.)
        w = x.unfold(0, 2, 2)
        w.mul_(10)
        w[1, 0] = -1
        res.append((x.tolist(), x._version, w._version))
    assert res[0] == res[1]


def test_in_place_on_overlapping_windows_raises():
    """docs/differences.md: PyTorch runs it with a loop-order-dependent result."""
    x = graphgrad.arange(5.)
    with pytest.raises(RuntimeError, match="single memory location"):
        x.unfold(0, 3, 1).add_(1)
    assert x.tolist() == [0., 1., 2., 3., 4.]
    y = x.unfold(0, 3, 1).clone().add_(1)  # the fix the message names
    assert y.tolist() == [[1., 2., 3.], [2., 3., 4.], [3., 4., 5.]]


def test_vmap_matches_per_example(torch):
    x = np.random.default_rng(0).standard_normal((3, 4, 6))
    for in_dims in (0, 1, -1):
        want = torch.func.vmap(lambda t: t.unfold(-1, 3, 2), in_dims=in_dims)(torch.tensor(x))
        got = graphgrad.func.vmap(lambda t: t.unfold(-1, 3, 2), in_dims=in_dims)(
            graphgrad.tensor(x))
        np.testing.assert_allclose(got.numpy(), want.numpy())
