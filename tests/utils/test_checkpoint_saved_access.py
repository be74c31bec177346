"""Non-reentrant checkpoint: what a saved tensor unpacks to and when it is recomputed, and
nested checkpoints without early stop (PyTorch's test_autograd cases
test_checkpointing_without_reentrant_saved_object_identity,
test_access_saved_tensor_twice_without_recomputation_works and
TestNestedCheckpoint.test_nested_checkpoint_early_stop_False, rewritten as differential
tests)."""
from __future__ import annotations

import collections
import importlib
import weakref

import pytest

from tests.conftest import run_both


def _ck(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


# ------------------------------------------------------- saved object identity


def _identity_program(lib, how):
    seen = {}

    class SaveSecond(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            (seen["y"],) = ctx.saved_tensors
            return g, None

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0])  # does not require grad: unpacked as the very same object
    if how == "plain":
        out = SaveSecond.apply(a, b)
    elif how == "checkpoint":
        out = _ck(lib).checkpoint(SaveSecond.apply, a, b, use_reentrant=False)
    else:  # nested
        ck = _ck(lib).checkpoint
        out = ck(lambda u, v: ck(SaveSecond.apply, u, v, use_reentrant=False), a, b,
                 use_reentrant=False)
    out.sum().backward()
    return seen["y"] is b, seen["y"], a.grad


@pytest.mark.parametrize("how", ["plain", "checkpoint", "nested"])
def test_saved_input_without_grad_unpacks_as_the_same_object(how):
    ours, _ = run_both(lambda lib: _identity_program(lib, how))
    assert ours[0] is True


def test_saved_input_requiring_grad_still_carries_its_history():
    def prog(lib):
        got = {}

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (got["x"],) = ctx.saved_tensors
                return g * got["x"]

        a = lib.tensor([1.0, 3.0], requires_grad=True)
        h = a * 1
        _ck(lib).checkpoint(Keep.apply, h, use_reentrant=False).sum().backward()
        x = got["x"]
        return x, x.requires_grad, type(x.grad_fn).__name__, a.grad
    run_both(prog)


# ------------------------------------------- saved tensors read outside a backward


def _access_program(lib):
    count = [0]

    def fn(a):
        count[0] += 1
        b = a * a
        c = a * b  # noqa: F841  (saved tensors the result does not need)
        return lib.exp(a)

    a = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    d = _ck(lib).checkpoint(fn, a, use_reentrant=False)
    counts = [count[0]]
    first = d.grad_fn._saved_result  # recomputes...
    counts.append(count[0])
    second = d.grad_fn._saved_result  # ... and again: nothing is kept between accesses
    counts.append(count[0])
    d.sum().backward()  # the backward recomputes once more, then frees the graph
    counts.append(count[0])
    try:
        d.grad_fn._saved_result
        after = "no error"
    except RuntimeError as e:
        after = ("RuntimeError", "already been freed" in str(e))
    return counts, first, second, a.grad, after


def test_saved_tensor_read_twice_outside_backward_recomputes_each_time():
    ours, _ = run_both(_access_program)
    assert ours[0] == [1, 2, 3, 4]
    assert ours[-1] == ("RuntimeError", True)


def test_saved_tensor_read_outside_then_backward_with_retain_graph():
    def prog(lib):
        count = [0]

        def fn(a):
            count[0] += 1
            return (a.sin() * a).exp()

        a = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
        d = _ck(lib).checkpoint(fn, a, use_reentrant=False)
        d.grad_fn._saved_result
        d.sum().backward(retain_graph=True)
        g1 = a.grad.clone()
        d.grad_fn._saved_result
        d.sum().backward()
        return count[0], g1, a.grad
    run_both(prog)


def test_unpacking_twice_inside_one_backward_still_raises():
    def prog(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors
                ctx.saved_tensors
                return g

        a = lib.tensor([1.0], requires_grad=True)
        _ck(lib).checkpoint(lambda t: Twice.apply(t * 2), a,
                            use_reentrant=False).sum().backward()
    ours, _ = run_both(prog)
    assert "already unpacked once" in str(ours.exc)


# ------------------------------------------------ nested checkpoints, no early stop


def _grad(lib, fn):
    def wrapper(x):
        with lib.enable_grad():
            out = fn(x)
            (g,) = lib.autograd.grad(out, inputs=(x,), create_graph=True)
        return g
    return wrapper


def _c(lib, fn):
    def wrapped(*args, **kwargs):
        return _ck(lib).checkpoint(fn, *args, use_reentrant=False, **kwargs)
    return wrapped


def _variants(lib, fn):
    """(reference, checkpointed variants) pairs: grads of grads of fn with checkpoints at
    every level, as PyTorch's TestNestedCheckpoint builds them."""
    g = lambda f: _grad(lib, f)  # noqa: E731
    c = lambda f: _c(lib, f)  # noqa: E731
    return [
        (fn, [c(fn), c(c(fn))]),
        (g(fn), [g(c(fn)), g(c(c(fn)))]),
        (g(g(fn)), [g(c(g(fn))), c(g(g(c(fn)))), g(c(g(c(fn))))]),
        (g(g(g(fn))), [g(c(g(g(c(fn))))), g(c(g(c(g(c(fn))))))]),
    ]


def _f(lib):
    return lambda x: x.sin().exp().sin()


def _g(lib):
    def g(x):  # backwards inside the checkpointed function itself
        a = x.sin().exp().sin()
        b = x.sin().exp().sin()
        lib.autograd.grad(a, x)
        lib.autograd.grad(b, x)
        return x.sin()
    return g


def _alive_nodes(lib, fn):
    """Names of the graph nodes of fn(a) still alive once the result is dropped."""
    class Handle:
        def __init__(self, name):
            self.name = name

    def scope():
        a = lib.tensor(0.4, dtype=lib.float64, requires_grad=True)
        out = fn(a)
        refs, seen = [], set()
        todo = collections.deque([out.grad_fn])
        while todo:
            node = todo.popleft()
            if node is None or node in seen:
                continue
            seen.add(node)
            h = Handle(node.name())
            refs.append(weakref.ref(h))
            node.metadata["handle"] = h
            todo.extend(n for n, _ in node.next_functions)
        return refs

    return [r().name for r in scope() if r() is not None]


@pytest.mark.parametrize("early_stop", [True, False])
@pytest.mark.parametrize("which", ["f", "g"])
def test_nested_checkpoints_of_grads(early_stop, which):
    def prog(lib):
        results = []
        with _ck(lib).set_checkpoint_early_stop(early_stop):
            x = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
            fn = (_f if which == "f" else _g)(lib)
            for reference, variants in _variants(lib, fn):
                expected = reference(x)
                for variant in variants:
                    got = variant(x)
                    results.append((expected, got, _alive_nodes(lib, variant)))
        return results
    ours, _ = run_both(prog)
    for expected, got, alive in ours:
        assert float(expected) == pytest.approx(float(got), rel=1e-12)
        assert alive == []


def test_grad_inside_checkpoint_without_early_stop_counts_calls_like_torch():
    def prog(lib):
        calls = [0]

        def fn(x):
            calls[0] += 1
            y = x.sin().exp()
            (gy,) = lib.autograd.grad(y, x, create_graph=True)
            return gy * y

        ck = _ck(lib)
        with ck.set_checkpoint_early_stop(False):
            x = lib.tensor([0.2, 0.9], dtype=lib.float64, requires_grad=True)
            out = ck.checkpoint(fn, x, use_reentrant=False)
            after_forward = calls[0]
            out.sum().backward()
        return after_forward, calls[0], out, x.grad
    run_both(prog)


def test_more_tensors_in_recomputation_after_the_forward_still_raises():
    def prog(lib):
        ck = _ck(lib)
        state = {"extra": False}

        def fn(x):
            y = x.sin()
            if state["extra"]:
                y = y.exp()
            return y.sin()

        with ck.set_checkpoint_early_stop(False):
            x = lib.tensor([0.2], requires_grad=True)
            out = ck.checkpoint(fn, x, use_reentrant=False)
            state["extra"] = True
            out.sum().backward()
    ours, _ = run_both(prog)
    assert "recomputation" in str(ours.exc)


# ----------------------------------------------- what a freed graph still holds


def test_backward_releases_the_checkpoint_inputs(lib):
    """The frame holding a checkpoint's inputs goes with the graph's saved tensors: a
    training loop that keeps ``loss`` until the next forward must not keep every layer's
    input alive (graphgrad kept them through the unpack hook)."""
    import gc
    x = lib.tensor([[1.0, 2.0]], requires_grad=True)
    h = x * 2
    ref = weakref.ref(h)
    out = _ck(lib).checkpoint(lambda t: t.sin().exp(), h, use_reentrant=False)
    del h
    gc.collect()
    assert ref() is not None  # needed by the backward
    out.sum().backward()
    gc.collect()
    assert ref() is None
    assert out.grad_fn is not None
