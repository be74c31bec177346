"""torch.distributions.VonMises: the circular normal distribution on angles."""
from __future__ import annotations

import math

from . import _ops, constraints
from .distribution import Distribution
from .discrete import _numpy_draw
from .utils import broadcast_all

__all__ = ["VonMises"]

_ASYMPTOTIC_FROM = 500.0   # (I0 overflows doubles near 713)


def _log_i0_and_ratio(kappa):
    """log I0(kappa) and I1(kappa) / I0(kappa), computed in float64: Bessel functions below
    500, their asymptotic series above."""
    k = kappa.double()
    small = k < _ASYMPTOTIC_FROM
    ks = _ops.where(small, k, 1.0)
    kl = _ops.where(small, _ASYMPTOTIC_FROM, k)
    i0 = ks.i0()
    log_i0 = _ops.where(
        small, i0.log(),
        kl - 0.5 * (2 * math.pi * kl).log()
        + (1 / (8 * kl) + 9 / (128 * kl ** 2) + 225 / (3072 * kl ** 3)
           + 11025 / (98304 * kl ** 4)).log1p())
    ratio = _ops.where(small, _ops.special_i1(ks) / i0,
                       1 - 1 / (2 * kl) - 1 / (8 * kl ** 2) - 1 / (8 * kl ** 3)
                       - 25 / (128 * kl ** 4))
    return log_i0.to(kappa.dtype), ratio.to(kappa.dtype)


class VonMises(Distribution):
    """Density exp(concentration * cos(x - loc)) / (2 pi I0(concentration)); samples in
    [-pi, pi).  ``mean`` and ``variance`` are the circular ones."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(VonMises, batch_shape, ("loc", "concentration"), _instance)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_i0, _ = _log_i0_and_ratio(self.concentration)
        return (self.concentration * (value - self.loc).cos() - math.log(2 * math.pi)
                - log_i0)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _ops.no_grad():
            x = _numpy_draw(lambda g, m, k: g.vonmises(m, k), self.loc.expand(shape),
                            self.concentration.expand(shape), dtype=self.loc.dtype)
            # (NumPy's are in [-pi, pi]: pi is -pi on the circle)
            return _ops.where(x >= math.pi, x - 2 * math.pi, x)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        _, ratio = _log_i0_and_ratio(self.concentration)
        return 1 - ratio
