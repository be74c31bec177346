"""The less common distributions (StudentT, FisherSnedecor, Gumbel, HalfCauchy, Pareto,
Weibull, Kumaraswamy, InverseGamma, LogisticNormal, Multinomial, NegativeBinomial,
MixtureSameFamily, LowRankMultivariateNormal), biject_to / transform_to and the matrix and
simplex transforms, against torch."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from tests.distributions.common import compare, raised
from tests.distributions.test_values import _program

torch = pytest.importorskip("torch")

POS = {"a": [0.5, 2.0, 7.0], "b": [1.5, 0.3, 2.5]}
P2 = {"a": [0.5, -1.0, 2.0], "b": [1.5, 0.3, 2.5]}
CASES = {
    "StudentT": (POS, lambda D, p: D.StudentT(p["a"], p["b"] - 1, p["b"]), [0.2, 0.7, -3.0],
                 ("log_prob", "entropy", "mean", "mode", "variance")),
    "StudentT-df": ({"a": [0.5, 1.5, 3.0]}, lambda D, p: D.StudentT(p["a"]), [0.2, 0.7, -3.0],
                    ("log_prob", "entropy", "mean", "variance")),
    "FisherSnedecor": ({"a": [1.5, 3.0, 7.0], "b": [1.5, 3.0, 9.0]},
                       lambda D, p: D.FisherSnedecor(p["a"], p["b"]), [0.2, 0.7, 3.0],
                       ("log_prob", "mean", "mode", "variance")),
    "Gumbel": (P2, lambda D, p: D.Gumbel(p["a"], p["b"]), [0.2, 0.7, -3.0],
               ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")),
    "HalfCauchy": (POS, lambda D, p: D.HalfCauchy(p["b"]), [0.2, 0.7, 3.0],
                   ("log_prob", "cdf", "icdf", "entropy", "mean", "mode")),
    "Pareto": (POS, lambda D, p: D.Pareto(p["b"] / 10, p["a"]), [0.2, 0.7, 3.0],
               ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    "Weibull": (POS, lambda D, p: D.Weibull(p["b"], p["a"]), [0.2, 0.7, 3.0],
                ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    "Kumaraswamy": (POS, lambda D, p: D.Kumaraswamy(p["a"], p["b"]), [0.2, 0.7, 0.9],
                    ("log_prob", "entropy", "mean", "mode", "variance")),
    "InverseGamma": ({"a": [0.5, 2.5, 7.0], "b": [1.5, 0.3, 2.5]},
                     lambda D, p: D.InverseGamma(p["a"], p["b"]), [0.2, 0.7, 3.0],
                     ("log_prob", "entropy", "mean", "mode", "variance")),
    "LogisticNormal": (P2, lambda D, p: D.LogisticNormal(p["a"], p["b"]),
                       [[0.2, 0.3, 0.1, 0.4]], ("log_prob",)),
    "Multinomial": ({"a": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]},
                    lambda D, p: D.Multinomial(4, p["a"]), [[1.0, 0.0, 3.0], [2.0, 2.0, 0.0]],
                    ("log_prob", "entropy", "mean", "variance")),
    "Multinomial-logits": (P2, lambda D, p: D.Multinomial(3, logits=p["a"]),
                           [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], ("log_prob", "mean")),
    "NegativeBinomial": (POS, lambda D, p: D.NegativeBinomial(p["a"], p["b"] / 3),
                         [0.0, 2.0, 5.0], ("log_prob", "mean", "mode", "variance")),
    "NegativeBinomial-logits": (P2, lambda D, p: D.NegativeBinomial(3.0, logits=p["a"]),
                                [0.0, 2.0, 5.0], ("log_prob", "mean", "variance")),
    "MixtureSameFamily": (P2, lambda D, p: D.MixtureSameFamily(
        D.Categorical(logits=p["a"]), D.Normal(p["a"], p["b"])), [[0.2], [0.7], [-3.0]],
        ("log_prob", "cdf", "mean", "variance")),
    "MixtureSameFamily-MVN": (P2, lambda D, p: D.MixtureSameFamily(
        D.Categorical(logits=p["a"]), D.Independent(
            D.Normal(p["a"].unsqueeze(-1).expand(3, 2), p["b"].unsqueeze(-1).expand(3, 2)), 1)),
        [[0.2, 0.1], [0.7, -1.0]], ("log_prob", "mean", "variance")),
    "ContinuousBernoulli": ({"a": [0.1, 0.4995, 0.7]},
                            lambda D, p: D.ContinuousBernoulli(p["a"]), [0.2, 0.6, 0.9],
                            ("log_prob", "cdf", "icdf", "entropy", "mean", "variance",
                             "stddev")),
    "ContinuousBernoulli-logits": ({"a": [-2.0, 0.0001, 1.5]},
                                   lambda D, p: D.ContinuousBernoulli(logits=p["a"]),
                                   [0.2, 0.6, 0.9], ("log_prob", "entropy", "mean")),
    "LowRankMVN": ({"a": [0.5, -1.0, 2.0], "b": [1.5, 0.3, 2.5],
                    "w": [[0.3, 1.0], [-0.5, 0.2], [0.1, 0.1]]},
                   lambda D, p: D.LowRankMultivariateNormal(p["a"], p["w"], p["b"]),
                   [[0.2, 0.7, -3.0]], ("log_prob", "entropy", "mean", "variance")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    # (torch's Multinomial.entropy rounds lgamma(n + 1) to float32: docs/differences.md)
    compare(_program(name, CASES), tol=(1e-7, 1e-9) if name == "Multinomial" else None)


def test_lowrank_mvn_matrices_match_torch():
    def program(lib):
        W = lib.tensor([[0.3, 1.0], [-0.5, 0.2], [0.1, 0.1]], dtype=lib.float64)
        d = lib.distributions.LowRankMultivariateNormal(
            lib.zeros(3, dtype=lib.float64), W, lib.tensor([1.5, 0.3, 2.5], dtype=lib.float64))
        return [d.covariance_matrix, d.precision_matrix, d.scale_tril,
                d.expand((2,)).log_prob(lib.ones(3, dtype=lib.float64)),
                d.rsample((4,)).shape]
    compare(program)


def test_samples_of_the_new_distributions():
    D, T = graphgrad.distributions, graphgrad.tensor
    graphgrad.manual_seed(0)
    n = 20000
    for d in (D.StudentT(T([5.0, 9.0]), T([0.5, -1.0]), T([1.0, 2.0])),
              D.Gumbel(T([0.5, -1.0]), T([1.0, 2.0])), D.Weibull(T([1.0, 2.0]), T([1.5, 3.0])),
              D.Kumaraswamy(T([2.0, 3.0]), T([1.5, 4.0])),
              D.InverseGamma(T([5.0, 9.0]), T([1.0, 2.0])),
              D.FisherSnedecor(T([6.0, 9.0]), T([12.0, 15.0])),
              D.Multinomial(5, T([0.2, 0.3, 0.5])),
              D.NegativeBinomial(T([3.0, 5.0]), T([0.3, 0.6])),
              D.MixtureSameFamily(D.Categorical(T([0.3, 0.7])), D.Normal(T([-1.0, 2.0]),
                                                                        T([0.5, 1.0]))),
              D.LowRankMultivariateNormal(T([0.0, 1.0]), T([[1.0], [0.5]]), T([0.5, 0.2]))):
        x = d.sample((n,)).double()
        assert tuple(x.shape) == (n,) + tuple(d.batch_shape) + tuple(d.event_shape)
        mean, var = d.mean.double().numpy(), d.variance.double().numpy()
        np.testing.assert_allclose(x.mean(0).numpy(), mean, atol=6 * np.sqrt(var.max() / n),
                                   err_msg=type(d).__name__)
        np.testing.assert_allclose(x.var(0).numpy(), var, rtol=0.15, err_msg=type(d).__name__)
        assert bool(d.support.check(x).all()), type(d).__name__
    s = D.LogisticNormal(T([0.0, 1.0]), T([1.0, 0.5])).rsample((5,))
    assert tuple(s.shape) == (5, 3) and np.allclose(s.sum(-1).numpy(), 1.0)


def test_mixture_errors_as_torch():
    for lib in (graphgrad, torch):
        D = lib.distributions
        for make in (lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(lib.zeros(2), 1.0)),
                     lambda: D.MixtureSameFamily(D.Categorical(lib.ones(3)),
                                                 D.Normal(lib.zeros(2), 1.0)),
                     lambda: D.Multinomial(lib.tensor(3), lib.ones(3))):
            e = raised(lambda lib: make(), lib)
            assert type(e) in (ValueError, NotImplementedError), e


CONSTRAINTS = {
    "real": lambda C: C.real, "positive": lambda C: C.positive,
    "nonnegative": lambda C: C.nonnegative, "unit_interval": lambda C: C.unit_interval,
    "interval": lambda C: C.interval(-2.0, 3.0), "greater_than": lambda C: C.greater_than(1.5),
    "less_than": lambda C: C.less_than(1.5), "simplex": lambda C: C.simplex,
    "real_vector": lambda C: C.real_vector,
    "independent": lambda C: C.independent(C.positive, 1),
    "lower_cholesky": lambda C: C.lower_cholesky,
    "corr_cholesky": lambda C: C.corr_cholesky,
    "positive_definite": lambda C: C.positive_definite,
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to_match_torch(name, registry):
    def program(lib):
        D = lib.distributions
        c = CONSTRAINTS[name](D.constraints)
        try:
            t = getattr(D, registry)(c)
        except NotImplementedError:
            return "not registered"
        x = lib.tensor([[0.3, -0.9, 1.7], [0.2, 0.5, -0.1], [1.0, -2.0, 0.4]],
                       dtype=lib.float64, requires_grad=True)
        y = t(x)
        out = [y, bool(c.check(y).all())]
        if name not in ("lower_cholesky", "positive_definite"):
            out.append(t.inv(y))
        try:
            ladj = t.log_abs_det_jacobian(x, y)
        except NotImplementedError:
            return out + ["no log_abs_det_jacobian"]
        return out + [ladj, lib.autograd.grad(ladj.sum() + y.sum(), x)[0]]
    compare(program)


def test_unregistered_constraint_raises_not_implemented():
    for lib in (graphgrad, torch):
        D = lib.distributions
        e = raised(lambda lib: D.biject_to(D.constraints.boolean), lib)
        assert isinstance(e, NotImplementedError), e


CAT_STACK = {
    "cat": lambda T, lib: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0),
                                          T.SigmoidTransform()], dim=1, lengths=[1, 1, 1]),
    "cat-lengths": lambda T, lib: T.CatTransform([T.ExpTransform(), T.TanhTransform()],
                                                 dim=-1, lengths=[2, 1]),
    "cat-event": lambda T, lib: T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                                                T.IndependentTransform(T.TanhTransform(), 1)],
                                               dim=0, lengths=[2, 1]),
    "stack": lambda T, lib: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                              T.AffineTransform(0.5, -1.0)], dim=1),
}


@pytest.mark.parametrize("name", sorted(CAT_STACK))
def test_cat_and_stack_transforms_match_torch(name):
    def program(lib):
        T = lib.distributions.transforms
        t = CAT_STACK[name](T, lib)
        x = lib.tensor([[0.3, -0.9, 1.7], [0.2, 0.5, -0.1], [1.0, -2.0, 0.4]],
                       dtype=lib.float64, requires_grad=True)
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        return [y, t.inv(y), ladj, lib.autograd.grad(ladj.sum() + y.sum(), x)[0],
                t.bijective, t.event_dim if name.startswith("cat") else "-",
                t.codomain.check(y), t.domain.check(x)]
    compare(program)


def test_biject_to_cat_and_stack_constraints_match_torch():
    def program(lib):
        D = lib.distributions
        C = D.constraints
        x = lib.tensor([[0.3, -0.9, 1.7], [0.2, 0.5, -0.1]], dtype=lib.float64)
        c1 = C.cat([C.positive, C.real, C.unit_interval], dim=1)
        c2 = C.stack([C.positive, C.interval(-1.0, 2.0), C.greater_than(3.0)], dim=1)
        return [D.biject_to(c1)(x), D.transform_to(c2)(x), c1.check(D.biject_to(c1)(x)),
                c2.check(D.biject_to(c2)(x))]
    compare(program)


def test_von_mises_matches_torch():
    def program(lib):
        D = lib.distributions
        loc = lib.tensor([0.5, -1.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
        k = lib.tensor([0.01, 1.5, 30.0, 800.0], dtype=lib.float64, requires_grad=True)
        d = D.VonMises(loc, k)
        v = lib.tensor([0.2, 0.7, 2.1, 0.01], dtype=lib.float64)
        lp = d.log_prob(v)
        out = [lp, d.mean, d.mode, d.variance,
               lib.autograd.grad(lp.sum() + d.variance.sum(), [loc, k]),
               d.sample((3,)).shape, d.sample().dtype, d.expand((2, 4)).log_prob(v)]
        f = D.VonMises(lib.tensor([0.5]), lib.tensor([200.0]))
        out.append(f.log_prob(lib.tensor([0.4])))
        return out
    # (torch's log I0 and I1 / I0 are polynomial approximations: 1e-6 relative at
    # concentration 30, 4e-4 at 800; graphgrad's are exact to ~1e-12, below)
    ours = compare(program, tol=(5e-4, 1e-9))
    exact = [0.9950000624989583, 0.4038667611687091, 0.016810444634663968,
             0.0006251955571187073]   # 1 - i1e(k) / i0e(k), SciPy
    np.testing.assert_allclose(ours[3].detach().numpy(), exact, rtol=1e-10)


def test_von_mises_samples_follow_the_density():
    D = graphgrad.distributions
    graphgrad.manual_seed(0)
    d = D.VonMises(graphgrad.tensor([0.5, 3.0]), graphgrad.tensor([2.0, 0.3]))
    x = d.sample((40000,)).double()
    assert bool(((x >= -np.pi) & (x < np.pi)).all())
    # circular mean direction and mean resultant length 1 - variance
    c, s = x.cos().mean(0), x.sin().mean(0)
    np.testing.assert_allclose(np.arctan2(s.numpy(), c.numpy()), [0.5, 3.0], atol=0.05)
    np.testing.assert_allclose((c ** 2 + s ** 2).sqrt().numpy(),
                               1 - d.variance.double().numpy(), atol=0.01)


@pytest.mark.parametrize("c", [[0.3, 0.0, -0.2], [-1.0, 1e-9, 0.7]])
def test_generalized_pareto_matches_torch(c):
    # (float32: torch's raises for float64 parameters, docs/differences.md)
    def program(lib):
        D = lib.distributions
        p = [lib.tensor(v, requires_grad=True) for v in ([0.5, -1.0, 2.0], [1.5, 0.3, 2.5], c)]
        d = D.GeneralizedPareto(*p)
        v = lib.tensor([1.2, -0.5, 2.1])
        u = lib.tensor([0.1, 0.5, 0.8])
        out = [d.log_prob(v), d.cdf(v), d.icdf(u), d.entropy(), d.mean, d.mode, d.variance,
               d.log_survival_function(v), repr(d.support.lower_bound.shape),
               d.rsample((2,)).shape, d.expand((2, 3)).batch_shape]
        total = sum((o * o.isfinite()).nan_to_num().sum() for o in out[:8])
        out.append(lib.autograd.grad(total, p))
        return out
    compare(program, tol=(2e-5, 1e-6))


def test_generalized_pareto_float64_works():
    D = graphgrad.distributions
    d = D.GeneralizedPareto(graphgrad.tensor([0.0], dtype=graphgrad.float64), 1.0, 0.0)
    assert np.isclose(d.log_prob(graphgrad.tensor([2.0], dtype=graphgrad.float64)).item(), -2.0)


def test_lkj_cholesky_matches_torch():
    def program(lib):
        D = lib.distributions
        x = lib.tensor([[0.3, -0.9, 1.7, 0.2, 0.5, -0.1], [1.0, -2.0, 0.4, 0.0, 0.1, 0.3]],
                       dtype=lib.float64)
        L = D.CorrCholeskyTransform()(x)
        eta = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        d = D.LKJCholesky(4, eta)
        lp = d.log_prob(L)
        out = [lp, lib.autograd.grad(lp.sum(), eta)[0], str(d.batch_shape), str(d.event_shape),
               d.sample((3,)).shape, d.expand((5, 2)).log_prob(L), repr(d.support),
               D.LKJCholesky(2, 1.5).log_prob(lib.tensor([[1.0, 0.0], [0.6, 0.8]]))]
        return out
    compare(program)
    for lib in (graphgrad, torch):
        e = raised(lambda lib: lib.distributions.LKJCholesky(1, 1.0), lib)
        assert isinstance(e, ValueError)


@pytest.mark.parametrize("eta", [0.5, 1.0, 3.0])
def test_lkj_cholesky_samples(eta):
    # a correlation of the LKJ(eta) distribution in dimension d is 2 Beta(b, b) - 1,
    # b = eta - 1 + d / 2: mean 0, variance 1 / (2 eta + d - 1)
    graphgrad.manual_seed(0)
    d = graphgrad.distributions.LKJCholesky(4, eta)
    L = d.sample((20000,))
    assert bool(d.support.check(L).all())
    L = L.double()
    C = (L @ L.mT).numpy()
    for i, j in ((1, 0), (2, 0), (2, 1), (3, 0), (3, 2)):   # (torch's fail from row 2 on)
        r = C[:, i, j]
        assert abs(r.mean()) < 0.02
        np.testing.assert_allclose(r.var(), 1 / (2 * eta + 4 - 1), rtol=0.06)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_matches_torch(param):
    def program(lib):
        D = lib.distributions
        S = lib.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], dtype=lib.float64)
        m = lib.linalg.cholesky(S) if param == "scale_tril" else S
        m = m.clone().requires_grad_()
        df = lib.tensor([4.5, 7.0], dtype=lib.float64, requires_grad=True)
        d = D.Wishart(df, **{param: m})
        X = lib.tensor([[1.5, 0.2, 0.0], [0.2, 2.0, 0.4], [0.0, 0.4, 0.9]], dtype=lib.float64)
        out = [d.log_prob(X), d.entropy(), d.mean, d.mode, d.variance,
               str(d.batch_shape), str(d.event_shape), d.rsample((2,)).shape,
               d.expand((3, 2)).log_prob(X)]
        total = sum(o.sum() for o in out[:5])
        g_df, g_m = lib.autograd.grad(total, [df, m])
        # (a scale_tril's upper triangle is not a parameter: formulas that read it or not
        # are equally right, and torch's cholesky_solve reads it)
        out.append([g_df, g_m.tril() if param == "scale_tril" else g_m])
        out.append(D.kl_divergence(d, D.Wishart(df + 1, covariance_matrix=S)))
        return out
    compare(program, tol=(1e-8, 1e-10))
    for lib in (graphgrad, torch):
        e = raised(lambda lib: lib.distributions.Wishart(1.5, covariance_matrix=lib.eye(3)),
                   lib)
        assert isinstance(e, ValueError)


def test_wishart_samples():
    graphgrad.manual_seed(0)
    S = graphgrad.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=graphgrad.float64)
    d = graphgrad.distributions.Wishart(graphgrad.tensor(5.0, dtype=graphgrad.float64),
                                        covariance_matrix=S)
    X = d.sample((20000,))
    assert bool(d.support.check(X).all())
    np.testing.assert_allclose(X.mean(0).numpy(), d.mean.numpy(), rtol=0.03, atol=0.02)
    np.testing.assert_allclose(X.var(0).numpy(), d.variance.numpy(), rtol=0.08)


def test_mixture_support_and_validation_match_torch():
    def program(lib):
        D = lib.distributions
        m = D.MixtureSameFamily(D.Categorical(lib.ones(2)), D.Gamma(lib.ones(2), lib.ones(2)))
        s = m.support
        v = lib.tensor([[0.5], [-1.0]]).squeeze(-1)
        out = [repr(s), s.check(v), s.event_dim, s.is_discrete]
        try:
            m.log_prob(v)
            out.append("none")
        except ValueError:
            out.append("ValueError")
        mv = D.MixtureSameFamily(D.Categorical(lib.ones(2)),
                                 D.Dirichlet(lib.ones(2, 3)))
        out.append(mv.support.check(lib.tensor([[0.2, 0.3, 0.5], [0.5, 0.6, 0.1]])))
        return out
    compare(program)
