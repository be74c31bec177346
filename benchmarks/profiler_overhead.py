"""Profiler overhead on W1 (1000 x sin(y) * 1.7 on 16 float64, backward): the run's time
with a profiler active over its time without one, each in a process of its own.

    python -m benchmarks.profiler_overhead                 # graphgrad and torch, 5 rounds
    python -m benchmarks.profiler_overhead --libs graphgrad --rounds 7

Modes (one child process per library and mode, one compute thread, 3 warm-up runs of
each kind, then ``--samples`` plain and profiled runs alternated, the order swapped every
other pair, so that a change of the machine's load hits both; the child reports the median
of its per-pair ratios):

- ``autograd``: each profiled run inside its own ``autograd.profiler.profile()`` (entered
  and left around the run, so the profiler's start, its recording of ~2000 forward ops
  and ~2000 backward nodes, two events each, and its stop are all timed;
  ``key_averages()`` is not).
- ``profiler``: the same with ``profiler.profile(activities=[ProfilerActivity.CPU])``.

The children are run over ``--rounds`` rounds (the order reversed every other round); the
figure is the median of the children's ratios with their spread. The hot path with no profiler active is checked by
instruction counts instead (``python -m benchmarks.instructions W1``). Figures:
docs/performance.md.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
MODES = ("autograd", "profiler")


def child(libname, mode, samples):
    from benchmarks import w1_sin_chain as w1
    lib = importlib.import_module(libname)
    if libname == "torch":
        lib.set_num_threads(1)
    state = w1.build(lib, w1.make_data())

    def plain():
        return w1.run_graph(lib, state)

    def under_autograd_profile():
        with lib.autograd.profiler.profile():
            return w1.run_graph(lib, state)

    def under_profiler():
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]):
            return w1.run_graph(lib, state)

    run = {"autograd": under_autograd_profile, "profiler": under_profiler}[mode]
    for _ in range(3):
        plain()
        run()
    gc.collect()
    gc.freeze()
    times = {"plain": [], mode: []}
    for i in range(samples):  # plain and profiled runs alternated, the order swapped
        for name, fn in (((("plain", plain), (mode, run))) if i % 2 == 0
                         else ((mode, run), ("plain", plain))):
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    ratios = [b / a for a, b in zip(times["plain"], times[mode])]
    print(json.dumps({"plain": statistics.median(times["plain"]),
                      "profiled": statistics.median(times[mode]),
                      "ratio": statistics.median(ratios)}))


def run_child(libname, mode, samples):
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    out = subprocess.run([sys.executable, "-m", "benchmarks.profiler_overhead", "--child",
                          libname, mode, str(samples)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--libs", default="graphgrad,torch")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=21)
    p.add_argument("--child", nargs=3, metavar=("LIB", "MODE", "SAMPLES"))
    args = p.parse_args(argv)
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    libs = args.libs.split(",")
    order = [(lib, m) for lib in libs for m in MODES]
    res = {key: [] for key in order}
    for r in range(args.rounds):
        for key in (order[::-1] if r % 2 else order):
            res[key].append(run_child(*key, args.samples))
    print(f"W1, {args.rounds} rounds, {args.samples} plain and {args.samples} profiled runs "
          "alternated per child; ratio = median of a child's per-pair ratios, median "
          "[min-max] over the rounds")
    for lib in libs:
        for m in MODES:
            rs = [x["ratio"] for x in res[lib, m]]
            print(f"{lib:<10} {m:<9} plain {statistics.median(x['plain'] for x in res[lib, m]) * 1e3:7.2f} ms"
                  f"  profiled {statistics.median(x['profiled'] for x in res[lib, m]) * 1e3:7.2f} ms"
                  f"   {statistics.median(rs):.2f}x [{min(rs):.2f}-{max(rs):.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
