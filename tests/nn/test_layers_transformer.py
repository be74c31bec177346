"""MultiheadAttention and TransformerEncoderLayer against torch.nn (weights copied from
torch; outputs, attention weights and all gradients)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

L, S, N, E = 4, 5, 3, 8


def _qkv(batch_first=False, batched=True, kdim=E, vdim=E):
    if not batched:
        return [randn(L, E), randn(S, kdim, seed=1), randn(S, vdim, seed=2)]
    if batch_first:
        return [randn(N, L, E), randn(N, S, kdim, seed=1), randn(N, S, vdim, seed=2)]
    return [randn(L, N, E), randn(S, N, kdim, seed=1), randn(S, N, vdim, seed=2)]


@pytest.mark.parametrize("kw", [{}, {"bias": False}, {"add_bias_kv": True},
                                {"add_zero_attn": True}, {"kdim": 3, "vdim": 5},
                                {"add_bias_kv": True, "add_zero_attn": True, "kdim": 3,
                                 "vdim": 5}, {"batch_first": True}])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False),
                                                  (False, True)])
def test_mha(kw, need_weights, average):
    ins = _qkv(kw.get("batch_first", False), True, kw.get("kdim", E), kw.get("vdim", E))
    check_layer(lambda lib: lib.nn.MultiheadAttention(E, 2, dtype=lib.float64, **kw), ins,
                call=lambda m, q, k, v: m(q, k, v, need_weights=need_weights,
                                          average_attn_weights=average))


@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_self_attention_same_tensor(batch_first):
    x = randn(N, L, E) if batch_first else randn(L, N, E)
    check_layer(lambda lib: lib.nn.MultiheadAttention(E, 4, batch_first=batch_first,
                                                      dtype=lib.float64), [x],
                call=lambda m, x: m(x, x, x))


@pytest.mark.parametrize("average", [True, False])
def test_mha_unbatched(average):
    check_layer(lambda lib: lib.nn.MultiheadAttention(E, 2, dtype=lib.float64), _qkv(False,
                                                                                    False),
                call=lambda m, q, k, v: m(q, k, v, average_attn_weights=average))


KPM = np.array([[False, False, True, False, True], [False] * 5, [True, False, False, False,
                                                                 False]])
AM2 = np.triu(np.ones((L, S), bool), 2)
AM3 = randn(N * 2, L, S, seed=9)


@pytest.mark.parametrize("kpm,am", [(KPM, None), (None, AM2), (KPM, AM2),
                                    (np.where(KPM, -1e9, 0.0), None), (None, AM3),
                                    (np.where(KPM, -2.0, 0.5), AM3)])
@pytest.mark.parametrize("kw", [{}, {"add_bias_kv": True, "add_zero_attn": True}])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_masks(kpm, am, kw, need_weights):
    ins = _qkv()
    extra = [a for a in (kpm, am) if a is not None]

    def call(m, q, k, v, *masks):
        it = iter(masks)
        return m(q, k, v, key_padding_mask=next(it) if kpm is not None else None,
                 attn_mask=next(it) if am is not None else None, need_weights=need_weights)
    check_layer(lambda lib: lib.nn.MultiheadAttention(E, 2, dtype=lib.float64, **kw),
                ins + extra, call=call, requires_grad=[True] * 3 + [False] * len(extra))


def test_mha_mismatched_mask_types_warn_like_torch():
    for lib in (gg, torch):
        m = lib.nn.MultiheadAttention(E, 2)
        q = lib.randn(L, N, E)
        with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
            m(q, q, q, key_padding_mask=lib.zeros(N, L, dtype=lib.bool),
              attn_mask=lib.zeros(L, L))


def test_mha_eval_mode_dropout_is_off():
    check_layer(lambda lib: lib.nn.MultiheadAttention(E, 2, dropout=0.5, dtype=lib.float64),
                _qkv(), train=False)


def test_mha_train_mode_dropout_changes_weights():
    m = gg.nn.MultiheadAttention(E, 2, dropout=0.5, dtype=gg.float64)
    q, k, v = (gg.tensor(a) for a in _qkv())
    _, w = m(q, k, v, average_attn_weights=False)
    assert (w.detach().numpy() == 0).any()


@pytest.mark.parametrize("case", ["embed", "kdim", "mask2d", "mask3d", "kpm", "causal",
                                  "qdim", "kv_shape", "mask_dtype"])
def test_mha_errors_like_torch(case):
    def prog(lib):
        m = lib.nn.MultiheadAttention(E, 2)
        q, k, v = lib.randn(L, N, E), lib.randn(S, N, E), lib.randn(S, N, E)
        if case == "embed":
            return m(lib.randn(L, N, 6), k, v)
        if case == "kdim":
            return m(q, lib.randn(S, N, 3), lib.randn(S, N, 3))
        if case == "mask2d":
            return m(q, k, v, attn_mask=lib.zeros(L, L))
        if case == "mask3d":
            return m(q, k, v, attn_mask=lib.zeros(N, L, S))
        if case == "kpm":
            return m(q, k, v, key_padding_mask=lib.zeros(N, S, S, dtype=lib.bool))
        if case == "causal":
            return m(q, k, v, is_causal=True)
        if case == "qdim":
            return m(lib.randn(1, L, N, E), k, v)
        if case == "kv_shape":
            return m(q, k, lib.randn(S + 1, N, E))
        return m(q, k, v, attn_mask=lib.zeros(L, S, dtype=lib.long))
    run_both(prog)


@pytest.mark.parametrize("args", [(8, 3), (0, 2), (8, 0)])
def test_mha_bad_constructor(args):
    run_both(lambda lib: lib.nn.MultiheadAttention(*args))


@pytest.mark.parametrize("kw", [{}, {"kdim": 3, "vdim": 5}, {"bias": False,
                                                             "add_bias_kv": True}])
def test_mha_names_shapes_repr_init(kw):
    g, t = gg.nn.MultiheadAttention(E, 2, **kw), torch.nn.MultiheadAttention(E, 2, **kw)
    assert repr(g) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in g.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert list(g.state_dict()) == list(t.state_dict())
    if g.in_proj_bias is not None:
        assert not g.in_proj_bias.detach().numpy().any()
        assert not g.out_proj.bias.detach().numpy().any()


# ------------------------------------------------------------------ encoder layer
@pytest.mark.parametrize("kw", [{}, {"norm_first": True}, {"activation": "gelu"},
                                {"batch_first": True, "norm_first": True},
                                {"bias": False}, {"layer_norm_eps": 1e-3}])
def test_encoder_layer(kw):
    x = randn(N, L, E) if kw.get("batch_first") else randn(L, N, E)
    check_layer(lambda lib: lib.nn.TransformerEncoderLayer(E, 2, dim_feedforward=16,
                                                           dropout=0.0, dtype=lib.float64,
                                                           **kw), [x])


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer_masks_and_eval(batch_first):
    x = randn(N, L, E) if batch_first else randn(L, N, E)
    kpm = KPM[:, :L].copy()
    causal = np.triu(np.ones((L, L), bool), 1)  # with a query whose keys are all masked
    check_layer(lambda lib: lib.nn.TransformerEncoderLayer(E, 2, 16, batch_first=batch_first,
                                                           dtype=lib.float64),
                [x, causal, kpm], train=False, requires_grad=[True, False, False],
                call=lambda m, x, am, kpm: m(x, src_mask=am, src_key_padding_mask=kpm))


def test_encoder_layer_activation_module_and_callable():
    check_layer(lambda lib: lib.nn.TransformerEncoderLayer(E, 2, 16, 0.0,
                                                           activation=lib.nn.GELU(),
                                                           dtype=lib.float64),
                [randn(L, N, E)])
    check_layer(lambda lib: lib.nn.TransformerEncoderLayer(E, 2, 16, 0.0,
                                                           activation=lib.tanh,
                                                           dtype=lib.float64),
                [randn(L, N, E)])


def test_encoder_layer_bad_activation():
    run_both(lambda lib: lib.nn.TransformerEncoderLayer(E, 2, activation="swish"))


def test_encoder_layer_repr_and_state_dict():
    g, t = gg.nn.TransformerEncoderLayer(E, 2, 16), torch.nn.TransformerEncoderLayer(E, 2, 16)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())


# ------------------------------------------------------------------ encoder
def _encoder(lib, batch_first=True, norm=True, **kw):
    layer = lib.nn.TransformerEncoderLayer(E, 2, 16, dropout=0.0, batch_first=batch_first,
                                           dtype=lib.float64, **kw)
    return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(E, dtype=lib.float64)
                                     if norm else None, enable_nested_tensor=False)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm", [False, True])
def test_encoder(batch_first, norm):
    x = randn(N, L, E) if batch_first else randn(L, N, E)
    check_layer(lambda lib: _encoder(lib, batch_first, norm), [x])


def test_encoder_with_masks():
    kpm = np.array([[False, False, True, True], [False] * 4, [False, False, False, True]])
    causal = np.triu(np.ones((L, L), bool), 1)
    check_layer(lambda lib: _encoder(lib), [randn(N, L, E), causal, kpm],
                requires_grad=[True, False, False],
                call=lambda m, x, am, kpm: m(x, mask=am, src_key_padding_mask=kpm))


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")  # torch's own note
@pytest.mark.parametrize("kpm", [[[False, False, True, True], [False] * 4,
                                  [False, False, False, True]],
                                 [[False, True, False, False], [False] * 4, [False] * 4]])
@pytest.mark.parametrize("grad", [False, True])
def test_encoder_inference_with_padding_mask(kpm, grad):
    # PyTorch's nested-tensor inference path leaves 0 at padded positions
    def prog(lib):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(E, 2, 16, batch_first=True, dtype=lib.float64)
        enc = lib.nn.TransformerEncoder(layer, 2)
        with lib.no_grad():
            for i, p in enumerate(enc.parameters()):
                p.copy_(lib.linspace(-0.3, 0.3 + i / 50, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        enc.eval()
        x = lib.linspace(-1, 1, N * L * E, dtype=lib.float64).reshape(N, L, E)
        with lib.set_grad_enabled(grad):
            return enc(x, src_key_padding_mask=lib.tensor(kpm)).detach()
    run_both(prog)


@pytest.mark.parametrize("kw", [{"batch_first": False}, {"norm_first": True},
                                {"activation": "gelu"}, {"bias": False}])
def test_encoder_nested_tensor_warning(kw):
    kw.setdefault("batch_first", True)
    for lib in (gg, torch):
        layer = lib.nn.TransformerEncoderLayer(E, 2, 16, **kw)
        if kw.get("activation") == "gelu":
            lib.nn.TransformerEncoder(layer, 2)  # relu/gelu allow nested tensors: no warning
            continue
        with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
            enc = lib.nn.TransformerEncoder(layer, 2)
        assert enc.use_nested_tensor is False


def test_encoder_repr_and_state_dict():
    g, t = _encoder(gg), _encoder(torch)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    a, b = g.layers[0].linear1.weight, g.layers[1].linear1.weight
    assert a is not b and np.array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("kind", ["encoder_layer", "mha"])
@pytest.mark.parametrize("with_kpm", [False, True])
def test_inference_matches_torch_fast_paths(kind, with_kpm):
    # eval + no_grad + batch_first: PyTorch switches to its fused kernels
    def prog(lib):
        if kind == "encoder_layer":
            m = lib.nn.TransformerEncoderLayer(E, 2, 16, batch_first=True, dtype=lib.float64)
        else:
            m = lib.nn.MultiheadAttention(E, 2, batch_first=True, dtype=lib.float64)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.linspace(-0.5, 0.4 + i / 10, p.numel(),
                                     dtype=lib.float64).reshape(p.shape))
        m.eval()
        x = lib.linspace(-1, 1, N * L * E, dtype=lib.float64).reshape(N, L, E)
        kpm = lib.tensor(KPM[:, :L].copy()) if with_kpm else None
        with lib.no_grad():
            if kind == "encoder_layer":
                return m(x, src_key_padding_mask=kpm)
            return m(x, x, x, key_padding_mask=kpm), m(x, x, x, key_padding_mask=kpm,
                                                        need_weights=False)
    run_both(prog)
