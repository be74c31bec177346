"""python -m tests.fuzz [--programs N] [--start S] [--replay SEED ...] [--no-jvp] [--log FILE]"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time

from tests.fuzz.known import classify
from tests.fuzz.program import generate
from tests.fuzz.runner import check


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--replay", type=int, nargs="*", help="print and run these seeds")
    ap.add_argument("--no-jvp", action="store_true")
    ap.add_argument("--log", help="write each mismatch as a JSON line to this file")
    ap.add_argument("--examples", type=int, default=3, help="seeds shown per kind")
    a = ap.parse_args(argv)
    if a.replay:
        for seed in a.replay:
            prog = generate(seed)
            print(prog.source())
            found = check(prog, jvp=not a.no_jvp)
            for m in found:
                print(f"  -> {m}   (known: {classify(prog, m)})")
            if not found:
                print("  -> no mismatch")
            print()
        return 0
    counts, known, seeds = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    log = open(a.log, "w") if a.log else None
    crashed = done = 0
    t0 = time.time()
    try:
        for seed in range(a.start, a.start + a.programs):
            try:
                prog = generate(seed)
                found = check(prog, jvp=not a.no_jvp)
            except Exception as e:  # the fuzzer itself failed: report, go on
                crashed += 1
                print(f"seed {seed}: fuzzer error {type(e).__name__}: {e}", file=sys.stderr)
                continue
            finally:
                done += 1
                if done % 500 == 0:
                    print(f"... {done} programs, {sum(counts.values())} new mismatches",
                          file=sys.stderr, flush=True)
            _tally(prog, found, counts, known, seeds, log, a.examples)
    except KeyboardInterrupt:  # Ctrl-C (or kill -INT): report what ran
        print("interrupted", file=sys.stderr)
    print(f"{done} programs (seeds {a.start}..{a.start + done - 1}) in "
          f"{time.time() - t0:.0f} s; fuzzer errors: {crashed}")
    print("new mismatches by kind:" if counts else "no new mismatches")
    for key, n in counts.most_common():
        print(f"  {key:28s} {n:6d}   e.g. seeds {seeds[key]}")
    if known:
        print("known differences:")
        for key, n in known.most_common():
            print(f"  {key:60s} {n:6d}")
    return 1 if counts else 0


def _tally(prog, found, counts, known, seeds, log, examples):
    for m in found:
        k = classify(prog, m)
        key = f"{m.kind}/{m.phase}"
        if k:
            known[f"{key} [{k}]"] += 1
        else:
            counts[key] += 1
            if len(seeds[key]) < examples:
                seeds[key].append(prog.seed)
        if log:
            log.write(json.dumps({"seed": prog.seed, "kind": m.kind, "phase": m.phase,
                                  "known": k, "ops": prog.ops, "detail": m.detail[:400]})
                      + "\n")
            log.flush()


if __name__ == "__main__":
    sys.exit(main())
