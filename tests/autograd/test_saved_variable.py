"""SavedVariable: version checks, freeing after backward, no reference cycles (against PyTorch)."""
import gc
import weakref

import pytest

import graphgrad
from tests.conftest import Raised, run_both


# ------------------------------------------------------------------ in-place modification
INPLACE_AFTER_SAVE = {
    # (program building y from x, then mutating something y's node saved)
    "input_of_sin": lambda lib, x: _mutate(x * 2, lambda z: z.sin(), lambda z: z.add_(1)),
    "output_of_exp": lambda lib, x: _mutate(x * 1, lambda z: z.exp(), None, mutate_out=True),
    "output_of_tanh": lambda lib, x: _mutate(x * 1, lambda z: z.tanh(), None, mutate_out=True),
    "output_of_sigmoid": lambda lib, x: _mutate(x * 1, lambda z: z.sigmoid(), None,
                                                mutate_out=True),
    "other_of_mul": lambda lib, x: _mutate(x * 1, lambda z: x * z, lambda z: z.mul_(2)),
    "self_of_pow": lambda lib, x: _mutate(x * 1, lambda z: z ** 3, lambda z: z.zero_()),
    "view_of_saved": lambda lib, x: _mutate(x * 1, lambda z: z.log(), lambda z: z[1:].add_(1)),
    "base_of_saved_view": lambda lib, x: _mutate(x * 1, lambda z: z[1:].cos(),
                                                 lambda z: z.add_(1)),
    "copy_into_saved": lambda lib, x: _mutate(x * 1, lambda z: z * z,
                                              lambda z: z.copy_(lib.ones(3))),
    "setitem_on_saved": lambda lib, x: _mutate(x * 1, lambda z: z.sin(),
                                               lambda z: z.__setitem__(0, 5.0)),
    # not saved: these in-place changes are fine
    "input_of_add": lambda lib, x: _mutate(x * 1, lambda z: z + 1, lambda z: z.add_(1)),
    "input_of_mul_by_scalar": lambda lib, x: _mutate(x * 1, lambda z: z * 2, lambda z: z.mul_(3)),
    "input_of_sum": lambda lib, x: _mutate(x * 1, lambda z: z.sum(), lambda z: z.zero_()),
    "input_of_relu": lambda lib, x: _mutate(x * 1, lambda z: z.relu(), lambda z: z.add_(1)),
}


def _mutate(z, make_y, mutate, mutate_out=False):
    y = make_y(z)
    if mutate_out:
        y.mul_(2)
    else:
        mutate(z)
    return y


@pytest.mark.parametrize("name", list(INPLACE_AFTER_SAVE))
def test_inplace_after_save(name):
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = INPLACE_AFTER_SAVE[name](lib, x)
        y.sum().backward()
        return x.grad
    run_both(prog)


def test_version_error_message_names_versions_and_op():
    x = graphgrad.tensor([0.5, 1.0], requires_grad=True)
    z = x * 2
    y = z.sin()
    z.add_(1)
    z.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "modified by an inplace operation" in msg
    assert "is at version 2; expected version 0 instead" in msg
    assert "SinBackward0" in msg and "[2]" in msg


@pytest.mark.parametrize("case", ["mul", "squeeze", "copyslices", "function", "leaf"])
def test_version_error_message_names_the_tensor_as_pytorch(torch, case):
    """PyTorch names the changed tensor's node without "Backward" and a version 0 ("output
    0 of Mul", "of Squeeze4", "of Fn"; a leaf: no clause); graphgrad said "of MulBackward0",
    "a leaf"."""
    import re

    def which(T):
        class Fn(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        a = T.ones(2, requires_grad=True)
        make = {"mul": lambda: a * 2, "squeeze": lambda: a[None].squeeze(0),
                "copyslices": lambda: (lambda x: (x, x[:].mul_(2))[0])(a * 1),
                "function": lambda: Fn.apply(a), "leaf": lambda: a}[case]
        x = make()
        y = x.sin()
        with T.no_grad():
            x.add_(1)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        m = re.search(r"\](.*?) is at version", str(info.value))
        return m.group(1)
    assert which(graphgrad) == which(torch)


def test_inplace_on_leaf_saved_in_no_grad_is_detected():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.sin()
        with lib.no_grad():
            x.mul_(2)
        y.sum().backward()
    run_both(prog)


def test_failed_version_check_leaves_grad_untouched():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        x.grad = lib.tensor([10.0, 20.0])
        z = x * 2
        loss = z.sin().sum() + (x * 3).sum()
        z.add_(1)
        try:
            loss.backward()
        except RuntimeError as e:
            return x.grad, type(e).__name__
    run_both(prog)


# ------------------------------------------------------------------ .data swapped after save
# PyTorch saves an input as the tensor itself (saved_original_), so ``t.data = new`` after the
# forward changes what backward reads; a saved output keeps the array it had when saved.
DATA_SWAPPED = {
    "leaf_input_of_mul": lambda lib, x, w: ((x * x).sum(), x),
    "leaf_input_of_mm": lambda lib, x, w: ((w @ x.unsqueeze(1)).sum(), w),
    "view_of_swapped_leaf": lambda lib, x, w: ((w @ x.unsqueeze(1)).sum(), x),  # keeps old
    "non_leaf_input_of_mul": lambda lib, x, w: (lambda h: ((h * h).sum(), h))(x * 2),
    "non_leaf_input_of_sin": lambda lib, x, w: (lambda h: (h.sin().sum(), h))(x * 2),
    "output_of_exp": lambda lib, x, w: (lambda y: (y.sum() * 1, y))(x.exp()),
    "output_of_tanh": lambda lib, x, w: (lambda y: (y.sum() * 1, y))(x.tanh()),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", list(DATA_SWAPPED))
def test_data_swapped_after_save(name, create_graph):
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
        loss, t = DATA_SWAPPED[name](lib, x, w)
        t.data = t.detach() * -1.5 + 0.25
        loss.backward(create_graph=create_graph)
        return x.grad, w.grad
    run_both(prog)


# ------------------------------------------------------------------ freeing after backward
SECOND_BACKWARD = {
    "mul": lambda x: (x * x).sum(),
    "mul_scalar": lambda x: (x * 2).sum(),
    "div_scalar": lambda x: (x / 2).sum(),
    "add_scalar": lambda x: (x + 2).sum(),  # saves nothing: a second backward works
    "sin": lambda x: x.sin().sum(),
    "exp": lambda x: x.exp().sum(),
    "chain": lambda x: (x.tanh() * 3).sigmoid().sum(),
    "mean_view": lambda x: x.view(3, 1).mean(),
}


@pytest.mark.parametrize("name", list(SECOND_BACKWARD))
def test_second_backward_through_freed_graph(name):
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        loss = SECOND_BACKWARD[name](x)
        loss.backward()
        first = x.grad.clone()
        try:
            loss.backward()
        except RuntimeError as e:
            return first, x.grad, Raised(e)
        return first, x.grad
    run_both(prog)


@pytest.mark.parametrize("name", list(SECOND_BACKWARD))
def test_retain_graph_allows_second_backward(name):
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        loss = SECOND_BACKWARD[name](x)
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad
    run_both(prog)


def test_second_grad_through_freed_graph():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = (x * x).sum()
        g1 = lib.autograd.grad(y, x)
        return g1, lib.autograd.grad(y, x)
    run_both(prog)


def test_saved_tensor_attributes_and_freeing():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        e = x * 1
        f = e * x
        before = (f.grad_fn._saved_self, f.grad_fn._saved_other is x)
        f.sum().backward()
        try:
            f.grad_fn._saved_self
        except RuntimeError as err:
            return before, Raised(err)
    run_both(prog)


def test_saved_result_has_history():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        r = y.grad_fn._saved_result
        return r, r is y, r.grad_fn is y.grad_fn, r._version
    run_both(prog)


def test_partial_backward_frees_only_what_ran():
    # backward through one branch frees its nodes; the other branch can still backward
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        a = x.sin()
        b = x.exp()
        a.sum().backward()
        b.sum().backward()
        try:
            a.sum().backward()
        except RuntimeError as e:
            return x.grad, Raised(e)
    run_both(prog)


# ------------------------------------------------------------------ no reference cycles
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "relu"])
def test_saving_own_output_creates_no_cycle(op):
    x = graphgrad.tensor([0.5, 1.0, -2.0], requires_grad=True)
    gc.disable()
    try:
        y = getattr(x, op)()
        ry, rnode = weakref.ref(y), weakref.ref(y.grad_fn)
        del y
        assert ry() is None, "the output tensor is kept alive by its own node"
        assert rnode() is None, "the node outlived every reference to its output"
    finally:
        gc.enable()


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid"])
def test_saved_output_still_usable_for_backward_after_user_drops_it(op):
    def prog(lib):
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        loss = (getattr(x, op)() * 2).sum()  # the op's output is only reachable from the graph
        loss.backward()
        return x.grad
    run_both(prog)


def test_graph_alive_while_output_alive():
    gc.disable()
    try:
        x = graphgrad.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        z = y.sin()
        ry_node = weakref.ref(y.grad_fn)
        del y
        assert ry_node() is not None  # z's node holds ExpBackward0 through its next edge
        del z
        assert ry_node() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------ random in-place programs
def _random_inplace_program(seed):
    """In-place ops on views of a graph tensor, then backward (or its version error)."""
    import random

    def prog(lib):
        rng = random.Random(seed)
        x = lib.tensor([[0.5, 1.0, -0.3], [0.2, 0.9, 1.4]], requires_grad=True)
        w = lib.tensor([1.5, -0.5, 0.25], requires_grad=True)
        base = x * 1
        ts, log = [base, x, w], []
        for _ in range(rng.randint(1, 8)):
            op = rng.choice(["view_mul_", "view_add_", "sin", "view_exp", "copy_", "zero_",
                             "t_mul_", "select_add_", "use", "no_grad_setitem"])
            v = rng.choice(ts)
            if op == "view_mul_":
                base[rng.randint(0, 1)].mul_(w)
            elif op == "view_add_":
                base[:, 1:].add_(w[:2])
            elif op == "sin":
                ts.append(base.sin())
            elif op == "view_exp":
                ts.append(base[1].exp())
            elif op == "copy_":
                base[0].copy_(w * 2)
            elif op == "zero_":
                base[:, 0].zero_()
            elif op == "t_mul_":
                base.t()[1].mul_(2)
            elif op == "select_add_":
                row = base[1]
                ts.append(row * 3)
                row.add_(1)
            elif op == "use":
                ts.append(v * w.sum())
            else:
                with lib.no_grad():
                    base[0, 0] = 7.0
            log.append((op, base._version))
        loss = sum((t * t).sum() for t in ts if t.requires_grad)
        try:
            loss.backward()
        except RuntimeError as e:
            return log, Raised(e)  # (PyTorch may have accumulated some .grad already)
        return log, x.grad, w.grad, [type(t.grad_fn).__name__ for t in ts]
    return prog


@pytest.mark.parametrize("seed", range(30))
def test_random_inplace_programs(seed):
    run_both(_random_inplace_program(seed))


# ------------------------------------------------------------------ detach_() of a saved tensor
def _detached_input(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    c = a.clone()
    y = c.sin()
    c.detach_()
    y.sum().backward()
    return a.grad


def _detached_input_create_graph(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    c = a * 1
    y = c * c
    c.detach_()
    return lib.autograd.grad(y.sum(), a, create_graph=True)


def _detached_output(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    b = a.clone().exp()
    c = b * 1
    b.detach_()
    c.sum().backward()
    return a.grad, b._version


def _detached_base_of_saved_view(lib):
    a = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    base = a.clone()
    y = base[:2].sin()
    base.detach_()
    y.sum().backward()
    return a.grad, base._version


def _detached_leaf(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    y = a.sin()
    a.detach_()
    y.sum().backward()
    return a.grad, a._version


def _inplace_after_base_detached(lib):
    a = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    base = a.clone()
    v = base[:2]
    y = v.sin()
    base.detach_()
    base.add_(1)  # a real change of what y's node saved
    y.sum().backward()


def _truncated_bptt(lib):
    # the RNN idiom: the hidden state is detached in place between chunks
    w = lib.tensor([0.9, -0.3], requires_grad=True)
    h = lib.zeros(2)
    for step in range(4):
        h = (h * w + 1).tanh()
        (h * h).sum().backward()
        h.detach_()
    return w.grad, h._version


def _detached_custom_function_input(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    a = lib.tensor([0.5, 1.0], requires_grad=True)
    c = a * 1
    y = Square.apply(c)
    c.detach_()
    y.sum().backward()
    return a.grad


def _saved_attr_of_detached_input(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    c = a * 1
    y = c.sin()
    c.detach_()
    return y.grad_fn._saved_self


def _leaf_set_not_to_require_grad_after_use(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    y = a * a
    a.requires_grad_(False)
    y.sum().backward()
    return a.grad


@pytest.mark.parametrize("program", [
    _saved_attr_of_detached_input, _leaf_set_not_to_require_grad_after_use,
    _detached_input, _detached_input_create_graph, _detached_output,
    _detached_base_of_saved_view, _detached_leaf, _inplace_after_base_detached,
    _truncated_bptt, _detached_custom_function_input])
def test_detach_in_place_of_a_saved_tensor(program):
    """PyTorch refuses a saved non-leaf input detached in place, and accepts a detached
    saved output, leaf or base of a saved view; detach_() leaves ``_version`` alone."""
    run_both(program)


def test_detach_in_place_error_message():
    a = graphgrad.tensor([0.5], requires_grad=True).clone()
    y = a.sin()
    a.detach_()
    with pytest.raises(RuntimeError, match=r"saved tensor that has been detached in-place.*"
                                           r"use out-of-place `\.detach\(\)`"):
        y.backward()


def test_version_error_after_detach_counts_real_changes_only():
    a = graphgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    base = a.clone()
    v = base[:2]
    y = v.sin()
    base.detach_()
    base.add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.sum().backward()
