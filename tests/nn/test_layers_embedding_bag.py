"""nn.EmbeddingBag and F.embedding_bag beyond the op table (tests/ops/op_db/nn_apinn.py):
the module against torch.nn (weights, outputs, gradients, repr), the gradient of
scale_grad_by_freq and trailing indices with include_last_offset against embedding + sum
(PyTorch 2.13's embedding_bag gets both wrong on the CPU: docs/differences.md), double
backward through per_sample_weights, and bad input against torch's exception types."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])
OFF = np.array([0, 3, 3])


@pytest.mark.parametrize("kw", [{}, {"mode": "sum"}, {"mode": "max"}, {"padding_idx": 4},
                                {"padding_idx": -1, "mode": "sum"},
                                {"include_last_offset": True, "mode": "max"},
                                {"max_norm": 1.0, "norm_type": 1.0},
                                {"scale_grad_by_freq": True, "mode": "mean"}])
def test_embedding_bag_module(kw):
    off = np.array([0, 3, 8]) if kw.get("include_last_offset") else OFF
    idx = np.array([1, 2, 4, 5, 3, 6, 0, 9]) if kw.get("scale_grad_by_freq") else IDX
    check_layer(lambda lib: lib.nn.EmbeddingBag(10, 3, dtype=lib.float64, **kw),
                [idx, off], requires_grad=[False, False])


def test_embedding_bag_module_2d_and_per_sample_weights():
    check_layer(lambda lib: lib.nn.EmbeddingBag(10, 3, mode="sum", dtype=lib.float64),
                [IDX.reshape(2, 4), randn(2, 4)], requires_grad=[False, True],
                call=lambda m, i, w: m(i, per_sample_weights=w))


def test_embedding_bag_repr_init_from_pretrained():
    for kw in ({}, {"mode": "max", "padding_idx": 2, "max_norm": 2.0, "norm_type": 3.0,
                    "scale_grad_by_freq": True}):
        g, t = gg.nn.EmbeddingBag(5, 2, **kw), torch.nn.EmbeddingBag(5, 2, **kw)
        assert repr(g) == repr(t)
        assert list(g.state_dict()) == list(t.state_dict())
    m = gg.nn.EmbeddingBag(50, 40, padding_idx=3)
    w = m.weight.detach().numpy()
    assert not w[3].any() and abs(w.std() - 1) < 0.1
    w = np.arange(6.0).reshape(3, 2)

    def prog(lib):
        m = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(w), mode="sum")
        m2 = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(w), freeze=False,
                                                 include_last_offset=True)
        return (m(lib.tensor([[0, 2], [1, 1]])), m.weight.requires_grad,
                m2.weight.requires_grad, m2.include_last_offset)
    run_both(prog)


def _reference(lib, idx, w, bags, mode, freq, padding_idx=None):
    """embedding (whose scale_grad_by_freq PyTorch gets right) and a sum per bag."""
    rows = lib.nn.functional.embedding(lib.tensor(idx), w, scale_grad_by_freq=freq,
                                       padding_idx=padding_idx)
    out = []
    for lo, hi in bags:
        keep = [k for k in range(lo, hi) if padding_idx is None or idx[k] != padding_idx]
        part = rows[keep]
        if mode == "sum":
            out.append(part.sum(0))
        elif mode == "mean":
            out.append(part.sum(0) / max(len(keep), 1))
        else:
            out.append(part.max(0).values if keep else lib.zeros(w.shape[1], dtype=w.dtype))
    return lib.stack(out)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_scale_grad_by_freq_gradient_is_the_definition(mode, padding_idx):
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2])
    w0 = randn(10, 3)
    cot = randn(2, 3, seed=4)
    w = gg.tensor(w0, requires_grad=True)
    (gg.nn.functional.embedding_bag(gg.tensor(idx), w, gg.tensor([0, 4]), mode=mode,
                                    scale_grad_by_freq=True, padding_idx=padding_idx)
     * gg.tensor(cot)).sum().backward()
    wt = torch.tensor(w0, requires_grad=True)
    (_reference(torch, idx, wt, [(0, 4), (4, 9)], mode, True, padding_idx)
     * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_include_last_offset_ignores_indices_after_the_last_offset(mode):
    w0 = randn(10, 3)
    cot = randn(2, 3, seed=4)
    w = gg.tensor(w0, requires_grad=True)
    out = gg.nn.functional.embedding_bag(gg.tensor(IDX), w, gg.tensor([0, 2, 5]), mode=mode,
                                         include_last_offset=True)
    (out * gg.tensor(cot)).sum().backward()
    wt = torch.tensor(w0, requires_grad=True)
    ref = _reference(torch, IDX, wt, [(0, 2), (2, 5)], mode, False)
    (ref * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_per_sample_weights_double_backward():
    # PyTorch's per_sample_weights gradient has no derivative; graphgrad's composes
    # differentiable ops: checked by finite differences
    idx, off = gg.tensor(IDX), gg.tensor([0, 3])
    w = gg.tensor(randn(10, 3), requires_grad=True)
    psw = gg.tensor(randn(8, seed=2), requires_grad=True)
    f = lambda w, p: gg.nn.functional.embedding_bag(idx, w, off, mode="sum",  # noqa: E731
                                                    per_sample_weights=p).tanh()
    assert gg.autograd.gradcheck(f, (w, psw))
    assert gg.autograd.gradgradcheck(f, (w, psw))


def test_max_mode_gradient_goes_to_the_first_of_tied_rows():
    def prog(lib):
        w = lib.tensor([[1.0, 5.0], [1.0, 2.0], [0.0, 5.0]], dtype=lib.float64,
                       requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor([2, 0, 1]), w, lib.tensor([0]),
                                              mode="max")
        out.sum().backward()
        return out, w.grad
    run_both(prog)


def test_forward_ad_is_not_implemented_like_torch():
    def prog(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            w = fwAD.make_dual(lib.ones(4, 2, dtype=lib.float64),
                               lib.ones(4, 2, dtype=lib.float64))
            return lib.nn.functional.embedding_bag(lib.tensor([0, 1]), w, lib.tensor([0]))
    run_both(prog)


@pytest.mark.parametrize("case", [
    "offsets0", "offsets_past_end", "psw_shape", "weight_1d", "input_3d", "offsets_2d_input",
    "no_offsets", "offsets_2d", "bad_mode", "max_freq", "psw_mean", "float_input",
    "float_offsets", "int_weight", "padding_high", "padding_low", "index_high",
    "index_negative", "psw_dtype", "module_padding"])
def test_embedding_bag_errors_like_torch(case):
    def prog(lib):
        F = lib.nn.functional
        w = lib.ones(10, 3)
        i, o = lib.tensor(IDX), lib.tensor([0, 4])
        if case == "offsets0":
            return F.embedding_bag(i, w, lib.tensor([1, 4]))
        if case == "offsets_past_end":
            return F.embedding_bag(i, w, lib.tensor([0, 9]))
        if case == "psw_shape":
            return F.embedding_bag(i, w, o, mode="sum", per_sample_weights=lib.ones(7))
        if case == "weight_1d":
            return F.embedding_bag(i, lib.ones(10), o)
        if case == "input_3d":
            return F.embedding_bag(i.reshape(2, 2, 2), w)
        if case == "offsets_2d_input":
            return F.embedding_bag(i.reshape(2, 4), w, o)
        if case == "no_offsets":
            return F.embedding_bag(i, w)
        if case == "offsets_2d":
            return F.embedding_bag(i, w, o.reshape(1, 2))
        if case == "bad_mode":
            return F.embedding_bag(i, w, o, mode="min")
        if case == "max_freq":
            return F.embedding_bag(i, w, o, mode="max", scale_grad_by_freq=True)
        if case == "psw_mean":
            return F.embedding_bag(i, w, o, per_sample_weights=lib.ones(8))
        if case == "float_input":
            return F.embedding_bag(i.double(), w, o)
        if case == "float_offsets":
            return F.embedding_bag(i, w, o.double())
        if case == "int_weight":
            return F.embedding_bag(i, w.int(), o)
        if case == "padding_high":
            return F.embedding_bag(i, w, o, padding_idx=10)
        if case == "padding_low":
            return F.embedding_bag(i, w, o, padding_idx=-11)
        if case == "index_high":
            return F.embedding_bag(lib.tensor([1, 10]), w, lib.tensor([0, 1]))
        if case == "index_negative":
            return F.embedding_bag(lib.tensor([1, -1]), w, lib.tensor([0, 1]))
        if case == "psw_dtype":
            return F.embedding_bag(i, w, o, mode="sum", per_sample_weights=lib.ones(8).double())
        return lib.nn.EmbeddingBag(4, 2, padding_idx=4)
    run_both(prog)


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [1, 0, 2, 3], [2, 1, 0, 3], [3, 2, 1, 0]])
def test_max_mode_with_nan_and_inf_like_torch(order):
    # PyTorch's loop keeps a bag's first row and takes each later row that is greater: a
    # NaN first row stays, a later NaN is passed over
    def prog(lib):
        nan, inf = float("nan"), float("inf")
        w = lib.tensor([[1.0, 2.0, -inf], [nan, 0.0, -inf], [3.0, nan, -inf],
                        [-inf, 5.0, nan]], dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor(order + order[:2]), w,
                                              lib.tensor([0, 4]), mode="max")
        out.backward(lib.ones_like(out))
        return out, w.grad
    run_both(prog)


def test_no_bags_and_empty_bags():
    # (PyTorch 2.13 crashes on the first and raises on the second: docs/differences.md)
    w = gg.arange(12.0, dtype=gg.float64).reshape(6, 2)
    F = gg.nn.functional
    assert tuple(F.embedding_bag(gg.tensor([1, 2]), w, gg.zeros(0, dtype=gg.long)).shape) \
        == (0, 2)
    out = F.embedding_bag(gg.zeros(3, 0, dtype=gg.long), w)
    assert tuple(out.shape) == (3, 2) and not out.numpy().any()
