"""Run the graphgrad benchmark suite.

    python -m benchmarks.run [--quick] [--only W1,W2] [--module-under-test NAME]
                             [--check-only] [--no-write] [--output PATH] [--strict]

For every workload: build the inputs, check once that each graph
implementation (the module under test in the "graphgrad" slot, and PyTorch)
returns the same gradients as the hand-written NumPy code, then time
graphgrad, PyTorch and NumPy alternately in this one process (order rotated
each repetition) and report median and min times and the ratios
graphgrad/PyTorch and graphgrad/NumPy next to their targets.  The table is
printed and written to benchmarks/results.md with the machine's details.

The "graphgrad" slot holds ``import graphgrad`` by default; pass
``--module-under-test torch`` (or set GRAPHGRAD_BENCH_MODULE=torch) to put
PyTorch in it, e.g. to exercise the suite before graphgrad can run it.  If the
module cannot be imported (or has no ``tensor``), its columns are skipped.
"""

import argparse
import importlib
import os
import sys
import time
import traceback
from pathlib import Path

from benchmarks import WORKLOADS
from benchmarks._common import MIN_REPS, CheckFailed, check
from benchmarks._machine import busy_warning, env_facts, load_avg, machine_facts
from benchmarks._timing import alternate, summarize

GG = "graphgrad"  # label of the slot holding the module under test
TORCH = "torch"
NUMPY = "numpy"
NOISY = 1.5  # median/min above this marks a time as disturbed
FOOTNOTE = (
    f"† median > {NOISY}x min: the runs were disturbed (other processes on the "
    "machine, CPU steal); the mins are then the more telling figures."
)
RESULTS_PATH = Path(__file__).resolve().parent / "results.md"


# --------------------------------------------------------------------------
# loading the implementations


def _load(name):
    """Import ``name``; return ``(module, None)`` or ``(None, reason)``."""
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # ImportError, or an error inside the package
        return None, f"import {name} failed: {type(exc).__name__}: {exc}"
    if not hasattr(module, "tensor"):
        return None, f"{name} imported but has no `tensor` (not implemented yet?)"
    return module, None


def _makes_torch_tensors(module):
    """True if ``module.tensor`` returns torch tensors (torch substituted)."""
    try:
        return type(module.tensor([0.0])).__module__.startswith("torch")
    except Exception:
        return False


class Context:
    """What a workload's optional ``extras(ctx)`` gets to see."""

    def __init__(self, mode, data, modules, states, under_test_is_torch):
        self.mode = mode  # "quick" or "full"
        self.data = data  # the NumPy data of the workload
        self.modules = modules  # {label: module} of the slots that passed the check
        self.states = states  # {label: state} built for those modules
        self.under_test = modules.get(GG)
        self.under_test_label = GG
        self.under_test_is_torch = under_test_is_torch

    def graph_modules(self):
        """``[(label, module)]`` for the graph slots, module under test first."""
        return [(label, self.modules[label]) for label in (GG, TORCH) if label in self.modules]


# --------------------------------------------------------------------------
# running one workload


def run_workload(wl, mode, slots, under_test_is_torch, check_only):
    """Check and time one workload.  Returns a result dict."""
    result = {"wl": wl, "status": {}, "stats": {}, "extras": [], "reps": 0}
    data = wl.make_data(0)
    modules, states = {}, {}
    for label, module in slots.items():
        if module is None:
            continue
        try:
            state = wl.build(module, data)
            msg = check(wl, module, state, data)
            wl.run_graph(module, state)  # second warm-up call
        except CheckFailed as exc:
            result["status"][label] = f"WRONG: {exc}"
            continue
        except Exception as exc:
            frames = traceback.extract_tb(exc.__traceback__)
            where = ([f for f in frames if not f.filename.startswith("<")] or frames)[-1]
            result["status"][label] = (
                f"error: {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
            )
            continue
        result["status"][label] = f"check ok ({msg})"
        modules[label], states[label] = module, state
    if check_only:
        return result
    wl.run_numpy(data)  # warm-up

    runners = [
        (label, (lambda m=modules[label], s=states[label]: wl.run_graph(m, s)))
        for label in (GG, TORCH)
        if label in modules
    ]
    runners.append((NUMPY, lambda: wl.run_numpy(data)))
    times = alternate(runners, wl.REPS[mode], MIN_REPS[mode], wl.BUDGET[mode])
    result["stats"] = {label: summarize(samples) for label, samples in times.items()}
    result["reps"] = len(times[NUMPY])

    extras = getattr(wl, "extras", None)
    if extras is not None:
        ctx = Context(mode, data, modules, states, under_test_is_torch)
        try:
            result["extras"] = extras(ctx)
        except Exception as exc:
            result["extras"] = [f"{wl.NAME} extras failed: {type(exc).__name__}: {exc}"]
    return result


# --------------------------------------------------------------------------
# formatting


def _ms(stats):
    if stats is None:
        return "—"
    mark = " †" if stats.median > NOISY * stats.min else ""
    return f"{stats.median * 1e3:.3g} ({stats.min * 1e3:.3g}){mark}"


def _ratio(num, den, target=None):
    if num is None or den is None:
        return "—"
    r = num.median / den.median
    # two decimals, three when two would hide which side of the target it is
    text = f"{r:.3f}x" if target is not None and f"{r:.2f}" == f"{target:.2f}" else f"{r:.2f}x"
    if target is not None:
        text += " ok" if r <= target else " MISS"
    return text + f" (min {num.min / den.min:.2f}x)"


def _target(wl, baseline):
    for name, value in wl.TARGETS:
        if name == baseline:
            return value
    return None


def results_table(results):
    header = (
        "| workload | graphgrad ms | torch ms | numpy ms | graphgrad/torch | target "
        "| graphgrad/numpy | target | torch/numpy | reps |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for res in results:
        wl, st = res["wl"], res["stats"]
        gg, th, nump = st.get(GG), st.get(TORCH), st.get(NUMPY)
        t_torch, t_numpy = _target(wl, TORCH), _target(wl, NUMPY)
        cells = {label: _ms(st.get(label)) for label in (GG, TORCH, NUMPY)}
        for label in (GG, TORCH):  # failed the check or raised: say so, not timed
            if label not in st and label in res["status"]:
                cells[label] = res["status"][label].split(":")[0] + " (not timed)"
        lines.append(
            "| "
            + " | ".join(
                [
                    f"{wl.NAME} {wl.TITLE}",
                    cells[GG],
                    cells[TORCH],
                    cells[NUMPY],
                    _ratio(gg, th, t_torch),
                    f"<= {t_torch}x" if t_torch is not None else "",
                    _ratio(gg, nump, t_numpy),
                    f"<= {t_numpy}x" if t_numpy is not None else "",
                    _ratio(th, nump),
                    str(res["reps"]),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def machine_info(torch_mod, under_test_desc, mode, load_desc):
    info = machine_facts()
    if torch_mod is not None:
        info.append(("torch", torch_mod.__version__))
        info.append(("torch.get_num_threads()", str(torch_mod.get_num_threads())))
    else:
        info.append(("torch", "not available"))
    info.extend(env_facts())
    info.append(("load average at start / end (1 min)", load_desc))
    info.append(("graphgrad slot", under_test_desc))
    info.append(("mode", mode))
    return info


# --------------------------------------------------------------------------
# main


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repetitions (< 1 minute in total)")
    p.add_argument("--only", default="", help="comma-separated workloads, e.g. W1,W3")
    p.add_argument(
        "--module-under-test",
        default=os.environ.get("GRAPHGRAD_BENCH_MODULE", "graphgrad"),
        help="module to put in the graphgrad slot (default: graphgrad, "
        "or $GRAPHGRAD_BENCH_MODULE); e.g. torch to try the suite out",
    )
    p.add_argument("--check-only", action="store_true", help="only run the correctness checks")
    p.add_argument("--no-write", action="store_true", help="do not write results.md")
    p.add_argument("--output", default=str(RESULTS_PATH), help="where to write the markdown results")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 if the module under test fails a check or errors",
    )
    return p.parse_args(argv)


def select_workloads(only):
    modules = [importlib.import_module(f"benchmarks.{name}") for name in WORKLOADS]
    if not only:
        return modules
    wanted = {w.strip().upper() for w in only.split(",") if w.strip()}
    unknown = wanted - {m.NAME for m in modules}
    if unknown:
        raise SystemExit(f"unknown workload(s): {', '.join(sorted(unknown))}")
    return [m for m in modules if m.NAME in wanted]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    workloads = select_workloads(args.only)
    t_start = time.perf_counter()
    load_start = load_avg()

    torch_mod, torch_reason = _load("torch")
    gg_mod, gg_reason = _load(args.module_under_test)
    under_test_is_torch = gg_mod is not None and _makes_torch_tensors(gg_mod)
    if gg_mod is None:
        under_test_desc = f"skipped ({gg_reason})"
    elif args.module_under_test == "graphgrad":
        under_test_desc = f"graphgrad ({getattr(gg_mod, '__file__', None) or 'namespace package'})"
    else:
        under_test_desc = f"{args.module_under_test} substituted for graphgrad"
    if torch_mod is None:
        print(f"warning: {torch_reason}; torch columns skipped", file=sys.stderr)

    busy = busy_warning()
    if busy:
        print(busy, file=sys.stderr)
    print(f"graphgrad slot: {under_test_desc}")
    print(f"mode: {mode}; workloads: {', '.join(w.NAME for w in workloads)}\n")

    slots = {GG: gg_mod, TORCH: torch_mod}
    results = []
    for wl in workloads:
        t0 = time.perf_counter()
        res = run_workload(wl, mode, slots, under_test_is_torch, args.check_only)
        results.append(res)
        for label in (GG, TORCH):
            if label in res["status"]:
                print(f"{wl.NAME} {label}: {res['status'][label]}")
        if not args.check_only:
            print(f"{wl.NAME}: {res['reps']} repetitions in {time.perf_counter() - t0:.1f} s")
            for line in res["extras"]:
                print("  " + line)
        print()

    failed_torch = [r["wl"].NAME for r in results if not r["status"].get(TORCH, "check ok").startswith("check ok")]
    failed_gg = [r["wl"].NAME for r in results if not r["status"].get(GG, "check ok").startswith("check ok")]
    elapsed = time.perf_counter() - t_start

    if not args.check_only:
        table = results_table(results)
        print(table)
        print(
            "\ntimes: median (min) in ms per full forward+backward run; "
            "ratios use medians (ratio of mins in parentheses); targets are for graphgrad."
        )
        print(FOOTNOTE)
        print(f"total wall time: {elapsed:.1f} s")
        if not args.no_write:
            load_desc = f"{load_start} / {load_avg()} (other processes disturb the timings)"
            write_results(Path(args.output), argv, results, table, torch_mod, under_test_desc, mode, elapsed, load_desc)
            print(f"written to {args.output}")

    if failed_torch:
        print(f"error: torch disagrees with the NumPy reference on {', '.join(failed_torch)} "
              "(a bug in the benchmark itself)", file=sys.stderr)
        return 1
    if failed_gg and gg_mod is not None:
        print(f"graphgrad slot failed on: {', '.join(failed_gg)} (not timed)", file=sys.stderr)
        if args.strict:
            return 1
    if args.strict and gg_mod is None:
        return 1
    return 0


def write_results(path, argv, results, table, torch_mod, under_test_desc, mode, elapsed, load_desc):
    out = ["# graphgrad benchmark results", ""]
    out.append("Generated by `" + " ".join(["python -m benchmarks.run", *argv]).strip() + "`.")
    out.append("")
    out.append("## Machine")
    out.append("")
    out.append("| | |")
    out.append("|---|---|")
    for key, value in machine_info(torch_mod, under_test_desc, mode, load_desc):
        out.append(f"| {key} | {value} |")
    out.append("")
    out.append("## Times")
    out.append("")
    out.append(
        "Median (min) wall time in ms of one full forward + backward run, "
        "implementations alternated in one process; ratios use medians; "
        "ratio of mins in parentheses; targets apply to graphgrad."
    )
    out.append("")
    out.append(table)
    out.append("")
    out.append(FOOTNOTE)
    out.append("")
    notes = [line for r in results for line in r["extras"]]
    checks = [
        f"{r['wl'].NAME} {label}: {r['status'][label]}"
        for r in results
        for label in (GG, TORCH)
        if label in r["status"]
    ]
    out.append("## Correctness checks (before timing)")
    out.append("")
    out.extend(f"- {line}" for line in checks)
    out.append("")
    if notes:
        out.append("## Extra measurements")
        out.append("")
        out.extend(f"- {line}" for line in notes)
        out.append("")
    out.append(f"Total wall time: {elapsed:.1f} s.")
    out.append("")
    tmp = path.with_name(path.name + ".tmp")  # write then rename: never a half file
    tmp.write_text("\n".join(out))
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
