"""The closed-form KL divergences between different families (and Gumbel, Pareto,
low-rank normals), registered with kl.register_kl on import.

Most are written as KL(p || q) = -H(p) - E_p[log q(X)], with E_p[log q] from p's moments:
a Normal q needs p's mean and variance, an Exponential or Gamma q E_p[X] and E_p[log X],
a Gumbel q the moment generating function of p at -1/scale.  Where p's support is not
inside q's the divergence is +inf.
"""
from __future__ import annotations

import math

from . import _ops
from .continuous import Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Bernoulli, Binomial, Poisson
from .gamma import Beta, Exponential, Gamma
from .heavy_tailed import Gumbel, Pareto
from .kl import _kl_multivariatenormal_multivariatenormal, register_kl
from .mixture import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal

__all__ = []

_EULER_GAMMA = 0.57721566490153286060
_inf = math.inf


def _infinite_like(t):
    return _ops.full(t.shape, _inf, dtype=t.dtype)


def _x_log_x(t):
    return _ops.xlogy(t, t)   # (0 at 0)


# ------------------------------------------------------------- moments E_p[X], E_p[log X]
def _mean_log(p):
    """E_p[log X] for p on (0, inf)."""
    if isinstance(p, Beta):
        return p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    if isinstance(p, Exponential):
        return -p.rate.log() - _EULER_GAMMA
    if isinstance(p, Pareto):
        return p.scale.log() + p.alpha.reciprocal()
    if isinstance(p, Uniform):   # (on [low, high] inside (0, inf))
        width = p.high - p.low
        return (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    if isinstance(p, Gamma):
        return p.concentration.digamma() - p.rate.log()
    raise NotImplementedError


def _mgf(p, t):
    """E_p[exp(t X)] (t < 0 where it matters)."""
    if isinstance(p, Exponential):
        return p.rate / (p.rate - t)
    if isinstance(p, Gamma):
        return (1 - t / p.rate).pow(-p.concentration)
    if isinstance(p, Normal):
        return (t * p.loc + 0.5 * (t * p.scale).pow(2)).exp()
    if isinstance(p, Uniform):
        return ((t * p.high).exp() - (t * p.low).exp()) / (t * (p.high - p.low))
    raise NotImplementedError


# ------------------------------------------------------------------ E_p[log q(X)] by q
def _cross_normal(p, q):
    var_q = q.scale.pow(2)
    second = p.variance + (p.mean - q.loc).pow(2)   # E_p[(X - loc_q)^2]
    return -0.5 * (2 * math.pi * var_q).log() - second / (2 * var_q)


def _cross_exponential(p, q):
    return q.rate.log() - q.rate * p.mean


def _cross_gamma(p, q):
    k, r = q.concentration, q.rate
    return k * r.log() - k.lgamma() + (k - 1) * _mean_log(p) - r * p.mean


def _cross_gumbel(p, q):
    # log q(x) = -log s + (loc - x) / s - exp((loc - x) / s)
    s = q.scale
    return (-s.log() + (q.loc - p.mean) / s
            - (q.loc / s).exp() * _mgf(p, -s.reciprocal()))


def _cross_continuous_bernoulli(p, q):
    # log q(x) = log C(probs_q) + x logit_q + log(1 - probs_q)
    return q._cont_bern_log_norm() + p.mean * q.logits + (-q.probs).log1p()


def _kl_by_cross_entropy(cross):
    def kl(p, q):
        return -p.entropy() - cross(p, q)
    return kl


for _p in (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Uniform):
    register_kl(_p, Normal)(_kl_by_cross_entropy(_cross_normal))
for _p in (Beta, ContinuousBernoulli):
    register_kl(_p, ContinuousBernoulli)(_kl_by_cross_entropy(_cross_continuous_bernoulli))
for _p in (Beta, ContinuousBernoulli, Gamma):
    register_kl(_p, Exponential)(_kl_by_cross_entropy(_cross_exponential))
for _p in (Beta, Exponential):
    register_kl(_p, Gamma)(_kl_by_cross_entropy(_cross_gamma))
for _p in (Exponential, Gamma, Normal):
    register_kl(_p, Gumbel)(_kl_by_cross_entropy(_cross_gumbel))


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    a = _ops.where(p.alpha > 2, p.alpha, 3.0)   # (finite variance only when alpha > 2)
    safe = Pareto(p.scale, a, validate_args=False)
    return _ops.where(p.alpha > 2, -safe.entropy() - _cross_normal(safe, q), _inf)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    a = _ops.where(p.alpha > 1, p.alpha, 2.0)
    safe = Pareto(p.scale, a, validate_args=False)
    return _ops.where(p.alpha > 1, -safe.entropy() - _cross_exponential(safe, q), _inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    a = _ops.where(p.alpha > 1, p.alpha, 2.0)
    safe = Pareto(p.scale, a, validate_args=False)
    return _ops.where(p.alpha > 1, -safe.entropy() - _cross_gamma(safe, q), _inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    return _ops.where(p.low < 0, _inf, -p.entropy() - _cross_exponential(p, q))


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    return _ops.where(p.low < 0, _inf, -p.entropy() - _cross_gamma(p, q))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    return -p.entropy() - _cross_gumbel(p, q)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    width = p.high - p.low
    mean_log_x = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    mean_log_1mx = (_x_log_x(1 - p.low) - _x_log_x(1 - p.high) - width) / width
    log_q = ((a - 1) * mean_log_x + (b - 1) * mean_log_1mx
             - (a.lgamma() + b.lgamma() - (a + b).lgamma()))
    return _ops.where((p.high > 1) | (p.low < 0), _inf, -p.entropy() - log_q)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    mean_log_x = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    log_q = q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * mean_log_x
    return _ops.where(p.low < q.scale, _inf, -p.entropy() - log_q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    # (PyTorch's is inf also when the uniform's interval is [0, 1] itself)
    return _ops.where((p.high > 1) | (p.low < 0), _inf,
                      -p.entropy() - _cross_continuous_bernoulli(p, q))


@register_kl(ContinuousBernoulli, Uniform)
@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _ops.where((q.low > 0) | (q.high < 1), _inf, result)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    d = p.loc - q.loc
    # E|X - loc_q| of the normal: a folded normal's mean
    mean_abs = (math.sqrt(2 / math.pi) * p.scale * (-0.5 * (d / p.scale).pow(2)).exp()
                + d * (d / (p.scale * math.sqrt(2))).erf())
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # E_p[log q(X)] = p log(rate) - rate (log 0! = log 1! = 0)
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # E_p[exp(-X / s_q)] = exp(-loc_p / s_q) Gamma(1 + s_p / s_q)
    r = p.scale / q.scale
    mean_exp = (-p.loc / q.scale + (1 + r).lgamma()).exp()
    log_q = (-q.scale.log() + (q.loc - p.mean) / q.scale - (q.loc / q.scale).exp() * mean_exp)
    return -p.entropy() - log_q


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    log_q = q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * _mean_log(p)
    return _ops.where(p.scale < q.scale, _inf, -p.entropy() - log_q)


def _infinite(p, q):
    for name in ("loc", "rate", "concentration", "scale", "concentration1", "probs", "_param"):
        t = getattr(p, name, None)
        if isinstance(t, _ops.Tensor):
            return _infinite_like(t)
    raise NotImplementedError


# p's support is not inside q's: +inf
_CB = ContinuousBernoulli
for _p, _qs in ((Beta, (Pareto,)), (_CB, (Pareto,)), (Exponential, (Beta, _CB, Pareto, Uniform)),
                (Gamma, (Beta, _CB, Pareto, Uniform)),
                (Gumbel, (Beta, _CB, Exponential, Gamma, Pareto, Uniform)),
                (Laplace, (Beta, _CB, Exponential, Gamma, Pareto, Uniform)),
                (Normal, (Beta, _CB, Exponential, Gamma, Pareto, Uniform)),
                (Pareto, (Beta, _CB, Uniform)), (Poisson, (Bernoulli, Binomial))):
    for _q in _qs:
        register_kl(_p, _q)(_infinite)


def _as_full_rank(d):
    if isinstance(d, LowRankMultivariateNormal):
        return MultivariateNormal(d.loc, scale_tril=d.scale_tril, validate_args=False)
    return d


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with "
                         "different event shapes cannot be computed")
    return _kl_multivariatenormal_multivariatenormal(_as_full_rank(p), _as_full_rank(q))
