"""Where generated code is compiled: every source gets a stable file name in ``linecache``.

NOTE [generated code]: the hot path of each op (its record, its node's ``_apply``/``_step``
/``release_variables``, the one-frame entries such as ``Tensor.__mul__``) is Python source
generated from the op's table entry and compiled once.  Each source is registered in
``linecache`` under a stable name (``<graphgrad record of mul.Tensor>``), as attrs does for
its generated methods, so tracebacks show the line, ``inspect.getsource`` works and pdb
can step in; ``show(op)`` prints an op's sources.
"""
from __future__ import annotations

import linecache

SOURCES = {}  # file name -> the generated source
BY_OP = {}    # op name -> [file names], in the order they were compiled


def compile_source(lines, what, op, env):
    """Compile ``lines`` (one ``def``) into ``env`` under the name ``<graphgrad {what}>``."""
    src = "\n".join(lines)
    filename = base = f"<graphgrad {what}>"
    n = 2
    while filename in SOURCES and SOURCES[filename] != src:  # (two ops of one name)
        filename = f"{base[:-1]} #{n}>"
        n += 1
    SOURCES[filename] = src
    names = BY_OP.setdefault(op.name, [])
    if filename not in names:
        names.append(filename)
    # (mtime None: linecache.checkcache keeps the entry, there is no file to compare with)
    linecache.cache[filename] = (len(src), None, [line + "\n" for line in lines], filename)
    exec(compile(src, filename, "exec"), env)


def source(op):
    """The generated sources of ``op`` (an op or its name), each under its file name."""
    name = op if isinstance(op, str) else op.name
    return "\n\n".join(f"# {f}\n{SOURCES[f]}" for f in BY_OP.get(name, ()))


def show(op):
    """Print the generated code of ``op`` (e.g. ``show("mul.Tensor")``)."""
    print(source(op))
