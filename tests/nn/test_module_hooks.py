"""Module hooks against PyTorch: forward pre/post (prepend, with_kwargs, always_call), full
backward pre/post (grad_input/grad_output tuples as PyTorch's BackwardHook delivers them,
None entries, non-tensor outputs, in-place ops), the deprecated register_backward_hook,
global hooks and their order.  Each program records what its hooks saw and returns it."""
from __future__ import annotations

import warnings

import pytest

import graphgrad
from tests.conftest import assert_same, run_both, torch
from tests.nn.module_test_helpers import build_modules, fixed


@pytest.fixture(autouse=True)
def _no_global_hooks_left():
    yield
    for lib in (graphgrad, torch):
        mm = lib.nn.modules.module
        for name in ("_global_backward_pre_hooks", "_global_backward_hooks",
                     "_global_forward_pre_hooks", "_global_forward_hooks",
                     "_global_forward_hooks_always_called", "_global_forward_hooks_with_kwargs",
                     "_global_buffer_registration_hooks", "_global_module_registration_hooks",
                     "_global_parameter_registration_hooks"):
            getattr(mm, name).clear()
        _hook_state(lib)._global_is_full_backward_hook = None


def _hook_state(lib):
    """The module holding the global-hook flag (graphgrad keeps Module's hooks in _hooks.py;
    the dicts are re-exported by module.py, a rebound flag cannot be)."""
    return graphgrad.nn.modules._hooks if lib is graphgrad else lib.nn.modules.module


def caught(fn):
    """Run ``fn()``, returning (its result, [(warning class name, message)])."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(x.category.__name__, str(x.message)) for x in w]


def desc(t):
    """What a hook argument looks like: None, a tensor (compared by value), or a type name."""
    if t is None:
        return None
    if isinstance(t, (graphgrad.Tensor, torch.Tensor)):
        return t.detach().clone()
    return type(t).__name__


def same_message(ours, theirs):
    """graphgrad's message is PyTorch's, optionally followed by " (The in-place operation:
    <op>.)" naming the op."""
    assert ours == theirs or (ours.startswith(theirs) and ours[len(theirs):].startswith(
        " (The in-place operation:")), (ours, theirs)


def tup(ts):
    return (type(ts).__name__, len(ts), [desc(t) for t in ts])


def record_all(lib, model, log, kinds=("fpre", "fwd", "bpre", "bwd")):
    """Register a recording hook of each kind on every module of ``model``."""
    for name, mod in model.named_modules():
        name = name or "root"
        if "fpre" in kinds:
            mod.register_forward_pre_hook(lambda m, a, n=name: log.append(("fpre", n, tup(a))))
        if "fwd" in kinds:
            mod.register_forward_hook(
                lambda m, a, o, n=name: log.append(("fwd", n, tup(a), desc(o))))
        if "bpre" in kinds:
            mod.register_full_backward_pre_hook(
                lambda m, go, n=name: log.append(("bpre", n, tup(go))))
        if "bwd" in kinds:
            mod.register_full_backward_hook(
                lambda m, gi, go, n=name: log.append(("bwd", n, tup(gi), tup(go))))


# ---------------------------------------------------------------- order
def test_hook_order_nested_modules():
    def program(lib):
        m = build_modules(lib).MLP()
        log = []
        record_all(lib, m, log)
        x = fixed(lib, 5, 3).requires_grad_()
        y = m(x)
        log.append("backward")
        y.pow(2).sum().backward()
        return log, x.grad, [p.grad for p in m.parameters()]
    run_both(program)


def test_prepend_order_each_kind():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        log = []
        for i in range(5):
            pre = i in (1, 4)
            m.register_forward_pre_hook(lambda *a, i=i: log.append(("fpre", i)), prepend=pre)
            m.register_forward_hook(lambda *a, i=i: log.append(("fwd", i)), prepend=pre)
            m.register_full_backward_pre_hook(lambda *a, i=i: log.append(("bpre", i)),
                                              prepend=pre)
            m.register_full_backward_hook(lambda *a, i=i: log.append(("bwd", i)), prepend=pre)
        x = fixed(lib, 4, 3).requires_grad_()
        m(x).sum().backward()
        m(x).sum().backward()
        return log
    run_both(program)


def test_global_hooks_run_before_local_ones():
    def program(lib):
        mm = lib.nn.modules.module
        m = build_modules(lib).Linear(3, 2)
        log = []
        hs = [mm.register_module_forward_pre_hook(lambda *a: log.append("g-fpre")),
              mm.register_module_forward_hook(lambda *a: log.append("g-fwd")),
              mm.register_module_full_backward_pre_hook(lambda *a: log.append("g-bpre")),
              mm.register_module_full_backward_hook(lambda *a: log.append("g-bwd"))]
        m.register_forward_pre_hook(lambda *a: log.append("fpre"), prepend=True)
        m.register_forward_hook(lambda *a: log.append("fwd"), prepend=True)
        m.register_full_backward_pre_hook(lambda *a: log.append("bpre"), prepend=True)
        m.register_full_backward_hook(lambda *a: log.append("bwd"), prepend=True)
        x = fixed(lib, 4, 3).requires_grad_()
        m(x).sum().backward()
        for h in hs:
            h.remove()
        log.append("removed")
        m(x).sum().backward()
        return log
    run_both(program)


def test_global_hooks_see_every_module():
    def program(lib):
        mm = lib.nn.modules.module
        m = build_modules(lib).MLP()
        log = []
        with mm.register_module_forward_hook(
                lambda mod, a, o: log.append(("fwd", type(mod).__name__, desc(o)))), \
                mm.register_module_full_backward_hook(
                    lambda mod, gi, go: log.append(("bwd", type(mod).__name__, tup(gi),
                                                    tup(go)))):
            x = fixed(lib, 5, 3).requires_grad_()
            m(x).sum().backward()
        m(x).sum().backward()  # removed: nothing more
        return log
    run_both(program)


def test_global_forward_hook_with_kwargs_and_always_call():
    def program(lib):
        mm = lib.nn.modules.module
        log = []

        class Boom(lib.nn.Module):
            def forward(self, x, fail=False):
                if fail:
                    raise ValueError("boom")
                return x * 2

        mm.register_module_forward_hook(
            lambda m, a, kw, o: log.append(("kw", sorted(kw), desc(o))), with_kwargs=True)
        mm.register_module_forward_hook(lambda m, a, o: log.append(("always", desc(o))),
                                        always_call=True)
        b = Boom()
        b(lib.ones(2), fail=False)
        try:
            b(lib.ones(2), fail=True)
        except ValueError as e:
            log.append(str(e))
        return log
    run_both(program)


def test_mixing_full_and_non_full_backward_hooks_raises():
    def local(lib):
        m = build_modules(lib).Linear(2, 2)
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)

    def local2(lib):
        m = build_modules(lib).Linear(2, 2)
        m.register_full_backward_hook(lambda *a: None)
        m.register_backward_hook(lambda *a: None)

    def glob(lib):
        mm = lib.nn.modules.module
        mm.register_module_full_backward_hook(lambda *a: None)
        try:
            mm.register_module_backward_hook(lambda *a: None)
        finally:
            mm._global_backward_hooks.clear()
            _hook_state(lib)._global_is_full_backward_hook = None

    for prog in (local, local2, glob):
        ours, theirs = run_both(prog)
        assert str(ours.exc) == str(theirs.exc)


# ---------------------------------------------------------------- forward hooks
def test_forward_pre_hook_modifies_args_single_value_wrapped():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        log = []
        m.register_forward_pre_hook(lambda mod, a: a[0] * 2)             # single value
        m.register_forward_pre_hook(lambda mod, a: log.append(tup(a)))   # sees the tuple
        m.register_forward_hook(lambda mod, a, o: o + 1)
        m.register_forward_hook(lambda mod, a, o: log.append((tup(a), desc(o))))
        x = fixed(lib, 4, 3).requires_grad_()
        y = m(x)
        y.sum().backward()
        return y, x.grad, log
    run_both(program)


def test_forward_hooks_with_kwargs():
    def program(lib):
        log = []

        class KW(lib.nn.Module):
            def forward(self, x, bias=None):
                return x + bias if bias is not None else x

        m = KW()

        def pre(mod, args, kwargs):
            log.append(("pre", tup(args), sorted(kwargs)))
            kwargs["bias"] = 2 * kwargs["bias"]
            return args, kwargs

        def post(mod, args, kwargs, out):
            log.append(("post", tup(args), desc(kwargs["bias"])))
            return out + kwargs["bias"]

        h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
        h2 = m.register_forward_hook(post, with_kwargs=True)
        x, b = lib.ones(2, 2), lib.ones(2, 2)
        out1 = m(x, bias=b)
        h2.remove()
        out2 = m(x, bias=b)
        gone = (h2.id in m._forward_hooks_with_kwargs, h1.id in m._forward_pre_hooks_with_kwargs)
        h1.remove()
        out3 = m(x, bias=b)
        return out1, out2, out3, log, gone, h1.id in m._forward_pre_hooks_with_kwargs
    run_both(program)


def test_forward_pre_hook_with_kwargs_bad_return():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        m.register_forward_pre_hook(lambda mod, a, kw: a, with_kwargs=True)
        m(lib.ones(1, 2, dtype=lib.float64))
    ours, theirs = run_both(program)
    assert str(ours.exc).replace("graphgrad.", "torch.") == str(theirs.exc)


def test_always_call_forward_hook_runs_when_forward_raises():
    def program(lib):
        log = []

        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("in forward")

        m = Boom()
        m.register_forward_hook(lambda mod, a, o: log.append(("normal", o)))
        m.register_forward_hook(lambda mod, a, o: log.append(("always", tup(a), o)),
                                always_call=True)
        m.register_forward_hook(lambda mod, a, kw, o: log.append(("always-kw", sorted(kw))),
                                always_call=True, with_kwargs=True)

        def failing(mod, a, o):
            raise KeyError("hook failed too")
        m.register_forward_hook(failing, always_call=True)
        try:
            _, w = caught(lambda: m(lib.ones(1), ))
        except ValueError as e:
            log.append(str(e))
        return log
    run_both(program)


def test_always_call_hook_not_rerun_when_a_later_hook_raises():
    def program(lib):
        log = []
        m = build_modules(lib).Linear(2, 2)
        m.register_forward_hook(lambda mod, a, o: log.append("always"), always_call=True)

        def bad(mod, a, o):
            raise ValueError("later hook")
        m.register_forward_hook(bad)
        try:
            m(lib.ones(1, 2, dtype=lib.float64))
        except ValueError as e:
            log.append(str(e))
        return log
    run_both(program)


def test_hooks_removable_from_inside_hooks_and_handles():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        log = []
        handles = {}

        def pre1(mod, a):
            handles["p1"].remove()
            log.append("p1")
            return a

        def fwd1(mod, a, o):
            handles["f1"].remove()
            log.append("f1")
            return o

        handles["p1"] = m.register_forward_pre_hook(pre1)
        handles["p2"] = m.register_forward_pre_hook(lambda mod, a: log.append("p2"))
        handles["f1"] = m.register_forward_hook(fwd1)
        d = handles["p1"].hooks_dict_ref()
        n_before = len(d)
        x = lib.ones(1, 2, dtype=lib.float64)
        m(x)
        m(x)
        with m.register_forward_hook(lambda *a: log.append("ctx")):
            m(x)
        m(x)
        return log, n_before, len(d), handles["p1"].id in d
    run_both(program)


# ---------------------------------------------------------------- full backward hooks
def test_full_backward_hook_non_tensor_inputs_and_outputs():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, flag, a, scale, b, *, c=None):
                out = a * scale + b.sum() + (c.sum() if c is not None else 0)
                return out.clone(), flag, out * 2, None

        m = M()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        a = fixed(lib, 3).requires_grad_()
        b = fixed(lib, 2, seed=1).requires_grad_()
        c = fixed(lib, 2, seed=2).requires_grad_()
        out, flag, out2, none = m(True, a, 3.0, b, c=c)
        (out.sum() + out2.pow(2).sum()).backward()
        return log, a.grad, b.grad, c.grad, flag, none, out.grad_fn, out2.grad_fn
    run_both(program)


def test_full_backward_hook_only_some_inputs_require_grad():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, a, b, c):
                return a * b + c

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        a = fixed(lib, 3).requires_grad_()
        b = fixed(lib, 3, seed=1)
        c = fixed(lib, 3, seed=2).requires_grad_()
        seen = []
        m.register_forward_pre_hook(lambda mod, args: seen.append(
            [(t.requires_grad, type(t.grad_fn).__name__) for t in args]))
        m(a, b, c).sum().backward()
        return log, seen, a.grad, c.grad
    run_both(program)


def test_full_backward_hook_unused_output_gets_none_grad_output():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, a):
                return a * 2, a * 3

        m = M()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        a = fixed(lib, 3).requires_grad_()
        y1, y2 = m(a)
        y1.sum().backward()
        return log, a.grad
    run_both(program)


def test_full_backward_hook_returns_new_grad_input():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        m.register_full_backward_hook(lambda mod, gi, go: tuple(g * 10 for g in gi))
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append(tup(gi)))  # sees x10
        x = fixed(lib, 4, 3).requires_grad_()
        m(x).sum().backward()
        return x.grad, m.weight.grad, log
    run_both(program)


def test_full_backward_pre_hook_changes_grad_output():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        log = []
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 0.5,))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        x = fixed(lib, 4, 3).requires_grad_()
        m(x).sum().backward()
        return x.grad, m.weight.grad, m.bias.grad, log
    run_both(program)


@pytest.mark.parametrize("case", ["bwd_short", "bwd_long", "pre_short", "pre_long",
                                  "old_short", "old_long"])
def test_backward_hook_wrong_number_of_grads(case):
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        if case == "bwd_short":
            m.register_full_backward_hook(lambda mod, gi, go: gi[:-1])
        elif case == "bwd_long":
            m.register_full_backward_hook(lambda mod, gi, go: gi + (lib.ones(1),))
        elif case == "pre_short":
            m.register_full_backward_pre_hook(lambda mod, go: ())
        elif case == "pre_long":
            m.register_full_backward_pre_hook(lambda mod, go: go + (lib.ones(1),))
        elif case == "old_short":
            m.register_backward_hook(lambda mod, gi, go: gi[:-1])
        else:
            m.register_backward_hook(lambda mod, gi, go: gi + (lib.ones(1),))
        x = fixed(lib, 4, 3).requires_grad_()
        caught(lambda: m(x).sum().backward())
    ours, theirs = run_both(program)
    if not case.startswith("old"):
        assert str(ours.exc) == str(theirs.exc)


def test_full_backward_hook_no_input_requires_grad():
    def program(lib):
        m = build_modules(lib).Linear(2, 3)
        log = []
        mode = ["None"]

        def hook(mod, gi, go):
            log.append(("bwd", tup(gi), tup(go)))
            if mode[0] == "grad_input":
                return gi
            if mode[0] == "invalid":
                return (lib.ones(1),)
            return None

        m.register_full_backward_hook(hook)
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        inp = fixed(lib, 1, 2)
        _, w1 = caught(lambda: m(inp).sum().backward())
        mode[0] = "grad_input"
        caught(lambda: m(inp).sum().backward())
        mode[0] = "invalid"
        try:
            caught(lambda: m(inp).sum().backward())
        except RuntimeError as e:
            log.append(str(e))
        return log, w1, m.weight.grad
    run_both(program)


def test_full_backward_hook_nothing_requires_grad_never_fires():
    def program(lib):
        m = build_modules(lib).Linear(2, 3).requires_grad_(False)
        log = []
        m.register_full_backward_hook(lambda *a: log.append("bwd"))
        y = m(fixed(lib, 1, 2))
        return log, y.requires_grad, y.grad_fn
    run_both(program)


def test_full_backward_hook_under_no_grad_is_not_set_up():
    def program(lib):
        m = build_modules(lib).Linear(2, 3)
        log = []
        m.register_full_backward_hook(lambda *a: log.append("bwd"))
        with lib.no_grad():
            y = m(fixed(lib, 1, 2).requires_grad_())
        return log, y.requires_grad, y.grad_fn
    run_both(program)


def test_full_backward_hook_wraps_inputs_and_outputs_in_views():
    def program(lib):
        seen = []

        class M(lib.nn.Module):
            def forward(self, a, b):
                seen.append([(t.grad_fn, t._is_view(), t.requires_grad) for t in (a, b)])
                return a * b

        m = M()
        m.register_full_backward_hook(lambda *a: None)
        a = fixed(lib, 3).requires_grad_()
        b = fixed(lib, 3, seed=2)
        y = m(a, b)
        return seen, y.grad_fn, y._is_view(), y.grad_fn.next_functions[0][0]
    run_both(program)


@pytest.mark.parametrize("reg", ["bwd", "bpre"])
def test_inplace_inside_and_outside_module_with_backward_hooks(reg):
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, inp, do_inplace):
                self.inp = inp
                if do_inplace:
                    inp += 1
                return inp.clone()

        m = M()
        if reg == "bwd":
            m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi))))
        else:
            m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        inp = fixed(lib, 4).requires_grad_()
        m(inp, False).sum().backward()
        errors = []
        try:
            m(inp.clone(), True)
        except RuntimeError as e:
            errors.append(str(e))
        local = inp.clone()
        m(local, False)
        local[0] *= 1
        try:
            m.inp + 2
        except RuntimeError as e:
            errors.append(str(e))
        out = m(inp, False)
        try:
            out += 1
        except RuntimeError as e:
            errors.append(str(e))
        return log, inp.grad, errors
    ours, theirs = program(graphgrad), program(torch)
    assert_same(ours[:2], theirs[:2])
    assert len(ours[2]) == len(theirs[2]) == 3
    for o, t in zip(ours[2], theirs[2]):
        same_message(o, t)


def test_inplace_op_inside_module_on_an_intermediate():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, x):
                h = x * 2
                h.add_(1)
                h[1:].mul_(3)
                return h

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        x = fixed(lib, 5).requires_grad_()
        y = m(x)
        (y * y).sum().backward()
        return log, x.grad, y.grad_fn
    run_both(program)


def test_inplace_module_relu_with_backward_hooks():
    # an in-place activation module modifies its (hooked) input in place: PyTorch raises
    def program(lib):
        ns = build_modules(lib)
        m = ns.ReLU(inplace=True)
        m.register_full_backward_hook(lambda *a: None)
        x = fixed(lib, 3).requires_grad_()
        m(x * 1)
    ours, theirs = run_both(program)
    same_message(str(ours.exc), str(theirs.exc))


def test_dict_output_warns_and_backward_hooks_do_not_fire():
    def program(lib):
        counter = {"forward": 0, "backward": 0}

        class M(lib.nn.Module):
            def forward(self, d):
                return {"x": lib.nn.functional.softmax(d["x"], dim=0)}

        m = M()
        m.register_forward_pre_hook(lambda *a: counter.__setitem__("forward",
                                                                   counter["forward"] + 1))
        m.register_forward_hook(lambda *a: counter.__setitem__("forward",
                                                               counter["forward"] + 1))

        def bw(*a):
            counter["backward"] += 1
        m.register_full_backward_pre_hook(bw)
        m.register_full_backward_hook(bw)
        x = lib.ones(2, requires_grad=True)
        _, w = caught(lambda: m({"x": x})["x"].sum().backward())
        return counter, [c for c, _ in w], ["should be a Tensor or a tuple of Tensors" in s
                                            for _, s in w]
    run_both(program)


def test_backward_twice_with_retain_graph_fires_twice():
    def program(lib):
        m = build_modules(lib).Linear(3, 2)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append(tup(go)))
        m.register_full_backward_pre_hook(lambda mod, go: log.append("pre"))
        x = fixed(lib, 4, 3).requires_grad_()
        y = m(x)
        y.backward(lib.ones(4, 2, dtype=lib.float64) * 2, retain_graph=True)
        y.backward(lib.ones(4, 2, dtype=lib.float64) * 3)
        return log, x.grad
    run_both(program)


def test_hook_not_called_when_grad_skips_outputs_double_backward():
    def program(lib):
        log = []
        m = build_modules(lib).Linear(3, 2)
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi))))
        x = fixed(lib, 4, 3).requires_grad_()
        y = m(x).pow(2).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        n1 = len(log)
        gx.sum().backward()
        return n1, len(log), x.grad
    run_both(program)


def test_autograd_grad_with_module_hooks():
    def program(lib):
        m = build_modules(lib).MLP()
        log = []
        record_all(lib, m, log, kinds=("bpre", "bwd"))
        x = fixed(lib, 5, 3).requires_grad_()
        g = lib.autograd.grad(m(x).sum(), [x, m.fc1.weight])
        return g, log
    run_both(program)


def test_full_backward_hook_module_called_twice_in_forward():
    def program(lib):
        ns = build_modules(lib)
        lin = ns.Linear(3, 3)
        log = []
        lin.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        x = fixed(lib, 2, 3).requires_grad_()
        y = lin(lin(x).tanh())
        y.sum().backward()
        return log, x.grad
    run_both(program)


# ---------------------------------------------------------------- deprecated hook
def test_register_backward_hook_seed_003_example():
    # seed 003 §8.2: forward hook + deprecated backward hook on a Linear, then remove both
    def program(lib):
        model = build_modules(lib).Linear(10, 5)
        log = []
        h1 = model.register_forward_hook(lambda m, i, o: log.append(("fwd", tuple(o.shape))))
        h2 = model.register_backward_hook(
            lambda m, gi, go: log.append(("bwd", tuple(go[0].shape), tup(gi), tup(go))))
        x = fixed(lib, 3, 10).requires_grad_()
        y, w = caught(lambda: model(x))
        y.sum().backward()
        h1.remove()
        h2.remove()
        model(x).sum().backward()
        return log, w, x.grad
    run_both(program)


@pytest.mark.parametrize("case", ["list_input", "list_output", "two_nodes", "multi_nodes",
                                  "single_node", "returns_grad_input"])
def test_register_backward_hook_semantics_and_warnings(case):
    def program(lib):
        log = []

        def noop(mod, gi, go):
            log.append(("bwd", tup(gi), tup(go)))
            if case == "returns_grad_input":
                return tuple(None if g is None else g * 2 for g in gi)

        a = fixed(lib, 2).requires_grad_()
        b = fixed(lib, 2, seed=3).requires_grad_()

        class M(lib.nn.Module):
            def forward(self, *args):
                if case == "list_input":
                    lst = args[0]
                    return lst[0].clone(), lst[1].clone()
                if case == "list_output":
                    return [args[0].clone(), args[1].clone()]
                if case == "two_nodes":
                    return args[0].clone(), args[1].clone()
                if case == "multi_nodes":
                    return args[0].clone().clone()
                return args[0] * args[1]

        m = M()
        m.register_backward_hook(noop)
        if case == "list_input":
            out, w = caught(lambda: m([a, b]))
        elif case in ("list_output", "two_nodes"):
            out, w = caught(lambda: m(a, b))
        elif case == "multi_nodes":
            out, w = caught(lambda: m(a))
        else:
            out, w = caught(lambda: m(a, b))
        outs = out if isinstance(out, (tuple, list)) else [out]
        sum(o.sum() for o in outs).backward()
        return log, w, a.grad, b.grad
    run_both(program)


def test_register_backward_hook_on_inputs_without_grad_fn_output():
    def program(lib):
        log = []
        m = build_modules(lib).Linear(2, 2).requires_grad_(False)
        m.register_backward_hook(lambda *a: log.append("bwd"))
        y = m(fixed(lib, 1, 2))
        return log, y.grad_fn
    run_both(program)


def test_global_deprecated_backward_hook():
    def program(lib):
        mm = lib.nn.modules.module
        log = []
        m = build_modules(lib).MLP()

        def hook(mod, gi, go):
            log.append((type(mod).__name__, tup(gi), tup(go)))
        h = mm.register_module_backward_hook(hook)
        x = fixed(lib, 5, 3).requires_grad_()
        y, w = caught(lambda: m(x))
        y.sum().backward()
        h.remove()
        return log, sorted(set(w)), x.grad
    run_both(program)


# ---------------------------------------------------------------- registration hooks
def test_global_registration_hooks():
    def program(lib):
        mm = lib.nn.modules.module
        nn = lib.nn
        log = []

        def on_buffer(mod, name, t):
            log.append(("buffer", name))
            return t * 2 if t is not None else None

        def on_param(mod, name, p):
            log.append(("param", name))

        def on_module(mod, name, sub):
            log.append(("module", name, type(sub).__name__))

        hs = [mm.register_module_buffer_registration_hook(on_buffer),
              mm.register_module_parameter_registration_hook(on_param),
              mm.register_module_module_registration_hook(on_module)]
        m = nn.Module()
        m.register_buffer("b", lib.ones(2))
        m.w = nn.Parameter(lib.zeros(1))
        m.sub = nn.Module()
        m.add_module("sub2", None)
        m.sub = None
        for h in hs:
            h.remove()
        m.register_buffer("c", lib.ones(1))
        return log, m.b
    run_both(program)


def test_node_post_hook_sees_grads_reduced_to_input_shapes():
    # PyTorch validates a node's outputs (sum away broadcasting, cast) before its post
    # hooks: the deprecated module backward hook relies on it
    def program(lib):
        log = []
        a = fixed(lib, 3, 4).requires_grad_()
        b = fixed(lib, 4, seed=1).requires_grad_()
        c = lib.ones(1, dtype=lib.float32, requires_grad=True)
        y = a + b
        y.grad_fn.register_hook(lambda gi, go: log.append((tup(gi), tup(go))))
        z = y * c
        z.grad_fn.register_hook(lambda gi, go: log.append((tup(gi), tup(go))))
        z.sum().backward()
        return log, b.grad, c.grad
    run_both(program)


def test_full_backward_hooks_identity_and_nested_passthrough():
    def program(lib):
        log = []

        class Id(lib.nn.Module):
            def forward(self, x):
                return x

        class Outer(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Id()

            def forward(self, x):
                return self.inner(x)

        m = Outer()
        record_all(lib, m, log, kinds=("bpre", "bwd"))
        x = fixed(lib, 3).requires_grad_()
        y = m(x)
        (y * 2).sum().backward()
        return log, x.grad, y.grad_fn, y.grad_fn.next_functions[0][0]
    run_both(program)


def test_full_backward_hook_kwargs_only_tensors():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, *, x):
                return x * 3

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        x = fixed(lib, 3).requires_grad_()
        _, w = caught(lambda: m(x=x).sum().backward())
        return log, w, x.grad
    run_both(program)


def test_full_backward_hook_namedtuple_output():
    def program(lib):
        import collections
        Out = collections.namedtuple("Out", ["a", "b"])
        log = []

        class M(lib.nn.Module):
            def forward(self, x):
                return Out(x * 2, x.sum())

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        x = fixed(lib, 3).requires_grad_()
        out = m(x)
        (out.a.sum() + out.b * 3).backward()
        return type(out).__name__, log, x.grad
    run_both(program)


def test_full_backward_hook_on_container_with_inplace_child():
    # a Sequential whose first child changes its input in place: with hooks only on the
    # Sequential, the child's in-place op hits the hook's view, as in PyTorch
    def program(lib):
        ns = build_modules(lib)
        s = lib.nn.Sequential(ns.Linear(3, 3), ns.ReLU(inplace=True), ns.Linear(3, 2, seed=4))
        log = []
        s.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        s[1].register_full_backward_pre_hook(lambda mod, go: log.append(("relu-pre", tup(go))))
        x = fixed(lib, 4, 3).requires_grad_()
        try:
            y = s(x)
            y.sum().backward()
        except RuntimeError as e:
            return "raised", str(e)[:60]
        return log, x.grad
    run_both(program)


@pytest.mark.parametrize("shape", [(10,), (3, 10), (2, 3, 10)])
def test_register_backward_hook_on_functional_linear(shape):
    # what nn.Linear does (F.linear: AddmmBackward0 for 2-d input, a view for others):
    # the deprecated hook sees that last node's gradients
    def program(lib):
        class LinearF(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(fixed(lib, 5, 10))
                self.bias = lib.nn.Parameter(fixed(lib, 5, seed=3))

            def forward(self, x):
                return lib.nn.functional.linear(x, self.weight, self.bias)

        log = []
        m = LinearF()
        m.register_backward_hook(lambda mod, gi, go: log.append((tup(gi), tup(go))))
        x = fixed(lib, *shape).requires_grad_()
        y, w = caught(lambda: m(x))
        y.pow(2).sum().backward()
        return log, w, x.grad, m.weight.grad, y.grad_fn
    run_both(program)


def test_full_backward_hook_integer_and_detached_outputs():
    # like max_pool with return_indices: an integer output gets None in grad_output
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, x):
                v, i = x.max(dim=1)
                return v, i, x.detach() * 2

        m = M()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        x = fixed(lib, 3, 4).requires_grad_()
        v, i, d = m(x)
        v.sum().backward()
        return log, x.grad, [(t.requires_grad, t.grad_fn) for t in (v, i, d)]
    run_both(program)


def test_full_backward_hooks_with_create_graph():
    def program(lib):
        log = []
        m = build_modules(lib).Linear(3, 2)
        m.register_full_backward_pre_hook(
            lambda mod, go: log.append(("bpre", [(g.requires_grad, g.grad_fn) for g in go])))
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(("bwd", [(g.requires_grad, g.grad_fn) for g in gi])))
        x = fixed(lib, 4, 3).requires_grad_()
        y = m(x).pow(2).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        gx.pow(2).sum().backward()
        return log, gx, x.grad, m.weight.grad
    run_both(program)


def test_full_backward_hook_same_tensor_twice_and_non_leaf_views():
    def program(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, a, b, c):
                return a * b + c.sum()

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", tup(gi), tup(go))))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", tup(go))))
        x = fixed(lib, 4).requires_grad_()
        h = x * 2
        y = m(x, x, h[1:])
        y.sum().backward()
        return log, x.grad, y.grad_fn
    run_both(program)


@pytest.mark.parametrize("seed", range(20))
def test_random_trees_with_random_hooks(seed):
    # random nesting of small modules (some used twice, some with two inputs), random hooks
    # of every kind at random places (some rescale gradients): same calls, same grads
    import random

    def program(lib):
        rng = random.Random(seed)
        ns = build_modules(lib)
        nn = lib.nn

        class Pair(nn.Module):
            """Two inputs: forward(x, y) with a non-tensor scale in between."""

            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x, scale=2.0, y=None):
                h = self.inner(x) * scale
                return h + (y if y is not None else 0)

        class Twice(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(self.inner(x).tanh())

        def build(depth):
            r = rng.random()
            if depth == 0 or r < 0.3:
                return ns.Linear(3, 3, seed=rng.randrange(100)) if rng.random() < 0.7 \
                    else ns.ReLU()
            if r < 0.6:
                return nn.Sequential(*[build(depth - 1) for _ in range(rng.randrange(1, 4))])
            if r < 0.8:
                return Pair(build(depth - 1))
            return Twice(build(depth - 1))

        class Root(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = build(3)
                self.pair = Pair(build(1))

            def forward(self, x):
                h = self.body(x)
                return self.pair(h, 0.5, x)

        model = Root()
        log = []
        for name, mod in model.named_modules():
            for _ in range(rng.randrange(3)):
                kind = rng.choice(["fpre", "fwd", "bpre", "bwd"])
                pre = rng.random() < 0.3
                tag = (name, kind, len(log))
                if kind == "fpre":
                    mod.register_forward_pre_hook(
                        lambda m, a, t=tag: log.append((t, tup(a))), prepend=pre)
                elif kind == "fwd":
                    mod.register_forward_hook(
                        lambda m, a, o, t=tag: log.append((t, desc(o))), prepend=pre)
                elif kind == "bpre":
                    scale = rng.choice([None, 0.5])
                    mod.register_full_backward_pre_hook(
                        lambda m, go, t=tag, s=scale: log.append((t, tup(go))) or (
                            None if s is None else tuple(
                                None if g is None else g * s for g in go)), prepend=pre)
                else:
                    scale = rng.choice([None, 3.0])
                    mod.register_full_backward_hook(
                        lambda m, gi, go, t=tag, s=scale: log.append((t, tup(gi), tup(go))) or (
                            None if s is None else tuple(
                                None if g is None else g * s for g in gi)), prepend=pre)
        x = fixed(lib, 2, 3).requires_grad_()
        y = model(x)
        y.pow(2).sum().backward()
        return log, y, x.grad, [p.grad for p in model.parameters()]
    run_both(program)
