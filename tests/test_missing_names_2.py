"""More names autograd code uses (issue 16 §4, second batch): each compared with PyTorch
through ``run_both``."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.conftest import Raised, run_both as _run_both

from tests.conftest import torch


def run_both(program, raises=False):
    ours, theirs = _run_both(program)
    assert isinstance(ours, Raised) == raises, ours
    return ours, theirs


# ------------------------------------------------------------------ is_inference, formats
def test_is_inference_function_vs_torch():
    def program(T):
        a = T.ones(2)
        with T.inference_mode():
            b = T.ones(2)
            c = a * 2
        return T.is_inference(a), T.is_inference(b), T.is_inference(c), T.is_inference(b + 1)
    run_both(program)


def test_is_inference_rejects_non_tensors_vs_torch():
    run_both(lambda T: T.is_inference([1.0]), raises=True)


@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format"])
def test_memory_format_arguments_vs_torch(fmt):
    def program(T):
        f = getattr(T, fmt)
        x = T.arange(6.0, dtype=T.float64).reshape(2, 3).t().requires_grad_()
        c = x.clone(memory_format=f)
        d = x.contiguous(memory_format=T.contiguous_format)
        e = x.to(memory_format=f)
        z = T.zeros_like(x, memory_format=T.preserve_format)
        (c * 2 + d + e).sum().backward()
        return (c, c.is_contiguous(), d.is_contiguous(), e.is_contiguous(), z, x.grad,
                str(f), c.stride())
    run_both(program)


# ------------------------------------------------------------------ autograd extras
def test_increment_version_vs_torch():
    def program(T):
        a = T.rand(5, requires_grad=True)
        v0 = a._version
        T.autograd.graph.increment_version(a)
        b = T.zeros(5, dtype=T.int32)
        T.autograd.graph.increment_version(b)
        with T.inference_mode():
            c = T.rand(5)
            T.autograd.graph.increment_version(c)   # no counter: skipped
        T.autograd.graph.increment_version(c)
        x = T.ones(3, requires_grad=True)
        y = x * 1
        z = y * y                       # saves y
        T.autograd.graph.increment_version(y)
        z.sum().backward()              # raises: y was "modified"
    ours, theirs = run_both(program, raises=True)
    assert "modified by an inplace operation" in str(ours.exc)


def test_increment_version_counts_vs_torch():
    def program(T):
        a = T.rand(5, requires_grad=True)
        v0 = a._version
        T.autograd.graph.increment_version(a)
        T.autograd.graph.increment_version([a, a])
        return a._version - v0
    run_both(program)


def test_set_multithreading_enabled_vs_torch():
    def program(T):
        seen = []
        with T.autograd.set_multithreading_enabled(False):
            seen.append(T.autograd.is_multithreading_enabled())
            T.autograd.set_multithreading_enabled(True)
            seen.append(T.autograd.is_multithreading_enabled())
        seen.append(T.autograd.is_multithreading_enabled())
        T.autograd.set_multithreading_enabled(False)
        seen.append(T.autograd.is_multithreading_enabled())
        x = T.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        T.autograd.set_multithreading_enabled(True)
        seen.append(T.autograd.is_multithreading_enabled())
        return seen, x.grad
    run_both(program)


def test_saved_tensor_cannot_be_created_vs_torch():
    ours, _ = run_both(lambda T: T.autograd.SavedTensor(), raises=True)
    assert "from Python is forbidden" in str(ours.exc)


def test_backends_mps_unavailable_vs_torch():
    run_both(lambda T: T.backends.mps.is_available())


def _callback_program(depths):
    def program(T):
        from_ = {"outer": 0, "inner": 0, "order": []}

        class Inner(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                if 1 in depths:
                    T.autograd.Variable._execution_engine.queue_callback(
                        lambda: from_.__setitem__("inner", from_["inner"] + 1))
                return g

        class Outer(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                def outer_cb():
                    from_["outer"] += 1
                    from_["order"].append("outer")

                    def chained():
                        from_["order"].append("chained")
                    T.autograd.Variable._execution_engine.queue_callback(chained)
                if 0 in depths:
                    T.autograd.Variable._execution_engine.queue_callback(outer_cb)
                t = g.detach().requires_grad_()
                with T.enable_grad():
                    Inner.apply(t).sum().backward()
                from_["order"].append(("inner done", from_["inner"]))
                return g * 2

        x = T.rand(3, requires_grad=True)
        Outer.apply(x).sum().backward()
        return from_, x.grad
    return program


@pytest.mark.parametrize("depths", [(0,), (1,), (0, 1)])
def test_queue_callback_runs_at_end_of_its_backward_vs_torch(depths):
    run_both(_callback_program(depths))


def test_queue_callback_outside_backward_raises_vs_torch():
    run_both(lambda T: T.autograd.Variable._execution_engine.queue_callback(lambda: None),
             raises=True)


def test_queue_callback_error_propagates_vs_torch():
    def program(T):
        def boom():
            raise ValueError("blah")
        x = T.ones(2, requires_grad=True)
        x.register_hook(lambda g: T.autograd.Variable._execution_engine.queue_callback(boom))
        (x * 2).sum().backward()
    run_both(program, raises=True)


# ------------------------------------------------------------------ ops
@pytest.mark.parametrize("fn", ["min", "max", "median", "nanmedian"])
def test_whole_tensor_selections_split_the_gradient_between_ties_vs_torch(fn):
    def program(T):
        out = []
        for vals in ([1., 0., 1., 0., 1., 0.], [float("nan")] * 3, [2., float("nan"), 1.]):
            x = T.tensor(vals, requires_grad=True)
            y = getattr(T, fn)(x)
            y.backward()
            out.append((y, x.grad))
        return out
    run_both(program)


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_dim_values_indices_and_gradient_vs_torch(fn):
    def program(T):
        nan = float("nan")
        # (no all-NaN row: PyTorch's nanmedian index there is its nth_element's choice)
        x = T.tensor([[3., nan, 1., 2.], [5., 4., 2., 2.], [nan, 1., nan, nan],
                      [7., -1., 0.5, 9.]], dtype=T.float64, requires_grad=True)
        r = getattr(T, fn)(x, 1)
        r2 = getattr(x, fn)(0, keepdim=True)
        (r.values.nan_to_num() * T.arange(4.)).sum().backward()
        return (r.values, r.indices, r2.values, r2.indices, x.grad, type(r).__name__,
                getattr(T, fn)(T.tensor([4, 1, 3, 2])))
    run_both(program)


def test_median_errors_vs_torch():
    run_both(lambda T: T.median(T.ones(2, 0), 1), raises=True)
    run_both(lambda T: T.median(T.tensor([True, False])), raises=True)


def test_isin_and_signbit_do_not_require_grad_vs_torch():
    def program(T):
        x = T.tensor([[1, 2], [3, 4.]], requires_grad=True)
        a = T.isin(x, T.tensor([2, 3]))
        b = T.isin(x, 4.0, invert=True)
        c = T.signbit(T.tensor([-0.0, 1.0, -2.0], requires_grad=True))
        return a, b, c, a.requires_grad, c.requires_grad
    run_both(program)


@pytest.mark.parametrize("split", ["unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"])
def test_inplace_on_unsafe_split_outputs_is_allowed_vs_torch(split):
    def program(T):
        a = T.arange(9., requires_grad=True).reshape(3, 3)
        b = a * 2
        arg = (1, 1, 1) if split == "unsafe_split_with_sizes" else (1 if split != "unsafe_chunk"
                                                                  else 3)
        s1, s2, s3 = getattr(b, split)(arg)
        s1.mul_(s2)
        (s1.sum() + s3.sum()).backward()
        return s1, s3, a.grad, b
    run_both(program)


def test_unsafe_split_rejects_a_list_vs_torch():
    run_both(lambda T: T.ones(4).unsafe_split([1, 3]), raises=True)


@pytest.mark.parametrize("fn", ["scatter_reduce", "index_reduce"])
def test_scatter_reduce_prod_double_backward_error_vs_torch(fn):
    def program(T):
        inp = T.tensor([1.], dtype=T.float64, requires_grad=True)
        src = T.tensor([0., 0.], dtype=T.float64, requires_grad=True)
        idx = T.tensor([0, 0])
        y = getattr(T, fn)(inp, 0, idx, src, "prod")
        g = T.autograd.grad(y.sum(), (inp, src), create_graph=True)
        first = [t.detach() for t in g]
        T.autograd.grad(g[1].sum(), src)    # raises: two zeros in one slot
        return first
    ours, _ = run_both(program, raises=True)
    assert "Double backward is unsupported" in str(ours.exc)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_inplace_and_grads_vs_torch(reduce, include_self):
    def program(T):
        x = T.tensor([[1., 2., 0., 4.], [2., 2., 3., 3.]], dtype=T.float64, requires_grad=True)
        src = T.tensor([[2., 0., 3., 3.], [2., 5., 0., 1.]], dtype=T.float64, requires_grad=True)
        idx = T.tensor([[1, 0, 0, 1], [1, 1, 0, 1]])
        y = x.clone()
        y.scatter_reduce_(0, idx, src, reduce, include_self=include_self)
        gx, gs = T.autograd.grad((y * T.arange(8.).reshape(2, 4)).sum(), (x, src))
        return y, gx, gs, y._version
    run_both(program)


def test_scatter_reduce_bad_reduce_vs_torch():
    run_both(lambda T: T.zeros(3).scatter_reduce(0, T.tensor([0]), T.ones(1), "foo"),
             raises=True)


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_scatter_reduce_takes_max_and_min_forward_only_vs_torch(reduce):
    def forward(T):
        x = T.zeros(3, requires_grad=True)
        return x.scatter_reduce(0, T.tensor([0, 0]), T.tensor([1., -2.]), reduce)
    run_both(forward)

    def backward(T):
        forward(T).sum().backward()   # PyTorch's derivative refuses the aliases
    run_both(backward, raises=True)


def test_resize_bumps_the_version_only_on_a_change_vs_torch():
    def program(T):
        x = T.rand((1,))
        y = T.randn((3,))
        vs = []
        x.resize_((1, 2)); vs.append(x._version)
        x.resize_as_(y); vs.append(x._version)
        x.resize_((3,)); vs.append(x._version)
        x.resize_as_(y); vs.append(x._version)
        z = T.arange(6.).resize_(2, 2)
        return vs, z, len(T.randn(5).resize_(4).storage()), len(T.randn(5)[:4].storage())
    run_both(program)


def test_resize_of_a_tensor_requiring_grad_raises_vs_torch():
    run_both(lambda T: T.ones(2, requires_grad=True).resize_(3), raises=True)


def test_set_gives_the_leaf_a_new_gradient_edge_vs_torch():
    def program(T):
        x = T.rand(2, requires_grad=True)
        edge = T.autograd.graph.get_gradient_edge(x)
        out = x.clone()
        with T.no_grad():
            x.set_(T.ones(2))
        g = T.autograd.grad(out.sum(), edge, retain_graph=True)
        return x, x._version, g, T.autograd.grad(out.sum(), x)   # the last raises
    run_both(program, raises=True)


def test_set_shares_data_vs_torch():
    def program(T):
        a = T.zeros(3)
        b = T.arange(4.)
        a.set_(b)
        b[0] = 7.
        return a, a._version, a.untyped_storage().nbytes(), \
            a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    run_both(program)


@pytest.mark.parametrize("fmt", ["channels_last", "channels_last_3d"])
def test_channels_last_layouts_and_their_gradients_vs_torch(fmt):
    def program(T):
        f = getattr(T, fmt)
        shape = (2, 3, 4, 5) if fmt == "channels_last" else (2, 3, 2, 4, 5)
        a = T.arange(float(np.prod(shape)), dtype=T.float64).reshape(shape).requires_grad_()
        b = a.contiguous(memory_format=f)
        c = a.to(memory_format=f)
        d = a.clone(memory_format=f)
        leaf = (a.detach() * 0.5 - 3).to(memory_format=f).requires_grad_()
        (b * c * d * leaf).sum().backward()
        return (b, c, d, b.stride(), c.stride(), d.stride(), b.is_contiguous(),
                b.is_contiguous(memory_format=f), b.contiguous(memory_format=f) is b,
                c.to(memory_format=f) is c, a.grad, a.grad.stride(), leaf.grad.stride(),
                leaf.stride())
    run_both(program)


def test_channels_last_needs_a_4d_tensor_vs_torch():
    run_both(lambda T: T.ones(2, 3).contiguous(memory_format=T.channels_last), raises=True)


def test_empty_strided_non_dense_leaf_gets_row_major_grads_vs_torch():
    def program(T):
        c = T.empty_strided((2, 2), (4, 2), dtype=T.float64).copy_(T.tensor([[1., 2.], [3., 4.]]))
        c.requires_grad_()
        (c * T.tensor([[5., 6.], [7., 8.]], dtype=T.float64)).sum().backward()
        e = T.empty_strided((2, 3), (1, 2))
        return c, c.stride(), c.grad, c.grad.stride(), e.shape, e.stride(), e.dtype
    run_both(program)


def test_removed_volatile_flag_warns_and_autograd_reaches_the_package():
    def program(lib):
        v = lib.autograd.torch.randn(3, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            flag = v.volatile
            v.volatile = True
        return flag, [str(m.message).split(" (")[0].split(".")[0] for m in w], v.volatile
    run_both(program)
