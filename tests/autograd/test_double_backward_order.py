"""NOTE [VJP order] (graphgrad/ops/registry.py): under create_graph a node's VJP rules run
in PyTorch's order, so the double-backward graph's nodes are numbered as PyTorch numbers
them, its engine runs them in the same order and sums the contributions to one gradient
in the same order (the fuzzer's x / |x| and normalize programs, whose exact double
derivative is 0, left rounding residuals of 1e-4 where PyTorch's is 0)."""
import numpy as np
import pytest

import graphgrad as gg

V, M = (3,), (3, 3)

# op -> (program, input shapes): each input's gradient is made by the op's own rule, so the
# order in which the gradients' nodes were created is the order the rules ran
CASES = {
    "mul": (lambda L, a, b: a * b, [V, V]),
    "div": (lambda L, a, b: a / b, [V, V]),
    "pow": (lambda L, a, b: a ** b, [V, V]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [V, V]),
    "hypot": (lambda L, a, b: L.hypot(a, b), [V, V]),
    "lerp": (lambda L, a, b, c: L.lerp(a, b, c), [V, V, V]),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), [V, V]),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), [V, V]),
    "mm": (lambda L, a, b: a @ b, [M, M]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 3), (2, 3, 3)]),
    "mv": (lambda L, a, b: L.mv(a, b), [M, V]),
    "dot": (lambda L, a, b: L.dot(a, b), [V, V]),
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c, value=2), [V, V, V]),
    "addmm": (lambda L, a, b, c: L.addmm(a, b, c, beta=2), [M, M, M]),
    "linear": (lambda L, a, b, c: L.nn.functional.linear(a, b, c), [(2, 3), M, V]),
    "clamp": (lambda L, a, b, c: L.clamp(a * a, b * b, c * c + 1), [V, V, V]),
    "normalize": (lambda L, a: L.nn.functional.normalize(a, dim=0), [M]),
}


def _creation_order(lib, case):
    f, shapes = CASES[case]
    rng = np.random.default_rng(0)
    xs = [lib.tensor(rng.uniform(0.5, 1.5, s), requires_grad=True) for s in shapes]
    grads = lib.autograd.grad(f(lib, *xs).sum(), xs, create_graph=True)
    seq = [(g.grad_fn._sequence_nr(), i) for i, g in enumerate(grads) if g.grad_fn is not None]
    return [i for _, i in sorted(seq)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_nodes_are_made_in_pytorchs_order(torch, case):
    assert _creation_order(gg, case) == _creation_order(torch, case)


def _double_backward_trace(lib):
    """(node name, sequence number) of each node of normalize's double backward, in the
    order its engine runs them, and the second derivative."""
    x = lib.tensor(np.array([[-0.021045], [0.0470171]], np.float32), requires_grad=True)
    y = lib.nn.functional.normalize(x)
    (g,) = lib.autograd.grad(y, x, lib.full((2, 1), 0.7), create_graph=True)
    ran, seen = [], set()

    def hook_all(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        fn.register_prehook(lambda grads, fn=fn: ran.append((fn.name(), fn._sequence_nr())))
        for nxt, _ in fn.next_functions:
            hook_all(nxt)
    hook_all(g.grad_fn)
    (gg2,) = lib.autograd.grad(g, x, lib.full((2, 1), 1.3))
    return ran, gg2.numpy()


def test_normalize_double_backward_runs_and_sums_as_pytorchs(torch):
    # fuzz seeds 971435 / 1072224: three terms of ~2e3 summed into abs's input gradient
    ran, value = _double_backward_trace(gg)
    ran_t, value_t = _double_backward_trace(torch)
    first, first_t = ran[-1][1], ran_t[-1][1]   # (numbers relative to the first node's)
    assert [(n, s - first) for n, s in ran] == [(n, s - first_t) for n, s in ran_t]
    np.testing.assert_array_equal(value, value_t)


@pytest.mark.parametrize("linear", [False, True])
def test_mm_double_backward_transposes_with_t(torch, linear):
    # PyTorch's mm / addmm formulas take mat.t(): TBackward0 in the double backward's graph
    for lib in (gg, torch):
        a = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(3, 2, requires_grad=True)
        y = lib.nn.functional.linear(a, b.t(), lib.ones(2)) if linear else a @ b
        ga, gb = lib.autograd.grad(y.sum(), (a, b), create_graph=True)
        assert ga.grad_fn.next_functions[1][0].name() == "TBackward0"
        assert gb.grad_fn.next_functions[0][0].name() == "TBackward0"


def test_reduction_double_backward_unsqueezes(torch):
    # logsumexp / norm over a dim without keepdim: the gradient is unsqueezed back
    # (UnsqueezeBackward0), as PyTorch's unsqueeze_multiple
    names = {}
    for lib in (gg, torch):
        x = lib.ones(2, 3, requires_grad=True)
        (g,) = lib.autograd.grad(lib.logsumexp(x, 1).sum(), x, create_graph=True)
        seen, stack = set(), [g.grad_fn]
        while stack:
            fn = stack.pop()
            if fn is not None and fn not in seen:
                seen.add(fn)
                stack += [n for n, _ in fn.next_functions]
        names[lib] = sorted(fn.name() for fn in seen if "Unsqueeze" in fn.name() or
                            "View" in fn.name())
    assert names[gg] == names[torch]


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_double_backward_is_the_backward_data_op(torch, fn):
    # NOTE [softmax backward ops]: SoftmaxBackwardDataBackward0 /
    # LogSoftmaxBackwardDataBackward0 over the forward node, PyTorch's graph and values
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, 0.1, -1.0]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], dtype=lib.float64)
        y = getattr(lib.nn.functional, fn)(x, dim=1)
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        chain, fn_ = [], g.grad_fn
        while fn_ is not None:
            chain.append(fn_.name())
            fn_ = fn_.next_functions[-1][0] if fn_.next_functions else None
        (g2,) = lib.autograd.grad((g * g).sum(), x)
        return chain, g2.numpy()
    (chain, g2), (chain_t, g2_t) = run(gg), run(torch)
    assert chain == chain_t
    np.testing.assert_allclose(g2, g2_t, rtol=1e-12, atol=1e-14)
