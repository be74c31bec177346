"""Instruction counts per run of W1, tiny-array W3 and full W3 (valgrind's callgrind).

Wall time on the 2-core VM varies by 1.5x between runs; instruction counts
are repeatable, so they are the check that a change leaves the per-op and
per-node overhead alone.  Each workload is run in a fresh process under
callgrind twice, once with ``R1`` and once with ``R2`` runs after one warm-up
run; the difference divided by ``R2 - R1`` is the count of one run, free of
interpreter start-up and imports.  Objects made before the runs are frozen
(``gc.freeze``), as in ``benchmarks/_timing.py``, so that the cost of the
collections the runs trigger does not grow with the number of modules
imported.

Tiny-array W3 is W3's graph (100 RNN steps, matmul + add + tanh per step,
backward) on batch 2, hidden 4, input 4: what is left is pure overhead.

W3 and W3numpy (not run by default) are one run of the full-size W3 (batch 32, hidden 128,
float64) on graphgrad and of its hand-written NumPy version (``run_numpy``): issue 20's
"graphgrad's W3 instruction count <= 1.05x the NumPy version's with one BLAS thread"
(the matrix products, the same in both, are most of either count).

W7grad and W7backward (not run by default) are one gradient of W7's Rosenbrock-10:
``graphgrad.func.grad(f)(x)`` against the ``backward()`` path (``x.grad = None;
f(x).backward(); x.grad``), issue 21's "func.grad at least as fast as backward()".

    python -m benchmarks.instructions            # W1 and W3tiny
    python -m benchmarks.instructions W1         # one of them
    python -m benchmarks.instructions W7grad W7backward
    python -m benchmarks.instructions W5     # one vectorized jacobian (W5: all overhead)
    env -u PYTHONDONTWRITEBYTECODE python -m benchmarks.instructions W3 W3numpy

Needs ``valgrind`` on PATH.  Torch is not imported.  Count with compiled ``.pyc`` files
(``env -u PYTHONDONTWRITEBYTECODE`` where that variable is set): the counts are then
those of an installed graphgrad, and each name is first run once without valgrind so that
the two counted processes import the same way (the first to import a changed module
would otherwise also compile it).  Each count runs with one BLAS thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1).
"""

import os
import re
import subprocess
import sys
import tempfile

R1, R2 = 2, 7

_RUNNER = r"""
import sys
import numpy as np
import graphgrad as g
from benchmarks import w1_sin_chain as w1, w3_rnn as w3, w5_jacobian as w5, w7_rosenbrock as w7

name, runs = sys.argv[1], int(sys.argv[2])
if name == "W7grad":
    x7 = g.tensor(w7.make_data(0)["x"])
    run = lambda f=g.func.grad(w7.rosenbrock): f(x7)
elif name == "W7backward":
    run = w7.peer_step("graphgrad-backward", w7.make_data(0))
elif name == "W3":
    state = w3.build(g, w3.make_data(0))
    run = lambda: w3.run_graph(g, state)
elif name == "W3numpy":
    data3 = w3.make_data(0)
    run = lambda: w3.run_numpy(data3)
elif name == "W5":
    state5 = w5.build(g, w5.make_data(0))
    run = lambda: w5.run_graph(g, state5)
elif name == "W1":
    state = w1.build(g, w1.make_data())
    run = lambda: w1.run_graph(g, state)
else:
    rng = np.random.default_rng(0)
    w3.BATCH, w3.HIDDEN, w3.INPUT = 2, 4, 4
    data = {"x": rng.standard_normal((w3.STEPS, 2, 4)), "Wh": rng.standard_normal((4, 4)) * 0.4,
            "Wx": rng.standard_normal((4, 4)) * 0.5}
    state = w3.build(g, data)
    run = lambda: w3.run_graph(g, state)
import gc
gc.collect()
gc.freeze()  # as benchmarks/_timing.py: collections scan only what the runs make
for _ in range(1 + runs):
    run()
"""


NAMES = ("W1", "W3tiny", "W3", "W3numpy", "W5", "W7grad", "W7backward")


def _env():
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                PYTHONHASHSEED="0")


def _warm(name):
    """One run without valgrind: writes the ``.pyc`` files (if allowed) before counting."""
    subprocess.run([sys.executable, "-c", _RUNNER, name, "0"], env=_env(), check=True,
                   capture_output=True)


def _count(name, runs):
    env = _env()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            sys.executable, "-c", _RUNNER, name, str(runs)],
                           env=env, capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if r.returncode or not m:
            raise SystemExit(f"callgrind failed for {name}:\n{r.stderr[-2000:]}")
        return int(m.group(1))


# W7's calls are a hundred times shorter than a W1 run: more of them, so that the count
# per call is as repeatable
RUNS = {"W7grad": (20, 220), "W7backward": (20, 220), "W5": (10, 110)}


def per_run(name):
    if name not in NAMES:
        raise SystemExit(f"unknown name {name!r}: one of {', '.join(NAMES)}")
    _warm(name)
    r1, r2 = RUNS.get(name, (R1, R2))
    return (_count(name, r2) - _count(name, r1)) / (r2 - r1)


def main(argv):
    names = argv or ["W1", "W3tiny"]
    counts = {}
    for name in names:
        n = counts[name] = per_run(name)
        print(f"{name}: {n / 1e6:.2f} M instructions per run" if n >= 1e7 else
              f"{name}: {n / 1e3:.1f} k instructions per run", flush=True)
    if "W3" in counts and "W3numpy" in counts:
        print(f"W3 / W3numpy: {counts['W3'] / counts['W3numpy']:.3f} (issue 20: <= 1.05)")


if __name__ == "__main__":
    main(sys.argv[1:])
