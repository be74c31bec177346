"""Dump the source of every function graphgrad generates (the dispatcher's templates).

Usage: PYTHONPATH=$PWD python tools/dump_generated.py OUT.txt

Wraps ``builtins.compile`` before importing graphgrad and records each source compiled in
"exec" mode from inside the graphgrad package, keyed by its label (``<record of mul>``,
``<backward step of MulBackward0>``, ...). The output is sorted by label, so a move of the
code that keeps every template byte-identical gives an identical dump.
"""
import builtins
import sys
import traceback

_real_compile = builtins.compile
captured = []


def _spy(source, filename, mode, *a, **k):
    if mode == "exec" and isinstance(source, str):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("graphgrad"):
            captured.append((str(filename), source))
    return _real_compile(source, filename, mode, *a, **k)


builtins.compile = _spy
import graphgrad  # noqa: E402,F401
# ops compiled lazily (on first use) are forced here, if the package offers a way
force = getattr(getattr(getattr(graphgrad, "ops", None), "codegen", None), "compile_all", None)
if force is not None:
    force()
builtins.compile = _real_compile

counts = {}
out = []
for label, src in sorted(captured, key=lambda p: (p[0], p[1])):
    n = counts.get(label, 0)
    counts[label] = n + 1
    out.append(f"=== {label} #{n}\n{src}\n")
with open(sys.argv[1], "w") as f:
    f.write("".join(out))
print(f"{len(captured)} generated sources, {len(counts)} labels -> {sys.argv[1]}")
