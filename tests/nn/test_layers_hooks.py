"""Module hooks on the layers (tuple outputs of RNNs and attention, in-place ReLU, BatchNorm):
call order and the grad_input/grad_output tuples are PyTorch's."""
from __future__ import annotations

import pytest

from tests.conftest import run_both

pytest.importorskip("torch")


def _grads(gs):
    return [None if g is None else g.detach().clone() for g in gs]


LAYERS = [("Linear", (4, 3)), ("ReLU", ()), ("ReLU", (True,)), ("LSTM", (4, 3)),
          ("GRU", (4, 3, 2)), ("RNN", (4, 3)), ("MultiheadAttention", (4, 2)),
          ("BatchNorm1d", (2,)), ("LayerNorm", (4,)), ("Conv1d", (2, 3, 2)),
          ("TransformerEncoderLayer", (4, 2, 8, 0.0)), ("Embedding", (5, 4))]


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")  # Embedding: both warn
@pytest.mark.parametrize("name,args", LAYERS)
def test_hooks_on_layers(name, args):
    def prog(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(*args).double()
        with lib.no_grad():  # same weights in both libraries
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.linspace(-0.5, 0.4 + i / 10, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        log = []
        m.register_forward_pre_hook(lambda mod, inp: log.append(("pre", len(inp))))
        m.register_forward_hook(lambda mod, inp, out: log.append(("fwd", type(out).__name__)))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", _grads(go))))
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(("bwd", _grads(gi), _grads(go))))
        if name == "Embedding":
            x = lib.tensor([[1, 2], [4, 0]])
        else:
            x = lib.linspace(-1, 1, 40, dtype=lib.float64).reshape(5, 2, 4).requires_grad_()
        if name == "ReLU" and args:
            x = x * 1
        out = m(x, x, x) if name == "MultiheadAttention" else m(x)
        o = out[0] if isinstance(out, tuple) else out
        (o * o).sum().backward()
        return log
    run_both(prog)
