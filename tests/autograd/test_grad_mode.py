"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; decorators; threads."""
import threading

import pytest

import graphgrad
from tests.conftest import HAVE_TORCH, Raised, run_both, torch


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    graphgrad.set_grad_enabled(True)
    if HAVE_TORCH:
        torch.set_grad_enabled(True)


def _x(lib):
    return lib.tensor([1.0, 2.0], requires_grad=True)


# ------------------------------------------------------------------ no_grad / enable_grad
def test_no_grad_context():
    def prog(lib):
        x = _x(lib)
        with lib.no_grad():
            y = x * 2
            inside = lib.is_grad_enabled()
        return y, inside, lib.is_grad_enabled(), (x * 2)
    run_both(prog)


def test_no_grad_nested_with_enable_grad():
    def prog(lib):
        x = _x(lib)
        with lib.no_grad():
            with lib.enable_grad():
                a = x * 2
            b = x * 2
            with lib.no_grad():
                c = x * 2
            d = x * 2
        return a, b, c, d
    run_both(prog)


def test_no_grad_restores_mode_on_exception():
    def prog(lib):
        try:
            with lib.no_grad():
                raise KeyError("inside")
        except KeyError:
            pass
        return lib.is_grad_enabled()
    run_both(prog)


def test_no_grad_keeps_versions_and_allows_inplace_on_leaf():
    def prog(lib):
        x = _x(lib)
        with lib.no_grad():
            x.mul_(2)
            x.add_(1)
        return x, x._version, x.is_leaf
    run_both(prog)


@pytest.mark.parametrize("cm", ["no_grad", "enable_grad"])
def test_decorators_with_and_without_parentheses(cm):
    def prog(lib):
        x = _x(lib)

        def body(a):
            return a * 2, lib.is_grad_enabled()
        bare = getattr(lib, cm)(body)
        called = getattr(lib, cm)()(body)
        with lib.set_grad_enabled(cm == "no_grad"):
            r1, r2 = bare(x), called(x)
        return r1, r2, body.__name__ == bare.__name__ == called.__name__
    run_both(prog)


def test_decorated_generator_switches_mode_around_each_step():
    def prog(lib):
        x = _x(lib)
        seen = []

        @lib.no_grad()
        def gen():
            seen.append(lib.is_grad_enabled())
            yield x * 2
            seen.append(lib.is_grad_enabled())
            yield x * 3
        g = gen()
        first = next(g)
        between = lib.is_grad_enabled()
        second = next(g)
        return first, between, second, seen, list(gen())
    run_both(prog)


def test_decorated_generator_send_and_close():
    def prog(lib):
        log = []

        @lib.no_grad()
        def gen():
            try:
                while True:
                    v = yield lib.is_grad_enabled()
                    log.append((v, lib.is_grad_enabled()))
            finally:
                log.append(("closed", lib.is_grad_enabled()))
        g = gen()
        a = next(g)
        b = g.send(5)
        g.close()
        return a, b, log, lib.is_grad_enabled()
    run_both(prog)



def test_decorated_generator_finishing_inside_throw_returns_its_value():
    # issue 16 s2: the wrapper let the StopIteration out of gen.throw() escape, which
    # Python turns into RuntimeError("generator raised StopIteration")
    def prog(lib):
        log = []

        @lib.no_grad()
        def coro():
            try:
                yield 1
            except ValueError:
                log.append(lib.is_grad_enabled())
                return "done"
        c = coro()
        next(c)
        try:
            c.throw(ValueError("stop"))
        except StopIteration as e:
            return log, e.value, lib.is_grad_enabled()
        return log, None, lib.is_grad_enabled()
    run_both(prog)

def test_decorating_a_class_is_deprecated_but_works():
    def prog(lib):
        with pytest.warns(FutureWarning):
            @lib.no_grad()
            class C:
                def __init__(self, x):
                    self.y = x * 2
        c = C(lib.ones(2, requires_grad=True))
        return type(c).__name__, c.y
    run_both(prog)


# ------------------------------------------------------------------ set_grad_enabled
def test_set_grad_enabled_as_function_context_and_decorator():
    def prog(lib):
        x = _x(lib)
        out = []
        r = lib.set_grad_enabled(False)
        out.append((lib.is_grad_enabled(), type(r).__name__, x * 2))
        lib.set_grad_enabled(True)
        with lib.set_grad_enabled(False):
            out.append((lib.is_grad_enabled(), x * 2))
        out.append(lib.is_grad_enabled())

        @lib.set_grad_enabled(False)
        def f(a):
            return a * 2, lib.is_grad_enabled()
        out.append((lib.is_grad_enabled(), f(x), lib.is_grad_enabled()))
        with lib.no_grad():
            with lib.set_grad_enabled(True):
                out.append(x * 2)
            out.append(lib.is_grad_enabled())
        return out
    run_both(prog)


def test_set_grad_enabled_requires_bool():
    run_both(lambda lib: lib.set_grad_enabled(1))


def test_grad_mode_names_in_autograd_namespace():
    def prog(lib):
        a = lib.autograd
        return (a.no_grad is lib.no_grad, a.enable_grad is lib.enable_grad,
                a.set_grad_enabled is lib.set_grad_enabled,
                a.inference_mode is lib.inference_mode,
                lib.autograd.grad_mode.no_grad is lib.no_grad)
    run_both(prog)


# ------------------------------------------------------------------ views made with grad off
def test_view_made_under_no_grad_requires_grad_as_leaf():
    def prog(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 1
        with lib.no_grad():
            g = y[0]
            inside = (g.requires_grad, g.grad_fn, g.is_leaf)
        out = g * 2
        out.sum().backward()
        # (PyTorch gives such a view no grad accumulator, so g.grad stays None there; graphgrad
        # accumulates into g.grad -- see docs/differences.md -- and g.grad is not compared)
        return inside, (g.requires_grad, g.is_leaf), out, x.grad
    run_both(prog)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_inplace_on_view_made_with_grad_off_is_refused(mode):
    def prog(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 1
        with getattr(lib, mode)():
            v = y[0]
        v.mul_(2)
    run_both(prog)


def test_inplace_on_no_grad_view_inside_no_grad_is_fine():
    def prog(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 1
        with lib.no_grad():
            v = y[0]
        with lib.no_grad():
            v.mul_(2)
        return y, v._version
    run_both(prog)


# ------------------------------------------------------------------ inference_mode
def test_inference_mode_basics():
    def prog(lib):
        x = _x(lib)
        with lib.inference_mode():
            a = lib.ones(2)
            b = x * 2
            c = x.view(2)
            state = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
            flags = [(t.is_inference(), t.requires_grad) for t in (a, b, c)]
            with lib.inference_mode(False):
                d = lib.ones(2)
                nested = (d.is_inference(), lib.is_inference_mode_enabled(),
                          lib.is_grad_enabled())
        return (state, flags, nested, b, lib.is_inference_mode_enabled(), x.is_inference(),
                lib.is_grad_enabled())
    run_both(prog)


def test_inference_tensors_propagate():
    def prog(lib):
        with lib.inference_mode():
            a = lib.ones(2)
        return [a.is_inference(), (a * 2).is_inference(), a.clone().is_inference(),
                a.detach().is_inference(), a.view(2).is_inference(), a[0].is_inference(),
                lib.tensor([1.0]).is_inference(), (a * 2).requires_grad]
    run_both(prog)


INFERENCE_ERRORS = {
    "version": lambda lib, a, x: a._version,
    "inplace_outside": lambda lib, a, x: a.add_(1),
    "inplace_outside_no_grad": lambda lib, a, x: _in_no_grad(lib, lambda: a.add_(1)),
    "saved_for_backward": lambda lib, a, x: a * x,
    "saved_then_backward": lambda lib, a, x: (x.sin() * a).sum().backward(),
    "requires_grad_outside": lambda lib, a, x: a.requires_grad_(),
    "not_saved_add": lambda lib, a, x: a + x,
    "not_saved_mul_scalar": lambda lib, a, x: a * 2,
    "clone_is_normal": lambda lib, a, x: (a.clone() * x, a.clone().is_inference()),
}


def _in_no_grad(lib, fn):
    with lib.no_grad():
        return fn()


@pytest.mark.parametrize("name", list(INFERENCE_ERRORS))
def test_inference_tensor_misuse(name):
    def prog(lib):
        x = _x(lib)
        with lib.inference_mode():
            a = lib.ones(2)
        return INFERENCE_ERRORS[name](lib, a, x)
    run_both(prog)


def test_inference_tensor_inplace_inside_inference_mode():
    def prog(lib):
        with lib.inference_mode():
            a = lib.ones(2)
            a.add_(1)
            a.mul_(3)
        return a
    run_both(prog)


def test_leaf_created_in_inference_mode_with_requires_grad():
    def prog(lib):
        with lib.inference_mode():
            i = lib.ones(2, requires_grad=True)
            inside = (i.requires_grad, i.is_leaf, (i * 2).requires_grad)
        y = i * 2
        y.sum().backward()
        return inside, y, i.grad
    run_both(prog)


def test_inference_mode_allows_inplace_on_leaf():
    def prog(lib):
        x = _x(lib)
        with lib.inference_mode():
            x.add_(1)
        return x, x._version
    run_both(prog)


@pytest.mark.parametrize("form", ["bare", "called", "false"])
def test_inference_mode_decorator(form):
    def prog(lib):
        def body():
            return lib.ones(1).is_inference(), lib.is_inference_mode_enabled()
        deco = {"bare": lib.inference_mode, "called": lib.inference_mode(),
                "false": lib.inference_mode(False)}[form]
        return deco(body)(), lib.is_inference_mode_enabled()
    run_both(prog)


def test_inference_mode_decorated_generator():
    def prog(lib):
        @lib.inference_mode()
        def gen():
            yield lib.ones(1).is_inference()
            yield lib.is_inference_mode_enabled()
        g = gen()
        first = next(g)
        between = lib.is_inference_mode_enabled()
        return first, between, next(g)
    run_both(prog)


def test_inference_mode_restores_on_exception():
    def prog(lib):
        try:
            with lib.inference_mode():
                raise KeyError
        except KeyError:
            pass
        return lib.is_inference_mode_enabled(), lib.is_grad_enabled(), lib.ones(1).is_inference()
    run_both(prog)


# ------------------------------------------------------------------ thread-locality
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode", "set_grad_enabled"])
def test_grad_mode_is_thread_local(mode):
    barrier = threading.Barrier(2)
    seen = {}

    def off():
        cm = graphgrad.set_grad_enabled(False) if mode == "set_grad_enabled" else \
            getattr(graphgrad, mode)()
        with cm:
            barrier.wait(timeout=10)   # the other thread checks its mode now
            barrier.wait(timeout=10)
            seen["off"] = (graphgrad.is_grad_enabled(), graphgrad.is_inference_mode_enabled())

    def on():
        barrier.wait(timeout=10)
        x = graphgrad.ones(2, requires_grad=True)
        seen["on"] = (graphgrad.is_grad_enabled(), graphgrad.is_inference_mode_enabled(),
                      (x * 2).requires_grad, graphgrad.ones(1).is_inference())
        barrier.wait(timeout=10)

    threads = [threading.Thread(target=off), threading.Thread(target=on)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["on"] == (True, False, True, False)
    assert seen["off"] == (False, mode == "inference_mode")
    assert graphgrad.is_grad_enabled() and not graphgrad.is_inference_mode_enabled()


def test_new_thread_starts_with_grad_enabled():
    result = []
    with graphgrad.no_grad():
        t = threading.Thread(target=lambda: result.append(graphgrad.is_grad_enabled()))
        t.start()
        t.join()
    assert result == [True]


def test_raised_harness_sanity():
    ours, theirs = run_both(lambda lib: lib.set_grad_enabled("yes"))
    assert isinstance(ours, Raised) and isinstance(theirs, Raised)


# ------------------------------------------------------------------ the process-wide shortcut
def _records_in_this_thread():
    """What the hot paths (generated mm/tanh/mul entries, t[i], dispatch) record here."""
    w = graphgrad.ones(2, 2, requires_grad=True)
    x = graphgrad.ones(3, 2, 2)
    y = graphgrad.tanh(x[0] @ w) * 2
    z = graphgrad.sum(y)
    return [t.grad_fn.name() if t.grad_fn is not None else None for t in (y, z)]


def test_hot_flag_follows_every_thread():
    from graphgrad._core.state import ALL_THREADS
    assert ALL_THREADS.plain
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def off():
        with graphgrad.no_grad():
            seen["off"] = _records_in_this_thread()
            inside.set()
            release.wait(timeout=10)

    t = threading.Thread(target=off)
    t.start()
    inside.wait(timeout=10)
    try:
        assert not ALL_THREADS.plain  # another thread left the default state: everyone checks tls
        assert _records_in_this_thread() == ["MulBackward0", "SumBackward0"]
    finally:
        release.set()
        t.join()
    assert seen["off"] == [None, None]
    assert ALL_THREADS.plain


def test_thread_ending_with_grad_disabled_does_not_keep_the_slow_path():
    from graphgrad._core.state import ALL_THREADS

    def leave_disabled():
        graphgrad.set_grad_enabled(False)  # never restored: the thread's state dies with it
        assert not ALL_THREADS.plain

    t = threading.Thread(target=leave_disabled)
    t.start()
    t.join()
    import gc
    gc.collect()
    assert ALL_THREADS.plain
    assert _records_in_this_thread() == ["MulBackward0", "SumBackward0"]


def test_main_thread_modes_switch_the_hot_flag():
    from graphgrad._core.state import ALL_THREADS
    with graphgrad.no_grad():
        assert not ALL_THREADS.plain
        with graphgrad.enable_grad():
            assert ALL_THREADS.plain
            assert _records_in_this_thread() == ["MulBackward0", "SumBackward0"]
        assert _records_in_this_thread() == [None, None]
    with graphgrad.inference_mode():
        assert not ALL_THREADS.plain
    with graphgrad.autograd.detect_anomaly():
        assert not ALL_THREADS.plain
        assert _records_in_this_thread() == ["MulBackward0", "SumBackward0"]
    assert ALL_THREADS.plain


@pytest.mark.parametrize("requires_grad", [True, False])
def test_view_of_an_inference_tensor_in_inference_mode_does_not_require_grad(requires_grad):
    # (a view of a normal tensor made in inference mode keeps its requires_grad)
    def program(lib):
        with lib.inference_mode():
            c = lib.ones(1, 2, 3, requires_grad=requires_grad)
            v = c.view(-1)
            w = lib.ones(2, requires_grad=True).clone()
            u = w.view(-1)
            return lib.is_inference(v), v.requires_grad, lib.is_inference(u), u.requires_grad
    run_both(program)
