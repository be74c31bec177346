"""The likelihood and margin losses (PoissonNLLLoss, GaussianNLLLoss, SoftMarginLoss,
MultiLabelSoftMarginLoss, HingeEmbeddingLoss, MultiMarginLoss, MultiLabelMarginLoss,
TripletMarginLoss, TripletMarginWithDistanceLoss) against torch.nn: values, gradients, the
whole grad_fn graph, double backward, legacy size_average/reduce, exceptions."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

RED = ["mean", "sum", "none"]
X = randn(4, 5)
Y = randn(4, 5, seed=1)
SIGNS = np.where(randn(4, 5, seed=2) > 0, 1.0, -1.0)
LABELS = np.array([0, 4, 2, 2])
ML_TARGET = np.array([[0, 3, -1, 1, 2], [4, -1, 0, 0, 0], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0]])
BITS = (randn(4, 5, seed=3) > 0).astype(np.float64)


def graph(out):
    """The names of the grad_fn graph under ``out`` (depth first)."""
    names, stack = [], [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            continue
        names.append(type(fn).__name__)
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return names


def both_graphs(make):
    """``make(lib)`` -> loss; the graph of names must be PyTorch's."""
    def prog(lib):
        return graph(make(lib))
    run_both(prog)


def t64(lib, a, rg=False):
    return lib.tensor(np.array(a), dtype=lib.float64 if np.asarray(a).dtype.kind == "f"
                      else None, requires_grad=rg)


# ====================================================================== layers
@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"log_input": False}, {"full": True},
                                {"log_input": False, "full": True, "eps": 1e-3}])
def test_poisson_nll(kw, reduction):
    x = np.abs(X) + 0.1 if kw.get("log_input") is False else X
    y = np.abs(Y) * 3
    check_layer(lambda lib: lib.nn.PoissonNLLLoss(reduction=reduction, **kw), [x, y])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"full": True}, {"eps": 0.5}])
@pytest.mark.parametrize("var_shape", [(4, 5), (4,), (4, 1), (1, 5)])
def test_gaussian_nll(kw, reduction, var_shape):
    var = np.abs(randn(*var_shape, seed=7)) + 0.05
    check_layer(lambda lib: lib.nn.GaussianNLLLoss(reduction=reduction, **kw), [X, Y, var])


def test_gaussian_nll_float_var():
    def prog(lib):
        x = t64(lib, X, True)
        out = lib.nn.functional.gaussian_nll_loss(x, t64(lib, Y), 0.7, full=True)
        return out, lib.autograd.grad(out, x)
    run_both(prog)


@pytest.mark.parametrize("reduction", RED)
def test_soft_margin(reduction):
    check_layer(lambda lib: lib.nn.SoftMarginLoss(reduction=reduction), [X, SIGNS],
                requires_grad=[True, False])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("weight", [False, True])
def test_multilabel_soft_margin(reduction, weight):
    w = np.abs(randn(5, seed=4)) + 0.5
    check_layer(lambda lib: lib.nn.MultiLabelSoftMarginLoss(
        weight=lib.tensor(w) if weight else None, reduction=reduction), [X, BITS],
        requires_grad=[True, False])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("margin", [1.0, 0.3])
def test_hinge_embedding(reduction, margin):
    check_layer(lambda lib: lib.nn.HingeEmbeddingLoss(margin, reduction=reduction),
                [X * 2, SIGNS], requires_grad=[True, False])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"p": 2}, {"margin": 0.4}, {"weight": True},
                                {"p": 2, "weight": True, "margin": 2.0}])
def test_multi_margin(reduction, kw):
    w = np.abs(randn(5, seed=4)) + 0.5
    kw = dict(kw)
    weight = kw.pop("weight", False)
    check_layer(lambda lib: lib.nn.MultiMarginLoss(
        weight=lib.tensor(w) if weight else None, reduction=reduction, **kw), [X, LABELS])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("shape", ["2-d", "1-d", "1-d 0-d target"])
def test_multi_margin_shapes(reduction, shape):
    x, y = {"2-d": (X, LABELS), "1-d": (X[0].copy(), LABELS[:1].copy()),
            "1-d 0-d target": (X[0].copy(), np.array(3))}[shape]
    check_layer(lambda lib: lib.nn.MultiMarginLoss(reduction=reduction), [x, y])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("one_d", [False, True])
def test_multilabel_margin(reduction, one_d):
    x, y = (X[0].copy(), ML_TARGET[0].copy()) if one_d else (X, ML_TARGET)
    check_layer(lambda lib: lib.nn.MultiLabelMarginLoss(reduction=reduction), [x, y])


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"margin": 0.5, "p": 1.0}, {"swap": True},
                                {"p": 3.0, "eps": 1e-3, "swap": True}])
def test_triplet_margin(reduction, kw):
    check_layer(lambda lib: lib.nn.TripletMarginLoss(reduction=reduction, **kw),
                [X, Y, randn(4, 5, seed=9)])


def _l1(a, b):
    return (a - b).abs().sum(-1)


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("kw", [{}, {"margin": 0.5, "swap": True}, {"distance_function": _l1},
                                {"distance_function": _l1, "swap": True}])
def test_triplet_margin_with_distance(reduction, kw):
    check_layer(lambda lib: lib.nn.TripletMarginWithDistanceLoss(reduction=reduction, **kw),
                [X, Y, randn(4, 5, seed=9)])


@pytest.mark.parametrize("name,args", [("PoissonNLLLoss", ()), ("SoftMarginLoss", ()),
                                       ("MultiLabelSoftMarginLoss", ()),
                                       ("HingeEmbeddingLoss", (0.5,)),
                                       ("MultiMarginLoss", (2, 0.5)),
                                       ("MultiLabelMarginLoss", ()),
                                       ("TripletMarginLoss", (0.5, 1.0))])
@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True)])
def test_legacy_size_average_reduce(name, args, size_average, reduce):
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            m = getattr(lib.nn, name)(*args, size_average=size_average, reduce=reduce)
        if lib is gg:
            red = m.reduction
        else:
            assert m.reduction == red


def _functional_calls(lib):
    F = lib.nn.functional
    x = t64(lib, X, True)
    y = t64(lib, Y, True)
    n = t64(lib, randn(4, 5, seed=9), True)
    s = t64(lib, SIGNS)
    return {
        "poisson": F.poisson_nll_loss(x, y.abs() * 3),
        "poisson full": F.poisson_nll_loss(x.exp(), y.abs() * 3, log_input=False, full=True),
        "gaussian": F.gaussian_nll_loss(x, y, (y * 0.5).exp()),
        "gaussian full": F.gaussian_nll_loss(x, y, (y * 0.5).exp(), full=True, reduction="sum"),
        "soft": F.soft_margin_loss(x, s),
        "mlsm": F.multilabel_soft_margin_loss(x, t64(lib, BITS), weight=t64(lib, BITS[0])),
        "hinge": F.hinge_embedding_loss(x, s),
        "multi_margin": F.multi_margin_loss(x, lib.tensor(LABELS)),
        "multilabel_margin": F.multilabel_margin_loss(x, lib.tensor(ML_TARGET)),
        "triplet": F.triplet_margin_loss(x, y, n, swap=True),
        "triplet dist": F.triplet_margin_with_distance_loss(x, y, n, swap=True),
        "triplet dist fn": F.triplet_margin_with_distance_loss(x, y, n,
                                                               distance_function=_l1),
    }


@pytest.mark.parametrize("case", list(_functional_calls(gg)))
def test_graph_nodes_are_pytorchs(case):
    both_graphs(lambda lib: _functional_calls(lib)[case])


@pytest.mark.parametrize("case", list(_functional_calls(gg)))
def test_double_backward(case):
    def prog(lib):
        out = _functional_calls(lib)[case]
        leaves = [t for t in _leaves(out)]
        gs = lib.autograd.grad(out, leaves, create_graph=True)
        total = sum((g * g).sum() for g in gs)
        try:
            g2 = lib.autograd.grad(total, leaves, allow_unused=True)
            return gs, [None if g is None else g.detach() + 0 for g in g2]  # (no ZeroTensor)
        except RuntimeError as e:   # (the multi-class margins have none, as in PyTorch)
            return gs, "RuntimeError", "not implemented" in str(e)
    run_both(prog)


def _leaves(out):
    seen, stack, leaves = set(), [out.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        stack.extend(f for f, _ in fn.next_functions)
    return sorted(leaves, key=lambda t: float(t.detach().abs().sum()))


@pytest.mark.parametrize("fn", ["soft_margin_loss", "multi_margin_loss",
                                "multilabel_margin_loss"])
def test_forward_ad(fn):
    def prog(lib):
        fw = lib.autograd.forward_ad
        target = {"soft_margin_loss": t64(lib, SIGNS), "multi_margin_loss": lib.tensor(LABELS),
                  "multilabel_margin_loss": lib.tensor(ML_TARGET)}[fn]
        with fw.dual_level():
            d = fw.make_dual(t64(lib, X), t64(lib, Y))
            return fw.unpack_dual(getattr(lib.nn.functional, fn)(d, target)).tangent
    run_both(prog)


# ====================================================================== errors
def _err(lib, case):
    F = lib.nn.functional
    x = lib.randn(3, 4)
    L = lib.long
    calls = {
        "poisson red": lambda: F.poisson_nll_loss(x, x, reduction="foo"),
        "gauss neg var": lambda: F.gaussian_nll_loss(x, x, -lib.ones(3, 4)),
        "gauss neg float": lambda: F.gaussian_nll_loss(x, x, -1.0),
        "gauss bad size": lambda: F.gaussian_nll_loss(x, x, lib.ones(2)),
        "gauss red": lambda: F.gaussian_nll_loss(x, x, lib.ones(3, 4), reduction="foo"),
        "soft shape": lambda: F.soft_margin_loss(x, lib.ones(2, 4)),
        "soft int": lambda: F.soft_margin_loss(lib.ones(3, dtype=L), lib.ones(3, dtype=L)),
        "soft target grad": lambda: F.soft_margin_loss(x, lib.ones(3, 4, requires_grad=True)),
        "mlsm shape": lambda: F.multilabel_soft_margin_loss(x, lib.ones(2, 4)),
        "mlsm red": lambda: F.multilabel_soft_margin_loss(x, x, reduction="foo"),
        "hinge shape": lambda: F.hinge_embedding_loss(x, lib.ones(2, 4)),
        "mm oob": lambda: F.multi_margin_loss(x, lib.tensor([0, 4, 1])),
        "mm neg": lambda: F.multi_margin_loss(x, lib.tensor([0, -1, 1])),
        "mm p3": lambda: F.multi_margin_loss(x, lib.tensor([0, 1, 1]), p=3),
        "mm target shape": lambda: F.multi_margin_loss(x, lib.tensor([0, 1])),
        "mm target 2d": lambda: F.multi_margin_loss(x, lib.tensor([[0, 1, 1]])),
        "mm 3d": lambda: F.multi_margin_loss(lib.randn(2, 3, 4), lib.tensor([0, 1])),
        "mm float target": lambda: F.multi_margin_loss(x, lib.tensor([0., 1, 1])),
        "mm weight 2d": lambda: F.multi_margin_loss(x, lib.tensor([0, 1, 1]),
                                                    weight=lib.ones(1, 4)),
        "mm weight size": lambda: F.multi_margin_loss(x, lib.tensor([0, 1, 1]),
                                                      weight=lib.ones(3)),
        "mm weight grad": lambda: F.multi_margin_loss(x, lib.tensor([0, 1, 1]),
                                                      weight=lib.ones(4, requires_grad=True)),
        "mm int": lambda: F.multi_margin_loss(lib.ones(3, 4, dtype=L), lib.tensor([0, 1, 1])),
        "mm half": lambda: F.multi_margin_loss(x.half(), lib.tensor([0, 1, 1])),
        "mm module p": lambda: lib.nn.MultiMarginLoss(p=3),
        "mm module weight": lambda: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
        "mlm oob": lambda: F.multilabel_margin_loss(x, lib.tensor([[0, 4, -1, 1]] * 3)),
        "mlm -2": lambda: F.multilabel_margin_loss(x, lib.tensor([[0, -2, 1, 1]] * 3)),
        "mlm oob after -1": lambda: F.multilabel_margin_loss(x, lib.tensor([[0, -1, 9, 1]] * 3)),
        "mlm shape": lambda: F.multilabel_margin_loss(x, lib.tensor([[0, 1, -1]] * 3)),
        "mlm 3d": lambda: F.multilabel_margin_loss(lib.randn(2, 3, 4),
                                                   lib.zeros(2, 3, 4, dtype=L)),
        "mlm float target": lambda: F.multilabel_margin_loss(x, lib.zeros(3, 4)),
        "mlm int": lambda: F.multilabel_margin_loss(lib.ones(3, 4, dtype=L),
                                                    lib.zeros(3, 4, dtype=L)),
        "trip margin": lambda: F.triplet_margin_loss(x, x, x, margin=0),
        "trip dims": lambda: F.triplet_margin_loss(x, x, lib.ones(4)),
        "trip shape": lambda: F.triplet_margin_loss(x, x, lib.ones(2, 4)),
        "trip red": lambda: F.triplet_margin_loss(x, x, x, reduction="x"),
        "trip module margin": lambda: lib.nn.TripletMarginLoss(margin=-1.0),
        "tripd dims": lambda: F.triplet_margin_with_distance_loss(x, x, lib.ones(4)),
        "tripd margin": lambda: F.triplet_margin_with_distance_loss(x, x, x, margin=-1),
        "tripd red": lambda: F.triplet_margin_with_distance_loss(x, x, x, reduction="x"),
        "tripd module margin": lambda: lib.nn.TripletMarginWithDistanceLoss(margin=0.0),
    }
    return calls[case]()


@pytest.mark.parametrize("case", [
    "poisson red", "gauss neg var", "gauss neg float", "gauss bad size", "gauss red",
    "soft shape", "soft int", "soft target grad", "mlsm shape", "mlsm red", "hinge shape",
    "mm oob", "mm neg", "mm p3", "mm target shape", "mm target 2d", "mm 3d", "mm float target",
    "mm weight 2d", "mm weight size", "mm weight grad", "mm int", "mm half", "mm module p",
    "mm module weight", "mlm oob", "mlm -2", "mlm oob after -1", "mlm shape", "mlm 3d",
    "mlm float target", "mlm int", "trip margin", "trip dims", "trip shape", "trip red",
    "trip module margin", "tripd dims", "tripd margin", "tripd red", "tripd module margin"])
def test_errors_are_pytorchs(case):
    ours, theirs = run_both(lambda lib: _err(lib, case))
    assert type(theirs).__name__ == "Raised", theirs


@pytest.mark.parametrize("case", ["soft bcast", "soft f64 target", "hinge bcast",
                                  "mm empty none", "mm 0-d", "mlm 0-d", "poisson int",
                                  "gauss target bcast", "trip 1-d", "trip 3-d"])
def test_edge_cases(case):
    def prog(lib):
        F = lib.nn.functional
        x = lib.tensor(X[:3, :4].astype(np.float32))
        return {
            "soft bcast": lambda: F.soft_margin_loss(x, lib.tensor([1., -1, 1, -1])),
            "soft f64 target": lambda: F.soft_margin_loss(x, lib.ones(3, 4, dtype=lib.float64)),
            "hinge bcast": lambda: F.hinge_embedding_loss(x, lib.tensor([1., -1, 1, -1]),
                                                          reduction="none"),
            "mm empty none": lambda: F.multi_margin_loss(lib.ones(0, 4),
                                                         lib.ones(0, dtype=lib.long),
                                                         reduction="none"),
            "mm 0-d": lambda: F.multi_margin_loss(x[0, 0], lib.tensor(0), reduction="none"),
            "mlm 0-d": lambda: F.multilabel_margin_loss(x[0, 0], lib.tensor(0),
                                                        reduction="none"),
            "poisson int": lambda: F.poisson_nll_loss(lib.ones(3, dtype=lib.long),
                                                      lib.ones(3, dtype=lib.long)),
            "gauss target bcast": lambda: F.gaussian_nll_loss(x, x[0], lib.ones(3, 4),
                                                              reduction="none"),
            "trip 1-d": lambda: F.triplet_margin_loss(x[0], x[1], x[2], reduction="none"),
            "trip 3-d": lambda: F.triplet_margin_loss(x[None], x[None] * 2, x[None] + 1,
                                                      reduction="none"),
        }[case]()
    run_both(prog)


@pytest.mark.parametrize("name,kw", [("PoissonNLLLoss", {"full": True}),
                                     ("GaussianNLLLoss", {"eps": 0.1}),
                                     ("HingeEmbeddingLoss", {"margin": 2.0}),
                                     ("MultiMarginLoss", {"p": 2, "margin": 0.5}),
                                     ("TripletMarginLoss", {"swap": True, "p": 1.0}),
                                     ("TripletMarginWithDistanceLoss", {"margin": 0.3})])
def test_repr_and_attributes(name, kw):
    g, tm = getattr(gg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(g) == repr(tm)
    for k, v in kw.items():
        assert getattr(g, k) == getattr(tm, k) == v
    assert g.reduction == tm.reduction


@pytest.mark.parametrize("fn", ["multi_margin_loss", "multilabel_margin_loss",
                                "soft_margin_loss", "triplet_margin_loss"])
def test_vmap_over_examples(fn):
    def prog(lib):
        F = lib.nn.functional
        x = t64(lib, np.stack([X, X * 0.5 + 0.1]))
        target = {"multi_margin_loss": lib.tensor(np.stack([LABELS, LABELS[::-1].copy()])),
                  "multilabel_margin_loss": lib.tensor(np.stack([ML_TARGET, ML_TARGET])),
                  "soft_margin_loss": t64(lib, np.stack([SIGNS, -SIGNS]))}.get(fn)
        if fn == "triplet_margin_loss":
            return lib.func.vmap(lambda a: F.triplet_margin_loss(a, a * 2, a + 1))(x)
        return [lib.func.vmap(lambda a, t: getattr(F, fn)(a, t, reduction=r))(x, target)
                for r in RED]
    run_both(prog)
