"""W4: ``autograd.functional.hessian(..., vectorize=True)``.

f(x) = tanh(A @ x).sum(), A 200x200 float64, x 200 float64.
The NumPy column is the analytic Hessian
A^T diag(-2 tanh(z) (1 - tanh(z)^2)) A with z = A @ x.

Extra: the non-vectorized hessian (one double-backward per row, slow) is
timed a couple of times for torch and for the module under test.
"""

import time

import numpy as np

from benchmarks._common import CheckFailed, const, submodule, to_numpy
from benchmarks._timing import quiesce

NAME = "W4"
TITLE = "hessian(tanh(A@x).sum()), vectorize=True, n=200, float64"
GRAD_NAMES = ("hessian",)
TOL = dict(rtol=1e-7, atol=1e-10)
TARGETS = (("torch", 1.0),)
REPS = {"quick": 10, "full": 40}
BUDGET = {"quick": 6.0, "full": 30.0}
NONVEC_REPS = {"quick": 1, "full": 2}

N = 200


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "A": rng.standard_normal((N, N)) / np.sqrt(N),
        "x": rng.standard_normal(N),
    }


def build(module, data):
    return {"A": const(module, data["A"]), "x": const(module, data["x"])}


def _hessian(module, state, vectorize):
    A = state["A"]
    functional = submodule(module, "autograd.functional")
    H = functional.hessian(
        lambda x: module.tanh(A @ x).sum(), state["x"], vectorize=vectorize
    )
    return (H,)


def run_graph(module, state):
    return _hessian(module, state, vectorize=True)


def run_numpy(data):
    A, x = data["A"], data["x"]
    th = np.tanh(A @ x)
    d2 = -2.0 * th * (1.0 - th * th)
    return (A.T @ (d2[:, None] * A),)


def extras(ctx):
    ref = run_numpy(ctx.data)[0]
    lines = []
    for label, module in ctx.graph_modules():
        state = ctx.states[label]
        try:
            got = to_numpy(_hessian(module, state, vectorize=False)[0])
            if not np.allclose(got, ref, rtol=TOL["rtol"], atol=TOL["atol"] * np.abs(ref).max()):
                raise CheckFailed("non-vectorized hessian does not match NumPy")
            times = []
            for _ in range(NONVEC_REPS[ctx.mode]):
                quiesce()
                t0 = time.perf_counter()
                _hessian(module, state, vectorize=False)
                times.append(time.perf_counter() - t0)
        except Exception as exc:  # report and go on: this is a reference figure
            lines.append(f"W4 non-vectorized hessian, {label}: failed: {type(exc).__name__}: {exc}")
            continue
        lines.append(
            f"W4 non-vectorized hessian, {label}: min {min(times) * 1e3:.1f} ms "
            f"over {len(times)} run(s) (reference only)"
        )
    return lines
