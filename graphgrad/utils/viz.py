"""``graphgrad.utils.viz``: pictures of autograd graphs and of gradient flow.

``make_dot`` draws the backward graph of a tensor with torchviz's conventions (grey
backward nodes, light-blue leaves that require grad, orange saved tensors, green outputs,
dark green view bases) and, beyond torchviz, marks registered hooks, retained grads and
the version of each saved tensor (red when it is stale, i.e. a backward would fail).
``plot_grad_flow`` draws the mean and max |grad| per parameter.

Both optional libraries (``graphviz``, ``matplotlib``) are imported only inside the
functions that need them: ``pip install graphgrad[viz]``.
"""
import re

__all__ = ["make_dot", "render_dot", "plot_grad_flow", "GradientMonitor"]

SAVED_PREFIX = "_saved_"
_STALE = re.compile(r"is at version (\d+); expected version (\d+)")


def _import_graphviz():
    try:
        import graphviz
    except ImportError as e:
        raise ImportError(
            "graphgrad.utils.viz.make_dot needs the 'graphviz' Python package; install it "
            "with `pip install graphgrad[viz]` (or `pip install graphviz`). Rendering to "
            "svg/png also needs the Graphviz 'dot' program.") from e
    return graphviz


def _import_pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(
            "graphgrad.utils.viz.plot_grad_flow needs matplotlib; install it with "
            "`pip install graphgrad[viz]` (or `pip install matplotlib`).") from e
    return plt


def _is_tensor(x):
    from graphgrad import is_tensor
    return is_tensor(x)


def _size_str(size):
    return "(" + ", ".join("%d" % v for v in size) + ")"


def _saved_attrs(fn):
    """(name, value or _Stale) for each ``_saved_*`` attribute of ``fn``."""
    out = []
    for attr in dir(fn):
        if not attr.startswith(SAVED_PREFIX):
            continue
        try:
            val = getattr(fn, attr)
        except RuntimeError as e:   # modified in place since saved, or freed
            m = _STALE.search(str(e))
            val = _Stale(attr[len(SAVED_PREFIX):], m and int(m.group(2)),
                         m and int(m.group(1)), str(e))
        out.append((attr[len(SAVED_PREFIX):], val))
    return out


class _Stale:
    """A saved tensor that can no longer be unpacked."""

    def __init__(self, name, saved_version, current_version, message):
        self.name, self.saved_version = name, saved_version
        self.current_version, self.message = current_version, message


def _fn_label(fn, show_attrs, max_attr_chars, extras):
    name = type(fn).__name__
    if extras:
        tags = []
        if getattr(fn, "_retains_grad_hooks", None):
            tags.append("retains_grad")
        n = _count_hooks(fn)
        if n:
            tags.append("%d hook%s" % (n, "s" if n > 1 else ""))
        if tags:
            name += "\n[" + ", ".join(tags) + "]"
    if not show_attrs:
        return name
    attrs = {}
    for k, val in _saved_attrs(fn):
        if _is_tensor(val) or isinstance(val, _Stale):
            attrs[k] = "[saved tensor]"
        elif isinstance(val, tuple) and any(_is_tensor(t) for t in val):
            attrs[k] = "[saved tensors]"
        else:
            attrs[k] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    w1 = max(len(k) for k in attrs)
    w2 = min(max(len(v) for v in attrs.values()), max_attr_chars)
    head = name.split("\n")[0]
    rule = "-" * max(w1 + w2 + 2, len(head))

    def cut(s):
        return s[:w2 - 3] + "..." if len(s) > w2 else s
    rows = "\n".join(k.ljust(w1) + ": " + cut(v).rjust(w2) for k, v in attrs.items())
    return name + "\n" + rule + "\n" + rows


def _count_hooks(obj):
    n = 0
    for a in ("_pre_hooks", "_post_hooks", "_tensor_pre_hooks", "_hooks", "_post_acc_hooks"):
        h = getattr(obj, a, None)
        if h:
            try:
                vals = h.values() if hasattr(h, "values") else h
                n += sum(len(v) if hasattr(v, "values") else 1 for v in vals)
            except TypeError:
                n += 1
    return n


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50, *,
             extras=True):
    """The backward graph of ``var`` (a tensor or a tuple of tensors) as a
    ``graphviz.Digraph``, drawn as torchviz's ``make_dot`` draws it.

    Backward nodes are grey; tensors are light blue (leaves that require grad, named by
    ``params``, a dict name -> tensor), orange (saved tensors, shown with
    ``show_saved=True``), green (the outputs) or dark green (the bases of outputs that are
    views). ``show_attrs`` adds each node's non-tensor saved attributes, truncated to
    ``max_attr_chars``. With ``extras`` (default) the picture also shows what torchviz does
    not: the number of hooks on a node or leaf, "retains_grad" on tensors that retain their
    grad, and each saved tensor's version, in red when it was modified in place since it
    was saved (a backward through that node would fail). ``extras=False`` gives exactly
    torchviz's labels.
    """
    graphviz = _import_graphviz()
    if params is not None:
        if not hasattr(params, "items"):
            raise TypeError("make_dot: params must be a dict of name -> tensor (e.g. "
                            f"dict(model.named_parameters())), got {type(params).__name__}")
        for k, v in params.items():
            if not _is_tensor(v):
                raise TypeError(f"make_dot: params[{k!r}] must be a tensor, got "
                                f"{type(v).__name__}")
        param_map = {id(v): k for k, v in params.items()}
    else:
        param_map = {}
    outs = var if isinstance(var, tuple) else (var,)
    for v in outs:
        if not _is_tensor(v):
            raise TypeError(f"make_dot: expected a tensor or a tuple of tensors, got "
                            f"{type(v).__name__}")

    node_attr = dict(style="filled", shape="box", align="left", fontsize="10",
                     ranksep="0.1", height="0.2", fontname="monospace")
    dot = graphviz.Digraph(node_attr=node_attr, graph_attr=dict(size="12,12"))
    seen = set()
    keep = []   # keeps the objects whose ids are in `seen` alive while drawing

    def mark(obj):
        seen.add(id(obj))
        keep.append(obj)

    def var_label(t, name=None):
        if not name:
            name = param_map.get(id(t), "")
        label = "%s\n %s" % (name, _size_str(t.size()))
        if extras:
            tags = []
            if getattr(t, "_retains_grad", False) and t.grad_fn is not None:
                tags.append("retains_grad")
            n = _count_hooks(t)
            if n:
                tags.append("%d hook%s" % (n, "s" if n > 1 else ""))
            if tags:
                label += "\n[" + ", ".join(tags) + "]"
        return label

    def saved_label(t, name):
        label = "%s\n %s" % (name, _size_str(t.size()))
        if extras:
            label += "\n v%d" % t._version
        return label

    def add_saved(fn, name, t):
        mark(t)
        dot.edge(str(id(fn)), str(id(t)), dir="none")
        if isinstance(t, _Stale):
            if t.saved_version is not None:
                label = "%s\n saved v%d, now v%d (stale)" % (
                    name, t.saved_version, t.current_version)
            else:
                label = "%s\n (freed)" % name
            dot.node(str(id(t)), label, fillcolor="red" if extras else "orange")
        else:
            dot.node(str(id(t)), saved_label(t, name), fillcolor="orange")

    def add_nodes(fn):
        if id(fn) in seen:
            return
        mark(fn)
        if show_saved:
            for name, val in _saved_attrs(fn):
                if _is_tensor(val) or isinstance(val, _Stale):
                    add_saved(fn, name, val)
                elif isinstance(val, tuple):
                    for i, t in enumerate(val):
                        if _is_tensor(t):
                            add_saved(fn, "%s[%d]" % (name, i), t)
        v = getattr(fn, "variable", None)
        if v is not None:   # AccumulateGrad: the leaf it accumulates into
            mark(v)
            dot.node(str(id(v)), var_label(v), fillcolor="lightblue")
            dot.edge(str(id(v)), str(id(fn)))
        dot.node(str(id(fn)), _fn_label(fn, show_attrs, max_attr_chars, extras))
        for u, _ in getattr(fn, "next_functions", ()):
            if u is not None:
                dot.edge(str(id(u)), str(id(fn)))
                add_nodes(u)
        try:
            saved = fn.saved_tensors   # custom autograd.Function nodes
        except (AttributeError, RuntimeError):
            saved = ()
        for t in saved or ():
            if t is None:
                continue
            mark(t)
            dot.edge(str(id(t)), str(id(fn)), dir="none")
            dot.node(str(id(t)), var_label(t), fillcolor="orange")

    def add_base(t, color="darkolivegreen1"):
        if id(t) in seen:
            return
        mark(t)
        dot.node(str(id(t)), var_label(t), fillcolor=color)
        if t.grad_fn is not None:
            add_nodes(t.grad_fn)
            dot.edge(str(id(t.grad_fn)), str(id(t)))
        if t._is_view():
            add_base(t._base, color="darkolivegreen3")
            dot.edge(str(id(t._base)), str(id(t)), style="dotted")

    for v in outs:
        add_base(v)
    # torchviz's sizing: grows with the number of statements, at least 12 inches
    size = max(12, len(dot.body) * 0.15)
    dot.graph_attr.update(size="%s,%s" % (size, size))
    return dot


def render_dot(dot, filename, format="svg"):
    """Render ``dot`` to ``filename.<format>`` ("svg" or "png") with the Graphviz ``dot``
    program; without that program, write the DOT source to ``filename`` (".gv") instead.
    Returns the path written."""
    graphviz = _import_graphviz()
    if format not in ("svg", "png", "pdf"):
        raise ValueError(f"render_dot: format must be 'svg', 'png' or 'pdf', got {format!r}")
    try:
        return dot.render(filename, format=format, cleanup=True)
    except graphviz.ExecutableNotFound:
        path = str(filename) + ".gv"
        with open(path, "w") as f:
            f.write(dot.source)
        return path


def plot_grad_flow(named_parameters, ax=None):
    """Bar chart of the max and mean |grad| of each parameter that requires grad and has a
    grad (seed 003 §11.4): vanishing gradients show as bars near zero in the early layers.
    ``named_parameters`` is e.g. ``model.named_parameters()``; draws on ``ax`` (a new
    figure's axes if None) and returns the axes."""
    plt = _import_pyplot()
    layers, means, maxes = [], [], []
    for n, p in named_parameters:
        if p.requires_grad and p.grad is not None:
            g = p.grad.detach().abs()
            layers.append(n)
            means.append(float(g.mean()))
            maxes.append(float(g.max()))
    if ax is None:
        _, ax = plt.subplots()
    xs = list(range(len(layers)))
    ax.bar(xs, maxes, alpha=0.1, lw=1, color="c", label="max |grad|")
    ax.bar(xs, means, alpha=0.1, lw=1, color="b", label="mean |grad|")
    ax.hlines(0, -0.5, len(layers) - 0.5, lw=2, color="k")
    ax.set_xticks(xs)
    ax.set_xticklabels(layers, rotation="vertical")
    ax.set_xlim(-0.5, max(len(layers) - 0.5, 0.5))
    if maxes:
        ax.set_ylim(bottom=-0.001 * max(maxes + [1e-12]), top=max(maxes) * 1.05 or 1.0)
    ax.set_xlabel("Layers")
    ax.set_ylabel("gradient magnitude")
    ax.set_title("Gradient flow")
    ax.grid(True)
    ax.legend()
    return ax


class GradientMonitor:
    """Records the gradient norm of every parameter of ``module`` at each step, through
    post-accumulate-grad hooks (no extra pass over the parameters), and flags vanishing,
    exploding and non-finite gradients by parameter name.

    A step is one backward pass: it ends when a parameter already recorded gets a new
    gradient, or explicitly with :meth:`step`. ``history`` is a list (one entry per step)
    of dicts name -> norm; ``flags`` a list of ``(step, name, kind, norm)`` with kind
    ``"nan"``, ``"vanishing"`` (norm < ``vanish``) or ``"exploding"`` (norm > ``explode``).
    Use as a context manager or call :meth:`remove` to take the hooks off."""

    def __init__(self, module, vanish=1e-7, explode=1e3, warn=False):
        if not hasattr(module, "named_parameters"):
            raise TypeError("GradientMonitor: expected an nn.Module (something with "
                            f"named_parameters()), got {type(module).__name__}")
        self.vanish, self.explode, self.warn = float(vanish), float(explode), warn
        self.history, self.flags = [], []
        self._current = {}
        self._handles = []
        for name, p in module.named_parameters():
            if p.requires_grad:
                self._handles.append(
                    p.register_post_accumulate_grad_hook(self._hook_for(name)))

    def _hook_for(self, name):
        def hook(param):
            if name in self._current:
                self.step()
            g = param.grad
            norm = float(g.detach().norm()) if g is not None else float("nan")
            self._current[name] = norm
            self._check(len(self.history), name, norm)
        return hook

    def _check(self, step, name, norm):
        import math
        if not math.isfinite(norm):
            kind = "nan"
        elif norm < self.vanish:
            kind = "vanishing"
        elif norm > self.explode:
            kind = "exploding"
        else:
            return
        self.flags.append((step, name, kind, norm))
        if self.warn:
            import warnings
            warnings.warn(f"GradientMonitor: {kind} gradient in {name!r} at step {step} "
                          f"(norm {norm:.3g})", stacklevel=3)

    def step(self):
        """Close the current step (its norms go to ``history``)."""
        if self._current:
            self.history.append(self._current)
            self._current = {}

    def records(self):
        """``history`` plus the step in progress."""
        return self.history + ([self._current] if self._current else [])

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.step()
        self.remove()

    def plot(self, ax=None):
        """Gradient norm per parameter against the step (log scale); returns the axes."""
        plt = _import_pyplot()
        if ax is None:
            _, ax = plt.subplots()
        recs = self.records()
        names = []
        for r in recs:
            names.extend(n for n in r if n not in names)
        for n in names:
            xs = [i for i, r in enumerate(recs) if n in r]
            ax.plot(xs, [recs[i][n] for i in xs], label=n)
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("gradient norm")
        ax.set_title("Gradient norms")
        if names:
            ax.legend(fontsize="small")
        return ax
