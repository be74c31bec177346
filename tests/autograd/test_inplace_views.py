"""In-place ops and views (seed 003 §3.3, seed 004 "in-place correctness checks")."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import run_both


def leaf(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def test_inplace_on_a_view_rebases_the_base():
    def program(lib):
        x = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        y = x * 1
        y[0].mul_(2)
        names = (type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0].name())
        (y * y).sum().backward()
        return names, y, x.grad
    run_both(program)


def test_setitem_with_a_tensor_is_differentiable_in_both():
    def program(lib):
        x = leaf(lib, np.arange(6.0).reshape(2, 3))
        z = leaf(lib, [10.0, 20.0])
        y = x * 1
        y[:, 1] = z
        (y * y).sum().backward()
        return y, x.grad, z.grad
    run_both(program)


def test_setitem_with_a_number_and_a_slice():
    def program(lib):
        x = leaf(lib, np.arange(6.0).reshape(2, 3))
        y = x.exp()
        y[1, 1:] = 0.5
        y.sum().backward()
        return y, x.grad
    run_both(program)


def test_view_grad_fn_is_regenerated_after_base_changes():
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * 1
        v = y[1:]
        before = type(v.grad_fn).__name__
        y.mul_(3)
        after = type(v.grad_fn).__name__
        (v * v).sum().backward()
        return before, after, x.grad
    run_both(program)


def test_chained_views_and_inplace():
    def program(lib):
        x = leaf(lib, np.arange(12.0).reshape(3, 4))
        y = x * 1
        v = y.t()[1:3]
        v.add_(lib.ones(2, 3, dtype=lib.float64) * 5)
        w = y.view(12)
        (w ** 2).sum().backward()
        return y, x.grad
    run_both(program)


def test_inplace_on_leaf_raises_and_no_grad_step_works():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        errors = []
        for fn in (lambda: x.add_(1), lambda: x[0].mul_(2), lambda: x.zero_()):
            try:
                fn()
            except RuntimeError:
                errors.append(True)
        (x * x).sum().backward()
        with lib.no_grad():
            x -= 0.1 * x.grad  # the optimizer-step pattern
        return errors, x, x.is_leaf, x.requires_grad, x._version
    run_both(program)


def test_every_inplace_op_bumps_the_version():
    def program(lib):
        t = lib.zeros(3, dtype=lib.float64)
        versions = [t._version]
        for fn in (lambda: t.add_(1), lambda: t.mul_(2), lambda: t.sub_(1), lambda: t.div_(2),
                   lambda: t.zero_(), lambda: t.fill_(3), lambda: t.copy_(lib.ones(3))):
            fn()
            versions.append(t._version)
        v = t[1:]
        v.add_(1)
        return versions, t._version, v._version, t
    run_both(program)


def test_data_edits_are_not_tracked():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x.exp()
        x.data.mul_(10)          # not tracked: no version bump of the saved leaf
        v = x._version
        y.sum().backward()
        return v, x.grad, x
    run_both(program)


def test_saved_tensor_modified_in_place_raises():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x.sin()
        z = y.exp()      # saves its result
        w = y.cos()      # saves y
        y.add_(1)
        w.sum().backward()
    run_both(program)


def test_output_saved_then_modified_raises():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x.exp()
        y.mul_(2)
        y.sum().backward()
        return x.grad
    run_both(program)


def test_inplace_then_backward_through_earlier_ops():
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * 2
        y.add_(x)            # y = 3x
        y.mul_(y)            # y = 9x^2 (mul_ saves the old self)
        y.sum().backward()
        return y, x.grad
    run_both(program)


def test_view_of_leaf_inplace_under_no_grad():
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        with lib.no_grad():
            x[1:].mul_(2)
        (x * x).sum().backward()
        return x, x.grad, x._version
    run_both(program)


@pytest.mark.parametrize("case", ["expand", "int_add_float", "broadcast_out"])
def test_inplace_errors(case):
    def program(lib):
        if case == "expand":
            t = lib.zeros(1, 3).expand(2, 3)
            t.add_(1)
        elif case == "int_add_float":
            t = lib.ones(3, dtype=lib.int64)
            t.add_(1.5)
        else:
            t = lib.ones(3)
            t.add_(lib.ones(2, 3))
        return t
    run_both(program)


@pytest.mark.parametrize("modify_after", [False, True])
def test_inplace_op_that_saves_its_result(modify_after):
    # exp_ saves its result: self at its new version, on self's own (lazily made) counter
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 1
        y.exp_()
        if modify_after:
            y.mul_(2)
        y.sum().backward()
        return x.grad
    run_both(program)


# ------------------------------------------------------------------ in-place view ops
# unsqueeze_/squeeze_/t_/transpose_/swapdims_/as_strided_ change the tensor's shape in place
# (same memory), bump its version and record PyTorch's ...Backward1-style node.
INPLACE_VIEW_OPS = {
    "unsqueeze_": lambda h: h.unsqueeze_(1),
    "unsqueeze_neg": lambda h: h.unsqueeze_(-1),
    "squeeze_all": lambda h: h.unsqueeze_(0).squeeze_(),
    "squeeze_dim": lambda h: h.unsqueeze_(0).squeeze_(0),
    "squeeze_dims": lambda h: h.unsqueeze_(0).unsqueeze_(2).squeeze_((0, 2)),
    "t_": lambda h: h.t_(),
    "transpose_": lambda h: h.transpose_(0, 1),
    "swapdims_": lambda h: h.swapdims_(1, 0),
    "swapaxes_": lambda h: h.swapaxes_(0, -1),
    "as_strided_": lambda h: h.as_strided_((3, 2), (1, 3)),
}


@pytest.mark.parametrize("name", list(INPLACE_VIEW_OPS))
def test_inplace_view_op(name):
    def prog(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        h = x * 1
        v0 = h._version
        out = INPLACE_VIEW_OPS[name](h)
        w = lib.arange(float(h.numel())).reshape(h.shape)
        (h * w).sum().backward()
        return (out is h, tuple(h.shape), h.stride(), h._version - v0, h.grad_fn.name(),
                type(h.grad_fn).__name__, h.detach(), x.grad)
    run_both(prog)


@pytest.mark.parametrize("name", ["unsqueeze_", "t_", "squeeze_dim"])
def test_inplace_view_op_on_a_view_and_without_grad(name):
    def prog(lib):
        x = lib.ones(2, 3, requires_grad=True)
        h = x * 2
        v = h[0:1]
        INPLACE_VIEW_OPS[name](v)
        (v * lib.arange(float(v.numel())).reshape(v.shape)).sum().backward()
        plain = lib.ones(2, 3)
        INPLACE_VIEW_OPS[name](plain)
        return (tuple(v.shape), v._base is h, v.grad_fn.name(), v._version, x.grad,
                tuple(plain.shape), plain.grad_fn, plain._version)
    run_both(prog)


def test_inplace_view_op_on_a_leaf_needs_no_grad():
    def prog(lib):
        x = lib.ones(2, 3, requires_grad=True)
        try:
            x.unsqueeze_(0)
            raised = None
        except RuntimeError as e:
            raised = "leaf" in str(e)
        with lib.no_grad():
            x.t_()
        return raised, tuple(x.shape), x.is_leaf, x.requires_grad, x.grad_fn
    run_both(prog)


def test_inplace_view_op_carries_the_tangent():
    def prog(lib):
        fa = lib.autograd.forward_ad
        with fa.dual_level():
            d = fa.make_dual(lib.ones(2, 3), lib.arange(6.0).reshape(2, 3))
            d.t_().unsqueeze_(0)
            p = fa.unpack_dual(d)
            return p.primal, p.tangent
    run_both(prog)


def test_true_divide_():
    run_both(lambda lib: (lambda t: (t.true_divide_(2), t._version))(lib.ones(3)))
    run_both(lambda lib: lib.ones(3, dtype=lib.int64).true_divide_(2))


# ---------------------------------------------------------------- issue 16 regressions
def test_copy_slices_overwrites_the_view_region_of_an_infinite_gradient():
    # c[:] = 0 then c / c: the gradient in the view region is inf/NaN; CopySlices must
    # replace that region (by fn's gradient), not subtract it (inf - inf = NaN)
    def program(lib):
        x = leaf(lib, [1.0, 1.0])
        c = x.clone()
        c[:] = 0.0
        (c / c).sum().backward()
        y = leaf(lib, [[1.0, 1.0], [1.0, 1.0]])
        d = y.clone()
        d.t().zero_()
        (d / d).sum().backward()
        return x.grad, y.grad
    run_both(program)


def test_copy_slices_overwrite_works_with_create_graph_and_batched_grads():
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        c = x * x
        c[1:].mul_(2)
        g, = lib.autograd.grad(c.sum(), x, create_graph=True)
        g.sum().backward()
        jac = lib.autograd.functional.jacobian(
            lambda t: (lambda u: (u[:2].mul_(3), u)[1])(t.clone()), x.detach())
        return g, x.grad, jac
    run_both(program)


def test_view_taken_before_its_base_got_history_sees_the_new_history():
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        buf = lib.zeros(2, 3, dtype=lib.float64)
        row0 = buf[0]
        buf[0] = x * 2
        ((row0 ** 2).sum() + (buf ** 2).sum()).backward()
        return row0.requires_grad, x.grad
    run_both(program)


def test_view_of_a_view_sees_the_base_history():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        c = lib.zeros(2, 3, dtype=lib.float64)
        r = c[0]
        r[:2] = x
        (r * r).sum().backward()
        return r.requires_grad, c.requires_grad, type(r.grad_fn).__name__, x.grad
    run_both(program)


def test_view_sees_base_history_after_inplace_on_the_base():
    def program(lib):
        r = leaf(lib, [1.0])
        x = lib.ones(5, dtype=lib.float64)
        v = x.select(0, 1)
        x.add_(r)
        (v * 2 + r).sum().backward()
        return v.requires_grad, r.grad
    run_both(program)


def test_retain_grad_moves_to_the_new_grad_fn_after_inplace():
    def program(lib):
        a = lib.tensor([1.0], requires_grad=True).clone()
        a.retain_grad()
        a.mul_(2)
        a.sum().backward()
        base = lib.tensor([1.0], requires_grad=True).clone()
        v, v2 = base[:], base[:]
        v.retain_grad()
        v2.retain_grad()
        v.mul_(2)
        (v + v2).sum().backward()
        b = lib.tensor([1.0, 2.0], requires_grad=True).clone()
        b.retain_grad()
        b[:1].mul_(2)
        (b * 3).sum().backward()
        return a.grad, v.grad, v2.grad, b.grad
    run_both(program)


def test_double_backward_through_inplace_on_an_unsqueezed_clone():
    def program(lib):
        x = leaf(lib, [0.5, 1.0])
        v = x.clone().unsqueeze(0)
        v.exp_()
        g, = lib.autograd.grad(v.sigmoid().sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    run_both(program)


@pytest.mark.parametrize("op", ["relu_", "exp_", "sigmoid_", "tanh_"])
def test_inplace_on_a_view_saving_its_result_frees_the_graph_without_gc(op):
    # the op's saved result carries the view's history, which leads back to the op's node
    # through CopySlices: held strongly it was a cycle that only the gc could free
    import gc

    def program(lib):
        freed = []

        class Probe:
            def __del__(self):
                freed.append(True)

        def build():
            root = lib.ones(3, 3, requires_grad=True)
            copy = root.clone()
            copy.grad_fn.register_hook(Probe())
            view = copy.view(9)
            getattr(view, op)()

        was = gc.isenabled()
        gc.disable()
        try:
            build()
            return len(freed)
        finally:
            if was:
                gc.enable()
    run_both(program)


def test_double_backward_through_inplace_on_a_view_after_the_view_is_gone():
    # the saved result's view history is held weakly: without the view, unpacking falls
    # back to the op's own node, as PyTorch's SavedVariable does
    def program(lib):
        x = leaf(lib, [0.5, 1.0])
        c = x.clone()
        c[:1].exp_()
        g, = lib.autograd.grad((c * c).sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    run_both(program)


def test_expand_keeps_the_strides_of_dims_it_does_not_expand():
    def program(lib):
        z = lib.zeros(2, 1, dtype=lib.float64)
        a = z.expand(2, 1)
        strides = (a.stride(), lib.zeros(3, 1).expand(-1, 1).stride(),
                   lib.zeros(1, 3).expand(2, 1, 3).stride())
        a.add_(1)
        g = leaf(lib, [2.0])
        gi = g.clone().expand(3)
        gi[0] = 0
        f = lib.zeros(1, dtype=lib.float64).expand(1, 1)
        f[0] = 3.0
        return strides, z, gi, f
    run_both(program)


def test_inplace_on_an_expanded_tensor_still_raises():
    def program(lib):
        lib.zeros(1, dtype=lib.float64).expand(3).add_(1)
    run_both(program)


def test_inplace_on_a_view_of_a_plain_tensor_with_a_grad_requiring_operand():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        c = lib.tensor([1.0, 2.0], dtype=lib.float64)
        c[:].mul_(x)
        c.sum().backward()
        b = leaf(lib, [3.0])
        a = lib.ones(3, dtype=lib.float64)
        a.narrow(0, 1, 1).mul_(b)
        a.sum().backward()
        return c, x.grad, a, b.grad
    run_both(program)


def test_backward_through_an_expand_view_after_its_base_changed():
    def program(lib):
        x = leaf(lib, [1.0, 2.0])
        b = x.clone()[:1]
        e = b.expand(3)
        b.mul_(2)
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        (e * w).sum().backward()
        return e, x.grad
    run_both(program)


@pytest.mark.parametrize("case", [
    "unbind", "split", "chunk", "split_sizes", "unbind_view", "unbind_setitem",
    "plain_unbind_grad_operand"])
def test_inplace_on_a_multi_output_view_raises(case):
    def program(lib):
        a = lib.ones(2, 2, dtype=lib.float64, requires_grad=True).clone()
        if case == "unbind":
            a.unbind(0)[0].mul_(2)
        elif case == "split":
            a.split(1)[0].mul_(2)
        elif case == "chunk":
            a.chunk(2)[1].mul_(2)
        elif case == "split_sizes":
            a.split([1, 1])[0].mul_(2)
        elif case == "unbind_view":
            a.unbind(0)[0][:1].mul_(2)
        elif case == "unbind_setitem":
            a.unbind(0)[0][0] = 5
        else:
            u = lib.ones(2, 2, dtype=lib.float64).unbind(0)
            u[0].mul_(leaf(lib, [1.0, 2.0]))
    ours, theirs = run_both(program)
    assert "multiple views" in str(ours.exc)


def test_inplace_on_a_multi_output_view_is_allowed_without_grad():
    def program(lib):
        a = lib.ones(2, 2, dtype=lib.float64)
        u = a.unbind(0)
        u[0].mul_(2)
        b = lib.ones(2, 2, dtype=lib.float64, requires_grad=True).clone()
        with lib.no_grad():
            b.unbind(0)[1].mul_(3)
        w = b.unbind(0)
        with lib.no_grad():
            w[0].mul_(5)
        return a, b
    run_both(program)


def test_inplace_through_a_view_taken_before_requires_grad_was_set():
    def program(lib):
        x = lib.zeros(3, dtype=lib.float64)
        v = x[0]
        x.requires_grad_()
        v.mul_(2)
    ours, _ = run_both(program)
    assert "view of a leaf" in str(ours.exc)


@pytest.mark.parametrize("case", ["plain_base", "view_of_view"])
def test_inplace_on_a_view_made_under_no_grad_raises(case):
    def program(lib):
        if case == "plain_base":
            x = lib.zeros(3, dtype=lib.float64)
            with lib.no_grad():
                v = x[:2]
            v.mul_(leaf(lib, [1.0, 2.0]))
        else:
            b = leaf(lib, [1.0, 1.0, 1.0]).clone()
            with lib.no_grad():
                v = b[:2]
            v[:1].mul_(2)
    ours, _ = run_both(program)
    assert "no_grad mode" in str(ours.exc)


@pytest.mark.parametrize("case", ["multi", "no_grad"])
def test_using_such_a_view_after_its_base_changed_in_place_raises(case):
    def program(lib):
        a = lib.ones(2, 2, dtype=lib.float64, requires_grad=True).clone()
        if case == "multi":
            v = a.unbind(0)[0]
        else:
            with lib.no_grad():
                v = a[0]
        a.mul_(2)
        return v * 2
    ours, _ = run_both(program)
    assert "its base or another view of its base has been modified" in str(ours.exc)
