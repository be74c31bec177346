"""BatchNorm1d/2d (running statistics, momentum, eval), LayerNorm, GroupNorm, RMSNorm
against torch.nn."""
from __future__ import annotations

import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")

BN = [{}, {"momentum": 0.3}, {"momentum": None}, {"affine": False}, {"bias": False},
      {"track_running_stats": False}, {"eps": 1e-2}]


@needs("batch_norm")
@pytest.mark.parametrize("kw", BN)
@pytest.mark.parametrize("shape", [(6, 4), (5, 4, 3)])
@pytest.mark.parametrize("train", [True, False])
def test_batch_norm1d(kw, shape, train):
    check_layer(lambda lib: lib.nn.BatchNorm1d(4, dtype=lib.float64, **kw),
                [randn(*shape) * 2 + 1], train=train, steps=3)


@needs("batch_norm")
@pytest.mark.parametrize("kw", BN)
@pytest.mark.parametrize("train", [True, False])
def test_batch_norm2d(kw, train):
    check_layer(lambda lib: lib.nn.BatchNorm2d(3, dtype=lib.float64, **kw),
                [randn(4, 3, 2, 5) * 3 - 1], train=train, steps=3)


@needs("batch_norm")
def test_batch_norm_train_then_eval_uses_running_stats():
    def make(lib):
        return lib.nn.BatchNorm1d(3, dtype=lib.float64, momentum=0.5)
    gm, tm = check_layer(make, [randn(8, 3) * 4 + 2], steps=4)
    gm.eval()
    tm.eval()
    x = randn(5, 3)
    import numpy as np
    np.testing.assert_allclose(gm(gg.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    assert int(gm.num_batches_tracked) == int(tm.num_batches_tracked) == 4


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (3,)), ("BatchNorm1d", (2, 3, 4, 5)),
                                       ("BatchNorm2d", (2, 3, 4)),
                                       ("BatchNorm2d", (1, 2, 3, 4, 5))])
def test_batch_norm_wrong_dims_raise_value_error(cls, shape):
    run_both(lambda lib: getattr(lib.nn, cls)(3)(lib.randn(*shape)))


@pytest.mark.parametrize("kw", BN)
def test_batch_norm_state_dict_and_repr(kw):
    g, t = gg.nn.BatchNorm2d(5, **kw), torch.nn.BatchNorm2d(5, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    for (n, a), (_, b) in zip(g.state_dict().items(), t.state_dict().items()):
        assert str(a.dtype).rsplit(".")[-1] == str(b.dtype).rsplit(".")[-1], n
        assert a.detach().numpy().tolist() == b.detach().numpy().tolist(), n


@pytest.mark.parametrize("shape,ns,kw", [((4, 5), 5, {}), ((2, 3, 4), (3, 4), {}),
                                         ((2, 3, 4), [4], {"elementwise_affine": False}),
                                         ((2, 3, 4), 4, {"bias": False}),
                                         ((3, 4), 4, {"eps": 0.1})])
def test_layer_norm(shape, ns, kw):
    check_layer(lambda lib: lib.nn.LayerNorm(ns, dtype=lib.float64, **kw),
                [randn(*shape) * 3 + 1])


def test_layer_norm_wrong_shape_raises_like_torch():
    run_both(lambda lib: lib.nn.LayerNorm(5)(lib.randn(3, 4)))


@needs("group_norm")
@pytest.mark.parametrize("groups,kw", [(1, {}), (2, {}), (6, {}), (3, {"affine": False}),
                                       (2, {"bias": False}), (3, {"eps": 0.1})])
@pytest.mark.parametrize("shape", [(2, 6), (2, 6, 5), (3, 6, 2, 3)])
def test_group_norm(groups, kw, shape):
    check_layer(lambda lib: lib.nn.GroupNorm(groups, 6, dtype=lib.float64, **kw),
                [randn(*shape) * 2 + 1])


def test_group_norm_bad_groups():
    run_both(lambda lib: lib.nn.GroupNorm(4, 6))


@needs("rms_norm")
@pytest.mark.parametrize("shape,ns,kw", [((4, 5), 5, {}), ((2, 3, 4), (3, 4), {}),
                                         ((2, 3, 4), 4, {"eps": 0.1}),
                                         ((2, 3, 4), 4, {"elementwise_affine": False})])
def test_rms_norm(shape, ns, kw):
    check_layer(lambda lib: lib.nn.RMSNorm(ns, dtype=lib.float64, **kw), [randn(*shape)])


@pytest.mark.parametrize("cls,args,kw", [
    ("LayerNorm", (5,), {}), ("LayerNorm", ((3, 4),), {"eps": 1e-3, "bias": False}),
    ("LayerNorm", (4,), {"elementwise_affine": False}), ("GroupNorm", (2, 4), {}),
    ("GroupNorm", (2, 4), {"affine": False}), ("RMSNorm", (4,), {}),
    ("RMSNorm", ([2, 3],), {"eps": 1e-4, "elementwise_affine": False}),
    ("BatchNorm1d", (3,), {"momentum": None})])
def test_repr_and_state_dict(cls, args, kw):
    g, t = getattr(gg.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    for (n, a), (_, b) in zip(g.state_dict().items(), t.state_dict().items()):
        assert a.detach().numpy().tolist() == b.detach().numpy().tolist(), n


# ------------------------------------------------------------------ instance norm
IN = [{}, {"affine": True}, {"track_running_stats": True}, {"affine": True, "bias": False},
      {"track_running_stats": True, "momentum": None}]


@needs("instance_norm")
@pytest.mark.parametrize("kw", IN)
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (3, 4, 6)), ("InstanceNorm1d", (4, 6)),
                                       ("InstanceNorm2d", (2, 4, 3, 5)),
                                       ("InstanceNorm2d", (4, 3, 5))])
@pytest.mark.parametrize("train", [True, False])
def test_instance_norm(kw, cls, shape, train):
    check_layer(lambda lib: getattr(lib.nn, cls)(4, dtype=lib.float64, **kw),
                [randn(*shape) * 2 + 1], train=train, steps=2)


@pytest.mark.parametrize("cls,shape,kw", [("InstanceNorm1d", (2, 3, 4, 5), {}),
                                          ("InstanceNorm2d", (3, 4), {}),
                                          ("InstanceNorm1d", (2, 5, 6), {"affine": True})])
def test_instance_norm_bad_input_raises_value_error(cls, shape, kw):
    run_both(lambda lib: getattr(lib.nn, cls)(4, **kw)(lib.randn(*shape)))


def test_instance_norm_channel_mismatch_warns_without_affine():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="does not match num_features"):
            lib.nn.InstanceNorm1d(4)(lib.randn(2, 5, 6))


@pytest.mark.parametrize("kw", IN)
def test_instance_norm_repr_and_state_dict(kw):
    g, t = gg.nn.InstanceNorm2d(5, **kw), torch.nn.InstanceNorm2d(5, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
