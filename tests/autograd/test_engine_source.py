"""The engine's per-edge block is written once (NOTE [one per-edge block] in
graphgrad/autograd/engine/edge.py) and emitted into both loops; the expanded loops are
visible like the rest of the generated code (linecache, inspect, tracebacks)."""
import inspect
import linecache

import numpy as np
import pytest

import graphgrad
from graphgrad.autograd.engine import edge, loop
from tests.fresh_interpreter import run_fresh


def _block(lines):
    return "\n".join(lines)


def test_no_macro_line_is_left_and_the_source_is_in_linecache():
    src = loop.compile_loops()
    assert not any(line.lstrip().startswith("@") for line in src.splitlines())
    assert "".join(linecache.getlines(loop.LOOP_FILE)) == src
    assert inspect.getsource(loop._run).startswith("def _run(")
    assert inspect.getsource(loop._run_by_seq).startswith("def _run_by_seq(")
    assert loop._run.__code__.co_filename == loop.LOOP_FILE


def _count(src, lines):
    """How often ``lines`` occur in ``src`` as consecutive lines (any indentation)."""
    body = [line.strip() for line in src.splitlines()]
    want = [line.strip() for line in lines]
    return sum(body[i:i + len(want)] == want for i in range(len(body)))


def test_each_block_is_emitted_into_both_loops():
    loop.compile_loops()
    run = inspect.getsource(loop._run)
    seq = inspect.getsource(loop._run_by_seq)
    acc = edge.accumulate_lines()
    assert _count(run, acc) == 2 and _count(seq, acc) == 1  # (plain and general path)
    plain = edge.validate_lines("i")
    assert _count(run, plain) == 1 and _count(seq, plain) == 1
    assert _count(run, edge.validate_lines("i", create_graph="yes")) == 1
    chain = edge.hand_to_child_lines("k")
    assert _count(run, chain) == 1 and _count(seq, chain) == 1
    assert _count(run, edge.push_child_lines()) == 2 and _count(seq, edge.push_child_lines()) == 1
    assert _count(run, edge.pop_node_lines()) == 1 and _count(seq, edge.pop_node_lines()) == 1


def test_expand_indents_a_macro_as_its_line():
    out = edge.expand("def f():\n    if x:\n        @pop_node\n")
    assert out[2:] == ["        " + line for line in edge.pop_node_lines()]


def test_a_bad_gradient_shape_names_the_generated_loop_line():
    class Bad(graphgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return graphgrad.ones(5)

    x = graphgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid gradient at index 0") as info:
        (Bad.apply(x) * x).sum().backward()
    files = [f.f_code.co_filename for f, _ in __import__("traceback").walk_tb(
        info.value.__traceback__)]
    assert loop.LOOP_FILE in files


@pytest.mark.parametrize("create_graph", [False, True])
def test_general_path_accumulates_three_gradients_into_one_buffer(create_graph):
    # x feeds three ops: the buffer of x's AccumulateGrad and of the shared node get three
    # additions (in place after the first sum when nothing else holds the array)
    x = graphgrad.tensor(np.arange(4.0), requires_grad=True)
    y = x * 1.0
    out = (y * 2 + y * 3 + y.sin()).sum()
    (g,) = graphgrad.autograd.grad(out, x, create_graph=create_graph)
    np.testing.assert_allclose(g.detach().numpy(), 5 + np.cos(np.arange(4.0)))
    if create_graph:
        (gg,) = graphgrad.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(gg.numpy(), -np.sin(np.arange(4.0)))


def test_loops_are_compiled_on_the_first_backward_into_the_imported_functions():
    """NOTE [lazy engine loops]: import compiles nothing; the first backward moves the
    compiled loops into the function objects task.py imported."""
    code = ("from graphgrad.autograd.engine import loop, task\n"
            "import graphgrad\n"
            "print(loop.LOOP_SOURCE is None, loop._run.__code__.co_filename == loop.LOOP_FILE)\n"
            "x = graphgrad.ones(3, requires_grad=True)\n"
            "(x * x).sum().backward()\n"
            "print(loop.LOOP_SOURCE is not None, task._run is loop._run,\n"
            "      task._run.__code__.co_filename == loop.LOOP_FILE,\n"
            "      task._run_by_seq.__code__.co_filename == loop.LOOP_FILE, x.grad.tolist())\n")
    assert run_fresh(code).split("\n")[:2] == ["True False", "True True True True [2.0, 2.0, 2.0]"]


def test_stand_ins_have_the_compiled_loops_signatures():
    """A stand-in whose parameters drift from its loop's would call the compiled code with
    the wrong arguments on the first backward only (NOTE [lazy engine loops])."""
    code = ("import inspect\n"
            "from graphgrad.autograd.engine import loop\n"
            "before = [str(inspect.signature(f)) for f in (loop._run, loop._run_by_seq)]\n"
            "loop.compile_loops()\n"
            "after = [str(inspect.signature(f)) for f in (loop._run, loop._run_by_seq)]\n"
            "print(before == after, loop._run.__defaults__, loop._run_by_seq.__defaults__)\n")
    out = run_fresh(code)
    assert out.split()[0] == "True", out

