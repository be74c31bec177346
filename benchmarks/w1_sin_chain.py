"""W1: long chain of tiny elementwise ops (measures per-op autograd overhead).

x: 16 float64 values, requires_grad.  1000 times ``y = sin(y) * 1.7``, then
``y.sum().backward()``.  Gradient: dx.

Note: the map y -> 1.7 sin(y) contracts to its fixed points +-1.689, where
|d/dy| = |1.7 cos(y)| ~ 0.20, so after a few hundred steps the gradient has
underflowed to exactly 0.  The timed run is still the full chain, but the
correctness check is repeated on a 20-step chain (``check_data``) whose
gradient is far from zero.
"""

import numpy as np

from benchmarks._common import leaf

NAME = "W1"
TITLE = "sin chain: 1000 x (sin(y)*1.7), 16 float64"
GRAD_NAMES = ("x",)
TOL = dict(rtol=1e-9, atol=1e-12)
TARGETS = (("torch", 0.8),)
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 5.0, "full": 25.0}

N = 16
STEPS = 1000
CHECK_STEPS = 20
SCALE = 1.7


def make_data(seed=0, steps=STEPS):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1.0, 1.0, N), "steps": steps}


def check_data(seed=0):
    return make_data(seed, steps=CHECK_STEPS)


def build(module, data):
    return {"x": leaf(module, data["x"]), "steps": data["steps"]}


def run_graph(module, state):
    x = state["x"]
    x.grad = None
    y = x
    for _ in range(state["steps"]):
        y = module.sin(y) * SCALE
    y.sum().backward()
    return (x.grad,)


def run_numpy(data):
    y = data["x"]
    saved = []
    for _ in range(data["steps"]):
        saved.append(y)
        y = np.sin(y) * SCALE
    grad = np.ones_like(y)
    for s in reversed(saved):
        grad = grad * SCALE
        grad = grad * np.cos(s)
    return (grad,)
