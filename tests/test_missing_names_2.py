"""More names autograd code uses (issue 16 §4, second batch): each compared with PyTorch
through ``run_both``."""
from __future__ import annotations

import pytest

import graphgrad
from tests.conftest import Raised, run_both as _run_both

torch = pytest.importorskip("torch")


def run_both(program, raises=False):
    ours, theirs = _run_both(program)
    assert isinstance(ours, Raised) == raises, ours
    return ours, theirs


# ------------------------------------------------------------------ is_inference, formats
def test_is_inference_function_vs_torch():
    def program(T):
        a = T.ones(2)
        with T.inference_mode():
            b = T.ones(2)
            c = a * 2
        return T.is_inference(a), T.is_inference(b), T.is_inference(c), T.is_inference(b + 1)
    run_both(program)


def test_is_inference_rejects_non_tensors_vs_torch():
    run_both(lambda T: T.is_inference([1.0]), raises=True)


@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format"])
def test_memory_format_arguments_vs_torch(fmt):
    def program(T):
        f = getattr(T, fmt)
        x = T.arange(6.0, dtype=T.float64).reshape(2, 3).t().requires_grad_()
        c = x.clone(memory_format=f)
        d = x.contiguous(memory_format=T.contiguous_format)
        e = x.to(memory_format=f)
        z = T.zeros_like(x, memory_format=T.preserve_format)
        (c * 2 + d + e).sum().backward()
        return (c, c.is_contiguous(), d.is_contiguous(), e.is_contiguous(), z, x.grad,
                str(f), c.stride())
    run_both(program)


def test_channels_last_is_a_name_but_not_a_layout():
    assert str(graphgrad.channels_last) == "torch.channels_last"
    with pytest.raises(NotImplementedError, match="channels_last"):
        graphgrad.ones(1, 2, 3, 4).clone(memory_format=graphgrad.channels_last)


# ------------------------------------------------------------------ autograd extras
def test_increment_version_vs_torch():
    def program(T):
        a = T.rand(5, requires_grad=True)
        v0 = a._version
        T.autograd.graph.increment_version(a)
        b = T.zeros(5, dtype=T.int32)
        T.autograd.graph.increment_version(b)
        with T.inference_mode():
            c = T.rand(5)
            T.autograd.graph.increment_version(c)   # no counter: skipped
        T.autograd.graph.increment_version(c)
        x = T.ones(3, requires_grad=True)
        y = x * 1
        z = y * y                       # saves y
        T.autograd.graph.increment_version(y)
        z.sum().backward()              # raises: y was "modified"
    ours, theirs = run_both(program, raises=True)
    assert "modified by an inplace operation" in str(ours.exc)


def test_increment_version_counts_vs_torch():
    def program(T):
        a = T.rand(5, requires_grad=True)
        v0 = a._version
        T.autograd.graph.increment_version(a)
        T.autograd.graph.increment_version([a, a])
        return a._version - v0
    run_both(program)


def test_set_multithreading_enabled_vs_torch():
    def program(T):
        seen = []
        with T.autograd.set_multithreading_enabled(False):
            seen.append(T.autograd.is_multithreading_enabled())
            T.autograd.set_multithreading_enabled(True)
            seen.append(T.autograd.is_multithreading_enabled())
        seen.append(T.autograd.is_multithreading_enabled())
        T.autograd.set_multithreading_enabled(False)
        seen.append(T.autograd.is_multithreading_enabled())
        x = T.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        T.autograd.set_multithreading_enabled(True)
        seen.append(T.autograd.is_multithreading_enabled())
        return seen, x.grad
    run_both(program)


def test_saved_tensor_cannot_be_created_vs_torch():
    ours, _ = run_both(lambda T: T.autograd.SavedTensor(), raises=True)
    assert "from Python is forbidden" in str(ours.exc)


def test_backends_mps_unavailable_vs_torch():
    run_both(lambda T: T.backends.mps.is_available())


def _callback_program(depths):
    def program(T):
        from_ = {"outer": 0, "inner": 0, "order": []}

        class Inner(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                if 1 in depths:
                    T.autograd.Variable._execution_engine.queue_callback(
                        lambda: from_.__setitem__("inner", from_["inner"] + 1))
                return g

        class Outer(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                def outer_cb():
                    from_["outer"] += 1
                    from_["order"].append("outer")

                    def chained():
                        from_["order"].append("chained")
                    T.autograd.Variable._execution_engine.queue_callback(chained)
                if 0 in depths:
                    T.autograd.Variable._execution_engine.queue_callback(outer_cb)
                t = g.detach().requires_grad_()
                with T.enable_grad():
                    Inner.apply(t).sum().backward()
                from_["order"].append(("inner done", from_["inner"]))
                return g * 2

        x = T.rand(3, requires_grad=True)
        Outer.apply(x).sum().backward()
        return from_, x.grad
    return program


@pytest.mark.parametrize("depths", [(0,), (1,), (0, 1)])
def test_queue_callback_runs_at_end_of_its_backward_vs_torch(depths):
    run_both(_callback_program(depths))


def test_queue_callback_outside_backward_raises_vs_torch():
    run_both(lambda T: T.autograd.Variable._execution_engine.queue_callback(lambda: None),
             raises=True)


def test_queue_callback_error_propagates_vs_torch():
    def program(T):
        def boom():
            raise ValueError("blah")
        x = T.ones(2, requires_grad=True)
        x.register_hook(lambda g: T.autograd.Variable._execution_engine.queue_callback(boom))
        (x * 2).sum().backward()
    run_both(program, raises=True)
