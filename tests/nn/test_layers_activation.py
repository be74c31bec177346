"""Activation modules against torch.nn (values, input gradients, PReLU's weight gradient,
reprs)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")

X = randn(3, 4, 6) * 3

CASES = [
    ("ReLU", (), {}), ("ReLU", (), {"inplace": True}), ("LeakyReLU", (), {}),
    ("LeakyReLU", (0.2, True), {}),
    ("ELU", (), {}), ("ELU", (0.5,), {"inplace": True}), ("GELU", (), {}),
    ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}), ("SiLU", (True,), {}),
    ("Softplus", (), {}), ("Softplus", (2.0, 5.0), {}), ("Tanh", (), {}), ("Sigmoid", (), {}),
    ("Softmax", (1,), {}), ("Softmax", (), {"dim": -1}), ("LogSoftmax", (0,), {}),
    ("LogSoftmax", (), {"dim": 2}), ("Softmin", (1,), {}), ("Softmin", (), {"dim": -1}),
    ("Softmax2d", (), {}),
]
# PyTorch's CPU hardsigmoid_backward multiplies by 1.0f / 6.0f, a float32 constant, even in
# float64; graphgrad's F.hardsigmoid (helper G's op) uses the exact 1/6, 3e-8 relative apart
HARDSIGMOID_GRAD = pytest.mark.xfail(reason="F.hardsigmoid's gradient uses 1/6, PyTorch's "
                                     "float32 1.0f/6.0f (op-level, not the module)")
G_CASES = [("ReLU6", (), {}, "hardtanh"), ("ReLU6", (), {"inplace": True}, "hardtanh"),
           ("Mish", (), {}, "mish"), ("Mish", (True,), {}, "mish"),
           ("Hardtanh", (), {}, "hardtanh"), ("Hardtanh", (-2.0, 0.5), {}, "hardtanh"),
           ("Hardtanh", (), {"inplace": True}, "hardtanh"),
           pytest.param("Hardsigmoid", (), {}, "hardsigmoid", marks=HARDSIGMOID_GRAD),
           pytest.param("Hardsigmoid", (True,), {}, "hardsigmoid", marks=HARDSIGMOID_GRAD),
           ("Hardswish", (), {}, "hardswish"), ("Hardswish", (True,), {}, "hardswish"),
           ("LogSigmoid", (), {}, "logsigmoid"), ("GLU", (), {}, "glu"),
           ("GLU", (1,), {}, "glu"), ("Softsign", (), {}, "softsign"),
           ("Tanhshrink", (), {}, "tanhshrink")]


def _check(name, args, kw):
    inplace = kw.get("inplace") or (True in args)
    # an in-place activation needs a non-leaf input: run it on x * 1
    call = (lambda m, x: m(x * 1)) if inplace else None
    check_layer(lambda lib: getattr(lib.nn, name)(*args, **kw), [X], call=call)


@pytest.mark.parametrize("name,args,kw", CASES)
def test_activation(name, args, kw):
    _check(name, args, kw)


@pytest.mark.parametrize("name,args,kw,op", G_CASES)
def test_activation_with_functional_op(name, args, kw, op):
    if not hasattr(gg.nn.functional, op):
        pytest.skip(f"graphgrad.nn.functional lacks {op}")
    _check(name, args, kw)


@needs("prelu")
@pytest.mark.parametrize("num,init", [(1, 0.25), (4, 0.1)])
def test_prelu(num, init):
    check_layer(lambda lib: lib.nn.PReLU(num, init, dtype=lib.float64), [X])


def test_prelu_parameter():
    m, t = gg.nn.PReLU(3), torch.nn.PReLU(3)
    assert repr(m) == repr(t)
    np.testing.assert_array_equal(m.weight.detach().numpy(), t.weight.detach().numpy())


@pytest.mark.parametrize("name,args", [("Hardtanh", (1.0, 1.0)), ("Hardtanh", (2.0, 1.0))])
def test_bad_constructor_args(name, args):
    run_both(lambda lib: getattr(lib.nn, name)(*args))


def test_hardtanh_deprecated_kwargs():
    for lib in (gg, torch):
        with pytest.warns(FutureWarning, match="min_value"):
            m = lib.nn.Hardtanh(min_value=-3.0)
        assert m.min_val == -3.0


@pytest.mark.filterwarnings("ignore:Implicit dimension")
@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax", "Softmin"])
def test_softmax_without_dim_warns_like_torch(name):
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="Implicit dimension"):
            getattr(lib.nn, name)()(lib.ones(2, 3))
    run_both(lambda lib: getattr(lib.nn, name)()(lib.linspace(0, 1, 6).reshape(2, 3)))


def test_softmax2d_wrong_dims():
    run_both(lambda lib: lib.nn.Softmax2d()(lib.ones(2, 3)))


def test_inplace_on_leaf_raises_like_torch():
    run_both(lambda lib: lib.nn.ReLU(inplace=True)(lib.ones(3, requires_grad=True)))


@pytest.mark.parametrize("name,args", [("ReLU", ()), ("ReLU", (True,)), ("LeakyReLU", ()),
                                       ("LeakyReLU", (0.3, True)), ("ELU", (2.0,)),
                                       ("GELU", ("tanh",)), ("Softplus", (1.5, 10)),
                                       ("Softmax", (1,)), ("LogSoftmax", ()), ("SiLU", ()),
                                       ("Mish", (True,)), ("Hardtanh", (-2.0, 3.0, True)),
                                       ("ReLU6", (True,)), ("Tanh", ()), ("Sigmoid", ()),
                                       ("GLU", (0,)), ("Hardswish", (True,)),
                                       ("Hardsigmoid", ()), ("LogSigmoid", ()), ("Softsign", ()),
                                       ("Tanhshrink", ()), ("Softmin", (0,)), ("Softmax2d", ())])
def test_repr(name, args):
    assert repr(getattr(gg.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
