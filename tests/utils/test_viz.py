"""graphgrad.utils.viz: make_dot draws graphgrad's backward graph as torchviz draws torch's
(labels, colours and edges compared with a torchviz-style walk of torch's grad_fn graph for
the same program, addresses excluded), plus graphgrad's extras; plot_grad_flow on Agg."""
import collections
import re

import pytest

import graphgrad

graphviz = pytest.importorskip("graphviz")

from graphgrad.utils.viz import make_dot, plot_grad_flow, render_dot  # noqa: E402

_NODE = re.compile(r'^\t(\d+) \[(.*)\]$', re.S)
_EDGE = re.compile(r'^\t(\d+) -> (\d+)(?: \[(.*)\])?$', re.S)
_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def _attrs(s):
    out = {}
    for k, v in _ATTR.findall(s or ""):
        out[k] = v[1:-1] if v.startswith('"') else v
    return out


def _parse(dot):
    """({id: attrs}, [(src, dst, attrs)]) from a Digraph's statements (a node declared
    twice merges its attributes, later ones winning, as Graphviz does)."""
    nodes, edges = {}, []
    for line in dot.body:
        line = line.rstrip("\n")
        m = _EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2), _attrs(m.group(3))))
            continue
        m = _NODE.match(line)
        assert m, line
        nodes.setdefault(m.group(1), {}).update(_attrs(m.group(2)))
    return nodes, edges


def _canon(nodes, edges):
    """Address-free form: multisets of (label, fillcolor) and of labelled edges."""
    def lab(i):
        a = nodes[i]
        return (a.get("label"), a.get("fillcolor"))
    ns = collections.Counter(lab(i) for i in nodes)
    es = collections.Counter((lab(s), lab(d), a.get("dir"), a.get("style")) for s, d, a in edges)
    return ns, es


def _torch_expected(torch, var, params=None, show_saved=False):
    """What torchviz draws for torch's graph of ``var``: walks grad_fn.next_functions,
    AccumulateGrad.variable, ``_saved_*`` attributes and view bases."""
    pmap = {id(v): k for k, v in (params or {}).items()}
    nodes, edges, seen = {}, [], set()

    def size(t):
        return "(" + ", ".join(str(d) for d in t.size()) + ")"

    def vlabel(t, name=None):
        return "%s\n %s" % (name or pmap.get(id(t), ""), size(t))

    def node(obj, label, color=None):
        a = nodes.setdefault(str(id(obj)), {})
        a["label"] = label
        if color:
            a["fillcolor"] = color

    def edge(a, b, **kw):
        edges.append((str(id(a)), str(id(b)), kw))

    def walk(fn):
        if id(fn) in seen:
            return
        seen.add(id(fn))
        if show_saved:
            for attr in dir(fn):
                if attr.startswith("_saved_"):
                    val = getattr(fn, attr)
                    if torch.is_tensor(val):
                        edge(fn, val, dir="none")
                        node(val, vlabel(val, attr[7:]), "orange")
        if hasattr(fn, "variable"):
            edge(fn.variable, fn)
            node(fn.variable, vlabel(fn.variable), "lightblue")
        node(fn, type(fn).__name__)
        for u, _ in fn.next_functions:
            if u is not None:
                edge(u, fn)
                walk(u)

    def base(t, color="darkolivegreen1"):
        if id(t) in seen:
            return
        seen.add(id(t))
        node(t, vlabel(t), color)
        if t.grad_fn is not None:
            walk(t.grad_fn)
            edge(t.grad_fn, t)
        if t._is_view():
            base(t._base, "darkolivegreen3")
            edge(t._base, t, style="dotted")

    for v in (var if isinstance(var, tuple) else (var,)):
        base(v)
    return _canon(nodes, edges)


def _prog_mlp(lib):
    lib.manual_seed(0)
    x = lib.randn(4, 3, dtype=lib.float64)
    w1 = lib.randn(3, 5, dtype=lib.float64, requires_grad=True)
    b1 = lib.zeros(5, dtype=lib.float64, requires_grad=True)
    w2 = lib.randn(5, 2, dtype=lib.float64, requires_grad=True)
    h = (x @ w1 + b1).tanh()
    y = (h @ w2).sin().sum()
    return y, {"w1": w1, "b1": b1, "w2": w2}


def _prog_views(lib):
    a = lib.randn(6, dtype=lib.float64, requires_grad=True)
    b = a * 2
    v = b.view(2, 3)
    return (v.exp(), v[0]), {"a": a}


def _prog_shared(lib):
    a = lib.randn(3, dtype=lib.float64, requires_grad=True)
    b = a.sigmoid()
    c = b * b + a
    return c.mean(), None


@pytest.mark.parametrize("prog", [_prog_mlp, _prog_views, _prog_shared])
@pytest.mark.parametrize("show_saved", [False, True])
@pytest.mark.parametrize("named", [False, True])
def test_make_dot_matches_torchviz_conventions(torch, prog, show_saved, named):
    out, params = prog(graphgrad)
    t_out, t_params = prog(torch)
    dot = make_dot(out, params=params if named else None, show_saved=show_saved, extras=False)
    assert isinstance(dot, graphviz.Digraph)
    got = _canon(*_parse(dot))
    want = _torch_expected(torch, t_out, t_params if named else None, show_saved)
    assert got == want


def test_make_dot_param_names_and_colours(torch):
    out, params = _prog_mlp(graphgrad)
    nodes, _ = _parse(make_dot(out, params=params))
    blue = sorted(a["label"] for a in nodes.values() if a.get("fillcolor") == "lightblue")
    assert blue == ["b1\n (5)", "w1\n (3, 5)", "w2\n (5, 2)"]
    green = [a["label"] for a in nodes.values() if a.get("fillcolor") == "darkolivegreen1"]
    assert green == ["\n ()"]
    grey = sorted(a["label"] for a in nodes.values() if "fillcolor" not in a)
    t_out, _ = _prog_mlp(torch)
    want = []
    stack, seen = [t_out.grad_fn], set()
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        want.append(type(fn).__name__)
        stack.extend(u for u, _ in fn.next_functions if u is not None)
    assert grey == sorted(want)


def test_make_dot_show_attrs_matches_torch():
    a = graphgrad.randn(3, dtype=graphgrad.float64, requires_grad=True)
    nodes, _ = _parse(make_dot(a.sum(), show_attrs=True))
    labels = [n["label"] for n in nodes.values() if "fillcolor" not in n]
    # torchviz on torch: SumBackward0 saves self_sym_sizes
    assert "SumBackward0\n--------------------\nself_sym_sizes: (3,)" in labels


def test_make_dot_bad_input():
    with pytest.raises(TypeError, match="params"):
        make_dot(graphgrad.ones(2, requires_grad=True).sum(), params=[1, 2])
    with pytest.raises(TypeError, match="tensor"):
        make_dot([1, 2])


def test_make_dot_extras_hooks_retained_and_stale_saved():
    a = graphgrad.randn(3, dtype=graphgrad.float64, requires_grad=True)
    a.register_hook(lambda g: g)
    b = a * 2
    b.retain_grad()
    c = b.exp()
    out = c.sum()
    b.add_(1)   # c's grad_fn saved its result; b's in-place bump does not stale that
    d = (b * b).sum()
    b.mul_(3)   # d's MulBackward0 saved b at version 1: now stale
    nodes, edges = _parse(make_dot((out, d), params={"a": a}, show_saved=True))
    labels = [n["label"] for n in nodes.values()]
    assert "a\n (3)\n[1 hook]" in labels
    # b's retains_grad hook moved with b's in-place ops to a node out of these graphs
    assert not any("retains_grad" in s for s in labels)
    e = a * 5
    e.retain_grad()
    nodes2, _ = _parse(make_dot(e.sum()))
    assert "MulBackward0\n[retains_grad]" in [n["label"] for n in nodes2.values()]
    nodes3, _ = _parse(make_dot(e.sum(), extras=False))
    assert "MulBackward0" in [n["label"] for n in nodes3.values()]
    stale = [n for n in nodes.values() if n.get("fillcolor") == "red"]
    assert len(stale) == 2 and all("saved v1, now v2 (stale)" in n["label"] for n in stale)
    with pytest.raises(RuntimeError):
        d.backward()


def test_render_dot_writes_something(tmp_path):
    a = graphgrad.ones(2, requires_grad=True)
    path = render_dot(make_dot((a * 3).sum()), tmp_path / "g", format="svg")
    text = open(path).read()
    assert "MulBackward0" in text


def test_render_dot_without_the_dot_program_writes_the_source(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no Graphviz executables on it
    a = graphgrad.ones(2, requires_grad=True)
    dot = make_dot((a * 3).sum(), params={"a": a})
    with pytest.raises(graphviz.ExecutableNotFound):
        dot.render(tmp_path / "direct", format="svg")  # (graphviz's own render needs it)
    path = render_dot(dot, tmp_path / "g", format="png")
    assert path.endswith(".gv")
    assert open(path).read() == dot.source


@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_render_with_the_dot_program(tmp_path, fmt, magic):
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("the Graphviz dot program is not installed")
    a = graphgrad.ones(2, requires_grad=True)
    dot = make_dot((a * 3).sum(), params={"a": a})
    for path in (render_dot(dot, tmp_path / "g", format=fmt),
                 dot.render(tmp_path / "direct", format=fmt, cleanup=True)):
        assert path.endswith("." + fmt)
        with open(path, "rb") as f:
            head = f.read()
        assert head.startswith(magic)
        if fmt == "svg":
            assert b"MulBackward0" in head and b"lightblue" in head


def _model():
    graphgrad.manual_seed(0)
    nn = graphgrad.nn
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    m(graphgrad.randn(5, 4)).pow(2).sum().backward()
    return m


def test_plot_grad_flow_one_bar_per_layer():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = _model()
    fig, ax = plt.subplots()
    try:
        got = plot_grad_flow(m.named_parameters(), ax=ax)
        assert got is ax
        names = [n for n, _ in m.named_parameters()]
        assert [t.get_text() for t in ax.get_xticklabels()] == names
        # two bar series (max and mean), one bar per parameter in each
        assert len(ax.patches) == 2 * len(names)
        means = [p.get_height() for p in ax.patches[len(names):]]
        want = [p.grad.abs().mean().item() for _, p in m.named_parameters()]
        assert means == pytest.approx(want)
        fig.canvas.draw()
    finally:
        plt.close(fig)


def test_plot_grad_flow_skips_params_without_grad():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = _model()
    m[2].bias.grad = None
    ax = plot_grad_flow(m.named_parameters())
    try:
        assert len(ax.get_xticklabels()) == 3
    finally:
        plt.close(ax.figure)


@pytest.mark.parametrize("prog", [_prog_mlp, _prog_views, _prog_shared])
def test_torchviz_itself_runs_on_graphgrad(monkeypatch, prog):
    """torchviz, imported with ``sys.modules["torch"]`` pointing at graphgrad, draws
    graphgrad's graph unchanged (params= included: isinstance(p, autograd.Variable)), and
    its picture equals make_dot's with extras=False."""
    import importlib.util
    import sys
    import warnings
    if importlib.util.find_spec("torchviz") is None:
        pytest.skip("torchviz is not installed")
    for k in [k for k in sys.modules if k == "torchviz" or k.startswith("torchviz.")]:
        monkeypatch.delitem(sys.modules, k)
    monkeypatch.setitem(sys.modules, "torch", graphgrad)
    monkeypatch.setitem(sys.modules, "torch.autograd", graphgrad.autograd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import torchviz
        assert torchviz.dot.torch is graphgrad
        out, params = prog(graphgrad)
        for kw in (dict(), dict(show_saved=True), dict(show_saved=True, show_attrs=True)):
            with warnings.catch_warnings():   # its version check: graphgrad's is 0.x
                warnings.simplefilter("ignore")
                theirs = torchviz.make_dot(out, params=params, **kw)
            ours = make_dot(out, params=params, extras=False, **kw)
            assert _canon(*_parse(theirs)) == _canon(*_parse(ours))
    finally:
        for k in [k for k in sys.modules if k == "torchviz" or k.startswith("torchviz.")]:
            del sys.modules[k]


def test_gradient_monitor_records_norms_and_flags(torch):
    from graphgrad.utils.viz import GradientMonitor
    graphgrad.manual_seed(0)
    nn = graphgrad.nn
    m = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    x = graphgrad.randn(5, 4)
    with GradientMonitor(m, vanish=1e-12, explode=1e6) as mon:
        for _ in range(3):
            m.zero_grad()
            m(x).pow(2).sum().backward()
        want = {n: p.grad.norm().item() for n, p in m.named_parameters()}
        m.zero_grad()
        (m(x).sum() * float("nan")).backward()
    assert len(mon.history) == 4
    assert mon.history[2] == pytest.approx(want)
    assert sorted(f[1] for f in mon.flags) == sorted(want)
    assert all(f[0] == 3 and f[2] == "nan" for f in mon.flags)
    # hooks removed on exit: nothing more recorded
    m(x).sum().backward()
    assert len(mon.history) == 4
    # the same norms as torch for the same weights
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for (_, tp), (_, p) in zip(tm.named_parameters(), m.named_parameters()):
            tp.copy_(torch.tensor(p.detach().numpy()))
    tm(torch.tensor(x.numpy())).pow(2).sum().backward()
    for n, tp in tm.named_parameters():
        assert tp.grad.norm().item() == pytest.approx(want[n], rel=1e-5)


def test_gradient_monitor_vanishing_exploding_and_plot():
    from graphgrad.utils.viz import GradientMonitor
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    w_small = graphgrad.nn.Parameter(graphgrad.ones(3))
    w_big = graphgrad.nn.Parameter(graphgrad.ones(3))
    mod = graphgrad.nn.Module()
    mod.small, mod.big = w_small, w_big
    mon = GradientMonitor(mod, vanish=1e-3, explode=10.0, warn=True)
    with pytest.warns(UserWarning) as rec:
        ((w_small * 1e-6).sum() + (w_big * 100).sum()).backward()
    msgs = sorted(str(r.message) for r in rec)
    assert "exploding gradient in 'big'" in msgs[0] and "vanishing gradient in 'small'" in msgs[1]
    mon.step()
    assert sorted(f[1:3] for f in mon.flags) == [("big", "exploding"), ("small", "vanishing")]
    ax = mon.plot()
    try:
        assert len(ax.get_lines()) == 2
    finally:
        plt.close(ax.figure)
    mon.remove()
    with pytest.raises(TypeError, match="named_parameters"):
        GradientMonitor(object())


@pytest.mark.parametrize("prog", [_prog_mlp, _prog_views, _prog_shared])
@pytest.mark.parametrize("kw", [dict(), dict(show_saved=True),
                                dict(show_saved=True, show_attrs=True)],
                         ids=["plain", "saved", "saved-attrs"])
def test_make_dot_equals_torchviz_on_torch(torch, prog, kw):
    """The quality bar's check against torchviz itself: torchviz.make_dot of PyTorch's graph
    and make_dot of graphgrad's for the same program have the same node labels, colours and
    edges (addresses excluded)."""
    torchviz = pytest.importorskip("torchviz")
    import warnings
    out, params = prog(graphgrad)
    t_out, t_params = prog(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torchviz.make_dot(t_out, params=t_params, **kw)
    ours = make_dot(out, params=params, extras=False, **kw)
    assert _canon(*_parse(ours)) == _canon(*_parse(theirs))
