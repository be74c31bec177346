"""nn.ChannelShuffle, nn.LocalResponseNorm and F.gumbel_softmax (the values and gradients
of F.channel_shuffle and F.local_response_norm are in the op table,
tests/ops/op_db/nn_apinn.py): modules against torch.nn, bad input against torch's
exception types, and gumbel_softmax by its statistics and its straight-through
gradient (its noise comes from graphgrad's generator, not PyTorch's)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((1, 8, 2, 2), 4), ((6, 2, 2), 2)])
def test_channel_shuffle_module(shape, groups):
    check_layer(lambda lib: lib.nn.ChannelShuffle(groups), [randn(*shape)])


@pytest.mark.parametrize("shape,kw", [((2, 6, 3), {"size": 3}),
                                      ((2, 5, 3, 4), {"size": 2, "alpha": 0.5, "beta": 0.9,
                                                      "k": 2.0}),
                                      ((1, 4, 2, 2, 3), {"size": 5})])
def test_local_response_norm_module(shape, kw):
    check_layer(lambda lib: lib.nn.LocalResponseNorm(**kw), [randn(*shape)])


def test_torch_namespace_channel_shuffles_and_graph():
    def prog(lib):
        x = lib.arange(24.0, dtype=lib.float64).reshape(2, 6, 2).requires_grad_()
        y = lib.channel_shuffle(x, 2)
        z = lib.nn.functional.channel_shuffle(x, 3)
        (y * lib.arange(24.0, dtype=lib.float64).reshape(2, 6, 2)).sum().backward()
        lrn = lib.nn.functional.local_response_norm(x, 3)
        return y, z, x.grad, y.grad_fn.name(), lrn.grad_fn.name(), \
            lib.native_channel_shuffle(x.detach(), 3)
    run_both(prog)


@pytest.mark.parametrize("case", ["groups_zero", "groups_negative", "groups_divide", "dims",
                                  "lrn_dims", "lrn_size0", "lrn_int32", "lrn_bool",
                                  "lrn_int64", "lrn_empty", "native_dims", "groups_float"])
def test_errors_like_torch(case):
    def prog(lib):
        F = lib.nn.functional
        x = lib.ones(2, 6, 3)
        if case == "groups_zero":
            return F.channel_shuffle(x, 0)
        if case == "groups_negative":
            return lib.nn.ChannelShuffle(-2)(x)
        if case == "groups_divide":
            return F.channel_shuffle(x, 4)
        if case == "dims":
            return F.channel_shuffle(lib.ones(2, 6), 3)
        if case == "native_dims":
            return lib.native_channel_shuffle(lib.ones(6), 3)
        if case == "groups_float":
            return F.channel_shuffle(x, 2.0)
        if case == "lrn_dims":
            return F.local_response_norm(lib.ones(2, 6), 3)
        if case == "lrn_size0":
            return F.local_response_norm(x, 0)
        if case == "lrn_int32":
            return F.local_response_norm(x.int(), 2)
        if case == "lrn_bool":
            return lib.nn.LocalResponseNorm(2)(lib.ones(2, 3, 2, 2, dtype=lib.bool))
        if case == "lrn_int64":
            v = lib.arange(30).reshape(1, 5, 6) - 11
            return F.local_response_norm(v, 3, alpha=3.0, k=0.0, beta=1.0), \
                F.local_response_norm(v.reshape(1, 5, 2, 3), 2)
        return F.local_response_norm(lib.ones(2, 0, 3), 3)
    run_both(prog)


def test_module_reprs():
    for a, b in ((gg.nn.ChannelShuffle(3), torch.nn.ChannelShuffle(3)),
                 (gg.nn.LocalResponseNorm(2), torch.nn.LocalResponseNorm(2)),
                 (gg.nn.LocalResponseNorm(4, 0.1, 0.5, 2), torch.nn.LocalResponseNorm(4, 0.1,
                                                                                      0.5, 2))):
        assert repr(a) == repr(b)
        assert list(a.state_dict()) == list(b.state_dict()) == []


# ------------------------------------------------------------------ gumbel_softmax
@pytest.mark.parametrize("tau", [0.5, 1.0, 3.0])
def test_gumbel_softmax_hard_samples_follow_softmax(tau):
    # the Gumbel-max trick: the argmax of logits + Gumbel noise is Categorical(softmax)
    gg.manual_seed(0)
    logits = gg.tensor([1.0, 0.0, -1.0, 2.0], dtype=gg.float64)
    n = 40000
    y = gg.nn.functional.gumbel_softmax(logits.expand(n, 4), tau=tau, hard=True)
    y = y.detach().numpy()
    assert set(np.unique(y)) == {0.0, 1.0} and (y.sum(1) == 1).all()
    p = np.exp([1.0, 0.0, -1.0, 2.0])
    p /= p.sum()
    freq = y.mean(0)
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / n)), (freq, p)


def test_gumbel_softmax_soft_samples():
    gg.manual_seed(1)
    logits = gg.tensor([[0.5, -0.5, 1.5]], dtype=gg.float64).expand(20000, 3)
    cold = gg.nn.functional.gumbel_softmax(logits, tau=0.05).detach().numpy()
    hot = gg.nn.functional.gumbel_softmax(logits, tau=100.0, dim=1).detach().numpy()
    assert np.allclose(cold.sum(1), 1) and (cold >= 0).all()
    # a low temperature gives nearly one-hot samples, a high one nearly uniform ones
    assert np.median(cold.max(1)) > 0.99
    assert np.abs(hot - 1 / 3).max() < 0.1
    # the Gumbel noise has mean Euler's gamma: E[log y_i - log y_j] = (l_i - l_j) / tau
    tau = 2.0
    y = gg.nn.functional.gumbel_softmax(logits, tau=tau).detach().numpy()
    d = np.log(y[:, 0]) - np.log(y[:, 1])
    assert abs(d.mean() - 1.0 / tau) < 4 * d.std() / np.sqrt(len(d))


@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_straight_through_gradient(dim):
    # hard=True returns the one-hot of the soft sample's argmax with the soft sample's
    # gradient: with the same noise (same seed), the gradients of the two are equal
    x0 = randn(3, 5)
    w = gg.tensor(randn(3, 5, seed=1))
    grads, outs = [], []
    for hard in (False, True):
        gg.manual_seed(7)
        x = gg.tensor(x0, requires_grad=True)
        y = gg.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard, dim=dim)
        (y * w).sum().backward()
        grads.append(x.grad.numpy())
        outs.append(y.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-14)
    soft, hard = outs
    assert (hard.sum(dim) == 1).all()
    np.testing.assert_array_equal(hard.argmax(dim), soft.argmax(dim))


def test_gumbel_softmax_graph_dtype_and_warning_like_torch():
    def prog(lib):
        x = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
        soft = lib.nn.functional.gumbel_softmax(x)
        hard = lib.nn.functional.gumbel_softmax(x.float(), hard=True)
        with pytest.warns(UserWarning, match="eps"):
            lib.nn.functional.gumbel_softmax(x, eps=1e-5)
        return (soft.grad_fn.name(), hard.grad_fn.name(), soft.dtype, hard.dtype,
                soft.shape, hard.detach().sum(-1))
    run_both(prog)


def test_gumbel_softmax_integer_logits_raise_like_torch():
    run_both(lambda lib: lib.nn.functional.gumbel_softmax(lib.ones(2, 3, dtype=lib.long)))
