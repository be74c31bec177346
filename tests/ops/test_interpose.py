"""Interposers (graphgrad/ops/interpose.py): every op entry passes each call through the
active interposers once, and with none active nothing changes."""
import threading

import numpy as np
import pytest

import graphgrad as gg
from graphgrad._core.state import ALL_THREADS, tls
from graphgrad.ops.interpose import interposable, interposing


class Log:
    def __init__(self):
        self.calls = []

    def __call__(self, op, call, args, kwargs):
        self.calls.append(op.name)
        return call(args, kwargs)


def _names(log):
    return [n.split(".")[0] for n in log.calls]


def _program(x, m):
    y = gg.sin(x)            # generated unary entry
    y = y * 2                # generated binary operator
    y = gg.mul(y, x)         # public function
    y = gg.matmul(m, y)      # matmul entry
    w = gg.zeros(3, 3)
    w.add_(1)                # in-place
    return (w @ y).sum()     # dispatch


def test_each_entry_kind_is_seen_once_and_values_do_not_change():
    m = gg.arange(9.0).reshape(3, 3)
    x = gg.tensor([0.1, 0.2, 0.3], requires_grad=True)
    _program(x, m).backward()
    plain = x.grad.clone()
    x.grad = None
    log = Log()
    with interposing(log):
        z = _program(x, m)
    # (matmul is one op to interposers, as aten::matmul is; its 1-D case runs mv)
    assert _names(log)[:5] == ["sin", "mul", "mul", "matmul", "mv"], log.calls
    assert "sum" in _names(log) and "add" in _names(log)
    assert not tls.interposers and not tls.interpose_skip and ALL_THREADS.plain
    z.backward()
    assert np.array_equal(x.grad.numpy(), plain.numpy())


def test_interposer_can_change_arguments_and_result():
    def double_input(op, call, args, kwargs):
        if op.name.startswith("sin"):
            (x,) = args
            args = (x * 2,)
        return call(args, kwargs)

    x = gg.tensor([0.5], dtype=gg.float64, requires_grad=True)
    with interposing(double_input):
        y = gg.sin(x)
    y.backward()
    assert np.allclose(y.detach().numpy(), np.sin(1.0))
    assert np.allclose(x.grad.numpy(), 2 * np.cos(1.0))  # the cast is part of the graph


def test_ops_inside_an_interposer_and_a_composite_are_interposed():
    @interposable("twice_sin")
    def twice_sin(x):
        return gg.sin(x) * 2

    log = Log()
    with interposing(log):
        twice_sin(gg.ones(2))
    assert _names(log) == ["twice_sin", "sin", "mul"]
    assert twice_sin(gg.zeros(1)).item() == 0.0  # (no interposer: the plain function)


def test_nesting_order_and_error_cleanup():
    outer, inner = Log(), Log()

    def fail(op, call, args, kwargs):
        raise ValueError("no")

    with interposing(outer):
        with interposing(inner):
            gg.ones(1).exp()
        with pytest.raises(ValueError):
            with interposing(fail):
                gg.ones(1).exp()
        gg.ones(1).cos()
    assert _names(inner) == ["exp"]
    assert _names(outer) == ["exp", "exp", "cos"]
    assert tls.interposers == () and ALL_THREADS.plain


def test_other_threads_are_not_interposed():
    log = Log()
    seen = []
    with interposing(log):
        t = threading.Thread(target=lambda: seen.append(gg.ones(2).sin().sum().item()))
        t.start()
        t.join()
    assert log.calls == [] and seen


def test_calls_with_extra_arguments_are_seen_as_the_op_they_run():
    """graphgrad.add(a, b, alpha=2) runs add's alpha variant: an interposer that sees it as
    plain add (the fast entry's op) would rewrite it without alpha (vmap did)."""
    log = Log()
    a, b = gg.ones(2), gg.ones(2)
    with interposing(log):
        r = gg.add(a, b, alpha=2)
        gg.sub(a, b, alpha=3)
        gg.div(a, b, rounding_mode="floor")
        gg.add(a, b)
    assert r.tolist() == [3.0, 3.0]
    assert log.calls[-1] == "add.Tensor" or log.calls[-1].split(".")[0] == "add"
    for name in log.calls[:3]:
        assert name not in ("add.Tensor", "sub.Tensor", "div.Tensor", "add", "sub", "div"), \
            log.calls
