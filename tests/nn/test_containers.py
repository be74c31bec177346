"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against PyTorch: keys,
indexing, slicing, mutation, forward, state_dict keys and repr."""
from __future__ import annotations

from collections import OrderedDict

import pytest

import graphgrad
from tests.conftest import run_both, torch
from tests.nn.module_test_helpers import build_modules, fixed, norm_repr


def names(it):
    return [n for n, _ in it]


def kinds(mods):
    return [type(m).__name__ for m in mods]


def seq(lib, n=3):
    ns = build_modules(lib)
    layers = [ns.Linear(3, 3, seed=i) if i % 2 == 0 else ns.ReLU() for i in range(n)]
    return lib.nn.Sequential(*layers)


# ---------------------------------------------------------------- Sequential
def test_sequential_forward_grads_and_keys():
    def program(lib):
        s = seq(lib, 5)
        x = fixed(lib, 2, 3).requires_grad_()
        y = s(x)
        y.sum().backward()
        return y, x.grad, list(s.state_dict()), [p.grad for p in s.parameters()], len(s)
    run_both(program)


def test_sequential_ordered_dict_and_indexing():
    def program(lib):
        ns = build_modules(lib)
        s = lib.nn.Sequential(OrderedDict([("fc", ns.Linear(2, 2)), ("act", ns.ReLU()),
                                           ("out", ns.Linear(2, 1))]))
        out = [list(s.state_dict()), type(s[0]).__name__, type(s[-1]).__name__,
               s.fc is s[0], names(s.named_children())]
        sub = s[1:]
        out += [type(sub).__name__, names(sub.named_children()), sub[0] is s[1]]
        out += [names(s[::-1].named_children()), names(s[5:].named_children())]
        for bad in (3, -4):
            try:
                s[bad]
            except IndexError as e:
                out.append(str(e))
        try:
            s["fc"]
        except TypeError as e:
            out.append("TypeError")
        return out
    run_both(program)


def test_sequential_mutation():
    def program(lib):
        ns = build_modules(lib)
        s = seq(lib, 3)
        log = []
        s.append(ns.ReLU())
        log.append(kinds(s))
        s[1] = ns.Linear(3, 3, seed=7)
        log.append(kinds(s))
        del s[0]
        log.append((kinds(s), list(s._modules)))
        s.insert(1, ns.ReLU(inplace=True))
        s.insert(-1, ns.Linear(3, 3))
        log.append((kinds(s), list(s._modules)))
        s.extend([ns.ReLU()])
        popped = s.pop(0)
        log.append((type(popped).__name__, kinds(s), list(s._modules)))
        del s[1:3]
        log.append((kinds(s), list(s._modules)))
        for bad in (lambda: s.insert(10, ns.ReLU()), lambda: s.insert(0, 3)):
            try:
                bad()
            except (IndexError, AssertionError) as e:
                log.append(type(e).__name__)
        return log, repr(s)
    run_both(program)


def test_sequential_add_mul():
    def program(lib):
        a, b = seq(lib, 2), seq(lib, 1)
        c = a + b
        out = [kinds(c), list(c._modules), c[0] is a[0]]
        a += b
        out.append(kinds(a))
        m = b * 3
        out += [kinds(m), list(m._modules), m[0] is m[1], kinds(2 * b)]
        b *= 2
        out.append((kinds(b), list(b._modules)))
        for bad in (lambda: a + [1], lambda: b * 0, lambda: b * 1.5):
            try:
                bad()
            except (TypeError, ValueError) as e:
                out.append(type(e).__name__)
        return out, names(m.named_parameters()), names(m.named_modules())
    run_both(program)


def test_sequential_empty_and_dir():
    def program(lib):
        s = lib.nn.Sequential()
        x = lib.ones(2)
        return s(x), len(s), repr(s), "0" in dir(seq(lib))
    run_both(program)


# ---------------------------------------------------------------- ModuleList
def test_module_list_operations():
    def program(lib):
        ns = build_modules(lib)
        ml = lib.nn.ModuleList([ns.Linear(2, 2, seed=i) for i in range(3)])
        out = [len(ml), list(ml._modules), type(ml[-1]).__name__, kinds(ml[1:])]
        ml.append(ns.ReLU())
        ml.extend([ns.ReLU(), ns.Linear(2, 2)])
        ml.insert(1, ns.ReLU(inplace=True))
        out.append(kinds(ml))
        ml[0] = ns.Linear(2, 2, seed=9)
        del ml[2]
        out.append((kinds(ml), list(ml._modules)))
        del ml[::2]
        out.append((kinds(ml), list(ml._modules)))
        p = ml.pop(-1)
        out.append((type(p).__name__, kinds(ml)))
        ml += [ns.ReLU()]
        combined = ml + lib.nn.ModuleList([ns.ReLU()])
        out.append((kinds(combined), list(combined._modules)))
        for bad in (lambda: ml[10], lambda: ml.extend(3)):
            try:
                bad()
            except (IndexError, TypeError) as e:
                out.append((type(e).__name__, str(e)))
        return out, list(ml.state_dict()), names(ml.named_parameters())
    run_both(program)


def test_module_list_forward_not_defined_and_repr_blocks():
    def program(lib):
        ns = build_modules(lib)
        ml = lib.nn.ModuleList([ns.Linear(2, 2), ns.Linear(2, 2), ns.Linear(2, 2), ns.ReLU(),
                                ns.Linear(2, 2), ns.ReLU(), ns.ReLU()])
        nested = lib.nn.ModuleList([lib.nn.Sequential(ns.Linear(1, 1), ns.ReLU())] * 2)
        return repr(ml), repr(nested), repr(lib.nn.ModuleList())
    run_both(program)

    def call(lib):
        lib.nn.ModuleList()(1)
    run_both(call)


# ---------------------------------------------------------------- ModuleDict
def test_module_dict_operations():
    def program(lib):
        ns = build_modules(lib)
        md = lib.nn.ModuleDict({"b": ns.Linear(2, 2), "a": ns.ReLU()})
        out = [list(md.keys()), list(md), kinds(md.values()), [k for k, _ in md.items()],
               "a" in md, len(md)]
        md["c"] = ns.Linear(2, 1)
        md.update([("d", ns.ReLU()), ("a", ns.Linear(1, 1))])
        md.update(OrderedDict(e=ns.ReLU()))
        out.append((list(md.keys()), kinds(md.values())))
        p = md.pop("b")
        del md["d"]
        out.append((type(p).__name__, list(md.keys()), list(md.state_dict())))
        for bad in (lambda: md.update(3), lambda: md.update([("x",)]),
                    lambda: md.update([3]), lambda: md["nope"]):
            try:
                bad()
            except (TypeError, ValueError, KeyError) as e:
                out.append(type(e).__name__)
        r = repr(md)
        md.clear()
        return out, r, len(md)
    run_both(program)


# ---------------------------------------------------------------- ParameterList / Dict
def test_parameter_list():
    def program(lib):
        pl = lib.nn.ParameterList([lib.nn.Parameter(fixed(lib, 2)), fixed(lib, 3).float(),
                                   "not a tensor"])
        out = [len(pl), [type(p).__name__ for p in pl], names(pl.named_parameters()),
               pl[1].requires_grad, list(pl.state_dict())]
        pl.append(fixed(lib, 1, 2))
        pl.extend([lib.zeros(1, dtype=lib.int64).float()])
        pl[0] = fixed(lib, 4)
        out.append((len(pl), names(pl.named_parameters()), type(pl[0]).__name__))
        sub = pl[1:3]
        out.append((type(sub).__name__, len(sub), sub[0] is pl[1]))
        for bad in (lambda: pl[10], lambda: pl.extend(fixed(lib, 2)), lambda: pl(1)):
            try:
                bad()
            except (IndexError, TypeError, RuntimeError) as e:
                out.append((type(e).__name__, str(e)))
        return out, norm_repr(repr(pl))
    run_both(program)


def test_parameter_list_grads():
    def program(lib):
        pl = lib.nn.ParameterList([fixed(lib, 3), fixed(lib, 3, seed=2)])
        (pl[0] * pl[1]).sum().backward()
        return [p.grad for p in pl]
    run_both(program)


def test_parameter_dict():
    def program(lib):
        pd = lib.nn.ParameterDict({"b": fixed(lib, 2), "a": lib.nn.Parameter(fixed(lib, 3))})
        out = [list(pd.keys()), names(pd.named_parameters()), len(pd), "a" in pd,
               type(pd["b"]).__name__]
        pd["c"] = fixed(lib, 1, 2)
        pd.update([("d", fixed(lib, 2, 2)), ("e", "text")])
        pd.update(OrderedDict(z=fixed(lib, 1), y=fixed(lib, 1)))
        out.append((list(pd.keys()), names(pd.named_parameters())))
        out.append((pd.get("nope", 5), pd.setdefault("f", fixed(lib, 3)).shape,
                    list(reversed(pd))))
        k, v = pd.popitem()
        p = pd.pop("a")
        del pd["b"]
        out.append((k, type(v).__name__, type(p).__name__, list(pd.keys())))
        c = pd.copy()
        out.append((list(c.keys()), c["c"] is pd["c"]))
        merged = pd | lib.nn.ParameterDict({"m": fixed(lib, 1)})
        out.append(list(merged.keys()))
        pd |= {"n": fixed(lib, 1)}
        out.append(list(pd.keys()))
        out.append(list(pd.fromkeys(["q", "r"]).keys()))
        for bad in (lambda: pd[3], lambda: pd.update(3), lambda: pd.update([("x",)]),
                    lambda: pd(1), lambda: pd["missing"]):
            try:
                bad()
            except (TypeError, ValueError, RuntimeError, KeyError, AttributeError) as e:
                out.append(type(e).__name__)
        r = norm_repr(repr(pd))
        pd.clear()
        return out, r, len(pd), list(pd.state_dict())
    run_both(program)


def test_container_state_dict_round_trip():
    def program(lib):
        ns = build_modules(lib)

        def build():
            m = lib.nn.Module()
            m.layers = lib.nn.ModuleList([ns.Linear(2, 2, seed=i) for i in range(2)])
            m.heads = lib.nn.ModuleDict({"x": ns.Linear(2, 1, seed=5)})
            m.extra = lib.nn.ParameterList([fixed(lib, 2)])
            m.table = lib.nn.ParameterDict({"t": fixed(lib, 3)})
            m.seq = lib.nn.Sequential(ns.Norm(2))
            return m
        a, b = build(), build()
        for p in b.parameters():
            with lib.no_grad():
                p.zero_()
        r = b.load_state_dict(a.state_dict())
        return list(a.state_dict()), b.state_dict(), repr(r), norm_repr(repr(a))
    run_both(program)


def test_container_deprecated():
    for lib in (graphgrad, torch):
        with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
            c = lib.nn.Container(a=lib.nn.Module())
        assert list(c._modules) == ["a"]
