"""The functional ops of the nn layers (graphgrad/nn/_functional_<family>.py) beyond what the
op table checks (tests/ops/op_db/nn_layers.py): PyTorch's argument errors (exception types),
batch_norm's running statistics, randomness of the dropouts, and torch.* aliases."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both

torch = pytest.importorskip("torch")


def _t(lib, *shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape))


# (name, program(lib, F)): each must raise PyTorch's exception type in graphgrad too
ERRORS = {
    "conv_transpose1d output_padding >= stride": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), output_padding=1),
    "conv_transpose2d output_padding >= stride": lambda L, F: F.conv_transpose2d(
        _t(L, 2, 4, 5, 5), _t(L, 4, 3, 3, 3), output_padding=(1, 0), stride=(1, 2)),
    "conv_transpose1d channels": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 3, 3, 3)),
    "conv_transpose1d weight rank": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5),
                                                                    _t(L, 4, 3, 3, 3)),
    "conv_transpose1d groups": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                               groups=3),
    "conv_transpose1d bias": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                             _t(L, 4)),
    "conv_transpose1d input rank": lambda L, F: F.conv_transpose1d(_t(L, 2, 2, 4, 5),
                                                                   _t(L, 4, 3, 3)),
    "conv_transpose1d too much padding": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding=5),
    "conv_transpose1d stride 0": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5), _t(L, 4, 3, 3),
                                                                 stride=0),
    "conv_transpose1d negative padding": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding=-1),
    "conv_transpose1d padding string": lambda L, F: F.conv_transpose1d(
        _t(L, 2, 4, 5), _t(L, 4, 3, 3), padding="same"),
    "conv_transpose1d dtypes": lambda L, F: F.conv_transpose1d(_t(L, 2, 4, 5),
                                                               _t(L, 4, 3, 3).float()),
    "batch_norm one value per channel": lambda L, F: F.batch_norm(
        _t(L, 1, 3), L.zeros(3), L.ones(3), training=True),
    "batch_norm eval without stats": lambda L, F: F.batch_norm(_t(L, 2, 3, 4), None, None),
    "batch_norm stats size": lambda L, F: F.batch_norm(_t(L, 2, 3, 4), L.zeros(4), L.ones(4),
                                                       training=True),
    "batch_norm weight size": lambda L, F: F.batch_norm(
        _t(L, 2, 3, 4), L.zeros(3), L.ones(3), L.ones(4), training=True),
    "batch_norm 1-d input": lambda L, F: F.batch_norm(_t(L, 3), L.zeros(3), L.ones(3),
                                                      training=True),
    "batch_norm momentum None": lambda L, F: F.batch_norm(
        _t(L, 2, 3, 4), L.zeros(3), L.ones(3), training=True, momentum=None),
    "batch_norm mixed dtypes": lambda L, F: F.batch_norm(
        _t(L, 2, 3, 4), L.zeros(3), L.ones(3), training=True),
    "batch_norm integer input": lambda L, F: F.batch_norm(
        _t(L, 2, 3, 4).long(), L.zeros(3), L.ones(3), training=True),
    "group_norm groups": lambda L, F: F.group_norm(_t(L, 2, 3, 4), 2),
    "group_norm weight": lambda L, F: F.group_norm(_t(L, 2, 3, 4), 3, L.ones(2)),
    "group_norm 1-d": lambda L, F: F.group_norm(_t(L, 3), 1),
    "group_norm 0 groups": lambda L, F: F.group_norm(_t(L, 2, 3, 4), 0),
    "rms_norm shape": lambda L, F: F.rms_norm(_t(L, 2, 3, 4), (3,)),
    "rms_norm weight": lambda L, F: F.rms_norm(_t(L, 2, 3, 4), (4,), L.ones(3)),
    "rms_norm int shape": lambda L, F: F.rms_norm(_t(L, 2, 3, 4), 4),
    "instance_norm 2-d": lambda L, F: F.instance_norm(_t(L, 2, 3)),
    "instance_norm one spatial element": lambda L, F: F.instance_norm(_t(L, 2, 3, 1)),
    "max_pool1d 4-d": lambda L, F: F.max_pool1d(_t(L, 2, 3, 4, 5), 2),
    "max_pool1d 1-d": lambda L, F: F.max_pool1d(_t(L, 5), 2),
    "max_pool1d kernel 0": lambda L, F: F.max_pool1d(_t(L, 2, 3, 7), 0),
    "max_pool1d padding": lambda L, F: F.max_pool1d(_t(L, 2, 3, 7), 2, padding=2),
    "max_pool1d too small": lambda L, F: F.max_pool1d(_t(L, 2, 3, 7), 9),
    "max_pool1d 2 kernel sizes": lambda L, F: F.max_pool1d(_t(L, 2, 3, 7), (2, 2)),
    "avg_pool1d padding": lambda L, F: F.avg_pool1d(_t(L, 2, 3, 7), 2, padding=2),
    "avg_pool1d 4-d": lambda L, F: F.avg_pool1d(_t(L, 2, 3, 4, 5), 2),
    "avg_pool1d too small": lambda L, F: F.avg_pool1d(_t(L, 2, 3, 7), 9),
    "adaptive_avg_pool1d 4-d": lambda L, F: F.adaptive_avg_pool1d(_t(L, 2, 3, 4, 5), 2),
    "adaptive_avg_pool2d output_size length": lambda L, F: F.adaptive_avg_pool2d(
        _t(L, 2, 3, 4, 5), (2,)),
    "adaptive_avg_pool2d negative": lambda L, F: F.adaptive_avg_pool2d(_t(L, 2, 3, 4, 5), -1),
    "adaptive_avg_pool2d empty dim": lambda L, F: F.adaptive_avg_pool2d(_t(L, 2, 3, 0, 5), 2),
    "adaptive_max_pool2d integer": lambda L, F: F.adaptive_max_pool2d(
        _t(L, 2, 3, 4, 5).long(), 2),
    "hardtanh min > max": lambda L, F: F.hardtanh(_t(L, 3), 2.0, 1.0),
    "hardtanh bool": lambda L, F: F.hardtanh(_t(L, 3) > 0, -1.0, 2.0),
    "hardsigmoid integer": lambda L, F: F.hardsigmoid(_t(L, 3).long()),
    "hardswish integer": lambda L, F: F.hardswish(_t(L, 3).long()),
    "mish integer": lambda L, F: F.mish(_t(L, 3).long()),
    "logsigmoid integer": lambda L, F: F.logsigmoid(_t(L, 3).long()),
    "glu odd dim": lambda L, F: F.glu(_t(L, 2, 3, 4), 1),
    "glu 0-d": lambda L, F: F.glu(_t(L)),
    "glu integer": lambda L, F: F.glu(_t(L, 4).long()),
    "prelu channels": lambda L, F: F.prelu(_t(L, 2, 3, 4), L.ones(2, dtype=L.float64)),
    "prelu 2-d weight": lambda L, F: F.prelu(_t(L, 2, 3, 4), L.ones(1, 3, dtype=L.float64)),
    "prelu 1-d input": lambda L, F: F.prelu(_t(L, 3), L.ones(3, dtype=L.float64)),
    "prelu dtypes": lambda L, F: F.prelu(_t(L, 4).long(), L.ones(1)),
    "dropout1d 4-d": lambda L, F: F.dropout1d(_t(L, 2, 3, 4, 5)),
    "dropout1d p": lambda L, F: F.dropout1d(_t(L, 2, 3), p=1.5),
    "dropout2d p": lambda L, F: F.dropout2d(_t(L, 2, 3, 4, 5), p=-0.1),
    "alpha_dropout p": lambda L, F: F.alpha_dropout(_t(L, 2, 3), p=1.5, training=True),
    "huber_loss delta 0": lambda L, F: F.huber_loss(_t(L, 3), _t(L, 3, seed=1), delta=0.0),
    "huber_loss reduction": lambda L, F: F.huber_loss(_t(L, 3), _t(L, 3, seed=1), "avg"),
    "huber_loss weight shape": lambda L, F: F.huber_loss(_t(L, 3), _t(L, 3, seed=1),
                                                         weight=_t(L, 2)),
    "kl_div reduction": lambda L, F: F.kl_div(_t(L, 3), _t(L, 3, seed=1), reduction="avg"),
    "kl_div integer": lambda L, F: F.kl_div(_t(L, 3).long(), _t(L, 3, seed=1),
                                            reduction="sum"),
    "cosine_similarity integer": lambda L, F: F.cosine_similarity(_t(L, 2, 3).long(),
                                                                  _t(L, 2, 3).long()),
    "cosine_similarity shapes": lambda L, F: F.cosine_similarity(_t(L, 2, 3), _t(L, 2, 4)),
    "cosine_embedding_loss 2-d target": lambda L, F: F.cosine_embedding_loss(
        _t(L, 2, 3), _t(L, 2, 3), L.ones(2, 3)),
    "cosine_embedding_loss 1-d target 1-d inputs": lambda L, F: F.cosine_embedding_loss(
        _t(L, 3), _t(L, 3), L.ones(3)),
    "cosine_embedding_loss 0-d target 2-d inputs": lambda L, F: F.cosine_embedding_loss(
        _t(L, 2, 3), _t(L, 2, 3), L.tensor(1.0)),
    "margin_ranking_loss ranks": lambda L, F: F.margin_ranking_loss(_t(L, 3), _t(L, 3),
                                                                    L.ones(1, 3)),
    "bilinear batch dims": lambda L, F: F.bilinear(_t(L, 3, 4), _t(L, 2, 5), _t(L, 2, 4, 5)),
    "bilinear input2 size": lambda L, F: F.bilinear(_t(L, 3, 4), _t(L, 3, 5), _t(L, 2, 4, 6)),
    "bilinear input1 size": lambda L, F: F.bilinear(_t(L, 3, 4), _t(L, 3, 5), _t(L, 2, 3, 5)),
    "bilinear bias size": lambda L, F: F.bilinear(_t(L, 3, 4), _t(L, 3, 5), _t(L, 2, 4, 5),
                                                  _t(L, 3)),
    "bilinear ranks": lambda L, F: F.bilinear(_t(L, 3, 4), _t(L, 3, 2, 5), _t(L, 2, 4, 5)),
    "sdpa long mask": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 4), _t(L, 2, 5, 6), attn_mask=L.ones(3, 5).long()),
    "sdpa float64 mask on float32": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4).float(), _t(L, 2, 5, 4).float(), _t(L, 2, 5, 6).float(),
        attn_mask=L.ones(3, 5).double()),
    "sdpa mask shape": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 4), _t(L, 2, 5, 6), attn_mask=L.ones(3, 4).bool()),
    "sdpa value length": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 4), _t(L, 2, 4, 6)),
    "sdpa key size": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 3), _t(L, 2, 5, 6)),
    "sdpa mask and causal": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 4), _t(L, 2, 5, 6), attn_mask=L.ones(3, 5).bool(),
        is_causal=True),
    "sdpa dtypes": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 3, 4), _t(L, 2, 5, 4).float(), _t(L, 2, 5, 6).float()),
    "sdpa heads without gqa": lambda L, F: F.scaled_dot_product_attention(
        _t(L, 2, 4, 3, 4), _t(L, 2, 2, 5, 4), _t(L, 2, 2, 5, 6)),
    "unfold 2-d": lambda L, F: F.unfold(_t(L, 3, 4), 2),
    "unfold 5-d": lambda L, F: F.unfold(_t(L, 1, 2, 3, 4, 5), 2),
    "unfold too big": lambda L, F: F.unfold(_t(L, 2, 3, 5, 4), 6),
    "unfold kernel 0": lambda L, F: F.unfold(_t(L, 2, 3, 5, 4), 0),
    "unfold stride 0": lambda L, F: F.unfold(_t(L, 2, 3, 5, 4), 2, stride=0),
    "unfold negative padding": lambda L, F: F.unfold(_t(L, 2, 3, 5, 4), 2, padding=-1),
    "unfold integer": lambda L, F: F.unfold(_t(L, 2, 3, 5, 4).long(), 2),
    "fold kernel product": lambda L, F: F.fold(_t(L, 2, 12, 12), (4, 5), 3),
    "fold block count": lambda L, F: F.fold(_t(L, 2, 12, 12), (4, 4), 2),
    "fold 4-d": lambda L, F: F.fold(_t(L, 2, 3, 4, 5), (4, 5), 2),
    "fold integer": lambda L, F: F.fold(_t(L, 2, 12, 12).long(), (4, 5), 2),
}


def test_sdpa_gqa_and_dropout_vs_torch():
    def prog(lib):
        F = lib.nn.functional
        q = _t(lib, 2, 4, 3, 4).requires_grad_()
        k, v = _t(lib, 2, 2, 5, 4, seed=1), _t(lib, 2, 2, 5, 6, seed=2)
        r = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        z = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0, enable_gqa=True)
        return [r, z, lib.autograd.grad(r.sum(), q)[0]]
    run_both(prog)


@pytest.mark.parametrize("name,args", [("hardtanh_", (-0.5, 2.0)), ("relu6", ())])
def test_inplace_activations_vs_torch(name, args):
    """hardtanh_ and relu6(inplace=True): values, the input's version, HardtanhBackward0 (the
    in-place node saves the result) and the gradient through it."""
    def prog(lib):
        x = (_t(lib, 3, 4) * 4).requires_grad_()
        y = x * 1.5
        F = lib.nn.functional
        r = getattr(F, name)(y, *args) if name == "hardtanh_" else F.relu6(y, inplace=True)
        assert r is y
        return [r, y._version, r.grad_fn.name(), lib.autograd.grad(r.exp().sum(), x)[0]]
    run_both(prog)


@pytest.mark.parametrize("fn,shape,mask_shape", [
    ("dropout1d", (40, 30, 6), (40, 30, 1)), ("dropout1d", (30, 6), (30, 1)),
    ("dropout2d", (40, 30, 3, 2), (40, 30, 1, 1)), ("dropout2d", (40, 30, 6), (40, 30, 1))])
def test_channel_dropout_zeroes_whole_channels(fn, shape, mask_shape):
    gg.manual_seed(0)
    x = gg.ones(shape, dtype=gg.float64, requires_grad=True)
    with pytest.warns(UserWarning) if fn == "dropout2d" and len(shape) == 3 else _nothing():
        y = getattr(gg.nn.functional, fn)(x, 0.25)
    d = y.detach().numpy()
    m = d.reshape(mask_shape[:-1] + (-1,)) if len(shape) > 2 else d
    # every channel all zero or all 1 / (1 - p)
    assert set(np.unique(d)) <= {0.0, 1 / 0.75}
    assert (m.min(axis=-1) == m.max(axis=-1)).all()
    assert 0.15 < (m[..., 0] == 0).mean() < 0.35
    # (an unbatched input is unsqueezed and squeezed back, as in PyTorch)
    assert y.grad_fn.name() == ("SqueezeBackward1" if len(shape) == 2 else "MulBackward0")
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), d)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_alpha_dropout_keeps_mean_and_variance():
    gg.manual_seed(0)
    x = gg.randn(200000, dtype=gg.float64)
    y = gg.nn.functional.alpha_dropout(x, 0.2, training=True)
    assert y.grad_fn is None
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
    z = gg.nn.functional.alpha_dropout(x.requires_grad_(), 0.2, training=True)
    assert z.grad_fn.name() == "AddBackward0"
    f = gg.nn.functional.feature_alpha_dropout(gg.randn(50, 40, 8, dtype=gg.float64), 0.5, True)
    v = f.numpy()
    assert v.shape == (50, 40, 8)


def test_kl_div_mean_warns_like_torch():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="batchmean"):
            lib.nn.functional.kl_div(lib.zeros(2, 3), lib.ones(2, 3) / 3)


def test_cosine_similarity_clamps_the_norms_outside_the_graph():
    """A zero vector: its norm is clamped at eps for the value, while the gradient is taken
    through the unclamped norm, as PyTorch's."""
    def prog(lib):
        x = lib.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[1.0, 1.0], [2.0, -1.0]], dtype=lib.float64, requires_grad=True)
        r = lib.nn.functional.cosine_similarity(x, y)
        return [r] + list(lib.autograd.grad(r[1], (x, y)))
    run_both(prog)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batch_norm_running_stats_vs_torch(training, dtype):
    """Running statistics updated in place as PyTorch's: momentum, unbiased variance; their
    versions bumped; eval mode leaves them alone and normalises by them."""
    def prog(lib):
        dt = getattr(lib, dtype)
        x = _t(lib, 4, 3, 5).to(dt).requires_grad_()
        rm, rv = lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt)
        w = lib.ones(3, dtype=dt).requires_grad_()
        outs = []
        for m in (0.1, 0.5):
            y = lib.nn.functional.batch_norm(x * 2 + 1, rm, rv, w, None, training, m)
            outs += [y, rm.clone(), rv.clone()]
        outs.append(rm._version)
        outs += list(lib.autograd.grad(y.sin().sum(), (x, w)))
        return outs
    run_both(prog)


def test_instance_norm_running_stats_vs_torch():
    def prog(lib):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        y = lib.nn.functional.instance_norm(_t(lib, 2, 3, 4, 5) * 3, rm, rv, momentum=0.2)
        return [y, rm, rv]
    run_both(prog)


@pytest.mark.parametrize("name", list(ERRORS))
def test_argument_errors_vs_torch(name):
    prog = ERRORS[name]

    def run(lib):
        import importlib
        return prog(lib, importlib.import_module(lib.__name__ + ".nn.functional"))
    ours, theirs = run_both(run)
    assert type(theirs).__name__ == "Raised", f"torch accepted {name}"


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d", "rms_norm", "prelu",
                                  "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish",
                                  "mish", "logsigmoid", "softsign", "tanhshrink", "glu",
                                  "dropout1d", "dropout2d", "alpha_dropout",
                                  "feature_alpha_dropout", "max_pool1d", "avg_pool1d",
                                  "adaptive_avg_pool1d", "adaptive_max_pool1d",
                                  "cosine_similarity", "pairwise_distance", "huber_loss",
                                  "bilinear", "scaled_dot_product_attention"])
def test_torch_namespace_aliases(name):
    """The names torch.* has too (torch.prelu, torch.max_pool1d, ...); nn.functional ones
    that torch.* lacks are not added there."""
    has = hasattr(torch, name)
    assert hasattr(gg, name) == has, f"torch.{name}: {has}"


def test_torch_batch_norm_argument_order():
    """torch.batch_norm / torch.instance_norm / torch.group_norm take PyTorch's (aten) order."""
    def prog(lib):
        x = _t(lib, 4, 3, 5)
        w, b = _t(lib, 3, seed=1), _t(lib, 3, seed=2)
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        return [lib.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False), rm,
                lib.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                lib.group_norm(x, 3, w, b, 1e-5, False)]
    run_both(prog)


@pytest.mark.parametrize("param_dtype", ["float16", "float32"])
def test_batch_norm_half_input_with_half_or_float32_parameters_vs_torch(param_dtype):
    """A float16 input with float16 parameters (statistics stored in float16) or with float32
    ones (PyTorch's mixed-type kernel: statistics in float32): PyTorch's values and grads."""
    def prog(lib):
        dt = getattr(lib, param_dtype)
        x = _t(lib, 4, 3, 2).half().requires_grad_()
        w = lib.ones(3, dtype=dt).requires_grad_()
        b = lib.zeros(3, dtype=dt).requires_grad_()
        rm, rv = lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt)
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, True)
        gx, gw = lib.autograd.grad((y.float() * _t(lib, 4, 3, 2, seed=3)).sum(), (x, w))
        return [y, rm, rv, gx, gw]
    run_both(prog)


def test_group_norm_half_input_with_float32_parameters_vs_torch():
    """PyTorch's mixed type: float32 parameters of a float16 input; values as PyTorch's, the
    gradients (float32 weight gradient, float16 input gradient) within float16 rounding
    (PyTorch keeps the statistics in float32 in its mixed-type backward)."""
    res = {}
    for lib in (gg, torch):
        x = _t(lib, 2, 4, 3).half().requires_grad_()
        w = lib.ones(4).requires_grad_()
        y = lib.nn.functional.group_norm(x, 2, w, lib.zeros(4))
        gx, gw = lib.autograd.grad((y.float() * _t(lib, 2, 4, 3, seed=3)).sum(), (x, w))
        res[lib.__name__] = (y, gx, gw)
    (y, gx, gw), (ty, tgx, tgw) = res["graphgrad"], res["torch"]
    assert (y.dtype.__repr__().endswith("float16"), gw.dtype.__repr__().endswith("float32")) \
        == (True, True)
    np.testing.assert_array_equal(y.detach().float().numpy(), ty.detach().float().numpy())
    np.testing.assert_allclose(gw.numpy(), tgw.numpy(), rtol=2e-3)
    np.testing.assert_allclose(gx.float().numpy(), tgx.float().numpy(), atol=4e-3)
