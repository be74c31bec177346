"""nn.functional checks the op table cannot express: dropout's randomness, graph structure
(node names), PyTorch's error types, in-place variants, max_norm, higher-order derivatives
and aliases.  Values are compared with PyTorch (the oracle) where it is deterministic."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
import graphgrad.nn.functional as GF
from tests.conftest import Raised, run_both

from tests.conftest import torch
TF = torch.nn.functional


def _pair(arr, requires_grad=True):
    arr = np.asarray(arr)
    return (gg.tensor(arr.copy(), requires_grad=requires_grad),
            torch.tensor(arr.copy(), requires_grad=requires_grad))


def _close(a, b, rtol=1e-7, atol=1e-9):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    if a.dtype == np.float32 or b.dtype == np.float32:
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _chain(t):
    """Node names from the output towards the inputs (first non-leaf edge each step)."""
    names, f = [], t.grad_fn
    while f is not None:
        names.append(type(f).__name__)
        nxt = [e[0] for e in f.next_functions
               if e[0] is not None and type(e[0]).__name__ != "AccumulateGrad"]
        f = nxt[0] if nxt else None
    return names


# ------------------------------------------------------------------ dropout
class TestDropout:
    def test_mask_statistics_and_scale(self):
        gg.manual_seed(0)
        x = gg.ones(200, 500, dtype=gg.float64)
        for p in (0.1, 0.5, 0.8):
            y = GF.dropout(x, p)
            d = y._data
            dropped = (d == 0).mean()
            assert abs(dropped - p) < 0.01, (p, dropped)
            np.testing.assert_allclose(d[d != 0], 1.0 / (1.0 - p), rtol=1e-12)

    def test_gradient_is_the_mask(self):
        gg.manual_seed(3)
        x = gg.tensor(np.random.default_rng(0).standard_normal((50, 40)), requires_grad=True)
        y = GF.dropout(x, 0.3)
        assert type(y.grad_fn).__name__ == "MulBackward0"
        g = np.random.default_rng(1).standard_normal((50, 40))
        (gx,) = gg.autograd.grad(y, x, gg.tensor(g))
        kept = y._data != 0
        np.testing.assert_allclose(gx._data, np.where(kept, g / 0.7, 0.0), rtol=1e-12)
        # the same mask scales the values
        np.testing.assert_allclose(y._data, np.where(kept, x._data / 0.7, 0.0), rtol=1e-12)

    def test_deterministic_under_seed(self):
        x = gg.randn(30, 30)
        gg.manual_seed(7)
        a = GF.dropout(x, 0.5)
        b = GF.dropout(x, 0.5)
        gg.manual_seed(7)
        c = GF.dropout(x, 0.5)
        assert np.array_equal(a._data, c._data)
        assert not np.array_equal(a._data, b._data)

    def test_float32_keeps_dtype(self):
        x = gg.randn(10, 10, dtype=gg.float32)
        assert GF.dropout(x, 0.4).dtype == gg.float32

    def test_identity_cases_and_p1(self):
        x = gg.randn(4, 3, requires_grad=True)
        assert GF.dropout(x, 0.5, training=False) is x
        assert GF.dropout(x, 0.0) is x
        y = GF.dropout(x, 1.0)
        assert not y._data.any()
        y.sum().backward()
        assert not x.grad._data.any()

    def test_inplace(self):
        gg.manual_seed(1)
        x = gg.ones(100, 100)
        v = x._version
        r = GF.dropout(x, 0.5, inplace=True)
        assert r is x and x._version > v
        assert set(np.unique(x._data)) <= {0.0, 2.0}

    def test_bad_p(self):
        with pytest.raises(ValueError, match="between 0 and 1"):
            GF.dropout(gg.randn(3), 1.5)
        with pytest.raises(ValueError):
            GF.dropout(gg.randn(3), -0.1)


# ------------------------------------------------------------------ graph structure
def test_node_names_match_pytorch():
    rng = np.random.default_rng(0)
    x, tx = _pair(rng.standard_normal((4, 3)))
    w, tw = _pair(rng.standard_normal((5, 3)))
    b, tb = _pair(rng.standard_normal(5))
    x3, tx3 = _pair(rng.standard_normal((2, 3, 4, 4)))
    k3, tk3 = _pair(rng.standard_normal((2, 3, 2, 2)))
    t = np.array([0, 2, 1, 0])
    cases = [
        lambda L, F, x, w, b, x3, k3: F.linear(x, w, b),
        lambda L, F, x, w, b, x3, k3: F.linear(x, w),
        lambda L, F, x, w, b, x3, k3: F.softmax(x, 1),
        lambda L, F, x, w, b, x3, k3: F.softmax(x, 1, dtype=L.float32),
        lambda L, F, x, w, b, x3, k3: F.log_softmax(x, 0),
        lambda L, F, x, w, b, x3, k3: F.cross_entropy(x, L.tensor(t)),
        lambda L, F, x, w, b, x3, k3: F.cross_entropy(x3, L.tensor(np.zeros((2, 4, 4), int))),
        lambda L, F, x, w, b, x3, k3: F.nll_loss(x, L.tensor(t)),
        lambda L, F, x, w, b, x3, k3: F.mse_loss(x, x * 2),
        lambda L, F, x, w, b, x3, k3: F.l1_loss(x, x * 2),
        lambda L, F, x, w, b, x3, k3: F.smooth_l1_loss(x, x * 2),
        lambda L, F, x, w, b, x3, k3: F.binary_cross_entropy(L.sigmoid(x), L.sigmoid(x * 2)),
        lambda L, F, x, w, b, x3, k3: F.binary_cross_entropy_with_logits(x, L.sigmoid(x * 2)),
        lambda L, F, x, w, b, x3, k3: F.layer_norm(x, (3,)),
        lambda L, F, x, w, b, x3, k3: F.conv2d(x3, k3, b[:2]),
        lambda L, F, x, w, b, x3, k3: F.conv1d(x3[0, :, 0], k3[..., 0]),
        lambda L, F, x, w, b, x3, k3: F.max_pool2d(x3, 2),
        lambda L, F, x, w, b, x3, k3: F.avg_pool2d(x3, 2),
        lambda L, F, x, w, b, x3, k3: F.embedding(L.tensor([1, 2]), w),
        lambda L, F, x, w, b, x3, k3: F.gelu(x),
        lambda L, F, x, w, b, x3, k3: F.silu(x),
        lambda L, F, x, w, b, x3, k3: F.elu(x),
        lambda L, F, x, w, b, x3, k3: F.leaky_relu(x),
        lambda L, F, x, w, b, x3, k3: F.softplus(x),
        lambda L, F, x, w, b, x3, k3: F.relu(x),
        lambda L, F, x, w, b, x3, k3: F.normalize(x),
    ]
    for i, f in enumerate(cases):
        g = f(gg, GF, x, w, b, x3, k3)
        r = f(torch, TF, tx, tw, tb, tx3, tk3)
        assert _chain(g) == _chain(r), (i, _chain(g), _chain(r))
        _close(g, r)


def test_linear_edges_like_pytorch():
    x, w, b = gg.randn(4, 3, requires_grad=True), gg.randn(5, 3, requires_grad=True), \
        gg.randn(5, requires_grad=True)
    y = GF.linear(x, w, b)
    nodes = [type(e[0]).__name__ for e in y.grad_fn.next_functions]
    assert nodes == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]


# ------------------------------------------------------------------ in-place variants
@pytest.mark.parametrize("name,kw", [("relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
                                     ("elu", {"alpha": 0.7}), ("silu", {})])
def test_inplace_activation_matches_pytorch(name, kw):
    arr = np.random.default_rng(5).standard_normal((3, 4))
    arr[np.abs(arr) < 0.1] = 0.3
    gx, tx = _pair(arr)
    g = getattr(GF, name)(gx * 1.0, inplace=True, **kw)
    t = getattr(TF, name)(tx * 1.0, inplace=True, **kw)
    _close(g, t)
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
    cot = np.random.default_rng(6).standard_normal((3, 4))
    _close(gg.autograd.grad(g, gx, gg.tensor(cot))[0],
           torch.autograd.grad(t, tx, torch.tensor(cot))[0])


def test_inplace_negative_slope_fails_in_backward():
    x = gg.randn(3, requires_grad=True)
    y = GF.leaky_relu(x * 1.0, -0.5, inplace=True)   # the forward is allowed, as in PyTorch
    with pytest.raises(RuntimeError, match="negative slope"):
        y.sum().backward()
    y = GF.elu(x * 1.0, -0.5, inplace=True)
    with pytest.raises(RuntimeError, match="negative slope"):
        y.sum().backward()


def test_inplace_on_leaf_is_refused():
    x = gg.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        GF.relu(x, inplace=True)


# ------------------------------------------------------------------ embedding max_norm
def test_embedding_max_norm_renormalises_weight_like_pytorch():
    arr = np.random.default_rng(2).standard_normal((6, 3)) * 2
    gw, tw = _pair(arr)
    idx = np.array([[0, 2], [2, 5]])
    v = gw._version
    g = GF.embedding(gg.tensor(idx), gw, max_norm=1.5, norm_type=2.0)
    t = TF.embedding(torch.tensor(idx), tw, max_norm=1.5, norm_type=2.0)
    _close(g, t)
    _close(gw, tw)          # looked-up rows rescaled in place, the others untouched
    assert gw._version > v
    cot = np.random.default_rng(3).standard_normal(g.shape)
    _close(gg.autograd.grad(g, gw, gg.tensor(cot))[0],
           torch.autograd.grad(t, tw, torch.tensor(cot))[0])


def test_embedding_sparse_not_supported():
    with pytest.raises(NotImplementedError, match="sparse"):
        GF.embedding(gg.tensor([1]), gg.randn(3, 2), sparse=True)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("call,exc,msg", [
    (lambda L, F: F.cross_entropy(L.randn(3, 4), L.tensor([0, 4, 1])), IndexError,
     "Target 4 is out of bounds"),
    (lambda L, F: F.cross_entropy(L.randn(3, 4), L.tensor([0, 1, 1], dtype=L.int32)),
     RuntimeError, "Long or Byte"),
    (lambda L, F: F.cross_entropy(L.randn(3, 4), L.tensor([0, 1])), ValueError,
     "batch_size"),
    (lambda L, F: F.nll_loss(L.randn(2, 3), L.tensor([0, 1]),
                             weight=L.rand(3, requires_grad=True)), RuntimeError,
     "not differentiable with respect to argument 'weight'"),
    (lambda L, F: F.binary_cross_entropy(L.tensor([1.5]), L.tensor([1.0])), RuntimeError,
     "between 0 and 1"),
    (lambda L, F: F.binary_cross_entropy(L.rand(3), L.rand(3, 1)), ValueError, "target size"),
    (lambda L, F: F.binary_cross_entropy_with_logits(L.rand(3), L.rand(3, 1)), ValueError,
     "Target size"),
    (lambda L, F: F.one_hot(L.tensor([1, -1])), RuntimeError, "non-negative"),
    (lambda L, F: F.one_hot(L.tensor([1, 3]), 2), RuntimeError, "smaller than num_classes"),
    (lambda L, F: F.one_hot(L.tensor([1.0])), RuntimeError, "LongTensor"),
    (lambda L, F: F.conv2d(L.randn(1, 3, 5, 5), L.randn(2, 2, 3, 3)), RuntimeError,
     "to have 2 channels, but got 3 channels"),
    (lambda L, F: F.conv2d(L.randn(1, 2, 2, 2), L.randn(2, 2, 3, 3)), RuntimeError,
     "Kernel size can't be greater"),
    (lambda L, F: F.conv2d(L.randn(1, 2, 5, 5), L.randn(2, 2, 3, 3), padding="same", stride=2),
     RuntimeError, "strided"),
    (lambda L, F: F.max_pool2d(L.randn(1, 1, 5, 5), 2, padding=2), RuntimeError,
     "pad should be at most half"),
    (lambda L, F: F.max_pool2d(L.randn(1, 1, 2, 2), 3), RuntimeError, "Output size is too small"),
    (lambda L, F: F.embedding(L.tensor([5]), L.randn(5, 2)), IndexError, "index out of range"),
    (lambda L, F: F.layer_norm(L.randn(3, 4), (3,)), RuntimeError, "normalized_shape"),
    (lambda L, F: F.softmax(L.tensor([1, 2]), 0), NotImplementedError, "not implemented"),
    (lambda L, F: F.mse_loss(L.randn(2), L.randn(2), reduction="avg"), ValueError,
     "not a valid value for reduction"),
    (lambda L, F: F.cross_entropy(L.randn(2, 3), L.tensor([0, 1]), label_smoothing=1.5),
     RuntimeError, "label_smoothing"),
    # class indices or probabilities is decided by the target's shape, then its dtype
    (lambda L, F: F.cross_entropy(L.randn(4, 5), L.tensor([0.0, 1.0, 2.0, 4.0])),
     RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    (lambda L, F: F.cross_entropy(L.randn(4, 5), L.ones(4, 5, dtype=L.int64)), RuntimeError,
     "Expected floating point type for target with class probabilities, got Long"),
    (lambda L, F: F.cross_entropy(L.randn(4, 5), L.tensor([True, False, True, True])),
     RuntimeError, "but got Bool"),
])
def test_errors_like_pytorch(call, exc, msg):
    for lib, F in ((torch, TF), (gg, GF)):
        with pytest.raises(exc, match=msg):
            call(lib, F)


# ------------------------------------------------------------------ edge values
def test_softmax_masked_rows_no_nan_gradient():
    arr = np.array([[-np.inf, 0.0, 1.0], [2.0, -np.inf, -np.inf]])
    gx, tx = _pair(arr)
    g, t = GF.softmax(gx, 1), TF.softmax(tx, 1)
    _close(g, t)
    cot = np.arange(6.0).reshape(2, 3)
    _close(gg.autograd.grad(g, gx, gg.tensor(cot))[0],
           torch.autograd.grad(t, tx, torch.tensor(cot))[0])
    gl, tl = GF.log_softmax(gx, 1), TF.log_softmax(tx, 1)
    _close(gl, tl)


def test_cross_entropy_all_ignored_is_nan_like_pytorch():
    gx, tx = _pair(np.random.default_rng(0).standard_normal((2, 3)))
    g = GF.cross_entropy(gx, gg.tensor([-100, -100]))
    t = TF.cross_entropy(tx, torch.tensor([-100, -100]))
    assert np.isnan(g.item()) and np.isnan(t.item())


def test_binary_cross_entropy_clamps_logs():
    gx, tx = _pair(np.array([0.0, 1.0, 0.0, 1.0]))
    tgt = np.array([1.0, 0.0, 0.0, 1.0])
    _close(GF.binary_cross_entropy(gx, gg.tensor(tgt), reduction="none"),
           TF.binary_cross_entropy(tx, torch.tensor(tgt), reduction="none"))


def test_legacy_reduction_flags():
    a, b = gg.ones(2), gg.zeros(2)
    with pytest.warns(UserWarning):
        assert GF.mse_loss(a, b, size_average=False).item() == 2.0
    with pytest.warns(UserWarning):
        assert GF.mse_loss(a, b, reduce=False).tolist() == [1.0, 1.0]


def test_softmax_implicit_dim_warns():
    x = gg.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = GF.softmax(x)
    _close(y, TF.softmax(torch.tensor(x._data), 1))


def test_integer_conv_and_max_pool():
    a = np.arange(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) % 7
    k = np.arange(3 * 2 * 3 * 3).reshape(3, 2, 3, 3) % 5
    g = GF.conv2d(gg.tensor(a), gg.tensor(k), stride=2, padding=1)
    t = TF.conv2d(torch.tensor(a), torch.tensor(k), stride=2, padding=1)
    assert g.dtype == gg.int64 and np.array_equal(g._data, t.numpy())
    g = GF.max_pool2d(gg.tensor(a), 2, padding=1)
    t = TF.max_pool2d(torch.tensor(a), 2, padding=1)
    assert np.array_equal(g._data, t.numpy())


# ------------------------------------------------------------------ higher order
@pytest.mark.parametrize("case", ["gelu", "gelu_tanh", "conv2d", "softmax",
                                  "cross_entropy", "max_pool2d", "avg_pool2d", "embedding"])
def test_third_derivative_matches_pytorch(case):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 2, 4, 4))
    w = rng.standard_normal((3, 2, 2, 2))
    fns = {
        "gelu": lambda L, F, x, w: F.gelu(x),
        "gelu_tanh": lambda L, F, x, w: F.gelu(x, approximate="tanh"),
        "conv2d": lambda L, F, x, w: F.conv2d(x, w, stride=2, padding=1) ** 3,
        "layer_norm": lambda L, F, x, w: F.layer_norm(x, (4, 4)),
        "softmax": lambda L, F, x, w: F.softmax(x, -1),
        "cross_entropy": lambda L, F, x, w: F.cross_entropy(x, L.tensor(np.array(
            [[[0, 1, 1, 0]] * 4, [[1, 1, 0, 0]] * 4])), label_smoothing=0.1),
        "max_pool2d": lambda L, F, x, w: F.max_pool2d(x, 2, stride=1) ** 3,
        "avg_pool2d": lambda L, F, x, w: F.avg_pool2d(x, 3, stride=1, padding=1) ** 3,
        "embedding": lambda L, F, x, w: F.embedding(L.tensor([[1, 0], [1, 1]]), w[0, 0],
                                                    padding_idx=0) ** 3,
    }
    res = []
    for L, F in ((gg, GF), (torch, TF)):
        xs = [L.tensor(x, requires_grad=True), L.tensor(w, requires_grad=True)]
        y = fns[case](L, F, *xs)
        c = L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
        g1 = L.autograd.grad((y * c).sum(), xs, create_graph=True, allow_unused=True)
        s1 = sum((g * L.sin(g)).sum() for g in g1 if g is not None and g.requires_grad)
        g2 = L.autograd.grad(s1, xs, create_graph=True, allow_unused=True)
        s2 = sum((g * g).sum() for g in g2 if g is not None and g.requires_grad)
        g3 = L.autograd.grad(s2, xs, allow_unused=True)
        res.append((g1, g2, g3))
    for order in range(3):
        for a, b in zip(res[0][order], res[1][order]):
            if b is None or not b.detach().numpy().any():
                assert a is None or not a._data.any()
                continue
            _close(a, b, rtol=1e-6, atol=1e-8)


def test_layer_norm_third_derivative_matches_finite_differences():
    """(PyTorch's own third derivative of layer_norm disagrees with finite differences, so
    the third order is checked numerically; the first two against PyTorch above/below.)"""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 4))
    w = rng.standard_normal((3, 4))
    c = np.cos(np.arange(x.size)).reshape(x.shape)

    def second(L, F, xv, create_graph):
        xs = [L.tensor(xv, requires_grad=True), L.tensor(w, requires_grad=True)]
        y = F.layer_norm(xs[0], (3, 4), xs[1])
        g1 = L.autograd.grad((y * L.tensor(c)).sum(), xs, create_graph=True)
        s1 = sum((g * L.sin(g)).sum() for g in g1)
        g2 = L.autograd.grad(s1, xs, create_graph=True)
        s2 = sum((g * g).sum() for g in g2)
        return xs, g2, s2

    xs, g2, s2 = second(gg, GF, x, True)
    _, tg2, _ = second(torch, TF, x, True)
    for a, b in zip(g2, tg2):
        _close(a, b, rtol=1e-6, atol=1e-8)
    g3 = gg.autograd.grad(s2, xs[0])[0]._data.ravel()
    eps = 1e-6
    for j in range(0, x.size, 5):
        xp, xm = x.copy().ravel(), x.copy().ravel()
        xp[j] += eps
        xm[j] -= eps
        num = (second(gg, GF, xp.reshape(x.shape), False)[2].item()
               - second(gg, GF, xm.reshape(x.shape), False)[2].item()) / (2 * eps)
        np.testing.assert_allclose(g3[j], num, rtol=1e-5, atol=1e-6)


def test_conv_batched_grads_second_order():
    """is_grads_batched through the convolution's backward ops (create_graph)."""
    rng = np.random.default_rng(4)
    x = gg.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    w = gg.tensor(rng.standard_normal((2, 2, 3, 3)), requires_grad=True)
    y = GF.conv2d(x, w, padding=1, stride=2)
    (gx,) = gg.autograd.grad((y ** 2).sum(), x, create_graph=True)
    cots = rng.standard_normal((3,) + tuple(gx.shape))
    batched = gg.autograd.grad(gx, [x, w], gg.tensor(cots), retain_graph=True,
                               is_grads_batched=True)
    for i in range(3):
        row = gg.autograd.grad(gx, [x, w], gg.tensor(cots[i]), retain_graph=True)
        for a, b in zip(batched, row):
            np.testing.assert_allclose(a._data[i], b._data, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ aliases
def test_top_level_aliases():
    arr = np.random.default_rng(0).standard_normal((3, 4))
    x, tx = _pair(arr)
    _close(gg.softmax(x, 1), torch.softmax(tx, 1))
    _close(x.softmax(0), tx.softmax(0))
    _close(gg.log_softmax(x, -1), torch.log_softmax(tx, -1))
    _close(x.log_softmax(1, dtype=gg.float32), tx.log_softmax(1, dtype=torch.float32),
           rtol=1e-6, atol=1e-6)
    y = gg.tensor(arr.copy())
    assert gg.relu_(y) is y and (y._data >= 0).all()
    assert GF.relu_(gg.tensor(arr.copy()))._data.min() >= 0
    w = np.random.default_rng(1).standard_normal((2, 3, 2))
    _close(gg.conv1d(x[None], gg.tensor(w)), torch.conv1d(tx[None], torch.tensor(w)))
    b = np.random.default_rng(2).standard_normal(4)
    m = np.random.default_rng(3).standard_normal((4, 4))
    _close(gg.addmm(gg.tensor(b), x, gg.tensor(m), beta=0.5, alpha=2.0),
           torch.addmm(torch.tensor(b), tx, torch.tensor(m), beta=0.5, alpha=2.0))


@pytest.mark.parametrize("case", ["linear_weight", "linear_bias", "linear_3d_bias", "addmm_bias",
                                  "addmm_mats", "addmm_mat2", "bce_target", "bce_weight",
                                  "bce_int_target", "bcel_target", "bcel_pos_weight",
                                  "bcel_weight", "ln_weight", "ln_bias", "ln_both"])
def test_mixed_dtype_arguments(case):
    """float32 inputs with a float64 argument: PyTorch's error, or its promotion."""
    def prog(lib):
        F = lib.nn.functional
        x, d = lib.randn(3, 4), lib.float64
        f = {"linear_weight": lambda: F.linear(x, lib.randn(5, 4, dtype=d)),
             "linear_bias": lambda: F.linear(x, lib.randn(5, 4), lib.randn(5, dtype=d)),
             "linear_3d_bias": lambda: F.linear(lib.randn(2, 3, 4), lib.randn(5, 4),
                                                lib.randn(5, dtype=d)),
             "addmm_bias": lambda: lib.addmm(lib.randn(4, dtype=d), lib.randn(3, 2),
                                             lib.randn(2, 4)),
             "addmm_mats": lambda: lib.addmm(lib.randn(4), lib.randn(3, 2, dtype=d),
                                             lib.randn(2, 4, dtype=d)),
             "addmm_mat2": lambda: lib.addmm(lib.randn(4), lib.randn(3, 2),
                                             lib.randn(2, 4, dtype=d)),
             "bce_target": lambda: F.binary_cross_entropy(lib.rand(3, 4),
                                                          lib.rand(3, 4, dtype=d)),
             "bce_weight": lambda: F.binary_cross_entropy(lib.rand(3, 4), lib.rand(3, 4),
                                                          weight=lib.rand(3, 4, dtype=d)),
             "bce_int_target": lambda: F.binary_cross_entropy(lib.rand(3, 4),
                                                              lib.ones(3, 4, dtype=lib.int64)),
             "bcel_target": lambda: F.binary_cross_entropy_with_logits(
                 x, lib.rand(3, 4, dtype=d)),
             "bcel_pos_weight": lambda: F.binary_cross_entropy_with_logits(
                 x, lib.rand(3, 4), pos_weight=lib.rand(4, dtype=d)),
             "bcel_weight": lambda: F.binary_cross_entropy_with_logits(
                 x, lib.rand(3, 4), weight=lib.rand(4, dtype=d)),
             "ln_weight": lambda: F.layer_norm(x, [4], lib.randn(4, dtype=d)),
             "ln_bias": lambda: F.layer_norm(x, [4], lib.randn(4), lib.randn(4, dtype=d)),
             "ln_both": lambda: F.layer_norm(x, [4], lib.randn(4, dtype=d),
                                             lib.randn(4, dtype=d))}[case]
        try:
            return f().dtype
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            return Raised(exc)
    run_both(prog)


@pytest.mark.parametrize("key", ["mask", "list", "mask_accumulate"])
@pytest.mark.parametrize("value", ["0d_double", "1elem_double", "0d_long", "0d_double_grad",
                                   "2elem_double"])
def test_setitem_value_of_another_dtype(key, value):
    """One value under a bool mask is cast (PyTorch's masked_fill path, differentiable in the
    value); other index_puts with another dtype raise."""
    def prog(lib):
        d = lib.float64
        v = {"0d_double": lambda: lib.tensor(1.5, dtype=d),
             "1elem_double": lambda: lib.ones(1, dtype=d) * 2,
             "0d_long": lambda: lib.tensor(2),
             "0d_double_grad": lambda: lib.tensor(1.5, dtype=d, requires_grad=True),
             "2elem_double": lambda: lib.ones(2, dtype=d)}[value]()
        x = lib.tensor(np.arange(12.0).reshape(3, 4) - 5, dtype=lib.float32,
                       requires_grad=True)
        y = x * 1
        try:
            if key == "mask":
                y[y > 0] = v
            elif key == "list":
                y[[0, 1]] = v
            else:
                y.index_put_((y > 0,), v, accumulate=True)
        except Exception as exc:  # noqa: BLE001
            return Raised(exc)
        return y.dtype, y, lib.autograd.grad(y.sum(), [x] + ([v] if v.requires_grad else []))
    run_both(prog)


def _graph(fn):
    if fn is None:
        return None
    return (fn.name(), tuple(_graph(nf) for nf, _ in fn.next_functions))


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss"])
@pytest.mark.parametrize("shapes", [((3,), ()), ((2, 1), (3,)), ((3,), (3,)), ((2,), (3,))],
                         ids=str)
def test_pair_losses_broadcast_their_operands_first(loss, shapes):
    """PyTorch's mse/l1/smooth_l1 losses broadcast input and target before the kernel: an
    ExpandBackward0 node for the operand that grows, which then promotes like any sized
    tensor (a float64 0-d target makes a float32 input's loss float64)."""
    import warnings

    def prog(lib):
        x = lib.tensor([0.5, 1.5, -1.0][:shapes[0][0]]).reshape(shapes[0]).requires_grad_()
        y = lib.tensor(0.25, dtype=lib.float64).requires_grad_()
        yb = y.expand(*shapes[1]) if shapes[1] else y
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = getattr(lib.nn.functional, loss)(x * 2, yb * 3)
            except RuntimeError as exc:
                return Raised(exc)
        r.backward()
        return r.dtype, r.item(), _graph(r.grad_fn), x.grad.tolist(), y.grad.item()
    run_both(prog)
