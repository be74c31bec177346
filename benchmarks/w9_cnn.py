"""W9: one training step of a small CNN (forward + backward into the parameters).

float32, batch 64 of 1x28x28 images, 10 classes:

    conv 3x3 (1 -> 16, padding 1) - relu - max_pool 2
    conv 3x3 (16 -> 32, padding 1) - relu - max_pool 2
    flatten (32*7*7) - linear -> 10 - cross_entropy (mean)

Timed by ``python -m benchmarks.steady`` (each library in its own process); there is no
hand-written NumPy version.
"""

import numpy as np

NAME = "W9"
TITLE = "CNN step: 2 x (conv3x3-relu-maxpool2), linear, CE; batch 64, 28x28, float32"
N, C1, C2, K = 64, 16, 32, 10
PARAMS = ("w1", "b1", "w2", "b2", "w3", "b3")
TOL = dict(rtol=2e-3, atol=2e-4)


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    f = np.float32

    def u(shape, fan_in):
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(f)

    return {
        "x": rng.standard_normal((N, 1, 28, 28)).astype(f),
        "y": rng.integers(0, K, N).astype(np.int64),
        "w1": u((C1, 1, 3, 3), 9), "b1": u(C1, 9),
        "w2": u((C2, C1, 3, 3), 9 * C1), "b2": u(C2, 9 * C1),
        "w3": u((K, C2 * 7 * 7), C2 * 49), "b3": u(K, C2 * 49),
    }


def build(lib, data):
    state = {name: lib.tensor(data[name], requires_grad=True) for name in PARAMS}
    state["x"] = lib.tensor(data["x"])
    state["y"] = lib.tensor(data["y"])
    return state


def run_graph(lib, st):
    """One forward + backward; returns (loss, *gradients in PARAMS order)."""
    F = lib.nn.functional
    params = [st[name] for name in PARAMS]
    for p in params:
        p.grad = None
    h = F.max_pool2d(F.relu(F.conv2d(st["x"], st["w1"], st["b1"], padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, st["w2"], st["b2"], padding=1)), 2)
    logits = F.linear(h.flatten(1), st["w3"], st["b3"])
    loss = F.cross_entropy(logits, st["y"])
    loss.backward()
    return (loss.detach(), *(p.grad for p in params))
