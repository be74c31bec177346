"""PyTorch's conventions at singular points and NaN/inf inputs, in derivative rules.

Each test runs one program on graphgrad and on torch (``run_both``) and compares values,
gradients, double gradients (``create_graph``) and forward-mode tangents: the places where
a formula's 0 * inf or 0 / 0 would give NaN where PyTorch's rule selects or skips a term.
"""
from __future__ import annotations

import math

import pytest

from tests.conftest import run_both

INF = math.inf
NAN = math.nan
POINTS = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, NAN, INF, -INF]


def _grads(f, points=POINTS, dtype="float64", node=True):
    """A program: f's gradient, its create_graph gradient and that one's gradient.

    ``node=False``: the create_graph gradient's node name is not compared (where PyTorch's
    double-backward formula is built from other ops than graphgrad's)."""
    def program(T):
        dt = getattr(T, dtype)
        x = T.tensor(points, dtype=dt, requires_grad=True)
        g, = T.autograd.grad(f(T, x).sum(), x)
        g1, = T.autograd.grad(f(T, x).sum(), x, create_graph=True)
        w = T.arange(len(points), dtype=dt)
        g2 = T.autograd.grad((g1 * w).sum(), x, allow_unused=True)[0] \
            if g1.requires_grad else None
        if g2 is not None:
            g2 = g2 + T.zeros_like(g2)  # (PyTorch's ZeroTensor has no values to compare)
        return g, (g1 if node else (g1.detach(), g1.requires_grad)), g2
    return program


def _jvp(f, points=POINTS, dtype="float64"):
    def program(T):
        dt = getattr(T, dtype)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            x = fa.make_dual(T.tensor(points, dtype=dt),
                             T.linspace(0.5, 1.5, len(points), dtype=dt))
            return fa.unpack_dual(f(T, x)).tangent
    return program


# ---------------------------------------------------------------- pow (issue 16, s1.1, s1.8, s2)
POW_CASES = {
    "x.pow(zeros)": lambda T, x: x.pow(T.zeros(len(POINTS), dtype=x.dtype)),
    "x.pow(zero 0-d)": lambda T, x: x.pow(T.zeros((), dtype=x.dtype)),
    "x ** x": lambda T, x: x ** x,
    "x ** 0": lambda T, x: x ** 0,
    "x ** 2": lambda T, x: x ** 2,
    "0. ** x": lambda T, x: 0.0 ** x,
    "2. ** x": lambda T, x: 2.0 ** x,
    "(-2.) ** x": lambda T, x: (-2.0) ** x,
    "zeros ** x": lambda T, x: T.zeros(len(POINTS), dtype=x.dtype) ** x,
}


@pytest.mark.parametrize("name", POW_CASES)
def test_pow_gradients_at_singular_points(name):
    run_both(_grads(POW_CASES[name]))


@pytest.mark.parametrize("name", POW_CASES)
def test_pow_tangents_at_singular_points(name):
    run_both(_jvp(POW_CASES[name]))


def test_pow_zero_exponent_gradient_is_zero_at_zero_base():
    def program(T):
        x = T.zeros(3, requires_grad=True)
        x.pow(T.zeros(3)).sum().backward()
        b = T.zeros(3, requires_grad=True)
        e = T.zeros(3, requires_grad=True)
        (b ** e).sum().backward()
        y = T.zeros(3, requires_grad=True)
        (y ** y).sum().backward()
        return x.grad, b.grad, e.grad, y.grad
    run_both(program)


def test_pow_of_both_tensors_requiring_grad_double_backward_and_jvp():
    def program(T):
        b = T.tensor([0.0, 0.0, 2.0, -1.0, 0.5], dtype=T.float64, requires_grad=True)
        e = T.tensor([0.0, 1.0, 0.0, 2.0, -1.0], dtype=T.float64, requires_grad=True)
        gb, ge = T.autograd.grad((b ** e).sum(), (b, e), create_graph=True)
        h = T.autograd.grad((gb + ge).sum(), (b, e), allow_unused=True)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            bd = fa.make_dual(b.detach(), T.ones(5, dtype=T.float64))
            ed = fa.make_dual(e.detach(), T.full((5,), 0.5, dtype=T.float64))
            t = fa.unpack_dual(bd ** ed).tangent
        return gb, ge, h, t
    run_both(program)


def test_pow_negative_real_base_complex_exponent_gradient_is_finite():
    def program(T):
        e = T.tensor([1 + 1j, 2 + 0.5j], dtype=T.complex128, requires_grad=True)
        T.pow(-T.ones(2, dtype=T.float64), e).abs().sum().backward()
        return e.grad
    run_both(program)


def test_pow_number_base_complex_exponent_gradient():
    def program(T):
        e = T.tensor([1 + 1j, 0.5 + 0j, 2 + 0j], dtype=T.complex128, requires_grad=True)
        out = []
        for base in (-2.0, 0.0, 3.0):
            g, = T.autograd.grad(T.pow(base, e).abs().sum(), e)
            out.append(g)
        return out
    run_both(program)


def test_pow_real_base_complex_exponent_create_graph_and_forward_mode():
    """Was NotImplementedError "ge_cpu" (a complex exponent compared with 0)."""
    def program(T):
        x = T.tensor([-1.0, 0.0, 2.0], dtype=T.float64, requires_grad=True)
        e = T.tensor([1 + 1j, 2 + 0j, 2 - 0.5j], dtype=T.complex128, requires_grad=True)
        gx, ge = T.autograd.grad(T.pow(x, e).abs().sum(), (x, e), create_graph=True)
        h = T.autograd.grad((gx.sum() + ge.abs().sum()), (x, e), allow_unused=True)
        gs, = T.autograd.grad(T.pow(0.0, e).abs().sum(), e, create_graph=True)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            ed = fa.make_dual(e.detach(), T.ones(3, dtype=T.complex128))
            t1 = fa.unpack_dual(T.pow(x.detach(), ed)).tangent
            t2 = fa.unpack_dual(T.pow(2.0, ed)).tangent
            t3 = fa.unpack_dual(T.pow(0.0, ed)).tangent
        # (gx's node: PyTorch takes the real part of a complex gradient as a select of
        # view_as_real, graphgrad as real(); not what this test is about)
        return (gx.detach(), gx.requires_grad), ge, h, gs, t1, t2, t3
    run_both(program)


# ---------------------------------------------------------------- relu family (s1.2, s1.11, s2)
ACTIVATIONS = {
    "relu": lambda T, x: T.relu(x),
    "relu_": lambda T, x: x.clone().relu_(),
    "F.relu": lambda T, x: T.nn.functional.relu(x),
    "F.relu inplace": lambda T, x: T.nn.functional.relu(x.clone(), inplace=True),
    "leaky_relu": lambda T, x: T.nn.functional.leaky_relu(x, 0.2),
    "leaky_relu_": lambda T, x: T.nn.functional.leaky_relu(x.clone(), 0.1, inplace=True),
    "elu": lambda T, x: T.nn.functional.elu(x, 0.7),
    "elu_": lambda T, x: T.nn.functional.elu(x.clone(), 1.3, inplace=True),
    "sqrt(relu)": lambda T, x: T.sqrt(T.relu(x)),
    "log(relu)": lambda T, x: T.log(T.relu(x)),
    "sqrt(relu_)": lambda T, x: T.sqrt(x.clone().relu_()),
    "sqrt(F.relu)": lambda T, x: T.sqrt(T.nn.functional.relu(x)),
}


def _points(name):
    # PyTorch's elu gradient at NaN depends on the CPU: NaN from its vectorised loop, the
    # gradient itself from its scalar loop, which a 10-element float64 tensor takes entirely
    # on an AVX-512 CPU but only in part on an AVX2 one (test_elu_gradient_at_nan)
    return [p for p in POINTS if p == p] if name.startswith("elu") else POINTS


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradients_at_singular_points_and_nan(name):
    """relu's gradient selects (0 where the result is <= 0, the gradient elsewhere, NaN
    included), it does not multiply by a 0/1 mask; under create_graph it requires grad."""
    run_both(_grads(ACTIVATIONS[name], _points(name)))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_tangents_at_singular_points_and_nan(name):
    run_both(_jvp(ACTIVATIONS[name], _points(name)))


@pytest.mark.parametrize("inplace", [False, True])
def test_elu_gradient_at_nan(inplace):
    # 32 elements: PyTorch's vectorised loop covers them on AVX2 and AVX-512 CPUs alike
    # (and its default, unvectorised capability gives NaN too)
    def program(T):
        x = T.tensor([-1.0, NAN, 0.5, 2.0] * 8, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.elu(x.clone(), 0.7, inplace=True) if inplace else \
            T.nn.functional.elu(x, 0.7)
        g, = T.autograd.grad(y.sum(), x)
        return g
    run_both(program)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "sqrt(relu)"])
def test_activation_gradients_keep_dtype(name, dtype):
    run_both(_grads(ACTIVATIONS[name], _points(name), dtype=dtype))


def test_relu_and_leaky_relu_gradient_under_create_graph_can_be_differentiated():
    """Was: the create_graph gradient did not require grad, so grad() of it raised."""
    def program(T):
        out = []
        for f in (T.relu, T.nn.functional.leaky_relu, T.nn.functional.elu):
            x = T.tensor([-1.0, 2.0, 0.0], requires_grad=True)
            g, = T.autograd.grad(f(x).sum(), x, create_graph=True)
            out.append((g, T.autograd.grad(g.sum(), x)))
        return out
    run_both(program)


def test_relu_at_nan_passes_the_gradient():
    def program(T):
        x = T.tensor([NAN, -1.0, 1.0], requires_grad=True)
        T.relu(x).sum().backward()
        return x.grad
    run_both(program)


# ---------------------------------------------------------------- forward mode (s1.7)
def test_tangent_of_product_with_a_number_at_infinity():
    run_both(_jvp(lambda T, x: x * 0.5))
    run_both(_jvp(lambda T, x: 0.5 * x))
    run_both(_jvp(lambda T, x: x / 2.0))
    run_both(_jvp(lambda T, x: x * T.tensor(0.5, dtype=x.dtype)))
    run_both(_jvp(lambda T, x: T.tensor(3.0, dtype=x.dtype) / x))


def test_masked_softmax_tangent_is_finite():
    def program(T):
        fa = T.autograd.forward_ad
        with fa.dual_level():
            s = fa.make_dual(T.tensor([1.0, 2.0, 3.0]), T.ones(3))
            mask = T.tensor([False, True, False])
            y = T.softmax(s.masked_fill(mask, -INF) * 0.5, 0)
            return fa.unpack_dual(y).tangent
    run_both(program)


# ---------------------------------------------------------------- extremes with NaN (s1.11)
EXTREMES = {
    "max()": lambda T, x: x.max(),
    "min()": lambda T, x: x.min(),
    "amax": lambda T, x: x.amax(0),
    "amin": lambda T, x: x.amin(0),
    "max(dim)": lambda T, x: x.max(0)[0],
    "min(dim)": lambda T, x: x.min(0)[0],
    "maximum": lambda T, x: T.maximum(x, T.zeros((), dtype=x.dtype)),
    "minimum": lambda T, x: T.minimum(x, T.zeros((), dtype=x.dtype)),
}


@pytest.mark.parametrize("points", [[1.0, NAN, 2.0], [NAN, 3.0, NAN], [2.0, 2.0, 1.0],
                                    [-INF, 0.0, INF]])
@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_gradients_and_tangents_with_nan(name, points):
    """max()/min() of a tensor holding NaN: the gradient goes to the NaNs (was NaN
    everywhere); maximum/minimum's tangent at a NaN is the other operand's."""
    run_both(_grads(EXTREMES[name], points))
    run_both(_jvp(EXTREMES[name], points))


def test_max_gradient_lands_on_the_nan():
    def program(T):
        x = T.tensor([1.0, NAN, 2.0], requires_grad=True)
        x.max().backward()
        y = T.tensor([1.0, NAN, 2.0], requires_grad=True)
        y.min().backward()
        return x.grad, y.grad
    run_both(program)


# ---------------------------------------------------------------- index errors (s2)
INDEX_ERRORS = {
    "take_along_dim not broadcastable":
        lambda T: T.take_along_dim(T.ones(3, 4), T.zeros(2, 3, dtype=T.long), 1),
    "take_along_dim size-0 dim": lambda T: T.take_along_dim(T.ones(3, 0),
                                                            T.zeros(3, 1, dtype=T.long), 1),
    "take_along_dim size-0 other dim": lambda T: T.take_along_dim(
        T.ones(0, 4), T.zeros(1, 1, dtype=T.long), 0),
    "take_along_dim flat out of range": lambda T: T.take_along_dim(T.ones(3, 4),
                                                                   T.tensor([20])),
    "gather size-0 dim": lambda T: T.gather(T.ones(3, 0), 1, T.zeros(3, 1, dtype=T.long)),
    "gather out of range": lambda T: T.gather(T.ones(3, 4), 1, T.full((3, 1), 7)),
    "index_select size-0 dim 0": lambda T: T.index_select(T.ones(0, 4), 0, T.tensor([0])),
    "index_select size-0 dim 1": lambda T: T.index_select(T.ones(4, 0), 1, T.tensor([0])),
    "index_select size-0 input": lambda T: T.index_select(T.ones(0, 4), 1, T.tensor([7])),
    "index_select dim 1": lambda T: T.index_select(T.ones(2, 3), 1, T.tensor([3])),
    "index_select dim 1 negative": lambda T: T.index_select(T.ones(3, 4), 1, T.tensor([-1])),
    "index_select dim 0": lambda T: T.index_select(T.ones(3, 4), 0, T.tensor([3])),
    "index_select dim 0 view": lambda T: T.index_select(T.ones(4, 3, 2)[:, :, 0], 0,
                                                        T.tensor([7])),
    "index_select 1-D": lambda T: T.index_select(T.ones(3), 0, T.tensor([3])),
    "index_select 1-D size 0": lambda T: T.index_select(T.ones(0), 0, T.tensor([0])),
    "index_select empty index": lambda T: T.index_select(T.ones(0, 4), 0,
                                                         T.tensor([], dtype=T.long)),
}


@pytest.mark.parametrize("name", INDEX_ERRORS)
def test_index_errors_have_pytorchs_type(name):
    """take_along_dim raised NumPy's ValueError for indices that do not broadcast;
    index_select raised IndexError where PyTorch's kernel raises RuntimeError."""
    run_both(INDEX_ERRORS[name])


# ---------------------------------------------------------------- more rules at singular points
MORE = {
    "x ** 0.5": lambda T, x: x ** 0.5,
    "x ** -0.5": lambda T, x: x ** -0.5,
    "acosh": lambda T, x: T.acosh(x),
    "cumprod": lambda T, x: T.cumprod(x, 0),
    "cumprod reversed": lambda T, x: T.cumprod(x.flip(0), 0),
    "vector_norm inf": lambda T, x: T.linalg.vector_norm(x, float("inf")),
    "vector_norm -inf": lambda T, x: T.linalg.vector_norm(x, -float("inf")),
    "vector_norm 1": lambda T, x: T.linalg.vector_norm(x, 1),
    "smooth_l1_loss": lambda T, x: T.nn.functional.smooth_l1_loss(x, T.zeros_like(x)),
    "smooth_l1_loss beta": lambda T, x: T.nn.functional.smooth_l1_loss(x, T.zeros_like(x),
                                                                      beta=0.5),
    "binary_cross_entropy of NaN": lambda T, x: T.nn.functional.binary_cross_entropy(
        T.sigmoid(x), T.full_like(x, 0.3)),
}


@pytest.mark.parametrize("name", MORE)
def test_more_rules_at_singular_points(name):
    """x ** -0.5 is rsqrt (NaN at -inf); acosh's real gradient is 1/sqrt(x^2 - 1); cumprod's
    gradient before a zero does not see an inf/NaN after it; inf-norms send the gradient to
    NaNs with sgn(NaN) = 0; smooth_l1's second derivative is 0 at |d| == beta; BCE refuses
    NaN inputs."""
    run_both(_grads(MORE[name], node=not name.startswith(("cumprod", "smooth"))))
    run_both(_jvp(MORE[name]))


@pytest.mark.parametrize("points", [[2.0, 0.0, 3.0, 0.0, INF, 1.5], [0.0, NAN, 2.0, 0.0, 5.0],
                                    [1.0, 2.0, 0.0, -INF, 0.0], [3.0, 0.5, -2.0, 0.0]])
def test_cumprod_gradient_with_zeros_and_non_finite_values(points):
    def program(T):
        x = T.tensor([points, points[::-1]], dtype=T.float64, requires_grad=True)
        g0, = T.autograd.grad(T.cumprod(x, 1).sum(), x)
        g1, = T.autograd.grad((T.cumprod(x.t(), 0) * T.arange(2.0, dtype=T.float64)).sum(), x)
        return g0, g1
    run_both(program)


# ---------------------------------------------------------------- two inputs (a sweep's finds)
A2 = [[0.0, 1.0, -INF, 2.0], [0.0, 0.0, 3.0, -1.0], [NAN, 1.0, 2.0, 0.0],
      [-INF, -INF, -INF, -INF], [INF, 1.0, 0.0, -2.0], [1e-30, 0.0, -0.0, 5.0]]
B2 = [[0.0, 0.0, 1.0, INF], [0.0, 2.0, 0.0, -1.0], [1.0, NAN, 0.0, 0.0],
      [0.0, -INF, 2.0, 0.0], [INF, 0.0, -INF, 1.0], [0.0, 1.0, 0.0, 0.0]]
PAIRS = {
    "clamp(min=tensor)": lambda T, a, b: T.clamp(a, min=b),
    "clamp(max=tensor)": lambda T, a, b: T.clamp(a, max=b),
    "clamp(tensor, tensor)": lambda T, a, b: T.clamp(a, b - 1, b + 1),
    "clamp_min(tensor)": lambda T, a, b: T.clamp_min(a, b),
    "clamp_max(tensor)": lambda T, a, b: T.clamp_max(a, b),
    "prod()": lambda T, a, b: a.prod(),
    "prod(dim)": lambda T, a, b: a.prod(1),
    "vector_norm 0.5": lambda T, a, b: T.linalg.vector_norm(a, 0.5, dim=1),
    "vector_norm 3": lambda T, a, b: T.linalg.vector_norm(a, 3, dim=1),
    "mse_loss": lambda T, a, b: T.nn.functional.mse_loss(a, b, reduction="none"),
    "mse_loss sum": lambda T, a, b: T.nn.functional.mse_loss(a, b, reduction="sum"),
    "maximum": lambda T, a, b: T.maximum(a, b),
    "minimum": lambda T, a, b: T.minimum(a, b),
    "a * b": lambda T, a, b: a * b,
    "a / b": lambda T, a, b: a / b,
    "a ** b": lambda T, a, b: a ** b,
    "atan2": lambda T, a, b: T.atan2(a, b),
    "hypot": lambda T, a, b: T.hypot(a, b),
}


@pytest.mark.parametrize("name", PAIRS)
def test_two_input_gradients_and_tangents_at_singular_points(name):
    f = PAIRS[name]

    def grads(T):
        a = T.tensor(A2, dtype=T.float64, requires_grad=True)
        b = T.tensor(B2, dtype=T.float64, requires_grad=True)
        g = T.autograd.grad(f(T, a, b).sum(), (a, b), allow_unused=True)
        g1 = T.autograd.grad(f(T, a, b).sum(), (a, b), allow_unused=True, create_graph=True)
        w = T.arange(24, dtype=T.float64).view(6, 4)
        terms = [(x * w).sum() for x in g1 if x is not None and x.requires_grad]
        g2 = T.autograd.grad(sum(terms), (a, b), allow_unused=True) if terms else None
        if g2 is not None:  # (PyTorch's ZeroTensor has no values to compare)
            g2 = [None if x is None else x + T.zeros_like(x) for x in g2]
        return g, g2

    def tangents(T):
        fa = T.autograd.forward_ad
        with fa.dual_level():
            a = fa.make_dual(T.tensor(A2, dtype=T.float64),
                             T.linspace(0.5, 1.5, 24, dtype=T.float64).view(6, 4))
            b = fa.make_dual(T.tensor(B2, dtype=T.float64),
                             T.linspace(-1.0, 1.0, 24, dtype=T.float64).view(6, 4))
            t1 = fa.unpack_dual(f(T, a, b)).tangent
            t2 = fa.unpack_dual(f(T, a, T.tensor(B2, dtype=T.float64))).tangent
            t3 = fa.unpack_dual(f(T, T.tensor(A2, dtype=T.float64), b)).tangent
        return t1, t2, t3
    run_both(grads)
    run_both(tangents)


@pytest.mark.parametrize("dtypes", [("complex128", "complex128"), ("float64", "complex128"),
                                    ("complex128", "float64"), ("float32", "float64"),
                                    ("float64", "int64")])
def test_pow_of_tensors_mixed_kinds_values_gradients_and_tangents(dtypes):
    """Complex 0 ** 0 is NaN in PyTorch (exp(0 * log 0)); a real input's JVP term is real
    (PyTorch projects each input's term, handle_r_to_c, also in forward mode)."""
    db, de = dtypes

    def program(T):
        complex_e = de.startswith("complex")
        b = T.tensor([0.0, 2.0, -1.5, 3.0], dtype=getattr(T, db))
        e = T.tensor([0.0, 1.0 + (1j if complex_e else 0), 2.0, -0.5] if de != "int64"
                     else [0, 1, 2, 3], dtype=getattr(T, de))
        ins = [t.requires_grad_() for t in (b, e) if t.is_floating_point() or t.is_complex()]
        r = T.pow(b, e)
        g = T.autograd.grad(r.abs().sum(), ins)
        fa = T.autograd.forward_ad
        with fa.dual_level():
            bd = fa.make_dual(b.detach(), T.ones_like(b))
            ed = fa.make_dual(e.detach(), T.ones_like(e) * 0.5) if e.requires_grad else e
            t = fa.unpack_dual(T.pow(bd, ed)).tangent
            t_e = fa.unpack_dual(T.pow(b.detach(), ed)).tangent if e.requires_grad else None
        return r.detach(), g, t, t_e
    run_both(program)


def test_number_base_complex_exponent_zero_to_the_zero():
    def program(T):
        e = T.tensor([0j, 1 + 0j, 1j, 2 + 0j], dtype=T.complex128)
        return T.pow(0.0, e), T.pow(0j, e), T.pow(T.zeros(4, dtype=T.complex128), e)
    run_both(program)


# ---------------------------------------------------------------- x ** 2 inside a derivative
SQUARE_INSIDE = {
    "erf": lambda T, x: T.erf(x),
    "erfc": lambda T, x: T.erfc(x),
    "erfinv": lambda T, x: T.erfinv(x / 2e308),
    "asinh": lambda T, x: T.asinh(x),
    "atanh": lambda T, x: T.atanh(x),
    "tan": lambda T, x: T.tan(x),
}


@pytest.mark.parametrize("dtype, big", [("float64", 1.7976931348623157e308),
                                        ("float32", 3.4028234663852886e38)])
@pytest.mark.parametrize("name", SQUARE_INSIDE)
def test_double_backward_of_a_square_in_the_derivative_at_the_largest_values(name, dtype, big):
    """PyTorch's derivatives of erf, erfc, erfinv, asinh, atanh and tan take x.pow(2) (of
    x, erfinv(x), tan(x)), whose gradient 2 x overflows at the largest finite values:
    their double backward is NaN there (0 * inf), as nan_to_num's replacements of +-inf
    reach it (fuzz seed 758830). graphgrad's x * x gave 0 x + 0 x = 0."""
    points = [-big, big, -1.0, 0.5, 0.0, 2.0, NAN, INF, -INF]
    run_both(_grads(SQUARE_INSIDE[name], points, dtype))
    run_both(_jvp(SQUARE_INSIDE[name], points, dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("scale", [0.0, 1.0, INF])
def test_sigmoid_double_backward_with_an_infinite_incoming_gradient(dtype, scale):
    """sigmoid's gradient is PyTorch's sigmoid_backward op (SigmoidBackwardBackward0), whose
    derivative by the result is grad * (1 - 2 r): an infinite incoming gradient gives inf;
    graphgrad's recorded grad * r * (1 - r) gave inf - inf = NaN (fuzz seed 788695)."""
    f = (lambda T, x: T.sigmoid(x) / scale) if scale != 1.0 else (lambda T, x: T.sigmoid(x))
    points = [-0.77, -1.02, 0.3, 2.0, 0.0, 40.0, NAN, INF, -INF]
    run_both(_grads(f, points, dtype))
    run_both(_jvp(f, points, dtype))


@pytest.mark.parametrize("alpha", [1.0, 2.0, 0.5])
def test_elu_keeps_the_sign_of_a_negative_zero(alpha):
    """elu(-0.0) is alpha * expm1(-0.0) = -0.0, as PyTorch's; atan2 of it then gives -pi,
    not 0 (fuzz seed 800939)."""
    def program(T):
        x = T.tensor([-0.0, 0.0, -1.0, 2.0, NAN, -INF], dtype=T.float64)
        e = T.nn.functional.elu(x, alpha=alpha)
        return e, T.atan2(e, e), T.nn.functional.elu(x.clone(), alpha=alpha, inplace=True)
    run_both(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_with_an_exponent_half_broadcast_along_rows(dtype):
    """x ** e with e = 0.5 broadcast along a row is PyTorch's elementwise pow ((-inf) **
    0.5 = inf, (-0.0) ** 0.5 = 0.0); NumPy's loop took the row's constant exponent as sqrt
    (NaN, -0.0) (fuzz seed 897886)."""
    def program(T):
        dt = getattr(T, dtype)
        x = T.tensor([-0.0, -INF, -0.385, 0.038], dtype=dt)
        e = T.tensor([[NAN], [0.5]], dtype=dt)
        e3 = T.tensor([[NAN], [0.5], [2.0]], dtype=dt)
        return x ** e, x ** e3, T.pow(x, e[1:2]), T.pow(x.reshape(4, 1), e.reshape(1, 2))
    run_both(program)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("scale", [1.0, INF])
@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 3.0)])
def test_softplus_double_backward_as_pytorchs(dtype, scale, beta, threshold):
    """softplus's gradient is PyTorch's softplus_backward op (SoftplusBackwardBackward0),
    whose derivative by the input multiplies by the mask x * beta < threshold: an infinite
    incoming gradient above the threshold gives NaN there, where graphgrad's where() gave
    0 (fuzz seeds 879117, 888654)."""
    def f(T, x):
        return T.nn.functional.softplus(x, beta, threshold) * scale
    points = [-3.0, -0.5, 0.0, 0.5, 1.5, 2.5, 10.0, 19.5, 20.0, 25.0, NAN, INF, -INF]
    run_both(_grads(f, points, dtype))
    run_both(_jvp(f, points, dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_cumsum_of_a_negative_zero_is_positive_zero(dtype):
    """PyTorch's running sum starts from 0, so cumsum(-0.0) is +0.0 (NumPy copied the
    first -0.0 as is, and atan2 of it gave -pi where PyTorch's is pi: fuzz seed 1080543);
    a 0-d tensor's cumsum is the tensor itself, -0.0."""
    def program(T):
        dt = getattr(T, dtype)
        x = T.tensor([[-0.0], [-0.0], [1.0]], dtype=dt)
        c = T.cumsum(x, -2), T.cumsum(x, -1), T.cumsum(T.tensor(-0.0, dtype=dt), 0)
        if dtype.startswith("complex"):
            return c
        return c + (T.atan2(c[1], T.full_like(c[1], -1.0)),)
    run_both(program)
