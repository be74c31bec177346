"""SELU, CELU, Softshrink, Hardshrink, RReLU (and Softmin's functional form) modules against
torch.nn: values, input gradients, reprs, constructor arguments, train/eval of RReLU."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

X = randn(3, 4, 6) * 3

CASES = [
    ("SELU", (), {}), ("SELU", (True,), {}), ("SELU", (), {"inplace": True}),
    ("CELU", (), {}), ("CELU", (2.0,), {}), ("CELU", (0.5, True), {}),
    ("Softshrink", (), {}), ("Softshrink", (1.0,), {}), ("Softshrink", (), {"lambd": 2}),
    ("Hardshrink", (), {}), ("Hardshrink", (1.5,), {}), ("Hardshrink", (), {"lambd": 0}),
    ("Softmin", (1,), {}), ("Softmin", (), {"dim": -1}),
    # (RReLU in eval mode: the mean slope, deterministic; training below)
    ("RReLU", (), {}), ("RReLU", (0.1, 0.3), {}), ("RReLU", (0.1, 0.3, True), {}),
    ("RReLU", (), {"lower": 0.2, "upper": 0.2, "inplace": True}),
]


@pytest.mark.parametrize("name,args,kw", CASES)
def test_activation(name, args, kw):
    inplace = kw.get("inplace") or (True in args)
    call = (lambda m, x: m(x * 1)) if inplace else None
    check_layer(lambda lib: getattr(lib.nn, name)(*args, **kw), [X], call=call,
                train=name != "RReLU")


@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_module_in_training_draws_slopes(lib, inplace):
    m = lib.nn.RReLU(0.1, 0.3, inplace)
    assert m.training
    x = lib.tensor(X, requires_grad=True)
    y = m(x * 1)
    noise = y.grad_fn._saved_noise.numpy()
    neg = noise[X <= 0]
    assert (noise[X > 0] == 1).all() and (neg >= 0.1).all() and (neg <= 0.3).all()
    np.testing.assert_allclose(y.detach().numpy(), X * noise, rtol=1e-15)
    m.eval()
    np.testing.assert_allclose(m(lib.tensor(X)).numpy(), np.where(X > 0, X, X * 0.2),
                               rtol=1e-15)


def test_rrelu_lower_equal_upper_in_training_is_the_leaky_relu():
    check_layer(lambda lib: lib.nn.RReLU(0.25, 0.25), [X], train=True)


@pytest.mark.parametrize("name,args,kw", [
    ("SELU", (), {}), ("SELU", (True,), {}), ("CELU", (), {}), ("CELU", (2.0, True), {}),
    ("CELU", (), {"alpha": 3}), ("Softshrink", (), {}), ("Softshrink", (1,), {}),
    ("Hardshrink", (0.3,), {}), ("Hardshrink", (), {}), ("RReLU", (), {}),
    ("RReLU", (0.1, 0.3, True), {}), ("RReLU", (), {"lower": 0, "upper": 1}),
    ("Softmin", (1,), {}), ("Softmin", (), {})])
def test_repr_and_attributes(name, args, kw):
    def program(lib):
        m = getattr(lib.nn, name)(*args, **kw)
        attrs = {a: getattr(m, a) for a in ("inplace", "alpha", "lambd", "lower", "upper",
                                            "dim") if hasattr(m, a)}
        return repr(m), attrs, m.extra_repr(), sorted(type(m).__constants__)
    run_both(program)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.Softshrink(-1.0)(lib.ones(2)),
    lambda lib: lib.nn.CELU(0.0)(lib.ones(2)),
    lambda lib: lib.nn.RReLU(0.5, 0.1)(lib.ones(2)),
    lambda lib: lib.nn.SELU(inplace=True)(lib.ones(3, requires_grad=True)),
    lambda lib: lib.nn.SELU()(lib.ones(3, dtype=lib.int64)),
], ids=["softshrink negative", "celu alpha 0", "rrelu lower > upper", "selu_ leaf",
        "selu int"])
def test_errors(make):
    run_both(make)


def test_modules_are_listed():
    for name in ("SELU", "CELU", "Softshrink", "Hardshrink", "RReLU", "Softmin"):
        assert name in gg.nn.modules.activation.__all__
        assert name in dir(gg.nn)
