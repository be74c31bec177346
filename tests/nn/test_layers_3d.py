"""The 3-d layers (Conv3d, ConvTranspose3d, MaxPool3d, AvgPool3d, AdaptiveMaxPool3d,
BatchNorm3d, InstanceNorm3d, Dropout3d, the 3-d pads), MaxUnpool1d/2d/3d and
LPPool1d/2d/3d against torch.nn: values, gradients, buffers, state_dict keys, reprs and
exception types."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

X3 = randn(2, 3, 5, 6, 4)


def _t(lib, *shape, requires_grad=False):
    """The same float32 values in either library (lib.randn differs)."""
    return lib.tensor(randn(*shape).astype(np.float32), requires_grad=requires_grad)


def _lib_of(x):
    return torch if isinstance(x, torch.Tensor) else gg


# ------------------------------------------------------------------ convolutions
@pytest.mark.parametrize("args,kw", [
    ((3, 4, 2), {}),
    ((3, 4, (3, 2, 1)), {"stride": (2, 1, 1), "padding": (1, 0, 1), "dilation": (1, 2, 1)}),
    ((3, 6, 3), {"groups": 3, "bias": False, "padding": "same"}),
    ((3, 4, 3), {"padding": 1, "padding_mode": "reflect"}),
    ((3, 4, 3), {"padding": (1, 2, 1), "padding_mode": "replicate"}),
    ((3, 4, 2), {"padding": 1, "padding_mode": "circular", "stride": 2})])
@pytest.mark.parametrize("batched", [True, False])
def test_conv3d(args, kw, batched):
    check_layer(lambda lib: lib.nn.Conv3d(*args, dtype=lib.float64, **kw),
                [X3 if batched else X3[0]])


@pytest.mark.parametrize("args,kw", [
    ((3, 4, 2), {}),
    ((3, 4, (3, 2, 2)), {"stride": 2, "padding": (1, 0, 1), "output_padding": (1, 0, 1)}),
    ((3, 6, 2), {"groups": 3, "bias": False, "dilation": (2, 1, 1)})])
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose3d(args, kw, batched):
    check_layer(lambda lib: lib.nn.ConvTranspose3d(*args, dtype=lib.float64, **kw),
                [X3 if batched else X3[0]])


def test_conv_transpose3d_output_size():
    check_layer(lambda lib: lib.nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1,
                                                   dtype=lib.float64),
                [X3], call=lambda m, x: m(x, output_size=[10, 12, 8]))


@pytest.mark.parametrize("cls,args,kw", [
    ("Conv3d", (3, 4, 3), {}), ("Conv3d", (4, 4, (3, 2, 1)), {"groups": 2, "stride": 2}),
    ("ConvTranspose3d", (4, 2, 3), {"groups": 2, "output_padding": 1, "stride": 2})])
def test_conv3d_repr_state_dict_and_init(cls, args, kw):
    g, t = getattr(gg.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    assert tuple(g.weight.shape) == tuple(t.weight.shape)
    bound = 1 / math.sqrt(g.weight.shape[1] * math.prod(g.weight.shape[2:]))
    assert np.abs(g.weight.detach().numpy()).max() <= bound


@pytest.mark.parametrize("cls,shape", [("Conv3d", (2, 5, 4, 4, 4)), ("Conv3d", (2, 3, 6, 6)),
                                       ("Conv3d", (1, 3, 2, 2, 2)),
                                       ("ConvTranspose3d", (2, 3, 4)),
                                       ("ConvTranspose3d", (2, 4, 3, 3, 3))])
def test_conv3d_wrong_input_raises_like_torch(cls, shape):
    run_both(lambda lib: getattr(lib.nn, cls)(3, 4, 3)(lib.randn(*shape)))


@pytest.mark.parametrize("kw", [{"groups": 2}, {"padding": "same", "stride": 2},
                                {"padding_mode": "mirror"}])
def test_conv3d_bad_constructor_args(kw):
    run_both(lambda lib: lib.nn.Conv3d(3, 4, 3, **kw))


def test_functional_conv3d_graph_and_dtypes():
    run_both(lambda lib: lib.nn.functional.conv3d(
        lib.ones(1, 2, 3, 3, 3, requires_grad=True), lib.ones(2, 2, 2, 2, 2)).grad_fn)
    run_both(lambda lib: lib.conv3d(lib.ones(1, 2, 3, 3, 3, dtype=lib.bool),
                                    lib.ones(2, 2, 2, 2, 2, dtype=lib.bool)))
    run_both(lambda lib: lib.conv_transpose3d(lib.ones(1, 2, 3, 3, 3, dtype=lib.bool),
                                              lib.ones(2, 2, 2, 2, 2, dtype=lib.bool)))
    run_both(lambda lib: lib.nn.functional.conv_transpose3d(
        lib.ones(1, 2, 3, 3, 3), lib.ones(2, 2, 2, 2, 2), output_padding=1))
    run_both(lambda lib: lib.convolution(lib.ones(1, 2, 3), lib.ones(2, 2), None, [1], [0],
                                         [1], False, [0], 1))


# ------------------------------------------------------------------ pools
@pytest.mark.parametrize("args,kw", [((2,), {}), ((3,), {"stride": 2, "padding": 1}),
                                     (((2, 3, 2),), {"stride": (1, 2, 1),
                                                     "dilation": (2, 1, 1)}),
                                     ((3,), {"ceil_mode": True, "stride": 2}),
                                     ((2,), {"return_indices": True})])
@pytest.mark.parametrize("batched", [True, False])
def test_max_pool3d(args, kw, batched):
    check_layer(lambda lib: lib.nn.MaxPool3d(*args, **kw), [X3 if batched else X3[0]])


@pytest.mark.parametrize("args,kw", [((2,), {}), ((3,), {"stride": 2, "padding": 1}),
                                     (((2, 3, 2),), {"count_include_pad": False,
                                                     "padding": 1}),
                                     ((3,), {"ceil_mode": True, "stride": 2}),
                                     ((2,), {"divisor_override": 3})])
@pytest.mark.parametrize("batched", [True, False])
def test_avg_pool3d(args, kw, batched):
    check_layer(lambda lib: lib.nn.AvgPool3d(*args, **kw), [X3 if batched else X3[0]])


@pytest.mark.parametrize("size", [1, (2, 3, 2), (None, 4, 3), (5, 6, 4)])
@pytest.mark.parametrize("ri", [False, True])
def test_adaptive_max_pool3d(size, ri):
    check_layer(lambda lib: lib.nn.AdaptiveMaxPool3d(size, ri), [X3])


@pytest.mark.parametrize("program", [
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(3, 4, 5), 2),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), (2, 2)),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), 2, (2, 2)),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), 2, padding=2),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), 0),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), 2, dilation=0),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4), 5),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(2, 0, 4, 4, 4), 2),
    lambda lib: lib.nn.functional.max_pool3d(_t(lib, 0, 2, 4, 4, 4), 2),
    lambda lib: lib.nn.functional.max_pool3d(lib.ones(1, 2, 4, 4, 4, dtype=lib.bool), 2),
    lambda lib: lib.nn.functional.max_pool3d(lib.ones(1, 2, 4, 4, 4, dtype=lib.int32), 2),
    lambda lib: lib.max_pool3d(lib.randn(1, 2, 4, 4, 4, dtype=lib.complex64), 2),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(1, 2, 4, 4, 4), 5),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(1, 2, 4, 4, 4), (2, 2)),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(1, 2, 4, 4, 4), 2, padding=-1),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(1, 2, 4, 4, 4), 2,
                                             divisor_override=0),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(1, 2, 4, 4, 4, dtype=lib.float16), 2),
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(2, 0, 4, 4, 4), 2),
    lambda lib: lib.nn.functional.adaptive_max_pool3d(lib.randn(3, 4, 5), 2),
    lambda lib: lib.nn.functional.adaptive_max_pool3d(lib.randn(1, 3, 4, 5, 4), (2, 2)),
    lambda lib: lib.nn.functional.adaptive_max_pool3d(lib.randn(1, 3, 0, 5, 4), 2),
    lambda lib: lib.nn.functional.adaptive_max_pool3d(
        lib.ones(1, 3, 4, 5, 4, dtype=lib.int64), 2),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 2, 4, 4, 4, requires_grad=True),
                                             2).grad_fn,
    lambda lib: lib.nn.functional.avg_pool3d(lib.randn(2, 4, 4, 4, requires_grad=True),
                                             2).grad_fn,
    lambda lib: lib.max_pool1d_with_indices(_t(lib, 2, 7, requires_grad=True), 2),
    lambda lib: lib.nn.functional.max_pool2d_with_indices(_t(lib, 2, 4, 4), 2),
    lambda lib: lib.nn.functional.adaptive_max_pool1d_with_indices(_t(lib, 2, 7), 3),
])
def test_pool3d_results_and_errors_like_torch(program):
    run_both(program)


# ------------------------------------------------------------------ norms and dropout
@pytest.mark.parametrize("kw", [{}, {"momentum": None}, {"affine": False},
                                {"track_running_stats": False}])
def test_batch_norm3d(kw):
    check_layer(lambda lib: lib.nn.BatchNorm3d(3, dtype=lib.float64, **kw), [X3], steps=2)
    check_layer(lambda lib: lib.nn.BatchNorm3d(3, dtype=lib.float64, **kw), [X3],
                train=False)


def test_batch_norm3d_wrong_rank():
    run_both(lambda lib: lib.nn.BatchNorm3d(3)(lib.randn(2, 3, 4, 5)))


@pytest.mark.parametrize("kw", [{}, {"affine": True}, {"track_running_stats": True}])
@pytest.mark.parametrize("batched", [True, False])
def test_instance_norm3d(kw, batched):
    check_layer(lambda lib: lib.nn.InstanceNorm3d(3, dtype=lib.float64, **kw),
                [X3 if batched else X3[0]], steps=2)


def test_instance_norm3d_wrong_rank():
    run_both(lambda lib: lib.nn.InstanceNorm3d(3)(lib.randn(3, 4, 5)))


@pytest.mark.parametrize("shape", [(8, 40, 2, 3, 2), (40, 2, 3, 2)])
def test_dropout3d_drops_whole_channels(shape):
    gg.manual_seed(0)
    m = gg.nn.Dropout3d(0.5)
    assert repr(m) == repr(torch.nn.Dropout3d(0.5))
    x = gg.ones(*shape, dtype=gg.float64, requires_grad=True)
    y = m(x)
    per_channel = y.detach().numpy().reshape(shape[:-3] + (-1,))
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
    assert y.grad_fn.name() == ("MulBackward0" if len(shape) == 5 else "SqueezeBackward1")
    m.eval()
    np.testing.assert_array_equal(m(x).detach().numpy(), x.detach().numpy())


def test_dropout3d_eval_and_p1_like_torch():
    run_both(lambda lib: lib.nn.functional.dropout3d(lib.ones(2, 3, 2, 2, 2), 1.0))
    run_both(lambda lib: lib.nn.functional.dropout3d(lib.ones(3, 2, 2, 2), 1.0))
    run_both(lambda lib: lib.nn.functional.dropout3d(lib.ones(3, 2, 2, 2), 1.5))
    # (unbatched: unsqueezed and squeezed back even when not training, as PyTorch's)
    run_both(lambda lib: lib.nn.functional.dropout3d(
        lib.ones(3, 2, 2, 2, requires_grad=True), 0.5, training=False).grad_fn)
    run_both(lambda lib: lib.nn.functional.dropout3d(
        lib.ones(1, 3, 2, 2, 2, requires_grad=True), 0.5, training=False).is_leaf)


# ------------------------------------------------------------------ padding
PADS3 = [("ConstantPad3d", (1, 2.5)), ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), -1.0)),
         ("ZeroPad3d", ((0, 2, 1, 1, 2, 0),)), ("ReflectionPad3d", (1,)),
         ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),)), ("ReplicationPad3d", (2,)),
         ("CircularPad3d", (1,)), ("CircularPad3d", ((1, 2, 2, 0, 0, 1),))]


@pytest.mark.parametrize("name,args", PADS3)
@pytest.mark.parametrize("batched", [True, False])
def test_padding3d(name, args, batched):
    check_layer(lambda lib: getattr(lib.nn, name)(*args), [X3 if batched else X3[0]])


@pytest.mark.parametrize("name,args,shape", [("ReflectionPad3d", (5,), (2, 3, 4, 4, 4)),
                                             ("CircularPad3d", (1,), (4, 5, 4)),
                                             ("ReplicationPad3d", (1,), (2, 2, 2, 3, 4, 4))])
def test_padding3d_errors_like_torch(name, args, shape):
    run_both(lambda lib: getattr(lib.nn, name)(*args)(lib.randn(*shape)))


# ------------------------------------------------------------------ max_unpool
def _pool_unpool(k, pool_kw, out_size=None):
    def call(m, x):
        F = _lib_of(x).nn.functional
        y, idx = getattr(F, f"max_pool{k}d")(x, return_indices=True, **pool_kw)
        return m(y, idx, output_size=out_size)
    return call


@pytest.mark.parametrize("k,args,pool_kw,shape,out", [
    (1, (2,), {"kernel_size": 2}, (2, 3, 9), None),
    (1, (3, 2, 1), {"kernel_size": 3, "stride": 2, "padding": 1}, (3, 9), [9]),
    (2, (2,), {"kernel_size": 2}, (2, 3, 5, 6), (5, 6)),
    (2, ((2, 3), (1, 2)), {"kernel_size": (2, 3), "stride": (1, 2)}, (3, 5, 7), None),
    (3, (2,), {"kernel_size": 2}, (2, 3, 5, 6, 4), [2, 3, 5, 6, 4]),
    (3, (3, 2, 1), {"kernel_size": 3, "stride": 2, "padding": 1}, (3, 5, 6, 4), (5, 6, 4))])
def test_max_unpool(k, args, pool_kw, shape, out):
    check_layer(lambda lib: getattr(lib.nn, f"MaxUnpool{k}d")(*args),
                [randn(*shape)], call=_pool_unpool(k, pool_kw, out))


def test_max_unpool_graph_like_torch():
    def program(lib):
        F = lib.nn.functional
        x = _t(lib, 2, 3, 4, 4, requires_grad=True)
        y, i = F.max_pool2d(x, 2, return_indices=True)
        u = F.max_unpool2d(y, i, 2)
        g, = lib.autograd.grad(u.sum() * 2, x, create_graph=True)
        return u.grad_fn, g, F.max_unpool1d(y[0], i[0], 2).grad_fn, \
            F.max_unpool3d(y, i, 2).grad_fn
    run_both(program)


IDX = np.array([[[0, 3], [5, 6]]])


@pytest.mark.parametrize("program", [
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX), 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX).int(), 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX)[..., :1], 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX) * 4, 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), -lib.tensor(IDX), 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX), 2,
                                               output_size=(7, 7)),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2), lib.tensor(IDX), 2,
                                               output_size=(4, 4, 4)),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(2, 2), lib.tensor(IDX)[0], 2),
    lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 2, 2, dtype=lib.int64),
                                               lib.tensor(IDX), 2),
    lambda lib: lib.nn.functional.max_unpool1d(lib.ones(1, 2, dtype=lib.int64),
                                               lib.tensor(IDX)[0, :1], 2),
    lambda lib: lib.nn.functional.max_unpool3d(lib.ones(1, 1, 2, 2, dtype=lib.float16),
                                               lib.tensor(IDX)[None], 2),
    # a repeated index: the later value wins
    lambda lib: lib.nn.functional.max_unpool2d(lib.arange(4.0).reshape(1, 2, 2),
                                               lib.tensor([[[0, 0], [5, 5]]]), 2),
])
def test_max_unpool_results_and_errors_like_torch(program):
    run_both(program)


def test_max_unpool_repr():
    for k, args in ((1, (2,)), (2, (2, 1, 1)), (3, ((2, 2, 1),))):
        assert repr(getattr(gg.nn, f"MaxUnpool{k}d")(*args)) == \
            repr(getattr(torch.nn, f"MaxUnpool{k}d")(*args))


# ------------------------------------------------------------------ lp_pool
@pytest.mark.parametrize("k,args,kw", [(1, (2, 3), {}), (1, (1.5, 2), {"stride": 1}),
                                       (2, (2, 2), {}), (2, (3.0, (2, 3)), {"ceil_mode": True}),
                                       (3, (2, 2), {}), (3, (1.0, 3), {"stride": 2})])
def test_lp_pool(k, args, kw):
    x = np.abs(X3) + 0.1
    x = x[:, :, 0, 0] if k == 1 else x[:, :, 0] if k == 2 else x
    check_layer(lambda lib: getattr(lib.nn, f"LPPool{k}d")(*args, **kw), [x])


def test_lp_pool_graph_like_torch():
    run_both(lambda lib: lib.nn.functional.lp_pool3d(
        _t(lib, 1, 2, 4, 4, 4, requires_grad=True).abs(), 2, 2).grad_fn)
    run_both(lambda lib: lib.nn.functional.lp_pool1d(
        _t(lib, 2, 8, requires_grad=True).abs(), 3, 2).grad_fn)


# ------------------------------------------------------------------ ties, NaN, padding limits
def _ties_and_nans(lib, *shape):
    a = np.random.default_rng(3).integers(-2, 2, shape).astype(np.float64)
    a[np.random.default_rng(4).random(shape) < 0.2] = np.nan
    return lib.tensor(a, requires_grad=True)


@pytest.mark.parametrize("program", [
    # the index of a window's last NaN, its first maximum otherwise (the gradient's target)
    lambda lib: lib.nn.functional.adaptive_max_pool2d(_ties_and_nans(lib, 2, 5, 7), (3, 4),
                                                      True),
    lambda lib: lib.nn.functional.adaptive_max_pool3d(_ties_and_nans(lib, 2, 5, 6, 7),
                                                      (2, 3, 4), True),
    lambda lib: lib.nn.functional.max_pool3d(_ties_and_nans(lib, 1, 2, 5, 6, 7), 3, 2, 1,
                                             return_indices=True),
    lambda lib: lib.nn.functional.max_pool3d(_ties_and_nans(lib, 1, 2, 5, 6, 7), 2,
                                             return_indices=True),
    # the padding is at most half the kernel (not only of the dilated one)
    lambda lib: lib.nn.functional.max_pool2d(lib.randn(1, 6, 6), 3, 1, 2, 2),
    lambda lib: lib.nn.functional.max_pool3d(lib.randn(1, 6, 6, 6), 3, 1, (2, 1, 1), 2),
])
def test_pool_indices_and_limits_like_torch(program):
    run_both(program)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_conv_transpose_output_padding_beyond_stride_backward(k):
    """output_padding >= stride (allowed below the dilation): the input gradient was a
    convolution one element too long (graphgrad raised in backward)."""
    def program(lib):
        x = _t(lib, *((1, 2) + (3,) * k), requires_grad=True)
        w = _t(lib, *((2, 3) + (2,) * k), requires_grad=True)
        y = getattr(lib.nn.functional, f"conv_transpose{k}d")(x, w, stride=1,
                                                             output_padding=1, dilation=2)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        second = lib.autograd.grad(gx.sum() + gw.sum(), (x, w))
        return y, gx.detach(), gw.detach(), second   # (values: the create_graph nodes of
        # a transposed convolution's input gradient are named otherwise than PyTorch's)
    run_both(program)


def test_autocast_lists_of_the_3d_ops():
    """conv3d / conv_transpose3d run in the lower dtype, the 3-d pools and max_unpool in
    float32 (PyTorch's CPU autocast lists)."""
    def program(lib):
        F = lib.nn.functional
        x, w = lib.ones(1, 2, 4, 4, 4), lib.ones(2, 2, 2, 2, 2)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            y, i = F.max_pool3d(x, 2, return_indices=True)
            y2, i2 = F.max_pool2d(x[0], 2, return_indices=True)
            y1, i1 = F.max_pool1d(x[0, 0], 2, return_indices=True)
            h = x.bfloat16()
            return [t.dtype for t in (
                F.conv3d(x, w), F.conv_transpose3d(x, w),
                lib.convolution(x, w, None, [1], [0], [1], False, [0], 1),
                F.max_pool3d(h, 2), F.avg_pool3d(h, 2), F.adaptive_max_pool3d(h, 2),
                F.max_unpool3d(y.bfloat16(), i, 2), F.max_unpool2d(y2.bfloat16(), i2, 2),
                F.max_unpool1d(y1.bfloat16(), i1, 2), F.lp_pool3d(h, 2, 2))]
    run_both(program)


@pytest.mark.parametrize("name,args", [("_max_pool1d", (2,)), ("_max_pool2d", (2,)),
                                       ("_max_pool3d", (2,)), ("_adaptive_max_pool1d", (3,)),
                                       ("_adaptive_max_pool2d", (3,)),
                                       ("_adaptive_max_pool3d", (3,))])
def test_private_no_index_pools(name, args):
    k = int(name[-2])
    run_both(lambda lib: getattr(lib.nn.functional, name)(
        _t(lib, *((2, 3) + (6,) * k), requires_grad=True), *args, return_indices=True))


def _graph(t, depth=6):
    """The node names of ``t``'s graph, breadth first, ``depth`` levels."""
    out, level = [], [t.grad_fn]
    for _ in range(depth):
        level = [f for f in level if f is not None]
        if not level:
            break
        out.append([f.name() for f in level])
        level = [g for f in level for g, _ in f.next_functions]
    return out


@pytest.mark.parametrize("program", [
    lambda lib, x: lib.nn.functional.lp_pool1d(x[0, 0].abs(), 2, 2),
    lambda lib, x: lib.nn.functional.lp_pool2d(x[0].abs(), 1.5, 2, stride=1),
    lambda lib, x: lib.nn.functional.lp_pool3d(x.abs(), 3, 2, ceil_mode=True),
    lambda lib, x: lib.nn.functional.max_unpool1d(
        *lib.nn.functional.max_pool1d(x[0, 0], 2, return_indices=True), 2),
    lambda lib, x: lib.nn.functional.max_unpool3d(
        *lib.nn.functional.max_pool3d(x[0], 2, return_indices=True), 2),
    lambda lib, x: lib.nn.functional.dropout3d(x[0], 1.0),
    lambda lib, x: lib.nn.functional.conv3d(x[0], x[:, :, :2, :2, :2]),
    lambda lib, x: lib.nn.functional.conv_transpose3d(x[0], x[:, :, :2, :2, :2]),
    lambda lib, x: lib.nn.functional.max_pool3d(x[0], 2),
    lambda lib, x: lib.nn.functional.avg_pool3d(x[0], 2),
    lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x[0], 2),
    lambda lib, x: lib.max_pool1d_with_indices(x[0, 0], 2)[0],
    lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.instance_norm(x),
])
def test_graph_like_torch(program):
    run_both(lambda lib: _graph(program(lib, _t(lib, 2, 2, 4, 4, 4, requires_grad=True))))
