"""Dropout/Dropout2d, Flatten/Unflatten and Embedding against torch.nn.

Dropout masks come from graphgrad's own generator (not PyTorch's stream), so training-mode
dropout is checked by its statistics and by the gradient matching the mask; eval mode is
compared exactly."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ dropout
@pytest.mark.parametrize("name,shape", [("Dropout", (2, 3, 4, 5)), ("Dropout1d", (2, 3, 4)),
                                        ("Dropout2d", (2, 3, 4, 5)),
                                        ("AlphaDropout", (2, 3, 4)),
                                        ("FeatureAlphaDropout", (2, 3, 4, 5))])
def test_dropout_eval_is_identity(name, shape):
    check_layer(lambda lib: getattr(lib.nn, name)(0.3), [randn(*shape)], train=False)


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_dropout_extremes(p):
    check_layer(lambda lib: lib.nn.Dropout(p), [randn(4, 5)])


@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_train_statistics_and_gradient(inplace):
    p = 0.3
    m = gg.nn.Dropout(p, inplace=inplace)
    x = gg.ones(200, 100, dtype=gg.float64, requires_grad=True)
    y = m(x * 1 if inplace else x)
    a = y.detach().numpy()
    kept = a != 0
    assert abs(1 - kept.mean() - p) < 0.02
    np.testing.assert_allclose(a[kept], 1 / (1 - p))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), a)


@needs("dropout2d")
def test_dropout2d_drops_whole_channels():
    m = gg.nn.Dropout2d(0.5)
    y = m(gg.ones(8, 50, 3, 4, dtype=gg.float64)).numpy()
    per_channel = y.reshape(8, 50, -1)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7


@pytest.mark.parametrize("p", [-0.1, 1.5])
@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "AlphaDropout"])
def test_dropout_bad_p(p, name):
    run_both(lambda lib: getattr(lib.nn, name)(p))


def test_dropout1d_drops_whole_channels():
    y = gg.nn.Dropout1d(0.5)(gg.ones(8, 50, 6, dtype=gg.float64)).numpy()
    assert (y.min(-1) == y.max(-1)).all() and set(np.unique(y)) <= {0.0, 2.0}


def test_alpha_dropout_keeps_mean_and_variance():
    x = gg.randn(400, 250, dtype=gg.float64)
    y = gg.nn.AlphaDropout(0.2)(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


def test_dropout_repr():
    for args in [(), (0.2,), (0.1, True)]:
        assert repr(gg.nn.Dropout(*args)) == repr(torch.nn.Dropout(*args))
        for name in ("Dropout1d", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout"):
            assert repr(getattr(gg.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


# ------------------------------------------------------------------ flatten
@pytest.mark.parametrize("args", [(), (0,), (1, 2), (-3, -2), (2, -1)])
def test_flatten(args):
    check_layer(lambda lib: lib.nn.Flatten(*args), [randn(2, 3, 4, 5)])


@pytest.mark.parametrize("dim,size", [(1, (3, 4)), (-1, (5, 1)), (2, [2, 2]), (1, (-1, 2))])
def test_unflatten(dim, size):
    check_layer(lambda lib: lib.nn.Unflatten(dim, size), [randn(2, 12, 4, 5)[:, :, :4]])


@pytest.mark.parametrize("args", [(1, 7), (1, (2.0, 3))])
def test_unflatten_bad_args(args):
    run_both(lambda lib: lib.nn.Unflatten(*args))


def test_unflatten_wrong_size_raises_like_torch():
    run_both(lambda lib: lib.nn.Unflatten(1, (5, 5))(lib.randn(2, 12)))


# ------------------------------------------------------------------ embedding
IDX = np.array([[0, 2, 4, 1], [3, 3, 0, 9]])


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3}, {"padding_idx": -2},
                                {"scale_grad_by_freq": True}, {"max_norm": 1.0},
                                {"max_norm": 1.5, "norm_type": 1.0}])
def test_embedding(kw):
    check_layer(lambda lib: lib.nn.Embedding(10, 3, dtype=lib.float64, **kw), [IDX], steps=2)


def test_embedding_padding_row_zero_and_init():
    m = gg.nn.Embedding(100, 30, padding_idx=5)
    w = m.weight.detach().numpy()
    assert (w[5] == 0).all()
    assert abs(w.std() - 1) < 0.05 and abs(w.mean()) < 0.05


@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(freeze):
    w = randn(5, 2)
    check_layer(lambda lib: lib.nn.Embedding.from_pretrained(lib.tensor(w), freeze=freeze,
                                                             padding_idx=1), [IDX % 5])


@pytest.mark.parametrize("kw", [{"padding_idx": 10}, {"padding_idx": -11}])
def test_embedding_bad_padding_idx(kw):
    run_both(lambda lib: lib.nn.Embedding(10, 3, **kw))


def test_embedding_out_of_range_index_raises_like_torch():
    run_both(lambda lib: lib.nn.Embedding(4, 3)(lib.tensor([1, 4])))
    run_both(lambda lib: lib.nn.Embedding(4, 3)(lib.tensor([1.0])))


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 0}, {"max_norm": 2.0, "norm_type": 3.0},
                                {"scale_grad_by_freq": True}])
def test_embedding_repr(kw):
    assert repr(gg.nn.Embedding(6, 2, **kw)) == repr(torch.nn.Embedding(6, 2, **kw))


# ------------------------------------------------------------------ padding
PADS = [("ConstantPad1d", (2, 1.5)), ("ConstantPad1d", ((1, 3), -1.0)),
        ("ConstantPad2d", ((1, 0, 2, 1), 0.5)), ("ZeroPad1d", ((0, 2),)), ("ZeroPad2d", (1,)),
        ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 2, 0, 1),)),
        ("ReplicationPad1d", ((3, 1),)), ("ReplicationPad2d", (2,)),
        ("CircularPad1d", (1,)), ("CircularPad2d", ((1, 2, 2, 0),))]


@pytest.mark.parametrize("name,args", PADS)
@pytest.mark.parametrize("batched", [True, False])
def test_padding(name, args, batched):
    x = randn(2, 3, 4, 5) if batched else randn(3, 4, 5)
    if name.endswith("1d"):
        x = x[..., 0, :].copy()
    check_layer(lambda lib: getattr(lib.nn, name)(*args), [x])


@pytest.mark.parametrize("name,args,shape", [("ReflectionPad1d", (5,), (2, 3, 4)),
                                             ("CircularPad2d", (1,), (4, 5)),
                                             ("CircularPad1d", (1,), (1, 2, 3, 4))])
def test_padding_errors_like_torch(name, args, shape):
    run_both(lambda lib: getattr(lib.nn, name)(*args)(lib.randn(*shape)))


# ------------------------------------------------------------------ distances
@pytest.mark.parametrize("kw", [{}, {"p": 1.0}, {"p": 3.0, "keepdim": True}, {"eps": 0.1}])
def test_pairwise_distance(kw):
    check_layer(lambda lib: lib.nn.PairwiseDistance(**kw), [randn(4, 5), randn(4, 5, seed=1)])


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": -1, "eps": 0.5}])
def test_cosine_similarity(kw):
    check_layer(lambda lib: lib.nn.CosineSimilarity(**kw), [randn(4, 5), randn(4, 5, seed=1)])


def test_distance_reprs():
    assert repr(gg.nn.CosineSimilarity()) == repr(torch.nn.CosineSimilarity())
    assert repr(gg.nn.PairwiseDistance(1.0)) == repr(torch.nn.PairwiseDistance(1.0))
