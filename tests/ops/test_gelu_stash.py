"""NOTE [gelu derivative stash] (graphgrad/ops/kernels/nn_activation.py): a large gelu's
forward keeps gelu'(x) for its backward.  The stash may make the backward faster, never
different: the same bits as recomputing, PyTorch's gradient when the input was changed
behind autograd's back, nothing left behind."""
import gc

import numpy as np
import pytest
import torch

import graphgrad as gg
from graphgrad.ops.kernels import nn_activation as K

SHAPE = (3, 70, 200)  # 42000 elements: over the stash's minimum, with a partial block


def _x(dtype):
    return np.random.default_rng(11).standard_normal(SHAPE).astype(dtype) * 3


def _grad_via(lib, x, g, between=None, **backward):
    """x -> h = x * 1 -> gelu(h) -> backward(g); ``between(h)`` runs after the forward."""
    xt = lib.tensor(x, requires_grad=True)
    h = xt * 1
    y = lib.nn.functional.gelu(h)
    if between is not None:
        between(h)
    y.backward(lib.tensor(g), **backward)
    return xt.grad.numpy()


@pytest.fixture(autouse=True)
def _empty_stash():
    K._STASH.clear()
    yield
    K._STASH.clear()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stashed_backward_is_the_recomputed_one_bit_for_bit(dtype):
    x, g = _x(dtype), _x(dtype)[::-1].copy()
    taken = []
    take = K._stash_take

    def spy(a):
        d = take(a)
        taken.append(d is not None)
        return d
    K._stash_take = spy
    try:
        got = _grad_via(gg, x, g)
    finally:
        K._stash_take = take
    assert taken == [True]
    want = K._gelu_backward_kernel(g, x, "none")  # (no entry for this array: recomputes)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, _grad_via(torch, x, g), rtol=1e-5, atol=1e-6)


def test_input_changed_through_numpy_gives_pytorchs_gradient():
    # a write through .numpy() bumps no version counter: PyTorch's backward then uses the
    # new values, and so must graphgrad's (the stash sees changed bits and recomputes)
    x, g = _x(np.float32), _x(np.float32)[::-1].copy()

    def change(h):
        h.detach().numpy()[0, 0, :5] = [9.0, -9.0, 0.5, 0.0, -2.0]
    got = _grad_via(gg, x, g, change)
    want = _grad_via(torch, x, g, change)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got, _grad_via(gg, x, g), rtol=1e-5, atol=1e-6)


def test_second_backward_and_create_graph_recompute():
    x, g = _x(np.float32), _x(np.float32)[::-1].copy()
    for lib in (gg, torch):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.gelu(xt * 1)
        y.backward(lib.tensor(g), retain_graph=True)
        first = xt.grad.numpy().copy()
        xt.grad = None
        (d,) = lib.autograd.grad(y, xt, lib.tensor(g), create_graph=True)
        (dd,) = lib.autograd.grad(d.sum(), xt)
        if lib is gg:
            mine = first, d.detach().numpy(), dd.numpy()
        else:
            theirs = first, d.detach().numpy(), dd.numpy()
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_no_entry_is_left_behind():
    x = _x(np.float32)
    xt = gg.tensor(x, requires_grad=True)
    y = gg.nn.functional.gelu(xt * 1)
    assert len(K._STASH) == 1          # a forward that may be followed by a backward
    y.sum().backward()
    assert not K._STASH                # the backward took it
    y = gg.nn.functional.gelu(xt * 1)
    assert len(K._STASH) == 1
    del y                              # the graph (and so the input array) freed
    gc.collect()
    assert not K._STASH
    with gg.no_grad():
        gg.nn.functional.gelu(xt)
    gg.nn.functional.gelu(xt.half())   # half: computed on a float32 copy, never stashed
    gg.nn.functional.gelu(xt[:10])     # small: the backward recomputes
    gg.nn.functional.gelu(xt, approximate="tanh")
    assert not K._STASH
