"""RNN/LSTM/GRU and their cells against torch.nn: PyTorch's parameter names and shapes,
outputs, final states and the gradients of inputs, initial states and every weight."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

CONFIGS = [{}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
           {"num_layers": 2, "bidirectional": True, "batch_first": True}, {"bias": False},
           {"num_layers": 3, "dropout": 0.4}]


def _x(kw, batched=True, T=5, N=3, I=4):
    if not batched:
        return randn(T, I)
    return randn(N, T, I) if kw.get("batch_first") else randn(T, N, I)


def _h(kw, size, batched=True, N=3, seed=7):
    L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    return randn(L, N, size, seed=seed) if batched else randn(L, size, seed=seed)


@pytest.mark.parametrize("kw", CONFIGS)
@pytest.mark.parametrize("cls", ["RNN", "GRU"])
def test_rnn_gru(cls, kw):
    # dropout between layers is random: compare it in eval mode
    train = "dropout" not in kw
    check_layer(lambda lib: getattr(lib.nn, cls)(4, 6, dtype=lib.float64, **kw), [_x(kw)],
                train=train)


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True},
                                {"batch_first": True}])
@pytest.mark.parametrize("cls", ["RNN", "GRU"])
@pytest.mark.parametrize("batched", [True, False])
def test_rnn_gru_with_h0(cls, kw, batched):
    check_layer(lambda lib: getattr(lib.nn, cls)(4, 6, dtype=lib.float64, **kw),
                [_x(kw, batched), _h(kw, 6, batched)])


def test_rnn_relu():
    check_layer(lambda lib: lib.nn.RNN(4, 6, 2, "relu", dtype=lib.float64), [_x({})])
    check_layer(lambda lib: lib.nn.RNN(4, 6, nonlinearity="relu", dtype=lib.float64),
                [_x({})])


@pytest.mark.parametrize("kw", CONFIGS + [{"proj_size": 3},
                                          {"proj_size": 2, "num_layers": 2,
                                           "bidirectional": True}])
def test_lstm(kw):
    check_layer(lambda lib: lib.nn.LSTM(4, 6, dtype=lib.float64, **kw), [_x(kw)],
                train="dropout" not in kw)


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True},
                                {"batch_first": True, "proj_size": 2}])
@pytest.mark.parametrize("batched", [True, False])
def test_lstm_with_h0_c0(kw, batched):
    hs = kw.get("proj_size", 6)
    check_layer(lambda lib: lib.nn.LSTM(4, 6, dtype=lib.float64, **kw),
                [_x(kw, batched), _h(kw, hs, batched), _h(kw, 6, batched, seed=8)],
                call=lambda m, x, h, c: m(x, (h, c)))


def test_rnn_dropout_in_training_mode_changes_output_and_keeps_shapes():
    m = gg.nn.GRU(4, 6, num_layers=2, dropout=0.5, dtype=gg.float64)
    x = gg.tensor(_x({}))
    m.train()
    a, _ = m(x)
    m.eval()
    b, _ = m(x)
    assert a.shape == b.shape and not np.allclose(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                    ("RNNCell", {"bias": False}), ("GRUCell", {}),
                                    ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
def test_cells(cls, kw, batched, with_h):
    x = randn(3, 4) if batched else randn(4)
    h = randn(3, 5, seed=2) if batched else randn(5, seed=2)
    check_layer(lambda lib: getattr(lib.nn, cls)(4, 5, dtype=lib.float64, **kw),
                [x, h] if with_h else [x])


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
def test_lstm_cell(bias, batched, with_h):
    x = randn(3, 4) if batched else randn(4)
    h = randn(3, 5, seed=2) if batched else randn(5, seed=2)
    c = randn(3, 5, seed=3) if batched else randn(5, seed=3)
    check_layer(lambda lib: lib.nn.LSTMCell(4, 5, bias=bias, dtype=lib.float64),
                [x, h, c] if with_h else [x],
                call=(lambda m, x, h, c: m(x, (h, c))) if with_h else None)


def test_cell_unrolled_over_time_matches_torch():
    def prog(lib):
        lib.manual_seed(0)
        cell = lib.nn.LSTMCell(3, 4, dtype=lib.float64)
        with lib.no_grad():
            for p in cell.parameters():
                p.copy_(lib.linspace(-0.5, 0.5, p.numel(), dtype=lib.float64).reshape(p.shape))
        x = lib.linspace(-1, 1, 30, dtype=lib.float64).reshape(5, 2, 3).requires_grad_()
        h = c = lib.zeros(2, 4, dtype=lib.float64)
        for t in range(5):
            h, c = cell(x[t], (h, c))
        h.sum().backward()
        return h, c, x.grad, cell.weight_hh.grad
    run_both(prog)


@pytest.mark.parametrize("cls,args,kw", [
    ("RNN", (4, 6), {"nonlinearity": "gelu"}), ("RNN", (4, 6), {"proj_size": 2}),
    ("GRU", (4, 6), {"proj_size": 2}), ("LSTM", (4, 6), {"proj_size": 6}),
    ("LSTM", (4, 6), {"dropout": 1.5}), ("LSTM", (4, 6), {"dropout": True}),
    ("LSTM", (0, 6), {}), ("LSTM", (4, 6), {"num_layers": 0}),
    ("GRU", (4.0, 6), {}), ("GRU", (4, 6), {"bias": 1})])
def test_bad_constructor_args(cls, args, kw):
    run_both(lambda lib: getattr(lib.nn, cls)(*args, **kw))


def test_dropout_with_one_layer_warns():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater"):
            lib.nn.LSTM(3, 4, dropout=0.2)


@pytest.mark.parametrize("cls,x,h", [
    ("RNN", (5, 3, 7), None), ("RNN", (5, 3), None), ("RNN", (1, 5, 3, 4), None),
    ("GRU", (5, 3, 4), (1, 2, 6)), ("GRU", (5, 3, 4), (3, 6)), ("GRU", (5, 4), (1, 1, 6)),
    ("LSTM", (5, 3, 4), (2, 3, 6)), ("LSTM", (2, 3, 4, 5), None),
    ("RNNCell", (3, 7), None), ("RNNCell", (2, 3, 4), None), ("RNNCell", (3, 4), (2, 6)),
    ("GRUCell", (3, 4), (3, 5)), ("LSTMCell", (1, 2, 4), None)])
def test_wrong_input_shapes_raise_like_torch(cls, x, h):
    def prog(lib):
        m = getattr(lib.nn, cls)(4, 6)
        args = [lib.randn(*x)]
        if h is not None:
            hh = lib.randn(*h)
            args.append((hh, hh) if cls == "LSTM" else hh)
        return m(*args)
    run_both(prog)


def test_dtype_mismatch_raises_value_error():
    run_both(lambda lib: lib.nn.GRU(4, 6)(lib.randn(5, 3, 4, dtype=lib.float64)))


@pytest.mark.parametrize("cls,args,kw", [
    ("RNN", (4, 6), {}), ("RNN", (4, 6, 2), {"nonlinearity": "relu", "batch_first": True}),
    ("LSTM", (4, 6), {"proj_size": 2, "bidirectional": True, "dropout": 0.5,
                      "num_layers": 2}),
    ("GRU", (4, 6), {"bias": False}), ("RNNCell", (4, 6), {"nonlinearity": "relu"}),
    ("LSTMCell", (4, 6), {"bias": False}), ("GRUCell", (4, 6), {})])
def test_repr_names_shapes_and_init(cls, args, kw):
    g, t = getattr(gg.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(g) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in g.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    bound = 1 / np.sqrt(6)
    for p in g.parameters():
        assert np.abs(p.detach().numpy()).max() <= bound
    if hasattr(t, "all_weights"):
        assert [[tuple(w.shape) for w in ws] for ws in g.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in t.all_weights]
