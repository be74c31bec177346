"""torch.distributions.ContinuousBernoulli (Loaiza-Ganem & Cunningham, 2019): density
C(p) p^x (1 - p)^(1 - x) on [0, 1], the likelihood of VAEs on [0, 1]-valued data.

Near p = 1/2 (inside ``lims``) the closed forms divide 0 by 0; there the log normaliser,
mean and variance are their Taylor expansions in (p - 1/2), and cdf/icdf the uniform's."""
from __future__ import annotations

import math
import numbers

from . import _ops, constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution with ``probs`` (or ``logits``) in (0, 1)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = _ops.Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, ("probs", "logits"), _instance)
        new._lims = self._lims
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    # -------------------------------------------------------------- the stable pieces
    def _stable(self):
        """Where p is outside the 0/0 region around 1/2."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _p_cut(self):
        """p where stable, lims[0] elsewhere (so the closed forms stay finite there)."""
        return _ops.where(self._stable(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self):
        """log C(p) = log |log(1-p) - log p| - log |1 - 2p|; log 2 + 4/3 d + 104/45 d^2,
        d = (p - 1/2)^2, near 1/2."""
        p = self._p_cut()
        log_odds_gap = ((-p).log1p() - p.log()).abs().log()
        below = _ops.where(p <= 0.5, p, 0.0)
        above = _ops.where(p >= 0.5, p, 1.0)
        log_gap = _ops.where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        d = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d) * d
        return _ops.where(self._stable(), log_odds_gap - log_gap, taylor)

    @property
    def mean(self):
        p = self._p_cut()
        exact = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        t = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * t.pow(2)) * t
        return _ops.where(self._stable(), exact, taylor)

    @property
    def variance(self):
        p = self._p_cut()
        exact = (p * (p - 1.0) / (1.0 - 2.0 * p).pow(2)
                 + 1.0 / ((-p).log1p() - p.log()).pow(2))
        d = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * d) * d
        return _ops.where(self._stable(), exact, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        with _ops.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_ops.rand(shape, dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-_ops.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._p_cut()
        exact = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = _ops.where(self._stable(), exact, value)
        return _ops.where(value <= 0.0, 0.0, _ops.where(value >= 1.0, 1.0, inside))

    def icdf(self, value):
        p = self._p_cut()
        exact = (((-p) + value * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (
            p.log() - (-p).log1p())
        return _ops.where(self._stable(), exact, value)

    def entropy(self):
        log_q = (-self.probs).log1p()
        log_p = self.probs.log()
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the logit: log |expm1(x) / x|; x/2 + x^2/24 - x^4/2880
        near 0."""
        lo, hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        stable = (x <= lo) | (x > hi)
        cut = _ops.where(stable, x, lo)
        exact = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return _ops.where(stable, exact, taylor)
