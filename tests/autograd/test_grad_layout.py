"""Seed 004's default gradient layout: .grad takes a fresh gradient without copying it,
and never aliases memory the user (or another gradient) still holds."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg
from graphgrad.ops.derivatives import linalg
from tests.conftest import run_both


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


def test_dtype_view_gradient_is_not_stolen_as_its_base():
    # a gradient that is a dtype view of a fresh array (bits computed as integers, viewed
    # as floats) has its base's shape, strides and data pointer: the base is not the .grad
    from graphgrad.autograd.engine.accumulate import _whole_view_of_fresh
    taken = _whole_view_of_fresh((np.arange(6.0).reshape(2, 3) + 1).T.T)
    not_taken = _whole_view_of_fresh((np.arange(6) + 1).view(np.float64))
    assert taken and not not_taken   # (pytest's rewriting would hold the arrays)


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


# PyTorch's layout contract for a new .grad (AccumulateGrad): strides like the leaf's when
# the leaf is non-overlapping and dense, row-major otherwise; a stolen gradient that does
# not obey it is copied into that layout first.
def _layout_prog(make_leaf, use, create_graph=False, twice=False):
    def prog(lib):
        x = make_leaf(lib)
        use(lib, x).sum().backward(create_graph=create_graph)
        if twice:
            use(lib, x).sum().backward(create_graph=create_graph)
        return x.grad.detach(), x.grad.stride(), x.grad.is_contiguous()
    return prog


def _f_order_leaf(lib):
    a = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    return lib.from_numpy(a).requires_grad_()


LAYOUT_CASES = {
    "transposed_gradient_into_c_leaf":
        (lambda lib: lib.ones(3, 2, requires_grad=True), lambda lib, x: x.t() * lib.arange(3.0)),
    "permuted_gradient_into_3d_leaf":
        (lambda lib: lib.ones(2, 3, 4, requires_grad=True),
         lambda lib, x: x.permute(2, 0, 1) * lib.arange(4.0).reshape(4, 1, 1)),
    "c_gradient_into_f_leaf":
        (_f_order_leaf, lambda lib, x: x * lib.ones(3, 2)),
    "transposed_gradient_into_f_leaf":
        (_f_order_leaf, lambda lib, x: x.t() * lib.arange(3.0)),
    "gradient_into_strided_slice_leaf":
        (lambda lib: lib.from_numpy(np.arange(12.0).reshape(3, 4)[:, ::2]).requires_grad_(),
         lambda lib, x: x.t() * 2),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("twice", [False, True])
@pytest.mark.parametrize("name", list(LAYOUT_CASES))
def test_new_grad_obeys_the_layout_contract(name, twice, create_graph):
    make_leaf, use = LAYOUT_CASES[name]
    # (with create_graph, accumulation is out of place, .grad + g: an elementwise result
    # laid out as its first operand that tells the dims apart, as PyTorch's TensorIterator)
    run_both(_layout_prog(make_leaf, use, create_graph, twice))
