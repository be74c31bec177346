"""Where generated code is compiled: every source gets a stable file name in ``linecache``.

NOTE [generated code]: the hot path of each op (its record, its node's ``_apply``/``_step``
/``release_variables``, the one-frame entries such as ``Tensor.__mul__``) is Python source
generated from the op's table entry.  Each source is registered in ``linecache`` under a
stable name (``<graphgrad record of mul.Tensor>``), as attrs does for its generated
methods, so tracebacks show the line, ``inspect.getsource`` works and pdb can step in;
``show(op)`` prints an op's sources.

NOTE [lazy generated code]: nothing is compiled at import (it was ~1000 sources, most of
the import time).  ``lazy_function`` hands out the final function object at once, with a
two-line stub as its code; its first call generates and compiles the source, then swaps
the compiled code and its globals into that same function object.  So every holder
(``graphgrad.sin``, ``Tensor.__mul__``, a node class's ``_step``, ``op.record``) keeps
the object it got at import, and after the first call that object is exactly the
compiled function: the steady state pays nothing.  ``show``/``source`` compile an op's
code first; ``compile_all()`` compiles everything (e.g. before timing or forking).
"""
from __future__ import annotations

import linecache
import threading
from types import FunctionType

from ...autograd.engine.loop import compile_loops

SOURCES = {}  # file name -> the generated source (of the compiled ones)
BY_OP = {}    # op name -> [file names], in the order the functions were made
_FILES = set()    # file names handed out (compiled or not)
_PENDING = {}     # op name -> [compile functions of its not yet compiled code]
_LOCK = threading.RLock()

_STUB_FILE = "<graphgrad lazy stub>"
_STUBS = {}  # parameter list -> the stub function it was compiled into (its code a template)
_STUB_CODES = {}  # (parameter list, function name) -> the stub's code under that name


def _stub(params):
    """A template stub ``def stub(<params>)`` that compiles the real code and calls it."""
    stub = _STUBS.get(params)
    if stub is None:
        args = []
        keyword = False
        for p in params.split(","):
            p = p.split("=")[0].strip()
            if p == "*":
                keyword = True
            elif p:
                args.append(f"{p}={p}" if keyword else p)
        src = (f"def stub({params}):\n"
               "    # generated code: compiled on the first call (NOTE [lazy generated code])\n"
               f"    return __graphgrad_compile__()({', '.join(args)})\n")
        lines = linecache.cache.get(_STUB_FILE, (0, None, [], _STUB_FILE))[2]
        src = "\n" * len(lines) + src  # (each stub on its own lines of one file)
        lines = src.splitlines(True)
        linecache.cache[_STUB_FILE] = (len(src), None, lines, _STUB_FILE)
        env = {}
        exec(compile(src, _STUB_FILE, "exec"), env)
        stub = _STUBS[params] = env["stub"]
    return stub


def _file_name(what, op):
    """A stable file name ``<graphgrad {what}>``, unique among those handed out."""
    filename = base = f"<graphgrad {what}>"
    n = 2
    while filename in _FILES:  # (two ops of one name)
        filename = f"{base[:-1]} #{n}>"
        n += 1
    _FILES.add(filename)
    BY_OP.setdefault(op.name, []).append(filename)
    return filename


def _compile(lines, filename, env):
    src = "\n".join(lines)
    SOURCES[filename] = src
    # (mtime None: linecache.checkcache keeps the entry, there is no file to compare with)
    linecache.cache[filename] = (len(src), None, [line + "\n" for line in lines], filename)
    exec(compile(src, filename, "exec"), env)


def compile_source(lines, what, op, env):
    """Compile ``lines`` (one ``def``) into ``env`` now, under the name ``<graphgrad {what}>``."""
    _compile(lines, _file_name(what, op), env)


def lazy_function(name, params, what, op, build):
    """The function ``def name(params)`` of ``op``, compiled on its first call (NOTE [lazy
    generated code]).  ``build()`` returns ``(lines, env)``: that ``def`` and its globals."""
    filename = _file_name(what, op)
    glob = {}
    stub = _stub(params)
    code = _STUB_CODES.get((params, name))
    if code is None:
        code = _STUB_CODES[params, name] = stub.__code__.replace(co_name=name,
                                                                 co_qualname=name)
    fn = FunctionType(code, glob, name, stub.__defaults__)
    fn.__kwdefaults__ = stub.__kwdefaults__
    stub_code = fn.__code__

    def compile_now():
        with _LOCK:
            if fn.__code__ is stub_code:
                lines, env = build()
                _compile(lines, filename, env)
                real = env.pop(name)
                glob.update(env)  # first the globals, then the code that reads them
                fn.__defaults__ = real.__defaults__
                fn.__kwdefaults__ = real.__kwdefaults__
                fn.__code__ = real.__code__
                pending = _PENDING.get(op.name)
                if pending is not None and compile_now in pending:
                    pending.remove(compile_now)
        return fn

    glob["__graphgrad_compile__"] = compile_now
    glob["_this"] = fn  # (the function itself, for code that calls itself again)
    _PENDING.setdefault(op.name, []).append(compile_now)
    return fn


def compile_op(op):
    """Compile the generated code of ``op`` (an op or its name) that is not compiled yet."""
    name = op if isinstance(op, str) else op.name
    for compile_now in list(_PENDING.get(name, ())):
        compile_now()


def compile_all():
    """Compile all generated code now, the engine's loops included (NOTE [lazy generated
    code], NOTE [lazy engine loops])."""
    for name in list(_PENDING):
        compile_op(name)
    compile_loops()


def source(op):
    """The generated sources of ``op`` (an op or its name), each under its file name."""
    name = op if isinstance(op, str) else op.name
    compile_op(name)
    return "\n\n".join(f"# {f}\n{SOURCES[f]}" for f in BY_OP.get(name, ()))


def show(op):
    """Print the generated code of ``op`` (e.g. ``show("mul.Tensor")``)."""
    print(source(op))
