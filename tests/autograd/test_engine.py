"""The backward engine: backward/grad signatures, errors, higher order, ordering, memory, threads."""
import gc
import random
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, run_both


def _xy(lib):
    return (lib.tensor([0.5, 1.5, -1.0], requires_grad=True),
            lib.tensor([2.0, -0.5, 3.0], requires_grad=True))


# ------------------------------------------------------------------ backward()
def test_seed_example():
    def prog(lib):
        x = lib.tensor([2.0], requires_grad=True)
        y = lib.tensor([3.0], requires_grad=True)
        loss = (x * y + 1) ** 2
        loss.backward()
        return loss, x.grad, y.grad
    ours, _ = run_both(prog)
    assert ours[1].tolist() == [42.0] and ours[2].tolist() == [28.0]


def test_backward_with_gradient():
    def prog(lib):
        x, y = _xy(lib)
        (x * y).backward(lib.tensor([1.0, -1.0, 2.0]))
        return x.grad, y.grad
    run_both(prog)


def test_backward_gradient_as_keyword_and_broadcast_input():
    def prog(lib):
        x = lib.tensor([[0.5], [1.5]], requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * b).backward(gradient=lib.ones(2, 3))
        return x.grad, b.grad
    run_both(prog)


def test_autograd_backward_several_roots_and_grad_tensors():
    def prog(lib):
        x, y = _xy(lib)
        lib.autograd.backward([(x * y).sum(), (y * y).sum()])
        first = (x.grad.clone(), y.grad.clone())
        lib.autograd.backward([x * y, y.exp()], grad_tensors=[lib.ones(3), lib.full((3,), 0.5)])
        lib.autograd.backward(x * y, lib.tensor([1.0, -1.0, 0.0]))
        return first, x.grad, y.grad
    run_both(prog)


def test_autograd_backward_with_none_gradient_for_scalar():
    def prog(lib):
        x, y = _xy(lib)
        lib.autograd.backward([(x * y).sum(), y * 2], grad_tensors=[None, lib.ones(3)])
        return x.grad, y.grad
    run_both(prog)


def test_gradient_accumulates_across_calls():
    def prog(lib):
        x, y = _xy(lib)
        (x * y).sum().backward()
        g = x.grad
        (x * x).sum().backward()
        (x.sin()).sum().backward()
        return x.grad, y.grad, x.grad is g
    run_both(prog)


def test_accumulation_is_in_place_and_bumps_version():
    def prog(lib):
        x, _ = _xy(lib)
        (x * 2).sum().backward()
        g = x.grad
        v = g._version
        (x * 3).sum().backward()
        return x.grad is g, g._version > v, g
    run_both(prog)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_many_gradients_summed_into_one_input(shape):
    # the engine adds later gradients in place into a buffer it owns; the first ones may
    # alias each other (add passes one array to both inputs) or be 0-d NumPy scalars
    def prog(lib):
        x = lib.ones(shape, dtype=lib.float64).requires_grad_()
        y = x * 1.5
        z = y + y
        terms = [z * k for k in range(1, 6)] + [y * y, y.exp(), z]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        total.sum().backward()
        w = lib.ones(shape, dtype=lib.float64).requires_grad_()
        (w * 2 + w * 3 + w + w).sum().backward()
        return x.grad, w.grad
    run_both(prog)


def test_grad_set_to_none_then_recomputed():
    def prog(lib):
        x, _ = _xy(lib)
        (x * 2).sum().backward()
        x.grad = None
        (x * 3).sum().backward()
        return x.grad
    run_both(prog)


def test_user_grad_is_accumulated_into():
    def prog(lib):
        x, _ = _xy(lib)
        x.grad = lib.ones(3)
        g = x.grad
        (x * 2).sum().backward()
        return x.grad, x.grad is g, g
    run_both(prog)


def test_gradient_dtype_is_cast_to_input_dtype():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x.float() * 2
        y.backward(lib.ones(2))
        return x.grad
    run_both(prog)


def test_backward_inputs_tensors():
    def prog(lib):
        x, y = _xy(lib)
        (x * y).sum().backward(inputs=[y])
        first = (x.grad, y.grad)
        (x * y).sum().backward(inputs=x)
        return first, x.grad, y.grad
    run_both(prog)


def test_backward_inputs_non_leaf_accumulates_into_its_grad():
    def prog(lib):
        x, _ = _xy(lib)
        z = x * 3
        lib.autograd.backward((z * z).sum(), inputs=[z])
        return z.grad, x.grad
    run_both(prog)


def test_backward_inputs_non_leaf_with_hooks_and_retain_grad():
    def prog(lib):
        x, _ = _xy(lib)
        out = []
        for hook, retain in ((False, True), (True, False), (True, True)):
            y = x * 2
            if hook:
                y.register_hook(lambda g: g + 1)
            if retain:
                y.retain_grad()
            before = y.retains_grad
            (y * y).sum().backward(inputs=[y, x] if hook and retain else [y])
            out.append((before, y.retains_grad, y.grad))
        return out, x.grad
    run_both(prog)


def test_backward_inputs_gradient_edge():
    def prog(lib):
        x, y = _xy(lib)
        (x * y).sum().backward(inputs=[lib.autograd.graph.get_gradient_edge(x)])
        return x.grad, y.grad
    run_both(prog)


def test_backward_retain_graph_default_follows_create_graph():
    def prog(lib):
        x, _ = _xy(lib)
        loss = (x ** 3).sum()
        loss.backward(create_graph=True)
        loss.backward()  # create_graph=True kept the graph
        x.grad = None
        return loss, x.grad
    run_both(prog)


# ------------------------------------------------------------------ grad()
def test_grad_returns_tuple_and_does_not_accumulate():
    def prog(lib):
        x, y = _xy(lib)
        g = lib.autograd.grad((x * y).sum(), [x, y])
        return g, type(g).__name__, x.grad, y.grad
    run_both(prog)


def test_grad_single_tensor_input():
    def prog(lib):
        x, _ = _xy(lib)
        return lib.autograd.grad((x * x).sum(), x)
    run_both(prog)


def test_grad_outputs_and_several_outputs():
    def prog(lib):
        x, y = _xy(lib)
        g1 = lib.autograd.grad([x * y, y.exp()], [x, y],
                               grad_outputs=[lib.ones(3), lib.full((3,), 2.0)])
        g2 = lib.autograd.grad([(x * 2).sum(), (x * x).sum()], x)
        g3 = lib.autograd.grad([x * 2, (x * x).sum()], x, grad_outputs=[lib.ones(3), None])
        return g1, g2, g3
    run_both(prog)


def test_grad_of_non_leaf_input():
    def prog(lib):
        x, _ = _xy(lib)
        u = x.sin()
        v = (u * u).sum()
        return lib.autograd.grad(v, [u, x])
    run_both(prog)



def test_materialized_zeros_under_create_graph_require_grad():
    # issue 16 s2: PyTorch's zeros for unused inputs are zeros_like(input,
    # requires_grad=create_graph), so a further grad() of them gives zeros (with
    # allow_unused) or the unused-input error, not "does not require grad"
    def prog(lib):
        x, y = _xy(lib)
        gx, gy = lib.autograd.grad((x * 2).sum(), (x, y), materialize_grads=True,
                                   create_graph=True)
        first = lib.autograd.grad(gy.sum(), y, allow_unused=True)
        again = lib.autograd.grad(gy.sum(), y, allow_unused=True, materialize_grads=True)
        plain = lib.autograd.grad((x * 2).sum(), (x, y), materialize_grads=True)
        return gx, gy, gy.is_leaf, first, again, plain
    run_both(prog)

def test_grad_allow_unused_and_materialize():
    def prog(lib):
        x, y = _xy(lib)
        out = [lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)]
        out.append(lib.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True))
        out.append(lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=True,
                                     materialize_grads=True))
        return out
    run_both(prog)


def test_grad_input_reached_only_through_non_differentiable_path():
    def prog(lib):
        x, y = _xy(lib)
        z = x.detach() * y
        return lib.autograd.grad(z.sum(), [x, y], allow_unused=True)
    run_both(prog)


def test_grad_only_runs_the_part_of_the_graph_leading_to_inputs():
    def prog(lib):
        calls = []
        x, y = _xy(lib)
        a = x * 2
        c = y * 3
        a.register_hook(lambda g: calls.append("a"))
        c.register_hook(lambda g: calls.append("c"))
        s = (a * c).sum()
        g = lib.autograd.grad(s, x, retain_graph=True)
        first = list(calls)
        calls.clear()
        s.backward(inputs=[y])
        return g, first, calls, x.grad, y.grad
    run_both(prog)


def test_grad_with_create_graph_on_constant_gradient():
    def prog(lib):
        x, _ = _xy(lib)
        (g,) = lib.autograd.grad((x * 2).sum(), x, create_graph=True)
        return g
    run_both(prog)


# ------------------------------------------------------------------ errors
ERRORS = {
    "non_scalar_backward": lambda lib, x, y: (x * y).backward(),
    "non_scalar_grad": lambda lib, x, y: lib.autograd.grad(x * y, x),
    "no_requires_grad": lambda lib, x, y: lib.ones(2).sum().backward(),
    "no_requires_grad_grad": lambda lib, x, y: lib.autograd.grad(lib.ones(2).sum(), x),
    "no_grad_output": lambda lib, x, y: _under_no_grad(lib, x).backward(),
    "wrong_shape": lambda lib, x, y: (x * y).backward(lib.ones(2)),
    "wrong_shape_broadcastable": lambda lib, x, y: (x * y).backward(lib.ones(1, 3)),
    "wrong_shape_0d": lambda lib, x, y: lib.autograd.grad((x * y).sum(), x,
                                                          grad_outputs=lib.ones(1)),
    "wrong_shape_grad": lambda lib, x, y: lib.autograd.grad(x * y, x, grad_outputs=lib.ones(4)),
    "gradient_not_tensor": lambda lib, x, y: (x * y).backward([1.0, 1.0, 1.0]),
    "too_few_gradients": lambda lib, x, y: lib.autograd.backward(
        [x * y, x * 2], grad_tensors=[lib.ones(3)]),
    "complex_gradient_for_real": lambda lib, x, y: (x * y).backward(
        lib.ones(3, dtype=lib.complex64)),
    "unused_input": lambda lib, x, y: lib.autograd.grad((x * 2).sum(), [x, y]),
    "unused_input_false": lambda lib, x, y: lib.autograd.grad((x * 2).sum(), [x, y],
                                                              allow_unused=False),
    "materialize_without_allow_unused": lambda lib, x, y: lib.autograd.grad(
        (x * 2).sum(), [x, y], allow_unused=False, materialize_grads=True),
    "input_without_grad": lambda lib, x, y: lib.autograd.grad((x * 2).sum(), lib.ones(2)),
    "empty_grad_inputs": lambda lib, x, y: lib.autograd.grad((x * 2).sum(), []),
    "empty_backward_inputs": lambda lib, x, y: (x * 2).sum().backward(inputs=[]),
    "backward_input_without_grad": lambda lib, x, y: (x * 2).sum().backward(
        inputs=[lib.ones(2)]),
    "int_output": lambda lib, x, y: lib.tensor([1, 2]).sum().backward(),
}


def _under_no_grad(lib, x):
    with lib.no_grad():
        return (x * 2).sum()


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    def prog(lib):
        x, y = _xy(lib)
        ERRORS[name](lib, x, y)
        return x.grad, y.grad
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)


def test_error_messages_are_helpful():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"implicitly created only for scalar outputs.*\[2\]"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape.*\[3\].*\[2\]"):
        (x * 2).backward(graphgrad.ones(3))
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        graphgrad.autograd.grad((x * 2).sum(), [x, graphgrad.ones(1, requires_grad=True)])
    with pytest.raises(RuntimeError, match="does not require grad"):
        graphgrad.ones(2).sum().backward()


# ------------------------------------------------------------------ a failed backward
def test_failed_backward_leaves_grad_untouched():
    # PyTorch keeps the gradients accumulated before the failure (x.grad becomes 11 here);
    # graphgrad rolls them back so nothing is left half-updated (docs/differences.md).
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    y = graphgrad.tensor([3.0, 4.0], requires_grad=True)
    x.grad = graphgrad.tensor([10.0, 10.0])
    g = x.grad
    b = y.exp()

    def boom(grad):
        assert x.grad.tolist() == [11.0, 11.0]  # x was accumulated before this hook ran
        raise ZeroDivisionError("boom")
    b.register_hook(boom)
    loss = b.sum() + x.sum()
    with pytest.raises(ZeroDivisionError):
        loss.backward()
    assert x.grad is g and x.grad.tolist() == [10.0, 10.0]
    assert y.grad is None


def test_failed_backward_rolls_back_first_gradients_too():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    y = graphgrad.tensor([3.0, 4.0], requires_grad=True)
    z = y * 1
    w = z.sin()
    z.add_(1)  # SinBackward0 will fail its version check
    loss = w.sum() + (x * 2).sum()
    with pytest.raises(RuntimeError, match="inplace operation"):
        loss.backward()
    assert x.grad is None and y.grad is None


def test_failed_backward_with_create_graph_restores_grad():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    g = x.grad
    y = x.exp()
    y.register_hook(lambda grad: 1 / 0)
    loss = y.sum() + (x ** 2).sum()
    with pytest.raises(ZeroDivisionError):
        loss.backward(create_graph=True)
    assert x.grad is g and x.grad.tolist() == [2.0, 4.0]


# ------------------------------------------------------------------ higher order
def _nth_grads(lib, f, x, n):
    out = []
    y = f(x).sum()
    for _ in range(n):
        (y,) = lib.autograd.grad(y, x, create_graph=True)
        out.append(y)
        y = y.sum()
    return out


HIGHER = {
    "cube": lambda x: x ** 3,
    "sin": lambda x: x.sin(),
    "tanh_chain": lambda x: (x * 2).tanh().tanh(),
    "sin_tanh": lambda x: x.sin().tanh() * x,
    "exp_log": lambda x: (x.exp() + 1).log(),
    "sigmoid": lambda x: x.sigmoid() * x.cos(),
    "div_pow": lambda x: 1 / (x ** 2 + 1),
    "pow_tensor": lambda x: x ** x,
    "matmul": lambda x: (x.unsqueeze(1) @ x.unsqueeze(0)).sin() @ x,
    "mean_view": lambda x: x.view(2, 2).mean(0) ** 3,
}


@pytest.mark.parametrize("name", list(HIGHER))
def test_higher_order_derivatives(name):
    def prog(lib):
        x = lib.tensor([0.3, 0.7, 1.2, 1.9], dtype=lib.float64, requires_grad=True)
        return _nth_grads(lib, HIGHER[name], x, 3)
    run_both(prog)


def test_third_derivative_of_cube_is_six():
    x = graphgrad.tensor([0.3, 2.0], requires_grad=True)
    g1, g2, g3 = _nth_grads(graphgrad, lambda t: t ** 3, x, 3)
    np.testing.assert_allclose(g1.detach().numpy(), [0.27, 12.0], rtol=1e-6)
    np.testing.assert_allclose(g2.detach().numpy(), [1.8, 12.0], rtol=1e-6)
    np.testing.assert_allclose(g3.detach().numpy(), [6.0, 6.0], rtol=1e-6)


def test_backward_create_graph_grad_requires_grad():
    def prog(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        first = (g, g.requires_grad, g.is_leaf)
        g.sum().backward()  # no create_graph: accumulated in place into the same tensor
        return first, x.grad, x.grad is g
    run_both(prog)


def test_backward_create_graph_twice_gives_new_grad_tensor():
    def prog(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        (x * x).sum().backward()
        g0 = x.grad
        (x * x).sum().backward(create_graph=True)
        return x.grad is g0, x.grad, g0
    run_both(prog)


def test_hessian_vector_product_through_backward():
    def prog(lib):
        x = lib.tensor([0.5, 1.5, -0.3], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 0.5, 2.0], dtype=lib.float64)
        (g,) = lib.autograd.grad((x.sin() * x.exp()).sum(), x, create_graph=True)
        (hv,) = lib.autograd.grad(g, x, grad_outputs=v)
        return g, hv
    run_both(prog)


def test_double_backward_through_inplace_and_views():
    def prog(lib):
        x = lib.tensor([0.5, 1.5, -0.3], dtype=lib.float64, requires_grad=True)
        y = x * 1
        y[1:].mul_(x[:2])
        z = y.exp().sum()
        (g,) = lib.autograd.grad(z, x, create_graph=True)
        return g, lib.autograd.grad(g.sum(), x)
    run_both(prog)


# ------------------------------------------------------------------ long chains, memory
def test_100k_op_chain_without_recursion():
    limit = sys.getrecursionlimit()
    x = graphgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    assert sys.getrecursionlimit() == limit


def test_deep_graph_helpers_do_not_recurse():
    x = graphgrad.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y + 0.0
    assert y.grad_fn._topological_nr() == 20_000
    (g,) = graphgrad.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [1.0]


def test_graph_freed_after_backward_and_del_without_gc():
    gc.disable()
    try:
        x = graphgrad.tensor([0.5, 1.5], requires_grad=True)
        mid = x.sin() * 2
        loss = mid.exp().sum()
        refs = [weakref.ref(mid.grad_fn), weakref.ref(loss.grad_fn),
                weakref.ref(mid.grad_fn.next_functions[0][0])]
        del mid
        loss.backward()
        del loss
        assert all(r() is None for r in refs)
        assert x.grad is not None
    finally:
        gc.enable()


def test_create_graph_grads_free_their_graph_without_gc():
    gc.disable()
    try:
        x = graphgrad.tensor([0.5, 1.5], requires_grad=True)
        y = (x.tanh() ** 2).sum()
        (g,) = graphgrad.autograd.grad(y, x, create_graph=True)
        ref = weakref.ref(g.grad_fn)
        del y, g
        assert ref() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------ ready-queue order
def _random_program(seed):
    """A random DAG of ops with a hook on every tensor; returns the hook call order."""
    def prog(lib):
        rng = random.Random(seed)
        calls = []
        ts = []
        for i in range(rng.randint(1, 5)):
            t = lib.tensor([0.3 + i, 0.7], requires_grad=True)
            t.register_hook(lambda g, i=i: calls.append(f"leaf{i}"))
            if rng.random() < 0.3:
                t.register_post_accumulate_grad_hook(lambda t, i=i: calls.append(f"acc{i}"))
            ts.append(t)
        for k in range(rng.randint(1, 12)):
            a, b = rng.choice(ts), rng.choice(ts)
            op = rng.choice(["mul", "add", "sin", "exp", "sub", "tanh"])
            y = {"mul": lambda: a * b, "add": lambda: a + b, "sin": lambda: a.sin(),
                 "exp": lambda: (a * 0.1).exp(), "sub": lambda: a - b,
                 "tanh": lambda: a.tanh()}[op]()
            y.register_hook(lambda g, k=k: calls.append(f"t{k}"))
            if rng.random() < 0.3:
                y.grad_fn.register_prehook(lambda g, k=k: calls.append(f"pre{k}"))
            ts.append(y)
        outs = rng.sample(ts, rng.randint(1, min(3, len(ts))))
        sum(o.sum() for o in outs).backward()
        return calls
    return prog


@pytest.mark.parametrize("seed", range(40))
def test_hook_order_follows_torch_ready_queue(seed):
    run_both(_random_program(seed))


def test_leaves_accumulate_in_torch_order():
    def prog(lib):
        calls = []
        leaves = [lib.tensor([1.0 + i], requires_grad=True) for i in range(6)]
        for i, t in enumerate(leaves):
            t.register_post_accumulate_grad_hook(lambda t, i=i: calls.append(i))
        prod = leaves[0]
        for t in leaves[1:]:
            prod = prod * t
        (prod + leaves[3] * leaves[5] + sum(leaves)).sum().backward()
        return calls
    run_both(prog)


def _identity_calling(lib, on_backward):
    """``apply(x, tag)``: an identity Function whose backward calls ``on_backward(tag)``
    (code running inside a backward without a hook; its calls show the node order)."""
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, tag):
            ctx.tag = tag
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            on_backward(ctx.tag)
            return g, None
    return Identity.apply


def _random_program_without_hooks(seed):
    """A random DAG with several roots, tagged nodes and retained gradients but no hook:
    a plain backward, run by the sequence-order loop; returns node order and gradients."""
    def prog(lib):
        rng = random.Random(seed)
        calls = []
        tag = _identity_calling(lib, calls.append)
        leaves = [lib.tensor([0.3 + i, 0.7, -0.2 * i], requires_grad=True)
                  for i in range(rng.randint(1, 4))]
        ts = list(leaves)
        retained = []
        for k in range(rng.randint(2, 16)):
            a, b = rng.choice(ts), rng.choice(ts)
            op = rng.choice(["mul", "add", "sin", "exp", "sub", "tanh", "cat", "unbind"])
            if op == "unbind":  # several outputs, some unused
                y = lib.stack(a.unbind(0)[::-1])
            else:
                y = {"mul": lambda: a * b, "add": lambda: a + b, "sin": lambda: a.sin(),
                     "exp": lambda: (a * 0.1).exp(), "sub": lambda: a - b,
                     "tanh": lambda: a.tanh(),
                     "cat": lambda: lib.cat([a, b])[1:4]}[op]()
            if rng.random() < 0.6:
                y = tag(y, f"t{k}")
            if rng.random() < 0.3:
                y.retain_grad()
                retained.append(y)
            ts.append(y)
        outs = rng.sample(ts[len(leaves):], rng.randint(1, min(3, len(ts) - len(leaves))))
        lib.autograd.backward([o.sum() for o in outs])
        return calls, [t.grad for t in leaves], [t.grad for t in retained]
    return prog


def _no_dependency_counts(monkeypatch):
    from graphgrad.autograd.engine import task as engine

    def fail(root):
        raise AssertionError("dependencies counted")
    monkeypatch.setattr(engine, "_compute_dependencies", fail)


@pytest.mark.parametrize("seed", range(40))
def test_plain_backward_by_sequence_order_matches_torch(seed, monkeypatch):
    """No dependency counts (NOTE [Sequence order]): the same node order as PyTorch's
    ready queue, seen through custom Functions' backward calls, and the same gradients.
    (A custom Function's backward is user code, which hands the backward over to the
    counting loop; declared harmless here, the tags stay in the sequence-order loop.)"""
    from graphgrad.autograd.function import BackwardCFunction
    monkeypatch.setattr(BackwardCFunction, "_runs_user_code", False)
    _no_dependency_counts(monkeypatch)
    run_both(_random_program_without_hooks(seed))


def _random_program_with_observers(seed):
    """A random DAG whose hooks and custom Functions record every leaf's .grad when they
    run, and whose leaves have post-accumulate hooks: when each leaf accumulates, and the
    order of the hooks, as seen from inside the backward."""
    def prog(lib):
        rng = random.Random(seed)
        log = []
        leaves = [lib.tensor([0.3 + i, 0.7, -0.2 * i], dtype=lib.float64, requires_grad=True)
                  for i in range(rng.randint(1, 5))]

        def look(what):
            log.append((what, [None if t.grad is None else t.grad.tolist() for t in leaves]))
        tag = _identity_calling(lib, look)
        for i, t in enumerate(leaves):
            if rng.random() < 0.4:
                t.register_post_accumulate_grad_hook(lambda t, i=i: look(f"acc{i}"))
            if rng.random() < 0.2:
                t.register_hook(lambda g, i=i: look(f"leaf{i}"))
        ts = list(leaves)
        for k in range(rng.randint(2, 14)):
            a, b = rng.choice(ts), rng.choice(ts)
            op = rng.choice(["mul", "add", "sin", "sub", "tanh", "cat"])
            y = {"mul": lambda: a * b, "add": lambda: a + b, "sin": lambda: a.sin(),
                 "sub": lambda: a - b, "tanh": lambda: a.tanh(),
                 "cat": lambda: lib.cat([a, b])[1:4]}[op]()
            r = rng.random()
            if r < 0.15:
                y = tag(y, f"f{k}")
            elif r < 0.3:
                y.register_hook(lambda g, k=k: look(f"t{k}"))
            elif r < 0.4:
                y.grad_fn.register_prehook(lambda go, k=k: look(f"pre{k}"))
            ts.append(y)
        outs = rng.sample(ts[len(leaves):], rng.randint(1, min(3, len(ts) - len(leaves))))
        lib.autograd.backward([o.sum() for o in outs])
        return log, [t.grad for t in leaves]
    return prog


@pytest.mark.parametrize("seed", range(40))
def test_user_code_sees_torchs_accumulation_timing(seed):
    """Hooks and custom Functions anywhere in the graph: the sequence-order loop hands
    over before the first of them runs, and from then on every leaf accumulates when it
    does in PyTorch (NOTE [Sequence order])."""
    run_both(_random_program_with_observers(seed))


def test_plain_backward_does_not_count_dependencies(monkeypatch):
    """Only a graph with user code in it counts dependencies: a hook registered elsewhere
    in the process, before or during, changes nothing for a graph without one."""
    from graphgrad.autograd.engine import task as engine
    counted = []
    real = engine._compute_dependencies
    monkeypatch.setattr(engine, "_compute_dependencies",
                        lambda root: counted.append(root) or real(root))
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sin()
    y.retain_grad()  # (not a user hook)
    y.sum().backward()
    assert not counted
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 4.0]) * [2.0, 4.0])
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])
    y = x * 2
    y.register_hook(lambda g: None)  # a user hook in this graph: counted
    y.sum().backward()
    assert len(counted) == 1
    (x * 3).sin().sum().backward()  # a new graph without one: not counted
    assert len(counted) == 1


def test_backward_into_one_leaf():
    """execute(only=leaf) (NOTE [backward into one leaf]): accumulates into that leaf
    when the graph reaches no other; else returns False having changed no .grad and run
    no hook, with the graph kept for another backward."""
    from graphgrad.autograd.engine import execute
    from graphgrad.autograd.views import _edge

    def run(out, leaf):
        return execute([_edge(out)], [np.array(1.0)], True, False, only=leaf)
    x = graphgrad.tensor([0.5, 1.5, -1.0], requires_grad=True)
    w = graphgrad.tensor([2.0, -0.5, 3.0], requires_grad=True)
    assert run((x * x).sin().sum(), x) is True
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.25, 2.25, 1.0]) * [1.0, 3.0, -2.0])
    x.grad = None
    calls = []
    # w's leaf is reached last: several nodes (one with a hook) come before it
    y = (x * w).sin()
    y.register_hook(lambda g: calls.append(1))
    out = y.exp().sum()
    assert run(out, x) is False
    assert x.grad is None and w.grad is None and not calls
    out.backward()   # (the graph is whole)
    assert calls == [1]
    e = np.exp(np.sin([1.0, -0.75, -3.0])) * np.cos([1.0, -0.75, -3.0])
    np.testing.assert_allclose(x.grad.numpy(), e * [2.0, -0.5, 3.0])
    np.testing.assert_allclose(w.grad.numpy(), e * [0.5, 1.5, -1.0])
    # a hook alone (no other leaf): handed over, runs once, accumulates
    x.grad, calls[:] = None, []
    y = x.sin()
    y.register_hook(lambda g: calls.append(1) or g * 2)
    assert run(y.sum(), x) is True
    assert calls == [1]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.5, 1.5, -1.0]))
    # anomaly mode: nothing done (the caller takes its general path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (detect_anomaly's "enabled" warning)
        with graphgrad.autograd.detect_anomaly():
            assert run((x * 2).sum(), x) is False
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.5, 1.5, -1.0]))


def _observers():
    def identity(x):
        class Identity(graphgrad.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return g
        return Identity.apply(x)

    def saved_hooks(x):
        with graphgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            return x.sin()

    def inplace_saved_hooks(x):
        y = x * 1
        with graphgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y.mul_(y)
        return y
    def node_hook(register):
        def make(x):
            y = x * 1
            register(y.grad_fn)
            return y
        return make
    return [
        lambda x: (x.register_hook(lambda g: None), x * 1)[1],
        lambda x: (x.register_post_accumulate_grad_hook(lambda t: None), x * 1)[1],
        lambda x: (x * 1).sin().register_hook(lambda g: None) and None,
        node_hook(lambda n: n.register_hook(lambda gi, go: None)),
        node_hook(lambda n: n.register_prehook(lambda go: None)),
        node_hook(lambda n: n.next_functions[0][0].register_hook(lambda gi, go: None)),
        identity, saved_hooks, inplace_saved_hooks,
    ]


@pytest.mark.parametrize("k", range(9))
def test_every_kind_of_user_code_hands_over_to_counted_order(k, monkeypatch):
    """Hooks, custom Functions and saved-tensor hooks could observe when a leaf
    accumulates: a graph holding any of them counts dependencies, another does not."""
    from graphgrad.autograd.engine import task as engine
    counted = []
    real = engine._compute_dependencies
    monkeypatch.setattr(engine, "_compute_dependencies",
                        lambda root: counted.append(root) or real(root))
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    y = _observers()[k](x)
    if y is None:  # a hook on a non-leaf tensor
        y = x.sin()
        y.register_hook(lambda g: None)
    y.sum().backward()
    assert len(counted) == 1
    z = graphgrad.tensor([3.0], requires_grad=True)
    (z * 2).sin().sum().backward()
    x.sin().sum().backward()
    assert len(counted) == 1 + (k in (0, 1, 5))  # (x keeps its hooks: its graphs hand over)


def test_custom_function_and_unpack_hook_see_leaves_accumulated_as_in_torch():
    """Code running inside the backward without a hook sees a leaf's .grad accumulated
    exactly when PyTorch accumulates it (here: w's AccumulateGrad is ready first)."""
    def prog(lib):
        seen = []
        peek = _identity_calling(
            lib, lambda tag: seen.append(None if w.grad is None else w.grad.tolist()))
        w = lib.tensor([2.0], requires_grad=True)
        v = lib.tensor([1.0], requires_grad=True)
        (peek(v.exp(), None) * 1 + w * 3).sum().backward()

        def unpack(t):
            seen.append(None if w.grad is None else w.grad.tolist())
            return t
        w.grad = None
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            u = v.sin()
        (u * 1 + w * 3).sum().backward()
        return seen, w.grad, v.grad
    run_both(prog)


def test_will_engine_execute_node_in_a_plain_backward():
    """Asked during a sequence-order backward (from a custom Function: no hook), the
    dependencies are counted on demand."""
    from graphgrad.autograd import engine
    seen = []
    ask = _identity_calling(
        graphgrad, lambda tag: seen.append([engine.will_engine_execute_node(n) for n in nodes]))
    a = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    u = a.sin()
    v = (a * 2).exp()
    w = ask(u, None) * 3
    nodes = (w.grad_fn, u.grad_fn, v.grad_fn)
    w.sum().backward()
    assert seen == [[True, True, False]]


# ------------------------------------------------------------------ threads
def test_two_threads_independent_backward_one_under_no_grad():
    barrier = threading.Barrier(2)
    results, errors = {}, []

    def with_grad():
        try:
            x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
            y = x
            for i in range(200):
                y = (y * 1.01).sin() + x
                if i % 50 == 0:
                    barrier.wait(timeout=10)
            assert graphgrad.is_grad_enabled() and y.requires_grad
            y.sum().backward()
            results["grad"] = x.grad.clone()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def without_grad():
        try:
            x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
            with graphgrad.no_grad():
                y = x
                for i in range(200):
                    y = (y * 1.01).sin() + x
                    if i % 50 == 0:
                        barrier.wait(timeout=10)
                    assert not graphgrad.is_grad_enabled() and not y.requires_grad
            z = (x * 3).sum()
            z.backward()
            results["no_grad"] = (y.grad_fn, x.grad.clone())
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=with_grad), threading.Thread(target=without_grad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # the same computation single-threaded
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(200):
        y = (y * 1.01).sin() + x
    y.sum().backward()
    np.testing.assert_allclose(results["grad"].numpy(), x.grad.numpy(), rtol=1e-6)
    assert results["no_grad"][0] is None
    assert results["no_grad"][1].tolist() == [3.0, 3.0]


def test_backward_in_threads_with_hooks_interleaved():
    barrier = threading.Barrier(2)
    out, errors = {}, []

    def work(name, scale):
        try:
            x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
            y = x * scale

            def hook(g):
                barrier.wait(timeout=10)  # both threads are inside backward here
                assert graphgrad.is_grad_enabled() is False
                return g
            y.register_hook(hook)
            (y * y).sum().backward()
            out[name] = x.grad.tolist()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=("a", 2.0)),
               threading.Thread(target=work, args=("b", 3.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert out == {"a": [8.0, 16.0], "b": [18.0, 36.0]}
    assert graphgrad.is_grad_enabled()



@pytest.fixture
def fast_thread_switching():
    # switch threads every microsecond so that a race in accumulation shows up at once
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.mark.parametrize("mode", ["plain", "hooked", "create_graph"])
def test_concurrent_backwards_into_one_leaf_lose_no_update(fast_thread_switching, mode):
    # issue 16 s1.12: accumulation into a leaf's .grad is atomic, as PyTorch's per-leaf
    # lock makes it (4 threads x 500 backwards gave 1283-1604 instead of 2000).  "plain"
    # runs the sequence-order loop, "hooked" (a hook registered elsewhere) the counting
    # one; the first accumulation (into a None .grad) races too.
    if mode == "hooked":
        graphgrad.zeros(1, requires_grad=True).register_hook(lambda g: g)
    n_threads, n_iter = 4, 500 if mode != "create_graph" else 150
    for _ in range(3):
        x = graphgrad.zeros(10, requires_grad=True)
        errors = []

        def work():
            try:
                for _ in range(n_iter):
                    (x * 1).sum().backward(create_graph=mode == "create_graph")
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            threads = [threading.Thread(target=work) for _ in range(n_threads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert not errors, errors
        assert x.grad.tolist() == [float(n_threads * n_iter)] * 10


def _random_grad_program(seed):
    """Random graph with hooks and retain_grad; one of grad/backward(inputs=) on it."""
    def prog(lib):
        rng = random.Random(seed)
        calls, ts = [], []
        for i in range(rng.randint(1, 4)):
            t = lib.tensor([0.3 + i, 0.7, -0.2], requires_grad=True)
            if rng.random() < 0.5:
                t.register_hook(lambda g, i=i: (calls.append(f"leaf{i}"), g * 2)[1])
            ts.append(t)
        for k in range(rng.randint(1, 10)):
            a, b = rng.choice(ts), rng.choice(ts)
            op = rng.choice(["mul", "add", "sin", "exp", "sub", "view", "slice", "inplace"])
            if op == "inplace":
                y = a * 1
                y[1:].mul_(b[:2])
            else:
                y = {"mul": lambda: a * b, "add": lambda: a + b, "sin": lambda: a.sin(),
                     "exp": lambda: (a * 0.1).exp(), "sub": lambda: a - b,
                     "view": lambda: a.view(3, 1).t().reshape(3),
                     "slice": lambda: a[::1]}[op]()
            if rng.random() < 0.4:
                y.register_hook(lambda g, k=k: (calls.append(f"t{k}"), g + 1)[1])
            if rng.random() < 0.2:
                y.retain_grad()
            ts.append(y)
        outs = rng.sample(ts, rng.randint(1, min(3, len(ts))))
        loss = sum((o * o).sum() for o in outs)
        mode = rng.choice(["grad", "backward", "backward_inputs", "grad_create"])
        ins = rng.sample(ts, rng.randint(1, min(3, len(ts))))
        if mode == "grad":
            r = lib.autograd.grad(loss, ins, allow_unused=True)
        elif mode == "grad_create":
            r = [g if g is None else g.detach()
                 for g in lib.autograd.grad(loss, ins, allow_unused=True, create_graph=True)]
        elif mode == "backward":
            loss.backward()
            r = [t.grad for t in ts if t.is_leaf or t.retains_grad]
        else:
            loss.backward(inputs=ins)
            r = [t.grad for t in ins] + [t.retains_grad for t in ts]
        return calls, r
    return prog


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_with_hooks_and_inputs(seed):
    run_both(_random_grad_program(seed))


def test_failed_backward_rolls_back_retained_non_leaf_grads():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    z = x * 3
    y = x * 2  # made after z: its node runs first
    y.retain_grad()
    y.sum().backward(retain_graph=True)
    g = y.grad

    def boom(grad):
        assert y.grad.tolist() == [2.0, 2.0]  # y's gradient was retained in this backward
        raise ZeroDivisionError
    z.register_hook(boom)
    with pytest.raises(ZeroDivisionError):
        (y.sum() + z.sum()).backward()
    assert y.grad is g and y.grad.tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ reentrant backward
def _deep_reentrant(lib, depth, fail_at=None, log=None):
    """A custom Function whose backward runs a backward of its own, nested ``depth`` deep
    (PyTorch's test_deep_reentrant)."""
    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = x.detach().requires_grad_()
                ctx.x = ctx.x - 1
                ctx.unused = ctx.x * ctx.x  # saves tensors: meets saved-tensor hooks
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if log is not None:
                log.add(lib.is_grad_enabled())
            if ctx.x < 0:
                return g
            if fail_at is not None and ctx.x.item() == fail_at:
                raise ValueError("failing deep inside")
            with lib.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return g
    v = lib.tensor(float(depth), requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    return v.grad


def test_deep_reentrant_backward_does_not_exhaust_the_stack():
    # issue 16 s2: 2000 nested backwards hit RecursionError (PyTorch moves a deep
    # reentrant backward to a fresh thread; so does graphgrad)
    run_both(lambda lib: _deep_reentrant(lib, 2000))


def test_deep_reentrant_backward_keeps_thread_state_and_raises_on_caller():
    seen = set()
    with pytest.raises(ValueError, match="failing deep inside"):
        _deep_reentrant(graphgrad, 300, fail_at=5.0, log=seen)
    assert seen == {False}  # backward runs with grad mode off at every depth
    hooks = []
    with graphgrad.autograd.graph.saved_tensors_hooks(lambda t: hooks.append(1) or t,
                                                      lambda t: t):
        assert _deep_reentrant(graphgrad, 300).item() == 1.0
    assert len(hooks) >= 300  # the nested forwards (on other threads) saw the hooks
    with graphgrad.autograd.set_detect_anomaly(True):
        assert _deep_reentrant(graphgrad, 100).item() == 1.0


# ------------------------------------------------------------------ PyTorch's errors (issue 16 s3)
def test_assigning_a_tensor_as_its_own_grad_raises():
    def prog(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = x
    run_both(prog)


@pytest.mark.parametrize("new", ["float64", "int64", "bool"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_data_setter_dtype_rules(new, requires_grad):
    # another floating dtype is accepted (the tensor takes it); integer data on a tensor
    # that requires grad is refused, as PyTorch's set_data does
    def prog(lib):
        a = lib.ones(2, requires_grad=requires_grad)
        a.data = lib.ones(2, dtype=getattr(lib, new))
        return a.dtype, a.requires_grad, a.detach()
    run_both(prog)


@pytest.mark.parametrize("conv", ["float", "int", "complex", "bool"])
def test_python_scalar_conversion_of_a_multi_element_tensor(conv):
    # float/int/complex: ValueError (bool: RuntimeError), as in PyTorch
    fn = {"float": float, "int": int, "complex": complex, "bool": bool}[conv]
    run_both(lambda lib: fn(lib.ones(2)))
    run_both(lambda lib: fn(lib.ones(1, 1)))


@pytest.mark.parametrize("n_args", [0, 1, 2])
def test_calling_a_grad_fn_with_the_wrong_number_of_gradients(n_args):
    def prog(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        y = a * b
        return y.grad_fn(*[lib.ones(2)] * n_args)
    run_both(prog)


def test_backward_with_create_graph_warns_once(monkeypatch):
    import graphgrad.autograd as ga
    monkeypatch.setattr(ga, "_create_graph_warned", False)
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        x = graphgrad.ones(2, requires_grad=True)
        (x * x).sum().backward(create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * x).sum().backward(create_graph=True)  # once per process, like TORCH_WARN_ONCE
        graphgrad.autograd.grad((x * x).sum(), x, create_graph=True)  # grad() never warns
    import torch
    prev = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with pytest.warns(UserWarning) as rec:
            y = torch.ones(2, requires_grad=True)
            (y * y).sum().backward(create_graph=True)
    finally:
        torch.set_warn_always(prev)
    ours = "Using backward() with create_graph=True will create a reference cycle"
    assert any(str(w.message).startswith(ours) for w in rec)


def test_backward_twice_through_index_nodes_raises():
    # PyTorch's test_backward_twice_with_saved_values: index nodes keep their index
    # tensors as saved variables, freed with the graph
    def prog(lib):
        b = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        c = lib.zeros(3, dtype=lib.float64)
        c[[1, 2]] = b[[1, 1]]
        c.backward(lib.ones(3, dtype=lib.float64))
        c.backward(lib.ones(3, dtype=lib.float64))
    run_both(prog)

    def retained(lib):
        b = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = b[[1, 1]]
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        first = b.grad.clone()
        try:
            y.sum().backward()
        except RuntimeError:
            return first, "raised"
        return first, "no error"
    run_both(retained)


def test_grad_with_empty_inputs_message_and_attribute_deletion():
    def empty(lib):
        x = lib.tensor([1.0], requires_grad=True)
        lib.autograd.grad(2 * x, [], grad_outputs=lib.tensor([1.0]))
    ours, theirs = run_both(empty)
    assert "cannot be empty" in str(ours.exc)

    def del_data(lib):
        x = lib.ones(2, requires_grad=True)
        del x.data

    def del_requires_grad(lib):
        x = lib.ones(2, requires_grad=True)
        del x.requires_grad

    def del_grad(lib):
        x = lib.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        del x.grad
        return x.grad
    for prog in (del_data, del_requires_grad, del_grad):
        run_both(prog)


def test_set_warn_always_repeats_the_create_graph_warning():
    """backward(create_graph=True) warns once per process (TORCH_WARN_ONCE), every time
    while set_warn_always(True) is on, as PyTorch's."""
    import warnings
    import torch

    def warnings_of(lib):
        x = lib.ones(2, requires_grad=True)
        prev = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                for _ in range(3):
                    (x * x).sum().backward(create_graph=True)
        finally:
            lib.set_warn_always(prev)
        x.grad = None
        return sum("create_graph=True" in str(m.message) for m in w)

    assert warnings_of(graphgrad) == warnings_of(torch) == 3
