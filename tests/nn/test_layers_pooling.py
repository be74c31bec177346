"""MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d against torch.nn."""
from __future__ import annotations

import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, needs, randn

torch = pytest.importorskip("torch")

X1 = randn(2, 3, 11)
X2 = randn(2, 3, 7, 8)


@pytest.mark.parametrize("args,kw", [((3,), {}), ((2,), {"stride": 1}),
                                     ((3,), {"stride": 2, "padding": 1}),
                                     ((2,), {"dilation": 3, "ceil_mode": True}),
                                     ((3,), {"return_indices": True}),
                                     (((3,),), {"stride": (2,), "padding": (1,)})])
@pytest.mark.parametrize("batched", [True, False])
def test_max_pool1d(args, kw, batched):
    check_layer(lambda lib: lib.nn.MaxPool1d(*args, **kw), [X1 if batched else X1[0]])


@pytest.mark.parametrize("args,kw", [((2,), {}), ((3,), {"stride": 2, "padding": 1}),
                                     (((2, 3),), {"stride": (1, 2), "dilation": (2, 1)}),
                                     ((3,), {"ceil_mode": True, "stride": 2}),
                                     ((2,), {"return_indices": True})])
@pytest.mark.parametrize("batched", [True, False])
def test_max_pool2d(args, kw, batched):
    check_layer(lambda lib: lib.nn.MaxPool2d(*args, **kw), [X2 if batched else X2[0]])


@pytest.mark.parametrize("args,kw", [((3,), {}), ((2,), {"stride": 1}),
                                     ((3,), {"stride": 2, "padding": 1}),
                                     ((3,), {"stride": 2, "padding": 1,
                                             "count_include_pad": False}),
                                     ((4,), {"stride": 3, "ceil_mode": True})])
@pytest.mark.parametrize("batched", [True, False])
def test_avg_pool1d(args, kw, batched):
    check_layer(lambda lib: lib.nn.AvgPool1d(*args, **kw), [X1 if batched else X1[0]])


@pytest.mark.parametrize("args,kw", [((2,), {}), ((3,), {"stride": 2, "padding": 1}),
                                     (((2, 3),), {"count_include_pad": False, "padding": 1}),
                                     ((3,), {"ceil_mode": True, "stride": 2}),
                                     ((2,), {"divisor_override": 3})])
@pytest.mark.parametrize("batched", [True, False])
def test_avg_pool2d(args, kw, batched):
    check_layer(lambda lib: lib.nn.AvgPool2d(*args, **kw), [X2 if batched else X2[0]])


@needs("adaptive_avg_pool1d")
@pytest.mark.parametrize("size", [1, 4, 5, 11, (3,)])
def test_adaptive_avg_pool1d(size):
    check_layer(lambda lib: lib.nn.AdaptiveAvgPool1d(size), [X1])


@needs("adaptive_avg_pool2d")
@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 3), (7, None)])
@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_avg_pool2d(size, batched):
    check_layer(lambda lib: lib.nn.AdaptiveAvgPool2d(size), [X2 if batched else X2[0]])


@needs("adaptive_max_pool1d")
@pytest.mark.parametrize("size", [1, 4, 11])
@pytest.mark.parametrize("ri", [False, True])
def test_adaptive_max_pool1d(size, ri):
    check_layer(lambda lib: lib.nn.AdaptiveMaxPool1d(size, ri), [X1])


@needs("adaptive_max_pool2d")
@pytest.mark.parametrize("size", [1, (2, 5), (None, 3)])
@pytest.mark.parametrize("ri", [False, True])
def test_adaptive_max_pool2d(size, ri):
    check_layer(lambda lib: lib.nn.AdaptiveMaxPool2d(size, ri), [X2])


@pytest.mark.parametrize("cls,args,shape", [("MaxPool1d", (3,), (2, 3, 4, 5)),
                                            ("MaxPool1d", (3,), (5,)),
                                            ("AvgPool1d", (3,), (1, 2, 3, 4)),
                                            ("MaxPool2d", (3,), (5, 5)),
                                            ("MaxPool2d", (4,), (1, 2, 3, 3)),
                                            ("AvgPool2d", (3, 1, 2), (1, 2, 5, 5)),
                                            ("MaxPool1d", (2, 1, 2), (1, 2, 5))])
def test_bad_input_raises_like_torch(cls, args, shape):
    run_both(lambda lib: getattr(lib.nn, cls)(*args)(lib.randn(*shape)))


@pytest.mark.parametrize("cls,args,kw", [
    ("MaxPool1d", (3,), {}), ("MaxPool2d", (3, 2, 1), {"ceil_mode": True}),
    ("MaxPool2d", ((2, 3),), {"dilation": 2}), ("AvgPool1d", (3, 2), {}),
    ("AvgPool2d", (3,), {"padding": 1}), ("AdaptiveAvgPool1d", (4,), {}),
    ("AdaptiveAvgPool2d", ((None, 3),), {}), ("AdaptiveMaxPool1d", (2, True), {}),
    ("AdaptiveMaxPool2d", ((3, None),), {})])
def test_repr(cls, args, kw):
    assert repr(getattr(gg.nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args, **kw))
