"""graphgrad.autograd.profiler against PyTorch's: the events a fixed program records (forward
ops, backward nodes and their nesting), the table, the Chrome trace and its flow events,
record_function, the options (shapes, memory, stack) and misuse."""
from __future__ import annotations

import collections
import json
import re
import threading
import warnings

import numpy as np
import pytest

import graphgrad
from graphgrad.autograd import profiler as gprof
from graphgrad.autograd.profiler import profile, record_function
from graphgrad._core.state import ALL_THREADS, tls
from tests.conftest import torch


def _inputs(lib):
    x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    w = lib.tensor(np.linspace(0, 1, 20).reshape(4, 5), requires_grad=True)
    return x, w


def _forward(lib, x, w):
    h = lib.relu(x @ w)
    h = lib.exp(h) + h * 2
    y = (h.tanh() - 1).pow(2).mean()
    z = lib.cat([h, h], 0).sum()
    return y + z


def _profile_program(lib, **kw):
    x, w = _inputs(lib)
    with lib.autograd.profiler.profile(**kw) as prof:
        with lib.autograd.profiler.record_function("forward"):
            loss = _forward(lib, x, w)
        loss.backward()
    return prof


def _names(events):
    return [e.name for e in events]


def test_forward_ops_and_backward_nodes_equal_torchs():
    ours = _profile_program(graphgrad).function_events
    theirs = _profile_program(torch).function_events
    # the ops the forward calls, in order (those torch runs inside them are its own)
    fwd = [e for e in ours if e.name == "forward"]
    tfwd = [e for e in theirs if e.name == "forward"]
    assert len(fwd) == len(tfwd) == 1
    assert _names(fwd[0].cpu_children) == _names(tfwd[0].cpu_children)
    # the aten ops both record in the forward: same counts
    def subtree(e):
        out = []
        for c in e.cpu_children:
            out += [c.name] + subtree(c)
        return out
    cnt = collections.Counter(subtree(fwd[0]))
    tcnt = collections.Counter(subtree(tfwd[0]))
    # (torch also records the ops its kernels call, e.g. aten::sum in mean; matmul's aten::mm
    # is recorded by both)
    assert set(cnt) <= set(tcnt) and len(cnt) == 12, (cnt, tcnt)
    # the backward: one evaluate_function per node, wrapping the node's own event
    bwd = collections.Counter(n for n in _names(ours) if "Backward" in n or "Accumulate" in n)
    tbwd = collections.Counter(n for n in _names(theirs)
                               if "Backward" in n or "Accumulate" in n)
    assert bwd == tbwd
    for e in ours:
        if e.name.startswith("autograd::engine::evaluate_function: "):
            node = e.name.split(": ", 1)[1]
            assert e.cpu_parent is None
            assert _names(e.cpu_children) == [node]
            assert e.cpu_children[0].sequence_nr == e.sequence_nr


def test_sequence_numbers_link_backward_nodes_to_their_forward_ops():
    prof = _profile_program(graphgrad)
    events = prof.function_events
    fwd_by_seq = {}
    for e in events:
        if e.name.startswith("aten::") and e.sequence_nr >= 0:
            fwd_by_seq.setdefault(e.sequence_nr, []).append(e.name)
    pairs = set()
    for e in events:
        if e.name.endswith("Backward0") and not e.name.startswith("autograd::"):
            pairs.add((e.name, tuple(fwd_by_seq[e.sequence_nr])))
    # (matmul of 2-D tensors makes MmBackward0 in the aten::mm it runs, as in PyTorch)
    assert ("MulBackward0", ("aten::mul",)) in pairs
    assert ("MmBackward0", ("aten::matmul", "aten::mm")) in pairs
    assert ("CatBackward0", ("aten::cat",)) in pairs
    assert ("AddBackward0", ("aten::add",)) in pairs
    # torch: the same forward op names carry the sequence numbers of the same nodes
    tevents = _profile_program(torch).function_events
    tfwd = {e.sequence_nr: e.name for e in tevents
            if e.name.startswith("aten::") and e.sequence_nr >= 0 and e.cpu_parent is not None
            and e.cpu_parent.name == "forward"}
    tpairs = {(e.name, tfwd[e.sequence_nr]) for e in tevents
              if e.name.endswith("Backward0") and not e.name.startswith("autograd::")
              and e.sequence_nr in tfwd}
    assert {(n, f[0]) for n, f in pairs} == tpairs


def _table_rows(table):
    lines = table.splitlines()
    seps = [i for i, l in enumerate(lines) if l.startswith("---")]
    header = lines[seps[0] + 1]
    rows = lines[seps[1] + 1:seps[2]]
    return header, rows, lines


def test_table_rows_and_call_counts_equal_the_events_run():
    x = graphgrad.tensor(np.linspace(0, 1, 8), requires_grad=True)
    with profile() as prof:
        for _ in range(7):
            y = graphgrad.sin(x) * 2
        y.sum().backward()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=-1)
    header, rows, lines = _table_rows(table)
    assert re.split(r"\s{2,}", header.strip()) == [
        "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
        "# of Calls"]
    counts = {re.split(r"\s{2,}", r.strip())[0]: int(r.split()[-1]) for r in rows}
    assert counts == {
        "aten::sin": 7, "aten::mul": 7, "aten::sum": 1,
        "autograd::engine::evaluate_function: SumBackward0": 1, "SumBackward0": 1,
        "autograd::engine::evaluate_function: MulBackward0": 1, "MulBackward0": 1,
        "autograd::engine::evaluate_function: SinBackward0": 1, "SinBackward0": 1,
        "autograd::engine::evaluate_function: torch::autograd...": 1,
        "torch::autograd::AccumulateGrad": 1}
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", lines[-1])
    # sorted by self CPU time, and the percentages add up to 100
    selfs = [e.self_cpu_time_total for e in prof.key_averages()]
    assert prof.self_cpu_time_total == pytest.approx(sum(selfs))
    pct = [float(re.split(r"\s{2,}", r.strip())[1][:-1]) for r in rows]
    assert pct == sorted(pct, reverse=True) and sum(pct) == pytest.approx(100, abs=0.1)
    # row_limit
    assert len(_table_rows(prof.key_averages().table(row_limit=3))[1]) == 3
    total = prof.total_average()
    assert total.key == "Total" and total.count == 23


def test_table_layout_equals_torchs():
    """The same columns, widths and formats as PyTorch's table (the times differ)."""
    def table(lib, **kw):
        x = lib.tensor(np.linspace(0, 1, 8), requires_grad=True)
        with lib.autograd.profiler.profile(**kw) as prof:
            for _ in range(3):
                y = lib.sin(x) * x  # (no scalar: torch would record its conversion)
        return prof.key_averages(group_by_input_shape=kw.get("record_shapes", False)).table(
            sort_by="count", row_limit=2)

    for kw in ({}, {"record_shapes": True}, {"profile_memory": True}):
        ours, theirs = table(graphgrad, **kw), table(torch, **kw)
        h, rows, lines = _table_rows(ours)
        th, trows, tlines = _table_rows(theirs)
        assert h == th and lines[0] == tlines[0], kw
        assert len(rows) == len(trows) == 2

    def shape(s):  # the times blanked out (their widths vary)
        return re.sub(r"\d+\.\d+(us|ms|s|%)", "T", s).split()
    ours = table(graphgrad, record_shapes=True)
    theirs = table(torch, record_shapes=True)
    o = {shape(r)[0]: shape(r) for r in _table_rows(ours)[1]}
    t = {shape(r)[0]: shape(r) for r in _table_rows(theirs)[1]}
    assert o["aten::sin"] == t["aten::sin"]


def test_time_and_memory_formats():
    f = gprof._format_time
    assert (f(0.5), f(999.9994), f(1500.0), f(2.5e6)) == ("0.500us", "999.999us", "1.500ms",
                                                         "2.500s")
    m = gprof._format_memory
    assert (m(12), m(2048), m(3 * 1024 ** 2), m(-5 * 1024 ** 3)) == (
        "12 B", "2.00 KB", "3.00 MB", "-5.00 GB")


def test_record_function_as_context_manager_and_decorator():
    @record_function("my_fn")
    def f(t):
        return graphgrad.exp(t) + 1

    x = graphgrad.ones(3)
    with profile() as prof:
        with record_function("outer", "some args"):
            f(x)
            graphgrad.cos(x)
        f(x)
    ev = prof.function_events
    outer = [e for e in ev if e.name == "outer"]
    assert len(outer) == 1
    assert _names(outer[0].cpu_children) == ["my_fn", "aten::cos"]
    my = [e for e in ev if e.name == "my_fn"]
    assert len(my) == 2 and all(_names(e.cpu_children) == ["aten::exp", "aten::add"]
                                for e in my)
    assert my[0].is_user_annotation
    # without a profiler it does nothing (and returns the function's value)
    assert f(x).shape == (3,)


def test_record_function_misuse_raises_torchs_types():
    for lib in (graphgrad, torch):
        with pytest.raises(AssertionError):
            lib.autograd.profiler.record_function("x").__exit__(None, None, None)
        with pytest.raises(RuntimeError):
            lib.autograd.profiler.record_function(3).__enter__()
    with pytest.raises(RuntimeError, match="name must be a str"):
        record_function(None)


def test_results_before_the_profiler_finished_raise():
    p = profile()
    with pytest.raises(RuntimeError, match="never started"):
        p.key_averages()
    with p:
        graphgrad.ones(1).exp()
        for read in (p.key_averages, p.total_average, lambda: p.self_cpu_time_total,
                     lambda: p.function_events):
            with pytest.raises(RuntimeError, match="didn't finish running"):
                read()
    assert [e.key for e in p.key_averages()] == ["aten::exp"]


def test_nested_and_reentrant_profiles_raise():
    for lib in (graphgrad, torch):
        p = lib.autograd.profiler.profile()
        with pytest.raises(RuntimeError, match="not reentrant"):
            with p:
                with p:
                    pass
    with profile():
        with pytest.raises(RuntimeError, match="already running on this thread"):
            with profile():
                pass
    assert tls.profiler is None and tls.interposers == () and ALL_THREADS.plain


def test_disabled_profile_records_nothing_and_state_is_restored():
    with profile(enabled=False) as p:
        graphgrad.ones(2).sin()
    assert p is None
    x = graphgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError):
        with profile():
            graphgrad.sin(x)
            raise ValueError("boom")
    assert tls.profiler is None and tls.interposers == () and ALL_THREADS.plain
    (graphgrad.sin(x) * 2).sum().backward()  # the plain paths again
    assert np.allclose(x.grad.numpy(), 2 * np.cos(1.0))


def test_values_and_gradients_do_not_change_under_the_profiler():
    x, w = _inputs(graphgrad)
    loss = _forward(graphgrad, x, w)
    loss.backward()
    plain = (loss.item(), x.grad.numpy().copy(), w.grad.numpy().copy())
    x2, w2 = _inputs(graphgrad)
    with profile(record_shapes=True, profile_memory=True, with_stack=True):
        loss2 = _forward(graphgrad, x2, w2)
        loss2.backward()
    assert loss2.item() == plain[0]
    assert np.array_equal(x2.grad.numpy(), plain[1])
    assert np.array_equal(w2.grad.numpy(), plain[2])


def test_other_threads_are_not_profiled():
    with profile() as p:
        t = threading.Thread(target=lambda: graphgrad.ones(2).cos())
        t.start()
        t.join()
        graphgrad.ones(2).sin()
    assert [e.name for e in p.function_events] == ["aten::sin"]


def test_record_shapes_groups_by_input_shape():
    a, b = graphgrad.ones(2, 3), graphgrad.ones(4)
    with profile(record_shapes=True) as p:
        graphgrad.exp(a)
        graphgrad.exp(b)
        graphgrad.exp(b)
    rows = {(e.key, e.input_shapes and str(e.input_shapes), e.count)
            for e in p.key_averages(group_by_input_shape=True)}
    assert {(k, c) for k, _, c in rows} == {("aten::exp", 1), ("aten::exp", 2)}
    shapes = sorted(str(e.input_shapes) for e in p.key_averages(group_by_input_shape=True))
    assert shapes[0].startswith("[[2, 3]") and shapes[1].startswith("[[4]")
    assert "Input Shapes" in p.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" not in p.key_averages().table()


def test_profile_memory_counts_output_allocations():
    a = graphgrad.ones(100, dtype=graphgrad.float64)
    with profile(profile_memory=True) as p:
        with record_function("block"):
            b = graphgrad.exp(a)         # 800 B
            c = b.view(10, 10)           # a view: nothing new
            b.mul_(2)                    # in place: nothing new
            d = graphgrad.cat([a, a])    # 1600 B
    ev = {e.name: e for e in p.function_events}
    assert ev["aten::exp"].cpu_memory_usage == 800
    assert ev["aten::view"].cpu_memory_usage == 0
    assert ev["aten::mul_"].cpu_memory_usage == 0
    assert ev["aten::cat"].cpu_memory_usage == 1600
    assert ev["block"].cpu_memory_usage == 2400 and ev["block"].self_cpu_memory_usage == 0
    table = p.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table and "2.34 KB" in table
    del c, d


def test_with_stack_records_the_users_frames():
    def user_function(t):
        return graphgrad.exp(t)

    with profile(with_stack=True) as p:
        user_function(graphgrad.ones(2))
    (e,) = p.function_events
    assert e.stack[0].endswith(": user_function") and "test_profiler.py(" in e.stack[0]
    assert "test_with_stack_records_the_users_frames" in e.stack[1]
    assert not any("graphgrad" + "/" in s and "tests" not in s for s in e.stack)
    avg = p.key_averages(group_by_stack_n=1)
    assert avg[0].stack == e.stack[:1]
    assert "Source Location" in avg.table()


def test_chrome_trace_is_valid_and_links_backward_nodes_to_forward_ops(tmp_path):
    prof = _profile_program(graphgrad, record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    for e in events:
        for k in ("ph", "ts", "pid", "tid", "name"):
            assert k in e, e
        if e["ph"] == "X":
            assert e["dur"] >= 0 and isinstance(e["ts"], (int, float))
    ops = [e for e in events if e["ph"] == "X"]
    assert len(ops) == len(prof.function_events)
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = [e for e in events if e["ph"] == "f"]
    nodes = [e for e in ops if e["name"].endswith("Backward0")
             and not e["name"].startswith("autograd::")]
    assert len(ends) == len(nodes) == 12 and len(starts) == 12
    for f in ends:
        s = starts[f["id"]]
        assert f["cat"] == s["cat"] == "fwdbwd" and f["bp"] == "e"
        (bwd,) = [e for e in nodes if e["ts"] == f["ts"]]
        (fwd,) = [e for e in ops if e["ts"] == s["ts"] and e["name"].startswith("aten::")
                  and e["args"].get("Sequence number") == bwd["args"]["Sequence number"]]
        op = fwd["name"][len("aten::"):]
        node = bwd["name"][:-len("Backward0")].lower()
        assert node in (op, "mm" if op == "matmul" else op), (fwd["name"], bwd["name"])
    # torch's trace has the same kinds of flow events
    tp = _profile_program(torch)
    tpath = tmp_path / "torch.json"
    tp.export_chrome_trace(str(tpath))
    with open(tpath) as f:
        tev = json.load(f)["traceEvents"]
    assert len([e for e in tev if e["ph"] == "f"]) == len(ends)


def test_gzip_trace(tmp_path):
    import gzip
    with profile() as p:
        graphgrad.ones(2).sin()
    path = tmp_path / "t.json.gz"
    p.export_chrome_trace(str(path))
    with gzip.open(path, "rt") as f:
        assert json.load(f)["traceEvents"]


def test_create_graph_backward_ops_nest_in_the_node():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)
    with profile() as p:
        y = (x * x).sum()
        (g,) = graphgrad.autograd.grad(y, x, create_graph=True)
    ev = p.function_events
    (node,) = [e for e in ev if e.name == "MulBackward0"]
    assert node.cpu_children and all(c.name.startswith("aten::") for c in node.cpu_children)
    assert g.requires_grad


def test_bookkeeping_is_taken_out_of_the_times():
    """The clock that stops while the profiler works (``_virtual_times``): with a known
    overhead per event, a parent's time does not grow with the events inside it."""
    op = graphgrad.ops.registry.PUBLIC["sin"]
    oh = {"inner": 10.0, "outer": 20.0, "clock": 0.0, "bwd": 0.0}
    # a user range [0, 1000] holding three ops of 100 ns of work each, recorded with
    # 10 ns inside each op's interval and 20 ns around it
    raw = [(gprof._USER, 0, 1000, -1, "r")]
    t = 100
    for _ in range(3):
        t += 10  # half the outer overhead before
        raw.append((op, t, t + 110, -1, None))
        t += 110 + 10
    v0, v1 = gprof._virtual_times(raw, oh)
    durs = v1 - v0
    assert list(durs[1:]) == [100.0, 100.0, 100.0]
    assert durs[0] == 1000 - 3 * 30


def test_emit_nvtx_and_itt_warn_and_run_the_block():
    for cm in (gprof.emit_nvtx, gprof.emit_itt):
        with pytest.warns(UserWarning, match="not available"):
            with cm():
                y = graphgrad.ones(1) + 1
        assert y.item() == 2
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with cm(enabled=False):
                pass


def test_use_cuda_warns_and_profiles_the_cpu():
    with pytest.warns(Warning):
        with profile(use_cuda=True) as p:
            graphgrad.ones(1).exp()
    assert [e.name for e in p.function_events] == ["aten::exp"]


def test_names_on_the_package():
    assert graphgrad.autograd.profiler is gprof
    assert graphgrad.autograd.profiler.profile is profile
    assert graphgrad.profiler.record_function is record_function


def test_seed_004_example_runs():
    x = graphgrad.randn((1, 1), requires_grad=True)
    with graphgrad.autograd.profiler.profile() as prof:
        for _ in range(100):  # any normal python code, really!
            y = x ** 2
            y.backward()
    table = prof.key_averages().table(sort_by="self_cpu_time_total")
    counts = {re.split(r"\s{2,}", r.strip())[0]: int(r.split()[-1])
              for r in _table_rows(table)[1]}
    assert counts["aten::pow"] == 100 and counts["PowBackward0"] == 100
    assert counts["torch::autograd::AccumulateGrad"] == 100


def test_a_failing_backward_leaves_no_open_turn():
    x = graphgrad.tensor([1.0, 2.0], requires_grad=True)

    def bad(g):
        raise ValueError("hook failed")

    with profile() as p:
        y = graphgrad.exp(x) * 2
        y.register_hook(bad)
        with pytest.raises(ValueError):
            y.sum().backward()
        z = graphgrad.sin(x).sum()
        z.backward()
    names = [e.name for e in p.function_events]
    assert names.count("SinBackward0") == 1 and "ExpBackward0" not in names
    assert x.grad is not None


def test_trace_with_stack_names_the_users_frames(tmp_path):
    def user_step(t):
        return graphgrad.exp(t)

    with profile(with_stack=True) as p:
        user_step(graphgrad.ones(2))
    path = tmp_path / "s.json"
    p.export_chrome_trace(str(path))
    with open(path) as f:
        (op,) = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    assert op["args"]["Call stack"].split(";")[0].endswith(": user_step")


def test_profiler_util_names():
    from graphgrad.autograd import profiler_util
    assert profiler_util.EventList is gprof.EventList
    assert graphgrad.autograd.profiler_util.FunctionEventAvg is gprof.FunctionEventAvg


def test_profiler_under_another_interposer():
    from graphgrad.ops.interpose import interposing
    seen = []

    def log(op, call, args, kwargs):
        seen.append(op.name)
        return call(args, kwargs)

    x = graphgrad.ones(3, requires_grad=True)
    with interposing(log):
        with profile(record_shapes=True) as p:
            y = graphgrad.sin(x) * 2
        with profile() as q:
            y.sum().backward()
    assert [e.name for e in p.function_events] == ["aten::sin", "aten::mul"]
    assert p.function_events[0].input_shapes == [[3]]
    assert "SinBackward0" in [e.name for e in q.function_events]
    assert [n.split(".")[0] for n in seen][:2] == ["sin", "mul"]
    assert np.allclose(x.grad.numpy(), 2 * np.cos(1.0))
