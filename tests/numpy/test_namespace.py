"""graphgrad.numpy as a namespace: passthrough of NumPy's constants, types and
non-differentiable functions, NumPy-only functions refusing Tensors, and the covered
functions under graphgrad.func's transforms (NumPy in, NumPy out)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
from graphgrad.func import grad, hessian, jacfwd, jacrev, vmap

R = np.random.default_rng(50)
X = R.standard_normal((3, 4))


def test_constants_types_and_creation_pass_through():
    assert gnp.pi is np.pi and gnp.inf == np.inf and gnp.newaxis is None
    assert gnp.float64 is np.float64 and gnp.ndarray is np.ndarray and gnp.dtype is np.dtype
    assert gnp.random is not np.random and gnp.random.randn is np.random.randn
    rs = gnp.random.RandomState(0)
    assert isinstance(rs.randn(2), np.ndarray)
    for name, args in [("zeros", ((2, 3),)), ("ones", (3,)), ("eye", (3,)),
                       ("arange", (5,)), ("linspace", (0, 1, 5)), ("full", ((2,), 7.0))]:
        got = getattr(gnp, name)(*args)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, getattr(np, name)(*args))
    t = graphgrad.tensor(X)
    assert gnp.zeros(t.shape).shape == (3, 4)
    assert gnp.__version__ == np.__version__


def test_nondifferentiable_functions_read_tensor_data():
    t = graphgrad.tensor(X, requires_grad=True)
    assert gnp.shape(t) == (3, 4) and gnp.ndim(t) == 2 and gnp.size(t) == 12
    assert type(gnp.argmax(t, axis=1)) is np.ndarray
    np.testing.assert_array_equal(gnp.argsort(t), np.argsort(X))
    assert gnp.allclose(t, X) and gnp.zeros_like(t).shape == (3, 4)
    assert gnp.iscomplexobj(t) is False
    assert gnp.result_type(t, 1.0) == np.float64


def test_numpy_only_functions_refuse_tensors():
    np.testing.assert_allclose(gnp.interp(0.5, [0, 1], [0, 2]), 1.0)
    with pytest.raises(NotImplementedError, match="graphgrad.numpy.interp"):
        gnp.interp(graphgrad.tensor(0.5), [0, 1], [0, 2])
    with pytest.raises(AttributeError):
        gnp.no_such_name


def f(x):
    return gnp.sum(gnp.tanh(gnp.dot(x, X.T)) ** 2) + gnp.mean(gnp.exp(x), axis=(0, 1))


def test_grad_numpy_in_numpy_out():
    x = R.standard_normal((2, 4))
    g = grad(f)(x)
    assert type(g) is np.ndarray and g.shape == x.shape
    eps, v = 1e-6, R.standard_normal(x.shape)
    fd = (f(graphgrad.tensor(x + eps * v)) - f(graphgrad.tensor(x - eps * v))).item() / (2 * eps)
    np.testing.assert_allclose(np.sum(g * v), fd, rtol=1e-6)
    tg = grad(f)(graphgrad.tensor(x))
    assert isinstance(tg, graphgrad.Tensor)   # Tensors stay Tensors
    np.testing.assert_allclose(tg.numpy(), g)


def test_hessian_jacobians_and_vmap():
    x = R.standard_normal((2, 4))
    H = hessian(f)(x)
    assert type(H) is np.ndarray and H.shape == (2, 4, 2, 4)
    np.testing.assert_allclose(H.reshape(8, 8), H.reshape(8, 8).T, atol=1e-10)
    np.testing.assert_allclose(jacfwd(jacrev(f))(x), H, atol=1e-10)
    h = lambda v: gnp.linalg.norm(gnp.cumsum(gnp.sin(v)) * gnp.flip(v))   # noqa: E731
    per = vmap(grad(h))(graphgrad.tensor(X))
    for i in range(3):
        np.testing.assert_allclose(per[i].numpy(), grad(h)(X[i]), atol=1e-12)


def test_second_order_through_reductions_and_linalg():
    A = X @ X.T + 4 * np.eye(3)

    def nll(s):
        K = A * gnp.exp(s)
        L = gnp.linalg.cholesky(K)
        return gnp.sum(gnp.log(gnp.diag(L))) + gnp.var(gnp.linalg.solve(K, np.ones(3)), ddof=1)

    g = grad(nll)(np.array(0.3))
    gg = grad(grad(nll))(np.array(0.3))
    eps = 1e-5
    np.testing.assert_allclose(gg, (grad(nll)(np.array(0.3 + eps)) -
                                    grad(nll)(np.array(0.3 - eps))) / (2 * eps), rtol=1e-6)
    assert type(g) is np.ndarray and g.shape == ()


def test_data_dependent_functions_refuse_batched_values_under_vmap():
    """They read a Tensor's values (indices, masks): under vmap that is vmap's
    RuntimeError, as ``.numpy()`` of a batched value, never one example's data."""
    for f in (lambda v: gnp.partition(v, 1), lambda v: gnp.argmax(v),
              lambda v: gnp.take(v, gnp.argsort(v))):
        with pytest.raises(RuntimeError, match="vmap"):
            vmap(f)(graphgrad.tensor(X))


def test_arrays_meet_batched_tensors_through_operators():
    """``x - data`` inside vmap (and vmap(grad)) as outside: the batched operator declines
    the ndarray as the unbatched one does, and NumPy's reflected operator hands it back."""
    d = R.standard_normal(4)
    xs = graphgrad.tensor(X)
    for f in (lambda v: v + d, lambda v: d - v, lambda v: (v * d) / (d ** 2 + 1),
              lambda v: v @ d, lambda v: d @ v, lambda v: (v > d) * 1.0):
        got = vmap(f)(xs)
        for i in range(3):
            np.testing.assert_allclose(got[i].numpy(), f(xs[i]).numpy(), rtol=1e-14)
    per = vmap(grad(lambda v: gnp.sum((v - d) ** 2)))(xs)
    np.testing.assert_allclose(per.numpy(), 2 * (X - d), rtol=1e-14)


def test_dtype_answers_are_cached_per_function_not_per_call():
    from graphgrad.numpy import _core
    t = graphgrad.tensor(X)
    calls = [lambda: gnp.sum(t, axis=0), lambda: gnp.var(t, ddof=1), lambda: gnp.dot(X, t.T),
             lambda: gnp.where(t > 0, t, 0.0), lambda: gnp.clip(t, -1, 1),
             lambda: gnp.linalg.norm(t), lambda: gnp.einsum("ij->j", t)]
    for c in calls:
        c()
    n = len(_core._DTYPES)
    for _ in range(3):
        for c in calls:
            c()
    assert len(_core._DTYPES) == n
