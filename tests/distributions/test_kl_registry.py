"""Every pair torch.distributions.kl registers (of the families graphgrad has) gives torch's
value and gradients; the cross-family ones are derived here as -H(p) - E_p[log q], so they
agree to rounding (1e-7), not bit for bit."""
from __future__ import annotations

import pytest

import graphgrad
from tests.distributions.common import compare

torch = pytest.importorskip("torch")

# family name -> make(D, a, b, c) with a in (0.1, 0.6), b > 0 and c > 0 (three entries each)
FAMILIES = {
    "Bernoulli": lambda D, a, b, c: D.Bernoulli(a),
    "Beta": lambda D, a, b, c: D.Beta(b, c),
    "Binomial": lambda D, a, b, c: D.Binomial(3, a),
    "Categorical": lambda D, a, b, c: D.Categorical(b),
    "Cauchy": lambda D, a, b, c: D.Cauchy(a - 0.3, c),
    "ContinuousBernoulli": lambda D, a, b, c: D.ContinuousBernoulli(a * 1.5),
    "Dirichlet": lambda D, a, b, c: D.Dirichlet(b + c.unsqueeze(-1)),
    "Exponential": lambda D, a, b, c: D.Exponential(c),
    "Gamma": lambda D, a, b, c: D.Gamma(b, c),
    "Geometric": lambda D, a, b, c: D.Geometric(a),
    "Gumbel": lambda D, a, b, c: D.Gumbel(a - 0.3, c),
    "HalfNormal": lambda D, a, b, c: D.HalfNormal(b),
    "Independent": lambda D, a, b, c: D.Independent(D.Normal(a, b), 1),
    "Laplace": lambda D, a, b, c: D.Laplace(a + 0.2, b),
    "LowRankMultivariateNormal": lambda D, a, b, c: D.LowRankMultivariateNormal(
        a, (b.unsqueeze(-1) * c[:2]) / 3, c),
    "MultivariateNormal": lambda D, a, b, c: D.MultivariateNormal(
        c, scale_tril=(b + 1).diag_embed() + (a.unsqueeze(-1) * a).tril(-1)),
    "Normal": lambda D, a, b, c: D.Normal(a - 0.5, b),
    "OneHotCategorical": lambda D, a, b, c: D.OneHotCategorical(c),
    "Pareto": lambda D, a, b, c: D.Pareto(a, b + 1.5),
    "Poisson": lambda D, a, b, c: D.Poisson(b),
    "TransformedDistribution": lambda D, a, b, c: D.LogNormal(a, c),
    "Uniform": lambda D, a, b, c: D.Uniform(a, a + c / 10),
}
VALUES = {  # per side: p, q
    "p": ([0.3, 0.1, 0.55], [1.5, 0.7, 2.5], [0.8, 1.3, 0.4]),
    "q": ([0.2, 0.45, 0.35], [0.9, 1.7, 1.1], [1.2, 0.6, 2.0]),
}


def _pairs():
    from torch.distributions.kl import _KL_REGISTRY
    out = []
    for tp, tq in _KL_REGISTRY:
        if tp.__name__ in FAMILIES and tq.__name__ in FAMILIES:
            out.append((tp.__name__, tq.__name__))
    return sorted(out)


@pytest.mark.parametrize("pq", _pairs(), ids="-".join)
def test_registered_pair_matches_torch(pq):
    P, Q = pq

    def program(lib):
        D = lib.distributions
        args = {s: [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in VALUES[s]]
                for s in "pq"}
        p = FAMILIES[P](D, *args["p"])
        q = FAMILIES[Q](D, *args["q"])
        try:
            kl = D.kl_divergence(p, q)
        except NotImplementedError:
            return "NotImplementedError"
        leaves = args["p"] + args["q"]
        if not kl.requires_grad:
            return [kl]
        grads = lib.autograd.grad((kl * kl.isfinite()).nan_to_num().sum(), leaves,
                                  allow_unused=True)
        return [kl, [g if g is not None else "none" for g in grads]]
    compare(program, tol=(1e-7, 1e-9))


def test_the_registry_covers_torchs_pairs_but_continuous_bernoulli():
    from torch.distributions.kl import _KL_REGISTRY
    ours = {(a.__name__, b.__name__) for a, b in graphgrad.distributions.kl._KL_REGISTRY}
    theirs = {(a.__name__, b.__name__) for a, b in _KL_REGISTRY}
    assert theirs - ours == {("HalfNormal", "HalfNormal")}   # (TransformedDistribution's rule)


def test_infinite_branches_match_torch():
    def program(lib):
        D = lib.distributions
        t = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
        kl = D.kl_divergence
        return [kl(D.Uniform(t([-1.0, 0.5]), t([1.0, 2.0])), D.Exponential(t([1.0, 2.0]))),
                kl(D.Uniform(t([-1.0, 0.5]), t([1.0, 2.0])), D.Gamma(t([1.0, 2.0]), 1.0)),
                kl(D.Uniform(t([0.2, 0.5]), t([1.0, 2.0])), D.Beta(t([1.0, 2.0]), 1.0)),
                kl(D.Uniform(t([0.2, 1.5]), t([1.0, 2.0])), D.Pareto(t([0.5, 1.0]), 2.0)),
                kl(D.Pareto(t([1.0, 1.0]), t([0.5, 2.5])), D.Exponential(t([1.0, 2.0]))),
                kl(D.Pareto(t([1.0, 1.0]), t([1.5, 2.5])), D.Normal(0.0, t([1.0, 2.0]))),
                kl(D.Pareto(t([1.0, 2.0]), t([1.5, 2.5])), D.Pareto(t([1.5, 1.0]), 2.0)),
                kl(D.Beta(t([1.0, 2.0]), 1.0), D.Uniform(t([0.0, 0.1]), 1.0)),
                kl(D.Normal(0.0, t([1.0, 2.0])), D.Uniform(-1.0, 1.0))]
    compare(program, tol=(1e-7, 1e-9))


def test_continuous_bernoulli_against_the_unit_uniform_is_finite():
    # (PyTorch's is inf whenever the uniform's interval touches 0 or 1: docs/differences.md)
    D = graphgrad.distributions
    cb = D.ContinuousBernoulli(graphgrad.tensor([0.3, 0.8], dtype=graphgrad.float64))
    u = D.Uniform(graphgrad.tensor(0.0, dtype=graphgrad.float64), 1.0)
    assert graphgrad.allclose(D.kl_divergence(cb, u), -cb.entropy())
    assert bool(D.kl_divergence(u, cb).isfinite().all())
