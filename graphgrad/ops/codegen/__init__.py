"""Code generation: the hot path of each op, compiled from its table entry.

``nodes`` makes the node class and its ``_apply``/``_step``/``release_variables``,
``record`` the unrolled ``_record``, ``entries`` the one-frame public functions and operators;
``sources`` compiles them under stable names (NOTE [generated code]): ``show(op)`` prints them.
Each generated piece has a hand-written reference that tests/ops/test_codegen_reference.py
checks it against on every OpInfo sample (NOTE [reference path] in ops/dispatch.py).
"""
from .sources import compile_all, compile_op, show, source  # noqa: F401
