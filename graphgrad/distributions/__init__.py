"""graphgrad.distributions: PyTorch's torch.distributions, written as composites of
graphgrad's ops (autograd, double backward and forward mode run through them).

Samples come from graphgrad's generators (``graphgrad.manual_seed``), so their values are
not PyTorch's; their distributions are.  ``rsample`` is reparameterised: gradients flow
from a sample to the parameters (Gamma, Beta, Dirichlet: by the implicit derivative of the
standard gamma sampler, as PyTorch's).  See docs/differences.md for what is left out.
"""
from __future__ import annotations

from . import constraints, kl, transforms, utils  # noqa: F401
from .continuous import Cauchy, Laplace, Normal, Uniform
from .discrete import (Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical,
                       OneHotCategoricalStraightThrough, Poisson)
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Beta, Chi2, Dirichlet, Exponential, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .transformed import (ExpRelaxedCategorical, HalfNormal, LogitRelaxedBernoulli, LogNormal,
                          RelaxedBernoulli, RelaxedOneHotCategorical, TransformedDistribution)
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,
                         IndependentTransform, PowerTransform, ReshapeTransform,
                         SigmoidTransform, SoftmaxTransform, SoftplusTransform, TanhTransform,
                         Transform,
                         identity_transform)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical",
    "Cauchy", "Chi2", "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform",
    "ExpRelaxedCategorical", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "HalfNormal", "Independent",
    "IndependentTransform", "Laplace", "LogNormal", "LogitRelaxedBernoulli", "MultivariateNormal", "Normal",
    "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "PowerTransform", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
    "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "constraints",
    "identity_transform", "kl_divergence", "register_kl", "transforms",
]
