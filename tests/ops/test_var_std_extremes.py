"""var and std at values near the largest finite float32 (nan_to_num's replacements of
+-inf, fuzz seed 779910): PyTorch accumulates float32 (and the parts of complex64) in
double and takes std's square root there before rounding, so std([1e38, -1e38]) is
1.41e38, not inf; its derivatives multiply the incoming value by 2 / dof first and by
x - mean last, so 2 (x - mean) does not overflow to inf, and a zero incoming value gives
0, not 0 * inf = NaN."""
import numpy as np
import pytest

import graphgrad

from tests.conftest import run_both

M = 3.4028234663852886e38
CASES = [([M, -M], [1.0, 1.0]), ([M, -M], [0.25, 0.5]), ([M, -M], [0.0, 0.0]),
         ([M, -M, 1.0], [1.0, -1.0, 0.0]), ([1e38, -1e38], [4.0, 3.0]),
         ([1e38, -1e38, 2e38, 0.5], [1.0, 2.0, 3.0, 4.0]), ([0.5, 1.5, -2.0], [1.0, 0.0, 2.0])]


def _values_and_grads(fn, xs, ws, dtype):
    def program(T):
        dt = getattr(T, dtype)
        x = T.tensor(xs, dtype=dt, requires_grad=True)
        out = getattr(x, fn)(0)
        ys = [out]
        for w in (1.0, 0.0, 0.5):
            ys.append(T.autograd.grad(getattr(x, fn)(0) * w, x)[0])
        g, = T.autograd.grad(getattr(x, fn)(0), x, create_graph=True)
        ys.append(T.autograd.grad((g * T.tensor(ws, dtype=dt)).sum(), x)[0])
        return ys
    return program


def _tangent(fn, xs, ts, dtype):
    def program(T):
        dt = getattr(T, dtype)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            x = fa.make_dual(T.tensor(xs, dtype=dt), T.tensor(ts, dtype=dt))
            return fa.unpack_dual(getattr(x, fn)(0)).tangent
    return program


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs, ts", CASES)
@pytest.mark.parametrize("fn", ["var", "std"])
def test_var_std_near_the_largest_float32(fn, xs, ts, dtype):
    run_both(_values_and_grads(fn, xs, ts, dtype))
    run_both(_tangent(fn, xs, ts, dtype))


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
def test_var_mean_std_mean_near_the_largest_float32(fn):
    run_both(lambda T: getattr(T, fn)(T.tensor([[1e38, -1e38, 2e38], [M, -M, 1.0]]), 1))


@pytest.mark.parametrize("fn", ["var", "std"])
def test_complex64_parts_accumulate_in_double(fn):
    run_both(lambda T: getattr(T.tensor([1e38 + 2e38j, -1e38 - 1j, 0.5j]), fn)())


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_std_double_backward_at_zero_std_is_nan_as_pytorchs(dtype):
    """std's gradient at std == 0 is (grad / (2 std)).masked_fill_(std == 0, 0) in PyTorch:
    the gradient of the incoming grad there is 0 / 0 = NaN under double backward (a
    product std * w: w's double gradient); graphgrad divided by 1 there and gave 0 (fuzz
    seed 765507). The first gradient and the tangent are 0."""
    def program(T):
        dt = getattr(T, dtype)
        x = T.tensor([1.0, 1.0], dtype=dt, requires_grad=True)
        w = T.tensor([2.0, 3.0], dtype=dt, requires_grad=True)
        gx, gw = T.autograd.grad((x.std(0) * w).abs().sum(), [x, w], create_graph=True)
        gg = T.autograd.grad((gx * T.tensor([1.0, 2.0], dtype=dt)).abs().sum(), [x, w],
                             allow_unused=True)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            d = fa.make_dual(x.detach(), T.tensor([float("inf"), 1.0], dtype=dt))
            t = fa.unpack_dual(d.std(0)).tangent
        return gx, gw, gg, t
    run_both(program)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_var_of_equal_values_as_pytorchs(dtype):
    """Rows of equal values: PyTorch's var over a dim with several results is Welford's,
    exactly 0 (graphgrad's mean of n copies could round off the value: var 1e-33, so
    std's gradient was finite instead of masked to 0); complex is var(real) + var(imag)
    (fuzz seed 852259: std of a complex 0-d tensor expanded to 3, gradient 0.29j vs 0).
    (complex64: PyTorch's float32 complex mean of the copies, in the gradient, is not
    NumPy's; not matched.)"""
    vals = [0.1, -1.3, 0.7, 2.9, 1e-3, 12.34]

    def program(T):
        dt = getattr(T, dtype)
        c = 1 + 0.7j if dtype.startswith("complex") else 1.0
        rows = T.tensor([[v * c] * 7 for v in vals], dtype=dt)
        x = T.tensor(0.5312662081767194 + 0.39076083062862316j if dtype.startswith("complex")
                     else 0.5312662081767194, dtype=dt, requires_grad=True)
        s = x.expand(3).std(-1)
        return rows.var(1), rows.t().var(0), rows.std(1), s, T.autograd.grad(s, x)[0]
    run_both(program)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, dim", [((4, 4), -1), ((7, 50), 0), ((5, 4, 6), (0, 2)),
                                        ((6, 128), 1), ((9,), 0), ((1, 300), 1)])
def test_var_rounds_as_pytorchs(torch, dtype, shape, dim):
    """var bit for bit: PyTorch's Welford steps for several results, two passes (squares
    summed in order) for one. A mask at a threshold then agrees: var of the floor'd row
    [0, 0, -2, 0] is 1 + 2 ulp in PyTorch, exactly 1 in graphgrad's two-pass form, so
    var > 1 differed (fuzz seed 941532); and Welford's overflow at the largest values is
    NaN where two passes gave inf (seed 804359)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    for values in (x, np.floor(x * 2), np.where(x > 1, 1.79e308, x) if dtype == "float64"
                   else x):
        a = graphgrad.tensor(values, dtype=getattr(graphgrad, dtype)).var(dim).numpy()
        b = torch.tensor(values, dtype=getattr(torch, dtype)).var(dim).numpy()
        np.testing.assert_array_equal(a, b)


def test_long_reductions_take_two_passes(torch):
    """Over more than _WELFORD_MAX reduced elements with several results, var is two passes
    (PyTorch's Welford steps would cost a Python step per element): the same values to
    float64's last bits, not bit for bit (docs/differences.md)."""
    from graphgrad.ops.kernels import reductions
    x = np.random.default_rng(4).standard_normal((6, 1000))
    assert x.shape[1] > reductions._WELFORD_MAX
    a = graphgrad.tensor(x).var(1).numpy()
    b = torch.tensor(x).var(1).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-14)
    rows = np.full((3, 1000), 0.1)  # equal values: exactly 0 on both paths, as PyTorch's
    assert not graphgrad.tensor(rows).var(1).numpy().any()
