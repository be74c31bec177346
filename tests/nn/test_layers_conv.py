"""Conv1d/2d and ConvTranspose1d/2d against torch.nn (weights copied from torch)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")

CONV1 = [
    ((3, 4, 3), {}), ((3, 4, 2), {"stride": 2, "padding": 1}),
    ((4, 6, 3), {"groups": 2, "dilation": 2, "bias": False}),
    ((3, 4, 3), {"padding": "same"}), ((3, 4, 4), {"padding": "same", "dilation": 2}),
    ((3, 4, 3), {"padding": "valid"}),
    ((3, 2, 3), {"padding": 2, "padding_mode": "reflect"}),
    ((3, 2, 3), {"padding": 1, "padding_mode": "replicate"}),
    ((3, 2, 3), {"padding": 2, "padding_mode": "circular", "stride": 2}),
]


@pytest.mark.parametrize("args,kw", CONV1)
@pytest.mark.parametrize("batched", [True, False])
def test_conv1d(args, kw, batched):
    x = randn(2, args[0], 9) if batched else randn(args[0], 9)
    check_layer(lambda lib: lib.nn.Conv1d(*args, dtype=lib.float64, **kw), [x])


CONV2 = [
    ((3, 4, 3), {}), ((3, 4, (2, 3)), {"stride": (2, 1), "padding": (1, 0)}),
    ((4, 6, 3), {"groups": 2, "dilation": (1, 2), "bias": False}),
    ((3, 4, (3, 2)), {"padding": "same"}),
    ((3, 2, 3), {"padding": (1, 2), "padding_mode": "reflect"}),
    ((3, 2, 3), {"padding": 1, "padding_mode": "replicate"}),
    ((3, 2, 3), {"padding": 1, "padding_mode": "circular"}),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")  # torch's note on its copy
@pytest.mark.parametrize("args,kw", CONV2)
@pytest.mark.parametrize("batched", [True, False])
def test_conv2d(args, kw, batched):
    x = randn(2, args[0], 6, 7) if batched else randn(args[0], 6, 7)
    check_layer(lambda lib: lib.nn.Conv2d(*args, dtype=lib.float64, **kw), [x])


TCONV = [
    ((3, 4, 3), {}), ((3, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((4, 6, 2), {"groups": 2, "dilation": 2, "bias": False}),
]


@needs("conv_transpose1d")
@pytest.mark.parametrize("args,kw", TCONV)
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose1d(args, kw, batched):
    x = randn(2, args[0], 5) if batched else randn(args[0], 5)
    check_layer(lambda lib: lib.nn.ConvTranspose1d(*args, dtype=lib.float64, **kw), [x])


@needs("conv_transpose2d")
@pytest.mark.parametrize("args,kw", TCONV + [((3, 2, (2, 3)), {"stride": (2, 1),
                                                                "padding": (0, 1)})])
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose2d(args, kw, batched):
    x = randn(2, args[0], 4, 5) if batched else randn(args[0], 4, 5)
    check_layer(lambda lib: lib.nn.ConvTranspose2d(*args, dtype=lib.float64, **kw), [x])


@needs("conv_transpose2d")
@pytest.mark.parametrize("size", [[9, 9], [10, 10], [2, 3, 10, 9]])
def test_conv_transpose_output_size(size):
    check_layer(lambda lib: lib.nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1,
                                                   dtype=lib.float64),
                [randn(2, 3, 5, 5)], call=lambda m, x: m(x, output_size=size))


@pytest.mark.parametrize("size", [[12, 12], [1, 2, 3]])
def test_conv_transpose_bad_output_size(size):
    run_both(lambda lib: lib.nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1)(
        lib.randn(2, 3, 5, 5), output_size=size))


@pytest.mark.parametrize("cls,args,kw", [
    ("Conv2d", (3, 4, 3), {"groups": 2}), ("Conv2d", (4, 3, 3), {"groups": 2}),
    ("Conv2d", (4, 4, 3), {"groups": 0}), ("Conv1d", (3, 4, 3), {"padding": "full"}),
    ("Conv1d", (3, 4, 3), {"padding": "same", "stride": 2}),
    ("Conv1d", (3, 4, 3), {"padding_mode": "mirror"}),
    ("ConvTranspose2d", (3, 4, 3), {"padding_mode": "reflect"})])
def test_bad_constructor_args_raise_value_error(cls, args, kw):
    run_both(lambda lib: getattr(lib.nn, cls)(*args, **kw))


@pytest.mark.parametrize("cls,shape", [("Conv2d", (2, 5, 6, 6)), ("Conv2d", (2, 3, 6)),
                                       ("Conv1d", (2, 3, 2)), ("Conv1d", (1, 2, 3, 9, 9))])
def test_wrong_input_raises_runtime_error(cls, shape):
    run_both(lambda lib: getattr(lib.nn, cls)(3, 4, 3)(lib.randn(*shape)))


@pytest.mark.parametrize("cls,args,kw", [
    ("Conv1d", (3, 4, 3), {}), ("Conv2d", (3, 4, (3, 2)), {"stride": 2, "padding": 1}),
    ("Conv2d", (4, 4, 3), {"groups": 2, "dilation": 2, "bias": False,
                           "padding_mode": "reflect"}),
    ("Conv2d", (3, 4, 3), {"padding": "same"}),
    ("ConvTranspose1d", (3, 4, 3), {"output_padding": 1, "stride": 2}),
    ("ConvTranspose2d", (4, 2, 3), {"groups": 2, "padding": (1, 0)})])
def test_repr_state_dict_and_init(cls, args, kw):
    g, t = getattr(gg.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    assert tuple(g.weight.shape) == tuple(t.weight.shape)
    fan_in = g.weight.shape[1] * math.prod(g.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)
    assert np.abs(g.weight.detach().numpy()).max() <= bound
    assert g.weight.dtype == gg.float32


# ------------------------------------------------------------------ fold / unfold
@needs("unfold")
@pytest.mark.parametrize("args,kw", [((2,), {}), ((3,), {"padding": 1, "stride": 2}),
                                     (((2, 3),), {"dilation": (2, 1)})])
@pytest.mark.parametrize("batched", [True, False])
def test_unfold(args, kw, batched):
    x = randn(2, 3, 6, 7) if batched else randn(3, 6, 7)
    check_layer(lambda lib: lib.nn.Unfold(*args, **kw), [x])


@needs("fold")
@pytest.mark.parametrize("out,args,kw,L", [((4, 5), (2,), {}, 12),
                                           ((6, 6), (3,), {"padding": 1, "stride": 2}, 9)])
def test_fold(out, args, kw, L):
    k = args[0] * args[0]
    check_layer(lambda lib: lib.nn.Fold(out, *args, **kw), [randn(2, 3 * k, L)])


def test_fold_unfold_repr():
    assert repr(gg.nn.Fold((4, 5), 2, stride=2)) == repr(torch.nn.Fold((4, 5), 2, stride=2))
    assert repr(gg.nn.Unfold(3, padding=1)) == repr(torch.nn.Unfold(3, padding=1))


def test_unfold_wrong_input_raises_like_torch():
    run_both(lambda lib: lib.nn.Unfold(2)(lib.randn(2, 3)))


@pytest.mark.parametrize("where", ["input", "weight"])
@pytest.mark.parametrize("special", [np.inf, np.nan])
def test_conv2d_backward_with_non_finite_operand(where, special):
    # stride 1's flat-row backward (ops/kernels/nn_conv.py NOTE [flat rows]) multiplies
    # zeros at positions that are no output position; a non-finite operand takes the
    # row-by-row path, so the gradients are PyTorch's, NaN for NaN
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((3, 4, 3, 3))
    if where == "input":
        x[0, 1, 2, 4] = special
    else:
        w[1, 2, 0, 2] = special
    grads = {}
    for lib in (gg, torch):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv2d(xt, wt, padding=1)
        y.backward(lib.ones_like(y))
        grads[lib.__name__] = (xt.grad.numpy(), wt.grad.numpy())
    for a, b in zip(grads["graphgrad"], grads["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
