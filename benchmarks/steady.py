"""Steady-state timings, each library in its own process (issue 20's primary table).

On 2 shared vCPUs a second BLAS/OpenMP thread that cannot get a CPU makes a call wait
for a scheduler tick, and one library's spinning thread pool slows the next library in
the same process.  So here every library runs in a child process of its own -- graphgrad,
PyTorch and, for the workloads that have one (W1-W8), the hand-written NumPy code -- with
one compute thread (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1)); each child
warms up, then times back-to-back runs as a training loop would (parameters made once,
grads cleared each run), and reports the median and its peak memory.  The parent
alternates the children over several rounds (order rotated each round) and prints the
median of the per-round ratios graphgrad / PyTorch and graphgrad / NumPy with their spread
(min-max).

    python -m benchmarks.steady                      # W1-W9, digits epoch, per-sample grads
    python -m benchmarks.steady --write              # ... and benchmarks/steady_results.md
    python -m benchmarks.steady --threads default --write   # steady_results_default_threads.md
    python -m benchmarks.steady --only W3 --instructions    # + W3's valgrind counts
    python -m benchmarks.steady --only module_call --rounds 7
    python -m benchmarks.steady --check              # results vs PyTorch, one process

Workloads: ``benchmarks/_steady_workloads.py``; the table: ``benchmarks/_steady_table.py``.
"""
import argparse
import gc
import importlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import _steady_table as table
from benchmarks._blas_floor import blas_step, has_floor
from benchmarks._machine import (THREAD_VARS, busy_warning, env_facts, load_avg,
                                 machine_facts, package_version)
from benchmarks._steady_workloads import (INSTRUCTION_TARGETS, PEER_WORKLOADS, REPEAT,
                                          WORKLOADS, check_graph_workloads, has_numpy,
                                          numpy_step, resolve)

HERE = Path(__file__).resolve().parent
DEFAULT_OUTPUT = {"1": HERE / "steady_results.md",
                  "default": HERE / "steady_results_default_threads.md"}


# ----------------------------------------------------------------- child
def make_step(libname, workload, threads):
    """The timed unit of ``workload`` for ``libname`` (graphgrad, torch, numpy, blas,
    peer:X)."""
    if libname == "numpy":
        return numpy_step(workload)
    if libname == "blas":  # the workload's matrix products alone, in NumPy
        return blas_step(workload)
    if libname.startswith("peer:"):  # a NumPy-based W7 peer (autograd, mygrad, numpy)
        wl = importlib.import_module("benchmarks.w7_rosenbrock")
        return wl.peer_step(libname[5:], wl.make_data(0), PEER_WORKLOADS[workload])
    lib = importlib.import_module(libname)
    if libname == "torch" and threads == "1":
        lib.set_num_threads(1)
    return WORKLOADS[workload](lib)


def thread_counts(libname):
    """The compute threads the child ran with: torch's intra-op threads, NumPy's BLAS."""
    counts = {}
    if libname == "torch":
        counts["torch"] = sys.modules["torch"].get_num_threads()
    try:
        from threadpoolctl import threadpool_info
        for pool in threadpool_info():
            counts[pool.get("internal_api", "?")] = pool.get("num_threads")
    except ImportError:
        pass
    return counts


def child(libname, workload, samples, threads):
    step = make_step(libname, workload, threads)
    for _ in range(3):  # warm-up
        step()
    gc.collect()
    gc.freeze()
    times, cpu = [], []
    repeat = REPEAT[workload]
    for _ in range(samples):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(repeat):
            step()
        times.append((time.perf_counter() - t0) / repeat)
        cpu.append((time.process_time() - c0) / repeat)
    # peak memory, after the timing: max RSS of this process (the library's import
    # included), and the tracemalloc peak of one more step (NumPy reports its arrays to
    # tracemalloc, PyTorch's allocator does not: no figure for torch)
    import resource
    import tracemalloc
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    traced = None
    if libname in ("graphgrad", "numpy"):
        gc.collect()
        tracemalloc.start()
        result = step()
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del result
    print(json.dumps({"median": statistics.median(times), "min": min(times),
                      "cpu_median": statistics.median(cpu), "maxrss": rss, "traced": traced,
                      "threads": thread_counts(libname)}))


# ----------------------------------------------------------------- parent
def child_env(threads):
    """The children's environment: one compute thread (``"1"``), or the libraries' own
    defaults (``"default"``: the thread variables removed)."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    if threads == "1":
        env.update({v: "1" for v in THREAD_VARS})
    return env


def run_child(libname, workload, samples, threads, python=None):
    """A child's result dict, or ``{"error": text}`` if it failed."""
    out = subprocess.run([python or sys.executable, "-m", "benchmarks.steady", "--child",
                          libname, workload, str(samples), "--threads", threads],
                         env=child_env(threads), capture_output=True, text=True)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": f"{libname} child failed: {last}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_workload(name, args, peers):
    """All rounds of one workload -> its table row."""
    libs = ["graphgrad", "torch", *(["numpy"] if has_numpy(name) else []),
            *(["blas"] if has_floor(name) else []),
            *(peers if name in PEER_WORKLOADS else [])]
    rounds, threads = [], {}
    for r in range(args.rounds):
        order = libs[r % len(libs):] + libs[:r % len(libs)]  # g t n, t n g, n g t, ...
        res = {}
        for lib in order:
            python = (args.peer_python if lib.startswith("peer:") and
                      not lib.startswith("peer:graphgrad") else None)
            res[lib] = run_child(lib, name, args.samples, args.threads, python)
            if "error" in res[lib]:
                return {"name": name, "error": res[lib]["error"]}, threads
            threads.setdefault(lib, res[lib]["threads"])
        rounds.append({lib: res[lib] for lib in libs})
    return table.summarize(name, rounds), threads


def instruction_counts(names):
    """``{workload: (graphgrad count, NumPy count)}`` per run, by valgrind."""
    from benchmarks import instructions
    counts = {}
    for name in names:
        if name in INSTRUCTION_TARGETS:
            g, n, _ = INSTRUCTION_TARGETS[name]
            counts[name] = (instructions.per_run(g), instructions.per_run(n))
    return counts


def git_describe():
    """The checkout's commit (``+ uncommitted changes`` if dirty), or ``"?"``."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" + uncommitted changes" if dirty else "")


def facts(args, threads_seen, load_start, elapsed):
    """The machine and run facts of the results file."""
    if args.threads == "1":
        mode = "one compute thread: OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1)"
    else:
        mode = "the libraries' defaults: thread variables removed, no set_num_threads"
    seen = "; ".join(f"{lib}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                     for lib, counts in threads_seen.items() if counts)
    info = machine_facts()
    info += [("torch", package_version("torch")), ("graphgrad commit", git_describe()),
             ("children's threads", mode), ("threads the children reported", seen or "?")]
    info += [(f"{var} (children)", value) for var, value in env_facts(child_env(args.threads))]
    info += [("rounds x samples", f"{args.rounds} x {args.samples}"),
             ("load average at start / end (1 min)",
              f"{load_start} / {load_avg()} (other processes disturb the timings)"),
             ("total wall time", f"{elapsed:.0f} s")]
    return info


NOTES = """\
Each library runs in a child process of its own, warms up (3 units), then times
`samples` samples of back-to-back units (parameters made once, grads cleared at the start
of each unit, as a training loop does) and reports the median time per unit; the
children of a workload are alternated over the rounds (order rotated each round).
Times: median over the rounds; ratios: median [min-max] of the per-round ratios (below
1, graphgrad is faster). Targets: issue 20's bounds on graphgrad / PyTorch (issue 21's
for the per-sample gradients), `ok` / `MISS` from the median. Peak memory: tracemalloc
peak of one unit (NumPy reports its arrays to tracemalloc, PyTorch's allocator does not).
Max RSS: of the whole child, the library's import included. W7 and its NumPy column are
one evaluation of the value and gradient; W3's instruction counts: `python -m
benchmarks.instructions W3 W3numpy` (valgrind, load-independent)."""


def write_results(path, argv, threads, rows, info, extra_lines):
    title = "one compute thread" if threads == "1" else "the libraries' default threads"
    text = [f"# Steady-state benchmark results: {title}", "",
            f"Generated by `python -m benchmarks.steady {shlex.join(argv)}`.", "",
            "## Machine", "", table.facts_table(info), "", "## Times", "",
            table.markdown_table(rows), ""]
    if extra_lines:
        text += [*(f"- {line}" for line in extra_lines), ""]
    text += [NOTES, ""]
    Path(path).write_text("\n".join(text))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="",
                   help="comma-separated workloads (names, W1-W9, or all); default: W1-W9, "
                   "digits_mlp_epoch, per_sample_grads_mlp")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--threads", choices=("1", "default"), default="1",
                   help="1 (default): one compute thread in every child; default: the "
                   "libraries' default thread counts (the second table)")
    p.add_argument("--write", nargs="?", const="", default=None, metavar="PATH",
                   help="write the markdown results to PATH (default: "
                   "benchmarks/steady_results.md, with --threads default "
                   "benchmarks/steady_results_default_threads.md)")
    p.add_argument("--instructions", action="store_true",
                   help="also count W3's instructions against its NumPy version's with "
                   "valgrind after the timings (benchmarks.instructions W3 W3numpy; ~10 "
                   "minutes of CPU)")
    p.add_argument("--child", nargs=3, metavar=("LIB", "WORKLOAD", "SAMPLES"),
                   help=argparse.SUPPRESS)
    p.add_argument("--peers", default="",
                   help="W7 only (w7_rosenbrock, w7_func_grad): NumPy-based peers timed in the "
                   "same rounds, e.g. autograd,mygrad (numpy: the hand-written value and "
                   "gradient; graphgrad-backward: graphgrad's backward() path, which runs in "
                   "this interpreter)")
    p.add_argument("--peer-python", default=None,
                   help="the interpreter that has the peers installed (default: this one)")
    p.add_argument("--cpu-time", action="store_true",
                   help="also print the CPU time (process_time) of each library and its ratio: "
                   "on a machine loaded by other processes the wall time includes waiting for "
                   "a CPU, the CPU time does not")
    p.add_argument("--check", action="store_true",
                   help="only compare graphgrad's (and the NumPy code's) results with "
                   "PyTorch's on the graph workloads, in this process")
    args = p.parse_args(argv)
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]), args.threads)
    names = resolve(args.only)
    if args.check:
        return 0 if check_graph_workloads(names) else 1
    peers = [f"peer:{name}" for name in args.peers.split(",") if name]
    busy = busy_warning()
    if busy:
        print(busy, file=sys.stderr)
    t_start, load_start = time.perf_counter(), load_avg()
    print(f"threads: {args.threads}; {args.rounds} rounds x {args.samples} samples",
          flush=True)
    rows, threads_seen, extra = [], {}, []
    for name in names:
        row, seen = run_workload(name, args, peers)
        for lib, counts in seen.items():
            threads_seen.setdefault(lib, counts)
        rows.append(row)
        print(table.table_row(row), flush=True)
        lines = table.peer_lines(row) + table.floor_lines(row) if not row.get("error") else []
        if args.cpu_time and not row.get("error"):
            lines += table.cpu_lines(row)
        for line in lines:
            print("  " + line)
        extra += lines
    if args.instructions:
        for name, counts in instruction_counts(names).items():
            for row in rows:
                if row["name"] == name and not row.get("error"):
                    row["instructions"] = counts
            extra.append(f"{name} instructions per run: graphgrad {counts[0] / 1e6:.2f} M, "
                         f"NumPy {counts[1] / 1e6:.2f} M, ratio {counts[0] / counts[1]:.3f}")
    elapsed = time.perf_counter() - t_start
    print()
    print(table.markdown_table(rows))
    for line in extra:
        print(line)
    if args.write is not None:
        args.write = args.write or str(DEFAULT_OUTPUT[args.threads])
        info = facts(args, threads_seen, load_start, elapsed)
        write_results(args.write, argv, args.threads, rows, info, extra)
        print(f"written to {args.write}")
    return 1 if any(row.get("error") for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
