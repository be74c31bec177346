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
from tests.fresh_interpreter import run_fresh

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
    codegen.compile_all()
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


# ------------------------------------------------ NOTE [lazy generated code]
def _fresh(code):
    """Run ``code`` after ``import graphgrad`` in a fresh interpreter; its stdout."""
    return run_fresh("import graphgrad\n" + code)


def test_nothing_is_compiled_at_import_and_a_first_call_compiles_only_what_it_runs():
    out = _fresh(
        "from graphgrad.ops.codegen.sources import SOURCES\n"
        "print(len(SOURCES))\n"
        "x = graphgrad.ones(3, requires_grad=True)\n"
        "graphgrad.sin(x).sum().backward()\n"
        "print(sorted(f for f in SOURCES if 'of sin' in f or 'of sin ' in f))\n")
    first, compiled = out.splitlines()
    assert first == "0"
    assert "<graphgrad entry graphgrad.sin of sin>" in compiled
    assert "<graphgrad backward step of sin (SinBackward0)>" in compiled
    assert "<graphgrad backward of sin (SinBackward0)>" not in compiled  # (not run)


def test_the_first_call_compiles_into_the_same_function_object():
    out = _fresh(
        "T = graphgrad.Tensor\n"
        "mul, sin = T.__dict__['__mul__'], graphgrad.sin\n"
        "step = graphgrad.ops.derivatives.pointwise.MUL.node_cls.__dict__['_step']\n"
        "rec = graphgrad.ops.derivatives.pointwise.SIN.record\n"
        "print(mul.__code__.co_filename, sin.__code__.co_filename)\n"
        "x = graphgrad.ones(2, dtype=graphgrad.float64, requires_grad=True)\n"
        "(graphgrad.sin(x) * 2.0).sum().backward()\n"
        "print(T.__dict__['__mul__'] is mul, graphgrad.sin is sin,\n"
        "      graphgrad.ops.derivatives.pointwise.MUL.node_cls.__dict__['_step'] is step,\n"
        "      graphgrad.ops.derivatives.pointwise.SIN.record is rec)\n"
        "print(mul.__code__.co_filename, '|', sin.__code__.co_filename, '|',\n"
        "      step.__code__.co_filename, '|', x.grad.tolist())\n")
    before, same, after = out.splitlines()
    assert before == "<graphgrad lazy stub> <graphgrad lazy stub>"
    assert same == "True True True True"
    mul_file, sin_file, step_file, grad = after.split(" | ")
    assert mul_file == "<graphgrad entry Tensor.__mul__ of mul>"
    assert sin_file == "<graphgrad entry graphgrad.sin of sin>"
    assert step_file == "<graphgrad backward step of mul (MulBackward0)>"
    assert grad == str([2 * 0.5403023058681398] * 2)


def test_signature_and_source_before_the_first_call():
    out = _fresh(
        "import inspect\n"
        "print(inspect.signature(graphgrad.sin))\n"
        "graphgrad.ops.codegen.show('cos')\n"
        "print(inspect.getsource(graphgrad.cos).splitlines()[0])\n")
    assert out.splitlines()[0] == "(input, *, out=None)"
    assert "def cos(input, *, out=None):" in out.splitlines()[-1]


def test_first_calls_from_several_threads_at_once():
    out = _fresh(
        "import threading\n"
        "x = graphgrad.arange(4.0)\n"
        "barrier = threading.Barrier(4)\n"
        "res = []\n"
        "def work():\n"
        "    barrier.wait()\n"
        "    res.append(graphgrad.tanh(x).tolist() == [float(v) for v in __import__('numpy').tanh(x.numpy())])\n"
        "ts = [threading.Thread(target=work) for _ in range(4)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "from graphgrad.ops.codegen.sources import SOURCES\n"
        "print(res, sum('graphgrad.tanh' in f for f in SOURCES))\n")
    assert out.strip() == "[True, True, True, True] 1"
