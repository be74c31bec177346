"""The HIPS-autograd-style examples (examples/hips_*.py) run, small and quick: the
network learns the digits, the GP fit raises the marginal likelihood, and the gradients
they use equal finite differences."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import graphgrad
from graphgrad.func import grad

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_hips_neural_net_learns_digits():
    pytest.importorskip("sklearn")
    mod = _load("hips_neural_net")
    train_acc, test_acc = mod.main(["--epochs", "2", "--n-train", "600", "--hidden", "32",
                                    "--quiet"])
    assert train_acc > 0.8 and test_acc > 0.75


def test_hips_neural_net_gradient_is_right():
    mod = _load("hips_neural_net")
    rs = np.random.RandomState(0)
    params = mod.init_params(0.3, [5, 4, 3], rs)
    x, y = rs.randn(7, 5), np.eye(3)[rs.randint(0, 3, 7)]
    f = lambda p: -mod.log_posterior(p, x, y, 0.5)   # noqa: E731
    g = grad(f)(params)
    assert type(g) is list and all(type(w) is np.ndarray for pair in g for w in pair)
    d = [(rs.randn(*W.shape), rs.randn(*b.shape)) for W, b in params]
    eps = 1e-6
    shift = lambda s: [(W + s * dW, b + s * db) for (W, b), (dW, db) in zip(params, d)]  # noqa
    fd = (f(shift(eps)) - f(shift(-eps))) / (2 * eps)
    exact = sum(np.sum(gW * dW) + np.sum(gb * db) for (gW, gb), (dW, db) in zip(g, d))
    np.testing.assert_allclose(exact, fd, rtol=1e-6)


def test_hips_gaussian_process_fit():
    pytest.importorskip("scipy")
    from scipy.optimize import check_grad
    mod = _load("hips_gaussian_process")
    result, before, after = mod.main(["--n-data", "16", "--quiet"])
    assert after > before + 1.0 and result.success
    x, y = mod.toy_data(16)
    obj = lambda p: float(-mod.log_marginal_likelihood(p, x, y))   # noqa: E731
    p0 = np.array([0.1, -1.0, 0.2, -0.3])
    assert check_grad(obj, grad(lambda p: -mod.log_marginal_likelihood(p, x, y)), p0) < 1e-5
    # the same objective with a Tensor: a Tensor gradient
    gt = grad(lambda p: -mod.log_marginal_likelihood(p, x, y))(graphgrad.tensor(p0))
    assert isinstance(gt, graphgrad.Tensor)
