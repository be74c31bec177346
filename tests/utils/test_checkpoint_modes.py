"""utils.checkpoint's modes against PyTorch: the forward's autocast state in the
recomputation, ``context_fn``, ``debug=True`` / ``set_checkpoint_debug_enabled`` and the
tip PyTorch's determinism errors give."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both

MODES = [False, True]


def data(lib, shape, seed, requires_grad=True, dtype=None):
    a = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(a, dtype=dtype or lib.float32, requires_grad=requires_grad)


@pytest.mark.parametrize("reentrant", MODES)
def test_recomputation_runs_under_the_forwards_autocast_state(reentrant):
    # checkpointed under autocast, backward outside it: the recomputation casts as the
    # forward did (PyTorch stashes the autocast state), so the gradients are the plain ones
    def program(lib):
        x = data(lib, (4, 8), 0)
        w = data(lib, (8, 8), 1)

        def f(a):
            return (a @ w).relu() @ w

        with lib.autocast("cpu", dtype=lib.bfloat16):
            y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
        y.float().sum().backward()
        return y.dtype, y, x.grad, w.grad
    run_both(program)


def test_recomputation_outside_autocast_of_a_forward_outside_it():
    # and the converse: a forward without autocast recomputes without it (no dtype mismatch)
    # even when the backward runs inside an autocast region. Compared with the plain run, not
    # with PyTorch: PyTorch also autocasts the backward's own ops there (docs/differences.md)
    def program(checkpointed):
        x = data(graphgrad, (4, 8), 0)
        w = data(graphgrad, (8, 8), 1)

        def f(a):
            return (a @ w).relu() @ w
        y = graphgrad.utils.checkpoint.checkpoint(f, x, use_reentrant=False) \
            if checkpointed else f(x)
        with graphgrad.autocast("cpu", dtype=graphgrad.bfloat16):
            y.sum().backward()
        return x.grad, w.grad
    for a, b in zip(program(True), program(False)):
        assert a.dtype == graphgrad.float32 and graphgrad.equal(a, b)


def test_context_fn_contexts_wrap_the_forward_and_the_recomputation():
    def program(lib):
        log = []

        @contextlib.contextmanager
        def ctx(name):
            log.append(f"enter {name}")
            yield
            log.append(f"exit {name}")

        def f(a):
            log.append("f")
            return a.sin().exp()

        x = data(lib, (3,), 0)
        y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False,
                                            context_fn=lambda: (ctx("fwd"), ctx("recompute")))
        log.append("backward")
        y.sum().backward()
        return log, x.grad
    ours, _ = run_both(program)
    # (the recomputation stops inside the context once every saved tensor is back, so the
    # generator's code after its yield does not run, in either library)
    assert ours[0] == ["enter fwd", "f", "exit fwd", "backward", "enter recompute", "f"]


def _nondeterministic(lib, **kwargs):
    state = [0]
    x = data(lib, (4,), 0)

    def f(a):
        state[0] += 1
        return (a.sin() if state[0] == 1 else a[:2].cos()).exp()
    y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False, **kwargs)
    y.sum().backward()


def test_determinism_error_gives_the_debug_tip(lib):
    with pytest.raises(lib.utils.checkpoint.CheckpointError) as info:
        _nondeterministic(lib)
    assert "debug=True" in str(info.value)
    assert "set_checkpoint_debug_enabled" in str(info.value)


def test_debug_lists_the_ops_of_the_forward_and_the_recomputation():
    # (graphgrad only here, as the two tests below: PyTorch 2.13 gives these messages too, but
    # its debug logger raises a TypeError under pytest's log capture once used in a process)
    lib = graphgrad
    with pytest.raises(lib.utils.checkpoint.CheckpointError) as info:
        _nondeterministic(lib, debug=True)
    msg = str(info.value)
    assert "Operations executed during the original forward:" in msg
    assert "Operations executed during recomputation:" in msg
    fwd, rec = msg.split("Operations executed during the original forward:")[1] \
        .split("Operations executed during recomputation:")
    assert "sin" in fwd and "cos" not in fwd
    assert "cos" in rec.split("ERROR")[0]
    assert "Detected non-determinism while running activation checkpointing" in msg


def test_set_checkpoint_debug_enabled_overrides_the_argument():
    lib = graphgrad
    cp = lib.utils.checkpoint
    with cp.set_checkpoint_debug_enabled(True):
        with pytest.raises(cp.CheckpointError, match="Operations executed during"):
            _nondeterministic(lib)
    with cp.set_checkpoint_debug_enabled(False):
        with pytest.raises(cp.CheckpointError) as info:
            _nondeterministic(lib, debug=True)
        assert "Operations executed during" not in str(info.value)


def test_debug_with_a_context_fn_raises():
    run_both(lambda lib: lib.utils.checkpoint.checkpoint(
        lambda a: a * 2, data(lib, (2,), 0), use_reentrant=False, debug=True,
        context_fn=lambda: (contextlib.nullcontext(), contextlib.nullcontext())))


def test_debug_run_without_mismatch_gives_the_plain_gradients():
    def program(debug):
        x = data(graphgrad, (3,), 0, dtype=graphgrad.float64)
        y = graphgrad.utils.checkpoint.checkpoint(lambda a: a.sin() * a, x,
                                                  use_reentrant=False, debug=debug)
        y.sum().backward()
        return x.grad
    assert graphgrad.equal(program(True), program(False))
