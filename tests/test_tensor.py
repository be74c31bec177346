"""Tensor attributes and methods (api.md §1), dtypes and creation (§2), against PyTorch."""
import numpy as np
import pytest

import graphgrad
from tests.conftest import Raised, dtype_name, run_both, torch


# ------------------------------------------------------------------ requires_grad
def test_requires_grad_setter_on_leaf():
    def prog(lib):
        x = lib.ones(3)
        x.requires_grad = True
        a = x.requires_grad
        x.requires_grad = False
        return a, x.requires_grad, x.is_leaf, x.grad_fn
    run_both(prog)


def test_requires_grad_setter_false_on_non_leaf_raises():
    def prog(lib):
        y = lib.ones(3, requires_grad=True) * 2
        y.requires_grad = False
    run_both(prog)


def test_requires_grad_setter_true_on_non_leaf_raises():
    def prog(lib):
        y = lib.ones(3, requires_grad=True) * 2
        y.requires_grad = True
    run_both(prog)


def test_requires_grad_method_on_non_leaf():
    run_both(lambda lib: (lib.ones(3, requires_grad=True) * 2).requires_grad_(True))
    run_both(lambda lib: (lib.ones(3, requires_grad=True) * 2).requires_grad_(False))


@pytest.mark.parametrize("dt", ["int64", "int32", "bool", "uint8"])
def test_only_float_and_complex_can_require_grad(dt):
    run_both(lambda lib: lib.ones(2, dtype=getattr(lib, dt)).requires_grad_())
    run_both(lambda lib: lib.tensor([1, 0], dtype=getattr(lib, dt), requires_grad=True))
    run_both(lambda lib: lib.ones(2, dtype=getattr(lib, dt)).requires_grad_(False))


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64", "complex64",
                                "complex128"])
def test_floating_and_complex_require_grad(dt):
    run_both(lambda lib: lib.ones(2, dtype=getattr(lib, dt)).requires_grad_())


# ------------------------------------------------------------------ leaf / grad_fn / output_nr
def test_is_leaf_grad_fn_output_nr():
    def prog(lib):
        a = lib.ones(3)
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        z = a * 2
        return [(t.is_leaf, t.grad_fn, t.output_nr, t.requires_grad) for t in (a, x, y, z)]
    run_both(prog)


def test_no_grad_result_is_leaf():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            y = x * 2
        return y, y.is_leaf
    run_both(prog)


# ------------------------------------------------------------------ _version
def test_version_shared_by_views():
    def prog(lib):
        a = lib.ones(4)
        v = a[1:]
        w = v.view(3, 1)
        out = [a._version]
        a.add_(1)
        out.append((a._version, v._version, w._version))
        w.mul_(2)
        out.append((a._version, v._version, w._version, a))
        return out
    run_both(prog)


@pytest.mark.parametrize("view", ["t", "transpose", "squeeze", "unsqueeze", "expand", "alias",
                                  "select", "reshape", "view"])
def test_every_view_op_shares_the_version_counter(view):
    def prog(lib):
        a = lib.ones(1, 3)
        v = {"t": lambda: a.t(), "transpose": lambda: a.transpose(0, 1),
             "squeeze": lambda: a.squeeze(), "unsqueeze": lambda: a.unsqueeze(0),
             "expand": lambda: a.expand(2, 3), "alias": lambda: a[...],
             "select": lambda: a[0], "reshape": lambda: a.reshape(3),
             "view": lambda: a.view(3, 1)}[view]()
        a.mul_(2)
        a.add_(1)
        return v._version, v, v._base is a
    run_both(prog)


def test_version_shared_with_detach():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        d = x.detach()
        d.add_(1)
        return x._version, d._version, x
    run_both(prog)


def test_version_counts_each_inplace_op():
    def prog(lib):
        x = lib.zeros(3)
        x.add_(1)
        x.mul_(2)
        x.zero_()
        x.copy_(lib.ones(3))
        x[0] = 5.0
        return x._version, x
    run_both(prog)


# ------------------------------------------------------------------ .data
def test_data_is_detached_and_not_tracked():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        d = x.data
        first = (d.requires_grad, d.is_leaf, d.grad_fn)
        d.add_(1)  # a change the autograd version counter does not see
        return first, x._version, d._version, x
    run_both(prog)


def test_data_edit_does_not_break_backward():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        x.data.mul_(10)  # not seen by autograd: the saved x is the modified one
        y.sum().backward()
        return x.grad, x._version
    run_both(prog)


def test_data_of_non_leaf():
    def prog(lib):
        y = lib.ones(3, requires_grad=True) * 2
        y.data.mul_(0)
        return y, y._version
    run_both(prog)


def test_data_setter():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        x.data = lib.zeros(3)
        return x, x._version, x.requires_grad
    run_both(prog)


# ------------------------------------------------------------------ retain_grad
def test_retain_grad():
    def prog(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        before = (x.retains_grad, y.retains_grad)
        y.retain_grad()
        y.retain_grad()  # idempotent
        x.retain_grad()  # no-op on a leaf
        (y * y).sum().backward()
        return before, (x.retains_grad, y.retains_grad), y.grad, x.grad
    run_both(prog)


def test_retain_grad_without_requires_grad_raises():
    run_both(lambda lib: lib.ones(2).retain_grad())


# ------------------------------------------------------------------ detach / detach_
def test_detach():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        y = (x * 2).detach()
        return y, y.is_leaf, y.grad_fn
    run_both(prog)


def test_detach_inplace():
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        z = x * 3
        r = z.detach_()
        leaf = lib.ones(2, requires_grad=True)
        leaf.detach_()
        return r is z, z, leaf
    run_both(prog)


@pytest.mark.parametrize("base_requires_grad", [False, True])
def test_detach_inplace_on_view_raises(base_requires_grad):
    def prog(lib):
        base = lib.ones(2, 3, requires_grad=base_requires_grad)
        return base.t().detach_()
    run_both(prog)


# ------------------------------------------------------------------ grad setter
def test_grad_setter():
    def prog(lib):
        g = lib.ones(3, requires_grad=True)
        g.grad = lib.full((3,), 2.0)
        a = g.grad
        del g.grad
        return a, g.grad
    run_both(prog)


@pytest.mark.parametrize("bad", ["shape", "dtype", "type"])
def test_grad_setter_errors(bad):
    def prog(lib):
        g = lib.ones(3, requires_grad=True)
        g.grad = {"shape": lib.ones(2), "dtype": lib.ones(3, dtype=lib.float64),
                  "type": [1.0, 2.0, 3.0]}[bad]
    run_both(prog)


# ------------------------------------------------------------------ NumPy interop
def test_numpy_shares_memory():
    t = graphgrad.ones(3)
    a = t.numpy()
    a[0] = 7
    assert t.tolist() == [7.0, 1.0, 1.0]


def test_from_numpy_shares_memory_both_ways():
    arr = np.zeros(3, dtype=np.float32)
    t = graphgrad.from_numpy(arr)
    arr[0] = 5
    t[1] = 7.0
    t.add_(1)
    assert arr.tolist() == t.tolist() == [6.0, 8.0, 1.0]
    assert np.shares_memory(t.numpy(), arr)
    assert t._version == 2


def test_tensor_copies_and_as_tensor_shares():
    arr = np.arange(3.0)
    assert not np.shares_memory(graphgrad.tensor(arr).numpy(), arr)
    assert np.shares_memory(graphgrad.as_tensor(arr).numpy(), arr)
    assert dtype_name(graphgrad.tensor(arr).dtype) == "float64"


@pytest.mark.parametrize("what", ["leaf", "non_leaf"])
def test_numpy_raises_when_requires_grad(what):
    def prog(lib):
        x = lib.ones(3, requires_grad=True)
        return (x if what == "leaf" else x * 2).numpy()
    run_both(prog)


def test_numpy_of_detached():
    run_both(lambda lib: lib.tensor(lib.ones(3, requires_grad=True).detach().numpy()))


def test_array_protocol():
    t = graphgrad.tensor([1.0, 2.0])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(np.add(np.ones(2, np.float32), np.asarray(t)), [2.0, 3.0])


def test_array_protocol_raises_when_requires_grad():
    def prog(lib):
        return np.asarray(lib.ones(2, requires_grad=True)).tolist()
    run_both(prog)


def test_from_numpy_errors():
    run_both(lambda lib: lib.from_numpy([1.0, 2.0]))


# ------------------------------------------------------------------ item / tolist / conversions
@pytest.mark.parametrize("data", [[1.5, 2.0], [[1, 2], [3, 4]], 3, 2.5, True, [[True]]])
def test_tolist(data):
    run_both(lambda lib: lib.tensor(data).tolist())


@pytest.mark.parametrize("data", [[[1.5]], 3, True, [2.5]])
def test_item(data):
    run_both(lambda lib: lib.tensor(data).item())


def test_item_of_many_raises():
    run_both(lambda lib: lib.tensor([1.0, 2.0]).item())


def test_item_of_requires_grad():
    run_both(lambda lib: (lib.tensor(2.0, requires_grad=True) * 3).item())


def test_python_conversions():
    run_both(lambda lib: [float(lib.tensor([2.5])), int(lib.tensor(3.7)), bool(lib.tensor([0.0])),
                          len(lib.ones(3, 2))])
    run_both(lambda lib: bool(lib.ones(2)))
    run_both(lambda lib: len(lib.tensor(1.0)))


def test_size_and_dims():
    def prog(lib):
        t = lib.ones(3, 2)
        return (tuple(t.size()), t.size(1), t.size(-1), tuple(t.shape), t.dim(), t.ndim,
                t.numel(), t.is_floating_point(), t.is_complex())
    run_both(prog)
    run_both(lambda lib: lib.ones(3, 2).size(2))


# ------------------------------------------------------------------ repr
REPR_PROGRAMS = {
    "float": lambda lib: lib.tensor([1.0, 2.5]),
    "int": lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    "float64": lambda lib: lib.tensor([1.0, 2.5], dtype=lib.float64),
    "leaf": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "grad_fn": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_f64": lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True) * 2,
    "scalar": lambda lib: lib.tensor(3.25),
    "bool": lambda lib: lib.tensor([True, False]),
    "empty": lambda lib: lib.zeros(0, 3),
    "matrix": lambda lib: lib.arange(6.0).reshape(2, 3),
    "copy_backwards": lambda lib: lib.zeros(2).copy_(lib.ones(2, requires_grad=True)),
    "copy_slices": lambda lib: _copy_slices(lib),
    "view_no_grad": lambda lib: _no_grad_view(lib),
}


def _copy_slices(lib):
    y = lib.ones(3, requires_grad=True) * 1
    y[1:].mul_(2)
    return y


def _no_grad_view(lib):
    x = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        return x[1:]


@pytest.mark.parametrize("name", sorted(REPR_PROGRAMS))
def test_repr_matches_torch(name):
    ours = repr(REPR_PROGRAMS[name](graphgrad))
    theirs = repr(REPR_PROGRAMS[name](torch)).replace("torch.", "graphgrad.")
    assert ours == theirs
    assert str(REPR_PROGRAMS[name](graphgrad)) == ours


# ------------------------------------------------------------------ type promotion
PROMOTION = {
    "f32*pyfloat": lambda lib: lib.ones(2) * 2.5,
    "f16*pyfloat": lambda lib: lib.ones(2, dtype=lib.float16) * 2.5,
    "i64*pyfloat": lambda lib: lib.ones(2, dtype=lib.int64) * 2.5,
    "i32*pyint": lambda lib: lib.ones(2, dtype=lib.int32) * 2,
    "i64/pyint": lambda lib: lib.ones(2, dtype=lib.int64) / 2,
    "i64/i64": lambda lib: lib.ones(2, dtype=lib.int64) / lib.ones(2, dtype=lib.int64),
    "f32+f64_0d": lambda lib: lib.ones(2) + lib.tensor(1.0, dtype=lib.float64),
    "f64_0d+f32": lambda lib: lib.tensor(1.0, dtype=lib.float64) + lib.ones(2),
    "f32+f64": lambda lib: lib.ones(2) + lib.ones(2, dtype=lib.float64),
    "i64+f16": lambda lib: lib.ones(2, dtype=lib.int64) + lib.ones(2, dtype=lib.float16),
    "f16+bf16": lambda lib: lib.ones(2, dtype=lib.float16) + lib.ones(2, dtype=lib.bfloat16),
    "bool+pyint": lambda lib: lib.ones(2, dtype=lib.bool) + 1,
    "bool+pybool": lambda lib: lib.ones(2, dtype=lib.bool) + True,
    "bool+pyfloat": lambda lib: lib.ones(2, dtype=lib.bool) * 1.5,
    "bool+i32": lambda lib: lib.ones(2, dtype=lib.bool) + lib.ones(2, dtype=lib.int32),
    "u8+i8": lambda lib: lib.ones(2, dtype=lib.uint8) + lib.ones(2, dtype=lib.int8),
    "i32*i64_0d": lambda lib: lib.ones(2, dtype=lib.int32) * lib.tensor(3),
    "i32*f64_0d": lambda lib: lib.ones(2, dtype=lib.int32) * lib.tensor(1.0, dtype=lib.float64),
    "f32*complex": lambda lib: lib.ones(2) * 1j,
    "f64*complex": lambda lib: lib.ones(2, dtype=lib.float64) * 1j,
    "f32_0d+f64_0d": lambda lib: lib.tensor(1.0) + lib.tensor(1.0, dtype=lib.float64),
    "f32**2": lambda lib: lib.ones(2) ** 2,
    "i64**2": lambda lib: lib.full((2,), 3) ** 2,
    "i64**0.5": lambda lib: lib.full((2,), 4) ** 0.5,
    "2-i64": lambda lib: 2 - lib.full((2,), 4),
    "2.5-i64": lambda lib: 2.5 - lib.full((2,), 4),
    "2/i64": lambda lib: 2 / lib.full((2,), 4),
    "exp(i64)": lambda lib: lib.full((2,), 1).exp(),
    "sum(i32)": lambda lib: lib.ones(3, dtype=lib.int32).sum(),
    "sum(bool)": lambda lib: lib.ones(3, dtype=lib.bool).sum(),
    "mean(i64)": lambda lib: lib.ones(3, dtype=lib.int64).mean(),
    "requires_grad f32*f64": lambda lib: lib.ones(2, requires_grad=True)
    * lib.ones(2, dtype=lib.float64, requires_grad=True),
    "where(pyfloat, pyint)": lambda lib: lib.where(lib.tensor([True, False]), 1.0, 0),
    "where(pyfloat, pyfloat)": lambda lib: lib.where(lib.tensor([True, False]), 1.0, 2.0),
    "where(pyint, pyint)": lambda lib: lib.where(lib.tensor([True, False]), 1, 0),
    "where(pybool, pybool)": lambda lib: lib.where(lib.tensor([True, False]), True, False),
    "where(pycomplex, pyint)": lambda lib: lib.where(lib.tensor([True, False]), 1j, 0),
    "where(i32, pyfloat)": lambda lib: lib.where(lib.tensor([True, False]),
                                                 lib.ones(2, dtype=lib.int32), 2.5),
    "where(f64_0d, pyint)": lambda lib: lib.where(lib.tensor([True, False]),
                                                  lib.tensor(1.0, dtype=lib.float64), 2),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_type_promotion(name):
    run_both(PROMOTION[name])


_T = [True, False]
BOOL_MINUS = {  # PyTorch refuses `-` on bool tensors (a Python bool counts as one)
    "-bool": lambda lib: -lib.tensor(_T),
    "neg(bool)": lambda lib: lib.neg(lib.tensor(_T)),
    "neg_(bool)": lambda lib: lib.tensor(_T).neg_(),
    "bool-bool": lambda lib: lib.tensor(_T) - lib.tensor(_T),
    "bool-pybool": lambda lib: lib.tensor(_T) - True,
    "pybool-bool": lambda lib: True - lib.tensor(_T),
    "bool-pyint": lambda lib: lib.tensor(_T) - 1,
    "pyint-bool": lambda lib: 1 - lib.tensor(_T),
    "bool-i64": lambda lib: lib.tensor(_T) - lib.tensor([1, 0]),
    "i64-bool": lambda lib: lib.tensor([1, 0]) - lib.tensor(_T),
    "f32-pybool": lambda lib: lib.ones(2) - True,
    "sub(f32, bool, alpha=2)": lambda lib: lib.sub(lib.ones(2), lib.tensor(_T), alpha=2),
    "i64.sub_(bool)": lambda lib: lib.tensor([1, 0]).sub_(lib.tensor(_T)),
    "bool.sub_(bool)": lambda lib: lib.tensor(_T).sub_(lib.tensor(_T)),
    "i64-pyint (allowed)": lambda lib: lib.tensor([1, 0]) - 1,
}


@pytest.mark.parametrize("name", list(BOOL_MINUS))
def test_minus_on_bool_tensors_raises_like_torch(name):
    ours, theirs = run_both(BOOL_MINUS[name])
    if isinstance(theirs, Raised):
        assert str(ours.exc) == str(theirs.exc)


def test_promotion_gradient_dtypes():
    def prog(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (a * b).sum().backward()
        return a.grad, b.grad
    run_both(prog)


@pytest.mark.parametrize("pair", [("int32", "float16"), ("uint8", "int8"), ("bool", "int64"),
                                  ("float16", "bfloat16"), ("float32", "complex64"),
                                  ("float64", "complex64"), ("int64", "float32")])
def test_promote_types(pair):
    run_both(lambda lib: lib.promote_types(getattr(lib, pair[0]), getattr(lib, pair[1])))


def test_result_type():
    run_both(lambda lib: lib.result_type(lib.ones(2, dtype=lib.int32), 2.0))
    run_both(lambda lib: lib.result_type(lib.ones(2, dtype=lib.int32), 2))
    run_both(lambda lib: lib.result_type(lib.ones(2, dtype=lib.float16), lib.tensor(1.0)))


def test_inplace_promotion_errors():
    run_both(lambda lib: lib.ones(2, dtype=lib.int64).add_(1.5))
    run_both(lambda lib: lib.ones(2, dtype=lib.int64).mul_(lib.ones(2)))
    run_both(lambda lib: lib.ones(2).add_(lib.ones(2, dtype=lib.float64)))


# ------------------------------------------------------------------ default dtype
def test_default_dtype():
    run_both(lambda lib: [lib.get_default_dtype(), lib.tensor([1.0]).dtype, lib.ones(1).dtype,
                          lib.tensor([1, 2.0]).dtype, lib.tensor([1j]).dtype])


@pytest.fixture
def restore_default_dtype():
    yield
    graphgrad.set_default_dtype(graphgrad.float32)
    torch.set_default_dtype(torch.float32)


def test_set_default_dtype(restore_default_dtype):
    def prog(lib):
        lib.set_default_dtype(lib.float64)
        return [lib.get_default_dtype(), lib.tensor([1.5]), lib.zeros(2), lib.tensor([1j]).dtype,
                lib.full((2,), 3) * 0.5, lib.arange(0.0, 1.0, 0.5)]
    run_both(prog)


def test_set_default_dtype_rejects_ints(restore_default_dtype):
    run_both(lambda lib: lib.set_default_dtype(lib.int64))


# ------------------------------------------------------------------ creation
CREATION = {
    "tensor_float_list": lambda lib: lib.tensor([1.0, 2.0]),
    "tensor_int_list": lambda lib: lib.tensor([1, 2]),
    "tensor_mixed": lambda lib: lib.tensor([1, 2.0]),
    "tensor_bool_int": lambda lib: lib.tensor([True, 1]),
    "tensor_bool": lambda lib: lib.tensor([True, False]),
    "tensor_complex": lambda lib: lib.tensor([1j, 2]),
    "tensor_empty": lambda lib: lib.tensor([]),
    "tensor_nested": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "tensor_scalar": lambda lib: lib.tensor(2.5),
    "tensor_np_f64": lambda lib: lib.tensor(np.array([1.0, 2.0])),
    "tensor_np_i32": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor_np_scalar": lambda lib: lib.tensor(np.float64(1.5)),
    "tensor_dtype": lambda lib: lib.tensor([1, 2], dtype=lib.float64),
    "tensor_requires_grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "tensor_int_requires_grad": lambda lib: lib.tensor([1], requires_grad=True),
    "tensor_ragged": lambda lib: lib.tensor([[1.0], [1.0, 2.0]]),
    "as_tensor": lambda lib: lib.as_tensor([1, 2]),
    "as_tensor_dtype": lambda lib: lib.as_tensor([1, 2], dtype=lib.float32),
    "zeros": lambda lib: lib.zeros(2, 3),
    "zeros_tuple": lambda lib: lib.zeros((2, 3), dtype=lib.int32),
    "zeros_neg": lambda lib: lib.zeros(-1),
    "ones": lambda lib: lib.ones(2, requires_grad=True),
    "full_int": lambda lib: lib.full((2,), 3),
    "full_float": lambda lib: lib.full((2,), 3.0),
    "full_bool": lambda lib: lib.full((2,), True),
    "full_dtype": lambda lib: lib.full((2, 2), 1.5, dtype=lib.float64),
    "empty_shape": lambda lib: (lib.empty(2, 3).shape, lib.empty(2, 3).dtype),
    "eye": lambda lib: lib.eye(3),
    "eye_rect": lambda lib: lib.eye(2, 3, dtype=lib.int64),
    "arange": lambda lib: lib.arange(5),
    "arange_float": lambda lib: lib.arange(0, 1, 0.25),
    "arange_start": lambda lib: lib.arange(1, 4, dtype=lib.float64),
    "arange_neg_step": lambda lib: lib.arange(5, 0, -2),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "zeros_like": lambda lib: lib.zeros_like(lib.ones(2, dtype=lib.int32)),
    "ones_like": lambda lib: lib.ones_like(lib.ones(2, 2), dtype=lib.float64),
    "full_like": lambda lib: lib.full_like(lib.ones(2), 7),
    "empty_like": lambda lib: lib.empty_like(lib.ones(2, dtype=lib.float16)).shape,
    "ones_like_rg": lambda lib: lib.ones_like(lib.ones(2), requires_grad=True),
    "rand_dtype": lambda lib: (lib.rand(2, 3).dtype, lib.rand(2, 3).shape),
    "randn_dtype": lambda lib: lib.randn(2, dtype=lib.float64).dtype,
    "randint_dtype": lambda lib: lib.randint(0, 5, (3,)).dtype,
    "rand_like": lambda lib: lib.rand_like(lib.ones(2, dtype=lib.float64)).dtype,
    "randn_like": lambda lib: lib.randn_like(lib.ones(2, 2)).shape,
    "randn_rg": lambda lib: lib.randn(3, requires_grad=True).requires_grad,
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation(name):
    run_both(CREATION[name])


def test_random_ranges_and_seed():
    graphgrad.manual_seed(0)
    a = graphgrad.rand(1000)
    r = graphgrad.randint(2, 5, (1000,))
    assert 0 <= a.numpy().min() and a.numpy().max() < 1
    assert set(r.tolist()) == {2, 3, 4}
    graphgrad.manual_seed(0)
    assert graphgrad.rand(1000).tolist() == a.tolist()
    n = graphgrad.randn(10000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


def test_tensor_copies_from_tensor_and_warns():
    def prog(lib):
        src = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning):
            t = lib.tensor(src)
        return t
    run_both(prog)


@pytest.mark.parametrize("name", ["float16", "half", "bfloat16", "float32", "float", "float64",
                                  "double", "complex64", "cfloat", "complex128", "cdouble", "int8",
                                  "int16", "int32", "int64", "long", "uint8", "bool"])
def test_dtype_names(name):
    run_both(lambda lib: [getattr(lib, name), lib.zeros(1, dtype=getattr(lib, name)).dtype,
                          getattr(lib, name).is_floating_point, getattr(lib, name).is_complex])


def test_finfo():
    run_both(lambda lib: [lib.finfo(lib.float32).eps, lib.finfo(lib.float64).max,
                          lib.finfo(lib.float16).tiny, lib.finfo(lib.bfloat16).eps])


def test_is_floating_point_is_complex():
    run_both(lambda lib: [lib.is_floating_point(lib.ones(1)), lib.is_complex(lib.ones(1)),
                          lib.is_floating_point(lib.ones(1, dtype=lib.int64)),
                          lib.is_complex(lib.ones(1, dtype=lib.complex64))])


def test_raised_marker_is_comparable():
    # the harness itself: a program raising in both libraries compares by type only
    ours, theirs = run_both(lambda lib: lib.ones(2).view(3))
    assert isinstance(ours, Raised) and isinstance(theirs, Raised)


def test_iteration():
    run_both(lambda lib: list(lib.arange(3.0).requires_grad_() * 1))
    run_both(lambda lib: [t.tolist() for t in lib.arange(6).reshape(3, 2)])
    run_both(lambda lib: iter(lib.tensor(1.0)))


def test_base_of_views():
    def prog(lib):
        a = lib.ones(2, 3)
        v = a[0]
        w = v[1:]
        return a._base, v._base is a, w._base is a, a.t()._base is a, a.clone()._base
    run_both(prog)


def test_output_nr_of_multi_output_op():
    def prog(lib):
        parts = (lib.arange(6.0).reshape(3, 2).requires_grad_() * 1).unbind(0)
        return [(p.output_nr, p.grad_fn is parts[0].grad_fn) for p in parts]
    run_both(prog)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_and_mT(shape):
    run_both(lambda lib: lib.ones(shape, requires_grad=True).T)
    run_both(lambda lib: lib.ones(shape, requires_grad=True).mT)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_creation_size_forms(fn):
    run_both(lambda lib: getattr(lib, fn)(size=(2, 3)).shape)
    run_both(lambda lib: getattr(lib, fn)(()).shape)
    run_both(lambda lib: getattr(lib, fn)([2]).shape)
    run_both(lambda lib: getattr(lib, fn)())


def test_conjugate_transpose_properties():
    a = np.arange(6.0).reshape(2, 3) + 1j * np.arange(6.0).reshape(2, 3)

    def program(lib):
        t = lib.tensor(a, requires_grad=True)
        out = (t.mH, t.H, lib.tensor(np.ones((2, 2, 3))).mH)
        (t.mH.real.sum() + t.H.imag.sum()).backward()
        return out, t.grad
    run_both(program)


def test_mean_of_empty_is_nan_without_a_warning():
    import warnings

    def prog(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # PyTorch does not warn; NumPy would
            return (lib.ones(0).mean(), lib.ones(0, 3).mean(0), lib.ones(0, 3).mean(1),
                    lib.ones(0).mean(dtype=lib.float64), lib.ones(2, 0).mean((0, 1), keepdim=True))
    run_both(prog)


@pytest.mark.parametrize("make", ["transposed", "mT", "sliced", "expanded", "contiguous"])
def test_contiguous_makes_a_row_major_copy(make):
    """``contiguous()`` copies into row-major order (CloneBackward0) unless the tensor is
    already contiguous, when it is returned itself."""
    def prog(lib):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        v = {"transposed": lambda: x.transpose(0, 2), "mT": lambda: x.mT,
             "sliced": lambda: x[:, ::2], "expanded": lambda: x[:1].expand(3, 3, 4),
             "contiguous": lambda: x * 1}[make]()
        c = v.contiguous()
        (c * lib.arange(float(c.numel())).reshape(c.shape)).sum().backward()
        return c.is_contiguous(), c.stride(), c.detach(), c is v, c.grad_fn.name(), x.grad
    run_both(prog)
