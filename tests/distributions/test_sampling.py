"""Samples: shapes and dtypes as torch's, drawn from graphgrad's generator (manual_seed
reproduces them), and their statistics (mean and variance within a few standard errors);
rsample's gradients (reparameterisation, the gamma family's implicit derivative)."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad
from graphgrad.distributions._gamma_sampler import standard_gamma_grad
from tests.distributions.common import compare

D = graphgrad.distributions
N = 20000

T = graphgrad.tensor
DISTS = {
    "Normal": lambda: D.Normal(T([0.5, -1.0]), T([1.5, 0.3])),
    "Laplace": lambda: D.Laplace(T([0.5, -1.0]), T([1.5, 0.3])),
    "Uniform": lambda: D.Uniform(T([0.5, -1.0]), T([1.5, 0.3])),
    "Gamma": lambda: D.Gamma(T([0.3, 4.0]), T([1.5, 0.5])),
    "Chi2": lambda: D.Chi2(T([3.0, 0.5])),
    "Exponential": lambda: D.Exponential(T([1.5, 0.3])),
    "Beta": lambda: D.Beta(T([0.5, 3.0]), T([2.0, 1.0])),
    "Dirichlet": lambda: D.Dirichlet(T([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0]])),
    "LogNormal": lambda: D.LogNormal(T([0.0, -1.0]), T([0.5, 0.3])),
    "HalfNormal": lambda: D.HalfNormal(T([1.5, 0.3])),
    "Bernoulli": lambda: D.Bernoulli(T([0.2, 0.7])),
    "Categorical": lambda: D.Categorical(T([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "OneHotCategorical": lambda: D.OneHotCategorical(T([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "Binomial": lambda: D.Binomial(T([5.0, 10.0]), T([0.2, 0.7])),
    "Poisson": lambda: D.Poisson(T([0.5, 12.0])),
    "Geometric": lambda: D.Geometric(T([0.2, 0.7])),
    "MultivariateNormal": lambda: D.MultivariateNormal(
        T([0.5, -1.0]), covariance_matrix=T([[2.0, 0.3], [0.3, 0.5]])),
}


@pytest.mark.parametrize("name", sorted(DISTS))
def test_sample_mean_and_variance(name):
    graphgrad.manual_seed(0)
    d = DISTS[name]()
    x = d.sample((N,)).double()
    if name == "Categorical":
        x = graphgrad.nn.functional.one_hot(x.long(), 3).double()
        mean, var = d.probs.double(), (d.probs * (1 - d.probs)).double()
    else:
        mean, var = d.mean.double(), d.variance.double()
    m, v = x.mean(0).numpy(), x.var(0).numpy()
    se = np.sqrt(var.numpy() / N)
    assert np.all(np.abs(m - mean.numpy()) < 5 * se + 1e-12), (m, mean)
    # (the variance of a sample variance: kurtosis-dependent; 10% is loose for N = 20000)
    np.testing.assert_allclose(v, var.numpy(), rtol=0.1)
    assert d.support.check(d.sample((50,))).all()


def test_manual_seed_reproduces_samples():
    for make in DISTS.values():
        graphgrad.manual_seed(3)
        a = make().sample((4,))
        graphgrad.manual_seed(3)
        b = make().sample((4,))
        assert graphgrad.equal(a, b)


@pytest.mark.parametrize("name", sorted(DISTS) + ["Cauchy", "RelaxedBernoulli",
                                                  "RelaxedOneHotCategorical"])
def test_sample_and_rsample_shapes_dtypes_and_grad_as_torch(name):
    def program(lib):
        Dl = lib.distributions
        t = lambda v: lib.tensor(v, requires_grad=True)  # noqa: E731
        if name == "Cauchy":
            d = Dl.Cauchy(t([0.5, -1.0]), t([1.5, 0.3]))
        elif name == "RelaxedBernoulli":
            d = Dl.RelaxedBernoulli(lib.tensor(0.5), t([0.2, 0.7]))
        elif name == "RelaxedOneHotCategorical":
            d = Dl.RelaxedOneHotCategorical(lib.tensor(0.5), t([[0.2, 0.8], [0.4, 0.6]]))
        else:
            src = DISTS[name]
            # the same constructor on lib's tensors (requires_grad on the float ones)
            code = src.__code__
            d = eval(compile(_source(name), "<d>", "eval"), {"D": Dl, "T": t})
            del code
        out = [d.sample().shape, d.sample((3, 2)).shape, d.sample().dtype,
               d.sample().requires_grad, d.has_rsample]
        if d.has_rsample:
            r = d.rsample((4,))
            out += [r.shape, r.dtype, r.requires_grad]
        return out
    compare(program)


def _source(name):
    import inspect
    src = inspect.getsource(DISTS[name]).split("lambda:", 1)[1].strip().rstrip(",")
    return src


def test_rsample_gradients_are_the_reparameterisation():
    loc = graphgrad.tensor([0.5, -1.0], requires_grad=True)
    scale = graphgrad.tensor([1.5, 0.3], requires_grad=True)
    x = D.Normal(loc, scale).rsample((1000,))
    gl, gs = graphgrad.autograd.grad(x.sum(), [loc, scale])
    assert np.allclose(gl.numpy(), 1000.0)
    eps = ((x - loc) / scale).detach()
    assert np.allclose(gs.numpy(), eps.sum(0).numpy(), rtol=1e-4)
    # MVN: x = loc + L eps, so d sum(x) / d L[i, j] = sum(eps[:, j])
    L = graphgrad.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
    graphgrad.manual_seed(1)
    x = D.MultivariateNormal(loc, scale_tril=L).rsample((500,))
    (gL,) = graphgrad.autograd.grad(x.sum(), [L])
    graphgrad.manual_seed(1)
    eps = graphgrad.randn(500, 2)
    assert np.allclose(gL.numpy(), np.ones((2, 1)) * eps.sum(0).numpy(), rtol=1e-4)


def test_standard_gamma_grad_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([0.05, 0.3, 1.0, 2.5, 10.0, 100.0, 0.5, 3.0, 1000.0])
    x = np.array([1e-6, 0.1, 0.7, 5.0, 8.0, 120.0, 3.0, 0.01, 990.0])
    ours = standard_gamma_grad(a, x)
    theirs = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    # (torch's is an approximation good to ~1e-4; ours is within 1e-8 of the exact value)
    np.testing.assert_allclose(ours, theirs, rtol=1e-3)


def test_gamma_rsample_gradient_has_the_mean_derivative():
    # E[x] = c / r  =>  E[dx/dc] = 1 / r and E[dx/dr] = -c / r^2
    graphgrad.manual_seed(0)
    c = graphgrad.tensor([0.4, 3.0], dtype=graphgrad.float64, requires_grad=True)
    r = graphgrad.tensor([2.0, 0.5], dtype=graphgrad.float64, requires_grad=True)
    x = D.Gamma(c, r).rsample((40000,))
    gc, gr = graphgrad.autograd.grad(x.mean(0).sum(), [c, r])
    np.testing.assert_allclose(gc.numpy(), 1 / r.detach().numpy(), rtol=0.03)
    np.testing.assert_allclose(gr.numpy(), (-c / r ** 2).detach().numpy(), rtol=0.03)
    # Beta through Dirichlet: E[x] = a / (a + b)
    a = graphgrad.tensor(2.0, dtype=graphgrad.float64, requires_grad=True)
    b = graphgrad.tensor(3.0, dtype=graphgrad.float64, requires_grad=True)
    y = D.Beta(a, b).rsample((40000,))
    ga, gb = graphgrad.autograd.grad(y.mean(), [a, b])
    np.testing.assert_allclose([ga.item(), gb.item()], [3 / 25, -2 / 25], rtol=0.05)


def test_bregman_kl_of_the_exponential_family_matches_the_closed_form():
    p = D.Normal(graphgrad.tensor([0.5, 1.0]), graphgrad.tensor([1.5, 0.7]))
    q = D.Normal(graphgrad.tensor([-0.5, 2.0]), graphgrad.tensor([1.0, 0.2]))
    generic = D.kl._kl_expfamily_expfamily(p, q)
    assert np.allclose(generic.detach().numpy(), D.kl_divergence(p, q).numpy(), rtol=1e-5)
    assert np.allclose(D.ExponentialFamily.entropy(p).detach().numpy(),
                       p.entropy().numpy(), rtol=1e-5)


def test_categorical_sample_never_draws_zero_probability_categories():
    graphgrad.manual_seed(0)
    probs = graphgrad.tensor([[0.2, 0.0, 0.3, 0.5, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0],
                              [0.0, 1e-3, 0.0, 0.0, 0.0]])   # (unnormalised rows too)
    x = D.Categorical(probs).sample((50000,)).numpy()
    freq = np.stack([np.bincount(x[:, i], minlength=5) / 50000 for i in range(3)])
    assert np.all(freq[probs.numpy() == 0] == 0)
    np.testing.assert_allclose(freq, (probs / probs.sum(-1, keepdim=True)).numpy(), atol=0.01)
    with pytest.raises(RuntimeError):
        D.Categorical(graphgrad.tensor([[0.5, float("nan")]]), validate_args=False).sample()
