"""kl_divergence for the registered pairs (values and gradients) and register_kl; argument
and sample validation (PyTorch's ValueError messages), set_default_validate_args."""
from __future__ import annotations

import pytest

import graphgrad
from tests.distributions.common import compare, raised

torch = pytest.importorskip("torch")

A = [0.5, -1.0, 2.0]
B = [1.5, 0.3, 2.5]
C = [0.7, 1.3, 0.4]
PAIRS = {
    "Normal": lambda D, a, b, c: (D.Normal(a, b), D.Normal(c, a.abs() + b)),
    "Laplace": lambda D, a, b, c: (D.Laplace(a, b), D.Laplace(c, b + 1)),
    "Cauchy": lambda D, a, b, c: (D.Cauchy(a, b), D.Cauchy(c, b + 1)),
    "Uniform": lambda D, a, b, c: (D.Uniform(a, a + b), D.Uniform(a - c, a + b + c)),
    "Uniform-inf": lambda D, a, b, c: (D.Uniform(a - 1, a + b), D.Uniform(a, a + b)),
    "Uniform-Normal": lambda D, a, b, c: (D.Uniform(a, a + b), D.Normal(c, b)),
    "Exponential": lambda D, a, b, c: (D.Exponential(b), D.Exponential(c)),
    "Gamma": lambda D, a, b, c: (D.Gamma(b, c), D.Gamma(c, b)),
    "Beta": lambda D, a, b, c: (D.Beta(b, c), D.Beta(c, b)),
    "Dirichlet": lambda D, a, b, c: (D.Dirichlet(b.unsqueeze(0) + c.unsqueeze(1)),
                                     D.Dirichlet(c.unsqueeze(0) * b.unsqueeze(1))),
    "Poisson": lambda D, a, b, c: (D.Poisson(b), D.Poisson(c)),
    "Bernoulli": lambda D, a, b, c: (D.Bernoulli(logits=a), D.Bernoulli(c / 2)),
    "Geometric": lambda D, a, b, c: (D.Geometric(c / 2), D.Geometric(logits=a)),
    "Binomial": lambda D, a, b, c: (D.Binomial(4, c / 2), D.Binomial(4, logits=a)),
    "Categorical": lambda D, a, b, c: (D.Categorical(logits=a), D.Categorical(probs=c)),
    "OneHotCategorical": lambda D, a, b, c: (D.OneHotCategorical(logits=a),
                                             D.OneHotCategorical(probs=b)),
    "MVN": lambda D, a, b, c: (
        D.MultivariateNormal(a[:2], scale_tril=(b[:2].diag_embed() + c[0] * _low(a))),
        D.MultivariateNormal(c[:2], covariance_matrix=(c[:2] + 1).diag_embed())),
    "Independent": lambda D, a, b, c: (D.Independent(D.Normal(a, b), 1),
                                       D.Independent(D.Normal(c, b), 1)),
    "LogNormal": lambda D, a, b, c: (D.LogNormal(a, b), D.LogNormal(c, b + c)),
    "HalfNormal": lambda D, a, b, c: (D.HalfNormal(b), D.HalfNormal(c)),
}


def _low(t):
    lib = graphgrad if isinstance(t, graphgrad.Tensor) else torch
    return lib.tensor([[0.0, 0.0], [1.0, 0.0]], dtype=t.dtype)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_divergence_matches_torch(name):
    def program(lib):
        a, b, c = (lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in (A, B, C))
        p, q = PAIRS[name](lib.distributions, a, b, c)
        kl = lib.distributions.kl_divergence(p, q)
        finite = kl.isfinite()
        grads = lib.autograd.grad((kl * finite).nan_to_num().sum(), [a, b, c],
                                  allow_unused=True)
        return [kl, [g if g is not None else "none" for g in grads]]
    compare(program)


def test_kl_of_unregistered_pair_raises_not_implemented():
    for lib in (graphgrad, torch):
        D = lib.distributions
        e = raised(lambda lib: D.kl.kl_divergence(D.Cauchy(0.0, 1.0), D.Poisson(1.0)), lib)
        assert isinstance(e, NotImplementedError), e
        assert "Cauchy" in str(e) and "Poisson" in str(e)
        e = raised(lambda lib: D.kl.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0)), lib)
        assert isinstance(e, NotImplementedError) and "Bregman" in str(e), e


def test_register_kl_adds_a_pair_and_the_most_specific_wins():
    D = graphgrad.distributions

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    p = MyNormal(graphgrad.tensor([0.0]), graphgrad.tensor([1.0]))
    q = D.Normal(graphgrad.tensor([1.0]), graphgrad.tensor([1.0]))
    assert D.kl_divergence(p, q).item() == 42.0
    assert D.kl_divergence(q, q).item() == 0.0   # Normal-Normal still the closed form
    assert D.kl_divergence(q, p).item() == 0.5   # (p, MyNormal) matches (Normal, Normal)
    with pytest.raises(TypeError):
        D.register_kl(1, D.Normal)


# ------------------------------------------------------------------ validation
BAD_PARAMS = {
    "Normal-scale": lambda lib, D: D.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
    "Normal-loc-nan": lambda lib, D: D.Normal(lib.tensor([float("nan")]), lib.tensor([1.0])),
    "Bernoulli": lambda lib, D: D.Bernoulli(lib.tensor([1.5])),
    "Categorical": lambda lib, D: D.Categorical(lib.tensor([0.5, -0.1])),
    "Uniform": lambda lib, D: D.Uniform(lib.tensor([1.0]), lib.tensor([0.0])),
    "Gamma": lambda lib, D: D.Gamma(lib.tensor([0.0]), lib.tensor([1.0])),
    "Beta": lambda lib, D: D.Beta(lib.tensor([-1.0]), lib.tensor([1.0])),
    "Dirichlet": lambda lib, D: D.Dirichlet(lib.tensor([1.0, -1.0])),
    "Poisson": lambda lib, D: D.Poisson(lib.tensor([-1.0])),
    "Binomial": lambda lib, D: D.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
    "MVN-cov": lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0],
                                                                            [2.0, 1.0]])),
    "MVN-tril": lambda lib, D: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor(
        [[1.0, 1.0], [0.0, 1.0]])),
    "LogNormal": lambda lib, D: D.LogNormal(lib.tensor([0.0]), lib.tensor([0.0])),
    "both": lambda lib, D: D.Bernoulli(lib.tensor([0.5]), lib.tensor([0.0])),
    "neither": lambda lib, D: D.Categorical(),
    "0-d probs": lambda lib, D: D.Categorical(lib.tensor(0.5)),
    "MVN-two": lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    "Independent": lambda lib, D: D.Independent(D.Normal(lib.zeros(2), 1.0), 2),
}


@pytest.mark.parametrize("name", sorted(BAD_PARAMS))
def test_invalid_parameters_raise_value_error_as_torch(name):
    ours = raised(lambda lib: BAD_PARAMS[name](lib, lib.distributions), graphgrad)
    theirs = raised(lambda lib: BAD_PARAMS[name](lib, lib.distributions), torch)
    assert type(ours) is type(theirs) is ValueError, (ours, theirs)
    if "Expected parameter" in str(theirs):
        head = str(theirs).split(" of distribution")[0]
        assert str(ours).startswith(head.replace("torch", "graphgrad")), (ours, theirs)
        assert "to satisfy the constraint" in str(ours) and "invalid values" in str(ours)


BAD_VALUES = {
    "Normal-nan": (lambda lib, D: D.Normal(0.0, 1.0), lambda lib: lib.tensor(float("nan"))),
    "Exponential": (lambda lib, D: D.Exponential(1.0), lambda lib: lib.tensor([-1.0])),
    "Bernoulli": (lambda lib, D: D.Bernoulli(0.5), lambda lib: lib.tensor([0.5])),
    "Categorical": (lambda lib, D: D.Categorical(lib.ones(3)), lambda lib: lib.tensor([3])),
    "Poisson": (lambda lib, D: D.Poisson(1.0), lambda lib: lib.tensor([1.5])),
    "Beta": (lambda lib, D: D.Beta(1.0, 2.0), lambda lib: lib.tensor([1.5])),
    "Dirichlet": (lambda lib, D: D.Dirichlet(lib.ones(2)), lambda lib: lib.tensor([0.5, 0.6])),
    "Uniform": (lambda lib, D: D.Uniform(0.0, 1.0), lambda lib: lib.tensor([1.5])),
    "MVN-event": (lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                  lambda lib: lib.zeros(3)),
    "batch": (lambda lib, D: D.Normal(lib.zeros(3), 1.0), lambda lib: lib.zeros(2)),
    "not-tensor": (lambda lib, D: D.Normal(0.0, 1.0), lambda lib: 0.5),
    "LogNormal": (lambda lib, D: D.LogNormal(0.0, 1.0), lambda lib: lib.tensor([-1.0])),
}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_values_outside_the_support_raise_value_error_as_torch(name):
    make, value = BAD_VALUES[name]

    def program(lib):
        return make(lib, lib.distributions).log_prob(value(lib))
    ours, theirs = raised(program, graphgrad), raised(program, torch)
    assert type(ours) is type(theirs), (ours, theirs)
    if theirs is not None:
        assert isinstance(ours, ValueError)
        for phrase in ("Expected value argument", "to be within the support",
                       "right-most size of value must match", "not broadcastable"):
            assert (phrase in str(ours)) == (phrase in str(theirs)), (ours, theirs)


def test_validate_args_false_and_set_default_validate_args():
    def program(lib):
        D = lib.distributions
        out = [D.Normal(0.0, -1.0, validate_args=False).scale,
               D.Exponential(1.0, validate_args=False).log_prob(lib.tensor([-1.0]))]
        D.Distribution.set_default_validate_args(False)
        try:
            out.append(D.Normal(0.0, 1.0).log_prob(lib.tensor(float("nan"))))
            out.append(D.Gamma(-1.0, 1.0).concentration)
        finally:
            D.Distribution.set_default_validate_args(True)
        out.append(type(raised(lambda lib: D.Normal(0.0, -1.0), lib)).__name__)
        out.append(type(raised(lambda lib: D.Distribution.set_default_validate_args(2),
                               lib)).__name__)
        return out
    compare(program)


def test_constraint_checks_match_torch():
    def program(lib):
        C = lib.distributions.constraints
        x = lib.tensor([[-1.0, 0.0, 0.5, 1.0, 2.0, float("inf")]])
        m = lib.tensor([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.2], [0.0, 1.0]]])
        out = {n: getattr(C, n).check(x) for n in (
            "real", "positive", "nonnegative", "unit_interval", "boolean",
            "nonnegative_integer", "positive_integer")}
        out.update({
            "interval": C.interval(0.0, 1.0).check(x),
            "half_open": C.half_open_interval(0.0, 1.0).check(x),
            "greater_than": C.greater_than(0.5).check(x),
            "greater_than_eq": C.greater_than_eq(0.5).check(x),
            "less_than": C.less_than(0.5).check(x),
            "integer_interval": C.integer_interval(0, 1).check(x),
            "real_vector": C.real_vector.check(x),
            "simplex": C.simplex.check(lib.tensor([[0.2, 0.8], [0.5, 0.6]])),
            "one_hot": C.one_hot.check(lib.tensor([[0.0, 1.0], [1.0, 1.0]])),
            "lower_triangular": C.lower_triangular.check(m),
            "lower_cholesky": C.lower_cholesky.check(m),
            "positive_definite": C.positive_definite.check(m @ m.mT),
            "symmetric": C.symmetric.check(m),
            "square": C.square.check(m),
            "independent": C.independent(C.positive, 1).check(x.abs() + 1),
        })
        out["reprs"] = [repr(C.real), repr(C.positive), repr(C.interval(0.0, 1.0)),
                        repr(C.independent(C.real, 1)), repr(C.simplex),
                        C.is_dependent(C.dependent), C.is_dependent(C.real),
                        C.positive.event_dim, C.real_vector.event_dim,
                        C.boolean.is_discrete, C.simplex.is_discrete]
        return out
    compare(program)
