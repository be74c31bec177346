"""Loss modules against torch.nn: values and gradients of input and target, weight buffers
in state_dict, legacy size_average/reduce, reprs."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

RED = ["mean", "sum", "none"]
A, B = randn(4, 3), randn(4, 3, seed=1)
rng = np.random.default_rng(5)
LOGITS = randn(6, 5) * 2
LABELS = np.array([0, 4, 2, -100, 1, 2])
LOGITS3 = randn(3, 5, 2) * 2
LABELS3 = np.array([[0, 1], [4, 4], [2, -100]])
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True)
W5 = np.array([1.0, 2.0, 0.5, 1.5, 3.0])


def t(lib, a):
    return lib.tensor(a)


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("name,kw", [("MSELoss", {}), ("L1Loss", {}), ("SmoothL1Loss", {}),
                                     ("SmoothL1Loss", {"beta": 0.3})])
def test_regression_losses(name, kw, reduction):
    check_layer(lambda lib: getattr(lib.nn, name)(reduction=reduction, **kw), [A, B])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"delta": 0.4}])
def test_huber(kw, reduction):
    if not hasattr(gg.nn.functional, "huber_loss"):
        pytest.skip("graphgrad.nn.functional lacks huber_loss")
    check_layer(lambda lib: lib.nn.HuberLoss(reduction=reduction, **kw), [A, B])


@pytest.mark.parametrize("reduction,weight", [("mean", False), ("mean", True), ("sum", True),
                                              ("none", True)])
@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.2}, {"ignore_index": 2}])
@pytest.mark.parametrize("x,y", [(LOGITS, LABELS), (LOGITS3, LABELS3)])
def test_cross_entropy(reduction, weight, kw, x, y):
    y = np.where(y == -100, kw.get("ignore_index", -100), y)
    check_layer(lambda lib: lib.nn.CrossEntropyLoss(
        weight=t(lib, W5) if weight else None, reduction=reduction, **kw), [x, y])


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("ls", [0.0, 0.1])
def test_cross_entropy_probability_targets(weight, ls):
    check_layer(lambda lib: lib.nn.CrossEntropyLoss(weight=t(lib, W5) if weight else None,
                                                    label_smoothing=ls), [LOGITS, PROBS])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("weight", [False, True])
def test_nll(reduction, weight):
    lp = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    check_layer(lambda lib: lib.nn.NLLLoss(weight=t(lib, W5) if weight else None,
                                           reduction=reduction, ignore_index=1),
                [lp, np.where(LABELS == -100, 1, LABELS)])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("weight", [False, True])
def test_bce(reduction, weight):
    p = 1 / (1 + np.exp(-A))
    y = rng.uniform(size=A.shape)
    check_layer(lambda lib: lib.nn.BCELoss(weight=t(lib, np.array([1., 2., 3.])) if weight
                                           else None, reduction=reduction), [p, y])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("weight,pos_weight", [(False, False), (True, False), (True, True),
                                               (False, True)])
def test_bce_with_logits(reduction, weight, pos_weight):
    y = rng.uniform(size=A.shape)
    check_layer(lambda lib: lib.nn.BCEWithLogitsLoss(
        weight=t(lib, np.array([1., 2., 3.])) if weight else None,
        pos_weight=t(lib, np.array([0.5, 2., 1.])) if pos_weight else None,
        reduction=reduction), [A, y])


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")  # both libraries warn
@pytest.mark.parametrize("reduction", RED + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    if not hasattr(gg.nn.functional, "kl_div"):
        pytest.skip("graphgrad.nn.functional lacks kl_div")
    lp = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    tgt = np.log(PROBS[::-1].copy()) if log_target else PROBS[::-1].copy()
    check_layer(lambda lib: lib.nn.KLDivLoss(reduction=reduction, log_target=log_target),
                [lp, tgt])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_cosine_embedding(reduction, margin):
    if not hasattr(gg.nn.functional, "cosine_embedding_loss"):
        pytest.skip("graphgrad.nn.functional lacks cosine_embedding_loss")
    y = np.array([1.0, -1.0, -1.0, 1.0])
    check_layer(lambda lib: lib.nn.CosineEmbeddingLoss(margin, reduction=reduction),
                [A, B, y], requires_grad=[True, True, False])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_margin_ranking(reduction, margin):
    if not hasattr(gg.nn.functional, "margin_ranking_loss"):
        pytest.skip("graphgrad.nn.functional lacks margin_ranking_loss")
    y = np.array([1.0, -1.0, -1.0, 1.0])
    check_layer(lambda lib: lib.nn.MarginRankingLoss(margin, reduction=reduction),
                [A[:, 0].copy(), B[:, 0].copy(), y], requires_grad=[True, True, False])


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True),
                                                 (False, True)])
def test_legacy_size_average_reduce(size_average, reduce):
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            m = lib.nn.MSELoss(size_average=size_average, reduce=reduce)
        if lib is gg:
            red = m.reduction
        else:
            assert m.reduction == red
    check_layer(lambda lib: lib.nn.L1Loss(reduction=red), [A, B])


def test_weight_buffers_in_state_dict():
    for lib in (gg, torch):
        m = lib.nn.CrossEntropyLoss(weight=lib.ones(3))
        assert list(m.state_dict()) == ["weight"]
        assert list(lib.nn.CrossEntropyLoss().state_dict()) == []
        assert list(lib.nn.BCEWithLogitsLoss(pos_weight=lib.ones(3)).state_dict()) == \
            ["pos_weight"]


def test_wrong_target_shape_raises_like_torch():
    run_both(lambda lib: lib.nn.CrossEntropyLoss()(lib.randn(3, 4), lib.tensor([0, 1])))
    run_both(lambda lib: lib.nn.BCELoss()(lib.rand(3, 4), lib.rand(3, 5)))


@pytest.mark.parametrize("name,kw", [("MSELoss", {}), ("CrossEntropyLoss", {"ignore_index": 3}),
                                     ("NLLLoss", {}), ("BCEWithLogitsLoss", {}),
                                     ("SmoothL1Loss", {"beta": 2.0}), ("HuberLoss", {}),
                                     ("KLDivLoss", {"log_target": True}),
                                     ("MarginRankingLoss", {"margin": 1.0}),
                                     ("CosineEmbeddingLoss", {})])
def test_repr_and_attributes(name, kw):
    g, tm = getattr(gg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(g) == repr(tm)
    for k, v in kw.items():
        assert getattr(g, k) == getattr(tm, k) == v
    assert g.reduction == tm.reduction


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("target", [[2], 1, [0, 1, 2], [[0]]])
def test_nll_of_a_1d_input(reduction, target):
    # a (C,) input takes a 0-d or a one-element target; a longer 1-D target is a ValueError
    def prog(lib):
        x = lib.linspace(-1, 1, 3, dtype=lib.float64).requires_grad_()
        loss = lib.nn.NLLLoss(reduction=reduction)(x, lib.tensor(target))
        loss.sum().backward()
        return loss, x.grad
    run_both(prog)
