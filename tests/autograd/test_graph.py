"""The backward graph: Node API, AccumulateGrad, GradientEdge and grad_fn names, against PyTorch."""
import gc
import weakref

import pytest

import graphgrad
from tests.conftest import run_both


def tree(fn, depth=6):
    """The graph below ``fn`` as nested (node class name, input_nr, children) tuples."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__,
            tuple((tree(n, depth - 1), nr) for n, nr in fn.next_functions))


# ------------------------------------------------------------------ Node API
def test_name_and_next_functions():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        nf = y.grad_fn.next_functions
        return (y.grad_fn.name(), type(nf).__name__, len(nf), nf[0][0].name(), nf[0][1],
                nf[1], type(nf[0][0]).__name__)
    run_both(prog)


def test_next_functions_input_nr_for_multi_output_and_non_leaf():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        y = lib.ones(3, requires_grad=True)
        a = x * y
        b = a + a.sin()
        return tree(b.grad_fn), [nr for _, nr in b.grad_fn.next_functions]
    run_both(prog)


def test_next_functions_none_for_inputs_without_grad():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        c = lib.ones(3)
        return tree((c * x).grad_fn), tree((x + c).grad_fn), tree((x * 2).grad_fn)
    run_both(prog)


def test_metadata_is_a_persistent_dict():
    def prog(lib):
        y = lib.ones(3, requires_grad=True).exp()
        m0 = dict(y.grad_fn.metadata)
        y.grad_fn.metadata["tag"] = 1
        return m0, y.grad_fn.metadata, y.grad_fn.metadata is y.grad_fn.metadata
    run_both(prog)


def test_node_is_instance_of_graph_node():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.sin()
        acc = y.grad_fn.next_functions[0][0]
        return (isinstance(y.grad_fn, lib.autograd.graph.Node),
                isinstance(acc, lib.autograd.graph.Node))
    run_both(prog)


def test_sequence_numbers_increase_in_creation_order():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        a = x.sin()
        b = a * 2
        c = x.cos()
        return (a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr()
                < c.grad_fn._sequence_nr())
    run_both(prog)


def test_topological_nr():
    x = graphgrad.ones(3, requires_grad=True)
    a = x.sin()
    b = (a * 2).exp() + x
    assert a.grad_fn.next_functions[0][0]._topological_nr() == 0
    assert a.grad_fn._topological_nr() == 1
    assert b.grad_fn._topological_nr() == 4


def test_node_register_hook_and_prehook():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y.sum()
        y.grad_fn.register_prehook(lambda go: calls.append(("pre", go)))
        y.grad_fn.register_hook(lambda gi, go: calls.append(("post", gi, go)))
        z.backward()
        return calls, x.grad
    run_both(prog)


def test_node_hook_handles_remove():
    def prog(lib):
        calls = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        h1 = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
        h2 = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
        h1.remove()
        h2.remove()
        h2.remove()  # removing twice is harmless
        y.sum().backward()
        return calls, x.grad
    run_both(prog)


def test_calling_a_node_directly():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        return (x * y).grad_fn(lib.ones(2))
    run_both(prog)


# ------------------------------------------------------------------ AccumulateGrad
def test_accumulate_grad_same_object_across_ops_while_alive():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        z = x.sin()
        acc = y.grad_fn.next_functions[0][0]
        return (acc is z.grad_fn.next_functions[0][0], acc.variable is x, acc.name(),
                acc.next_functions, type(acc).__name__)
    run_both(prog)


def test_accumulate_grad_recreated_after_it_dies():
    # metadata lives on the node: a fresh AccumulateGrad starts with an empty dict
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        w = x * 3
        w.grad_fn.next_functions[0][0].metadata["tag"] = 1
        del w
        fresh = dict((x * 1).grad_fn.next_functions[0][0].metadata)
        keep = x * 1
        keep.grad_fn.next_functions[0][0].metadata["tag"] = 2
        kept = dict((x * 1).grad_fn.next_functions[0][0].metadata)
        return fresh, kept
    run_both(prog)


def test_accumulate_grad_is_held_weakly_by_the_leaf():
    gc.disable()
    try:
        x = graphgrad.ones(3, requires_grad=True)
        y = x * 2
        ref = weakref.ref(y.grad_fn.next_functions[0][0])
        assert ref() is not None and ref().variable is x
        del y
        assert ref() is None  # only the graph kept it alive
        assert x.is_leaf and x.grad is None
    finally:
        gc.enable()


def test_leaf_without_grad_fn():
    run_both(lambda lib: lib.ones(2, requires_grad=True).grad_fn)


# ------------------------------------------------------------------ GradientEdge
def test_get_gradient_edge_of_leaf_and_non_leaf():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        u = x * 2
        e_leaf = lib.autograd.graph.get_gradient_edge(x)
        e_u = lib.autograd.graph.get_gradient_edge(u)
        return (type(e_leaf).__name__, e_leaf.node.name(), e_leaf.output_nr,
                e_u.node is u.grad_fn, e_u.output_nr,
                e_leaf.node is u.grad_fn.next_functions[0][0])
    run_both(prog)


def test_get_gradient_edge_requires_grad():
    run_both(lambda lib: lib.autograd.graph.get_gradient_edge(lib.ones(2)))


def test_gradient_edge_as_grad_inputs():
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        u = x * 2
        v = u.sin()
        e = lib.autograd.graph.get_gradient_edge(u)
        gu, gx = lib.autograd.grad(v.sum(), (e, x), retain_graph=True)
        (gu_only,) = lib.autograd.grad(v.sum(), e)
        return gu, gx, gu_only
    run_both(prog)


def test_gradient_edge_of_tensor_later_modified_in_place():
    # the edge keeps pointing at the node u had when the edge was taken
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        u = x * 2
        e = lib.autograd.graph.get_gradient_edge(u)
        u.mul_(3)
        return lib.autograd.grad(u.sum(), e)
    run_both(prog)


def test_gradient_edge_constructed_by_hand():
    def prog(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        u = x.exp()
        e = lib.autograd.graph.GradientEdge(u.grad_fn, 0)
        return lib.autograd.grad((u * u).sum(), e)
    run_both(prog)



def test_gradient_edge_as_output_of_grad_and_backward():
    # issue 16 s4: an output may be given as the GradientEdge its gradient enters
    def prog(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        u = x.sin()
        e = lib.autograd.graph.get_gradient_edge(u)
        g1 = lib.autograd.grad(e, x, grad_outputs=lib.ones(3), retain_graph=True)
        s = (u * 3).sum()
        es = lib.autograd.graph.get_gradient_edge(s)
        g2 = lib.autograd.grad(es, x, retain_graph=True)  # a scalar edge: implicit ones
        g3 = lib.autograd.grad([e, s], [x], grad_outputs=[lib.full((3,), 2.0), None],
                               retain_graph=True)
        lib.autograd.backward(e, lib.ones(3), retain_graph=True)
        lib.autograd.backward([es], inputs=[x])
        return g1, g2, g3, x.grad
    run_both(prog)


def test_gradient_edge_output_errors():
    def implicit_non_scalar(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        return lib.autograd.grad(lib.autograd.graph.get_gradient_edge(x * 2), x)

    def wrong_shape(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        return lib.autograd.grad(lib.autograd.graph.get_gradient_edge(x * 2), x,
                                 grad_outputs=lib.ones(3))

    def materialize_edge_input(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = lib.tensor([0.5, 1.0], requires_grad=True)
        u = y * 2
        return lib.autograd.grad((x * 2).sum(), [x, lib.autograd.graph.get_gradient_edge(u)],
                                 materialize_grads=True)
    for prog in (implicit_non_scalar, wrong_shape, materialize_edge_input):
        run_both(prog)

# ------------------------------------------------------------------ grad_fn names of the starter ops
_LEAVES = []  # every leaf made by _x/_m/_b, so a test can look at their gradients


def _leaf(t):
    _LEAVES.append(t)
    return t


def _x(lib):
    return _leaf(lib.tensor([0.5, 1.5, 2.0], requires_grad=True))


def _m(lib):
    return _leaf(lib.arange(6.0).reshape(2, 3).requires_grad_())


def _b(lib):
    return _leaf(lib.arange(24.0).reshape(4, 2, 3).requires_grad_())


GRAPHS = {
    "add": lambda lib: _x(lib) + _x(lib),
    "add_scalar": lambda lib: _x(lib) + 1,
    "radd": lambda lib: 1 + _x(lib),
    "add_alpha": lambda lib: lib.add(_x(lib), _x(lib), alpha=2),
    "sub": lambda lib: _x(lib) - _x(lib),
    "sub_scalar": lambda lib: _x(lib) - 2,
    "rsub": lambda lib: 2 - _x(lib),
    "sub_alpha": lambda lib: lib.sub(_x(lib), _x(lib), alpha=2),
    "mul": lambda lib: _x(lib) * _x(lib),
    "mul_scalar": lambda lib: _x(lib) * 2,
    "rmul": lambda lib: 2 * _x(lib),
    "mul_const_tensor": lambda lib: lib.ones(3) * _x(lib),
    "div": lambda lib: _x(lib) / _x(lib),
    "div_scalar": lambda lib: _x(lib) / 2,
    "rdiv": lambda lib: 2 / _x(lib),
    "neg": lambda lib: -_x(lib),
    "pow_scalar": lambda lib: _x(lib) ** 2,
    "pow_float": lambda lib: _x(lib).pow(2.5),
    "pow_tensor": lambda lib: _x(lib) ** _x(lib),
    "pow_0d_tensor": lambda lib: _x(lib) ** lib.tensor(2.0, requires_grad=True),
    "rpow": lambda lib: 2 ** _x(lib),
    "dot": lambda lib: _x(lib) @ _x(lib),
    "mv": lambda lib: _m(lib) @ _x(lib),
    "mm": lambda lib: _m(lib) @ _m(lib).t(),
    "vm": lambda lib: _x(lib)[:2] @ _m(lib),
    "bmm": lambda lib: _b(lib) @ _b(lib).transpose(1, 2),
    "batched_mm_fold": lambda lib: _b(lib) @ _m(lib).t(),
    "batched_mv_fold": lambda lib: _b(lib) @ _x(lib),
    "broadcast_bmm": lambda lib: _leaf(lib.ones(5, 1, 2, 3, requires_grad=True))
    @ _b(lib).transpose(1, 2),
    "matmul_fn": lambda lib: lib.matmul(_m(lib), _x(lib)),
    "mm_fn": lambda lib: lib.mm(_m(lib), _m(lib).t()),
    "exp": lambda lib: _x(lib).exp(),
    "log": lambda lib: lib.log(_x(lib)),
    "sin": lambda lib: _x(lib).sin(),
    "cos": lambda lib: lib.cos(_x(lib)),
    "tanh": lambda lib: _x(lib).tanh(),
    "sigmoid": lambda lib: lib.sigmoid(_x(lib)),
    "relu": lambda lib: (_x(lib) - 1).relu(),
    "sum": lambda lib: _x(lib).sum(),
    "sum_dim": lambda lib: _m(lib).sum(0),
    "sum_dims_keepdim": lambda lib: _b(lib).sum((0, 2), keepdim=True),
    "sum_neg_dim": lambda lib: _m(lib).sum(-1),
    "mean": lambda lib: _x(lib).mean(),
    "mean_dim": lambda lib: _m(lib).mean(1, keepdim=True),
    "view": lambda lib: _m(lib).view(6),
    "view_infer": lambda lib: _m(lib).view(-1, 2),
    "reshape_view": lambda lib: _m(lib).reshape(3, 2),
    "reshape_copy": lambda lib: _m(lib).t().reshape(6),
    "transpose": lambda lib: _b(lib).transpose(0, 2),
    "t": lambda lib: _m(lib).t(),
    "t_1d": lambda lib: _x(lib).t(),
    "expand": lambda lib: _x(lib).expand(2, 3),
    "expand_neg1": lambda lib: _x(lib).unsqueeze(0).expand(4, -1),
    "unsqueeze": lambda lib: _x(lib).unsqueeze(0),
    "unsqueeze_neg": lambda lib: _x(lib).unsqueeze(-1),
    "squeeze": lambda lib: _x(lib).unsqueeze(0).squeeze(),
    "squeeze_dim": lambda lib: _x(lib).unsqueeze(0).squeeze(0),
    "squeeze_dim_not_one": lambda lib: _x(lib).unsqueeze(0).squeeze(1),
    "squeeze_dims": lambda lib: _x(lib).unsqueeze(0).squeeze((0, 1)),
    "index_int": lambda lib: _x(lib)[0],
    "index_neg_int": lambda lib: _x(lib)[-1],
    "index_slice": lambda lib: _x(lib)[1:],
    "index_full_slice": lambda lib: _x(lib)[:],
    "index_ellipsis": lambda lib: _x(lib)[...],
    "index_none": lambda lib: _x(lib)[None],
    "index_int_slice": lambda lib: _m(lib)[0, 1:],
    "index_slice_int": lambda lib: _m(lib)[:, 1],
    "index_ellipsis_none": lambda lib: _m(lib)[..., None],
    "index_step": lambda lib: _m(lib)[::2],
    "index_slices": lambda lib: _m(lib)[:, :],
    "index_3d": lambda lib: _b(lib)[1, :, ::2],
    "add_": lambda lib: (_x(lib) * 1).add_(_x(lib)),
    "add_scalar_": lambda lib: (_x(lib) * 1).add_(1),
    "mul_": lambda lib: (_x(lib) * 1).mul_(2),
    "mul_tensor_": lambda lib: (_x(lib) * 1).mul_(_x(lib)),
    "zero_": lambda lib: (_x(lib) * 1).zero_(),
    "copy_": lambda lib: lib.zeros(3).copy_(_x(lib)),
    "copy_onto_graph": lambda lib: (_x(lib) * 1).copy_(_x(lib)),
    "iadd": lambda lib: _iadd(lib),
    "inplace_on_view": lambda lib: _inplace_on_view(lib),
    "view_of_modified_base": lambda lib: _view_of_modified_base(lib),
    "chain": lambda lib: ((_x(lib) * 2 + 1).sin() ** 2).sum(),
    "clone": lambda lib: _x(lib).clone(),
    "to_double": lambda lib: _x(lib).double(),
    "detach_then_op": lambda lib: _x(lib).detach() * 2,
}


def _iadd(lib):
    y = _x(lib) * 1
    y += 1
    return y


def _inplace_on_view(lib):
    base = _x(lib) * 1
    base[1:].mul_(2)
    return base


def _view_of_modified_base(lib):
    base = _x(lib) * 1
    v = base[1:]
    base.add_(1)
    return v


@pytest.mark.parametrize("name", list(GRAPHS))
def test_grad_fn_graph_matches_torch(name):
    def prog(lib):
        out = GRAPHS[name](lib)
        return out, tree(out.grad_fn), out.grad_fn.name()
    run_both(prog)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_backward_through_graph_matches_torch(name):
    def prog(lib):
        _LEAVES.clear()
        out = GRAPHS[name](lib)
        (out * out).sum().backward()
        return [t.grad for t in _LEAVES]
    run_both(prog)


# ------------------------------------------------------------------ _saved_* attributes
_SAVED_ATTR_PROGRAMS = {
    "add": lambda lib, x, m: x + x,
    "add_scalar": lambda lib, x, m: x + 2,
    "sub": lambda lib, x, m: x - x,
    "mean": lambda lib, x, m: x.mean(),
    "mean_dim": lambda lib, x, m: x.mean(1),
    "sum_dim": lambda lib, x, m: x.sum(1),
    "mm": lambda lib, x, m: x.mm(m),
    "mm_transposed": lambda lib, x, m: x.mm(m.t().contiguous().t()),
    "addmm": lambda lib, x, m: lib.addmm(lib.ones(2, 4, dtype=lib.float64, requires_grad=True),
                                         x, m),
    "squeeze": lambda lib, x, m: x.unsqueeze(1).squeeze(1),
    "unsqueeze": lambda lib, x, m: x.unsqueeze(2),
    "transpose": lambda lib, x, m: x.transpose(1, 0),
    "select": lambda lib, x, m: x.select(1, 1),
    "softmax": lambda lib, x, m: lib.softmax(x, 1),
    "log_softmax": lambda lib, x, m: lib.log_softmax(x, 1),
    "cat": lambda lib, x, m: lib.cat([x, x], 1),
    "stack": lambda lib, x, m: lib.stack([x, x], 2),
    "max_dim": lambda lib, x, m: x.max(1)[0],
    "sort": lambda lib, x, m: x.sort(1)[0],
    "topk": lambda lib, x, m: x.topk(2, 1)[0],
    "flip": lambda lib, x, m: x.flip(1),
    "diagonal": lambda lib, x, m: x.diagonal(0, 0, 1),
    "index_select": lambda lib, x, m: x.index_select(1, lib.tensor([0])),
    "narrow": lambda lib, x, m: x.narrow(1, 0, 2),
    "permute": lambda lib, x, m: x.permute(1, 0),
}


def _saved_attr_inputs(lib):
    x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
    m = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
    return x, m


@pytest.mark.parametrize("name", sorted(_SAVED_ATTR_PROGRAMS))
def test_saved_attributes_of_common_nodes_are_pytorchs(name):
    # issue 16 s4: PyTorch's _saved_* attribute set and values (dims as PyTorch stores
    # them: non-negative when given non-negative; graphgrad's rules keep some negative)
    import torch
    f = _SAVED_ATTR_PROGRAMS[name]
    node = f(torch, *_saved_attr_inputs(torch)).grad_fn
    names = sorted(a for a in dir(node) if a.startswith("_saved_"))

    def prog(lib):
        fn = f(lib, *_saved_attr_inputs(lib)).grad_fn
        return type(fn).__name__, {a: getattr(fn, a) for a in names}
    run_both(prog)


@pytest.mark.parametrize("name,neg,pos", [
    ("sum", lambda t: t.sum(-1), lambda t: t.sum(1)),
    ("unsqueeze", lambda t: t.unsqueeze(-1), lambda t: t.unsqueeze(2)),
    ("transpose", lambda t: t.transpose(-1, 0), lambda t: t.transpose(1, 0)),
    ("select", lambda t: t.select(-1, 0), lambda t: t.select(1, 0)),
    ("softmax", lambda t: t.softmax(-1), lambda t: t.softmax(1)),
    ("squeeze", lambda t: t.unsqueeze(1).squeeze(-2), lambda t: t.unsqueeze(1).squeeze(1)),
])
def test_saved_dims_given_negative_read_non_negative(name, neg, pos):
    # PyTorch shows a dim given negative as the uint64 of its int64 (2**64 - 1 for -1);
    # graphgrad shows it counted from the front, as for the same dim given non-negative
    x = graphgrad.ones(2, 3, requires_grad=True)
    a, b = neg(x).grad_fn, pos(x).grad_fn
    keys = [k for k in dir(b) if k.startswith("_saved_dim")]
    assert keys and all(getattr(a, k) == getattr(b, k) for k in keys)
    assert all(d >= 0 for k in keys for d in (
        getattr(a, k) if isinstance(getattr(a, k), tuple) else (getattr(a, k),)))


def test_saved_sizes_and_strides_stay_readable_after_backward():
    def prog(lib):
        x, m = _saved_attr_inputs(lib)
        y = x.mm(m)
        y.sum().backward()
        fn = y.grad_fn
        return (fn._saved_self_sym_sizes, fn._saved_self_sym_strides, fn._saved_mat2_sym_sizes,
                fn._saved_mat2_sym_strides)
    run_both(prog)


_SAVED_ATTR_SETS = {
    "view": lambda lib, x: x.view(6),
    "reshape": lambda lib, x: (x * 1).reshape(3, 2),
    "expand": lambda lib, x: x[:1].expand(4, 3),
    "expand_as": lambda lib, x: x[:1].expand_as(x),
    "flatten": lambda lib, x: x.flatten(),
    "t": lambda lib, x: x.t(),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (3,)),
    "mm_mat2_only": lambda lib, x: lib.ones(4, 2, dtype=lib.float64).mm(x),
    "mm_self_only": lambda lib, x: x.mm(lib.ones(3, 2, dtype=lib.float64)),
}
# (not yet PyTorch's: AddmmBackward0 saves mat2 when only mat2 requires grad and no beta
# when self does not; SplitBackward0 lacks split_size, NllLossBackward0 self/total_weight)


@pytest.mark.parametrize("name", sorted(_SAVED_ATTR_SETS))
def test_saved_attribute_sets_and_values_are_pytorchs(name):
    # exactly PyTorch's _saved_* names (torchviz's show_attrs lists them all), with its
    # values: an operand's strides are saved only when that operand requires grad
    f = _SAVED_ATTR_SETS[name]

    def prog(lib):
        fn = f(lib, lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()).grad_fn
        names = sorted(a for a in dir(fn) if a.startswith("_saved_"))
        return type(fn).__name__, names, [getattr(fn, a) for a in names
                                          if not a.startswith("_saved_result")]
    run_both(prog)
