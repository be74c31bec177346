"""HIPS autograd's names in graphgrad.func: elementwise_grad, value_and_grad, jacobian and
the ``argnum=`` of grad/hessian.  Expected values are HIPS autograd's semantics written by
hand (autograd/differential_operators.py: grad and value_and_grad are the VJP with 1 of a
one-element output, elementwise_grad the VJP with ones, jacobian ``out.shape + in.shape``,
hessian ``jacobian(jacobian(f))``, results typed like the arguments), and torch.func's
results where a torch.func transform computes the same thing."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from graphgrad.func import elementwise_grad, grad, hessian, jacobian, value_and_grad
from tests.conftest import HAVE_TORCH, NO_TORCH, torch

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason=NO_TORCH)

RNG = np.random.default_rng(2021)
X = RNG.standard_normal(3)
Y = RNG.standard_normal(3)
M = RNG.standard_normal((2, 3))


def tanh(x):   # HIPS autograd's tutorial function
    y = (-2.0 * x).exp()
    return (1.0 - y) / (1.0 + y)


def f2(x, y):
    return (x.sin() * y).sum()


# ----------------------------------------------------------------- HIPS semantics by hand
def test_grad_of_a_python_float_is_a_numpy_scalar():
    g = grad(tanh)(1.0)
    assert type(g) is np.float64
    assert g == pytest.approx(1 - np.tanh(1.0) ** 2, rel=1e-14)
    # higher derivatives by nesting, as in HIPS's tutorial
    g3 = grad(grad(grad(tanh)))(0.5)
    t = np.tanh(0.5)
    assert g3 == pytest.approx(-2 * (1 - t ** 2) * (1 - 3 * t ** 2), rel=1e-12)
    g32 = grad(lambda x: x * x)(np.float32(3.0))
    assert type(g32) is np.float32 and g32 == 6.0


def test_results_are_typed_like_the_arguments():
    g = grad(lambda x: (x ** 2).sum())(X)
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, 2 * X)
    gt = grad(lambda x: (x ** 2).sum())(graphgrad.tensor(X))
    assert isinstance(gt, graphgrad.Tensor)
    np.testing.assert_allclose(gt.numpy(), 2 * X)
    # pytrees: a dict of floats gives a dict of NumPy scalars
    gd = grad(lambda d: d["a"] * d["b"])({"a": 2.0, "b": 3.0})
    assert gd == {"a": 3.0, "b": 2.0} and type(gd["a"]) is np.float64
    # non-differentiated Python floats stay floats (hyperparameters)
    seen = []

    def f(x, c):
        seen.append(type(c))
        return (x * c).sum()
    np.testing.assert_allclose(grad(f)(X, 0.5), np.full(3, 0.5))
    assert seen == [float]


@pytest.mark.parametrize("how", ["positional", "argnum", "argnums"])
def test_argnum_int(how):
    kw = {"positional": {}, "argnum": {"argnum": 1}, "argnums": {"argnums": 1}}[how]
    g = grad(f2, 1, **{}) if how == "positional" else grad(f2, **kw)
    np.testing.assert_allclose(g(X, Y), np.sin(X))


@pytest.mark.parametrize("argnum", [(0, 1), [0, 1], (1, 0)])
def test_argnum_tuple_or_list_gives_a_tuple(argnum):
    gs = grad(f2, argnum=argnum)(X, Y)
    assert type(gs) is tuple and len(gs) == 2
    want = {0: np.cos(X) * Y, 1: np.sin(X)}
    for g, a in zip(gs, argnum):
        np.testing.assert_allclose(g, want[a])
    v, gs = value_and_grad(f2, argnum)(X, Y)
    assert type(gs) is tuple
    np.testing.assert_allclose(gs[0], want[argnum[0]])


def test_argnum_and_argnums_together_raise():
    with pytest.raises(TypeError, match="both argnums=1 and argnum=0"):
        grad(f2, 1, argnum=0)
    with pytest.raises(TypeError, match="both argnums"):
        hessian(f2, argnums=1, argnum=1)
    with pytest.raises(TypeError, match="argnum must be an int"):
        jacobian(f2, argnum="0")


def test_value_and_grad():
    v, g = value_and_grad(lambda x: (x ** 2).sum())(np.array([1.0, 2.0]))
    assert v == 5.0 and type(v) is np.float64
    np.testing.assert_allclose(g, [2.0, 4.0])
    # a one-element output of any shape keeps its shape, as in HIPS
    v, g = value_and_grad(lambda x: x ** 2)(np.array([3.0]))
    assert v.shape == (1,) and v[0] == 9.0
    np.testing.assert_allclose(g, [6.0])
    # keyword arguments go to the function
    v, g = value_and_grad(lambda x, scale=1.0: (scale * x * x).sum())(X, scale=3.0)
    assert v == pytest.approx(3 * (X * X).sum())
    np.testing.assert_allclose(g, 6 * X)
    # Tensors stay Tensors
    v, g = value_and_grad(lambda x: x.exp().sum())(graphgrad.tensor(X))
    assert isinstance(v, graphgrad.Tensor) and isinstance(g, graphgrad.Tensor)
    with pytest.raises(TypeError, match=r"shape \(3,\).*scalar-output.*elementwise_grad"):
        value_and_grad(lambda x: x * 2)(X)


def test_elementwise_grad():
    # an elementwise function: its derivative at each element
    g = elementwise_grad(tanh)(X)
    np.testing.assert_allclose(g, 1 - np.tanh(X) ** 2, rtol=1e-13)
    # otherwise the sum of the Jacobian's rows (the gradient of the sum of the outputs)
    g = elementwise_grad(lambda x: graphgrad.outer(x, x))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [6.0, 6.0])
    g = elementwise_grad(lambda m: m @ m.T)(M)
    J = np.zeros((2, 2, 2, 3))
    for i in range(2):
        for j in range(2):
            J[i, j, i] += M[j]
            J[i, j, j] += M[i]
    np.testing.assert_allclose(g, J.sum((0, 1)))
    # pytree outputs are all summed; argnum tuples give tuples
    g = elementwise_grad(lambda x: (x.sin(), {"b": x * 2}))(X)
    np.testing.assert_allclose(g, np.cos(X) + 2)
    gx, gy = elementwise_grad(lambda x, y: x * y, (0, 1))(X, Y)
    np.testing.assert_allclose(gx, Y)
    np.testing.assert_allclose(gy, X)
    assert type(elementwise_grad(lambda x: x ** 3)(2.0)) is np.float64
    with pytest.raises(TypeError, match="real-output"):
        elementwise_grad(lambda x: x * 1j)(X)
    with pytest.raises(TypeError, match="returned float"):
        elementwise_grad(lambda x: 1.0)(X)


def test_elementwise_grad_under_vmap():
    xs = RNG.standard_normal((4, 3))
    got = graphgrad.vmap(elementwise_grad(lambda x: x.sin() * x))(graphgrad.tensor(xs))
    np.testing.assert_allclose(got.numpy(), np.cos(xs) * xs + np.sin(xs))


def test_jacobian_shapes_and_values():
    j = jacobian(lambda x: graphgrad.outer(x, x))(np.array([1.0, 2.0]))
    assert j.shape == (2, 2, 2)
    np.testing.assert_allclose(j[:, :, 0], [[2.0, 2.0], [2.0, 0.0]])
    j = jacobian(lambda m: m.sum(1))(M)
    assert j.shape == (2, 2, 3)
    np.testing.assert_allclose(j, np.stack([np.stack([np.ones(3), np.zeros(3)]),
                                            np.stack([np.zeros(3), np.ones(3)])]))
    j = jacobian(lambda x: x ** 3)(2.0)
    assert j == 12.0 and type(j) is np.float64
    j = jacobian(lambda x, y: x * y, 1)(X, Y)
    np.testing.assert_allclose(j, np.diag(X))
    j = jacobian(lambda x, k=1: x ** k)(X, k=3)
    np.testing.assert_allclose(j, np.diag(3 * X ** 2))
    # jacobian of jacobian is the Hessian, as HIPS's hessian is defined
    f = lambda x: (x ** 3).sum() + x[0] * x[1]  # noqa: E731
    H = np.diag(6 * X)
    H[0, 1] = H[1, 0] = 1.0
    np.testing.assert_allclose(jacobian(jacobian(f))(X), H)
    np.testing.assert_allclose(hessian(f)(X), H)
    np.testing.assert_allclose(hessian(lambda x, y: (x * x * y).sum(), argnum=1)(X, Y),
                               np.zeros((3, 3)))


def test_hessian_argnum_of_a_vector_valued_function():
    h = hessian(lambda x: x ** 3, argnum=0)(X)
    want = np.zeros((3, 3, 3))
    for i in range(3):
        want[i, i, i] = 6 * X[i]
    assert h.shape == (3, 3, 3)
    np.testing.assert_allclose(h, want)


# ----------------------------------------------------------------- against torch.func
def _t(lib, a):
    return lib.tensor(np.array(a, dtype=np.float64))


@needs_torch
@pytest.mark.parametrize("argnum", [0, 1, (0, 1)])
def test_value_and_grad_is_grad_and_value_swapped(argnum):
    def run(lib, vg):
        return vg(f2, argnum)(_t(lib, X), _t(lib, Y))
    v, g = run(graphgrad, value_and_grad)
    tg, tv = torch.func.grad_and_value(f2, argnum)(_t(torch, X), _t(torch, Y))
    np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-14)
    for a, b in zip(g if isinstance(g, tuple) else (g,), tg if isinstance(tg, tuple) else (tg,)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)


@needs_torch
def test_elementwise_grad_is_vjp_with_ones():
    def f(m):
        return (m @ m.T).tanh()
    got = elementwise_grad(f)(_t(graphgrad, M))
    out, fn = torch.func.vjp(f, _t(torch, M))
    (want,) = fn(torch.ones_like(out))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)


@needs_torch
@pytest.mark.parametrize("argnum", [0, 1])
def test_jacobian_is_jacrev(argnum):
    def f(x, m):
        return (m * x).sin()
    got = jacobian(f, argnum)(_t(graphgrad, X), _t(graphgrad, M))
    want = torch.func.jacrev(f, argnum)(_t(torch, X), _t(torch, M))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)


@needs_torch
def test_grad_and_hessian_argnum_match_torch_argnums():
    def f(x, y):
        return (x.sin() * y * y).sum()
    for argnums in (1, (0, 1)):
        got = grad(f, argnum=argnums)(_t(graphgrad, X), _t(graphgrad, Y))
        want = torch.func.grad(f, argnums=argnums)(_t(torch, X), _t(torch, Y))
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)
    got = hessian(f, argnum=1)(_t(graphgrad, X), _t(graphgrad, Y))
    want = torch.func.hessian(f, argnums=1)(_t(torch, X), _t(torch, Y))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)
    # grad(f, 1) positionally is torch.func's argnums
    got = grad(f, 1)(_t(graphgrad, X), _t(graphgrad, Y))
    want = torch.func.grad(f, 1)(_t(torch, X), _t(torch, Y))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)


@needs_torch
def test_torch_funcs_signatures_are_kept():
    import inspect
    for name in ("grad", "hessian"):
        ours = inspect.signature(getattr(graphgrad.func, name)).parameters
        theirs = inspect.signature(getattr(torch.func, name)).parameters
        assert list(ours)[:len(theirs)] == list(theirs)
        assert list(ours)[len(theirs):] == ["argnum"]
        assert ours["argnum"].kind is inspect.Parameter.KEYWORD_ONLY
