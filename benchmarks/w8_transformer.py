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
process).  ``run_numpy`` is the step as a NumPy user writes it by hand (whole-array
expressions; SciPy's ``erf`` for the GELU, which graphgrad's runtime cannot use).
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


def _ln_forward(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = 1.0 / np.sqrt((xc * xc).mean(-1, keepdims=True) + eps)
    xhat = xc * rstd
    return xhat * w + b, (xhat, rstd)


def _ln_backward(g, w, saved):
    xhat, rstd = saved
    dxhat = g * w
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    rows = g.reshape(-1, g.shape[-1])
    return dx, (rows * xhat.reshape(rows.shape)).sum(0), rows.sum(0)


def run_numpy(data):
    """The same step by hand in NumPy: (loss, *gradients in PARAMS order)."""
    from scipy.special import erf
    f = np.float32
    p = {name: data[name] for name in PARAMS}
    tok, tgt = data["tokens"], data["targets"].reshape(-1)
    dh, n = D // H, B * S
    scale = f(1.0 / math.sqrt(dh))
    mask = np.triu(np.ones((S, S), bool), 1)
    # forward
    x0 = p["E"][tok] + p["P"]
    h1, s1 = _ln_forward(x0, p["ln1_w"], p["ln1_b"])
    h1 = h1.reshape(n, D)
    qkv = (h1 @ p["Wqkv"].T + p["bqkv"]).reshape(B, S, 3, H, dh).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    att = (q @ k.swapaxes(-1, -2)) * scale
    att[..., mask] = -np.inf
    att = np.exp(att - att.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    a = (att @ v).transpose(0, 2, 1, 3).reshape(n, D)
    x1 = x0 + (a @ p["Wo"].T + p["bo"]).reshape(B, S, D)
    h2, s2 = _ln_forward(x1, p["ln2_w"], p["ln2_b"])
    h2 = h2.reshape(n, D)
    u = h2 @ p["W1"].T + p["b1"]
    cdf = f(0.5) * (f(1.0) + erf(u * f(1.0 / math.sqrt(2.0))))
    g = u * cdf
    x2 = x1 + (g @ p["W2"].T + p["b2"]).reshape(B, S, D)
    hf, sf = _ln_forward(x2, p["lnf_w"], p["lnf_b"])
    hf = hf.reshape(n, D)
    logits = hf @ p["E"].T
    z = logits - logits.max(-1, keepdims=True)
    ez = np.exp(z)
    se = ez.sum(-1, keepdims=True)
    loss = np.mean(np.log(se[:, 0]) - z[np.arange(n), tgt])
    # backward
    dlog = ez / se
    dlog[np.arange(n), tgt] -= 1.0
    dlog /= n
    dE = dlog.T @ hf
    dx2, dlnf_w, dlnf_b = _ln_backward((dlog @ p["E"]).reshape(B, S, D), p["lnf_w"], sf)
    dm = dx2.reshape(n, D)
    dW2, db2 = dm.T @ g, dm.sum(0)
    dg = dm @ p["W2"]
    du = dg * (cdf + u * np.exp(f(-0.5) * u * u) * f(1.0 / math.sqrt(2.0 * math.pi)))
    dW1, db1 = du.T @ h2, du.sum(0)
    dx1, dln2_w, dln2_b = _ln_backward((du @ p["W1"]).reshape(B, S, D), p["ln2_w"], s2)
    dx1 += dx2
    do = dx1.reshape(n, D)
    dWo, dbo = do.T @ a, do.sum(0)
    da = (do @ p["Wo"]).reshape(B, S, H, dh).transpose(0, 2, 1, 3)
    dp = da @ v.swapaxes(-1, -2)
    dv = att.swapaxes(-1, -2) @ da
    datt = att * (dp - (dp * att).sum(-1, keepdims=True)) * scale
    dq, dk = datt @ k, datt.swapaxes(-1, -2) @ q
    dqkv = np.stack([dq, dk, dv]).transpose(1, 3, 0, 2, 4).reshape(n, 3 * D)
    dWqkv, dbqkv = dqkv.T @ h1, dqkv.sum(0)
    dx0, dln1_w, dln1_b = _ln_backward((dqkv @ p["Wqkv"]).reshape(B, S, D), p["ln1_w"], s1)
    dx0 += dx1
    np.add.at(dE, tok.reshape(-1), dx0.reshape(n, D))
    return (np.asarray(loss, f), dE, dx0.sum(0), dln1_w, dln1_b, dWqkv, dbqkv, dWo, dbo,
            dln2_w, dln2_b, dW1, db1, dW2, db2, dlnf_w, dlnf_b)
