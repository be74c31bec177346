"""HIPS autograd's classic: a small neural network on NumPy, trained by gradient descent,
ported by changing the imports.

    python examples/hips_neural_net.py [--epochs 20] [--batch-size 64]

The network is a list of ``(W, b)`` NumPy arrays; the model, the log-likelihood and the L2
prior are written with ``graphgrad.numpy`` as with ``autograd.numpy``, and
``graphgrad.func.grad`` differentiates the objective with respect to that list -- NumPy
arrays in, NumPy arrays out -- for an Adam optimiser written in NumPy.  The data are
scikit-learn's 8x8 digits (shipped with scikit-learn, no download).  HIPS autograd's
``from autograd import grad`` becomes ``from graphgrad.func import grad``.
"""
from __future__ import annotations

import argparse

import numpy.random as npr

import graphgrad.numpy as np
from graphgrad.func import grad
from graphgrad.scipy.special import logsumexp


def init_params(scale, layer_sizes, rs):
    """One ``(weights, biases)`` pair per layer."""
    return [(scale * rs.randn(m, n), scale * rs.randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def predict(params, inputs):
    """Class log-probabilities of a tanh network (rows of ``inputs`` are examples)."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)


def log_posterior(params, inputs, targets, l2_reg):
    log_prior = -l2_reg * l2_norm(params)
    log_lik = np.sum(predict(params, inputs) * targets)
    return log_prior + log_lik


def accuracy(params, inputs, targets):
    return np.mean(np.argmax(targets, axis=1) == np.argmax(predict(params, inputs), axis=1))


def adam(grad_fn, params, steps, step_size=0.01, b1=0.9, b2=0.999, eps=1e-8, callback=None):
    """Adam over a list of (W, b) pairs of NumPy arrays."""
    flat = [p for pair in params for p in pair]
    m = [np.zeros_like(p) for p in flat]
    v = [np.zeros_like(p) for p in flat]
    for i in range(steps):
        g = [x for pair in grad_fn(params, i) for x in pair]
        for j, gj in enumerate(g):
            m[j] = (1 - b1) * gj + b1 * m[j]
            v[j] = (1 - b2) * gj ** 2 + b2 * v[j]
            mhat = m[j] / (1 - b1 ** (i + 1))
            vhat = v[j] / (1 - b2 ** (i + 1))
            flat[j] = flat[j] - step_size * mhat / (np.sqrt(vhat) + eps)
        params = [(flat[k], flat[k + 1]) for k in range(0, len(flat), 2)]
        if callback:
            callback(params, i)
    return params


def load_digits_data(n_train):
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = digits.data / 16.0
    y = np.eye(10)[digits.target]
    rs = npr.RandomState(0)
    order = rs.permutation(len(x))
    x, y = x[order], y[order]
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--n-train", type=int, default=1400)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--step-size", type=float, default=0.01)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    train_x, train_y, test_x, test_y = load_digits_data(args.n_train)
    rs = npr.RandomState(1)
    params = init_params(0.1, [64, args.hidden, 10], rs)
    l2_reg = 1.0
    n_batches = int(np.ceil(len(train_x) / args.batch_size))

    def objective(params, i):
        idx = slice((i % n_batches) * args.batch_size, (i % n_batches + 1) * args.batch_size)
        return -log_posterior(params, train_x[idx], train_y[idx], l2_reg)

    objective_grad = grad(objective)   # a list of (W, b) ndarrays in, the same structure out

    def report(params, i):
        if not args.quiet and (i + 1) % n_batches == 0:
            print(f"epoch {(i + 1) // n_batches:3d}  train accuracy "
                  f"{accuracy(params, train_x, train_y):.3f}  test accuracy "
                  f"{accuracy(params, test_x, test_y):.3f}")

    params = adam(objective_grad, params, args.epochs * n_batches, args.step_size,
                  callback=report)
    return accuracy(params, train_x, train_y), accuracy(params, test_x, test_y)


if __name__ == "__main__":
    main()
