"""graphgrad.distributions as code written for torch uses it: the namespace and submodules,
and small training loops (REINFORCE with Categorical, a VAE's Normal reparameterisation and
KL, a tanh-squashed Gaussian policy) that must learn."""
from __future__ import annotations

import importlib
import math
import pkgutil

import pytest

import graphgrad

# torch.distributions' names graphgrad leaves out (docs/differences.md)
LEFT_OUT = set()
LEFT_OUT_MODULES = set()


def test_names_and_submodules_are_torchs_minus_the_documented_left_out():
    torch = pytest.importorskip("torch")
    ours = graphgrad.distributions
    assert set(torch.distributions.__all__) - set(ours.__all__) == LEFT_OUT & set(
        torch.distributions.__all__)
    text = open(__file__.replace("tests/distributions/test_usage.py",
                                 "docs/differences.md")).read()
    for name in LEFT_OUT:
        assert name in text
    for m in pkgutil.iter_modules(torch.distributions.__path__):
        if m.name in LEFT_OUT_MODULES:
            continue
        theirs = importlib.import_module(f"torch.distributions.{m.name}")
        mine = importlib.import_module(f"graphgrad.distributions.{m.name}")
        missing = {n for n in getattr(theirs, "__all__", []) if not hasattr(mine, n)}
        assert missing <= LEFT_OUT, (m.name, missing)


def test_import_graphgrad_as_torch_reaches_distributions():
    import graphgrad as torch
    from graphgrad.distributions.normal import Normal
    assert torch.distributions.Normal is Normal
    assert torch.distributions.constraints.positive.check(torch.tensor(1.0))


def test_reinforce_with_categorical_learns_the_best_arm():
    import graphgrad as torch
    torch.manual_seed(0)
    logits = torch.zeros(4, requires_grad=True)
    reward = torch.tensor([0.0, 0.2, 1.0, 0.1])
    opt = torch.optim.Adam([logits], lr=0.1)
    for _ in range(150):
        d = torch.distributions.Categorical(logits=logits)
        a = d.sample((32,))
        loss = -(d.log_prob(a) * (reward[a] - reward[a].mean())).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert torch.distributions.Categorical(logits=logits).probs[2].item() > 0.9


def test_vae_style_reparameterised_elbo_fits_a_gaussian():
    import graphgrad as torch
    D = torch.distributions
    torch.manual_seed(0)
    mu = torch.zeros(2, requires_grad=True)
    log_sigma = torch.zeros(2, requires_grad=True)
    target = D.Normal(torch.tensor([1.0, -2.0]), torch.tensor([0.5, 2.0]))
    opt = torch.optim.Adam([mu, log_sigma], lr=0.05)
    for _ in range(300):
        q = D.Normal(mu, log_sigma.exp())
        z = q.rsample((64,))
        loss = (q.log_prob(z) - target.log_prob(z)).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert torch.allclose(mu, target.loc, atol=0.15)
    assert torch.allclose(log_sigma.exp(), target.scale, rtol=0.15)
    kl = D.kl_divergence(D.Normal(mu, log_sigma.exp()), target).sum()
    assert kl.item() < 0.05


def test_tanh_squashed_gaussian_policy_log_prob():
    torch = pytest.importorskip("torch")
    from tests.distributions.common import compare

    def program(lib):
        D = lib.distributions
        loc = lib.tensor([0.3, -0.5], dtype=lib.float64, requires_grad=True)
        scale = lib.tensor([0.8, 0.2], dtype=lib.float64, requires_grad=True)
        d = D.TransformedDistribution(D.Independent(D.Normal(loc, scale), 1),
                                      [D.TanhTransform(cache_size=1)])
        a = lib.tensor([[0.2, -0.9], [0.99, 0.0]], dtype=lib.float64)
        lp = d.log_prob(a)
        return [lp, lib.autograd.grad(lp.sum(), [loc, scale]), str(d.event_shape)]
    compare(program)
    del torch


def test_gamma_rsample_trains_a_concentration():
    import graphgrad as torch
    torch.manual_seed(0)
    raw = torch.tensor(0.0, requires_grad=True)
    opt = torch.optim.Adam([raw], lr=0.05)
    for _ in range(200):
        x = torch.distributions.Gamma(raw.exp(), 1.0).rsample((256,))
        loss = (x.mean() - 3.0) ** 2
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert math.isclose(raw.exp().item(), 3.0, rel_tol=0.1)
