"""graphgrad.profiler against torch.profiler: schedules, step(), on_trace_ready,
tensorboard_trace_handler, activities, and the results of a scheduled run."""
from __future__ import annotations

import json
import os
import re
import warnings

import numpy as np
import pytest

import graphgrad
from graphgrad import profiler as gp
from graphgrad._core.state import ALL_THREADS, tls
from tests.conftest import torch

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
             dict(wait=0, warmup=0, active=1), dict(wait=2, warmup=1, active=3, repeat=2),
             dict(wait=1, warmup=2, active=1, repeat=3, skip_first=2),
             dict(wait=3, warmup=0, active=2, skip_first=5),
             dict(wait=2, warmup=1, active=1, repeat=1, skip_first=3, skip_first_wait=1)]


@pytest.mark.parametrize("kw", SCHEDULES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in
                                                                   kw.items()))
def test_schedule_actions_equal_torchs(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = gp.schedule(**kw)
        theirs = torch.profiler.schedule(**kw)
    assert [ours(s).name for s in range(30)] == [theirs(s).name for s in range(30)]


def test_schedule_bad_arguments_raise_torchs_types():
    for lib in (gp, torch.profiler):
        with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
            lib.schedule(wait=-1, warmup=0, active=1)
        with pytest.raises(AssertionError):
            lib.schedule(wait=1, warmup=1, active=0)
        with pytest.raises(TypeError):
            lib.schedule(1, 1, 1)
        with pytest.raises(AssertionError):
            lib.schedule(wait=0, warmup=1, active=1)(-1)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        gp.schedule(wait=1, warmup=0, active=1)


def _scheduled_run(lib, kw, steps=9):
    """For each on_trace_ready call: its number of steps (events "ProfilerStep*"), of
    aten::exp events, and the step number."""
    seen = []

    def ready(prof):
        names = [e.name for e in prof.events()]
        seen.append((names.count("ProfilerStep*"), names.count("aten::exp"), prof.step_num))

    x = lib.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  schedule=lib.profiler.schedule(**kw),
                                  on_trace_ready=ready) as p:
            for _ in range(steps):
                lib.exp(x)
                p.step()
    return seen


@pytest.mark.parametrize("kw", SCHEDULES[:5], ids=str)
def test_scheduled_cycles_equal_torchs(kw):
    assert _scheduled_run(graphgrad, kw) == _scheduled_run(torch, kw)


def test_tensorboard_trace_handler_writes_torchs_file_names(tmp_path):
    d = tmp_path / "log"
    x = graphgrad.ones(2, requires_grad=True)
    with gp.profile(schedule=gp.schedule(wait=0, warmup=1, active=1, repeat=2),
                    on_trace_ready=gp.tensorboard_trace_handler(str(d), "worker0")) as p:
        for _ in range(4):
            graphgrad.sin(x).sum().backward()
            p.step()
    names = sorted(os.listdir(d))
    assert len(names) == 2
    assert all(re.fullmatch(r"worker0\.\d+\.pt\.trace\.json", n) for n in names)
    for n in names:
        with open(d / n) as f:
            doc = json.load(f)
        ev = [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"]
        assert "aten::sin" in ev and any(n.startswith("ProfilerStep#") for n in ev)
        assert "autograd::engine::evaluate_function: SinBackward0" in ev
    # gzip and the default worker name (host_pid)
    d2 = tmp_path / "gz"
    with gp.profile(on_trace_ready=gp.tensorboard_trace_handler(str(d2), use_gzip=True)):
        graphgrad.ones(1).exp()
    (n,) = os.listdir(d2)
    assert n.endswith(".pt.trace.json.gz") and f"_{os.getpid()}." in n


def test_profile_results_and_table():
    x = graphgrad.tensor(np.ones(4), requires_grad=True)
    with gp.profile(activities=[gp.ProfilerActivity.CPU], record_shapes=True,
                    profile_memory=True) as p:
        with gp.record_function("model"):
            y = (x * x).sum()
        y.backward()
    names = [e.name for e in p.events()]
    assert names[:3] == ["model", "aten::mul", "aten::sum"]
    table = p.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "CPU Mem" in table and "Input Shapes" in table
    assert table.splitlines()[-1].startswith("Self CPU time total: ")


def test_start_stop_and_step_without_schedule():
    p = gp.profile()
    p.start()
    graphgrad.ones(1).exp()
    p.step()  # (no schedule: recording continues)
    graphgrad.ones(1).cos()
    p.stop()
    assert [e.name for e in p.events()] == ["aten::exp", "aten::cos"]
    assert tls.profiler is None and tls.interposers == () and ALL_THREADS.plain


def test_cuda_activity_warns_and_cpu_only_is_required():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with gp.profile(activities=[gp.ProfilerActivity.CPU, gp.ProfilerActivity.CUDA]) as p:
            graphgrad.ones(1).exp()
    assert [e.name for e in p.events()] == ["aten::exp"]
    for lib in (gp, torch.profiler):
        with pytest.raises(AssertionError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.profile(activities=[lib.ProfilerActivity.CUDA]):
                pass
    with pytest.raises(TypeError, match="ProfilerActivity"):
        gp.profile(activities=["cpu"])


def test_results_without_a_recording_raise():
    p = gp.profile(schedule=gp.schedule(wait=5, warmup=1, active=1))
    with p:
        graphgrad.ones(1).exp()
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        p.key_averages()


def test_nested_profilers_on_one_thread_raise():
    with gp.profile():
        with pytest.raises(RuntimeError, match="already running"):
            with gp.profile():
                pass
    assert tls.profiler is None and ALL_THREADS.plain


def test_names():
    assert graphgrad.profiler.ProfilerAction.RECORD_AND_SAVE.value == 3
    assert gp.supported_activities() == {gp.ProfilerActivity.CPU}
    assert {a.name for a in gp.ProfilerAction} == {a.name for a in torch.profiler.ProfilerAction
                                                  if a.name != "DEVICE_STOPPED"}


def test_with_stack_and_chrome_trace_through_the_new_api(tmp_path):
    import json

    def user_step(t):
        return (t * t).sum()

    x = graphgrad.tensor(np.ones(4), requires_grad=True)
    with gp.profile(activities=[gp.ProfilerActivity.CPU], with_stack=True) as p:
        user_step(x).backward()
    (mul,) = [e for e in p.events() if e.name == "aten::mul"]
    assert mul.stack and mul.stack[0].endswith(": user_step")
    assert "Source Location" in p.key_averages(group_by_stack_n=2).table()
    path = tmp_path / "t.json"
    p.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert {"aten::mul", "autograd::engine::evaluate_function: MulBackward0"} <= \
        {e["name"] for e in events if e["ph"] == "X"}
    assert len([e for e in events if e["ph"] == "f"]) == 2  # MulBackward0, SumBackward0


def test_use_cpu_false_raises_as_torch():
    for lib in (graphgrad, torch):
        with pytest.raises(AssertionError):
            with lib.autograd.profiler.profile(use_cpu=False):
                lib.ones(1).exp()
