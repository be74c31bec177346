"""nn.Module against PyTorch: registration, iteration, modes, conversion, state_dict,
load_state_dict and repr (the same module structure built in both libraries)."""
from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch
from tests.nn.module_test_helpers import build_modules, fixed, norm_repr


def names(it):
    return [n for n, _ in it]


# ---------------------------------------------------------------- registration
def test_attribute_registration_and_iteration():
    def program(lib):
        m = build_modules(lib).MLP()
        m.extra = lib.zeros(2)            # a plain tensor attribute: not registered
        m.note = "text"
        return (names(m.named_parameters()), names(m.named_buffers()),
                names(m.named_children()), names(m.named_modules()),
                [type(p).__name__ for p in m.parameters()],
                len(list(m.buffers())), len(list(m.children())), len(list(m.modules())),
                names(m.named_parameters(prefix="root")),
                names(m.named_parameters(recurse=False)),
                names(m.fc1.named_parameters(prefix="fc1", recurse=False)),
                names(m.named_buffers(recurse=False)), names(m.named_buffers(prefix="p")),
                list(m.state_dict().keys()), sorted(m._parameters), sorted(m._modules),
                "extra" in m.__dict__, m.note)
    run_both(program)


def test_shared_parameters_and_modules_remove_duplicate():
    def program(lib):
        ns = build_modules(lib)
        m = lib.nn.Module()
        lin = ns.Linear(2, 2)
        m.a = lin
        m.b = lin
        m.c = ns.Linear(2, 2)
        m.c.weight = lin.weight
        return (names(m.named_parameters()),
                names(m.named_parameters(remove_duplicate=False)),
                names(m.named_modules()), names(m.named_modules(remove_duplicate=False)),
                names(m.named_children()), list(m.state_dict().keys()),
                len(list(m.modules(remove_duplicate=False))),
                names(m.named_buffers(remove_duplicate=False)))
    run_both(program)


def test_named_modules_memo_and_prefix():
    def program(lib):
        m = build_modules(lib).MLP()
        memo = {m.fc1}
        return names(m.named_modules(memo=memo, prefix="net"))
    run_both(program)


@pytest.mark.parametrize("case", range(14))
def test_registration_errors(case):
    def program(lib):
        nn = lib.nn
        m = build_modules(lib).Linear(2, 2)
        p = nn.Parameter(lib.zeros(2))
        if case == 0:
            m.register_parameter("a.b", p)
        elif case == 1:
            m.register_parameter("", p)
        elif case == 2:
            m.register_parameter("in_features", p)     # an existing plain attribute
        elif case == 3:
            m.register_parameter("w", lib.zeros(2))   # a Tensor, not a Parameter
        elif case == 4:
            m.register_parameter(3, p)
        elif case == 5:
            m.weight = lib.zeros(2, 2)                # tensor to a parameter slot
        elif case == 6:
            m.register_buffer("b", [1, 2])
        elif case == 7:
            m.register_buffer("weight", lib.zeros(2))  # name taken by a parameter
        elif case == 8:
            m.add_module("x", lib.zeros(2))
        elif case == 9:
            m.add_module("a.b", nn.Module())
        elif case == 10:
            m.sub = nn.Module()
            m.sub = 3                                  # non-module to a module slot
        elif case == 11:
            m.register_buffer("buf", lib.zeros(2))
            m.buf = "x"
        elif case == 12:
            a = lib.zeros(2, requires_grad=True) * 2
            q = nn.Parameter(a)                        # detached: allowed
            m.q = q
            return (q.is_leaf, q.requires_grad, names(m.named_parameters()))
        elif case == 13:
            m.add_module("", nn.Module())
        return None
    ours, theirs = run_both(program)
    if hasattr(ours, "exc"):   # PyTorch's message, with graphgrad's names
        assert norm_repr(str(ours.exc)) == str(theirs.exc)


def test_registration_error_messages_name_the_attribute():
    nn = graphgrad.nn
    m = nn.Module()
    with pytest.raises(TypeError, match="cannot assign 'graphgrad.FloatTensor' object to "
                                        "parameter 'w'"):
        m.register_parameter("w", graphgrad.zeros(2))
    m.w = nn.Parameter(graphgrad.zeros(2))
    with pytest.raises(TypeError, match="as parameter 'w'"):
        m.w = graphgrad.zeros(2)
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        m.register_buffer("training", graphgrad.zeros(1))


def test_assign_before_init():
    class Bad(graphgrad.nn.Module):
        def __init__(self):
            self.w = graphgrad.nn.Parameter(graphgrad.zeros(1))

    class BadT(torch.nn.Module):
        def __init__(self):
            self.w = torch.nn.Parameter(torch.zeros(1))

    for cls in (Bad, BadT):
        with pytest.raises(AttributeError, match="before Module.__init__"):
            cls()


def test_module_init_rejects_arguments():
    for lib in (graphgrad, torch):
        with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
            lib.nn.Module(x=1)
        with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
            lib.nn.Module(1)


def test_reassign_between_kinds():
    def program(lib):
        nn = lib.nn
        m = nn.Module()
        m.x = nn.Parameter(lib.zeros(1))
        a = names(m.named_parameters())
        try:
            m.x = nn.Module()                          # parameter -> module: TypeError
        except TypeError as e:
            a = (a, type(e).__name__)
        del m.x
        m.x = nn.Module()
        b = (names(m.named_parameters()), names(m.named_children()), list(m._parameters))
        try:
            m.x = nn.Buffer(lib.ones(1), persistent=False)  # module slot -> buffer: TypeError
        except TypeError as e:
            b = (b, type(e).__name__)
        m.x = None
        del m.x
        m.x = nn.Buffer(lib.ones(1), persistent=False)
        c = (names(m.named_children()), names(m.named_buffers()), list(m.state_dict()))
        m.x = nn.Parameter(lib.ones(1))                # buffer -> parameter
        d = (names(m.named_buffers()), names(m.named_parameters()),
             sorted(m._non_persistent_buffers_set))
        m.x = None                                     # parameter slot -> None
        e = (m.x, names(m.named_parameters()), list(m.state_dict()))
        del m.x
        f = ("x" in m._parameters, hasattr(m, "x"))
        m.register_buffer("b", lib.ones(1))
        m.b = lib.zeros(2)                             # a tensor to a buffer slot: re-registered
        m.b = None
        g = (m.b, list(m.state_dict()), names(m.named_buffers()))
        m.plain = 1
        del m.plain
        return a, b, c, d, e, f, g, hasattr(m, "plain")
    run_both(program)


def test_getattr_error_names_module_and_attribute():
    def program(lib):
        return build_modules(lib).Linear(2, 2).nope
    run_both(program)
    with pytest.raises(AttributeError, match="'LinearForTests' object has no attribute 'nope'"):
        build_modules(graphgrad).Linear(2, 2).nope


@pytest.mark.parametrize("target", ["", "fc1", "norm", "fc1.weight", "nope", "fc1.nope",
                                    "norm.running_mean", "norm.scratch", "fc1.in_features"])
def test_get_submodule_parameter_buffer(target):
    def sub(lib):
        m = build_modules(lib).MLP()
        return type(m.get_submodule(target)).__name__

    def param(lib):
        m = build_modules(lib).MLP()
        return m.get_parameter(target)

    def buf(lib):
        m = build_modules(lib).MLP()
        return m.get_buffer(target)

    for prog in (sub, param, buf):
        ours, theirs = run_both(prog)
        if hasattr(ours, "exc"):
            assert str(ours.exc) == str(theirs.exc)


def test_set_submodule():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        m.set_submodule("fc1", ns.Linear(3, 4, seed=9))
        m.set_submodule("norm.extra", ns.ReLU())
        out = [names(m.named_modules())]
        for target, strict in (("", False), ("norm.nothing", True), ("fc1.weight", False)):
            try:
                m.set_submodule(target, ns.ReLU(), strict=strict)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        return out
    run_both(program)


def test_dir_lists_registered_names():
    def program(lib):
        m = build_modules(lib).MLP()
        d = dir(m)
        return [k in d for k in ("fc1", "norm", "forward", "training", "_parameters")]
    run_both(program)


# ---------------------------------------------------------------- modes, grads
def test_train_eval_and_training_flag():
    def program(lib):
        m = build_modules(lib).MLP()
        a = [x.training for x in m.modules()]
        r = m.eval()
        b = [x.training for x in m.modules()]
        m.fc1.train()
        c = [x.training for x in m.modules()]
        return a, b, c, r is m
    run_both(program)

    def bad(lib):
        build_modules(lib).MLP().train("yes")
    run_both(bad)


def test_requires_grad_and_zero_grad():
    def program(lib):
        m = build_modules(lib).MLP()
        x = fixed(lib, 5, 3)
        m(x).sum().backward()
        g1 = [p.grad.clone() for p in m.parameters()]
        m.zero_grad(set_to_none=False)
        g2 = [p.grad for p in m.parameters()]
        m.zero_grad()
        g3 = [p.grad for p in m.parameters()]
        m.fc1.requires_grad_(False)
        m(x).sum().backward()
        g4 = [p.grad is None for p in m.parameters()]
        return g1, g2, g3, g4, [p.requires_grad for p in m.parameters()]
    run_both(program)


def test_zero_grad_detaches_a_grad_with_history():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        x = fixed(lib, 3, 2)
        (g,) = lib.autograd.grad(m(x).pow(2).sum(), [m.weight], create_graph=True)
        m.weight.grad = g * 1
        gg = m.weight.grad
        m.zero_grad(set_to_none=False)
        return m.weight.grad, gg.grad_fn, m.weight.grad is gg
        return m.weight.grad
    run_both(program)


def test_apply_visits_children_first():
    def program(lib):
        seen = []
        m = build_modules(lib).MLP()
        r = m.apply(lambda mod: seen.append(type(mod).__name__))
        return seen, r is m
    run_both(program)


@pytest.mark.parametrize("conv", ["float", "double", "half", "bfloat16", "to_float32",
                                  "to_float16", "to_tensor", "to_kw", "to_cpu"])
def test_dtype_conversion_keeps_parameter_objects(conv):
    def program(lib):
        m = build_modules(lib).MLP()
        m(fixed(lib, 4, 3)).sum().backward()
        before = list(m.parameters())
        if conv.startswith("to_"):
            arg = conv[3:]
            if arg == "tensor":
                r = m.to(lib.zeros(1, dtype=lib.float16))
            elif arg == "kw":
                r = m.to(dtype=lib.float32, device="cpu")
            elif arg == "cpu":
                r = m.to("cpu")
            else:
                r = m.to(getattr(lib, arg))
        else:
            r = getattr(m, conv)()
        after = list(m.parameters())
        return (r is m, all(a is b for a, b in zip(before, after)),
                [type(p).__name__ for p in after], [p.dtype for p in after],
                [p.grad.dtype for p in after], [b.dtype for b in m.buffers()],
                [p.requires_grad and p.is_leaf for p in after],
                m.state_dict())
    run_both(program)


def test_to_rejects_integer_dtype():
    def program(lib):
        build_modules(lib).MLP().to(lib.int64)
    run_both(program)


# ---------------------------------------------------------------- state_dict
def test_state_dict_keys_values_metadata():
    def program(lib):
        m = build_modules(lib).MLP()
        m(fixed(lib, 4, 3))
        sd = m.state_dict()
        sdk = m.state_dict(keep_vars=True)
        sdp = m.state_dict(prefix="model.")
        return (type(sd).__name__, sd, list(sd._metadata.items()),
                [t.requires_grad for t in sd.values()],
                [t.requires_grad for t in sdk.values()],
                list(sdp.keys()), list(sdp._metadata.keys()),
                sdk["fc1.weight"] is m.fc1.weight,
                np.shares_memory(np.asarray(sd["fc1.weight"].numpy()),
                                 np.asarray(m.fc1.weight.detach().numpy())))
    run_both(program)


def test_state_dict_positional_args_warn():
    for lib in (graphgrad, torch):
        m = build_modules(lib).Linear(2, 2)
        with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
            d = m.state_dict({}, "p.")
        assert list(d) == ["p.weight", "p.bias"]


def test_state_dict_extra_state_and_hooks():
    def program(lib):
        calls = []

        class WithExtra(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(2))
                self.step = 3

            def get_extra_state(self):
                return {"step": self.step}

            def set_extra_state(self, state):
                self.step = state["step"]

        m = lib.nn.Module()
        m.a = WithExtra()
        m.register_state_dict_pre_hook(lambda mod, prefix, kv: calls.append(("pre", prefix, kv)))
        m.a.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: calls.append(("post", prefix, list(sd), meta)))
        sd = m.state_dict()
        sd2 = OrderedDict(sd)
        sd2["a._extra_state"] = {"step": 7}
        r = m.load_state_dict(sd2)
        del sd2["a._extra_state"]
        try:
            m.load_state_dict(sd2)
        except RuntimeError as e:
            err = str(e)
        return list(sd), sd["a._extra_state"], calls, m.a.step, repr(r), err
    run_both(program)


def test_state_dict_post_hook_must_return_none():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        m.register_state_dict_post_hook(lambda *a: {})
        m.state_dict()
    run_both(program)


def test_private_state_dict_hook_can_replace_result():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
        return m.state_dict()
    run_both(program)


def test_load_state_dict_round_trip_copies_in_place():
    def program(lib):
        ns = build_modules(lib)
        src = ns.MLP()
        src(fixed(lib, 4, 3))
        dst = ns.MLP()
        for p in dst.parameters():
            with lib.no_grad():
                p.mul_(0)
        w = dst.fc1.weight
        r = dst.load_state_dict(src.state_dict())
        return (repr(r), r.missing_keys, r.unexpected_keys, dst.state_dict(),
                dst.fc1.weight is w, w.requires_grad, type(w).__name__,
                w._version if lib is torch else w._version)
    ours, theirs = run_both(program)
    assert ours[0] == "<All keys matched successfully>"


def test_load_state_dict_missing_unexpected_strict_and_not():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        sd = m.state_dict()
        del sd["fc1.bias"]
        sd["fc1.extra"] = lib.zeros(1)
        sd["nothere.weight"] = lib.zeros(1)
        sd["norm.scratch"] = lib.zeros(4)      # non-persistent: unexpected
        r = m.load_state_dict(sd, strict=False)
        try:
            m.load_state_dict(sd)
        except RuntimeError as e:
            err = str(e)
        return r.missing_keys, r.unexpected_keys, repr(r), err
    run_both(program)


def test_load_state_dict_errors_size_type():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        sd = m.state_dict()
        sd["fc1.weight"] = lib.zeros(3, 3, dtype=lib.float64)
        sd["fc2.bias"] = [1.0, 2.0]
        try:
            m.load_state_dict(sd)
        except RuntimeError as e:
            return norm_repr(str(e)).replace("<class 'list'>", "list")
    ours, theirs = run_both(program)
    assert ours == theirs
    assert "size mismatch for fc1.weight" in ours


def test_load_state_dict_not_a_mapping():
    def program(lib):
        build_modules(lib).MLP().load_state_dict([("a", 1)])
    run_both(program)


def test_failed_load_state_dict_leaves_module_unchanged():
    # PyTorch copies the matching tensors before raising; graphgrad restores them
    # (docs/differences.md, "nn.Module")
    ns = build_modules(graphgrad)
    m = ns.MLP()
    m(fixed(graphgrad, 4, 3))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    params = dict(m.named_parameters())
    sd = {k: v + 1 for k, v in m.state_dict().items()}
    del sd["fc2.bias"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "fc2.bias"'):
        m.load_state_dict(sd)
    for k, v in m.state_dict().items():
        assert np.array_equal(v.numpy(), before[k].numpy()), k
    assert dict(m.named_parameters()) == params
    # also with assign=True and a size mismatch
    sd = {k: v + 1 for k, v in m.state_dict().items()}
    sd["fc2.bias"] = graphgrad.zeros(5, dtype=graphgrad.float64)
    with pytest.raises(RuntimeError, match="size mismatch for fc2.bias"):
        m.load_state_dict(sd, assign=True)
    assert all(a is b for a, b in zip(m.parameters(), params.values()))
    for k, v in m.state_dict().items():
        assert np.array_equal(v.numpy(), before[k].numpy()), k


def test_load_state_dict_assign():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        m.fc2.requires_grad_(False)
        src = ns.MLP().float().state_dict()
        w_old = m.fc1.weight
        m.load_state_dict(src, assign=True)
        return (m.fc1.weight is w_old, m.fc1.weight is src["fc1.weight"],
                type(m.fc1.weight).__name__, m.fc1.weight.dtype, m.fc2.weight.requires_grad,
                m.fc1.weight.requires_grad, m.norm.running_mean is src["norm.running_mean"])
    run_both(program)


def test_load_state_dict_scalar_from_one_element():
    def program(lib):
        m = lib.nn.Module()
        m.register_buffer("n", lib.tensor(0))
        m.load_state_dict({"n": lib.tensor([5])})
        return m.n
    run_both(program)


def test_load_state_dict_dtype_cast_and_hooks():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        calls = []
        m.fc1.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, meta, strict, mk, uk, em: calls.append(
                ("pre", type(mod).__name__, prefix, sorted(sd), strict)))
        m.register_load_state_dict_post_hook(
            lambda mod, keys: calls.append(("post", type(mod).__name__, list(keys.missing_keys))))
        m.fc1.register_load_state_dict_post_hook(
            lambda mod, keys: calls.append(("post1", list(keys.missing_keys))))
        sd = {k: v.float() for k, v in ns.MLP().state_dict().items()}
        sd.pop("fc2.weight")
        r = m.load_state_dict(sd, strict=False)
        return calls, m.fc1.weight.dtype, m.fc1.weight, r.missing_keys
    run_both(program)


def test_load_state_dict_post_hook_must_not_return():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)
        m.register_load_state_dict_post_hook(lambda mod, keys: 1)
        m.load_state_dict(m.state_dict())
    run_both(program)


def test_load_state_dict_post_hook_can_clear_keys():
    def program(lib):
        m = build_modules(lib).Linear(2, 2)

        def hook(mod, keys):
            keys.missing_keys.clear()
        m.register_load_state_dict_post_hook(hook)
        return repr(m.load_state_dict({"weight": lib.zeros(2, 2, dtype=lib.float64)}))
    run_both(program)


def test_none_parameter_and_buffer_are_skipped():
    def program(lib):
        m = build_modules(lib).Linear(2, 2, bias=False)
        m.register_buffer("nb", None)
        r = m.load_state_dict({"weight": lib.ones(2, 2, dtype=lib.float64)})
        return (list(m.state_dict()), names(m.named_parameters()), m.bias,
                names(m.named_buffers()), repr(r), "bias" in m._parameters)
    run_both(program)


# ---------------------------------------------------------------- calling, repr, copies
def test_forward_not_implemented():
    def program(lib):
        lib.nn.Module()(1)
    run_both(program)
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required '
                                                  '"forward" function'):
        graphgrad.nn.Module()(1)


def test_call_forwards_args_and_kwargs_and_grads():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        x = fixed(lib, 5, 3).requires_grad_()
        y = m(x)
        y.pow(2).sum().backward()
        return y, x.grad, [p.grad for p in m.parameters()], m.norm.running_mean, m.norm.count
    run_both(program)


def test_repr_nested_and_extra_repr():
    def program(lib):
        ns = build_modules(lib)
        m = ns.MLP()
        m.act = ns.ReLU(inplace=True)
        m.empty = lib.nn.Module()
        m.none = None

        class Multi(lib.nn.Module):
            def extra_repr(self):
                return "a=1\nb=2"
        m.multi = Multi()
        m.multi.inner = ns.Linear(1, 1, bias=False)
        return repr(m), str(m.fc1), repr(ns.Linear(2, 3)), repr(Multi()), repr(lib.nn.Module())
    run_both(program)


def test_deepcopy_and_pickle_modules():
    def program(lib):
        m = build_modules(lib).MLP()
        m(fixed(lib, 4, 3)).sum().backward()
        c = copy.deepcopy(m)
        same = [a is b for a, b in zip(m.parameters(), c.parameters())]
        c.fc1.weight.data.mul_(2)
        return (same, m.fc1.weight, c.fc1.weight, type(c.fc1.weight).__name__,
                c.fc1.weight.grad, c.state_dict().keys() == m.state_dict().keys())
    run_both(program)
    m = build_modules(graphgrad).Linear(2, 2)
    h = m.register_forward_hook(lambda *a: None)
    c = copy.deepcopy(m)  # (hooks are copied along; a lambda hook cannot be pickled)
    assert len(c._forward_hooks) == 1
    h.remove()


def test_pickle_round_trip_module_graphgrad():
    m = graphgrad.nn.Sequential(graphgrad.nn.Module())
    m.w = graphgrad.nn.Parameter(graphgrad.arange(3.0))
    m.register_buffer("b", graphgrad.ones(2), persistent=False)
    c = pickle.loads(pickle.dumps(m))
    assert type(c.w) is graphgrad.nn.Parameter and c.w.requires_grad
    assert c.w.tolist() == [0.0, 1.0, 2.0]
    assert list(c.state_dict()) == ["w"]
    assert names(c.named_buffers()) == ["b"]


def test_incompatible_keys_tuple():
    for lib in (graphgrad, torch):
        r = build_modules(lib).Linear(2, 2).load_state_dict(
            {"weight": lib.zeros(2, 2, dtype=lib.float64)}, strict=False)
        mk, uk = r
        assert mk == ["bias"] and uk == []
        assert repr(r) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"


def test_call_without_hooks_goes_straight_to_forward(monkeypatch):
    # the per-call cost of a hookless module is the hook-dict checks and forward itself
    # (measured: ~1.0 us per call here vs ~2.6 us for PyTorch's Module.__call__)
    def boom(self, *a, **k):
        raise AssertionError("_call_impl entered without hooks")

    m = build_modules(graphgrad).MLP()
    monkeypatch.setattr(graphgrad.nn.Module, "_call_impl", boom)
    m(fixed(graphgrad, 2, 3))
    h = m.fc1.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="_call_impl entered"):
        m(fixed(graphgrad, 2, 3))
    h.remove()
    m(fixed(graphgrad, 2, 3))
    g = graphgrad.nn.modules.module.register_module_forward_pre_hook(lambda *a: None)
    try:
        with pytest.raises(AssertionError, match="_call_impl entered"):
            m(fixed(graphgrad, 2, 3))
    finally:
        g.remove()
    m(fixed(graphgrad, 2, 3))


def test_to_memory_format_and_bad_device():
    def program(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(fixed(lib, 2, 3, 4, 5))
        m.v = lib.nn.Parameter(fixed(lib, 3, 4))
        w = m.w
        m.to(memory_format=lib.channels_last)
        a = (m.w.stride(), m.v.stride(), m.w is w)
        m.to(lib.float32, memory_format=lib.channels_last)
        return a, m.w.stride(), m.w.dtype, m.w
    run_both(program)

    def cuda(lib):
        build_modules(lib).Linear(2, 2).to("cuda")
    run_both(cuda)

    def cuda2(lib):
        build_modules(lib).Linear(2, 2).cuda()
    run_both(cuda2)


def test_private_load_state_dict_pre_hook_with_and_without_module():
    def program(lib):
        calls = []
        m = build_modules(lib).Linear(2, 2)
        m._register_load_state_dict_pre_hook(
            lambda sd, prefix, meta, strict, mk, uk, em: calls.append(("plain", sorted(sd))))
        m._register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *rest: calls.append(("with", type(mod).__name__)), True)

        def add_error(mod, sd, prefix, meta, strict, mk, uk, em):
            em.append("custom problem")
        h = m.register_load_state_dict_pre_hook(add_error)
        try:
            m.load_state_dict(m.state_dict())
        except RuntimeError as e:
            calls.append(str(e))
        h.remove()
        m.load_state_dict(m.state_dict())
        return calls
    run_both(program)


def test_call_super_init_cooperative_inheritance():
    def program(lib):
        class Mixin:
            def __init__(self, *args, tag=None, **kwargs):
                self.tag = tag
                super().__init__(*args, **kwargs)

        class M(lib.nn.Module, Mixin):
            call_super_init = True

        m = M(tag="x")
        return m.tag, m.training
    run_both(program)


@pytest.mark.parametrize("dst", ["float64", "DoubleTensor", "torch.DoubleTensor",
                                 "torch.HalfTensor", "torch.Blah", "Blah",
                                 "torch.cuda.FloatTensor"])
def test_module_type(dst):
    def program(lib):
        m = build_modules(lib).MLP()
        w = m.fc1.weight
        if dst in ("float64", "DoubleTensor"):
            arg = getattr(lib, dst)
        else:
            arg = dst
        r = m.type(arg)
        return r is m, m.fc1.weight is w, [t.dtype for t in m.state_dict().values()]
    run_both(program)


@pytest.mark.parametrize("seed", range(25))
def test_random_registration_sequences(seed):
    # a random sequence of registrations, reassignments, deletions and sharing on a small
    # module tree; after each step both libraries must list the same names everywhere
    import random

    def program(lib):
        rng = random.Random(seed)
        nn = lib.nn
        mods = [nn.Module()]
        trace = []
        for step in range(30):
            m = rng.choice(mods)
            name = rng.choice("abcdef")
            op = rng.randrange(9)
            try:
                if op == 0:
                    setattr(m, name, nn.Parameter(lib.full((2,), float(step))))
                elif op == 1:
                    m.register_buffer(name, lib.full((1,), float(step)),
                                      persistent=rng.random() < 0.6)
                elif op == 2:
                    sub = nn.Module()
                    setattr(m, name, sub)
                    mods.append(sub)
                elif op == 3:
                    setattr(m, name, None)
                elif op == 4:
                    delattr(m, name)
                elif op == 5:                       # share another module's child/param
                    other = rng.choice(mods)
                    if other is not m and other not in list(m.modules()) and \
                            m not in list(other.modules()):
                        setattr(m, name, other)
                elif op == 6:
                    ps = list(rng.choice(mods).parameters())
                    if ps:
                        setattr(m, name, rng.choice(ps))
                elif op == 7:
                    setattr(m, name, lib.zeros(1))  # a plain tensor (or into a buffer slot)
                else:
                    setattr(m, name, nn.Buffer(lib.ones(1), persistent=rng.random() < 0.5))
                outcome = "ok"
            except Exception as e:  # noqa: BLE001
                outcome = type(e).__name__
            root = mods[0]
            trace.append((op, name, outcome,
                          [n for n, _ in root.named_parameters()],
                          [n for n, _ in root.named_parameters(remove_duplicate=False)],
                          [n for n, _ in root.named_buffers()],
                          [n for n, _ in root.named_modules()],
                          [n for n, _ in root.named_modules(remove_duplicate=False)],
                          list(root.state_dict().keys())))
        return trace
    run_both(program)
