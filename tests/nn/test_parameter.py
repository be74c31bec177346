"""Parameter and Buffer against PyTorch."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both
from tests.nn.module_test_helpers import fixed, norm_repr


def test_parameter_construction():
    def program(lib):
        P = lib.nn.Parameter
        t = fixed(lib, 2, 3)
        p = P(t)
        q = P(t, requires_grad=False)
        e = P()
        with lib.no_grad():
            r = P(fixed(lib, 2))
        h = P(fixed(lib, 2).requires_grad_() * 2)   # a non-leaf: detached
        return [(type(x).__name__, x.requires_grad, x.is_leaf, x.grad_fn, isinstance(x, P),
                 isinstance(x, lib.Tensor), x) for x in (p, q, e, r, h)]
    run_both(program)


def test_parameter_shares_storage_with_data():
    def program(lib):
        t = fixed(lib, 3)
        p = lib.nn.Parameter(t)
        with lib.no_grad():
            p.mul_(2)
        return t, p, p.data, type(p.data).__name__
    run_both(program)


def test_parameter_of_parameter_and_integer():
    def program(lib):
        p = lib.nn.Parameter(lib.nn.Parameter(fixed(lib, 2)), requires_grad=False)
        ok = (type(p).__name__, p.requires_grad)
        i = lib.nn.Parameter(lib.arange(3), requires_grad=False)
        ok2 = (type(i).__name__, i.dtype, i.requires_grad)
        try:
            lib.nn.Parameter(lib.arange(3))
        except RuntimeError as e:
            return ok, ok2, "RuntimeError"
        return ok, ok2, None
    run_both(program)


def test_parameter_repr():
    def program(lib):
        return (norm_repr(repr(lib.nn.Parameter(lib.tensor([1.0, 2.0])))),
                norm_repr(repr(lib.nn.Parameter(lib.tensor([[1.5], [2.0]], dtype=lib.float64),
                                                requires_grad=False))),
                norm_repr(str(lib.nn.Parameter(lib.zeros(0)))))
    run_both(program)


def test_ops_on_parameters_give_tensors_and_grads():
    def program(lib):
        p = lib.nn.Parameter(fixed(lib, 3))
        y = (p * 2).sin()
        v = p[1:]
        y.sum().backward()
        return (type(y).__name__, type(v).__name__, type(p.detach()).__name__,
                type(p.clone()).__name__, y.grad_fn, p.grad, type(p.grad).__name__)
    run_both(program)


def test_parameter_deepcopy_and_pickle():
    def program(lib):
        p = lib.nn.Parameter(fixed(lib, 3))
        p.grad = fixed(lib, 3, seed=4)
        c = copy.deepcopy(p)
        memo_same = copy.deepcopy([p, p])
        q = lib.nn.Parameter(fixed(lib, 2), requires_grad=False)
        c2 = copy.deepcopy(q)
        return (type(c).__name__, c, c.grad, c is p, memo_same[0] is memo_same[1],
                np.shares_memory(c.detach().numpy(), p.detach().numpy()),
                type(c2).__name__, c2.requires_grad)
    run_both(program)
    p = graphgrad.nn.Parameter(graphgrad.arange(3.0))
    p.tag = "weight"
    c = pickle.loads(pickle.dumps(p))
    assert type(c) is graphgrad.nn.Parameter and c.requires_grad and c.tolist() == [0, 1, 2]
    assert c.tag == "weight"


def test_parameter_subclass():
    def program(lib):
        class MyParam(lib.nn.Parameter):
            pass
        p = MyParam(fixed(lib, 2))
        m = lib.nn.Module()
        m.p = p
        return type(p).__name__, isinstance(p, lib.nn.Parameter), list(m.state_dict())
    run_both(program)


def test_is_param_flag_makes_isinstance_true():
    def program(lib):
        t = fixed(lib, 2)
        t._is_param = True
        return isinstance(t, lib.nn.Parameter), isinstance(fixed(lib, 2), lib.nn.Parameter)
    run_both(program)


def test_buffer():
    def program(lib):
        B = lib.nn.Buffer
        b = B(fixed(lib, 3))
        n = B(fixed(lib, 2), persistent=False)
        g = B(fixed(lib, 2).requires_grad_())
        m = lib.nn.Module()
        m.b = b
        m.n = n
        m.plain = fixed(lib, 1)
        return ([(type(x).__name__, isinstance(x, B), x.persistent, x.requires_grad, x.is_leaf)
                 for x in (b, n, g)], list(m.state_dict()),
                [k for k, _ in m.named_buffers()], isinstance(fixed(lib, 1), B),
                m.b is b, type(B()).__name__, B().shape)
    run_both(program)


def test_buffer_rejects_non_tensor():
    def program(lib):
        lib.nn.Buffer([1.0])
    run_both(program)


def test_parameter_rejects_non_tensor():
    def program(lib):
        lib.nn.Parameter([1.0])
    run_both(program)
    with pytest.raises(AttributeError, match="Parameter\\(\\): data must be a Tensor"):
        graphgrad.nn.Parameter([1.0])


def test_parameter_in_optimizer_style_update():
    def program(lib):
        p = lib.nn.Parameter(fixed(lib, 3))
        (p ** 2).sum().backward()
        with lib.no_grad():
            p -= 0.1 * p.grad
        p.grad = None
        return p, type(p).__name__, p.is_leaf, p.requires_grad, p._version
    run_both(program)
