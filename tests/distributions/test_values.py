"""log_prob, cdf, icdf, entropy, mean, mode, variance, stddev of each distribution and their
gradients with respect to the parameters, against torch.distributions on given values."""
from __future__ import annotations

import math

import pytest

from tests.distributions.common import compare

torch = pytest.importorskip("torch")

# name -> (params {name: values}, make(D, params), value, methods)
ALL = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")
P2 = {"a": [0.5, -1.0, 2.0], "b": [1.5, 0.3, 2.5]}
POS = {"a": [0.5, 2.0, 7.0], "b": [1.5, 0.3, 2.5]}
CASES = {
    "Normal": (P2, lambda D, p: D.Normal(p["a"], p["b"]), [0.2, 0.7, -3.0], ALL),
    "Normal-number": ({}, lambda D, p: D.Normal(0.5, 2.0), [0.2, 0.7, -3.0], ALL),
    "Laplace": (P2, lambda D, p: D.Laplace(p["a"], p["b"]), [0.2, 0.7, -3.0], ALL),
    "Cauchy": (P2, lambda D, p: D.Cauchy(p["a"], p["b"]), [0.2, 0.7, -3.0], ALL),
    "Uniform": (P2, lambda D, p: D.Uniform(p["a"] - 1, p["a"] + p["b"]), [0.2, -1.1, 3.0],
                ALL),
    "Gamma": (POS, lambda D, p: D.Gamma(p["a"], p["b"]), [0.2, 0.7, 3.0],
              ("log_prob", "entropy", "mean", "mode", "variance", "stddev")),
    "Chi2": (POS, lambda D, p: D.Chi2(p["a"]), [0.2, 0.7, 3.0],
             ("log_prob", "entropy", "mean", "mode", "variance")),
    "Gamma-cdf": (POS, lambda D, p: D.Gamma(p["a"].detach(), p["b"]), [0.2, 0.7, 3.0],
                  ("cdf",)),
    "Chi2-cdf": ({"a": [0.5, 2.0, 40.0]}, lambda D, p: D.Chi2(p["a"].detach()),
                 [0.2, 0.7, 60.0], ("cdf",)),
    "Exponential": (POS, lambda D, p: D.Exponential(p["b"]), [0.2, 0.7, 3.0], ALL),
    "Beta": (POS, lambda D, p: D.Beta(p["a"], p["b"]), [0.2, 0.7, 0.99],
             ("log_prob", "entropy", "mean", "mode", "variance")),
    "Dirichlet": (POS, lambda D, p: D.Dirichlet(p["a"].stack([p["a"], p["b"]], -1)
                                                if False else _stack(p["a"], p["b"])),
                  [[0.2, 0.8], [0.7, 0.3], [0.5, 0.5]],
                  ("log_prob", "entropy", "mean", "variance")),
    "LogNormal": (P2, lambda D, p: D.LogNormal(p["a"], p["b"]), [0.2, 0.7, 3.0], ALL),
    "HalfNormal": (POS, lambda D, p: D.HalfNormal(p["b"]), [0.2, 0.7, 3.0], ALL),
    "Bernoulli": ({"a": [0.2, 0.5, 0.9]}, lambda D, p: D.Bernoulli(p["a"]), [1.0, 0.0, 1.0],
                  ("log_prob", "entropy", "mean", "mode", "variance")),
    "Bernoulli-logits": (P2, lambda D, p: D.Bernoulli(logits=p["a"]), [1.0, 0.0, 1.0],
                         ("log_prob", "entropy", "mean", "mode", "variance")),
    "Categorical": ({"a": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]},
                    lambda D, p: D.Categorical(p["a"]), "int:[2, 0]",
                    ("log_prob", "entropy", "mean", "mode", "variance")),
    "Categorical-logits": ({"a": [[0.2, -3.0, 0.5], [1.1, 0.1, 0.8]]},
                           lambda D, p: D.Categorical(logits=p["a"]), "int:[2, 0]",
                           ("log_prob", "entropy", "mode")),
    "OneHotCategorical": ({"a": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]},
                          lambda D, p: D.OneHotCategorical(p["a"]),
                          [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
                          ("log_prob", "entropy", "mean", "mode", "variance")),
    "Binomial": ({"a": [0.2, 0.5, 0.9]}, lambda D, p: D.Binomial(5, p["a"]), [3.0, 0.0, 5.0],
                 ("log_prob", "entropy", "mean", "mode", "variance")),
    "Binomial-logits": (P2, lambda D, p: D.Binomial(4, logits=p["a"]), [3.0, 0.0, 4.0],
                        ("log_prob", "entropy", "mean", "variance")),
    "Poisson": (POS, lambda D, p: D.Poisson(p["a"]), [3.0, 0.0, 5.0],
                ("log_prob", "mean", "mode", "variance")),
    "Geometric": ({"a": [0.2, 0.5, 0.9]}, lambda D, p: D.Geometric(p["a"]), [3.0, 0.0, 5.0],
                  ("log_prob", "entropy", "mean", "mode", "variance")),
    "MVN-scale_tril": ({"a": [0.5, -1.0], "b": [[1.5, 0.0], [0.3, 0.7]]},
                       lambda D, p: D.MultivariateNormal(p["a"], scale_tril=p["b"]),
                       [[0.2, 0.7], [-1.0, 3.0]], ("log_prob", "entropy", "mean", "variance")),
    "MVN-covariance": ({"a": [0.5, -1.0], "b": [[2.0, 0.3], [0.3, 0.7]]},
                       lambda D, p: D.MultivariateNormal(p["a"], covariance_matrix=p["b"]),
                       [[0.2, 0.7], [-1.0, 3.0]], ("log_prob", "entropy", "mean", "variance")),
    "MVN-precision": ({"a": [0.5, -1.0], "b": [[2.0, 0.3], [0.3, 0.7]]},
                      lambda D, p: D.MultivariateNormal(p["a"], precision_matrix=p["b"]),
                      [[0.2, 0.7], [-1.0, 3.0]], ("log_prob", "entropy", "mean", "variance")),
    "Independent": (P2, lambda D, p: D.Independent(D.Normal(p["a"], p["b"]), 1),
                    [0.2, 0.7, -3.0], ("log_prob", "entropy", "mean", "variance")),
    "RelaxedBernoulli": ({"a": [0.2, 0.5, 0.9]},
                         lambda D, p: D.RelaxedBernoulli(p["a"].new_tensor(0.7), p["a"]),
                         [0.1, 0.5, 0.95], ("log_prob",)),
    "RelaxedOneHotCategorical": ({"a": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]},
                                 lambda D, p: D.RelaxedOneHotCategorical(
                                     p["a"].new_tensor(0.7), p["a"]),
                                 [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], ("log_prob",)),
}


def _stack(a, b):
    import graphgrad
    lib = graphgrad if isinstance(a, graphgrad.Tensor) else torch
    return lib.stack([a, b], -1)


def _program(name, cases=CASES):
    params, make, value, methods = cases[name]

    def program(lib):
        D = lib.distributions
        p = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True) for k, v in params.items()}
        d = make(D, p)
        if isinstance(value, str):
            v = lib.tensor(eval(value[4:]))
        else:
            v = lib.tensor(value, dtype=lib.float64)
        out = {}
        for m in methods:
            if m in ("log_prob", "cdf"):
                out[m] = getattr(d, m)(v)
            elif m == "icdf":
                out[m] = d.icdf(lib.tensor([0.1, 0.5, 0.8], dtype=lib.float64))
            elif m == "entropy":
                out[m] = d.entropy()
            else:
                out[m] = getattr(d, m)
        total = sum((o.double() * (o.isfinite())).nan_to_num().sum() for o in out.values()
                    if o.is_floating_point() and o.requires_grad)
        grads = lib.autograd.grad(total, list(p.values()), allow_unused=True) if params and \
            not isinstance(total, int) else ()
        out["grads"] = [g if g is not None else "none" for g in grads]
        out["shapes"] = (str(d.batch_shape), str(d.event_shape))
        return out
    return program


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    compare(_program(name))


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Gamma", "Bernoulli", "Categorical",
                                  "MVN-scale_tril", "Dirichlet", "Independent"])
def test_expand_matches_torch(name):
    params, make, value, methods = CASES[name]

    def program(lib):
        p = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True) for k, v in params.items()}
        d = make(lib.distributions, p)
        e = d.expand((2,) + tuple(d.batch_shape))
        v = lib.tensor(eval(value[4:])) if isinstance(value, str) else \
            lib.tensor(value, dtype=lib.float64)
        return [str(e.batch_shape), str(e.event_shape), e.log_prob(v), type(e).__name__,
                e.sample((2,)).shape]
    compare(program)


def test_float32_parameters_keep_their_dtype():
    def program(lib):
        D = lib.distributions
        loc = lib.tensor([0.5, 1.0])
        d = D.Normal(loc, 2.0)
        g = D.Gamma(lib.tensor([2.0]), 3.0)
        return [d.log_prob(lib.tensor([0.1, 0.2])), d.rsample((3,)).dtype, g.rsample().dtype,
                d.entropy(), D.Categorical(logits=lib.zeros(3)).sample().dtype,
                D.Bernoulli(0.3).sample().dtype, D.Poisson(lib.tensor(2.0)).sample().dtype,
                D.Normal(0.0, 1.0).sample().dtype]
    compare(program)


def test_number_parameters_give_an_empty_batch_shape():
    def program(lib):
        D = lib.distributions
        return [str(D.Normal(0.0, 1.0).batch_shape), str(D.Normal(0.0, 1.0).sample().shape),
                str(D.Bernoulli(0.3).batch_shape), str(D.Exponential(2.0).batch_shape),
                str(D.Uniform(0.0, 2.0).rsample((5,)).shape),
                D.Normal(0.0, 1.0).log_prob(lib.tensor(0.5))]
    compare(program)


def test_enumerate_support_matches_torch():
    def program(lib):
        D = lib.distributions
        p = lib.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype=lib.float64)
        return [D.Bernoulli(p[:, 0]).enumerate_support(),
                D.Bernoulli(p[:, 0]).enumerate_support(expand=False),
                D.Categorical(p).enumerate_support(),
                D.OneHotCategorical(p).enumerate_support(),
                D.Binomial(3, p[:, 1]).enumerate_support()]
    compare(program)


def test_perplexity_and_reprs():
    def program(lib):
        D = lib.distributions
        d = D.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
        return [d.perplexity(), repr(d), repr(D.Normal(0.0, 1.0)), repr(D.Gamma(2.0, 1.0)),
                repr(d.support), repr(D.Gamma(2.0, 1.0).support),
                repr(D.Independent(d, 1)), repr(D.Categorical(lib.ones(3)).support),
                {k: repr(v) for k, v in D.Categorical(lib.ones(3)).arg_constraints.items()},
                D.Normal.has_rsample, D.Bernoulli.has_rsample, D.Gamma.has_rsample,
                D.Bernoulli.has_enumerate_support]
    compare(program)


def test_math_constants_do_not_drift():
    import graphgrad
    d = graphgrad.distributions.Normal(0.0, 1.0)
    assert math.isclose(d.entropy().item(), 0.5 * math.log(2 * math.pi * math.e), rel_tol=1e-6)


def test_gamma_cdf_second_derivative_in_the_value_and_none_in_the_concentration():
    def program(lib):
        D = lib.distributions
        x = lib.tensor([1.0, 3.0, 0.2], dtype=lib.float64, requires_grad=True)
        a = lib.tensor([2.0, 0.5, 30.0], dtype=lib.float64, requires_grad=True)
        c = D.Gamma(a, 1.5).cdf(x)
        (g,) = lib.autograd.grad(c.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        try:
            lib.autograd.grad(c.sum(), a)
            err = "none"
        except NotImplementedError:
            err = "NotImplementedError"
        return [c, g, gg, err]
    compare(program)
