"""W2: one MLP training step (forward + backward into the parameters).

Batch 256, 784 -> 512 -> 512 -> 10, tanh, biases, float32, mean
``cross_entropy`` with class-index targets.  Weights are stored as
(in, out) matrices and used as ``x @ W + b`` in both implementations.
Gradients: W1, b1, W2, b2, W3, b3 (not the input).

Extra measurement: peak memory of one step (tracemalloc), graphgrad vs
hand-written NumPy.
"""

import gc
import tracemalloc

import numpy as np

from benchmarks._common import const, leaf, submodule

NAME = "W2"
TITLE = "MLP step: 256x784->512->512->10, tanh, CE, float32"
GRAD_NAMES = ("W1", "b1", "W2", "b2", "W3", "b3")
TOL = dict(rtol=1e-3, atol=1e-4)
TARGETS = (("numpy", 1.05), ("torch", 1.3))
MEMORY_TARGET = 1.2
REPS = {"quick": 15, "full": 60}
BUDGET = {"quick": 8.0, "full": 40.0}

BATCH = 256
SIZES = (784, 512, 512, 10)
DTYPE = np.float32


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    data = {
        "x": rng.standard_normal((BATCH, SIZES[0])).astype(DTYPE),
        "t": rng.integers(0, SIZES[-1], BATCH).astype(np.int64),
    }
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:]), start=1):
        bound = 1.0 / np.sqrt(n_in)
        data[f"W{i}"] = rng.uniform(-bound, bound, (n_in, n_out)).astype(DTYPE)
        data[f"b{i}"] = rng.uniform(-bound, bound, n_out).astype(DTYPE)
    return data


def build(module, data):
    state = {"x": const(module, data["x"]), "t": const(module, data["t"])}
    for name in GRAD_NAMES:
        state[name] = leaf(module, data[name])
    return state


def run_graph(module, state):
    F = submodule(module, "nn.functional")
    params = [state[name] for name in GRAD_NAMES]
    for p in params:
        p.grad = None
    W1, b1, W2, b2, W3, b3 = params
    h1 = module.tanh(state["x"] @ W1 + b1)
    h2 = module.tanh(h1 @ W2 + b2)
    logits = h2 @ W3 + b3
    loss = F.cross_entropy(logits, state["t"])
    loss.backward()
    return tuple(p.grad for p in params)


def run_numpy(data):
    x, t = data["x"], data["t"]
    W1, b1, W2, b2, W3, b3 = (data[name] for name in GRAD_NAMES)
    n = x.shape[0]
    # forward
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    logits = h2 @ W3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    sumexp = exp.sum(axis=1, keepdims=True)
    logp = shifted - np.log(sumexp)
    loss = -logp[np.arange(n), t].mean()  # noqa: F841  (forward value)
    # backward: d loss / d logits = (softmax - onehot) / n
    dlogits = exp / sumexp
    dlogits[np.arange(n), t] -= 1.0
    dlogits /= n
    dW3 = h2.T @ dlogits
    db3 = dlogits.sum(axis=0)
    da2 = (dlogits @ W3.T) * (1.0 - h2 * h2)
    dW2 = h1.T @ da2
    db2 = da2.sum(axis=0)
    da1 = (da2 @ W2.T) * (1.0 - h1 * h1)
    dW1 = x.T @ da1
    db1 = da1.sum(axis=0)
    return (dW1, db1, dW2, db2, dW3, db3)


def _peak_bytes(fn):
    """Peak bytes traced by tracemalloc while ``fn()`` runs (result kept)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak


def extras(ctx):
    """Peak memory of one step: module under test vs hand-written NumPy."""
    data = ctx.data
    np_peak = _peak_bytes(lambda: run_numpy(data))
    lines = [f"W2 peak memory (tracemalloc), hand-written NumPy: {np_peak / 2**20:.2f} MiB"]
    if ctx.under_test is None:
        return lines
    label, module = ctx.under_test_label, ctx.under_test
    state = ctx.states[label]
    gg_peak = _peak_bytes(lambda: run_graph(module, state))
    ratio = gg_peak / np_peak
    line = (
        f"W2 peak memory, {label}: {gg_peak / 2**20:.2f} MiB -> "
        f"{label}/NumPy = {ratio:.2f}x (target <= {MEMORY_TARGET}x"
    )
    if ctx.under_test_is_torch:
        line += "; NOT meaningful: torch allocations are invisible to tracemalloc)"
    else:
        line += ", " + ("ok" if ratio <= MEMORY_TARGET else "MISS") + ")"
    lines.append(line)
    return lines
