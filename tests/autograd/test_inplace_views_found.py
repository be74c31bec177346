"""In-place writes, views and layouts that the differential fuzzer found differing from PyTorch
(tests/fuzz): each test runs one program on graphgrad and on torch."""
from __future__ import annotations

import pytest

from tests.conftest import run_both


@pytest.mark.parametrize("key", ["[:]", "[0:]", "[0:1]", "[:, :]", "[...]", "[..., 0:2]",
                                 "[:, ::1]", "[0]", "[:, 1:]", "[None]", "[..., 0]"])
@pytest.mark.parametrize("value", ["0.0", "T.tensor(2.0, dtype=T.float64)",
                                   "T.ones(2, dtype=T.float64)"])
def test_setitem_of_the_whole_tensor_writes_into_it(key, value):
    """t[key] = v with a key of slices covering their dims (and Ellipsis) writes into t
    itself, as PyTorch's indexing skips such slices: t[:] = 0 is t.fill_(0) (FillBackward3),
    whose gradient is not connected to the incoming one; through a view (CopySlices) the
    double backward of a division by the zeros gave 0 * inf = NaN where PyTorch's
    gradient is a constant (fuzz seed 803070). A 0-d tensor value is fill_'s too."""
    def program(T):
        x2 = T.tensor([[-0.79, 0.85]], dtype=T.float64, requires_grad=True)
        x4 = T.tensor([[-0.22]], dtype=T.float64, requires_grad=True)
        v3 = x2 * 1.0
        exec(f"v3{key} = {value}", {"T": T, "v3": v3})
        g2, g4 = T.autograd.grad((x4 / v3).sum(), [x2, x4], create_graph=True)
        gg = T.autograd.grad(g2.sum(), [x2, x4], allow_unused=True) \
            if g2.requires_grad else None
        return v3, g2, g4.detach(), gg   # (g4: the broadcast sum's node name differs)
    run_both(program)


@pytest.mark.parametrize("case", ["t flip 1", "t flip 0", "t flip both", "strided flip",
                                  "permuted flip", "expanded flip"])
def test_flip_keeps_its_inputs_layout(case):
    """flip's copy is laid out as its input (PyTorch): flip of a transposed tensor is
    transposed, so view(-1) of it raises as in PyTorch (fuzz seed 808040: graphgrad's
    result was contiguous and the view worked)."""
    def program(T):
        x = T.arange(24.0, dtype=T.float64).reshape(2, 3, 4)
        y = {"t flip 1": lambda: x[0].t().flip(1), "t flip 0": lambda: x[0].t().flip(0),
             "t flip both": lambda: x[0].t().flip((0, 1)),
             "strided flip": lambda: x[0, :, ::2].flip(0),
             "permuted flip": lambda: x.permute(2, 0, 1).flip(1),
             "expanded flip": lambda: x[0].expand(2, 3, 4).flip(0)}[case]()
        return y, y.stride(), y.is_contiguous(), y.view(-1)
    run_both(program)


def test_double_backward_through_a_masked_write_into_a_reshaped_0d_tensor():
    """The base's gradient of a write into x.reshape(-1) of a 0-d x came as a NumPy scalar
    in double backward, and replaying the view on it raised 'view size is not compatible'
    where PyTorch's works (fuzz seed 867076)."""
    def program(T):
        x1 = T.tensor([-0.13776721440268022], dtype=T.float64, requires_grad=True)
        x3 = T.tensor([1.124640433601146], dtype=T.float64, requires_grad=True)
        v4 = x1 @ x3
        w5 = v4.reshape(-1)
        w5[w5 > 0] = -2.5
        v7 = T.remainder(v4, v4)
        g = T.autograd.grad(v7.sum() + w5.sum(), [x1, x3], create_graph=True)
        return g, T.autograd.grad(g[0].sum() + g[1].sum(), [x1, x3], allow_unused=True)
    run_both(program)


def test_inplace_op_with_a_promoted_operand_sharing_part_of_the_memory():
    """w = z.unsqueeze(0); w.div_(z.real): the real view shares part of w's memory; PyTorch
    refuses (partial overlap) before promoting it to complex, graphgrad checked the promoted
    copy and wrote (fuzz seed 839897)."""
    def program(T):
        z = T.tensor(0.11 - 1.3j, dtype=T.complex128) * 1
        w = z.unsqueeze(0)
        w.div_(z.real)
        return w
    run_both(program)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "max", "argmax", "median",
                                  "logsumexp", "norm", "vector_norm", "var"])
def test_reduction_results_are_row_major(name):
    """A reduction's result is row-major, as PyTorch's always are, whatever its input's
    layout: NumPy's followed a permuted input, so reshape(-1) of the result copied instead
    of viewing and an in-place op through it did not reach the result (fuzz seed 987375)."""
    def program(T):
        x = T.arange(24.0, dtype=T.float64).reshape(2, 3, 4).permute(2, 1, 0)
        f = {"sum": lambda: x.sum(0), "mean": lambda: x.mean(0), "prod": lambda: x.prod(0),
             "amax": lambda: x.amax(0), "max": lambda: x.max(0).values,
             "argmax": lambda: x.argmax(0), "median": lambda: x.median(0).values,
             "logsumexp": lambda: x.logsumexp(0), "norm": lambda: x.norm(0.5, 0),
             "vector_norm": lambda: T.linalg.vector_norm(x, 2, 0),
             "var": lambda: x.var(0)}[name]
        r = f()
        r.reshape(-1).add_(1)
        return r, r.stride()
    run_both(program)


def test_copy_of_an_expanded_tensor_into_itself():
    """x.copy_(x) returns at once in PyTorch, even for an expanded x whose elements share
    memory; graphgrad raised its overlap error (fuzz seed 1109745)."""
    def program(T):
        x = T.tensor([-0.09], dtype=T.float32)
        w = x.expand(3)
        w.copy_(w)
        y = T.tensor([1.0, 2.0], requires_grad=True) * 1
        e = y[:1].expand(3)
        e.copy_(e)
        return w, x, y.detach()   # (the grad_fn class of a write into an expanded view differs)
    run_both(program)


_STALE_VIEW = {
    # (how the base gets history, what is read of the view then, the in-place op on it)
    "index_put_": ("w[2] = x", "", "w[[2, 0]] = 1.0"),
    "mul_": ("w[2] = x", "", "w.mul_(2.0)"),
    "masked_fill_": ("w[2] = x", "", "w.masked_fill_(w > 0, 1.0)"),
    "through_the_base": ("b.view(-1)[4:6] = x", "", "w.mul_(2.0)"),
    "through_another_view": ("b.view(3, 2).copy_(x.repeat(3).view(3, 2))", "", "w.mul_(2.0)"),
    "requires_grad_read": ("w[2] = x", "w.requires_grad", "w.mul_(2.0)"),
    # (reading grad_fn or is_leaf, or an op of the view, regenerates its history: allowed)
    "grad_fn_read": ("w[2] = x", "w.grad_fn", "w.mul_(2.0)"),
    "is_leaf_read": ("w[2] = x", "w.is_leaf", "w.mul_(2.0)"),
    "used_by_an_op": ("w[2] = x", "w + 1", "w.mul_(2.0)"),
    "basic_setitem": ("w[2] = x", "", "w[0] = 1.0"),
    "own_write_first": ("w.copy_(x.repeat(3).view(3, 2))", "", "w.mul_(2.0)"),
    "a_new_view": ("w[2] = x", "", "w[1].mul_(2.0)"),
}


@pytest.mark.parametrize("case", _STALE_VIEW)
def test_inplace_on_a_view_made_before_its_base_required_grad(case):
    """A view of a tensor that did not require grad, whose base gets history through another
    write, then an in-place op on the view: PyTorch checks the view's history as it was (a
    leaf's) and refuses ('a leaf Variable that requires grad is being used in an in-place
    operation') unless the history was regenerated (grad_fn, is_leaf, an op of the view) or
    the op writes through a new view; graphgrad wrote (fuzz seed 996020)."""
    first, read, op = _STALE_VIEW[case]

    def program(T):
        b = T.zeros(2, 3, dtype=T.float64)
        x = T.tensor([1.5, -2.0], dtype=T.float64, requires_grad=True)
        w = b.reshape(3, -1)
        env = {"T": T, "b": b, "w": w, "x": x}
        exec(first, env)
        if read:
            exec(read, env)
        exec(op, env)
        (g,) = T.autograd.grad((w * T.arange(6.0, dtype=T.float64).view(3, 2)).sum(), x)
        return w, b, g
    run_both(program)


@pytest.mark.parametrize("call", ["T.pow(0.5, t)", "2.0 ** t", "T.pow(1.0, t)", "T.pow(2, t)"])
def test_pow_of_a_number_is_row_major_whatever_the_exponents_layout(call):
    """pow(number, tensor): PyTorch computes into a fresh output, row-major even for a
    transposed exponent (other elementwise ops keep the operand's layout); so view() of a
    clone of 0.5 ** t.transpose(0, 1) worked in PyTorch and raised here (fuzz seed 1171109)."""
    def program(T):
        x = T.arange(24.0, dtype=T.float64).reshape(2, 4, 3).requires_grad_()
        t = x.transpose(0, 1)
        r = eval(call, {"T": T, "t": t})
        c = r.clone()
        w = c.view(4, 6)
        w[1] = 7.0
        (g,) = T.autograd.grad((c * T.arange(24.0, dtype=T.float64).view(4, 2, 3)).sum(), x)
        return r.stride(), c.stride(), c, g
    run_both(program)


@pytest.mark.parametrize("case", ["regenerated", "regenerated-by-the-base", "as_strided"])
def test_gradient_of_an_empty_strided_view_is_a_constant(case):
    """An empty view's gradient through AsStridedBackward0 (a view regenerated after an
    in-place change, or as_strided itself) is PyTorch's constant zeros, not connected to the
    graph: a double backward then does not pass through the base's history, where logit's
    derivative out of its domain is NaN and 0 * NaN was NaN here, 0 in PyTorch (fuzz seed
    1068346)."""
    def program(T):
        x = T.tensor([[-1.1, 0.2], [0.1, 1.28], [-2.3, 0.29]], dtype=T.float64,
                     requires_grad=True)
        c = x.clone()
        v = c.unsqueeze(0)
        v.logit_()
        if case == "as_strided":
            e = v.as_strided((0, 2), (2, 1))
        else:
            e = v[1:]
            (e.fill_(-2.5) if case == "regenerated" else c.mul_(2.0))
        (g,) = T.autograd.grad((e * e).sum() + (c * 0.5).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * T.arange(6.0, dtype=T.float64).view(3, 2)).sum(), x)
        return g.detach(), gg
    run_both(program)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "digamma", "lgamma", "polygamma"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_function_of_a_transposed_tensor_keeps_its_layout(name, dtype):
    """erf, erfc, erfinv, digamma of a transposed tensor are laid out as it, as PyTorch's
    TensorIterator gives (graphgrad's series computed on a row-major copy): reshape(-1) of
    the result is then a copy, and a write through it leaves the result alone (fuzz seed
    1368642: erfinv of x.mT, then a reshape(-1).mul_)."""
    def program(T):
        x = T.tensor([[0.4, -0.3, -0.1, 0.004], [-0.3, 0.37, 0.6, -0.8],
                      [0.12, -0.3, -0.47, 0.37]], dtype=getattr(T, dtype)).mT
        y = T.polygamma(1, x) if name == "polygamma" else getattr(T, name)(x)
        flat = y.reshape(-1)
        flat.mul_(-1.0)
        return y.stride(), y, flat
    run_both(program)


@pytest.mark.parametrize("view", ["view_as_real", "real", "imag", "complex"])
def test_write_into_an_expanded_view_of_a_complex_tensor(view):
    """The gradient of a write into an expanded view whose chain turns a complex base real
    (view_as_real, .real, .imag): the adjoint sums over the expanded rows per element; the
    element numbers replayed through view_as_real were all 0 here, so the whole gradient
    went to the first element ([33, 0] for PyTorch's [3, 30], fuzz seed 1505491)."""
    def program(T):
        z0 = T.tensor([2.0 + 1j, -0.5 + 3j], dtype=T.complex128, requires_grad=True)
        z = z0 * 1
        if view == "view_as_real":
            v, src = T.view_as_real(z)[1:], T.tensor([0.35, 0.54], dtype=T.float64)
        elif view == "complex":
            v, src = z[1:], T.tensor(0.35 - 1j, dtype=T.complex128)
        else:
            v, src = getattr(z, view)[1:], T.tensor(0.35, dtype=T.float64)
        src.requires_grad_()
        w = v.expand(3, *v.shape[1:]) if view == "view_as_real" else v.expand(3)
        w[1] = src
        wt = T.arange(1.0, 1.0 + w.numel(), dtype=T.float64).view(w.shape)
        loss = (w * wt).sum()
        loss = loss.real if loss.is_complex() else loss
        gz, gs = T.autograd.grad(loss + (z * (2 - 1j)).real.sum(), [z0, src])
        return w, z, gz, gs
    run_both(program)


@pytest.mark.parametrize("case", ["t[1] = v1", "t[1] = v11", "t[0:2] = v12", "t[...] = v13",
                                  "t.expand(2, 3)[0][1] = v1", "t[1] = v2"])
def test_setitem_value_with_leading_unit_dims(case):
    """t[key] = v strips v's leading size-1 dims first, as PyTorch's setitem does: t[1] =
    ones(1) writes the element (graphgrad's copy_ refused a [1] source for the 0-d view;
    found with fuzz seed 1505491's reduction). A value that still does not fit raises."""
    def program(T):
        t = T.zeros(3, dtype=T.float64, requires_grad=True) * 1
        vs = {n: T.full(s, 2.5, dtype=T.float64, requires_grad=True)
              for n, s in [("v1", (1,)), ("v11", (1, 1)), ("v12", (1, 2)), ("v13", (1, 3)),
                           ("v2", (2,))]}
        exec(case, {"t": t, **vs})
        used = [v for v in vs.values()]
        gs = T.autograd.grad((t * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), used,
                             allow_unused=True)
        return t, gs
    run_both(program)
