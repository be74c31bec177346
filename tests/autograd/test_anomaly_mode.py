"""Anomaly detection (seed 004) against PyTorch.

The seed's example (an error raised in a custom backward, reported with the
traceback of the forward call) is reproduced with a Node post-hook that
raises; NaN produced by a backward formula (0/0, sqrt at 0) raises
``Function 'XBackward0' returned nan values in its ith output.``  Each
program runs on both libraries; the warnings emitted are compared too.
"""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch


def _raise(msg):
    def hook(*args):
        raise RuntimeError(msg)
    return hook


def _record(program, lib):
    """(result or exception, [warning messages]) of ``program(lib)``; the anomaly-mode
    warning emitted by detect_anomaly() itself is left out."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = program(lib)
        except Exception as e:  # noqa: BLE001
            res = e
    msgs = [str(m.message) for m in w if not str(m.message).startswith("Anomaly Detection")]
    # torch appends where in its C++ the warning came from
    msgs = [m.split(" (Triggered internally at")[0] for m in msgs]
    return res, msgs


def _user_lines(msg):
    """The frames of a forward traceback that belong to this test file."""
    lines = msg.split("\n")
    keep = []
    for i, line in enumerate(lines):
        if __file__ in line:
            keep.append(line.strip())
            if i + 1 < len(lines):
                keep.append(lines[i + 1].strip())
    return keep


def compare(program):
    """Both libraries: same result/exception (type and message) and the same warnings
    (first lines, and the frames of this file in the tracebacks)."""
    (ra, wa), (rb, wb) = _record(program, graphgrad), _record(program, torch)
    if isinstance(ra, Exception) or isinstance(rb, Exception):
        assert type(ra) is type(rb), (ra, rb)
        assert str(ra) == str(rb), (str(ra), str(rb))
    assert len(wa) == len(wb), f"\nours:  {wa}\ntorch: {wb}"
    for a, b in zip(wa, wb):
        assert a.split("\n")[0] == b.split("\n")[0].replace("torch.", "graphgrad."), (a, b)
        assert _user_lines(a) == _user_lines(b), f"\nours:\n{a}\ntorch:\n{b}"
    return (ra, wa), (rb, wb)


# ====================================================================== switches
def test_off_by_default_and_switches():
    def program(L):
        states = [L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()]
        with L.autograd.detect_anomaly():
            states += [L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()]
            with L.autograd.set_detect_anomaly(False):
                states.append(L.is_anomaly_enabled())
            states.append(L.is_anomaly_enabled())
        with L.autograd.detect_anomaly(check_nan=False):
            states += [L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()]
        states += [L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()]
        L.autograd.set_detect_anomaly(True)           # as a function: stays on
        states.append(L.is_anomaly_enabled())
        L.autograd.set_detect_anomaly(True, check_nan=False)
        states.append(L.is_anomaly_check_nan_enabled())
        L.autograd.set_detect_anomaly(False)
        states += [L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()]
        return states
    run_both(program)


def test_detect_anomaly_warns_on_creation():
    for lib in (graphgrad, torch):
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled. This mode "
                                             "will increase the runtime"):
            lib.autograd.detect_anomaly()


def test_detect_anomaly_as_decorator():
    @graphgrad.autograd.detect_anomaly()
    def f():
        return graphgrad.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f() is True
    assert graphgrad.is_anomaly_enabled() is False


def test_exception_inside_block_restores_state():
    for lib in (graphgrad, torch):
        with pytest.raises(KeyError):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with lib.autograd.detect_anomaly():
                    raise KeyError("x")
        assert lib.is_anomaly_enabled() is False


def test_free_when_off(monkeypatch):
    """Off: no traceback is recorded, nothing is checked."""
    from graphgrad.autograd import anomaly_mode

    def fail(*a, **k):
        raise AssertionError("anomaly machinery called while off")
    monkeypatch.setattr(anomaly_mode, "record_traceback", fail)
    monkeypatch.setattr(anomaly_mode, "check_nan", fail)
    monkeypatch.setattr(anomaly_mode, "report_backward_error", fail)
    from graphgrad.autograd import graph
    from graphgrad.autograd.engine import loop, task
    monkeypatch.setattr(graph, "record_traceback", fail)
    monkeypatch.setattr(loop, "check_nan", fail)
    monkeypatch.setattr(task, "report_backward_error", fail)
    x = graphgrad.zeros(3, requires_grad=True)
    y = (x / x).sum()
    assert y.grad_fn._metadata is None or "traceback_" not in y.grad_fn.metadata
    y.backward()  # NaN gradients, no error
    assert np.isnan(x.grad.numpy()).all()
    assert graphgrad._core.state.tls.extras_on is False


# ====================================================================== tracebacks
def test_nodes_record_forward_traceback():
    def program(L):
        x = L.ones(3, requires_grad=True)
        plain = x * 2
        with L.autograd.detect_anomaly():
            y = x * 2
            z = y.sum()
        return (sorted(plain.grad_fn.metadata), sorted(y.grad_fn.metadata),
                sorted(z.grad_fn.metadata), type(y.grad_fn.metadata["traceback_"]).__name__,
                _user_lines("".join(y.grad_fn.metadata["traceback_"])))
    ours, theirs = run_both(program)
    assert ours[4][-1] == "y = x * 2"


def run_fn(L, a):
    """The seed's run_fn: a backward that fails (here a hook on the node raises)."""
    out = a * 2
    out.grad_fn.register_hook(_raise("Some error in backward"))
    return out.sum()


def test_seed_example_without_anomaly_mode():
    def program(L):
        inp = L.rand(10, 10, requires_grad=True)
        out = run_fn(L, inp)
        out.backward()
    (res, w), _ = compare(program)
    assert isinstance(res, RuntimeError) and str(res) == "Some error in backward"
    assert w == []


def test_seed_example_with_anomaly_mode():
    """The error is reported with the traceback of the forward call, then re-raised."""
    def program(L):
        with L.autograd.detect_anomaly():
            inp = L.rand(10, 10, requires_grad=True)
            out = run_fn(L, inp)
            out.backward()
    (res, w), _ = compare(program)
    assert isinstance(res, RuntimeError) and str(res) == "Some error in backward"
    assert len(w) == 1
    assert w[0].startswith("Error detected in MulBackward0. Traceback of forward call that "
                           "caused the error:\n")
    frames = _user_lines(w[0])
    assert frames[-3] == "out = run_fn(L, inp)"
    assert frames[-1] == "out = a * 2"


def test_error_in_prehook_is_reported():
    """An error raised by a node's pre-hook is reported like one from a post-hook."""
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.ones(3, requires_grad=True)
            y = x.sin()
            y.grad_fn.register_prehook(_raise("formula failed"))
            y.sum().backward()
    compare(program)


def test_errors_in_tensor_hooks_and_leaves():
    def leaf(L):
        with L.autograd.detect_anomaly():
            x = L.ones(3, requires_grad=True)
            x.register_hook(_raise("leaf hook"))
            (x * 2).sum().backward()

    def middle(L):
        with L.autograd.detect_anomaly():
            x = L.ones(3, requires_grad=True)
            z = x * 2
            z.register_hook(_raise("tensor hook"))
            z.sin().sum().backward()
    for program in (leaf, middle):
        compare(program)


def test_anomaly_only_during_backward():
    """Forward without anomaly mode: no traceback to show."""
    def program(L):
        x = L.ones(3, requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(_raise("boom"))
        with L.autograd.set_detect_anomaly(True):
            y.sum().backward()
    (res, w), _ = compare(program)
    assert w == ["Error detected in MulBackward0. No forward pass information available. "
                 "Enable detect anomaly during forward pass for more information."]


def test_double_backward_parent_traceback():
    """A node created by a backward with create_graph records the node that created it
    ("parent_"); an error in it shows both forward tracebacks."""
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.ones(2, requires_grad=True)
            y = (x * x).sum()
            g, = L.autograd.grad(y, x, create_graph=True)
            meta = sorted(g.grad_fn.metadata)
            parent = g.grad_fn.metadata["parent_"].name()
            g.grad_fn.register_hook(_raise("second order"))
            try:
                g.sum().backward()
            except RuntimeError as e:
                return meta, parent, str(e)
    (res, w), _ = compare(program)
    assert res[1] == "MulBackward0"
    assert len(w) == 2
    assert w[1].startswith("\n\nPrevious calculation was induced by MulBackward0. Traceback of "
                           "forward call that induced the previous calculation:\n")
    assert _user_lines(w[1])[-1] == "y = (x * x).sum()"


# ====================================================================== NaN
def test_nan_division():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.zeros(2, requires_grad=True)
            y = (x / x).sum()
            y.backward()
    (res, w), _ = compare(program)
    assert isinstance(res, RuntimeError)
    assert str(res) == "Function 'DivBackward0' returned nan values in its 1th output."
    assert w[0].startswith("Error detected in DivBackward0.")
    assert _user_lines(w[0])[-1] == "y = (x / x).sum()"


def test_nan_0th_output():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.zeros(2, requires_grad=True)
            (L.sqrt(x) * 0).sum().backward()
    (res, _), _ = compare(program)
    assert str(res) == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_nan_0th_output_of_div():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.zeros(2, requires_grad=True)
            c = L.zeros(2)
            (x / c * 0).sum().backward()
    (res, _), _ = compare(program)
    assert str(res) == "Function 'DivBackward0' returned nan values in its 0th output."


def test_nan_check_off():
    def program(L):
        with L.autograd.detect_anomaly(check_nan=False):
            x = L.zeros(2, requires_grad=True)
            (x / x).sum().backward()
            return x.grad
    run_both(program)
    compare(program)

    def program2(L):
        with L.autograd.set_detect_anomaly(True, check_nan=False):
            x = L.zeros(2, requires_grad=True)
            (L.sqrt(x) * 0).sum().backward()
            return x.grad
    run_both(program2)


def test_nan_in_double_backward():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.tensor([0.0, 1.0], requires_grad=True)
            y = L.sqrt(x).sum()
            g, = L.autograd.grad(y, x, create_graph=True)
            (g * 0).sum().backward()
    compare(program)


def test_nan_not_raised_when_no_nan():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.tensor([1.0, 2.0], requires_grad=True)
            y = (x / x + L.sqrt(x)).sum()
            y.backward()
            return x.grad
    run_both(program)


def test_backward_state_rolled_back_after_nan_error():
    """The failing backward leaves .grad untouched (engine journal), like PyTorch."""
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.zeros(2, requires_grad=True)
            w = L.ones(2, requires_grad=True)
            try:
                (w * 3 + x / x).sum().backward()
            except RuntimeError:
                pass
            return w.grad, x.grad
    run_both(program)


def test_thread_local_switch():
    """graphgrad keeps the switch per thread (PyTorch's is process-wide: a documented
    difference); a thread started inside the block does not see it."""
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with graphgrad.autograd.detect_anomaly():
            th = threading.Thread(target=lambda: seen.append(graphgrad.is_anomaly_enabled()))
            th.start()
            th.join()
    assert seen == [False]


def test_seed_004_custom_function_example():
    """Seed 004's example verbatim (a custom Function whose backward raises)."""
    def program(L):
        autograd = L.autograd

        class MyFunc(autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            def backward(ctx, gO):
                # Error during the backward pass
                raise RuntimeError("Some error in backward")
                return gO.clone()

        def run_fn(a):
            out = MyFunc.apply(a)
            return out.sum()
        with autograd.detect_anomaly():
            inp = L.rand(10, 10, requires_grad=True)
            out = run_fn(inp)
            out.backward()
    (res, w), _ = compare(program)
    assert isinstance(res, RuntimeError) and str(res) == "Some error in backward"
    assert len(w) == 1 and w[0].startswith("Error detected in MyFuncBackward. Traceback of "
                                           "forward call that caused the error:\n")
    frames = _user_lines(w[0])
    assert frames[-3:] == ["out = run_fn(inp)", frames[-2], "out = MyFunc.apply(a)"]


def test_inplace_node_records_traceback():
    def program(L):
        with L.autograd.detect_anomaly():
            x = L.ones(3, requires_grad=True)
            y = x * 1.0
            y.mul_(2)
            y.grad_fn.register_hook(_raise("inplace"))
            y.sum().backward()
    compare(program)


# ====================================================================== the running node
def test_reports_the_node_each_backward_was_running():
    """The engine tells anomaly mode which node it is processing: an error in a backward
    nested in a hook is reported for the inner node, then for the outer one; an error in a
    final callback (outside any node) for none."""
    def queue(lib, fn):
        if lib is graphgrad:
            graphgrad.autograd.engine.queue_callback(fn)
        else:
            lib.autograd.Variable._execution_engine.queue_callback(fn)

    def prog(lib):
        seen = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                x = lib.tensor([1.0, 2.0], requires_grad=True)

                def nested(g):
                    with lib.enable_grad():
                        y = lib.tensor([1.0], requires_grad=True).exp()
                        y.register_hook(lambda g: {}["boom"])
                        y.sum().backward()
                z = x.sin()
                z.register_hook(nested)
                with pytest.raises(KeyError):
                    (z * 2).sum().backward()

                def failing_callback():
                    raise ValueError("callback")
                b = x.cos()
                b.register_hook(lambda g: queue(lib, failing_callback))
                with pytest.raises(ValueError):
                    b.sum().backward()
                (x * 3).sum().backward()  # a backward that succeeds: nothing reported
        for w in caught:
            text = str(w.message)
            if "Error detected" in text:
                seen.append(text.split(".")[0])
        return seen
    ours, _ = run_both(prog)
    assert ours == ["Error detected in ExpBackward0", "Error detected in SinBackward0"]
    assert graphgrad._core.state.tls.anomaly_node is None


def test_nodes_made_in_a_hook_record_the_running_node_as_parent():
    """create_graph under anomaly mode: a node made while the engine runs a node records
    it as ``parent_`` (told by the engine, not found in its frames)."""
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    made = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with graphgrad.autograd.detect_anomaly():
            y = x.sin()
            y.register_hook(lambda g: made.append(g * x))
            (g,) = graphgrad.autograd.grad(y.sum(), x, create_graph=True)
    assert made[0].grad_fn.metadata["parent_"] is y.grad_fn
    assert g.grad_fn.metadata["parent_"] is y.grad_fn
