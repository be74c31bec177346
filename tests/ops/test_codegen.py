"""The generated hot path is visible: golden sources of a few ops, and tracebacks, inspect
and pdb see the generated lines (NOTE [generated code] in graphgrad/ops/codegen/sources.py).

To accept a deliberate change of the generated code: GRAPHGRAD_UPDATE_GOLDEN=1 pytest this file.
"""
import inspect
import os
import pathlib
import traceback

import pytest

import graphgrad
from graphgrad.ops import codegen
from graphgrad.ops.codegen.sources import BY_OP, SOURCES

GOLDEN = pathlib.Path(__file__).with_name("codegen_golden")
OPS = ["sin", "mul", "mm", "sum.dim_IntList"]


@pytest.mark.parametrize("op", OPS)
def test_generated_source_is_the_golden_one(op):
    got = codegen.source(op)
    assert got, f"no generated code for {op}"
    path = GOLDEN / f"{op}.txt"
    if os.environ.get("GRAPHGRAD_UPDATE_GOLDEN"):
        path.write_text(got + "\n")
    assert got + "\n" == path.read_text(), (
        f"the generated code of {op} changed; if on purpose, regenerate the golden files "
        "with GRAPHGRAD_UPDATE_GOLDEN=1")


def test_every_generated_source_has_its_own_file_name_in_linecache():
    import linecache
    assert len(SOURCES) > 500
    for name, src in SOURCES.items():
        assert "".join(linecache.getlines(name)) == src + "\n"
    assert all(names for names in BY_OP.values())


def test_traceback_shows_the_generated_line():
    with pytest.raises(TypeError) as info:
        graphgrad.sin("not a tensor")
    frames = [f for f in traceback.extract_tb(info.value.__traceback__)
              if f.filename.startswith("<graphgrad entry graphgrad.sin")]
    assert frames and frames[0].line == "check(input)"


def test_inspect_getsource_of_a_generated_operator():
    src = inspect.getsource(graphgrad.Tensor.__mul__)
    assert src.startswith("def __mul__(x0, x1):")


def test_show_prints_the_sources(capsys):
    codegen.show("sin")
    out = capsys.readouterr().out
    assert "# <graphgrad record of sin>" in out and "def record(args, o):" in out
