"""graphgrad.distributed and DistributedDataParallel over MPI.

The multi-process tests run ``tests/distributed/mpi_worker.py <scenario>`` under
``mpiexec -n N`` (loopback) and read the JSON rank 0 prints; every collective's result is
checked against NumPy, DDP's trained parameters against single-process training on the
concatenated batch (float64, 1e-12).  Without mpi4py / mpiexec (the `distributed` extra)
they are skipped; the single-process checks (errors, bucket assignment vs PyTorch's,
the launcher's command) run everywhere.
"""
from __future__ import annotations

import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import graphgrad
import graphgrad.distributed as dist
from graphgrad import nn
from graphgrad.distributed import run as ggrun
from graphgrad.nn.parallel.distributed import compute_bucket_assignment_by_size

from . import mpi_worker

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKER = pathlib.Path(__file__).with_name("mpi_worker.py")
MPIEXEC = ggrun.find_mpiexec()
needs_mpi = pytest.mark.skipif(MPIEXEC is None or not dist.is_mpi_available(),
                               reason="needs mpi4py and mpiexec (pip install "
                                      "'graphgrad[distributed]')")


def _env():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return env


def mpirun(scenario, n=2, timeout=60, extra=(), check=True):
    # n=1: no launcher, mpi4py's singleton COMM_WORLD of one rank
    cmd = [MPIEXEC, "-n", str(n), "--oversubscribe"] if n > 1 else []
    cmd += [sys.executable, str(WORKER), scenario, *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(),
                       cwd=ROOT)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if check:
        assert p.returncode == 0 and lines, p.stdout[-3000:] + p.stderr[-3000:]
    return (json.loads(lines[0][7:]) if lines else None), p


# ------------------------------------------------------------------ collectives
@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_collectives_against_numpy(n):
    res, _ = mpirun("collectives", n)
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    per_rank = [base + r + 1 for r in range(n)]
    expect = {"SUM": sum(per_rank), "AVG": sum(per_rank) / n,
              "PRODUCT": np.prod(per_rank, axis=0), "MIN": np.min(per_rank, axis=0),
              "MAX": np.max(per_rank, axis=0)}
    for op, want in expect.items():
        np.testing.assert_allclose(res["all_reduce_" + op], want, rtol=1e-15)
    assert res["all_reduce_BXOR"] == [int(np.bitwise_xor.reduce(np.arange(1, n + 1))),
                                      6 if n % 2 else 0]
    assert res["async_type"] == "Work" and res["async_wait"] is True
    assert res["async"] == [float(sum(range(n)))] * 3
    assert res["broadcast"] == [float(n - 1)] * 2
    assert res["all_gather"] == [[float(r), 10.0 * r] for r in range(n)]
    assert res["all_gather_into_tensor"] == np.repeat(np.arange(n, dtype=float), 4) \
        .reshape(2 * n, 2).tolist()
    full = sum(np.arange(2 * n) * (r + 1) for r in range(n))
    assert res["reduce_scatter_tensor"] == full[:2].tolist()       # rank 0's chunk
    assert res["reduce"] == [float(sum(r + 1 for r in range(n)))]
    assert res["gather"] == [[float(r * r)] for r in range(n)]
    assert res["scatter"] == [[10.0 + r] * 2 for r in range(n)]
    assert res["sendrecv"] == [84.0, 86.0]
    assert res["broadcast_object_list"] == [{"rank": 1}, "x"]
    assert res["all_gather_object"] == [["r", r] for r in range(n)]
    assert res["new_group"] == [[1.0], 1, 0]
    assert res["param_all_reduce"] == [[float(n)] * 2, True, True, 0]
    # the exception types PyTorch's Gloo backend raises for the same mistakes
    err = res["errors"]
    assert err["bad_src"][0] == "RuntimeError" and "invalid rank" in err["bad_src"][1]
    assert err["list_for_tensor"][0] == "TypeError"
    assert err["gather_size"][0] == "RuntimeError" and "[3]" in err["gather_size"][1]
    assert err["gather_len"][0] == "RuntimeError" and "one tensor per rank" in \
        err["gather_len"][1]
    assert err["bad_op"][0] == "TypeError" and "PREMUL_SUM" in err["bad_op"][1]
    # differentiable all_reduce: y = sum_r x_r^2; each rank's loss sum(y) -> grad 2x * n
    assert res["fn_all_reduce"] == [[float(sum((1 + r) ** 2 for r in range(n))), 4.0 * n],
                                    [2.0 * n, 4.0 * n]]
    # differentiable all_gather: loss = sum_i (i+1) x_i on every rank -> rank 0: n * 1
    assert res["fn_all_gather"] == [[[1.0 + r] for r in range(n)], [float(n)]]


def test_not_initialised_errors_as_pytorch():
    import torch.distributed as tdist
    for fn in (lambda d: d.get_rank(), lambda d: d.get_world_size(),
               lambda d: d.barrier()):
        with pytest.raises(ValueError) as ours:
            fn(dist)
        with pytest.raises(ValueError) as theirs:
            fn(tdist)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="init_process_group"):
        dist.all_reduce(graphgrad.ones(2))
    with pytest.raises(ValueError, match="init_process_group"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    assert not dist.is_initialized() and dist.is_available()


def test_reduce_op_names_as_pytorch():
    import torch.distributed as tdist
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert str(ours) == str(theirs) and int(ours) == int(theirs)
        assert ours.name == name


def test_init_errors_before_touching_mpi():
    with pytest.raises(ValueError, match="MPI only"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="init_method"):
        dist.init_process_group("mpi", init_method="tcp://10.0.0.1:23456")
    with pytest.raises(TypeError, match="timedelta"):
        dist.init_process_group("mpi", timeout=5)
    assert not dist.is_initialized()


def test_missing_mpi4py_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(ModuleNotFoundError, match=r"graphgrad\[distributed\]"):
        dist.init_process_group("mpi")
    assert not dist.is_initialized() and not dist.is_mpi_available()
    if MPIEXEC is not None:
        assert ggrun.main(["--nproc-per-node", "2", "x.py"]) == 1
        assert "graphgrad[distributed]" in capsys.readouterr().err
    monkeypatch.setattr(ggrun, "find_mpiexec", lambda: None)
    assert ggrun.main(["--nproc-per-node", "2", "x.py"]) == 1
    assert "graphgrad[distributed]" in capsys.readouterr().err


# ------------------------------------------------------------------ DDP
def _reference(steps, batch, accumulate=1):
    """Single-process training of rank 0's model on the concatenated batch."""
    dist_rank = dist.get_rank
    try:
        dist.get_rank = lambda group=None: 0
        m = mpi_worker.model()
    finally:
        dist.get_rank = dist_rank
    return mpi_worker.train(m, steps, batch, 0, 1, accumulate=accumulate)


def _assert_state(res_state, ref):
    assert sorted(res_state) == sorted("module." + k for k in ref)
    for k, v in ref.items():
        np.testing.assert_allclose(res_state["module." + k], v, rtol=0, atol=1e-12)


@needs_mpi
@pytest.mark.parametrize("n", [1, 2, 4])
def test_ddp_equals_single_process_on_the_concatenated_batch(n):
    res, _ = mpirun("ddp", n)
    _assert_state(res["state"], _reference(3, 4 * n))
    # 4 parameters, one bucket (< 1 MiB): launched once per step
    assert res["buckets"] == [[3, 2, 1, 0]] and res["launch"] == [0, 0, 0]


@needs_mpi
def test_ddp_gradient_as_bucket_view_and_many_buckets():
    res, _ = mpirun("ddp_view", 2)
    _assert_state(res["state"], _reference(3, 8))
    import torch
    tm = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 3))
    assert res["buckets"] == _torch_buckets(tm.double(), 1e-5) == [[3], [2], [1], [0]]
    assert res["launch"] == [0, 1, 2, 3] * 3


@needs_mpi
def test_no_sync_accumulates_then_averages():
    res, _ = mpirun("no_sync", 2)
    _assert_state(res["state"], _reference(2, 6, accumulate=3))


@needs_mpi
def test_unused_parameter_error_names_it():
    res, _ = mpirun("unused", 2)
    assert res["grads"][-2:] == [None, None]
    msg = res["second"]
    assert "find_unused_parameters=True" in msg
    assert "extra.weight" in msg and "extra.bias" in msg and ": 4 5" in msg


@needs_mpi
def test_find_unused_parameters_completes():
    res, _ = mpirun("unused_found", 2)
    assert res["grads"][-2:] == [None, None] and res["second"] == "ok"
    assert all(g is not None for g in res["grads"][:4])


def _torch_buckets(tm, cap_mb=None):
    import torch.distributed as tdist
    ps = [p for p in tm.parameters()][::-1]
    first = tdist._DEFAULT_FIRST_BUCKET_BYTES if cap_mb is None else int(cap_mb * 2 ** 20)
    cap = int((25 if cap_mb is None else cap_mb) * 2 ** 20)
    idx, _ = tdist._compute_bucket_assignment_by_size(ps, [first, cap] if first < cap
                                                      else [cap])
    return [[len(ps) - 1 - j for j in b] for b in idx]


def test_bucket_assignment_matches_pytorch():
    import torch
    import torch.distributed as tdist
    cases = [[(300000,), (10,), (10,), (300000,)], [(100, 100)] * 30, [(5,)],
             [(1000, 300), (300,), (300, 10), (10,)]]
    for shapes in cases:
        for dtypes in ([torch.float32] * len(shapes),
                       [torch.float64 if i % 3 == 1 else torch.float32
                        for i in range(len(shapes))]):
            ts = [torch.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
            gs = [graphgrad.zeros(s, dtype=getattr(graphgrad, str(d).split(".")[1]))
                  for s, d in zip(shapes, dtypes)]
            for limits in ([1 << 20, 25 << 20], [1 << 16], [200000, 100000]):
                assert compute_bucket_assignment_by_size(gs, limits) == \
                    tuple(map(list, tdist._compute_bucket_assignment_by_size(ts, limits)))


@needs_mpi
def test_bucket_order_and_count_as_pytorch_via_the_launcher():
    import torch
    cmd = [sys.executable, "-m", "graphgrad.distributed.run", "--nproc-per-node", "2",
           str(WORKER), "bucket_order"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_env(), cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][0][7:])
    tm = torch.nn.Sequential(*[torch.nn.Linear(300, 300) for _ in range(6)])
    assert res["buckets"] == _torch_buckets(tm, 0.5)
    assert res["launch"] == list(range(len(res["buckets"])))
    assert res["first_launch_before_last_grad"] and res["all_done_before_return"]


@needs_mpi
def test_example_trains_digits():
    pytest.importorskip("sklearn")
    n = 2
    script = ROOT / "examples" / "ddp_digits.py"
    cmd = [sys.executable, "-m", "graphgrad.distributed.run", "--nproc-per-node", str(n),
           str(script), "--epochs", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=_env(), cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "epoch  1/1" in p.stdout and "test accuracy" in p.stdout
    assert all(f"rank {r}:" in p.stdout for r in range(n))
    acc = float(p.stdout.split("test accuracy ")[-1].split("%")[0])
    assert acc > 70


def test_launcher_command(capsys):
    if MPIEXEC is None:
        pytest.skip("no mpiexec")
    assert ggrun.main(["--nproc-per-node", "3", "--dry-run", "train.py", "--lr", "1"]) == 0
    out = capsys.readouterr().out
    assert f"-n 3" in out and out.rstrip().endswith("train.py --lr 1")
    assert sys.executable in out


@needs_mpi
def test_parameters_and_buffers_broadcast_from_rank_0():
    res, _ = mpirun("buffers", 2)
    assert res["init"] == [[[1.0] * 4, [[1.0] * 3] * 4]] * 2
    # before the forward rank 0's running mean (10) reached rank 1 (which had 20); the
    # forward then updated it from each rank's batch, through the broadcast Linear (weight
    # 1, rank 0's bias b): 0.9 * 10 + 0.1 * (3 (r + 1) + b), so the ranks differ by 0.3
    np.testing.assert_allclose(np.array(res["fwd"][1]) - res["fwd"][0], 0.3, rtol=1e-12)
    assert all(8 < v < 11 for v in res["fwd"][0])


@needs_mpi
def test_different_models_on_the_ranks_are_an_error():
    res, _ = mpirun("mismatch", 2)
    assert "rank 1" in res["error"] and "same model" in res["error"]
    assert "(4, 3)" in res["error"] and "(5, 3)" in res["error"]


# ------------------------------------------------------------------ faults
@needs_mpi
def test_a_stuck_rank_makes_the_others_time_out():
    t0 = time.monotonic()
    res, p = mpirun("rank_fails", 2, timeout=60, extra=["1"], check=False)
    assert res is not None, p.stdout[-2000:] + p.stderr[-2000:]
    assert "timed out after 1 s" in res["error"] and 0.9 < res["secs"] < 10
    assert time.monotonic() - t0 < 30


@needs_mpi
def test_a_failing_rank_ends_the_job():
    t0 = time.monotonic()
    res, p = mpirun("rank_raises", 2, timeout=60, check=False)
    assert p.returncode != 0 and res is None
    assert time.monotonic() - t0 < 30
