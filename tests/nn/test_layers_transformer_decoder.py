"""TransformerDecoderLayer, TransformerDecoder and Transformer against torch.nn (torch's
state_dict loaded; outputs and all gradients in train mode with dropout=0 and in eval)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

T, S, N, E = 4, 5, 3, 8
CAUSAL = np.triu(np.ones((T, T), bool), 1)
TKPM = np.array([[False, False, True, True], [False] * 4, [False, True, False, False]])
MKPM = np.array([[False, False, True, False, True], [False] * 5, [True] + [False] * 4])


def _tm(batch_first):
    return (randn(N, T, E), randn(N, S, E, seed=1)) if batch_first else \
        (randn(T, N, E), randn(S, N, E, seed=1))


@pytest.mark.parametrize("kw", [{}, {"norm_first": True}, {"activation": "gelu"},
                                {"batch_first": True}, {"bias": False},
                                {"layer_norm_eps": 1e-3, "norm_first": True}])
def test_decoder_layer(kw):
    check_layer(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0,
                                                           dtype=lib.float64, **kw),
                list(_tm(kw.get("batch_first", False))))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_decoder_layer_masks(batch_first, train):
    def call(m, t, mem, tm, tk, mk):
        return m(t, mem, tgt_mask=tm, tgt_key_padding_mask=tk, memory_key_padding_mask=mk)
    check_layer(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0,
                                                           batch_first=batch_first,
                                                           dtype=lib.float64),
                [*_tm(batch_first), CAUSAL, TKPM, MKPM], call=call, train=train,
                requires_grad=[True, True, False, False, False])


def test_decoder_layer_float_memory_mask_and_causal_hint():
    mm = randn(T, S, seed=4)
    cm = np.where(CAUSAL, -np.inf, 0.0)

    def call(m, t, mem, tm, mm):
        return m(t, mem, tgt_mask=tm, memory_mask=mm, tgt_is_causal=True)
    check_layer(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0,
                                                           dtype=lib.float64),
                [*_tm(False), cm, mm], call=call, requires_grad=[True, True, False, False])


def test_decoder_layer_unbatched():
    check_layer(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0,
                                                           dtype=lib.float64),
                [randn(T, E), randn(S, E, seed=1)])


def test_decoder_layer_activation_callable_and_module():
    for act in (lambda lib: lib.tanh, lambda lib: lib.nn.GELU()):
        check_layer(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, 16, 0.0,
                                                               activation=act(lib),
                                                               dtype=lib.float64),
                    list(_tm(False)))


def test_decoder_layer_bad_activation():
    run_both(lambda lib: lib.nn.TransformerDecoderLayer(E, 2, activation="swish"))


def _decoder(lib, batch_first=False, norm=True, **kw):
    layer = lib.nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0, batch_first=batch_first,
                                           dtype=lib.float64, **kw)
    return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(E, dtype=lib.float64)
                                     if norm else None)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm", [False, True])
def test_decoder(batch_first, norm):
    check_layer(lambda lib: _decoder(lib, batch_first, norm), list(_tm(batch_first)))


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.parametrize("train", [False, True])
def test_decoder_masks_detects_causal(train):
    def call(m, t, mem, tk):
        lib = gg if isinstance(t, gg.Tensor) else torch
        mask = lib.nn.Transformer.generate_square_subsequent_mask(T, dtype=lib.float64)
        return m(t, mem, tgt_mask=mask, tgt_key_padding_mask=tk)
    check_layer(lambda lib: _decoder(lib, norm_first=True), [*_tm(False), TKPM], call=call,
                train=train, requires_grad=[True, True, False])


def test_decoder_clones_are_independent():
    d = _decoder(gg)
    a, b = d.layers[0].linear1.weight, d.layers[1].linear1.weight
    assert a is not b and np.array_equal(a.detach().numpy(), b.detach().numpy())


def _transformer(lib, **kw):
    kw.setdefault("batch_first", True)
    return lib.nn.Transformer(E, 2, 2, 2, 16, dropout=0.0, dtype=lib.float64, **kw)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("kw", [{}, {"batch_first": False}, {"norm_first": True},
                                {"activation": "gelu", "bias": False}])
@pytest.mark.parametrize("train", [True, False])
def test_transformer(kw, train):
    src, tgt = randn(N, S, E, seed=1), randn(N, T, E)
    if not kw.get("batch_first", True):
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    check_layer(lambda lib: _transformer(lib, **kw), [src, tgt], train=train)


@pytest.mark.parametrize("train", [True, False])
def test_transformer_all_masks(train):
    def call(m, src, tgt, sm, tm, mm, sk, tk, mk):
        return m(src, tgt, src_mask=sm, tgt_mask=tm, memory_mask=mm, src_key_padding_mask=sk,
                 tgt_key_padding_mask=tk, memory_key_padding_mask=mk, tgt_is_causal=True)
    sm = np.triu(np.ones((S, S), bool), 3)
    mm = np.triu(np.ones((T, S), bool), 2)
    check_layer(lambda lib: _transformer(lib), [randn(N, S, E, seed=1), randn(N, T, E), sm,
                                                 CAUSAL, mm, MKPM, TKPM, MKPM],
                call=call, train=train, requires_grad=[True, True] + [False] * 6)


def test_transformer_unbatched():
    check_layer(lambda lib: _transformer(lib), [randn(S, E, seed=1), randn(T, E)])


def test_transformer_custom_encoder_decoder():
    def build(lib):
        base = lib.nn.Module

        class Enc(base):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(E, E, dtype=lib.float64)

            def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
                return self.lin(src)
        return lib.nn.Transformer(E, 2, custom_encoder=Enc(), custom_decoder=_decoder(lib),
                                  dtype=lib.float64)
    check_layer(build, [randn(S, N, E, seed=1), randn(T, N, E)], check_repr=False)


def test_transformer_state_dict_and_repr():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, t = gg.nn.Transformer(E, 2, 2, 1, 16), torch.nn.Transformer(E, 2, 2, 1, 16)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    assert (g.d_model, g.nhead, g.batch_first) == (t.d_model, t.nhead, t.batch_first)
    # torch's state_dict loads; xavier_uniform_ bounds the matrices like torch's
    g.load_state_dict({k: gg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    w = g.encoder.layers[0].linear1.weight.detach().numpy()
    assert np.abs(w).max() <= (6 / (E + 16)) ** 0.5


def test_transformer_defaults_warn_like_torch():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
            m = lib.nn.Transformer(E, 2, 1, 1, 16)
        assert len(m.encoder.layers) == 1 and m.encoder.layers[0].linear1.out_features == 16


@pytest.mark.parametrize("dtype", [None, "float64", "bool"])
@pytest.mark.parametrize("sz", [0, 1, 4])
def test_generate_square_subsequent_mask(dtype, sz):
    run_both(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(
        sz, dtype=getattr(lib, dtype) if dtype else None))


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("case", ["batch", "feature_src", "feature_tgt", "memory_mask_shape"])
def test_transformer_errors_like_torch(case):
    def prog(lib):
        lib.manual_seed(0)
        m = lib.nn.Transformer(E, 2, 1, 1, 16, dropout=0.0)
        src, tgt = lib.randn(S, N, E), lib.randn(T, N, E)
        if case == "batch":
            return m(src, lib.randn(T, N + 1, E))
        if case == "feature_src":
            return m(lib.randn(S, N, E + 1), tgt)
        if case == "feature_tgt":
            return m(src, lib.randn(T, N, 4))
        return m(src, tgt, memory_mask=lib.zeros(T, T))
    run_both(prog)


def test_transformer_graph_matches_torch():
    def prog(lib):
        import warnings
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = lib.nn.Transformer(E, 2, 1, 1, 16, dropout=0.0)
        out = m(lib.ones(S, N, E), lib.ones(T, N, E))
        return out.grad_fn.name(), [type(f).__name__ for f, _ in out.grad_fn.next_functions
                                    if f is not None]
    ours, theirs = run_both(prog)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")  # torch's own note
@pytest.mark.parametrize("grad", [False, True])
def test_transformer_inference_with_padding_masks(grad):
    # PyTorch's encoder takes its nested-tensor path (0 at padded positions) in inference
    def prog(lib):
        lib.manual_seed(0)
        m = lib.nn.Transformer(E, 2, 2, 2, 16, batch_first=True, dtype=lib.float64)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.linspace(-0.3, 0.3 + i / 50, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        m.eval()
        src = lib.linspace(-1, 1, N * S * E, dtype=lib.float64).reshape(N, S, E)
        tgt = lib.linspace(-2, 1, N * T * E, dtype=lib.float64).reshape(N, T, E)
        skpm = lib.tensor([[False, False, False, True, True], [False] * 5,
                           [False, False, False, False, True]])
        with lib.set_grad_enabled(grad):
            return m(src, tgt, src_key_padding_mask=skpm, memory_key_padding_mask=skpm,
                     tgt_mask=m.generate_square_subsequent_mask(T, dtype=lib.float64)).detach()
    run_both(prog)
