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
    A garbage collection is forced (untimed) before every call; objects
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


def summarize(samples):
    return Stats(median=statistics.median(samples), min=min(samples), n=len(samples))
