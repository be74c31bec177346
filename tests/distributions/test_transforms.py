"""Transforms (call, inverse, log |det J|, shapes, sign, caching) and
TransformedDistribution against torch; autograd through the distributions: double backward
(gradgradcheck) and forward mode (jvp) of log_prob / entropy / kl."""
from __future__ import annotations

import pytest

import graphgrad
from tests.distributions.common import compare

torch = pytest.importorskip("torch")

TRANSFORMS = {
    "Exp": lambda T, lib: T.ExpTransform(),
    "Sigmoid": lambda T, lib: T.SigmoidTransform(),
    "Tanh": lambda T, lib: T.TanhTransform(),
    "Softplus": lambda T, lib: T.SoftplusTransform(),
    "Affine": lambda T, lib: T.AffineTransform(lib.tensor([1.0, -2.0, 0.5],
                                                          dtype=lib.float64), -3.0),
    "Affine-event": lambda T, lib: T.AffineTransform(0.5, lib.tensor([2.0, 1.0, 3.0],
                                                                     dtype=lib.float64),
                                                     event_dim=1),
    "Power": lambda T, lib: T.PowerTransform(2.0),
    "Compose": lambda T, lib: T.ComposeTransform([T.AffineTransform(1.0, 2.0),
                                                  T.ExpTransform()]),
    "Independent": lambda T, lib: T.IndependentTransform(T.ExpTransform(), 1),
    "Inverse": lambda T, lib: T.SigmoidTransform().inv,
    "Reshape": lambda T, lib: T.ReshapeTransform((3,), (3, 1)),
    "CorrCholesky": lambda T, lib: T.CorrCholeskyTransform(),
    "StickBreaking": lambda T, lib: T.StickBreakingTransform(),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name):
    def program(lib):
        T = lib.distributions.transforms
        t = TRANSFORMS[name](T, lib)
        x = lib.tensor([[0.3, 0.9, 1.7], [0.2, 0.5, 0.1]], dtype=lib.float64,
                       requires_grad=True)
        if name == "Inverse":
            x = (x / 2).detach().requires_grad_()
        y = t(x)
        out = [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.bijective,
               repr(t.domain), repr(t.codomain), str(t.forward_shape((2, 3))),
               str(t.inverse_shape(t.forward_shape((2, 3))))]
        out.append(lib.autograd.grad((y.sum() + t.log_abs_det_jacobian(x, y).sum()), x)[0])
        return out
    compare(program)


def test_softmax_and_abs_transforms_and_signs():
    def program(lib):
        T = lib.distributions.transforms
        x = lib.tensor([[0.3, -0.9, 1.7]], dtype=lib.float64)
        return [T.SoftmaxTransform()(x), T.SoftmaxTransform().inv(T.SoftmaxTransform()(x)),
                T.AbsTransform()(x), T.ExpTransform().sign, T.AffineTransform(0.0, -2.0).sign,
                T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]).sign,
                T.ExpTransform() == T.ExpTransform(), T.ExpTransform() == T.TanhTransform(),
                T.identity_transform(x)]
    compare(program)


def test_cache_size_one_returns_the_exact_input():
    T = graphgrad.distributions.transforms
    t = T.TanhTransform(cache_size=1)
    x = graphgrad.tensor([30.0])   # tanh(x) rounds to 1: atanh(1) = inf without the cache
    y = t(x)
    assert t.inv(y) is x
    with pytest.raises(ValueError):
        T.ExpTransform(cache_size=2)


TRANSFORMED = {
    "tanh-normal": lambda D, T, p: D.TransformedDistribution(
        D.Normal(p[0], p[1]), [T.TanhTransform()]),
    "affine-exp": lambda D, T, p: D.TransformedDistribution(
        D.Normal(p[0], p[1]), [T.AffineTransform(1.0, 0.5), T.ExpTransform()]),
    "negative-affine": lambda D, T, p: D.TransformedDistribution(
        D.Normal(p[0], p[1]), T.AffineTransform(-1.0, -2.0)),
    "sigmoid-uniform": lambda D, T, p: D.TransformedDistribution(
        D.Uniform(p[0] - 3, p[0] + 3), T.SigmoidTransform()),
    "independent": lambda D, T, p: D.TransformedDistribution(
        D.Normal(p[0], p[1]), T.IndependentTransform(T.ExpTransform(), 1)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMED))
def test_transformed_distribution_matches_torch(name):
    def program(lib):
        D, T = lib.distributions, lib.distributions.transforms
        p = [lib.tensor(v, dtype=lib.float64, requires_grad=True)
             for v in ([0.5, -1.0, 0.2], [1.5, 0.3, 0.7])]
        d = TRANSFORMED[name](D, T, p)
        v = lib.tensor([0.2, 0.7, 0.9], dtype=lib.float64)
        out = [d.log_prob(v), str(d.batch_shape), str(d.event_shape), repr(d.support),
               d.has_rsample, d.rsample((2,)).shape, d.sample().requires_grad]
        if name != "independent":
            out += [d.cdf(v), d.icdf(lib.tensor([0.1, 0.5, 0.8], dtype=lib.float64))]
        out.append(lib.autograd.grad(sum(o.sum() for o in out if hasattr(o, "requires_grad")
                                         and o.requires_grad), p, allow_unused=True))
        e = d.expand((4, 3))
        out += [str(e.batch_shape), e.log_prob(v)]
        return out
    compare(program)


# ------------------------------------------------------------------ autograd through them
def _gg(*vals):
    return [graphgrad.tensor(v, dtype=graphgrad.float64, requires_grad=True) for v in vals]


def test_double_backward_through_log_prob_entropy_and_kl():
    D = graphgrad.distributions
    gc = graphgrad.autograd.gradgradcheck
    v = graphgrad.tensor([0.2, 0.7], dtype=graphgrad.float64)
    assert gc(lambda m, s: D.Normal(m, s).log_prob(v), _gg([0.5, -1.0], [1.5, 0.3]))
    assert gc(lambda c, r: D.Gamma(c, r).log_prob(v), _gg([0.5, 2.0], [1.5, 0.3]))
    assert gc(lambda a, b: D.Beta(a, b).entropy(), _gg([0.5, 2.0], [1.5, 0.3]))
    assert gc(lambda lg: D.Categorical(logits=lg).entropy(), _gg([[0.5, 2.0, -1.0]]))
    assert gc(lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril(),
                                                validate_args=False).log_prob(v),
              _gg([0.5, -1.0], [[1.5, 0.0], [0.3, 0.7]]))
    assert gc(lambda m, s: D.kl_divergence(D.Normal(m, s), D.Normal(0.0, 1.0)),
              _gg([0.5, -1.0], [1.5, 0.3]))


def test_forward_mode_matches_torch():
    def program(lib):
        D = lib.distributions
        v = lib.tensor([0.2, 0.7], dtype=lib.float64)
        m = lib.tensor([0.5, -1.0], dtype=lib.float64)
        s = lib.tensor([1.5, 0.3], dtype=lib.float64)
        tm = lib.tensor([1.0, 0.5], dtype=lib.float64)
        ts = lib.tensor([0.2, -0.1], dtype=lib.float64)

        def f(m, s):
            d = D.Normal(m, s)
            g = D.Gamma(s, m.exp())
            return d.log_prob(v) + d.entropy() + g.log_prob(v) + D.kl_divergence(
                D.Laplace(m, s), D.Laplace(s, m.exp()))
        return list(lib.func.jvp(f, (m, s), (tm, ts)))
    compare(program)


def test_vmap_through_validated_log_prob_matches_torch():
    def program(lib):
        D = lib.distributions
        xs = lib.tensor([[0.1, -0.4, 2.0], [1.0, 0.3, -0.2]], dtype=lib.float64)

        def f(m):
            return D.Normal(m, lib.ones(3, dtype=lib.float64)).log_prob(
                lib.zeros(3, dtype=lib.float64)).sum()

        def k(s):
            return D.Normal(lib.zeros(3), s).log_prob(lib.zeros(3)).sum()
        try:
            lib.func.vmap(k)(lib.tensor([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0]]))
            err = "none"
        except ValueError:
            err = "ValueError"   # (one example's scale is out of the support)
        return [lib.func.vmap(f)(xs), lib.func.vmap(lib.func.grad(f))(xs), err]
    compare(program)
