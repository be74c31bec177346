"""Backward hooks: tensor hooks, retain_grad, post-accumulate hooks, node hooks, multi-grad hooks."""
import pytest

import graphgrad
from tests.conftest import Raised, run_both


def _rec(calls, name, ret=None):
    def hook(*args):
        calls.append(name)
        return ret(*args) if ret is not None else None
    return hook


# ------------------------------------------------------------------ Tensor.register_hook
def test_leaf_hook_replaces_gradient():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(lambda g: g * 10)
        (x * 2).sum().backward()
        first = x.grad.clone()
        h.remove()
        (x * 2).sum().backward()
        return first, x.grad
    run_both(prog)


def test_non_leaf_hook_replaces_gradient_downstream():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g * 0 + 1)
        (y * y).sum().backward()
        return x.grad
    run_both(prog)


def test_hooks_chain_in_registration_order():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.register_hook(_rec(calls, "first", lambda g: g + 1))
        y.register_hook(_rec(calls, "second", lambda g: g * 10))
        y.register_hook(lambda g: calls.append(g))
        y.sum().backward()
        return calls, x.grad
    run_both(prog)


def test_hook_returning_none_keeps_gradient():
    def prog(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: seen.append(g))
        (x * x).sum().backward()
        return seen, x.grad
    run_both(prog)


def test_leaf_hook_runs_for_autograd_grad():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(_rec(calls, "x", lambda g: g * 100))
        return lib.autograd.grad((x * 2).sum(), x), calls, x.grad
    run_both(prog)


def test_non_leaf_hook_runs_for_autograd_grad_of_it():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.register_hook(lambda g: g * 2)
        return lib.autograd.grad((y * 3).sum(), [y, x])
    run_both(prog)


def test_hook_on_tensor_used_twice_sees_summed_gradient():
    def prog(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: seen.append(g))
        (y * y + y.sin()).sum().backward()
        return seen, x.grad
    run_both(prog)


def test_hook_sees_create_graph_gradient_with_history():
    def prog(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        y.register_hook(lambda g: seen.append((g.requires_grad, g)))
        (g,) = lib.autograd.grad((y * x).sum(), x, create_graph=True)
        return seen, g
    run_both(prog)


HOOK_ERRORS = {
    "no_requires_grad": lambda lib, x: lib.ones(2).register_hook(lambda g: None),
    "returns_int": lambda lib, x: _bw(x, lambda g: 5),
    "returns_wrong_size": lambda lib, x: _bw(x, lambda g: lib.ones(3)),
    "returns_wrong_dtype": lambda lib, x: _bw(x, lambda g: g.double()),
    "post_acc_on_non_leaf": lambda lib, x: (x * 2).register_post_accumulate_grad_hook(
        lambda t: None),
    "post_acc_no_grad": lambda lib, x: lib.ones(2).register_post_accumulate_grad_hook(
        lambda t: None),
    "raises": lambda lib, x: _bw(x, lambda g: 1 / 0),
}


def _bw(x, hook):
    y = x * 3
    y.register_hook(hook)
    y.sum().backward()


@pytest.mark.parametrize("name", list(HOOK_ERRORS))
def test_hook_errors(name):
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        HOOK_ERRORS[name](lib, x)
        return x.grad
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)


# ------------------------------------------------------------------ retain_grad
def test_retain_grad_sees_gradient_after_all_hooks():
    # the retains_grad hook always runs last, even after hooks registered later
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        a.register_hook(lambda g: g + 1)
        a.retain_grad()
        a.register_hook(lambda g: g * 3)
        (a * 2).sum().backward()
        return a.grad, x.grad
    run_both(prog)


def test_retain_grad_accumulates_and_is_a_copy():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        a.retain_grad()
        (a * a).sum().backward(retain_graph=True)
        g = a.grad
        (a * 3).sum().backward()
        return a.grad, g, a.grad is g, a.grad.requires_grad
    run_both(prog)


def test_retain_grad_with_create_graph():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x.sin()
        a.retain_grad()
        (a * a).sum().backward(create_graph=True)
        return a.grad, x.grad
    run_both(prog)


# ------------------------------------------------------------------ post-accumulate hooks
def test_post_accumulate_grad_hook():
    def prog(lib):
        calls = []
        z = lib.tensor([1.0, 2.0], requires_grad=True)

        def hook(t):
            calls.append((t is z, t.grad.clone()))
            with lib.no_grad():
                t.grad.mul_(2)  # what an optimizer-in-backward does
        h = z.register_post_accumulate_grad_hook(hook)
        (z * 3).sum().backward()
        (z * 3).sum().backward()
        h.remove()
        (z * 3).sum().backward()
        return calls, z.grad
    run_both(prog)


def test_post_accumulate_grad_hook_not_called_by_autograd_grad():
    def prog(lib):
        calls = []
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        z.register_post_accumulate_grad_hook(lambda t: calls.append("post"))
        return lib.autograd.grad((z * 3).sum(), z), calls
    run_both(prog)


def test_post_accumulate_grad_hook_must_return_none():
    def prog(lib):
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        z.register_post_accumulate_grad_hook(lambda t: lib.zeros(2))
        (z * 3).sum().backward()
    run_both(prog)


# ------------------------------------------------------------------ Node hooks
def test_node_post_hook_replaces_grad_inputs():
    def prog(lib):
        seen = []
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        v = w * 3
        v.grad_fn.register_hook(lambda gi, go: (seen.append((gi, go)), (gi[0] * 0 + 7, None))[1])
        v.sum().backward()
        return seen, w.grad
    run_both(prog)


def test_node_prehook_replaces_grad_outputs():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        v = w * 3
        v.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        v.sum().backward()
        return w.grad
    run_both(prog)


def test_node_hooks_returning_none_tuples():
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        v = w * 3
        v.grad_fn.register_prehook(lambda go: (None,))
        v.sum().backward()
        u = w * 3
        u.grad_fn.register_hook(lambda gi, go: (None, None))
        u.sum().backward()
        return w.grad
    run_both(prog)


def test_node_hooks_on_accumulate_grad():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: calls.append(("pre", go)))
        acc.register_hook(lambda gi, go: calls.append(("post", gi, go)))
        y.sum().backward()
        return calls, x.grad
    run_both(prog)


NODE_HOOK_ERRORS = {
    "prehook_tensor": lambda v: v.grad_fn.register_prehook(lambda go: go[0] * 2),
    "prehook_list": lambda v: v.grad_fn.register_prehook(lambda go: [go[0]]),
    "prehook_wrong_dtype": lambda v: v.grad_fn.register_prehook(lambda go: (go[0].double(),)),
    "prehook_wrong_size": lambda v: v.grad_fn.register_prehook(
        lambda go: (go[0].expand(3, 2),)),
    "prehook_wrong_length": lambda v: v.grad_fn.register_prehook(lambda go: (go[0], go[0])),
    "posthook_tensor": lambda v: v.grad_fn.register_hook(lambda gi, go: gi[0]),
    "posthook_list": lambda v: v.grad_fn.register_hook(lambda gi, go: [gi[0], None]),
    "posthook_wrong_length": lambda v: v.grad_fn.register_hook(lambda gi, go: (gi[0],)),
    "posthook_wrong_dtype": lambda v: v.grad_fn.register_hook(
        lambda gi, go: (gi[0].double(), None)),
    "posthook_raises": lambda v: v.grad_fn.register_hook(lambda gi, go: 1 / 0),
}


@pytest.mark.parametrize("name", list(NODE_HOOK_ERRORS))
def test_node_hook_errors(name):
    def prog(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        v = w * 3
        NODE_HOOK_ERRORS[name](v)
        v.sum().backward()
        return w.grad
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)


# ------------------------------------------------------------------ RemovableHandle
def test_removable_handles_of_every_kind():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        handles = [
            x.register_hook(_rec(calls, "x")),
            y.register_hook(_rec(calls, "y")),
            x.register_post_accumulate_grad_hook(_rec(calls, "post")),
            y.grad_fn.register_prehook(_rec(calls, "pre")),
            y.grad_fn.register_hook(_rec(calls, "node")),
        ]
        y.sum().backward(retain_graph=True)
        first = list(calls)
        calls.clear()
        for h in handles[::2]:
            h.remove()
        y.sum().backward(retain_graph=True)
        second = list(calls)
        calls.clear()
        for h in handles:
            h.remove()
        y.sum().backward()
        return first, second, calls
    run_both(prog)


def test_removable_handle_as_context_manager():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with x.register_hook(_rec(calls, "x")):
            (x * 2).sum().backward()
        (x * 2).sum().backward()
        return calls
    run_both(prog)


def test_hook_removing_itself_during_backward():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        handles = []

        def once(g):
            calls.append("once")
            handles[0].remove()
        handles.append(y.register_hook(once))
        y.register_hook(_rec(calls, "other"))
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return calls
    run_both(prog)


# ------------------------------------------------------------------ execution order
def test_execution_order_of_all_hook_kinds():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        a = x * w
        b = a.sin()
        c = a.exp()
        d = b + c
        x.register_hook(_rec(calls, "x.hook"))
        x.register_post_accumulate_grad_hook(_rec(calls, "x.post_acc"))
        a.register_hook(_rec(calls, "a.hook1"))
        a.retain_grad()
        a.register_hook(_rec(calls, "a.hook2"))
        a.grad_fn.register_prehook(_rec(calls, "a.node.pre"))
        a.grad_fn.register_hook(_rec(calls, "a.node.post"))
        b.grad_fn.register_hook(_rec(calls, "b.node.post"))
        c.grad_fn.register_hook(_rec(calls, "c.node.post"))
        b.register_hook(_rec(calls, "b.hook"))
        c.register_hook(_rec(calls, "c.hook"))
        acc = a.grad_fn.next_functions[0][0]
        acc.register_prehook(_rec(calls, "accx.pre"))
        acc.register_hook(_rec(calls, "accx.post"))
        w.register_hook(_rec(calls, "w.hook"))
        w.register_post_accumulate_grad_hook(_rec(calls, "w.post_acc"))
        d.register_hook(_rec(calls, "d.hook"))
        d.grad_fn.register_prehook(_rec(calls, "d.node.pre"))
        d.sum().backward()
        return calls, a.grad, x.grad, w.grad
    run_both(prog)


def test_prehook_runs_before_node_and_sees_hooked_gradient():
    def prog(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.register_hook(lambda g: g * 10)
        y.grad_fn.register_prehook(lambda go: seen.append(("pre", go)))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi, go)))
        y.sum().backward()
        return seen, x.grad
    run_both(prog)


# ------------------------------------------------------------------ register_multi_grad_hook
def _multi(lib):
    return lib.autograd.graph.register_multi_grad_hook


def _grads_of(calls):
    return lambda grads: calls.append(list(grads))


def test_multi_grad_hook_all():
    def prog(lib):
        calls = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c = lib.tensor([5.0], requires_grad=True)
        h = _multi(lib)((a, b, c), _grads_of(calls))
        (a * b).sum().backward()          # c is not in the graph: its entry is None
        (a * b * c).sum().backward()
        h.remove()
        (a * b).sum().backward()
        return calls
    run_both(prog)


def test_multi_grad_hook_all_waits_for_every_gradient():
    def prog(lib):
        calls = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        a.register_hook(_rec(calls, "a.hook"))
        _multi(lib)((a, b), lambda grads: calls.append("multi"))
        b.register_hook(_rec(calls, "b.hook"))
        b.register_post_accumulate_grad_hook(_rec(calls, "b.post"))
        a.register_post_accumulate_grad_hook(_rec(calls, "a.post"))
        (a * b).sum().backward()
        return calls
    run_both(prog)


def test_multi_grad_hook_any():
    def prog(lib):
        calls = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        h = _multi(lib)((a, b), lambda g: calls.append(g), mode="any")
        (a * b).sum().backward()
        (b * 2).sum().backward()
        h.remove()
        (a * b).sum().backward()
        return calls
    run_both(prog)


def test_multi_grad_hook_non_leaf_tensors():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        u, v = x * 2, x * 3
        _multi(lib)((u, v), _grads_of(calls))
        (u * v).sum().backward(retain_graph=True)
        u.sum().backward(retain_graph=True)
        return calls, x.grad
    run_both(prog)


def test_multi_grad_hook_return_value_is_ignored():
    def prog(lib):
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        h = _multi(lib)((y,), lambda g: g * 100, mode="any")
        (y * 2).sum().backward()
        h.remove()
        _multi(lib)((y, z), lambda g: (g[0] * 100, g[1]))
        (y * z).sum().backward()
        return y.grad, z.grad
    run_both(prog)


def test_multi_grad_hook_with_autograd_grad_of_non_leaves():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        u, v = x * 2, x.exp()
        _multi(lib)((u, v), _grads_of(calls))
        g = lib.autograd.grad((u * v).sum(), x)
        return calls, g
    run_both(prog)


MULTI_ERRORS = {
    "bad_mode": lambda lib, y, z: _multi(lib)((y, z), lambda g: None, mode="bad"),
    "no_requires_grad": lambda lib, y, z: _multi(lib)((y, lib.ones(2)), lambda g: None),
    "leaf_in_autograd_grad": lambda lib, y, z: (_multi(lib)((y, z), lambda g: None),
                                                lib.autograd.grad((y * 2).sum(), y)),
}


@pytest.mark.parametrize("name", list(MULTI_ERRORS))
def test_multi_grad_hook_errors(name):
    def prog(lib):
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        MULTI_ERRORS[name](lib, y, z)
    ours, _ = run_both(prog)
    assert isinstance(ours, Raised)


def test_multi_grad_hook_is_exported():
    from graphgrad.autograd.graph import register_multi_grad_hook
    assert register_multi_grad_hook is graphgrad.autograd.graph.register_multi_grad_hook


# ------------------------------------------------------------------ hooks on undefined gradients
def test_tensor_hooks_are_called_with_none_for_an_undefined_gradient():
    # issue 16 s3: PyTorch calls a tensor's hooks even when its gradient is undefined
    # (an unused output of a multi-output node, a leaf whose gradient a custom backward
    # returns as None), with None
    def prog(lib):
        calls = []
        x = lib.ones(3, requires_grad=True)
        a, b, c = lib.unbind(x * 1)
        b.register_hook(lambda g: calls.append(("unbind", g)))
        p, q = (x * 1).split(2)
        q.register_hook(lambda g: calls.append(("split", g)))
        (a + p.sum()).backward()

        class NoGrad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return None
        y = lib.ones(2, requires_grad=True)
        y.register_hook(lambda g: calls.append(("leaf", g)))
        NoGrad.apply(y).sum().backward()
        return calls, x.grad, y.grad
    run_both(prog)


@pytest.mark.parametrize("leaf", [False, True])
def test_hook_replacing_an_undefined_gradient_raises(leaf):
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        if leaf:
            class NoGrad(lib.autograd.Function):
                @staticmethod
                def forward(ctx, t):
                    return t * 2

                @staticmethod
                def backward(ctx, g):
                    return None
            x.register_hook(lambda g: lib.ones(3))
            NoGrad.apply(x).sum().backward()
        else:
            a, b, c = lib.unbind(x * 1)
            b.register_hook(lambda g: lib.ones(()))
            a.backward()
        return x.grad
    run_both(prog)


def test_leaf_hooks_run_under_autograd_grad():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: calls.append(g.tolist()) or g * 2)
        r = lib.autograd.grad((x * 3).sum(), x)
        return calls, r, x.grad
    run_both(prog)


def test_prehook_ordering_and_backward_inputs_runs_the_inputs_node():
    # PyTorch's test_prehook_ordering: tensor hooks before node pre-hooks; autograd.grad
    # runs a leaf's hooks; backward(inputs=(b,)) runs b's node (its pre-hooks) too
    def prog(lib):
        log = []

        def hook1(g):
            log.append(1)
            return g * 3

        def hook2(gs):
            log.append(2)
            return tuple(g * 2 for g in gs)
        a = lib.tensor(1., requires_grad=True)
        b = a.clone()
        b.grad_fn.register_prehook(hook2)
        b.register_hook(hook1)
        b.grad_fn.register_prehook(hook2)
        acc = b.grad_fn.next_functions[0][0]
        a.register_hook(hook1)
        acc.register_prehook(hook2)
        a.register_hook(hook1)
        b.sum().backward(retain_graph=True)
        out = [list(log), a.grad.clone()]
        log.clear()
        out.append(lib.autograd.grad(b.sum(), inputs=(a,), retain_graph=True))
        out.append(list(log))
        log.clear()
        b.sum().backward(inputs=(b,))
        out += [list(log), b.grad, a.grad]
        return out
    run_both(prog)
