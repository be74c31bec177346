"""Alternating timing loop and summary statistics."""

import gc
import statistics
import time
from dataclasses import dataclass


@dataclass
class Stats:
    median: float  # seconds
    min: float  # seconds
    n: int


def alternate(runners, max_reps, min_reps, budget):
    """Time ``runners`` (a list of ``(label, fn)``) in one process, alternating.

    Each repetition calls every runner once; the order is rotated by one each
    repetition (rep 0: a b c, rep 1: b c a, rep 2: c a b, ...) so that no
    implementation systematically runs first or after a particular other one.
    Before every call (untimed) the loop waits until this process uses no
    CPU any more (``quiesce``): BLAS / OpenMP worker threads of the previous
    library keep spinning for up to ~0.1 s after a call and would otherwise
    steal the cores from the next implementation (measured: 10x slowdowns
    of W2 on 2 cores).  A garbage collection is forced (untimed) too; objects
    alive before the loop are moved to the permanent generation
    (``gc.freeze``) so that this collection is cheap and the collections the
    timed code triggers itself only scan its own objects.  The loop
    stops after ``max_reps`` repetitions, or earlier once ``budget`` seconds
    have elapsed and at least ``min_reps`` repetitions are done.

    Returns ``{label: [seconds, ...]}``.
    """
    times = {label: [] for label, _ in runners}
    k = len(runners)
    gc.collect()
    gc.freeze()
    try:
        start = time.perf_counter()
        for rep in range(max_reps):
            shift = rep % k
            for label, fn in runners[shift:] + runners[:shift]:
                gc.collect()
                quiesce()
                t0 = time.perf_counter()
                out = fn()
                t1 = time.perf_counter()
                del out  # freeing the returned gradients is not timed
                times[label].append(t1 - t0)
            if rep + 1 >= min_reps and time.perf_counter() - start > budget:
                break
    finally:
        gc.unfreeze()
    return times


def quiesce(max_wait=0.5, window=0.005):
    """Sleep until the process's CPU time stops advancing (all threads idle).

    Checks windows of ``window`` seconds; returns once a window saw less than
    10% CPU use (``time.process_time`` counts every thread of the process),
    or after ``max_wait`` seconds.  Returns the time waited.
    """
    start = time.perf_counter()
    while time.perf_counter() - start < max_wait:
        cpu0 = time.process_time()
        time.sleep(window)
        if time.process_time() - cpu0 < 0.1 * window:
            break
    return time.perf_counter() - start


def summarize(samples):
    return Stats(median=statistics.median(samples), min=min(samples), n=len(samples))
