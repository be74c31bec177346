"""W3: vanilla RNN, 100 steps, backpropagation through time.

``h = tanh(h @ Wh + x[t] @ Wx)`` for t in 0..99, batch 32, hidden 128,
input 128, float64, h0 = 0; loss ``(h * h).sum()`` on the last h.
Gradients: Wh, Wx.

The hand-written NumPy version mirrors the graph step by step (one
``x[t] @ Wx`` per step forward, one ``x[t].T @ da`` per step backward), so
both sides do the same matrix products.
"""

import numpy as np

from benchmarks._common import const, leaf

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
