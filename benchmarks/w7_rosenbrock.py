"""W7: value and gradient of the 10-dimensional Rosenbrock function.

f(x) = sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, x: 10 float64, requires_grad;
``f.backward()``; returns (f, df/dx) -- what ``scipy.optimize.minimize(fun, x0,
jac=True)`` calls once per iteration.  Measures the per-op cost of slicing, ops with a
Python-number operand and ``sum`` on tiny arrays.  The NumPy column is the analytic
value and gradient written by hand (the limit).
"""

import numpy as np

from benchmarks._common import leaf

NAME = "W7"
TITLE = "Rosenbrock-10 value and gradient, float64"
GRAD_NAMES = ("f", "x")
TOL = dict(rtol=1e-12, atol=1e-14)
TARGETS = (("torch", 1.0),)
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 3.0, "full": 12.0}

N = 10
INNER = 100  # value-and-gradient evaluations per timed run (one is ~50 us)


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-2.0, 2.0, N)}


def build(module, data):
    return {"x": leaf(module, data["x"])}


def rosenbrock(x):
    """f(x) of a tensor of any torch-like module (what the function transforms take)."""
    a, b = x[:-1], x[1:]
    return (100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2).sum()


def value_and_grad(x):
    """One evaluation on a leaf ``x`` of any torch-like module: (f, df/dx)."""
    x.grad = None
    a, b = x[:-1], x[1:]
    f = (100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2).sum()
    f.backward()
    return f, x.grad


def run_graph(module, state):
    x = state["x"]
    for _ in range(INNER - 1):
        value_and_grad(x)
    f, g = value_and_grad(x)
    return (f.detach(), g)


def _numpy_once(x):
    a, b = x[:-1], x[1:]
    d = b - a * a
    f = np.sum(100.0 * d * d + (1.0 - a) ** 2)
    g = np.zeros_like(x)
    g[:-1] = -400.0 * d * a - 2.0 * (1.0 - a)
    g[1:] += 200.0 * d
    return f, g


def run_numpy(data):
    x = data["x"]
    for _ in range(INNER - 1):
        _numpy_once(x)
    f, g = _numpy_once(x)
    return (np.asarray(f), g)


# ---------------------------------------------------------------- peers (benchmarks.steady)
def peer_step(name, data, what="value_and_grad"):
    """One value-and-gradient evaluation with a NumPy-based peer: ``"numpy"`` (the
    hand-written limit), ``"autograd"`` (HIPS autograd), ``"mygrad"`` or
    ``"graphgrad-backward"`` (graphgrad's ``backward()`` path, W7's own).  ``what="grad"``:
    HIPS autograd's ``grad`` (the gradient only) instead of its ``value_and_grad``."""
    x0 = data["x"]
    if name == "numpy":
        return lambda: _numpy_once(x0)
    if name == "autograd":
        import autograd
        import autograd.numpy as anp

        def f(x):
            a, b = x[:-1], x[1:]
            return anp.sum(100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2)
        vg = autograd.grad(f) if what == "grad" else autograd.value_and_grad(f)
        return lambda: vg(x0)
    if name == "graphgrad-backward":   # (graphgrad's own backward() path, beside func.grad)
        import graphgrad
        x = leaf(graphgrad, x0)
        return lambda: value_and_grad(x)
    if name == "mygrad":
        import mygrad as mg
        x = mg.tensor(x0)

        def step():
            a, b = x[:-1], x[1:]
            f = (100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2).sum()
            f.backward()
            return f.item(), x.grad
        return step
    raise ValueError(f"unknown W7 peer {name!r}")
