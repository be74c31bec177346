"""Names and overloads autograd code uses (issue 16 §4, and the cat/stack and conversion items
of §2/§3): each compared with PyTorch through ``run_both`` where PyTorch has the same call."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, to_numpy

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ cat / stack of long lists
@pytest.mark.parametrize("n", [3, 40])
def test_stack_and_cat_of_many_tensors_vs_torch(n):
    def program(T):
        xs = [T.tensor([float(i), -2.0 * i, 0.5], dtype=T.float64, requires_grad=True)
              for i in range(n)]
        w = T.arange(3 * n, dtype=T.float64).reshape(n, 3)
        y = T.stack(xs, 1)
        z = T.cat(xs, 0)
        loss = (y.t() * w).sum() + (z * z).sum()
        g = T.autograd.grad(loss, xs[:5] + xs[-2:], create_graph=True)
        gg = T.autograd.grad(sum(t.sum() for t in g) * 1.0, xs[-1])
        loss.backward()
        return (y, z, [x.grad for x in xs], g, gg,
                len(y.grad_fn.next_functions))
    run_both(program)


def test_stack_of_many_tensors_forward_ad_and_batched_jacobian_vs_torch():
    def program(T):
        xs = [T.tensor([float(i), 1.0], dtype=T.float64) for i in range(30)]
        ts = [T.tensor([1.0, float(i)], dtype=T.float64) for i in range(30)]
        with T.autograd.forward_ad.dual_level():
            duals = [T.autograd.forward_ad.make_dual(x, t) if i % 3 else x
                     for i, (x, t) in enumerate(zip(xs, ts))]
            tan = [T.autograd.forward_ad.unpack_dual(f(duals)).tangent
                   for f in (T.stack, T.cat)]
        jac = T.autograd.functional.jacobian(
            lambda a, b: T.stack([a] * 10 + [b] * 10, 0), (xs[1], xs[2]),
            strategy="forward-mode", vectorize=True)
        return tan, jac
    run_both(program)


def test_stack_of_20000_tensors_needs_no_new_table_entry():
    # Stacking N tensors used to generate (and keep) code for an N-input op: 10,000 took
    # seconds and a gigabyte, 100,000 ran out of memory.  Now no table or cache grows with N.
    from graphgrad._ops import copies, registry
    from graphgrad.autograd import graph
    before = (len(registry.OPS), len(copies._CAT_OPS), len(copies._STACK_OPS), len(graph._ZEROS))
    xs = [graphgrad.ones(2, requires_grad=True) for _ in range(20000)]
    y = graphgrad.stack(xs)
    (y * 2).sum().backward()
    graphgrad.cat(xs).sum().backward()
    after = (len(registry.OPS), len(copies._CAT_OPS), len(copies._STACK_OPS), len(graph._ZEROS))
    assert after == before
    assert type(y.grad_fn).__name__ == "StackBackward0"
    assert len(y.grad_fn.next_functions) == 20000
    np.testing.assert_array_equal(xs[123].grad.numpy(), [3.0, 3.0])
