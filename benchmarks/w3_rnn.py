"""W3: vanilla RNN, 100 steps, backpropagation through time.

``h = tanh(h @ Wh + x[t] @ Wx)`` for t in 0..99, batch 32, hidden 128,
input 128, float64, h0 = 0; loss ``(h * h).sum()`` on the last h.
Gradients: Wh, Wx.

The hand-written NumPy version mirrors the graph step by step (one
``x[t] @ Wx`` per step forward, one ``x[t].T @ da`` per step backward), so
both sides do the same matrix products.
"""

import numpy as np

from benchmarks import _bare_engine as bare
from benchmarks._common import const, leaf
from benchmarks._timing import alternate, summarize

NAME = "W3"
TITLE = "RNN BPTT: 100 steps, batch 32, hidden 128, float64"
GRAD_NAMES = ("Wh", "Wx")
TOL = dict(rtol=1e-7, atol=1e-10)
TARGETS = (("numpy", 1.10), ("torch", 1.0))
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 6.0, "full": 30.0}

STEPS, BATCH, HIDDEN, INPUT = 100, 32, 128, 128


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((STEPS, BATCH, INPUT)),
        "Wh": rng.standard_normal((HIDDEN, HIDDEN)) * (0.9 / np.sqrt(HIDDEN)),
        "Wx": rng.standard_normal((INPUT, HIDDEN)) * (1.0 / np.sqrt(INPUT)),
    }


def build(module, data):
    return {
        "x": const(module, data["x"]),
        "h0": const(module, np.zeros((BATCH, HIDDEN))),
        "Wh": leaf(module, data["Wh"]),
        "Wx": leaf(module, data["Wx"]),
    }


def run_graph(module, state):
    x, Wh, Wx = state["x"], state["Wh"], state["Wx"]
    Wh.grad = None
    Wx.grad = None
    h = state["h0"]
    for t in range(STEPS):
        h = module.tanh(h @ Wh + x[t] @ Wx)
    (h * h).sum().backward()
    return (Wh.grad, Wx.grad)


def run_numpy(data):
    x, Wh, Wx = data["x"], data["Wh"], data["Wx"]
    h = np.zeros((BATCH, HIDDEN))
    hs = [h]
    for t in range(STEPS):
        h = np.tanh(h @ Wh + x[t] @ Wx)
        hs.append(h)
    dWh = np.zeros_like(Wh)
    dWx = np.zeros_like(Wx)
    dh = 2.0 * h
    for t in range(STEPS - 1, -1, -1):
        h_new = hs[t + 1]
        da = dh * (1.0 - h_new * h_new)
        dWh += hs[t].T @ da
        dWx += x[t].T @ da
        dh = da @ Wh.T
    return (dWh, dWx)


def run_bare(state):
    x, Wh, Wx = state["x"], state["Wh"], state["Wx"]
    Wh.grad = Wx.grad = None
    h = state["h0"]
    for t in range(STEPS):
        h = bare.tanh(h @ Wh + x[t] @ Wx)
    bare.backward_sum_of_squares(h)
    return (Wh.grad, Wx.grad)


def extras(ctx):
    """The bare engine's time next to NumPy's (and the module under test's)."""
    data = ctx.data
    state = {"x": bare.leaf(data["x"]), "h0": bare.leaf(np.zeros((BATCH, HIDDEN))),
             "Wh": bare.leaf(data["Wh"], True), "Wx": bare.leaf(data["Wx"], True)}
    ref = run_numpy(data)
    got = run_bare(state)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
    runners = [("bare", lambda: run_bare(state)), ("numpy", lambda: run_numpy(data))]
    if ctx.under_test is not None:
        module, st = ctx.under_test, ctx.states[ctx.under_test_label]
        runners.append(("graph", lambda: run_graph(module, st)))
    reps = REPS[ctx.mode]
    stats = {k: summarize(v) for k, v in
             alternate(runners, reps, reps // 3, BUDGET[ctx.mode] / 2).items()}
    b, n = stats["bare"], stats["numpy"]
    line = (f"W3 bare Python engine (no PyTorch semantics; benchmarks/_bare_engine.py), "
            f"alternated with NumPy ({b.n} reps): bare/NumPy = {b.median / n.median:.2f}x "
            f"(min {b.min / n.min:.2f}x)")
    if "graph" in stats:
        g = stats["graph"]
        line += (f"; {ctx.under_test_label}/NumPy in the same loop = "
                 f"{g.median / n.median:.2f}x (min {g.min / n.min:.2f}x)")
    return [line]
