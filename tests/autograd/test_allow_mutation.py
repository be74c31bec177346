"""allow_mutation_on_saved_tensors against PyTorch: the scenarios of PyTorch's
TestAllowMutationOnSaved (written afresh), plus views at other offsets, out=, in-place view
ops, custom Functions and saved-tensor hooks around it.

The yielded context's bookkeeping (``cloned``, ``tid_to_weakhandle``, ``original``) is
observable and compared by size: one clone per saved tensor version, dropped with the graph.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both, torch

VALUES = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]


def leaf(lib, values=VALUES, dtype=None):
    return lib.tensor(np.asarray(values, dtype=dtype or np.float64), requires_grad=True)


def n_cloned(ctx):
    return len(list(ctx.cloned.items()))


def n_saved(ctx):
    return len(list(ctx.tid_to_weakhandle.items()))


def amos(lib):
    return lib.autograd.graph.allow_mutation_on_saved_tensors()


# ------------------------------------------------------------ PyTorch's scenarios
def test_inplace_on_saved_clone_fails_without_and_works_within():
    def program(lib):
        a = leaf(lib)

        def fn():
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.sum().backward()
            return a.grad

        try:
            fn()
            first = "no error"
        except RuntimeError as e:
            first = "version error" if "modified by an inplace" in str(e) else str(e)
        a.grad = None
        with amos(lib) as ctx:
            da = fn()
        return first, da, n_cloned(ctx)
    run_both(program)


def test_inplace_through_a_view_of_the_saved_tensor():
    def program(lib):
        a = leaf(lib)
        with amos(lib) as ctx:
            b = a.clone()
            c = b.view_as(b)
            out = (b ** 2).sum()
            c.sin_()
            inside = n_cloned(ctx)
            out.sum().backward()
            after_backward = n_cloned(ctx)
        return a.grad, b, inside, after_backward, n_cloned(ctx)
    run_both(program)


def test_save_base_modify_view():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib)
            b = a.clone()
            c = b[:1]
            out = b ** 2
            c *= 10
            before = n_cloned(ctx)
            out.sum().backward()
            after = n_cloned(ctx)
        return a.grad, b, before, after, n_cloned(ctx)
    run_both(program)


def test_save_view_modify_base():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib)
            b = a.clone()
            c = b[:]
            out = (c ** 2).sum()
            b *= 2
            before = n_cloned(ctx)
            out.backward()
        return a.grad, before
    run_both(program)


def test_double_backward_uses_the_saved_history():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            lib.autograd.grad(out, a, create_graph=True)
            da, = lib.autograd.grad(out, a, create_graph=True)
            d2a, = lib.autograd.grad(da.sum(), a)
        return da, d2a, n_cloned(ctx)
    run_both(program)


def test_no_clone_once_the_graph_is_freed():
    def program(lib):
        counts = []
        with amos(lib) as ctx:
            a = leaf(lib).clone()
            out = (a ** 2).sum()
            counts += [n_saved(ctx), n_cloned(ctx)]
            out.backward()
            a.sin_()
            counts.append(n_cloned(ctx))
            out = (a ** 2).sum()
            a.sin_()
            counts.append(n_cloned(ctx))
            del out
            counts.append(n_cloned(ctx))
        return counts
    run_both(program)


def test_same_tensor_saved_many_times_is_cloned_once():
    def program(lib):
        counts = []
        with amos(lib) as ctx:
            a = leaf(lib).clone()
            b = a ** 2
            c = a ** 2
            a.sin_()
            counts += [n_cloned(ctx), n_saved(ctx)]  # (sin_ saves its input too)
            del b, c
            counts.append(n_cloned(ctx))
        return counts
    run_both(program)


def test_same_tensor_saved_at_two_versions_is_cloned_twice():
    def program(lib):
        counts = []
        with amos(lib) as ctx:
            a = leaf(lib).clone()
            b = a ** 2
            a.sin_()
            c = a ** 2
            a.sin_()
            counts.append(n_cloned(ctx))
            gb, gc = b.sum(), c.sum()
            del b
            counts.append(n_cloned(ctx))
            del c
            counts.append(n_cloned(ctx))
            del gb, gc
            counts.append(n_cloned(ctx))
        return counts
    run_both(program)


def test_complex_conj():
    def program(lib):
        with amos(lib):
            x = lib.tensor([1 + 1j], requires_grad=True)
            a = x.clone()
            b = a.conj()
            out = (b ** 2).sum()
            a.sin_()
            out.abs().backward()
            y = lib.tensor([1 + 1j, 0.5 - 2j], requires_grad=True)
            a = y.clone()
            b = a.conj()
            out = (b ** 2).sum()
            b.sin_()
            out.abs().backward()
        return x.grad, y.grad
    run_both(program)


def test_out_variant_clones_the_saved_out_tensor():
    def program(lib):
        counts = []
        with amos(lib) as ctx:
            a = lib.tensor([1.0], requires_grad=True)
            b = lib.tensor([1.0])
            out = a * b
            counts.append(n_saved(ctx))
            lib.sin(lib.tensor([2.0]), out=b)
            counts.append(n_cloned(ctx))
            out.backward()
            counts.append(n_cloned(ctx))
        return counts, a.grad, b
    run_both(program)


MSG_OUTSIDE = "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"


def test_backward_after_the_block_raises_assertion():
    def program(lib):
        with amos(lib):
            a = leaf(lib)
            out = (a ** 2).sum()
        out.backward()
    ours, _ = run_both(program)
    assert isinstance(ours.exc, AssertionError) and MSG_OUTSIDE in str(ours.exc)


def test_backward_in_another_block_raises_assertion():
    def program(lib):
        with amos(lib):
            a = leaf(lib)
            out = (a ** 2).sum()
        with amos(lib):
            out.backward()
    ours, _ = run_both(program)
    assert isinstance(ours.exc, AssertionError) and MSG_OUTSIDE in str(ours.exc)


def test_nesting_raises_and_switches_the_block_off():
    def program(lib):
        events = []
        with amos(lib) as ctx:
            try:
                with amos(lib):
                    events.append("entered")
            except RuntimeError as e:
                events.append(bool(re.search("contexts cannot be nested", str(e))))
            # as in PyTorch, the failed entry leaves the outer block switched off
            a = leaf(lib).clone()
            out = (a ** 2).sum()
            try:
                out.backward()
                events.append("backward ran")
            except AssertionError:
                events.append("AssertionError")
        return events, n_cloned(ctx)
    run_both(program)


# ------------------------------------------------------------ beyond PyTorch's tests
def test_write_to_a_view_at_the_same_address():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            out = (b.exp() * b).sum()
            b[0] = 5.0
            n = n_cloned(ctx)
            out.backward()
        return n, a.grad, b
    run_both(program)


def test_write_to_a_view_at_another_address_keeps_the_saved_value():
    # PyTorch looks saved tensors up by data pointer, misses b[1:] and silently uses the new
    # values ([2, 40, 60]); graphgrad clones because the memories overlap (docs/differences.md)
    with graphgrad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = leaf(graphgrad, [1.0, 2.0, 3.0])
        b = a.clone()
        out = (b ** 2).sum()
        b[1:].mul_(10)
        assert n_cloned(ctx) == 1
        out.backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0, 6.0])
    with graphgrad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = leaf(graphgrad, [1.0, 2.0, 3.0])
        b = a.clone()
        out = (b[1:] ** 2).sum()
        b.mul_(10)
        out.backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 4.0, 6.0])


def test_inplace_op_reading_its_own_saved_input():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            b.mul_(b)
            n = n_cloned(ctx)
            b.sum().backward()
        return n, a.grad, b
    run_both(program)


def test_saved_result_of_an_inplace_op():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            b.exp_()
            counts = [n_cloned(ctx)]
            c = b * 1
            b.mul_(2)
            counts.append(n_cloned(ctx))
            (c.sum() + b.sum()).backward()
        return counts, a.grad
    run_both(program)


def test_inplace_view_op_on_a_saved_tensor():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            out = (b * b).sum()
            b.unsqueeze_(0)
            n = n_cloned(ctx)
            out.backward()
        return n, a.grad, b.shape
    run_both(program)


def test_out_variant_resizing_a_saved_tensor():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0])
            b = lib.tensor([3.0, 4.0], dtype=lib.float64)
            out = (a * b).sum()
            with warnings.catch_warnings():  # (PyTorch warns that resizing out= is deprecated)
                warnings.simplefilter("ignore")
                lib.sin(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), out=b)
            n = n_cloned(ctx)
            out.backward()
        return n, a.grad, b
    run_both(program)


def test_custom_function_saved_input():
    def program(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g

        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            out = Square.apply(b).sum()
            b.add_(100)
            n = n_cloned(ctx)
            out.backward()
        return n, a.grad
    run_both(program)


def test_leaf_modified_under_no_grad():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            out = (a ** 3).sum()
            with lib.no_grad():
                a.mul_(2)
            n = n_cloned(ctx)
            out.backward()
        return n, a.grad, a
    run_both(program)


def test_backward_twice_with_mutations_between():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0])
            b = a.clone()
            out = (b ** 3).sum()
            b.sin_()
            out.backward(retain_graph=True)
            b.cos_()
            out.backward()
        return a.grad, n_cloned(ctx)
    run_both(program)


def test_saved_attribute_is_the_value_at_save_time():
    def program(lib):
        with amos(lib):
            a = leaf(lib, [1.0, 2.0])
            b = a.clone()
            out = b ** 2
            b.sin_()
            s = out.grad_fn._saved_self
            return s, s.requires_grad, type(s.grad_fn).__name__
    run_both(program)


def test_state_cleared_on_exit():
    def program(lib):
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0]).clone()
            out = (a ** 2).sum()  # noqa: F841 - keeps the graph alive
            a.sin_()
            inside = (n_cloned(ctx), n_saved(ctx), len(ctx.original))
        return inside, n_cloned(ctx), n_saved(ctx), len(ctx.original), len(ctx.sid_to_tid)
    run_both(program)


def test_user_hooks_inside_the_block_win():
    def program(lib):
        calls = []
        with amos(lib) as ctx:
            a = leaf(lib, [1.0, 2.0, 3.0])
            b = a.clone()
            with lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append("pack") or t,
                                                        lambda t: t):
                out = (b ** 2).sum()
            n = (n_saved(ctx), n_cloned(ctx))
            b.sin_()  # not protected: the user's hooks saved b, and hooks skip version checks
            out.backward()
        return calls, n, a.grad
    run_both(program)


def test_entering_while_saved_tensor_hooks_are_disabled_raises():
    def program(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("no saved-tensor hooks here"):
            with amos(lib):
                pass
    ours, _ = run_both(program)
    assert "no saved-tensor hooks here" in str(ours.exc)


def test_usable_as_a_decorator():
    def program(lib):
        @lib.autograd.graph.allow_mutation_on_saved_tensors()
        def step():
            a = leaf(lib, [1.0, 2.0])
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.backward()
            return a.grad
        return step()
    run_both(program)


def test_context_type_and_state_names():
    with graphgrad.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        assert type(ctx).__name__ == "_AllowMutationOnSavedContext"
        for name in ("cloned", "original", "tid_to_weakhandle", "sid_to_tid"):
            assert len(getattr(ctx, name)) == 0
    with torch.autograd.graph.allow_mutation_on_saved_tensors() as tctx:
        assert type(tctx).__name__ == type(ctx).__name__


# ------------------------------------------------------------ saved-tensor hooks it relies on
def test_saved_tensor_hooks_skip_the_version_check():
    # PyTorch cannot track versions through pack/unpack hooks and does not check them
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        xc = x.clone()
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = xc.pow(2)
        xc.add_(1)
        y.sum().backward()
        return x.grad
    run_both(program)


def test_saved_tensor_hooks_see_what_inplace_ops_save():
    def program(lib):
        shapes = []
        x = lib.ones(2, requires_grad=True)
        a = x.clone()
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t: shapes.append(tuple(t.shape)) or t * 1, lambda t: t):
            a.sin_()
            a.mul_(a)
            a.exp_()
        a.sum().backward()
        return shapes, x.grad
    run_both(program)


@pytest.mark.parametrize("inplace", ["mul_", "add_", "div_"])
def test_saved_tensor_hooks_inplace_on_view(inplace):
    def program(lib):
        packed = []
        x = leaf(lib, [1.0, 2.0, 3.0])
        base = x.clone()
        v = base[1:]
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t: packed.append(tuple(t.shape)) or t.detach().clone(),
                lambda t: t):
            getattr(v, inplace)(x[:2] + 1)
        (base * base).sum().backward()
        return packed, base, x.grad
    run_both(program)


INPLACE_WRITES = {
    "masked_fill_": lambda lib, b: b.masked_fill_(lib.tensor([True, False, True]), 2.0),
    "index_put_": lambda lib, b: b.index_put_((lib.tensor([0, 2]),),
                                              lib.tensor([5.0, 6.0], dtype=lib.float64)),
    "scatter_": lambda lib, b: b.scatter_(0, lib.tensor([0, 1]),
                                          lib.tensor([5.0, 6.0], dtype=lib.float64)),
    "index_add_": lambda lib, b: b.index_add_(0, lib.tensor([0, 1]),
                                              lib.tensor([5.0, 6.0], dtype=lib.float64)),
    "setitem_index_tensor": lambda lib, b: b.__setitem__(lib.tensor([0, 2]), 7.0),
    "zero_": lambda lib, b: b.zero_(),
    "fill_": lambda lib, b: b.fill_(3.0),
    "clamp_": lambda lib, b: b.clamp_(0.5, 1.5),
    "t_": lambda lib, b: b.t_(),
    "unsqueeze_transpose_": lambda lib, b: b.unsqueeze_(1).transpose_(0, 1),
    "out=": lambda lib, b: lib.sub(lib.ones(3, dtype=lib.float64), 5, out=b),
}


@pytest.mark.parametrize("name", sorted(INPLACE_WRITES))
def test_every_kind_of_inplace_write_clones_the_saved_tensor(name):
    def program(lib):
        with amos(lib) as ctx:
            x = leaf(lib, [1.0, 2.0, 3.0])
            b = x.clone()
            out = (b.exp() * b).sum()
            if name == "out=":
                with lib.no_grad():
                    INPLACE_WRITES[name](lib, b)
            else:
                INPLACE_WRITES[name](lib, b)
            n = n_cloned(ctx)
            out.backward()
        return n, x.grad
    run_both(program)
