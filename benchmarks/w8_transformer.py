"""W8: one pre-norm transformer block with a tied-embedding language-model loss.

float32; batch B=16, sequence S=64, width D=128, H=4 heads, vocabulary V=1000, MLP 4D
with GELU (erf form).  Forward and backward into every parameter:

    x = E[tokens] + P                                   (token + learned positions)
    h = LN1(x); q, k, v = split(h @ Wqkv^T + bqkv)      (B, H, S, D/H) each
    a = softmax(q k^T / sqrt(D/H), causal mask) v
    x = x + (a merged) @ Wo^T + bo
    x = x + gelu(LN2(x) @ W1^T + b1) @ W2^T + b2
    loss = cross_entropy(LNf(x) @ E^T, next tokens)     (mean over B*S)

Written with ``nn.functional`` and tensor methods only, so the same code runs on
graphgrad and PyTorch.  Timed by ``python -m benchmarks.steady`` (each library in its own
process); there is no hand-written NumPy version.
"""

import math

import numpy as np

NAME = "W8"
TITLE = "transformer block + tied LM loss, B16 S64 D128 H4 V1000, float32"
B, S, D, H, V = 16, 64, 128, 4, 1000
PARAMS = ("E", "P", "ln1_w", "ln1_b", "Wqkv", "bqkv", "Wo", "bo", "ln2_w", "ln2_b",
          "W1", "b1", "W2", "b2", "lnf_w", "lnf_b")
TOL = dict(rtol=2e-3, atol=2e-4)  # float32, atol relative to the largest gradient


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    f = np.float32

    def w(*shape, fan_in):
        return (rng.standard_normal(shape) / math.sqrt(fan_in)).astype(f)

    tokens = rng.integers(0, V, (B, S + 1))
    return {
        "tokens": tokens[:, :-1].astype(np.int64), "targets": tokens[:, 1:].astype(np.int64),
        "E": (rng.standard_normal((V, D)) * 0.02).astype(f),
        "P": (rng.standard_normal((S, D)) * 0.02).astype(f),
        "ln1_w": np.ones(D, f), "ln1_b": np.zeros(D, f),
        "Wqkv": w(3 * D, D, fan_in=D), "bqkv": np.zeros(3 * D, f),
        "Wo": w(D, D, fan_in=D), "bo": np.zeros(D, f),
        "ln2_w": np.ones(D, f), "ln2_b": np.zeros(D, f),
        "W1": w(4 * D, D, fan_in=D), "b1": np.zeros(4 * D, f),
        "W2": w(D, 4 * D, fan_in=4 * D), "b2": np.zeros(D, f),
        "lnf_w": np.ones(D, f), "lnf_b": np.zeros(D, f),
    }


def build(lib, data):
    state = {name: lib.tensor(data[name], requires_grad=True) for name in PARAMS}
    state["tokens"] = lib.tensor(data["tokens"])
    state["targets"] = lib.tensor(data["targets"])
    state["mask"] = lib.tensor(np.triu(np.ones((S, S), bool), 1))
    return state


def run_graph(lib, st):
    """One forward + backward; returns (loss, *gradients in PARAMS order)."""
    F = lib.nn.functional
    params = [st[name] for name in PARAMS]
    for p in params:
        p.grad = None
    dh = D // H
    x = F.embedding(st["tokens"], st["E"]) + st["P"]
    h = F.layer_norm(x, (D,), st["ln1_w"], st["ln1_b"])
    qkv = F.linear(h, st["Wqkv"], st["bqkv"]).reshape(B, S, 3, H, dh).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(dh))
    att = F.softmax(att.masked_fill(st["mask"], float("-inf")), dim=-1)
    a = (att @ v).transpose(1, 2).reshape(B, S, D)
    x = x + F.linear(a, st["Wo"], st["bo"])
    h = F.layer_norm(x, (D,), st["ln2_w"], st["ln2_b"])
    x = x + F.linear(F.gelu(F.linear(h, st["W1"], st["b1"])), st["W2"], st["b2"])
    logits = F.linear(F.layer_norm(x, (D,), st["lnf_w"], st["lnf_b"]), st["E"])
    loss = F.cross_entropy(logits.reshape(B * S, V), st["targets"].reshape(B * S))
    loss.backward()
    return (loss.detach(), *(p.grad for p in params))
