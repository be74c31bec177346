"""The engine's prologue and epilogue set and restore the thread's flags through the
thread's attribute dict (NOTE [thread dict] in graphgrad/_core/state.py): grad mode,
backward depth and the running task must read as PyTorch's during and after a backward,
on every path (plain, create_graph, inside no_grad, a failing hook, other threads)."""
from __future__ import annotations

import threading

import pytest

import graphgrad
from graphgrad._core.state import ALL_THREADS, DEFAULTS, tls, _State
from tests.conftest import run_both


def _program(create_graph, outer_no_grad, fail):
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        seen = []

        def hook(g):
            seen.append(lib.is_grad_enabled())
            if fail:
                raise ValueError("hook fails")
            return g

        y = (x * x)[1:]
        y.register_hook(hook)
        f = y.sum()
        try:
            if outer_no_grad:
                with lib.no_grad():
                    f.backward(create_graph=create_graph)
                    seen.append(lib.is_grad_enabled())
            else:
                f.backward(create_graph=create_graph)
        except ValueError:
            seen.append("raised")
        seen.append(lib.is_grad_enabled())
        return seen, x.grad
    return program


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("outer_no_grad", [False, True])
@pytest.mark.parametrize("fail", [False, True])
def test_grad_mode_during_and_after_backward(create_graph, outer_no_grad, fail):
    run_both(_program(create_graph, outer_no_grad, fail))
    assert ALL_THREADS.plain and tls.plain and tls.not_plain_token is None
    assert tls.engine_depth == 0 and tls.engine_task is None


def test_defaults_are_the_class_attributes():
    # execute() reads absent names with these literal defaults
    assert DEFAULTS["engine_depth"] == 0 and DEFAULTS["anomaly"] is False
    assert DEFAULTS["profiler"] is None and DEFAULTS["_grad_enabled"] is True
    assert DEFAULTS["saved_hooks"] == () and DEFAULTS["engine_task"] is None
    assert DEFAULTS["extras_on"] is False and DEFAULTS["not_plain_token"] is None
    assert DEFAULTS == {k: getattr(_State, k) for k in DEFAULTS}


def test_thread_dict_is_the_threads_own():
    out = {}

    def work():
        d = tls.__dict__
        d["engine_depth"] = 7
        out["seen"] = tls.engine_depth
        out["plain"] = tls.plain

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert out == {"seen": 7, "plain": True}
    assert tls.engine_depth == 0


def test_queue_callback_and_task_id_inside_and_outside():
    from graphgrad.autograd.engine.task import current_graph_task_id, queue_callback
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    log = []

    def hook(g):
        log.append(current_graph_task_id() >= 0)
        queue_callback(lambda: log.append("callback"))
        return g

    y = x * 2.0
    y.register_hook(hook)
    y.sum().backward()
    assert log == [True, "callback"]
    assert current_graph_task_id() == -1
    with pytest.raises(RuntimeError):
        queue_callback(lambda: None)


def test_backward_on_a_thread_while_another_is_in_no_grad():
    # the other thread's no_grad makes every thread take the flag-reading paths; a backward
    # running meanwhile must still restore its own thread's grad mode
    entered, release = threading.Event(), threading.Event()
    result = {}

    def other():
        with graphgrad.no_grad():
            entered.set()
            release.wait(10)
            result["other"] = graphgrad.is_grad_enabled()

    t = threading.Thread(target=other)
    t.start()
    entered.wait(10)
    try:
        assert not ALL_THREADS.plain
        x = graphgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x[1:] ** 2).sum().backward()
        assert graphgrad.is_grad_enabled() and tls.plain
        assert x.grad.tolist() == [0.0, 4.0, 6.0]
    finally:
        release.set()
        t.join()
    assert result == {"other": False}
    assert ALL_THREADS.plain
