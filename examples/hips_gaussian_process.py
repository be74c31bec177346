"""HIPS autograd's classic Gaussian-process fit, ported by changing the imports: the
hyper-parameters of a GP with an RBF kernel maximise the log marginal likelihood, by
``scipy.optimize.minimize`` with the exact gradient from ``graphgrad.func.grad``.

    python examples/hips_gaussian_process.py [--n-data 40]

The model is written with ``graphgrad.numpy`` and
``graphgrad.scipy.stats.multivariate_normal`` as with ``autograd.numpy`` and
``autograd.scipy.stats.multivariate_normal``; SciPy's optimiser sees NumPy arrays only
(``grad(objective)(params)`` takes and returns an ndarray).  The data are synthetic.
"""
from __future__ import annotations

import argparse

import numpy.random as npr
from scipy.optimize import minimize

import graphgrad.numpy as np
import graphgrad.scipy.stats.multivariate_normal as mvn
from graphgrad.func import grad


def rbf_covariance(kernel_params, x, xp):
    """``exp(log_scale) * exp(-|x - x'|^2 / 2)`` with one log length-scale per input dim."""
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs ** 2, axis=2))


def unpack(params):
    """(constant mean, kernel parameters, noise variance)."""
    return params[0], params[2:], np.exp(params[1]) + 1e-4


def log_marginal_likelihood(params, x, y):
    mean, kernel_params, noise = unpack(params)
    cov = rbf_covariance(kernel_params, x, x) + noise * np.eye(len(y))
    return mvn.logpdf(y, mean * np.ones(len(y)), cov)


def predict(params, x, y, xstar):
    """Posterior mean and covariance of the latent function at ``xstar``."""
    mean, kernel_params, noise = unpack(params)
    k_ss = rbf_covariance(kernel_params, xstar, xstar)
    k_xs = rbf_covariance(kernel_params, x, xstar)
    k_xx = rbf_covariance(kernel_params, x, x) + noise * np.eye(len(y))
    solved = np.linalg.solve(k_xx, k_xs)
    return mean + np.dot(solved.T, y - mean), k_ss - np.dot(solved.T, k_xs)


def toy_data(n_data=40, noise_std=0.1, seed=0):
    rs = npr.RandomState(seed)
    inputs = np.concatenate([np.linspace(0, 3, num=n_data // 2),
                             np.linspace(6, 8, num=n_data - n_data // 2)])
    targets = (np.cos(inputs) + rs.randn(n_data) * noise_std) / 2.0
    inputs = ((inputs - 4.0) / 2.0).reshape(-1, 1)
    return inputs, targets


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n-data", type=int, default=40)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    x, y = toy_data(args.n_data)

    def objective(params):
        return -log_marginal_likelihood(params, x, y)

    def callback(params):
        if not args.quiet:
            print(f"log marginal likelihood {-float(objective(params)):.4f}")

    init = 0.1 * npr.RandomState(1).randn(4)   # mean, log noise, log scale, log length-scale
    result = minimize(objective, init, jac=grad(objective), method="L-BFGS-B",
                      callback=callback)
    pred_mean, pred_cov = predict(result.x, x, y, np.linspace(-2, 2, 9).reshape(-1, 1))
    if not args.quiet:
        print(f"optimum {result.x}; {result.message}")
        print("posterior mean on [-2, 2]:", np.round(pred_mean, 3))
    return result, float(-objective(init)), float(-objective(result.x))


if __name__ == "__main__":
    main()
