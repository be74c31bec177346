"""Behaviours from PyTorch's own test_autograd.py (issue 16): legacy list indices in
``__setitem__``, in-place view ops on cross-dtype views, unimplemented derivatives, forward-AD
and inference-mode corner cases, anomaly-mode warnings, printing invalid views."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch


# ------------------------------------------------------------ __setitem__ with list indices
@pytest.mark.parametrize("size,index", [
    ((10,), [[0, 4, 2]]),
    ((5, 5), [[0, 4], [2, 2]]),
    ((5, 5, 5), [slice(None), slice(None), [1, 3]]),
    ((5, 5, 5), [slice(None), [1, 3], slice(None)]),
    ((5, 5, 5), [[1, 3], slice(None), slice(None)]),
    ((5, 5, 5), [slice(None), [2, 4], [1, 3]]),
    ((5, 5, 5), [[1, 3], [2, 4], slice(None)]),
])
def test_setitem_with_a_list_holding_sequences_indexes_like_a_tuple(size, index):
    # PyTorch's legacy rule: such a list is the tuple of its items (x[[[0, 4], [2, 2]]] is
    # x[[0, 4], [2, 2]]); graphgrad crashed in NumPy ("inhomogeneous shape") or read
    # the list as one 2-d index
    def program(lib):
        x = lib.arange(float(np.prod(size))).view(size).requires_grad_()
        y = x + 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = y[index] * 1
            v = y._version
            y[index] = 2
        changed = y._version != v
        y.backward(lib.ones(*size))
        return got, changed, y, x.grad
    run_both(program)


def test_getitem_with_a_list_holding_sequences_warns_as_pytorch():
    x = graphgrad.zeros(5, 5)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        x[[[0, 4], [2, 2]]]


# ------------------------------------------------------------ in-place inverse hyperbolics
@pytest.mark.parametrize("name", ["asinh_", "acosh_", "atanh_", "arccosh_"])
def test_inplace_inverse_hyperbolics_have_no_derivative_as_in_pytorch(name):
    # PyTorch records AsinhBackward1, ... whose backward raises NotImplementedError
    # ("the derivative for 'inplace version of acosh' is not implemented"); graphgrad
    # differentiated them
    def program(lib):
        a = lib.tensor([0.25, 0.5], requires_grad=True)
        y = getattr(a.clone() + (1.5 if "cosh" in name else 0.0), name)()
        node = type(y.grad_fn).__name__
        y.sum().backward()
        return node
    run_both(program)


@pytest.mark.parametrize("name", ["asinh_", "acosh_", "atanh_"])
def test_inplace_inverse_hyperbolics_values_and_node_names(name):
    def program(lib):
        a = lib.tensor([0.25, 0.5], requires_grad=True)
        y = getattr(a.clone() + (1.5 if "cosh" in name else 0.0), name)()
        with lib.no_grad():
            z = getattr(a.detach().clone(), name)()
        return y, z
    run_both(program)


def test_inplace_acosh_message_names_the_op():
    a = graphgrad.rand(2, requires_grad=True)
    y = graphgrad.acosh_(a.clone() + 1).sum()
    with pytest.raises(NotImplementedError, match="the derivative for .*acosh.* is not implemented"):
        y.backward()


# ------------------------------------------------------------ forward AD corner cases
@pytest.mark.parametrize("case", ["dual-out", "dual-input", "unary-dual-out"])
def test_out_variant_with_a_dual_raises_as_pytorch(case):
    # PyTorch raises NotImplementedError (a RuntimeError) "... because it is an out= function";
    # graphgrad silently dropped the tangent
    def program(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            foo = fwAD.make_dual(lib.rand(2), lib.rand(2))
            bar = lib.rand(2)
            if case == "dual-out":
                lib.add(bar, bar, out=foo)
            elif case == "dual-input":
                lib.add(foo, bar, out=bar)
            else:
                lib.sin(bar, out=foo)
    ours, _ = run_both(program)
    with pytest.raises(RuntimeError, match="out= function"):
        program(graphgrad)


def test_out_variant_without_duals_still_works_in_a_dual_level():
    def program(lib):
        with lib.autograd.forward_ad.dual_level():
            out = lib.zeros(2)
            lib.add(lib.ones(2), lib.ones(2), out=out)
            return out
    run_both(program)


def test_make_dual_with_a_dual_tangent_at_the_same_level_raises():
    def program(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(lib.rand(2), lib.rand(2))
            fwAD.make_dual(lib.rand(2), dual)
    run_both(program)
    with pytest.raises(RuntimeError, match="has a forward gradient at the same level"):
        program(graphgrad)


def test_make_dual_of_an_inference_tensor_in_inference_mode():
    # PyTorch: no view and no forward grad, but the same memory (dual += 1 changes foo)
    def program(lib):
        with lib.inference_mode():
            foo = lib.tensor([1.0, 2.0])
            with lib.autograd.forward_ad.dual_level():
                dual = lib.autograd.forward_ad.make_dual(foo, lib.tensor([3.0, 4.0]))
                is_view = dual._is_view()
                tangent = lib.autograd.forward_ad.unpack_dual(dual).tangent
                dual += 1
                return is_view, tangent is None, dual.is_inference(), foo
    run_both(program)


def test_make_dual_of_a_normal_tensor_in_inference_mode_is_a_view_with_a_tangent():
    def program(lib):
        foo = lib.tensor([1.0, 2.0])
        with lib.autograd.forward_ad.dual_level():
            with lib.inference_mode():
                dual = lib.autograd.forward_ad.make_dual(foo, lib.tensor([3.0, 4.0]))
            return dual._is_view(), lib.autograd.forward_ad.unpack_dual(dual).tangent
    run_both(program)


# ------------------------------------------------------------ anomaly mode
def _anomaly_program(lib):
    with warnings.catch_warnings(record=True):
        with lib.autograd.detect_anomaly():
            warnings.simplefilter("error")
            a = lib.randn(5, requires_grad=True)
            d1 = a + 1
            d2 = d1 ** 2
            d1 += 1
            lib.autograd.grad(d2.sum(), a)


def test_anomaly_report_under_warnings_as_errors_goes_to_stderr(capsys):
    # PyTorch prints the "Error detected in ..." warning to stderr when the warning filters
    # would raise it, and the backward error propagates; graphgrad raised the UserWarning
    run_both(_anomaly_program)
    capsys.readouterr()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _anomaly_program(graphgrad)
    assert "Error detected in PowBackward0" in capsys.readouterr().err


def test_anomaly_report_is_still_a_warning_by_default():
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with graphgrad.autograd.detect_anomaly():
                a = graphgrad.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1 ** 2
                d1 += 1
                graphgrad.autograd.grad(d2.sum(), a)
    assert any("Error detected in PowBackward0" in str(x.message) for x in w)


# ------------------------------------------------------------ printing
def test_repr_of_a_no_grad_view_modified_in_place_under_no_grad():
    # reading its grad_fn raises in both libraries; PyTorch prints grad_fn=<Invalid>, graphgrad's
    # repr raised the RuntimeError
    def program(lib):
        a = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            b = a[:]
            b *= 2
        return repr(b).replace("graphgrad", "torch"), b.requires_grad
    ours, theirs = run_both(program)
    assert ours[0] == "tensor([2.], grad_fn=<Invalid>)"


def test_new_with_an_empty_size_is_0d():
    # x.new(x[3].size()) of a 1-d x is 0-d in PyTorch; graphgrad gave shape [0], so
    # y[3] = x.new(x[3].size()).fill_(7) failed to broadcast
    def program(lib):
        x = lib.ones(5)
        return x.new(x[3].size()).shape, x.new().shape, x.new(lib.Size([2, 3])).shape
    run_both(program)


@pytest.mark.parametrize("size,index", [
    ((5,), 3), ((5, 5), [[0, 1], [1, 0]]), ((5,), [[0, 1, 2, 3]]),
    ((5, 5, 5), [slice(None), [2, 4], [1, 3]]), ((5, 5, 5), [[1, 3], [2, 4], slice(None)]),
])
def test_setitem_with_a_tensor_value_and_list_index(size, index):
    def program(lib):
        x = lib.ones(*size, requires_grad=True)
        y = x + 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = x.new(x[index].size()).fill_(7)
            value.requires_grad = True
            y[index] = value
        y.backward(lib.ones(*size))
        return y, x.grad, value.grad
    run_both(program)


# ------------------------------------------------------------ in-place view ops on views
_CROSS = {"view_as_real": lambda lib, a: lib.view_as_real(a),
          "real": lambda lib, a: a.real, "imag": lambda lib, a: a.imag}
_VIEW_OPS = {  # name -> (in-place form, out-of-place form)
    "transpose_": (lambda b: b.transpose_(0, 1), lambda b: b.transpose(0, 1)),
    "t_": (lambda b: b[..., 0].t_() if b.dim() == 3 else b.t_(),
           lambda b: b[..., 0].t() if b.dim() == 3 else b.t()),
    "unsqueeze_": (lambda b: b.unsqueeze_(1), lambda b: b.unsqueeze(1)),
    "squeeze_": (lambda b: b[:1].squeeze_(0), lambda b: b[:1].squeeze(0)),
}


def _cross_dtype_grad(lib, view, op):
    a_orig = lib.tensor([[1 + 2j, 3 + 4j, 5 + 6j], [7 + 8j, 9 + 1j, 2 + 3j],
                         [4 + 5j, 6 + 7j, 8 + 9j]], dtype=lib.complex128, requires_grad=True)
    a = a_orig.clone()
    b = op(_CROSS[view](lib, a))
    b += 1
    w = lib.arange(0, b.numel(), dtype=lib.float64).view(b.shape)
    (b * w).sum().backward()
    return a_orig.grad


@pytest.mark.parametrize("view", list(_CROSS))
@pytest.mark.parametrize("op", list(_VIEW_OPS))
def test_inplace_view_op_on_a_cross_dtype_view_gives_the_out_of_place_gradient(view, op):
    # Deliberate difference (docs/differences.md, Autograd): PyTorch's transpose_/t_ here give
    # a transposed gradient and squeeze_/unsqueeze_ a shape error; graphgrad gives the
    # gradient of the function computed, which is PyTorch's for the out-of-place program
    inplace, outplace = _VIEW_OPS[op]
    ours = _cross_dtype_grad(graphgrad, view, inplace)
    ours_out = _cross_dtype_grad(graphgrad, view, outplace)
    theirs_out = _cross_dtype_grad(torch, view, outplace)
    np.testing.assert_allclose(ours.numpy(), theirs_out.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours_out.numpy(), theirs_out.numpy(), rtol=1e-12)


@pytest.mark.parametrize("op", list(_VIEW_OPS))
def test_inplace_view_op_on_a_plain_view_then_inplace_matches_pytorch(op):
    inplace, _ = _VIEW_OPS[op]

    def program(lib):
        x = lib.arange(1.0, 19.0, dtype=lib.float64).view(3, 3, 2).requires_grad_()
        base = x.clone()
        b = inplace(base[:, :])
        b += 1
        b.mul_(lib.arange(0, b.numel(), dtype=lib.float64).view(b.shape))
        base.sum().backward()
        return b, base, x.grad
    run_both(program)


def test_inplace_view_op_on_a_view_then_base_changed_matches_pytorch():
    def program(lib):
        x = lib.arange(1.0, 13.0, dtype=lib.float64).view(3, 4).requires_grad_()
        base = x.clone()
        v = base[:, :2]
        v.t_()
        v.unsqueeze_(0)
        base.mul_(2)
        (v * lib.arange(6.0, dtype=lib.float64).view(1, 2, 3)).sum().backward()
        return v, x.grad
    run_both(program)


def test_inplace_on_an_empty_clone_is_allowed():
    # NumPy gives a (3, 0) copy zero strides; graphgrad took them for an expanded tensor and
    # raised "more than one element of the written-to tensor refers to a single memory location"
    def program(lib):
        x = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        c = x.narrow(1, 0, 0).clone()
        c.rsqrt_()
        (c.sum() + x.sum()).backward()
        return c, x.grad
    run_both(program)
