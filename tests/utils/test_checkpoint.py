"""utils.checkpoint against PyTorch: checkpointed runs give the plain run's gradients, the
function runs as often as under PyTorch, and bad input raises PyTorch's exception types."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.conftest import run_both

MODES = [False, True]


def data(lib, shape, seed, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(a, dtype=lib.float64, requires_grad=requires_grad)


def init_(lib, module, seed):
    """Same parameters on both libraries (their default inits draw different numbers)."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=lib.float64))
    return module


def ckpt(lib):
    return lib.utils.checkpoint.checkpoint


@pytest.mark.parametrize("reentrant", MODES)
def test_gradients_and_call_counts(reentrant):
    def program(lib):
        calls = []
        x = data(lib, (3, 4), 0)
        w = data(lib, (4, 5), 1)

        def f(a, b, scale):
            calls.append(scale)
            return ((a @ b).sin() * scale).tanh()
        out = ckpt(lib)(f, x, w, 2.0, use_reentrant=reentrant)
        out.pow(2).sum().backward()
        got = (out, x.grad, w.grad, len(calls))
        x.grad = w.grad = None
        f(x, w, 2.0).pow(2).sum().backward()
        return got, (x.grad, w.grad)
    (g_ours, plain_ours), _ = run_both(program)
    np.testing.assert_array_equal(g_ours[1].numpy(), plain_ours[0].numpy())
    np.testing.assert_array_equal(g_ours[2].numpy(), plain_ours[1].numpy())


@pytest.mark.parametrize("reentrant", MODES)
def test_module_parameters_with_input_not_requiring_grad(reentrant):
    def program(lib):
        lib.manual_seed(0)
        lin = init_(lib, lib.nn.Linear(4, 3).double(), 1)
        x = data(lib, (2, 4), 0, requires_grad=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = ckpt(lib)(lambda t: lin(t).relu(), x, use_reentrant=reentrant)
        # reentrant: no input requires grad, so the output does not (PyTorch's restriction)
        out.sum().backward()
        return lin.weight.grad
    run_both(program)


def test_reentrant_warns_when_no_input_requires_grad():
    def program(lib):
        x = data(lib, (2,), 0, requires_grad=False)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ckpt(lib)(lambda t: t * 2, x, use_reentrant=True)
        return [str(m.message) for m in w]
    run_both(program)


def test_autograd_grad_inputs_and_double_backward():
    def program(lib):
        calls = []
        x = data(lib, (3, 4), 0)
        w = data(lib, (4, 2), 1)

        def f(a):
            calls.append(1)
            return (a @ w).sin().exp()
        y = ckpt(lib)(f, x, use_reentrant=False).sum()
        gx, = lib.autograd.grad(y, x, create_graph=True)
        gx.pow(2).sum().backward(inputs=[w])
        y2 = ckpt(lib)(f, x, use_reentrant=False).sum()
        y2.backward(inputs=[x])
        return gx, w.grad, x.grad, len(calls)
    run_both(program)


def test_retain_graph_backward_twice_recomputes():
    def program(lib):
        calls = []
        x = data(lib, (5,), 0)

        def f(a):
            calls.append(1)
            return a.sin() * a.cos()
        y = ckpt(lib)(f, x, use_reentrant=False).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad, len(calls)
    run_both(program)


def test_non_tensor_and_nested_outputs():
    def program(lib):
        x = data(lib, (3,), 0)

        def f(a):
            return {"a": a.exp(), "b": [a.sin(), 7]}, "tag"
        out, tag = ckpt(lib)(f, x, use_reentrant=False)
        (out["a"] * out["b"][0]).sum().backward()
        return x.grad, out["b"][1], tag
    run_both(program)


def test_keyword_arguments_non_reentrant():
    def program(lib):
        x = data(lib, (3,), 0)
        y = ckpt(lib)(lambda a, p=1: a.pow(p), x, p=3, use_reentrant=False)
        y.sum().backward()
        return x.grad
    run_both(program)


def test_nested_checkpoints():
    def program(lib):
        calls = []
        x = data(lib, (4,), 0)

        def inner(a):
            calls.append("inner")
            return a.sin().exp()

        def outer(a):
            calls.append("outer")
            return ckpt(lib)(inner, a * 2, use_reentrant=False).cos()
        ckpt(lib)(outer, x, use_reentrant=False).sum().backward()
        got = x.grad
        x.grad = None
        outer(x).sum().backward()
        return got, x.grad
    run_both(program)


@pytest.mark.parametrize("reentrant", MODES)
def test_dropout_recomputes_identically(reentrant):
    def program(lib):
        lib.manual_seed(3)
        x = data(lib, (64,), 0)
        y = ckpt(lib)(lambda a: lib.nn.functional.dropout(a.exp(), 0.5), x,
                      use_reentrant=reentrant)
        y.sum().backward()
        g = x.grad.clone()
        x.grad = None
        lib.manual_seed(3)
        lib.nn.functional.dropout(x.exp(), 0.5).sum().backward()
        return bool((g == x.grad).all()), bool((g == 0).any())
    ours, _ = run_both(program)
    assert ours == (True, True)


@pytest.mark.parametrize("reentrant", MODES)
def test_checkpoint_sequential(reentrant):
    def program(lib):
        lib.manual_seed(0)
        model = init_(lib, lib.nn.Sequential(*[lib.nn.Linear(4, 4) for _ in range(5)]).double(), 1)
        x = data(lib, (2, 4), 0)
        out = lib.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=reentrant)
        out.sum().backward()
        got = [p.grad for p in model.parameters()] + [x.grad]
        model.zero_grad()
        x.grad = None
        model(x).sum().backward()
        return out, got, [p.grad for p in model.parameters()] + [x.grad]
    (_, g, plain), _ = run_both(program)
    for a, b in zip(g, plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


def test_warning_without_use_reentrant():
    def program(lib):
        x = data(lib, (2,), 0)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ckpt(lib)(lambda t: t * 2, x)
            lib.utils.checkpoint.checkpoint_sequential([lambda t: t + 1] * 2, 2, x)
        return [m.category.__name__ for m in w], ["use_reentrant" in str(m.message) for m in w]
    run_both(program)


@pytest.mark.parametrize("call", [
    lambda lib, f, x: ckpt(lib)(f, x, p=1, use_reentrant=True),
    lambda lib, f, x: ckpt(lib)(f, x, use_reentrant=True, debug=True),
    lambda lib, f, x: ckpt(lib)(f, x, use_reentrant=True,
                                context_fn=lambda: (None, None)),
    lambda lib, f, x: lib.utils.checkpoint.checkpoint_sequential([f], 1, x, use_reentrant=False,
                                                                 foo=1),
], ids=["reentrant-kwargs", "reentrant-debug", "reentrant-context_fn", "sequential-kwargs"])
def test_bad_arguments(call):
    run_both(lambda lib: call(lib, lambda t, p=1: t * p, data(lib, (2,), 0)))


def test_reentrant_output_not_requiring_grad_raises_in_backward():
    def program(lib):
        x = data(lib, (2,), 0)
        y, z = ckpt(lib)(lambda t: (t.detach() * 2, t * 3), x, use_reentrant=True)
        return y.requires_grad, z.requires_grad, (y.sum() + z.sum()).backward()
    run_both(program)


def test_nondeterministic_recomputation_raises_checkpoint_error():
    def program(lib):
        state = [0]
        x = data(lib, (3,), 0)

        def f(a):
            state[0] += 1
            return a.exp() if state[0] == 1 else a.exp().sin().sin()
        with lib.utils.checkpoint.set_checkpoint_early_stop(False):
            y = ckpt(lib)(f, x, use_reentrant=False)
        y.sum().backward()
    ours, theirs = run_both(program)
    assert type(ours.exc).__name__ == "CheckpointError"


def test_determinism_check_none_and_shape_mismatch():
    def program(lib):
        state = [0]
        x = data(lib, (4,), 0)

        def f(a):
            state[0] += 1
            return (a if state[0] == 1 else a[:2]).exp()
        y = ckpt(lib)(f, x, use_reentrant=False)
        y.sum().backward()
    ours, _ = run_both(program)
    assert type(ours.exc).__name__ == "CheckpointError"


def test_bad_determinism_check_value():
    run_both(lambda lib: ckpt(lib)(lambda t: t * 2, data(lib, (2,), 0), use_reentrant=False,
                                   determinism_check="strict"))


def test_reachable_after_plain_import():
    import graphgrad
    assert graphgrad.utils.checkpoint.checkpoint is not None


def test_checkpointed_graph_keeps_fewer_activations():
    """The non-reentrant graph holds only the segment inputs: intermediate tensors that ops
    saved as inputs are not kept alive by the saved-tensor machinery."""
    import tracemalloc

    import graphgrad as gg

    gg.manual_seed(0)
    layers = [gg.nn.Linear(128, 128).double() for _ in range(6)]
    x = gg.randn(64, 128, dtype=gg.float64)

    def held(ck):
        tracemalloc.start()
        h = x
        for lay in layers:
            def f(t, lay=lay):
                return gg.tanh(lay(t)).sin().exp().cos()
            h = ckpt(gg)(f, h, use_reentrant=False) if ck else f(h)
        cur = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        h.sum().backward()
        return cur
    plain, checkpointed = held(False), held(True)
    assert checkpointed < 0.5 * plain, (checkpointed, plain)


@pytest.mark.parametrize("how", ["grad", "inputs"])
def test_reentrant_rejects_grad_and_inputs(how):
    def program(lib):
        x = data(lib, (3,), 0)
        y = ckpt(lib)(lambda t: t.sin(), x, use_reentrant=True).sum()
        if how == "grad":
            return lib.autograd.grad(y, x)
        return y.backward(inputs=[x])
    ours, _ = run_both(program)
    assert "use_reentrant=False" in str(ours.exc)


@pytest.mark.parametrize("inner_first", [True, False])
def test_nested_call_order_and_hidden_state(inner_first):
    """Checkpoints inside checkpoints (PyTorch's TestNestedCheckpoint shape): the functions
    run as often and in the order PyTorch runs them, and a hidden state closed over by the
    function gets its gradient."""
    def program(lib):
        calls = []
        x = data(lib, (3,), 0)
        hidden = data(lib, (3,), 1)

        def g(a):
            calls.append("g")
            return (a * hidden).sin()

        def f(a):
            calls.append("f")
            if inner_first:
                return ckpt(lib)(g, a.exp(), use_reentrant=False).cos()
            return ckpt(lib)(g, a, use_reentrant=False).exp() * a
        y = ckpt(lib)(f, x, use_reentrant=False)
        gx, gh = lib.autograd.grad(y.sum(), (x, hidden))
        return gx, gh, calls
    run_both(program)


def test_saved_tensors_unpacked_twice_in_one_backward_raises():
    def program(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                a2, = ctx.saved_tensors
                return 2 * g * a

        x = data(lib, (3,), 0)
        y = ckpt(lib)(lambda t: Sq.apply(t.exp()), x, use_reentrant=False)
        y.sum().backward()
        return x.grad
    ours, _ = run_both(program)
    assert type(ours.exc).__name__ == "CheckpointError"
