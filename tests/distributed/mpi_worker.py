"""Programs the distributed tests run under ``mpiexec -n N`` (one per scenario, chosen by
argv[1]); rank 0 prints one JSON line ``RESULT {...}`` the test reads."""
import json
import sys
import time

import numpy as np

import graphgrad as torch
import graphgrad.distributed as dist
from graphgrad import nn


def model(seed=0, unused=False):
    torch.manual_seed(seed + 100 * dist.get_rank())   # different per rank: DDP broadcasts
    m = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)).double()
    if unused:
        return WithUnused(m)
    return m


class WithUnused(nn.Module):
    def __init__(self, seq):
        super().__init__()
        self.seq = seq
        self.extra = nn.Linear(3, 3).double()   # never used in forward

    def forward(self, x):
        return self.seq(x)


def data(steps, batch, world):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps, batch * world, 5))
    y = rng.standard_normal((steps, batch * world, 3))
    return x, y


def train(m, steps, batch, rank, world, accumulate=1):
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    x, y = data(steps * accumulate, batch, world)
    for s in range(steps):
        opt.zero_grad()
        for a in range(accumulate):
            k = s * accumulate + a
            xb = torch.tensor(x[k, rank * batch:(rank + 1) * batch])
            yb = torch.tensor(y[k, rank * batch:(rank + 1) * batch])
            loss = ((m(xb) - yb) ** 2).mean() / accumulate
            if accumulate > 1 and a < accumulate - 1 and hasattr(m, "no_sync"):
                with m.no_sync():
                    loss.backward()
            else:
                loss.backward()
        opt.step()
    return {k: v.tolist() for k, v in m.state_dict().items()}


def collectives():
    r, n = dist.get_rank(), dist.get_world_size()
    out = {}
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    for op in ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]:
        t = torch.tensor(base + r + 1)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        out["all_reduce_" + op] = t.tolist()
    t = torch.tensor([1 + r, 6], dtype=torch.int64)
    dist.all_reduce(t, op=dist.ReduceOp.BXOR)
    out["all_reduce_BXOR"] = t.tolist()
    t = torch.full((3,), float(r))
    w = dist.all_reduce(t, async_op=True)
    out["async_type"] = type(w).__name__
    out["async_wait"] = w.wait()
    out["async"] = t.tolist()
    t = torch.full((2,), float(r))
    dist.broadcast(t, src=n - 1)
    out["broadcast"] = t.tolist()
    lst = [torch.zeros(2) for _ in range(n)]
    dist.all_gather(lst, torch.tensor([float(r), 10.0 * r]))
    out["all_gather"] = [x.tolist() for x in lst]
    o = torch.zeros(2 * n, 2)
    dist.all_gather_into_tensor(o, torch.full((2, 2), float(r)))
    out["all_gather_into_tensor"] = o.tolist()
    o = torch.zeros(2)
    dist.reduce_scatter_tensor(o, torch.arange(2 * n, dtype=torch.float32) * (r + 1))
    out["reduce_scatter_tensor"] = o.tolist()
    t = torch.tensor([float(r + 1)])
    dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
    out["reduce"] = t.tolist()
    gl = [torch.zeros(1) for _ in range(n)] if r == 0 else None
    dist.gather(torch.tensor([float(r * r)]), gl, dst=0)
    out["gather"] = [x.tolist() for x in gl] if r == 0 else None
    t = torch.zeros(2)
    dist.scatter(t, [torch.full((2,), float(10 + i)) for i in range(n)] if r == 0 else None,
                 src=0)
    out["scatter_" + str(r)] = t.tolist()
    got = [None] * n
    dist.all_gather_object(got, out["scatter_" + str(r)])
    out["scatter"] = got
    if n >= 2:
        if r == 0:
            dist.send(torch.tensor([42.0, 43.0]), dst=1)
        elif r == 1:
            t = torch.zeros(2)
            dist.recv(t, src=0)
            dist.send(t * 2, dst=0)
        if r == 0:
            t = torch.zeros(2)
            dist.recv(t, src=1)
            out["sendrecv"] = t.tolist()
    objs = [{"rank": r}, "x" * r] if r == 1 else [None, None]
    dist.broadcast_object_list(objs, src=1 % n)
    out["broadcast_object_list"] = objs
    allo = [None] * n
    dist.all_gather_object(allo, ("r", r))
    out["all_gather_object"] = allo
    g = dist.new_group([0])
    if r == 0:
        t = torch.ones(1)
        dist.all_reduce(t, group=g)
        out["new_group"] = [t.tolist(), dist.get_world_size(g), dist.get_rank(g)]
    dist.barrier()
    # requires grad: the collective is not recorded (and, as PyTorch's, not a version bump)
    p = torch.ones(2, requires_grad=True)
    dist.all_reduce(p)
    out["param_all_reduce"] = [p.tolist(), p.grad_fn is None, p.requires_grad, p._version]
    errors = {}
    t = torch.ones(2)
    for key, fn in {"bad_src": lambda: dist.broadcast(t, src=n + 3),
                    "list_for_tensor": lambda: dist.all_reduce([t]),
                    "gather_size": lambda: dist.all_gather([torch.ones(3)] * n, t),
                    "gather_len": lambda: dist.all_gather([t] * (n + 1), t),
                    "bad_op": lambda: dist.all_reduce(t, op=dist.ReduceOp.PREMUL_SUM)}.items():
        try:
            fn()
            errors[key] = None
        except Exception as e:  # noqa: BLE001
            errors[key] = [type(e).__name__, str(e)]
    out["errors"] = errors
    # differentiable
    x = torch.tensor([1.0 + r, 2.0], requires_grad=True, dtype=torch.float64)
    y = dist.nn.functional.all_reduce(x * x)
    y.sum().backward()
    out["fn_all_reduce"] = [y.tolist(), x.grad.tolist()]
    x = torch.tensor([1.0 + r], requires_grad=True, dtype=torch.float64)
    parts = dist.nn.functional.all_gather(x)
    sum((i + 1) * q for i, q in enumerate(parts)).sum().backward()
    out["fn_all_gather"] = [[q.tolist() for q in parts], x.grad.tolist()]
    return out


def ddp(steps=3, batch=4, **kw):
    r, n = dist.get_rank(), dist.get_world_size()
    m = nn.parallel.DistributedDataParallel(model(), **kw)
    return {"state": train(m, steps, batch, r, n), "launch": m._launch_log,
            "buckets": m._bucket_indices}


def no_sync(steps=2, batch=3):
    r, n = dist.get_rank(), dist.get_world_size()
    m = nn.parallel.DistributedDataParallel(model())
    return {"state": train(m, steps, batch, r, n, accumulate=3)}


def unused(find):
    m = nn.parallel.DistributedDataParallel(model(unused=True), find_unused_parameters=find)
    x = torch.ones(2, 5, dtype=torch.float64)
    m(x).sum().backward()
    out = {"grads": [None if p.grad is None else p.grad.tolist() for p in m.parameters()]}
    try:
        m(x).sum().backward()
        out["second"] = "ok"
    except RuntimeError as e:
        out["second"] = str(e)
    return out


def bucket_order():
    m = nn.Sequential(*[nn.Linear(300, 300) for _ in range(6)])
    ddp_ = nn.parallel.DistributedDataParallel(m, bucket_cap_mb=0.5)
    ddp_(torch.ones(2, 300)).sum().backward()
    st = ddp_._stats[-1]
    return {"buckets": ddp_._bucket_indices, "launch": ddp_._launch_log,
            # overlap: the first bucket went out while backward still had gradients to make
            "first_launch_before_last_grad": st["buckets"][0][0] < st["last_ready"],
            "all_done_before_return": all(d <= st["end"] for _, d in st["buckets"])}


def buffers():
    """Rank 0's parameters and buffers reach every rank at construction; with
    broadcast_buffers they are broadcast again before each forward."""
    r, n = dist.get_rank(), dist.get_world_size()
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).double()
    with torch.no_grad():
        m[1].running_mean.fill_(float(r + 1))
        m[0].weight.fill_(float(r + 1))
    ddp_ = nn.parallel.DistributedDataParallel(m)
    after_init = [None] * n
    dist.all_gather_object(after_init, [m[1].running_mean.tolist(), m[0].weight.tolist()])
    with torch.no_grad():
        m[1].running_mean.fill_(float(10 * (r + 1)))
    ddp_(torch.ones(2, 3, dtype=torch.float64) * (r + 1))
    after_fwd = [None] * n
    dist.all_gather_object(after_fwd, m[1].running_mean.tolist())
    return {"init": after_init, "fwd": after_fwd}


def mismatch():
    """Ranks that built different models: DDP's construction says so on every rank."""
    m = nn.Linear(3, 4 + dist.get_rank())
    try:
        nn.parallel.DistributedDataParallel(m)
    except RuntimeError as e:
        return {"error": str(e)}
    return {"error": None}


def rank_fails():
    """Rank 1 is stuck (never joins the all_reduce): rank 0 must time out."""
    if dist.get_rank() == 1:
        time.sleep(3)
        return None
    t0 = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1))
    except dist.DistBackendError as e:
        return {"error": str(e), "secs": time.monotonic() - t0}
    return {"error": None}


def rank_raises():
    """Rank 1 raises mid-step: the launcher must end the whole job."""
    m = nn.parallel.DistributedDataParallel(model())
    if dist.get_rank() == 1:
        raise RuntimeError("rank 1 failed")
    m(torch.ones(2, 5, dtype=torch.float64)).sum().backward()
    return {"finished": True}


def overlap():
    r, n = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    m = nn.Sequential(*[nn.Linear(512, 512) for _ in range(8)])
    ddp_ = nn.parallel.DistributedDataParallel(m, bucket_cap_mb=1)
    x = torch.randn(1024, 512)
    for _ in range(3):
        y = ddp_(x).sum()
        t0 = time.perf_counter()
        y.backward()
        t1 = time.perf_counter()
    st = ddp_._stats[-1]
    comm = sum(d - a for a, d in st["buckets"])
    exposed = st["end"] - st["last_ready"]
    return {"backward_s": t1 - t0, "comm_s": comm, "exposed_s": exposed,
            "buckets": len(st["buckets"]), "hidden": max(0.0, 1 - exposed / comm) if comm else 1.0}


if __name__ == "__main__":
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    import datetime
    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=timeout))
    name = sys.argv[1]
    fn = {"collectives": collectives, "ddp": ddp, "no_sync": no_sync,
          "ddp_view": lambda: ddp(gradient_as_bucket_view=True, bucket_cap_mb=1e-5),
          "unused": lambda: unused(False), "unused_found": lambda: unused(True),
          "bucket_order": bucket_order, "buffers": buffers, "mismatch": mismatch, "rank_fails": rank_fails, "rank_raises": rank_raises, "overlap": overlap}[name]
    res = fn()
    if dist.get_rank() == 0:
        print("RESULT " + json.dumps(res), flush=True)
    if name == "rank_fails":
        import os
        os._exit(0)      # rank 1 never joined: MPI cannot finalize cleanly
    dist.destroy_process_group()
