"""Which nodes a backward with ``inputs`` runs, and which of their edges carry a gradient:
``task._compute_needed`` (one pass in sequence order, with Kahn's algorithm as the
fallback for a graph whose order it cannot trust) and the masks it gives the loop."""
import random

import numpy as np
import pytest

import graphgrad
from graphgrad.autograd.engine import task
from graphgrad.autograd.views import _edge
from tests.conftest import run_both


def _random_program(seed, n_leaves=3, n_ops=8):
    """A random graph over ``n_leaves`` leaves (some not requiring grad) and the
    gradients of two of its values w.r.t. a subset of leaves and intermediates."""
    def prog(lib):
        rng = random.Random(seed)
        leaves = [lib.tensor(np.linspace(0.2, 0.9, 3) + i, requires_grad=(i != 1))
                  for i in range(n_leaves)]
        vals = list(leaves)
        for _ in range(n_ops):
            a, b = rng.choice(vals), rng.choice(vals)
            op = rng.randrange(4)
            vals.append(a * b if op == 0 else a.sin() if op == 1 else a + b if op == 2
                        else (a * 2.0).exp())
        req = [v for v in vals if v.requires_grad]
        outs = [v.sum() for v in rng.sample(req, 2)]
        wrt = rng.sample(req, min(3, len(req)))
        return lib.autograd.grad(outs, wrt, allow_unused=True, materialize_grads=True)
    return prog


@pytest.mark.parametrize("seed", range(12))
def test_grad_of_random_graphs_matches_torch(seed):
    run_both(_random_program(seed))


def _graph(seed):
    rng = random.Random(seed)
    x = graphgrad.tensor([0.3, 0.7], requires_grad=True)
    w = graphgrad.tensor([1.5, -0.5], requires_grad=True)
    vals = [x, w]
    for _ in range(10):
        a, b = rng.choice(vals), rng.choice(vals)
        vals.append(a * b if rng.random() < 0.5 else (a + b).sin())
    return vals


@pytest.mark.parametrize("seed", range(20))
def test_one_pass_and_kahn_agree(seed):
    vals = _graph(seed)
    rng = random.Random(seed + 100)
    root = task.GraphRoot([_edge(vals[-1]), _edge(vals[-2])], [None, None])
    deps = task._compute_dependencies(root)
    for k in range(1, 4):
        targets = {_edge(v)[0] for v in rng.sample(vals[:-2], k)}
        one = task._compute_needed(root, deps, targets)
        assert one == task._compute_needed_kahn(root, deps, targets)


def test_a_graph_out_of_sequence_order_takes_kahn(monkeypatch):
    # an edge to a node with a larger sequence_nr (no graph graphgrad builds has one):
    # the one-pass walk cannot trust the order and hands the whole graph to Kahn's
    # algorithm, so the gradients stay right
    x = graphgrad.tensor([0.5, 1.0], dtype=graphgrad.float64, requires_grad=True)
    y = x * x
    z = y.sin()
    out = (z * y).sum()
    y.grad_fn._seq, z.grad_fn._seq = z.grad_fn._seq, y.grad_fn._seq
    calls = []
    kahn = task._compute_needed_kahn
    monkeypatch.setattr(task, "_compute_needed_kahn",
                        lambda *a: calls.append(1) or kahn(*a))
    (g,) = graphgrad.autograd.grad(out, x, retain_graph=True)
    assert calls
    xd = np.array([0.5, 1.0])
    want = 2 * xd * (np.cos(xd ** 2) * xd ** 2 + np.sin(xd ** 2))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


def test_masks_cut_edges_to_nodes_that_need_not_run():
    x = graphgrad.tensor([0.5, 1.0], requires_grad=True)
    w = graphgrad.tensor([2.0, 3.0], requires_grad=True)
    y = (x * w.exp()).sum()
    root = task.GraphRoot([_edge(y)], [None])
    deps = task._compute_dependencies(root)
    mul = y.grad_fn._next_nodes[0]
    needed = task._compute_needed(root, deps, {_edge(x)[0]})
    assert needed[mul] == [True, False]  # (not towards exp: w is not wanted)
    assert needed[y.grad_fn] is None      # (its one edge leads to mul)
    assert w.grad_fn is None and mul._next_nodes[1] not in needed


def test_hooks_on_nodes_that_are_not_captured_run_with_inputs():
    def prog(lib):
        seen = []
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.sin()
        y.register_hook(lambda g: seen.append(("y", g.clone())))
        y.grad_fn.register_prehook(lambda gs: seen.append(("pre", gs[0].clone())))
        z = y * x
        z.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi[0].clone())))
        (g,) = lib.autograd.grad(z.sum(), x)
        return g, seen
    run_both(prog)


def test_backward_with_non_leaf_inputs_runs_their_nodes():
    def prog(lib):
        seen = []
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.grad_fn.register_prehook(lambda gs: seen.append(gs[0].clone()))
        z = (y * y.sin()).sum()
        z.backward(inputs=[y, x])
        return x.grad, y.grad, seen
    run_both(prog)


def test_vectorized_jacobian_with_an_output_that_does_not_reach_the_input():
    def prog(lib):
        c = lib.tensor([1.0, 2.0], requires_grad=True)
        f = lambda x: ((x * 2.0).sin(), c * 3.0, x.cos() * c)
        return lib.autograd.functional.jacobian(f, lib.tensor([0.3, 0.4]), vectorize=True)
    run_both(prog)


# -- the short path with inputs= (no create_graph, anomaly mode or profiler): nodes without
# hooks that are not captured run there with their masks, chains handed on directly
def test_a_captured_node_in_a_chain_is_captured_not_run_past():
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        a = x.exp()
        b = a.sin()     # (a chain: exp <- sin <- mul <- sum)
        c = (b * 2.0).sum()
        return lib.autograd.grad(c, [b, a], retain_graph=True), lib.autograd.grad(c, [x, b])
    run_both(prog)


def test_retain_graph_twice_and_an_output_that_reaches_no_input():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        y = (x.sin() * w).sum()
        z = (w * w).sum()  # (reaches w only)
        first = lib.autograd.grad([y, z], [x], retain_graph=True)
        second = lib.autograd.grad([y, z], [x, w], allow_unused=True)
        return first, second
    run_both(prog)


def test_grad_with_inputs_under_the_profiler_matches():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        w = lib.tensor([2.0, 3.0], requires_grad=True)
        with lib.autograd.profiler.profile():
            y = (x.exp() * w).sin().sum()
            g = lib.autograd.grad(y, [x])
        return g
    run_both(prog)


def test_a_hook_between_plain_nodes_with_inputs():
    def prog(lib):
        seen = []
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        a = x.exp()
        b = a.sin()
        b.grad_fn.register_prehook(lambda gs: seen.append(gs[0].clone()))
        c = b.cos() * 3.0
        (g,) = lib.autograd.grad(c.sum(), x)
        return g, seen
    run_both(prog)
