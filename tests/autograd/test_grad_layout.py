"""Seed 004's default gradient layout: .grad takes a fresh gradient without copying it,
and never aliases memory the user (or another gradient) still holds."""
from __future__ import annotations

import numpy as np

import graphgrad as gg
from graphgrad._ops import linalg


def test_fresh_matmul_gradient_is_stolen_not_copied(monkeypatch):
    ptrs = []
    gemm = linalg._np_matmul  # what MmBackward0's rules call for real 2-D ndarrays

    def spy(a, b):
        out = gemm(a, b)
        ptrs.append(out.__array_interface__["data"][0])
        return out
    monkeypatch.setattr(linalg, "_np_matmul", spy)
    w = gg.tensor(np.random.rand(8, 4).astype(np.float32), requires_grad=True)
    x = gg.tensor(np.random.rand(16, 8).astype(np.float32))
    (x @ w).tanh().sum().backward()
    assert w.grad._data.__array_interface__["data"][0] in ptrs


def test_user_gradient_is_copied_not_aliased():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    g = gg.tensor([5.0, 6.0])
    (x + 0).backward(g)
    assert not np.shares_memory(x.grad._data, g._data)
    x.backward(g)  # a leaf as root: the seed gradient itself flows to AccumulateGrad
    g._data[:] = 0
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 12.0])


def test_shared_gradient_reaching_two_leaves_is_not_aliased():
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = gg.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()  # AddBackward0 hands the same array to both leaves
    assert not np.shares_memory(a.grad._data, b.grad._data)
    a.grad.add_(1)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])
