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


WORKLOADS = {"module_call": module_call, "digits_mlp_epoch": digits_mlp_epoch,
             "digits_adam_epoch": digits_adam_epoch}
REPEAT = {"module_call": 20, "digits_mlp_epoch": 1, "digits_adam_epoch": 1}


# ----------------------------------------------------------------- child
def child(libname, workload, samples):
    import gc
    import importlib
    lib = importlib.import_module(libname)
    if libname == "torch":
        lib.set_num_threads(1)
    step = WORKLOADS[workload](lib)
    for _ in range(3):  # warm-up
        step()
    gc.collect()
    gc.freeze()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(REPEAT[workload]):
            step()
        times.append((time.perf_counter() - t0) / REPEAT[workload])
    print(json.dumps({"median": statistics.median(times), "min": min(times)}))


def run_child(libname, workload, samples):
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    out = subprocess.run([sys.executable, "-m", "benchmarks.steady", "--child", libname,
                          workload, str(samples)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["median"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=",".join(WORKLOADS))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--child", nargs=3, metavar=("LIB", "WORKLOAD", "SAMPLES"))
    args = p.parse_args(argv)
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    print(f"{'workload':<20} {'graphgrad':>12} {'torch':>12}   ratio g/t median [min-max]")
    for w in args.only.split(","):
        ratios, gs, ts = [], [], []
        for r in range(args.rounds):
            order = ("graphgrad", "torch") if r % 2 == 0 else ("torch", "graphgrad")
            res = {lib: run_child(lib, w, args.samples) for lib in order}
            gs.append(res["graphgrad"])
            ts.append(res["torch"])
            ratios.append(res["graphgrad"] / res["torch"])
        unit, scale = ("us/call", 1e6 / 1000) if w == "module_call" else ("ms", 1e3)
        print(f"{w:<20} {statistics.median(gs) * scale:>9.2f} {unit:<3}"
              f"{statistics.median(ts) * scale:>9.2f} {unit:<3} {statistics.median(ratios):5.2f}"
              f" [{min(ratios):.2f}-{max(ratios):.2f}]  ({args.rounds} rounds)")


if __name__ == "__main__":
    main()
