"""Whole models built from the layers, trained for a few SGD steps in graphgrad and in torch
from the same weights: losses, parameters and running statistics stay equal."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.nn.layer_utils import copy_weights, randn

torch = pytest.importorskip("torch")


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1, dtype=lib.float64), nn.BatchNorm2d(4, dtype=lib.float64),
        nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, dtype=lib.float64), nn.GELU(),
        nn.AvgPool2d(2), nn.Flatten(), nn.Dropout(0.0), nn.Linear(6, 5, dtype=lib.float64),
        nn.LogSoftmax(dim=1))


def rnn_model(lib):
    nn = lib.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 4, padding_idx=0, dtype=lib.float64)
            self.lstm = nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True,
                                dtype=lib.float64)
            self.norm = nn.LayerNorm(10, dtype=lib.float64)
            self.head = nn.Linear(10, 5, dtype=lib.float64)

        def forward(self, idx):
            out, (h, c) = self.lstm(self.emb(idx))
            return lib.log_softmax(self.head(self.norm(out[:, -1])), dim=1)
    return M()


def encoder_model(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 8, dtype=lib.float64),
                         nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                                    dtype=lib.float64),
                         nn.Flatten(), nn.Linear(8 * 4, 5, dtype=lib.float64),
                         nn.LogSoftmax(-1))


X_IMG = randn(6, 1, 8, 8)
X_IDX = np.random.default_rng(3).integers(0, 7, size=(6, 4))
X_SEQ = randn(6, 4, 3)
Y = np.array([0, 1, 2, 3, 4, 1])


@pytest.mark.parametrize("make,x", [(cnn, X_IMG), (rnn_model, X_IDX), (encoder_model, X_SEQ)])
def test_sgd_steps_match_torch(make, x):
    tm, gm = make(torch), make(gg)
    copy_weights(gm, tm)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for step in range(3):
            losses = []
            for lib, m in ((torch, tm), (gg, gm)):
                m.zero_grad()
                loss = lib.nn.NLLLoss()(m(lib.tensor(x)), lib.tensor(Y))
                loss.backward()
                with lib.no_grad():
                    for p in m.parameters():
                        p -= 0.1 * p.grad
                losses.append(loss.item())
            assert losses[1] == pytest.approx(losses[0], rel=1e-10), step
        for (n, a), (_, b) in zip(gm.state_dict().items(), tm.state_dict().items()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=n)
        gm.eval()
        tm.eval()
        np.testing.assert_allclose(gm(gg.tensor(x)).detach().numpy(),
                                   tm(torch.tensor(x)).detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    finally:
        torch.set_num_threads(threads)


FLOAT32_LAYERS = [
    (lambda lib: lib.nn.Linear(5, 3), (4, 5)),
    (lambda lib: lib.nn.Conv2d(2, 3, 3, padding=1), (2, 2, 5, 5)),
    (lambda lib: lib.nn.BatchNorm1d(5), (4, 5)),
    (lambda lib: lib.nn.LayerNorm(5), (4, 5)),
    (lambda lib: lib.nn.GRU(5, 3, batch_first=True), (2, 4, 5)),
    (lambda lib: lib.nn.LSTM(5, 3), (4, 2, 5)),
    (lambda lib: lib.nn.MultiheadAttention(4, 2), (3, 2, 4)),
    (lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), (3, 2, 4)),
]


@pytest.mark.parametrize("i", range(len(FLOAT32_LAYERS)))
def test_default_float32_layers(i):
    make, shape = FLOAT32_LAYERS[i]
    tm, gm = make(torch), make(gg)
    copy_weights(gm, tm)
    x = randn(*shape).astype(np.float32)
    args = (x, x, x) if "MultiheadAttention" in type(tm).__name__ else (x,)
    ot = tm(*(torch.tensor(a) for a in args))
    og = gm(*(gg.tensor(a) for a in args))
    ot = ot[0] if isinstance(ot, tuple) else ot
    og = og[0] if isinstance(og, tuple) else og
    assert og.dtype == gg.float32 and all(p.dtype == gg.float32 for p in gm.parameters())
    np.testing.assert_allclose(og.detach().numpy(), ot.detach().numpy(), rtol=1e-5, atol=1e-5)


DOUBLE = [("Linear", (4, 3)), ("Conv1d", (2, 3, 2)), ("LSTM", (4, 3)), ("GRU", (4, 3)),
          ("RNN", (4, 3)), ("MultiheadAttention", (4, 2)), ("BatchNorm1d", (2,)),
          ("LayerNorm", (4,)), ("GroupNorm", (1, 2)), ("RMSNorm", (4,)), ("GELU", ()),
          ("Softplus", ()), ("MaxPool1d", (2,)), ("AvgPool1d", (2,)),
          ("AdaptiveAvgPool1d", (3,)), ("InstanceNorm1d", (2,)), ("PReLU", ())]


@pytest.mark.parametrize("name,args", DOUBLE)
def test_double_backward_through_layers(name, args):
    # a gradient penalty: d/dθ |d(out²)/dx|², through every layer's backward
    from tests.conftest import run_both

    def prog(lib):
        m = getattr(lib.nn, name)(*args).double()
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.linspace(-0.5, 0.4 + i / 10, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        x = lib.linspace(-1, 1, 40, dtype=lib.float64).reshape(5, 2, 4).requires_grad_()
        out = m(x, x, x) if name == "MultiheadAttention" else m(x)
        o = out[0] if isinstance(out, tuple) else out
        g, = lib.autograd.grad((o * o).sum(), x, create_graph=True)
        (g * g).sum().backward()
        return g.detach(), x.grad, [p.grad for p in m.parameters()]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        run_both(prog)
    finally:
        torch.set_num_threads(threads)
