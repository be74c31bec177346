"""Steady-state timings, each library in its own process (the primary figure).

On 2 shared vCPUs a second BLAS/OpenMP thread that cannot get a CPU makes a call wait
for a scheduler tick, and one library's spinning thread pool slows the next library in
the same process.  So here every library runs in a child process of its own, with one
compute thread (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1)); each child
warms up, then times back-to-back runs as a training loop would, and reports the median.
The parent alternates the children over several rounds (g t, t g, g t, ...) and prints
the median of the per-round ratios graphgrad/PyTorch and their spread (min-max).

    python -m benchmarks.steady                    # every workload, 5 rounds
    python -m benchmarks.steady --only module_call --rounds 7
    python -m benchmarks.steady --check --only w7_rosenbrock,w8_transformer,w9_cnn

Workloads (``WORKLOADS``): each is ``setup(lib) -> step`` where ``step()`` is one timed
unit of work; ``REPEAT`` units are timed back to back per sample.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# ----------------------------------------------------------------- workloads
def _digits(lib):
    """sklearn's digits (1797 x 64, 10 classes) when installed, else data of that shape."""
    import numpy as np
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        x, y = d.data / 16.0, d.target
    except ImportError:
        rng = np.random.default_rng(0)
        x, y = rng.random((1797, 64)), rng.integers(0, 10, 1797)
    return lib.tensor(x, dtype=lib.float32), lib.tensor(y, dtype=lib.int64)


def module_call(lib):
    """``Module.__call__`` with no hooks registered, around a forward that does nothing."""
    class Nothing(lib.nn.Module):
        def forward(self, x):
            return x

    m = Nothing()
    x = lib.zeros(1)

    def step():
        for _ in range(1000):
            m(x)
    return step


def digits_mlp_epoch(lib):
    """One training epoch of a 64-128-64-10 MLP on digits: DataLoader (batch 64, shuffled),
    cross entropy, backward, SGD with momentum (28 steps)."""
    lib.manual_seed(0)
    nn = lib.nn
    x, y = _digits(lib)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=64,
                                       shuffle=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
    return step


def digits_adam_epoch(lib):
    """The same epoch with Adam."""
    lib.manual_seed(0)
    nn = lib.nn
    x, y = _digits(lib)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=64,
                                       shuffle=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
    return step


def _graph_workload(modname):
    """A ``wN_*`` module with ``make_data``/``build``/``run_graph``: parameters made once,
    their grads cleared at the start of every run (as a training loop does)."""
    def setup(lib):
        import importlib
        wl = importlib.import_module(f"benchmarks.{modname}")
        state = wl.build(lib, wl.make_data(0))
        if modname == "w7_rosenbrock":
            x = state["x"]
            return lambda: wl.value_and_grad(x)
        return lambda: wl.run_graph(lib, state)
    return setup


def per_sample_grads_mlp(lib):
    """Per-sample gradients, torch.func's tutorial way: ``vmap(grad(loss), in_dims=(None, 0,
    0))`` of a 64-128-10 MLP (ReLU, cross entropy, float32) over a batch of 64 examples
    (issue 21's performance bar: graphgrad <= 1.0x torch.func)."""
    import numpy as np
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))
    per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def w7_func_grad(lib):
    """W7 (Rosenbrock-10, float64) by the function transform: ``func.grad(f)(x)`` -- the
    gradient only, as HIPS autograd's ``grad(f)(x)`` (its peer, ``--peers autograd``)."""
    import importlib
    wl = importlib.import_module("benchmarks.w7_rosenbrock")
    x = lib.tensor(wl.make_data(0)["x"])
    g = lib.func.grad(wl.rosenbrock)
    return lambda: g(x)


GRAPH_WORKLOADS = {"w7_rosenbrock": "w7_rosenbrock", "w8_transformer": "w8_transformer",
                   "w9_cnn": "w9_cnn"}
WORKLOADS = {"module_call": module_call, "digits_mlp_epoch": digits_mlp_epoch,
             "digits_adam_epoch": digits_adam_epoch,
             **{name: _graph_workload(mod) for name, mod in GRAPH_WORKLOADS.items()},
             "per_sample_grads_mlp": per_sample_grads_mlp, "w7_func_grad": w7_func_grad}
REPEAT = {"module_call": 20, "digits_mlp_epoch": 1, "digits_adam_epoch": 1,
          "w7_rosenbrock": 200, "w8_transformer": 1, "w9_cnn": 1,
          "per_sample_grads_mlp": 20, "w7_func_grad": 200}
UNITS = {"module_call": ("us/call", 1e6 / 1000), "w7_rosenbrock": ("us", 1e6),
         "w7_func_grad": ("us", 1e6)}
PEER_WORKLOADS = {"w7_rosenbrock": "value_and_grad", "w7_func_grad": "grad"}  # --peers


def check_graph_workloads(names):
    """Run each graph workload once on graphgrad and on PyTorch in this process and
    compare the loss and every gradient (tolerances ``TOL`` of the workload module)."""
    import importlib
    import numpy as np
    import torch
    import graphgrad
    ok = True
    for name in names:
        if name not in GRAPH_WORKLOADS:
            continue
        wl = importlib.import_module(f"benchmarks.{GRAPH_WORKLOADS[name]}")
        data = wl.make_data(0)
        if hasattr(wl, "run_graph") and name != "w7_rosenbrock":
            got = wl.run_graph(graphgrad, wl.build(graphgrad, data))
            ref = wl.run_graph(torch, wl.build(torch, data))
        else:
            got = wl.value_and_grad(wl.build(graphgrad, data)["x"])
            ref = wl.value_and_grad(wl.build(torch, data)["x"])
        worst, this_ok = 0.0, True
        for g, r in zip(got, ref):
            g, r = np.asarray(g.detach().numpy(), np.float64), r.detach().double().numpy()
            scale = float(np.max(np.abs(r))) or 1.0
            worst = max(worst, float(np.max(np.abs(g - r))) / scale)
            if not np.allclose(g, r, rtol=wl.TOL["rtol"], atol=wl.TOL["atol"] * scale):
                this_ok = ok = False
        print(f"{name}: {'ok' if this_ok else 'MISMATCH'} (max err / max|ref| {worst:.1e})")
    return ok


# ----------------------------------------------------------------- child
def child(libname, workload, samples):
    import gc
    import importlib
    if libname.startswith("peer:"):  # a NumPy-based W7 peer (autograd, mygrad, numpy)
        wl = importlib.import_module("benchmarks.w7_rosenbrock")
        step = wl.peer_step(libname[5:], wl.make_data(0), PEER_WORKLOADS[workload])
    else:
        lib = importlib.import_module(libname)
        if libname == "torch":
            lib.set_num_threads(1)
        step = WORKLOADS[workload](lib)
    for _ in range(3):  # warm-up
        step()
    gc.collect()
    gc.freeze()
    times, cpu = [], []
    for _ in range(samples):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(REPEAT[workload]):
            step()
        times.append((time.perf_counter() - t0) / REPEAT[workload])
        cpu.append((time.process_time() - c0) / REPEAT[workload])
    # peak memory, after the timing: max RSS of this process (the library's import
    # included), and the tracemalloc peak of one more step (NumPy reports its arrays to
    # tracemalloc, PyTorch's allocator does not: no figure for torch)
    import resource
    import tracemalloc
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    traced = None
    if libname == "graphgrad":
        gc.collect()
        tracemalloc.start()
        step()
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(json.dumps({"median": statistics.median(times), "min": min(times),
                      "cpu_median": statistics.median(cpu), "maxrss": rss, "traced": traced}))


def run_child(libname, workload, samples, python=None):
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    out = subprocess.run([python or sys.executable, "-m", "benchmarks.steady", "--child", libname,
                          workload, str(samples)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=",".join(WORKLOADS))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--child", nargs=3, metavar=("LIB", "WORKLOAD", "SAMPLES"))
    p.add_argument("--peers", default="",
                   help="W7 only (w7_rosenbrock, w7_func_grad): NumPy-based peers timed in the "
                   "same rounds, e.g. numpy,autograd,mygrad (numpy: the hand-written value and "
                   "gradient; graphgrad-backward: graphgrad's backward() path, which runs in "
                   "this interpreter)")
    p.add_argument("--peer-python", default=None,
                   help="the interpreter that has the peers installed (default: this one)")
    p.add_argument("--cpu-time", action="store_true",
                   help="also print the CPU time (process_time) of each library and its ratio: "
                   "on a machine loaded by other processes the wall time includes waiting for "
                   "a CPU, the CPU time does not")
    p.add_argument("--check", action="store_true",
                   help="only compare graphgrad's and PyTorch's results on W7-W9")
    args = p.parse_args(argv)
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    if args.check:
        return 0 if check_graph_workloads(args.only.split(",")) else 1
    print(f"{'workload':<20} {'graphgrad':>12} {'torch':>12}   ratio g/t median [min-max]"
          "   max RSS g / t, tracemalloc peak g")
    for w in args.only.split(","):
        ratios, gs, ts, mem = [], [], [], {}
        cpu = {"graphgrad": [], "torch": []}
        peers = [f"peer:{p}" for p in args.peers.split(",") if p] if w in PEER_WORKLOADS \
            else []
        peer_ratios = {p: [] for p in peers}
        peer_times = {p: [] for p in peers}
        peer_gratios = {p: [] for p in peers}   # graphgrad / peer, same rounds
        peer_cpu = {p: [] for p in peers}       # (peer, graphgrad) CPU times
        for r in range(args.rounds):
            order = ["graphgrad", "torch", *peers]
            if r % 2:
                order.reverse()
            res = {lib: run_child(lib, w, args.samples,
                                  args.peer_python if lib.startswith("peer:") and
                                  not lib.startswith("peer:graphgrad") else None)
                   for lib in order}
            gs.append(res["graphgrad"]["median"])
            ts.append(res["torch"]["median"])
            for lib in cpu:
                cpu[lib].append(res[lib]["cpu_median"])
            ratios.append(gs[-1] / ts[-1])
            for p in peers:
                peer_times[p].append(res[p]["median"])
                peer_ratios[p].append(res[p]["median"] / ts[-1])
                peer_gratios[p].append(gs[-1] / res[p]["median"])
                peer_cpu[p].append((res[p]["cpu_median"], res["graphgrad"]["cpu_median"]))
            mem = res
        unit, scale = UNITS.get(w, ("ms", 1e3))
        mib = 2.0 ** 20
        traced = mem["graphgrad"]["traced"]
        print(f"{w:<20} {statistics.median(gs) * scale:>9.2f} {unit:<3}"
              f"{statistics.median(ts) * scale:>9.2f} {unit:<3} {statistics.median(ratios):5.2f}"
              f" [{min(ratios):.2f}-{max(ratios):.2f}]  ({args.rounds} rounds)"
              f"   {mem['graphgrad']['maxrss'] / mib:.0f} / {mem['torch']['maxrss'] / mib:.0f} MiB"
              + (f", {traced / mib:.1f} MiB" if traced is not None else ""))
        if args.cpu_time:
            cr = [g / t for g, t in zip(cpu["graphgrad"], cpu["torch"])]
            print(f"  {'(CPU time)':<18} {statistics.median(cpu['graphgrad']) * scale:>9.2f} "
                  f"{unit:<3}{statistics.median(cpu['torch']) * scale:>9.2f} {unit:<3} "
                  f"{statistics.median(cr):5.2f} [{min(cr):.2f}-{max(cr):.2f}]")
        for p in peers:
            pr = peer_ratios[p]
            print(f"  {p[5:]:<18} {statistics.median(peer_times[p]) * scale:>9.2f} {unit:<3}"
                  f"{'':>12}    {statistics.median(pr):5.2f} [{min(pr):.2f}-{max(pr):.2f}]"
                  f"  (vs torch, same rounds)")
            gr = peer_gratios[p]
            line = (f"  {'':<18} graphgrad / {p[5:]}: {statistics.median(gr):5.2f} "
                    f"[{min(gr):.2f}-{max(gr):.2f}]")
            if args.cpu_time:
                cg = [g / q for q, g in peer_cpu[p]]
                line += (f"; CPU time {statistics.median([q for q, _ in peer_cpu[p]]) * scale:.2f}"
                         f" {unit}, graphgrad / {p[5:]} {statistics.median(cg):5.2f} "
                         f"[{min(cg):.2f}-{max(cg):.2f}]")
            print(line)


if __name__ == "__main__":
    main()
