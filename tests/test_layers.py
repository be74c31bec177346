"""The package's layers (docs/architecture.md): each module imports only its own layer and
the layers below, and the module-level imports form no cycle.

Every ``import``/``from ... import`` of a graphgrad module is read from the source (at
module level and inside functions).  Importing ``a.b.c`` also runs the ``__init__`` of
``a.b``: that counts as an import of the package.  A function-local import of graphgrad
code is allowed only from ALLOWED_LOCAL, each with its reason; an upward import anywhere
else, or a cycle among module-level imports, fails the test.

Run ``python tests/test_layers.py`` for the summary (modules per layer, imports, cycles).
(relayout: skip -- tools/relayout_imports.py leaves this file alone)
"""
from __future__ import annotations

import ast
import fnmatch
import functools
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "graphgrad"

# (module prefix, layer): the longest matching prefix decides
LAYERS = [
    ("graphgrad._core", 0),           # thread-local state, dtypes, the NumPy backend
    ("graphgrad._tensor", 1),         # Tensor, creation, printing
    ("graphgrad.return_types", 1),    # the named tuples ops return (no imports)
    ("graphgrad.autograd", 2),        # graph, saved, views of history, grad mode, engine
    ("graphgrad.ops", 3),             # the op machinery: registry, dispatch, codegen, F
    ("graphgrad.ops.kernels", 4),     # NumPy kernels
    ("graphgrad.ops.derivatives", 4),  # the table
    ("graphgrad.ops.api", 5),         # public functions and Tensor methods
    # tools, written with the public API
    ("graphgrad.autograd.function", 6),
    ("graphgrad.autograd._function_forward_ad", 6),
    ("graphgrad.autograd.forward_ad", 6),
    ("graphgrad.autograd.functional", 6),
    ("graphgrad.autograd.gradcheck", 6),
    ("graphgrad.autograd.profiler", 6),
    ("graphgrad.autograd._profiler_events", 6),
    ("graphgrad.autograd._profiler_record", 6),
    ("graphgrad.autograd._profiler_trace", 6),
    ("graphgrad.autograd.profiler_util", 6),
    ("graphgrad.profiler", 6),
    ("graphgrad.autograd.variable", 6),
    ("graphgrad.nn", 6),
    ("graphgrad.distributed", 6),
    ("graphgrad.optim", 6),
    ("graphgrad.utils", 6),
    ("graphgrad.linalg", 6),
    ("graphgrad.special", 6),         # torch.special's namespace over the public ops
    ("graphgrad.fft", 6),             # apifft: torch.fft's namespace over ops/api/fft
    ("graphgrad.random", 6),
    ("graphgrad.cuda", 6),
    ("graphgrad.cpu", 6),
    ("graphgrad.amp", 6),
    ("graphgrad.backends", 6),
    ("graphgrad.serialization", 6),
    ("graphgrad.demo", 6),
    ("graphgrad.func", 6),
    ("graphgrad.numpy", 6),           # NumPy's namespace over Tensors (HIPS autograd's users)
    ("graphgrad.scipy", 6),           # the few scipy functions HIPS autograd's examples use
    ("graphgrad.distributions", 6),   # torch.distributions, over the public ops (apidist)
    ("graphgrad", 7),                 # the package itself: puts the layers together
]

# (importing module, imported module; fnmatch patterns) -> why the import is inside a function.
# Each is resolved at call time, when every layer is loaded.
ALLOWED_LOCAL = {
    ("graphgrad", "graphgrad.*"):
        "the tool packages (optim, func, profiler, utils, distributed, serialization) are "
        "imported on first use of their name (NOTE [lazy tool packages], import time)",
    ("graphgrad.nn", "graphgrad.nn.*"):
        "nn's layers, utils, parallel and init are imported on first use of a name "
        "(NOTE [lazy tool packages]); nn.functional is imported at once",
    ("graphgrad._core.dtypes", "graphgrad._tensor.tensor"):
        "graphgrad.FloatTensor(...) & co. construct Tensors; the dtype layer only names them",
    ("graphgrad._tensor.tensor", "graphgrad._tensor.*"):
        "creation, printing and memory_format import Tensor; Tensor's methods reach them back",
    ("graphgrad._tensor.tensor", "graphgrad.autograd"):
        "Tensor.backward() runs autograd.backward (layer 2)",
    ("graphgrad._tensor.tensor", "graphgrad.autograd.views"):
        "Tensor.grad_fn regenerates a view's history after an in-place change of its base",
    ("graphgrad._tensor.*", "graphgrad.ops.api.misc_ops"):
        "memory-format queries and conversions (contiguous(memory_format=...)) are ops",
    ("graphgrad.autograd.engine.accumulate", "graphgrad.ops.formulas"):
        "a create_graph gradient is accumulated with recorded ops (F.add)",
    ("graphgrad.autograd.engine.accumulate", "graphgrad.ops.api.inplace"):
        "copy_ of a gradient into a .grad that must keep its layout",
    ("graphgrad.autograd.graph", "graphgrad.autograd.engine"):
        "hooks registered during a backward ask the running graph task",
    ("graphgrad.autograd.views", "graphgrad.ops.api.inplace"):
        "AsStridedBackward0, the regenerated grad_fn of a view, is defined with the op it "
        "runs (_view_scatter)",
    ("graphgrad.ops.inplace", "graphgrad.ops.api.inplace"):
        "make_copy_slices: CopySlices is defined with the ops it runs (_view_scatter, zero_)",
    ("graphgrad.ops.formulas", "graphgrad.ops.api.*"):
        "rule helpers that are public functions (sum_to_size, matmul's broadcasting, "
        "where): the table's helpers reach the API at call time",
    ("graphgrad.ops.derivatives.*", "graphgrad.ops.api.*"):
        "rule helpers that are public functions (cat/stack of a list of gradients, which make "
        "their entry per number of inputs; sum over dims): reached at call time, as formulas' "
        "helpers reach them",
    ("graphgrad.ops.forward_mode", "graphgrad.ops.api.copies"):
        "batched tangents are stacked with the public stack (one table op per arity)",
    ("graphgrad.ops.extras", "graphgrad.ops.forward_mode"):
        "forward_mode dispatches the JVP rules: dispatch -> extras -> forward_mode -> "
        "dispatch would be a cycle at module level",
    ("graphgrad.demo", "graphgrad.demo.sin"):
        "the package's fit / graph_tree load the sin demo on first use, so that "
        "`python -m graphgrad.demo.sin` does not find its module already imported",
    ("graphgrad.ops.api.*", "graphgrad.ops.api.*"):
        "public functions that call another family's public functions (shape's reshape, "
        "copies' cat, conversion's _write_out for out=): imported where used, so that the "
        "api modules import each other only one way at module level",
}

# module-level cycles that exist today, each with its reason; a new one fails the test
KNOWN_CYCLES = {
}


def layer_of(mod):
    best, layer = -1, None
    for prefix, n in LAYERS:
        if (mod == prefix or mod.startswith(prefix + ".")) and len(prefix) > best:
            best, layer = len(prefix), n
    return layer


def module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=None)
def all_modules():
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(mod, is_pkg, level, name):
    if not level:
        return name or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[:len(base) - level + 1]
    return ".".join(base + ([name] if name else []))


@functools.lru_cache(maxsize=None)
def _imports_of(mod, path):
    return imports_of_uncached(mod, path, all_modules())


def imports_of(mod, path, modules):
    return _imports_of(mod, path)


def imports_of_uncached(mod, path, modules):
    """[(target module, line, module-level?)] of the graphgrad modules ``mod`` imports."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` / try blocks at module level count as top
        if isinstance(node, (ast.If, ast.Try)):
            top.update(id(n) for n in ast.walk(node))
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            base = _resolve(mod, is_pkg, node.level, node.module)
            for a in node.names:
                sub = f"{base}.{a.name}"
                targets.append(sub if sub in modules else base)
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        at_top = id(node) in top
        for t in targets:
            if t.startswith("graphgrad"):
                # importing a.b.c runs the __init__ of a.b (and of a, the root: not counted);
                # inside a function, every package is loaded already: only a.b.c counts
                parts = t.split(".")
                for k in range(2 if at_top else len(parts), len(parts) + 1):
                    p = ".".join(parts[:k])
                    if p in modules and p != mod and not mod.startswith(p + "."):
                        out.append((p, node.lineno, at_top))
    return sorted(set(out), key=lambda x: (x[1], x[0]))


def allowed(mod, tgt):
    """The reason ALLOWED_LOCAL gives for ``mod`` importing ``tgt`` in a function, or None."""
    for (a, b), why in ALLOWED_LOCAL.items():
        if fnmatch.fnmatchcase(mod, a) and fnmatch.fnmatchcase(tgt, b):
            return why
    return None


@functools.lru_cache(maxsize=None)
def analyse():
    modules = all_modules()
    upward, bad_local, edges = [], [], {}
    n_imports = n_local = 0
    for mod, path in modules.items():
        lm = layer_of(mod)
        for tgt, line, at_top in imports_of(mod, path, modules):
            n_imports += 1
            lt = layer_of(tgt)
            ok = not at_top and allowed(mod, tgt) is not None
            if at_top:
                edges.setdefault(mod, set()).add(tgt)
            else:
                n_local += 1
                if not ok:
                    bad_local.append(f"{mod}:{line} imports {tgt} inside a function")
            if lt > lm and not ok:
                upward.append(f"{mod} (layer {lm}):{line} imports {tgt} (layer {lt})")
    cycles = [c for c in find_cycles(edges) if tuple(c) not in KNOWN_CYCLES]
    return modules, upward, bad_local, cycles, n_imports, n_local


def find_cycles(edges):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer():
    assert [m for m in all_modules() if layer_of(m) is None] == []


def test_no_upward_import():
    _, upward, _, _, _, _ = analyse()
    assert upward == [], "imports of a higher layer:\n" + "\n".join(upward)


def test_function_local_imports_only_from_the_allow_list():
    _, _, bad_local, _, _, _ = analyse()
    assert bad_local == [], "function-local imports not in ALLOWED_LOCAL:\n" + "\n".join(bad_local)


def test_no_import_cycle():
    _, _, _, cycles, _, _ = analyse()
    assert cycles == [], "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_string_service_locator():
    """No module reads a registry table by a literal name (``PUBLIC["flip"]``): a function
    is imported from the module that defines it, so the import graph above shows every
    dependency.  Reads by a computed name (torch.ops.aten's handles) stay allowed."""
    tables = {"PUBLIC", "METHODS", "LINALG"}   # (OPS by overload name is the table's own look-up)
    found = []
    for m, p in all_modules().items():
        tree = ast.parse(p.read_text())
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   for a in n.names if a.name in tables}
        for n in ast.walk(tree):
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and \
                    isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                base = n.value
                name = base.id if isinstance(base, ast.Name) else \
                    base.attr if isinstance(base, ast.Attribute) else None
                if name in aliases or name in tables:
                    found.append(f"{m}:{n.lineno} {name}[{n.slice.value!r}]")
    assert found == [], "registry tables read by a literal name:\n" + "\n".join(found)


def test_allow_list_entries_are_used():
    modules = all_modules()
    used = {(m, t) for m, p in modules.items() for t, _, top in imports_of(m, p, modules)
            if not top}
    unused = [k for k in ALLOWED_LOCAL
              if not any(fnmatch.fnmatchcase(m, k[0]) and fnmatch.fnmatchcase(t, k[1])
                         for m, t in used)]
    assert unused == []
    edges = {}
    for m, p in modules.items():
        for t, _, top in imports_of(m, p, modules):
            if top:
                edges.setdefault(m, set()).add(t)
    assert sorted(set(KNOWN_CYCLES) - {tuple(c) for c in find_cycles(edges)}) == []


def summary():
    modules, upward, bad_local, cycles, n_imports, n_local = analyse()
    by_layer = {}
    for m in modules:
        by_layer.setdefault(layer_of(m), []).append(m)
    lines = [f"{len(modules)} modules, {n_imports} graphgrad imports ({n_local} function-local, "
             f"all under {len(ALLOWED_LOCAL)} allow-list entries; {len(KNOWN_CYCLES)} known "
             "module-level cycles)"]
    for n in sorted(by_layer):
        lines.append(f"  layer {n}: {len(by_layer[n])} modules")
    lines.append(f"upward imports: {len(upward)}; local imports off the allow-list: "
                 f"{len(bad_local)}; module-level cycles: {len(cycles)}")
    lines += ["  " + u for u in upward] + ["  " + b for b in bad_local]
    lines += ["  cycle: " + " <-> ".join(c) for c in cycles]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary())
