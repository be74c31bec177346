"""graphgrad.distributions: PyTorch's torch.distributions, written as composites of
graphgrad's ops (autograd, double backward and forward mode run through them).

Samples come from graphgrad's generators (``graphgrad.manual_seed``), so their values are
not PyTorch's; their distributions are.  ``rsample`` is reparameterised: gradients flow
from a sample to the parameters (Gamma, Beta, Dirichlet: by the implicit derivative of the
standard gamma sampler, as PyTorch's).  Every name of torch.distributions is here, and
its submodules (``graphgrad.distributions.normal`` ...) as aliases of the modules the
classes are written in.  See docs/differences.md for what differs.
"""
from __future__ import annotations

from . import constraint_registry, constraints, kl, kl_cross, transforms, utils  # noqa: F401
from .constraint_registry import biject_to, transform_to
from .continuous import Cauchy, Laplace, Normal, Uniform
from .discrete import (Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical,
                       OneHotCategoricalStraightThrough, Poisson)
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Beta, Chi2, Dirichlet, Exponential, Gamma
from .heavy_tailed import (FisherSnedecor, Gumbel, HalfCauchy, InverseGamma, Kumaraswamy,
                           LogisticNormal, Pareto, StudentT, Weibull)
from .independent import Independent
from .kl import kl_divergence, register_kl
from .mixture import LowRankMultivariateNormal, MixtureSameFamily, Multinomial, NegativeBinomial
from .multivariate_normal import MultivariateNormal
from .von_mises import VonMises
from .generalized_pareto import GeneralizedPareto
from .lkj_cholesky import LKJCholesky
from .wishart import Wishart
from .continuous_bernoulli import ContinuousBernoulli
from .transformed import (ExpRelaxedCategorical, HalfNormal, LogitRelaxedBernoulli, LogNormal,
                          RelaxedBernoulli, RelaxedOneHotCategorical, TransformedDistribution)
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                         CorrCholeskyTransform,
                         CumulativeDistributionTransform, ExpTransform, IndependentTransform,
                         LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform,
                         ReshapeTransform, SigmoidTransform, SoftmaxTransform,
                         SoftplusTransform, StackTransform, StickBreakingTransform,
                         TanhTransform, Transform, identity_transform)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical",
    "CatTransform", "Cauchy", "Chi2", "ComposeTransform", "ContinuousBernoulli", "CorrCholeskyTransform", "CumulativeDistributionTransform", "Dirichlet",
    "Distribution", "ExpRelaxedCategorical", "ExpTransform", "Exponential",
    "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy",
    "HalfNormal", "Independent", "IndependentTransform", "InverseGamma", "Kumaraswamy", "LKJCholesky",
    "Laplace", "LogNormal", "LogisticNormal", "LogitRelaxedBernoulli",
    "LowRankMultivariateNormal", "LowerCholeskyTransform", "MixtureSameFamily",
    "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "PositiveDefiniteTransform",
    "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical", "ReshapeTransform",
    "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
    "StickBreakingTransform",
    "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "Uniform",
    "VonMises", "Weibull", "Wishart", "biject_to", "constraints", "identity_transform", "kl_divergence",
    "register_kl", "transform_to", "transforms",
]
